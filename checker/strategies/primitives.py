"""``_Choices``, which reads every choice of an object from one Hypothesis ``binary`` draw,
and the labels and label selectors built from the pools with it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from schedspec.checker.strategies.pools import LABEL_KEYS, LABEL_VALUES, Obj
from schedspec.checker.strategies.warned import warned_requirement


class _Choices:
    """Choices read from one Hypothesis ``binary`` draw per object: drawing a byte costs nothing
    (a 10-node × 10-pod cluster takes a few dozen Hypothesis draws, not a thousand), and every
    byte shrinks towards 0, which reads as the first pool entry and "feature absent". Reading past
    the end reads 0."""

    __slots__ = ("_at", "_data")

    def __init__(self, data: bytes) -> None:
        self._data, self._at = data, 0

    def byte(self) -> int:
        at = self._at
        self._at += 1
        return self._data[at] if at < len(self._data) else 0

    def percent(self) -> int:
        return self.byte() * 100 // 256

    def chance(self, percent: int) -> bool:
        """True ``percent`` % of the time; False when shrunk."""
        return self.percent() >= 100 - percent

    def one(self, pool: Sequence[Any]) -> Any:
        return pool[self.byte() % len(pool)]

    def integer(self, low: int, high: int) -> int:
        return low + self.byte() % (high - low + 1)

    def subset(self, pool: Sequence[Any], low: int, high: int) -> list[Any]:
        """``low``..``high`` distinct members of ``pool``, in pool order."""
        size = self.integer(low, min(high, len(pool)))
        start = self.byte()
        return [pool[(start + i) % len(pool)] for i in range(size)]


_BYTES = st.binary(min_size=160, max_size=160)


def _labels(ch: _Choices, at_most: int = 2) -> dict[str, str]:
    keys = ch.subset(LABEL_KEYS, 0, at_most)
    return {k: ch.one(LABEL_VALUES) for k in keys}


def _selector(ch: _Choices, own: Mapping[str, str] | None = None) -> Obj:
    """A label selector from the pools: mostly matchLabels (often the pod's own labels), some
    matchExpressions, rarely ``{}`` (which selects everything)."""
    kind = ch.percent()
    if kind < 40 and own:
        key = ch.one(sorted(own))
        return {"matchLabels": {key: own[key]}}
    if kind < 75:
        return {"matchLabels": {ch.one(LABEL_KEYS): ch.one(LABEL_VALUES)}}
    if kind < 95:
        return {"matchExpressions": [_label_requirement(ch)]}
    return {}


def _label_requirement(ch: _Choices) -> Obj:
    operator = ch.one(("In", "NotIn", "Exists", "DoesNotExist"))
    req: Obj = {"key": ch.one(LABEL_KEYS), "operator": operator}
    if operator in ("In", "NotIn"):
        req["values"] = ch.subset(LABEL_VALUES, 1, 2)
    return warned_requirement(ch, req)


def _selector_keys(selector: Mapping[str, Any]) -> set[str]:
    return {*(selector.get("matchLabels") or {}),
            *(r["key"] for r in selector.get("matchExpressions") or ())}  # fmt: skip


def _label_keys_beside(ch: _Choices, selector: Mapping[str, Any], percent: int) -> list[str]:
    """``matchLabelKeys``-style keys: never one the selector already names (validation)."""
    free = [k for k in LABEL_KEYS if k not in _selector_keys(selector)]
    return [ch.one(free)] if free and ch.chance(percent) else []
