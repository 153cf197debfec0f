"""The backoff queue: pods waiting out their backoff before they may return to activeQ.

Mirrors ``pkg/scheduler/backend/queue/backoff_queue.go`` (v1.34). Two heaps:

- ``pod_backoff_q``: pods rejected by plugins, ordered by backoff expiry and, with
  ``SchedulerPopFromBackoffQ`` (KEP-5142, on by default), then by the activeQ order; this is
  the heap the scheduler may pop from early when activeQ is empty;
- ``pod_error_backoff_q``: pods that failed with an Error (no rejector plugins), ordered by
  expiry; never popped early.

Backoff: ``count`` is the consecutive error count if positive, else the unschedulable count;
``duration = min(initial · 2^(count−1), max)`` (0 for count 0), so 1 s, 2 s, 4 s, 8 s, 10 s, 10 s …
with the defaults. ``expiry = timestamp + duration``, truncated to the 1 s ordering window when
PopFromBackoffQ is on, and cached in ``QueuedPodInfo.backoff_expiration`` until the counts or
the timestamp change. A pod is backing off while ``expiry ≥ window(now)``.
"""

from __future__ import annotations

import math

from schedspec.impl.framework.interface import Clock
from schedspec.impl.framework.types import QueuedPodInfo
from schedspec.impl.queue.heap import Less, PodHeap

__all__ = ["ORDERING_WINDOW", "BackoffQueue", "backoff_duration"]

ORDERING_WINDOW = 1.0  # backoffQOrderingWindowDuration


def backoff_duration(count: int, initial: float, maximum: float) -> float:
    """``calculateBackoffDuration``: ``initial`` doubled ``count − 1`` times, capped at
    ``maximum``."""
    if count <= 0:
        return 0.0
    shift = count - 1
    if initial > maximum / (2**shift):
        return maximum
    return float(initial * (2**shift))


class BackoffQueue:
    def __init__(
        self, clock: Clock, initial: float, maximum: float, less: Less, pop_from_backoff: bool
    ) -> None:
        self._clock = clock
        self.initial, self.maximum = initial, maximum
        self.pop_from_backoff = pop_from_backoff
        self._active_less = less
        by_expiry = self._less_with_priority if pop_from_backoff else self._less_expiry
        self.pod_backoff_q = PodHeap(by_expiry)
        self.pod_error_backoff_q = PodHeap(self._less_expiry)

    def align(self, t: float) -> float:
        """Truncate to the ordering window (a no-op with PopFromBackoffQ off)."""
        if not self.pop_from_backoff:
            return t
        return math.floor(t / ORDERING_WINDOW) * ORDERING_WINDOW

    def backoff_time(self, qpi: QueuedPodInfo) -> float:
        """When the pod's backoff ends (``getBackoffTime``); −inf for no backoff."""
        if self.maximum == 0:
            return -math.inf
        count = qpi.consecutive_errors if qpi.consecutive_errors > 0 else qpi.unschedulable_count
        if count == 0:
            return -math.inf
        if qpi.backoff_expiration is None:
            duration = backoff_duration(count, self.initial, self.maximum)
            qpi.backoff_expiration = self.align(qpi.timestamp + duration)
        return qpi.backoff_expiration

    def is_backing_off(self, qpi: QueuedPodInfo) -> bool:
        return self.backoff_time(qpi) >= self.align(self._clock.now())

    def _less_expiry(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return self.backoff_time(a) < self.backoff_time(b)

    def _less_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        ta, tb = self.backoff_time(a), self.backoff_time(b)
        if ta != tb:
            return ta < tb
        return self._active_less(a, b)

    # ---- membership

    def add(self, qpi: QueuedPodInfo) -> None:
        """Into the error heap when no plugin rejected the pod, else the backoff heap."""
        uid = qpi.pod.uid
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            self.pod_backoff_q.delete(uid)
            self.pod_error_backoff_q.add_or_update(qpi)
        else:
            self.pod_error_backoff_q.delete(uid)
            self.pod_backoff_q.add_or_update(qpi)

    def get(self, uid: str) -> QueuedPodInfo | None:
        return self.pod_backoff_q.get(uid) or self.pod_error_backoff_q.get(uid)

    def has(self, uid: str) -> bool:
        return uid in self.pod_backoff_q or uid in self.pod_error_backoff_q

    def delete(self, uid: str) -> bool:
        return self.pod_backoff_q.delete(uid) or self.pod_error_backoff_q.delete(uid)

    def update(self, uid: str, qpi_update: QueuedPodInfo) -> bool:
        for heap in (self.pod_backoff_q, self.pod_error_backoff_q):
            if uid in heap:
                heap.add_or_update(qpi_update)
                return True
        return False

    def __len__(self) -> int:
        return len(self.pod_backoff_q) + len(self.pod_error_backoff_q)

    def len_backoff(self) -> int:
        return len(self.pod_backoff_q)

    def pods(self) -> list[QueuedPodInfo]:
        return [*self.pod_backoff_q, *self.pod_error_backoff_q]

    # ---- popping

    def pop_backoff(self) -> QueuedPodInfo | None:
        """The head of the (non-error) backoff heap, backing off or not (KEP-5142)."""
        return self.pod_backoff_q.pop()

    def pop_all_completed(self) -> list[QueuedPodInfo]:
        """Every pod whose backoff is over, from both heaps (``popAllBackoffCompleted``)."""
        done: list[QueuedPodInfo] = []
        for heap in (self.pod_backoff_q, self.pod_error_backoff_q):
            while (head := heap.peek()) is not None and not self.is_backing_off(head):
                heap.pop()
                done.append(head)
        return done
