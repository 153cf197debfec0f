"""Structure-aware mutation of manifests, shared by the loader's "no traceback" property tests:
any JSON value (``json_values``) put at any field path of a valid object (``paths``,
``replaced``)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every field path of ``data`` (itself first, as ``()``)."""
    out = [prefix]
    if isinstance(data, dict):
        for key, item in data.items():
            out += paths(item, (*prefix, key))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            out += paths(item, (*prefix, i))
    return out


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``doc`` with ``value`` at ``path`` (a non-empty path of ``paths(doc)``)."""
    out = json.loads(json.dumps(doc))
    parent = out
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return out
