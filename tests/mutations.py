"""Structure-aware mutation of manifests, shared by the loader's "no traceback" property tests:
any JSON value (``json_values``) put at any field path of a valid object (``paths``,
``replaced``). ``paths`` is the fuzzing campaign's (``schedspec.checker.fuzz``), whose mutations
are these and more."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from schedspec.checker.fuzz import paths

__all__ = ["json_values", "paths", "replaced"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``doc`` with ``value`` at ``path`` (a non-empty path of ``paths(doc)``)."""
    out = json.loads(json.dumps(doc))
    parent = out
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return out
