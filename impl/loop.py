"""A deterministic event loop in virtual time: no threads, no sleeping.

Callbacks run in (time, insertion order); ``after(delay, fn)`` schedules ``fn`` at
``now + delay`` and ``call_soon(fn)`` at ``now``. Time only moves when the next callback is
later than now, so a run is reproducible and as fast as the work itself. The loop implements
the framework's ``Clock`` protocol.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

__all__ = ["EventLoop"]


class EventLoop:
    def __init__(self) -> None:
        self._now = 0.0
        self._seq = 0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []

    def now(self) -> float:
        return self._now

    def after(self, delay: float, fn: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (self._now + max(delay, 0.0), self._seq, fn))

    def call_soon(self, fn: Callable[[], None]) -> None:
        self.after(0.0, fn)

    def pending(self) -> int:
        return len(self._heap)

    def next_time(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def run_one(self) -> bool:
        """Run the earliest callback; False when there is none."""
        if not self._heap:
            return False
        when, _, fn = heapq.heappop(self._heap)
        self._now = max(self._now, when)
        fn()
        return True

    def run(self, until: float | None = None) -> None:
        """Run callbacks until none is left (or the next one is later than ``until``)."""
        while self._heap and (until is None or self._heap[0][0] <= until):
            self.run_one()
