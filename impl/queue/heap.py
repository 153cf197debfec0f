"""A keyed heap of queued pods (``pkg/scheduler/backend/heap/heap.go``): add-or-update, delete
and lookup by pod uid, pop by a ``less`` function.

Deletion and updates are lazy: the heap keeps stale entries and skips them on pop, which keeps
every operation O(log n) without an index into the list.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator

from schedspec.impl.framework.types import QueuedPodInfo

__all__ = ["Less", "PodHeap"]

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
        return self.seq < other.seq  # equal under less: first in, first out


class PodHeap:
    def __init__(self, less: Less) -> None:
        self._less = less
        self._heap: list[_Entry] = []
        self._live: dict[str, _Entry] = {}
        self._seq = 0

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, uid: object) -> bool:
        return uid in self._live

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        return (e.qpi for e in list(self._live.values()))

    def add_or_update(self, qpi: QueuedPodInfo) -> None:
        self._seq += 1
        entry = _Entry(qpi, self._seq, self._less)
        self._live[qpi.pod.uid] = entry
        heapq.heappush(self._heap, entry)

    def get(self, uid: str) -> QueuedPodInfo | None:
        entry = self._live.get(uid)
        return entry.qpi if entry is not None else None

    def delete(self, uid: str) -> bool:
        return self._live.pop(uid, None) is not None

    def _prune(self) -> None:
        heap, live = self._heap, self._live
        while heap and live.get(heap[0].qpi.pod.uid) is not heap[0]:
            heapq.heappop(heap)

    def peek(self) -> QueuedPodInfo | None:
        self._prune()
        return self._heap[0].qpi if self._heap else None

    def pop(self) -> QueuedPodInfo | None:
        self._prune()
        if not self._heap:
            return None
        entry = heapq.heappop(self._heap)
        del self._live[entry.qpi.pod.uid]
        return entry.qpi
