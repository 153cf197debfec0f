"""The ITF trace format (Informal Trace Format, Apalache/Quint): plain JSON values, ``#map`` for
maps with non-string keys, ``#set`` for sets, ``#bigint`` for integers past 2⁵³ (JSON numbers
lose precision there). Witnesses (one state), scheduling runs (one state per event) and
counterexamples are written through here; ``itf-py`` reads them back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["cluster_state", "document", "mapping", "value"]


def value(v: Any) -> Any:
    """A JSON manifest value (or a Python set/tuple) as an ITF value."""
    if isinstance(v, bool | str):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2**53 else {"#bigint": str(v)}
    if isinstance(v, float):
        return {"#bigint": str(int(v))} if v.is_integer() else str(v)
    if isinstance(v, frozenset | set):
        return {"#set": [value(x) for x in sorted(v, key=repr)]}
    if isinstance(v, list | tuple):
        return [value(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): value(x) for k, x in v.items()}
    return str(v)


def mapping(pairs: Iterable[tuple[Any, Any]]) -> dict[str, Any]:
    return {"#map": [[value(k), value(x)] for k, x in pairs]}


def document(
    variables: Sequence[str], states: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]
) -> dict[str, Any]:
    """An ITF trace: ``states`` already encoded, each given its index."""
    return {
        "#meta": {"format": "ITF", **meta},
        "vars": list(variables),
        "states": [{"#meta": {"index": i}, **s} for i, s in enumerate(states)],
    }


def cluster_state(objects: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One ITF state of a cluster's manifests: ``nodes`` by name, ``pods`` by namespace/name."""
    nodes = [o for o in objects if o.get("kind") == "Node"]
    pods = [o for o in objects if o.get("kind") == "Pod"]

    def key(p: Mapping[str, Any]) -> str:
        meta = p.get("metadata") or {}
        return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"

    return {
        "nodes": mapping((n["metadata"]["name"], n) for n in nodes),
        "pods": mapping((key(p), p) for p in pods),
    }
