"""A simple scheduling queue: active pods ordered by the QueueSort plugin, the rest parked.

The real queue (activeQ / backoffQ / unschedulable pods, QueueingHints, backoff windows) is the
next issue; this one keeps the same states with simpler moves::

      add ──▶ [PreEnqueue ok] ──▶ active ──pop──▶ (in flight) ──fits──▶ (gone: assumed)
        │                          ▲  ▲                 │
        └─[gated]─▶ gated ─────────┘  │ any cluster     ├─rejected──▶ unschedulable
                   (pod updated,      │ event           │
                    gates gone)       └─────────────────┤
                                       backoff expires  └─error────▶ backoff (1 s, 2 s … 10 s)

Unschedulable pods return to active on *any* cluster event seen after they failed (no hints);
pods that failed with an Error come back after their backoff (``podInitialBackoffSeconds``
doubling up to ``podMaxBackoffSeconds``), driven by the virtual clock.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from schedspec.impl.framework.interface import Clock
from schedspec.impl.framework.types import QueuedPodInfo

__all__ = ["SchedulingQueue"]

Less = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


class _Entry:
    __slots__ = ("less", "qpi", "seq")

    def __init__(self, qpi: QueuedPodInfo, seq: int, less: Less) -> None:
        self.qpi, self.seq, self.less = qpi, seq, less

    def __lt__(self, other: _Entry) -> bool:
        if self.less(self.qpi, other.qpi):
            return True
        if self.less(other.qpi, self.qpi):
            return False
        return self.seq < other.seq


class SchedulingQueue:
    def __init__(
        self,
        less: Less,
        clock: Clock,
        initial_backoff: float = 1.0,
        max_backoff: float = 10.0,
        on_active: Callable[[], None] = lambda: None,
    ) -> None:
        self._less, self._clock = less, clock
        self.initial_backoff, self.max_backoff = initial_backoff, max_backoff
        self._on_active = on_active
        self._active: list[_Entry] = []
        self._seq = 0
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        self.gated: dict[str, QueuedPodInfo] = {}
        self.backoff: dict[str, QueuedPodInfo] = {}
        self._in_active: set[str] = set()
        self._moved_since: dict[str, int] = {}
        self._event_count = 0

    def __len__(self) -> int:
        return len(self._active)

    def _push(self, qpi: QueuedPodInfo) -> None:
        uid = qpi.pod.uid
        if uid in self._in_active:
            return
        self._seq += 1
        heapq.heappush(self._active, _Entry(qpi, self._seq, self._less))
        self._in_active.add(uid)
        self._on_active()

    def add(self, qpi: QueuedPodInfo, gated: bool = False) -> None:
        qpi.timestamp = self._clock.now()
        qpi.gated = gated
        if gated:
            self.gated[qpi.pod.uid] = qpi
        else:
            self._push(qpi)

    def pop(self) -> QueuedPodInfo | None:
        while self._active:
            entry = heapq.heappop(self._active)
            uid = entry.qpi.pod.uid
            if uid in self._in_active:
                self._in_active.discard(uid)
                entry.qpi.attempts += 1
                self._moved_since[uid] = self._event_count
                return entry.qpi
        return None

    def add_unschedulable(self, qpi: QueuedPodInfo, error: bool) -> None:
        """After a failed attempt: park (rejected) or back off (error)."""
        qpi.timestamp = self._clock.now()
        uid = qpi.pod.uid
        if error:
            qpi.consecutive_errors += 1
            self.backoff[uid] = qpi
            delay = min(self.initial_backoff * 2 ** (qpi.consecutive_errors - 1), self.max_backoff)
            self._clock.after(delay, lambda: self._backoff_done(uid))
            return
        qpi.unschedulable_count += 1
        qpi.consecutive_errors = 0
        if self._event_count > self._moved_since.get(uid, self._event_count):
            self._push(qpi)  # a cluster event arrived while the pod was in flight
        else:
            self.unschedulable[uid] = qpi

    def _backoff_done(self, uid: str) -> None:
        qpi = self.backoff.pop(uid, None)
        if qpi is not None:
            self._push(qpi)

    def move_all_to_active(self, exclude: str = "") -> None:
        """A cluster event: every unschedulable (not gated) pod but ``exclude`` goes back to
        active."""
        self._event_count += 1
        parked = self.unschedulable
        self.unschedulable = {uid: q for uid, q in parked.items() if uid == exclude}
        for uid, qpi in parked.items():
            if uid != exclude:
                self._push(qpi)

    def activate_gated(self, uid: str) -> None:
        qpi = self.gated.pop(uid, None)
        if qpi is not None:
            qpi.gated = False
            self._push(qpi)

    def delete(self, uid: str) -> None:
        self._in_active.discard(uid)
        for pool in (self.unschedulable, self.gated, self.backoff):
            pool.pop(uid, None)

    def pending(self) -> list[QueuedPodInfo]:
        """Every pod the queue holds, in no particular order."""
        active = [e.qpi for e in self._active if e.qpi.pod.uid in self._in_active]
        return [*active, *self.unschedulable.values(), *self.gated.values(), *self.backoff.values()]
