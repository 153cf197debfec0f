"""activeQ and the in-flight bookkeeping: pods ready to be scheduled, and the cluster events
seen while a popped pod is being scheduled.

Mirrors ``pkg/scheduler/backend/queue/active_queue.go`` (v1.34). ``pop`` takes the head of
activeQ, or — with PopFromBackoffQ and activeQ empty — the head of the backoff heap; it counts
the attempt, starts a scheduling cycle, clears the pod's rejector plugins, and (with
QueueingHints) marks the pod in flight. While any pod is in flight, every cluster event is
recorded; ``cluster_events_for_pod`` gives the events recorded after the pod was popped, which
the queue replays against the pod's rejector plugins when the attempt fails. ``done`` ends the
in-flight period and drops events no in-flight pod can still see.
"""

from __future__ import annotations

from dataclasses import dataclass

from schedspec.impl.api import Pod
from schedspec.impl.framework.events import ClusterEvent, EventObject
from schedspec.impl.framework.types import QueuedPodInfo
from schedspec.impl.queue.backoff_queue import BackoffQueue
from schedspec.impl.queue.heap import Less, PodHeap

__all__ = ["ActiveQueue", "InFlightEvent"]


@dataclass(frozen=True, slots=True)
class InFlightEvent:
    seq: int
    event: ClusterEvent
    old: EventObject
    new: EventObject


class ActiveQueue:
    def __init__(self, less: Less, queueing_hints: bool, backoff: BackoffQueue | None) -> None:
        self.heap = PodHeap(less)
        self.queueing_hints = queueing_hints
        self._backoff_popper = backoff  # None unless PopFromBackoffQ
        self.in_flight_pods: dict[str, tuple[int, Pod]] = {}  # uid → (seq at pop, pod)
        self.in_flight_events: list[InFlightEvent] = []
        self._seq = 0
        self.scheduling_cycle = 0

    def __len__(self) -> int:
        return len(self.heap)

    def can_pop(self) -> bool:
        return bool(self.heap) or (
            self._backoff_popper is not None and self._backoff_popper.len_backoff() > 0
        )

    def pop(self) -> tuple[QueuedPodInfo, bool] | None:
        """The next pod and whether it came from the backoff heap; None when there is none."""
        qpi = self.heap.pop()
        from_backoff = False
        if qpi is None and self._backoff_popper is not None:
            qpi, from_backoff = self._backoff_popper.pop_backoff(), True
        if qpi is None:
            return None
        qpi.attempts += 1
        if self.queueing_hints:
            self._seq += 1
            self.in_flight_pods[qpi.pod.uid] = (self._seq, qpi.pod)
        self.scheduling_cycle += 1
        qpi.unschedulable_plugins = set()
        qpi.pending_plugins = set()
        qpi.gating_plugin, qpi.gating_plugin_events = "", ()
        return qpi, from_backoff

    # ---- in-flight events

    def _record(self, event: ClusterEvent, old: EventObject, new: EventObject) -> None:
        self._seq += 1
        self.in_flight_events.append(InFlightEvent(self._seq, event, old, new))

    def add_event_if_any_in_flight(
        self, event: ClusterEvent, old: EventObject, new: EventObject
    ) -> bool:
        if not self.in_flight_pods:
            return False
        self._record(event, old, new)
        return True

    def add_events_if_pod_in_flight(
        self, old: Pod | None, new: Pod, events: list[ClusterEvent]
    ) -> bool:
        if new.uid not in self.in_flight_pods:
            return False
        for event in events:
            self._record(event, old, new)
        return True

    def cluster_events_for_pod(self, uid: str) -> list[InFlightEvent] | None:
        """Events recorded since the pod was popped; None if it is not in flight."""
        entry = self.in_flight_pods.get(uid)
        if entry is None:
            return None
        since = entry[0]
        return [e for e in self.in_flight_events if e.seq > since]

    def done(self, uid: str) -> None:
        if self.in_flight_pods.pop(uid, None) is None:
            return
        if not self.in_flight_pods:
            self.in_flight_events.clear()
            return
        oldest = min(seq for seq, _ in self.in_flight_pods.values())
        if self.in_flight_events and self.in_flight_events[0].seq < oldest:
            self.in_flight_events = [e for e in self.in_flight_events if e.seq > oldest]
