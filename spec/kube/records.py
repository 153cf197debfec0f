"""Building TLA values from Kubernetes objects, with equal sub-values shared.

Both views (:mod:`.textbook_view`, :mod:`.scheduler_view`) turn thousands of pods into records.
Most of their parts repeat (a Deployment's 5000 replicas hold one affinity, one toleration set, one
resource map), so every sub-value is *interned*: built once and shared. Sharing makes a cluster's
records cheap to build and to hash, and makes equality checks between them stop at identity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from schedspec.spec.values import Fcn, Value

__all__ = ["RecordBuilder"]

_V = TypeVar("_V", Fcn, frozenset[Any], tuple[Any, ...])


class RecordBuilder:
    """Interning constructors for sets, sequences, maps and converted resource lists."""

    __slots__ = ("_quantities", "_seen")

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}
        self._quantities: dict[tuple[str, Any], tuple[str, int]] = {}

    def __len__(self) -> int:
        return len(self._seen)

    def intern(self, v: _V) -> _V:
        # Children are interned first, so equality checks on a hit stop at identical children.
        seen: _V = self._seen.setdefault(v, v)
        return seen

    def set(self, items: Iterable[Value]) -> frozenset[Any]:
        return self.intern(frozenset(items))

    def seq(self, items: Iterable[Value]) -> tuple[Any, ...]:
        return self.intern(tuple(items))

    def map(self, m: Mapping[str, Any] | None) -> Fcn:
        return self.intern(Fcn(m or {}))

    def converted(
        self,
        quantities: Mapping[str, Any],
        convert: Callable[[str], tuple[str, Callable[[Any], int]]],
    ) -> dict[str, int]:
        """Quantities as integers under the names ``convert`` gives; parsing dominates the cost,
        so each distinct (resource, quantity) is parsed once."""
        out = {}
        for name, q in quantities.items():
            entry = self._quantities.get((name, q))
            if entry is None:
                key, to_int = convert(name)
                entry = self._quantities[name, q] = (key, to_int(q))
            out[entry[0]] = entry[1]
        return out
