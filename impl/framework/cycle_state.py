"""``CycleState``: per-pod scratch space shared by the plugins of one scheduling cycle.

Plugins write what PreFilter/PreScore precompute and read it back at Filter/Score. Values must
implement ``clone()`` (``StateData``) so that preemption can simulate on a copy.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["CycleState", "StateData"]


@runtime_checkable
class StateData(Protocol):
    def clone(self) -> StateData: ...


_T = TypeVar("_T")


class CycleState:
    """Key → ``StateData``; plus the plugins whose Filter/Score are skipped this cycle."""

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, StateData] = {}
        self.skip_filter_plugins: frozenset[str] = frozenset()
        self.skip_score_plugins: frozenset[str] = frozenset()

    def write(self, key: str, value: StateData) -> None:
        self._data[key] = value

    def read(self, key: str) -> StateData | None:
        return self._data.get(key)

    def read_as(self, key: str, kind: type[_T]) -> _T | None:
        """The value at ``key`` if it is a ``kind``, else None."""
        value = self._data.get(key)
        return value if isinstance(value, kind) else None

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> CycleState:
        copy = CycleState()
        copy._data = {key: value.clone() for key, value in self._data.items()}
        copy.skip_filter_plugins = self.skip_filter_plugins
        copy.skip_score_plugins = self.skip_score_plugins
        return copy
