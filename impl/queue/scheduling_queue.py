"""The scheduling queue: activeQ, backoffQ and unschedulable pods, moved by cluster events
through QueueingHints, in virtual time.

Mirrors ``pkg/scheduler/backend/queue/scheduling_queue.go`` (v1.34, ``PriorityQueue``) with
``SchedulerQueueingHints`` (GA) and ``SchedulerPopFromBackoffQ`` (KEP-5142, beta, on) as
switchable options::

     add ──PreEnqueue──▶ activeQ ──pop──▶ in flight ──(scheduled: done)──▶ gone
      │   gated            ▲  ▲             │
      ▼                    │  │             │ add_unschedulable_if_not_present
   unschedulablePods ◀─────┼──┼─────────────┤  (hints over the events seen in flight)
      │ ▲   event + a      │  │ backoff     ├── QueueSkip ──────────▶ unschedulablePods
      │ │   rejector says  │  │ over (1 s   ├── Queue, backing off ─▶ backoffQ
      │ │   Queue          │  │ flush)      └── Queue, done / Pending▶ activeQ
      │ └──── 5 min ───────┼──┼── 30 s sweep
      └────────────────────┴──┴── backoffQ ◀── (popped early when activeQ is empty)

- **Backoff** (``backoff_queue.py``): 1 s doubling to 10 s by unschedulable / consecutive error
  count; error pods sit in their own heap and are never popped early.
- **Flushes**: every whole second, pods whose backoff is over move to activeQ
  (``BackoffComplete``); every 30 s, pods unschedulable for more than 5 min move with the
  wildcard ``UnschedulableTimeout`` event. Both are loop timers armed only while there is
  something to flush, on the same grid as upstream's tickers (1 s windows; 30 s from t = 0).
- **PreEnqueue**: a pod that fails a PreEnqueue plugin (scheduling gates) is parked in
  unschedulablePods as gated, with that plugin as its rejector; it is never popped, so no
  attempt is counted, until an event its gating plugin registered (or an update) lets it pass.
- **Cluster events** (``move_all_to_active_or_backoff_queue``): a pod leaves the unschedulable
  pool only if the hint of one of its rejector plugins registered for a matching event says
  Queue (a Pending plugin's Queue skips backoff); a pod without rejector plugins always goes.
  With hints off, every registered hint is Queue and ``move_request_cycle`` stands in for the
  in-flight events.

The nominator (``PodNominator``) is told about pods that are added, updated or deleted, as the
embedded nominator upstream is. ``on_move(qpi, from, to, event)`` reports every transfer
between sub-queues (the trace); ``on_active()`` fires when a pod may be popped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from enum import Enum
from typing import Protocol

from schedspec.impl.api import Pod
from schedspec.impl.framework.events import (
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_ADD,
    EVENT_UNSCHEDULED_POD_UPDATE,
    ClusterEvent,
    EventObject,
    QueueingHint,
    QueueingHintFn,
    match_any_cluster_event,
    match_cluster_events,
    pod_scheduling_properties_change,
)
from schedspec.impl.framework.interface import Clock, PreEnqueuePlugin
from schedspec.impl.framework.status import Status
from schedspec.impl.framework.types import PodInfo, QueuedPodInfo
from schedspec.impl.queue.active_queue import ActiveQueue
from schedspec.impl.queue.backoff_queue import ORDERING_WINDOW, BackoffQueue
from schedspec.impl.queue.heap import Less

__all__ = [
    "ACTIVE_Q",
    "BACKOFF_Q",
    "IN_FLIGHT",
    "UNSCHEDULABLE_PODS",
    "HintRegistration",
    "PodNominator",
    "QueueingStrategy",
    "SchedulingQueue",
]

DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 5 * 60.0
UNSCHEDULABLE_FLUSH_PERIOD = 30.0

ACTIVE_Q, BACKOFF_Q, UNSCHEDULABLE_PODS, IN_FLIGHT = (
    "activeQ",
    "backoffQ",
    "unschedulablePods",
    "inFlight",
)
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
FORCE_ACTIVATE = "ForceActivate"


class PodNominator(Protocol):
    """What the queue tells the nominator (``framework.PodNominator``)."""

    def add_nominated_pod(
        self, pod_info: PodInfo, nominated_node_name: str | None = None
    ) -> None: ...

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None: ...

    def update_nominated_pod(self, old_pod: Pod, new_pod_info: PodInfo) -> None: ...

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...


class QueueingStrategy(Enum):
    SKIP = "queueSkip"
    AFTER_BACKOFF = "queueAfterBackoff"
    IMMEDIATELY = "queueImmediately"


# (registered event, plugin name, hint) for one profile
HintRegistration = tuple[ClusterEvent, str, QueueingHintFn]
MoveHook = Callable[[QueuedPodInfo, str, str, str], None]


def _pod_updated(old: Pod, new: Pod) -> bool:
    """The update changed more than the status (``isPodUpdated``)."""

    def strip(p: Pod) -> Pod:
        return replace(p, phase="", nominated_node_name="")

    return strip(old) != strip(new)


class SchedulingQueue:
    def __init__(
        self,
        less: Less,
        clock: Clock,
        initial_backoff: float = 1.0,
        max_backoff: float = 10.0,
        *,
        max_in_unschedulable: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
        pre_enqueue: Mapping[str, Sequence[PreEnqueuePlugin]] | None = None,
        hints: Mapping[str, Sequence[HintRegistration]] | None = None,
        queueing_hints: bool = True,
        pop_from_backoff: bool = True,
        nominator: PodNominator | None = None,
        on_active: Callable[[], None] = lambda: None,
        on_move: MoveHook | None = None,
    ) -> None:
        self._clock = clock
        self.queueing_hints, self.pop_from_backoff = queueing_hints, pop_from_backoff
        self.max_in_unschedulable = max_in_unschedulable
        self.backoff_q = BackoffQueue(clock, initial_backoff, max_backoff, less, pop_from_backoff)
        self.active_q = ActiveQueue(
            less, queueing_hints, self.backoff_q if pop_from_backoff else None
        )
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        self._pre_enqueue = {k: list(v) for k, v in (pre_enqueue or {}).items()}
        self._hints = {k: list(v) for k, v in (hints or {}).items()}
        self._plugin_events: dict[str, list[ClusterEvent]] = {}
        for regs in self._hints.values():
            for event, plugin, _ in regs:
                self._plugin_events.setdefault(plugin, []).append(event)
        self.nominator = nominator
        self.on_active, self.on_move = on_active, on_move
        self.move_request_cycle = -1
        self.gating_status: dict[str, Status] = {}  # uid → why a PreEnqueue plugin gates it
        self._where: dict[str, str] = {}
        self._backoff_tick = False
        self._leftover_tick = False

    # ------------------------------------------------------------------ bookkeeping

    def where(self, uid: str) -> str:
        """activeQ, backoffQ, unschedulablePods, inFlight, or "" (not in the queue)."""
        return self._where.get(uid, "")

    def _moved(self, qpi: QueuedPodInfo, to: str, event: str) -> None:
        uid = qpi.pod.uid
        before = self._where.get(uid, "")
        if to:
            self._where[uid] = to
        else:
            self._where.pop(uid, None)
        if self.on_move is not None and before != to:
            self.on_move(qpi, before, to, event)
        if to == BACKOFF_Q:
            self._arm_backoff_flush()
        elif to == UNSCHEDULABLE_PODS:
            self._arm_leftover_flush()

    @property
    def scheduling_cycle(self) -> int:
        return self.active_q.scheduling_cycle

    def __len__(self) -> int:
        """Pods in activeQ."""
        return len(self.active_q)

    def can_pop(self) -> bool:
        return self.active_q.can_pop()

    def pods_in_active_q(self) -> list[QueuedPodInfo]:
        return list(self.active_q.heap)

    def pods_in_backoff_q(self) -> list[QueuedPodInfo]:
        return self.backoff_q.pods()

    def unschedulable_pods(self) -> list[QueuedPodInfo]:
        return list(self.unschedulable.values())

    def in_flight_pods(self) -> list[Pod]:
        return [pod for _, pod in self.active_q.in_flight_pods.values()]

    def pending_pods(self) -> list[QueuedPodInfo]:
        return [*self.pods_in_active_q(), *self.pods_in_backoff_q(), *self.unschedulable_pods()]

    def pending(self) -> list[QueuedPodInfo]:
        """Every pod the queue holds (``PendingPods``)."""
        return self.pending_pods()

    def new_queued_pod_info(self, pod: Pod) -> QueuedPodInfo:
        return QueuedPodInfo(PodInfo(pod), timestamp=self._clock.now())

    # ------------------------------------------------------------------ PreEnqueue

    def _run_pre_enqueue(self, qpi: QueuedPodInfo) -> None:
        plugins = self._pre_enqueue.get(qpi.pod.scheduler_name, [])
        gating = qpi.gating_plugin
        ordered = sorted(plugins, key=lambda p: p.name() != gating) if gating else plugins
        for pl in ordered:
            status = pl.pre_enqueue(qpi.pod)
            if status is not None and not status.is_success():
                name = pl.name()
                qpi.unschedulable_plugins.add(name)
                qpi.gating_plugin = name
                qpi.gating_plugin_events = tuple(self._plugin_events.get(name, ()))
                self.gating_status[qpi.pod.uid] = status.with_plugin(name)
                return
        qpi.gating_plugin, qpi.gating_plugin_events = "", ()
        self.gating_status.pop(qpi.pod.uid, None)

    # ------------------------------------------------------------------ moves

    def _move_to_active(self, qpi: QueuedPodInfo, event: str) -> bool:
        """activeQ if PreEnqueue passes, else parked as gated (``moveToActiveQ``)."""
        uid = qpi.pod.uid
        if not self.pop_from_backoff or event != BACKOFF_COMPLETE:
            self._run_pre_enqueue(qpi)
        if qpi.gated:
            if uid in self.active_q.heap or self.backoff_q.has(uid) or uid in self.unschedulable:
                return False
            self.unschedulable[uid] = qpi
            self._moved(qpi, UNSCHEDULABLE_PODS, event)
            return False
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self._clock.now()
        self.active_q.heap.add_or_update(qpi)
        self.unschedulable.pop(uid, None)
        self.backoff_q.delete(uid)
        self._moved(qpi, ACTIVE_Q, event)
        pod_event = event in (EVENT_UNSCHEDULED_POD_ADD.label, EVENT_UNSCHEDULED_POD_UPDATE.label)
        if pod_event and self.nominator is not None:
            self.nominator.add_nominated_pod(qpi.pod_info, None)  # its own status field
        self.on_active()
        return True

    def _move_to_backoff(self, qpi: QueuedPodInfo, event: str) -> bool:
        """backoffQ (PreEnqueue runs here with PopFromBackoffQ) (``moveToBackoffQ``)."""
        uid = qpi.pod.uid
        if self.pop_from_backoff:
            self._run_pre_enqueue(qpi)
            if qpi.gated:
                if uid not in self.unschedulable:
                    self.unschedulable[uid] = qpi
                    self._moved(qpi, UNSCHEDULABLE_PODS, event)
                return False
        self.backoff_q.add(qpi)
        self._moved(qpi, BACKOFF_Q, event)
        if self.pop_from_backoff:
            self.on_active()
        return True

    def _requeue(self, qpi: QueuedPodInfo, strategy: QueueingStrategy, event: str) -> str:
        """Where the pod goes for a strategy (``requeuePodWithQueueingStrategy``)."""
        if strategy is QueueingStrategy.SKIP:
            self.unschedulable[qpi.pod.uid] = qpi
            self._moved(qpi, UNSCHEDULABLE_PODS, event)
            return UNSCHEDULABLE_PODS
        if strategy is QueueingStrategy.AFTER_BACKOFF and self.backoff_q.is_backing_off(qpi):
            return BACKOFF_Q if self._move_to_backoff(qpi, event) else UNSCHEDULABLE_PODS
        return ACTIVE_Q if self._move_to_active(qpi, event) else UNSCHEDULABLE_PODS

    # ------------------------------------------------------------------ entering / leaving

    def add(self, pod: Pod) -> None:
        """A new pending pod (``Add``)."""
        self._move_to_active(self.new_queued_pod_info(pod), EVENT_UNSCHEDULED_POD_ADD.label)

    def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule, or None (the simulation never blocks)."""
        popped = self.active_q.pop()
        if popped is None:
            return None
        qpi, from_backoff = popped
        self._moved(qpi, IN_FLIGHT, POP_FROM_BACKOFF_Q if from_backoff else "Pop")
        return qpi

    def done(self, uid: str) -> None:
        """The pod's scheduling (or binding) is over; forget its in-flight events."""
        if self._where.get(uid) == IN_FLIGHT:
            self._where.pop(uid, None)
        if self.queueing_hints:
            self.active_q.done(uid)

    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo, pod_cycle: int) -> None:
        """After a failed attempt (``AddUnschedulableIfNotPresent``)."""
        uid = qpi.pod.uid
        try:
            if uid in self.unschedulable or uid in self.active_q.heap or self.backoff_q.has(uid):
                return
            if not qpi.unschedulable_plugins and not qpi.pending_plugins:
                qpi.consecutive_errors += 1
            else:
                qpi.unschedulable_count += 1
                qpi.consecutive_errors = 0
            qpi.timestamp = self._clock.now()
            qpi.backoff_expiration = None
            if not self.queueing_hints:
                self._add_without_hints(qpi, pod_cycle)
                return
            strategy = self._hint_for_in_flight_pod(qpi)
            self._requeue(qpi, strategy, SCHEDULE_ATTEMPT_FAILURE)
        finally:
            self.done(uid)

    def _add_without_hints(self, qpi: QueuedPodInfo, pod_cycle: int) -> None:
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if self.move_request_cycle >= pod_cycle or not rejectors:
            self._move_to_backoff(qpi, SCHEDULE_ATTEMPT_FAILURE)
        else:
            self.unschedulable[qpi.pod.uid] = qpi
            self._moved(qpi, UNSCHEDULABLE_PODS, SCHEDULE_ATTEMPT_FAILURE)

    def _hint_for_in_flight_pod(self, qpi: QueuedPodInfo) -> QueueingStrategy:
        """Replay the events seen while the pod was in flight
        (``determineSchedulingHintForInFlightPod``)."""
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            return QueueingStrategy.AFTER_BACKOFF
        events = self.active_q.cluster_events_for_pod(qpi.pod.uid)
        if events is None:
            return QueueingStrategy.AFTER_BACKOFF
        strategy = QueueingStrategy.SKIP
        for e in events:
            hint = self.is_pod_worth_requeuing(qpi, e.event, e.old, e.new)
            if hint is QueueingStrategy.IMMEDIATELY:
                return hint
            if hint is QueueingStrategy.AFTER_BACKOFF:
                strategy = hint
                if not qpi.pending_plugins:
                    return strategy
        return strategy

    def update(self, old: Pod | None, new: Pod) -> None:
        """A pending pod changed (``Update``)."""
        uid = new.uid
        events: list[ClusterEvent] = []
        if self.queueing_hints and old is not None:
            events = pod_scheduling_properties_change(new, old)
            if self.active_q.add_events_if_pod_in_flight(old, new, events):
                return
        if old is not None:
            for heap_has, refresh in (
                (uid in self.active_q.heap, self.active_q.heap.add_or_update),
                (self.backoff_q.has(uid), self.backoff_q.add),
            ):
                if heap_has:
                    qpi = self.active_q.heap.get(uid) or self.backoff_q.get(uid)
                    assert qpi is not None
                    qpi.pod_info = PodInfo(new)
                    refresh(qpi)
                    if self.nominator is not None:
                        self.nominator.update_nominated_pod(old, qpi.pod_info)
                    return
        qpi = self.unschedulable.get(uid)
        if qpi is None:
            if uid not in self.active_q.in_flight_pods:
                self._move_to_active(
                    self.new_queued_pod_info(new), EVENT_UNSCHEDULED_POD_UPDATE.label
                )
            return
        qpi.pod_info = PodInfo(new)
        if self.nominator is not None and old is not None:
            self.nominator.update_nominated_pod(old, qpi.pod_info)
        self._update_unschedulable(qpi, old, new, events)

    def _update_unschedulable(
        self, qpi: QueuedPodInfo, old: Pod | None, new: Pod, events: list[ClusterEvent]
    ) -> None:
        uid = qpi.pod.uid
        if self.queueing_hints:
            for event in events:
                hint = self.is_pod_worth_requeuing(qpi, event, old, new)
                if hint is QueueingStrategy.SKIP:
                    continue
                self.unschedulable.pop(uid, None)
                where = self._requeue(qpi, hint, event.label)
                if where == ACTIVE_Q or (self.pop_from_backoff and where == BACKOFF_Q):
                    break
            return
        label = EVENT_UNSCHEDULED_POD_UPDATE.label
        if old is not None and _pod_updated(old, new):
            if self.backoff_q.is_backing_off(qpi):
                if self._move_to_backoff(qpi, label):
                    self.unschedulable.pop(uid, None)
                return
            self._move_to_active(qpi, label)

    def delete(self, pod: Pod) -> None:
        """The pod is gone or bound (``Delete``)."""
        uid = pod.uid
        if self.nominator is not None:
            self.nominator.delete_nominated_pod_if_exists(pod)
        qpi = self.active_q.heap.get(uid) or self.backoff_q.get(uid) or self.unschedulable.get(uid)
        self.active_q.heap.delete(uid) or self.backoff_q.delete(uid)
        self.unschedulable.pop(uid, None)
        self.gating_status.pop(uid, None)
        if qpi is not None:
            self._moved(qpi, "", "Delete")

    def activate(self, pods: Sequence[Pod]) -> None:
        """Move the given pods to activeQ now (``Activate``); an in-flight pod gets a
        ForceActivate event to see when it comes back."""
        for pod in pods:
            qpi = self.unschedulable.get(pod.uid)
            if qpi is None and (qpi := self.backoff_q.get(pod.uid)) is not None:
                self.backoff_q.delete(pod.uid)
            if qpi is not None:
                self._move_to_active(qpi, FORCE_ACTIVATE)
                continue
            self.active_q.add_events_if_pod_in_flight(None, pod, [EVENT_FORCE_ACTIVATE])
            self.move_request_cycle = self.scheduling_cycle

    # ------------------------------------------------------------------ cluster events

    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        if event.is_wildcard():
            return True
        return any(
            match_cluster_events(registered, event)
            for regs in self._hints.values()
            for registered, _, _ in regs
        )

    def is_pod_worth_requeuing(
        self, qpi: QueuedPodInfo, event: ClusterEvent, old: EventObject, new: EventObject
    ) -> QueueingStrategy:
        """Ask the hints of the pod's rejector plugins (``isPodWorthRequeuing``)."""
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if not rejectors:
            return QueueingStrategy.AFTER_BACKOFF
        if event.is_wildcard():
            if new is not None and (not isinstance(new, Pod) or new.uid != qpi.pod.uid):
                return QueueingStrategy.SKIP  # a wildcard aimed at another pod
            return QueueingStrategy.AFTER_BACKOFF
        regs = self._hints.get(qpi.pod.scheduler_name)
        if regs is None:
            return QueueingStrategy.AFTER_BACKOFF
        strategy = QueueingStrategy.SKIP
        for registered, plugin, fn in regs:
            if plugin not in rejectors or not match_cluster_events(registered, event):
                continue
            try:
                hint = fn(qpi.pod, old, new)
            except Exception:  # a failing hint must not strand the pod (upstream: Queue)
                hint = QueueingHint.QUEUE
            if hint is QueueingHint.QUEUE_SKIP:
                continue
            if plugin in qpi.pending_plugins:
                return QueueingStrategy.IMMEDIATELY
            if not qpi.pending_plugins:
                return QueueingStrategy.AFTER_BACKOFF
            strategy = QueueingStrategy.AFTER_BACKOFF
        return strategy

    def move_all_to_active_or_backoff_queue(
        self,
        event: ClusterEvent,
        old: EventObject = None,
        new: EventObject = None,
        pre_check: Callable[[Pod], bool] | None = None,
    ) -> None:
        """A cluster event: requeue the unschedulable pods it may help
        (``MoveAllToActiveOrBackoffQueue``)."""
        if not self.is_event_of_interest(event):
            return
        pods = [q for q in self.unschedulable.values() if pre_check is None or pre_check(q.pod)]
        self.move_pods_to_active_or_backoff_queue(pods, event, old, new)

    def move_pods_to_active_or_backoff_queue(
        self,
        pods: Sequence[QueuedPodInfo],
        event: ClusterEvent,
        old: EventObject,
        new: EventObject,
    ) -> None:
        if not self.is_event_of_interest(event):
            return
        for qpi in pods:
            if qpi.gated and not match_any_cluster_event(event, qpi.gating_plugin_events):
                continue
            hint = self.is_pod_worth_requeuing(qpi, event, old, new)
            if hint is QueueingStrategy.SKIP:
                continue
            self.unschedulable.pop(qpi.pod.uid, None)
            self._requeue(qpi, hint, event.label)
        self.move_request_cycle = self.scheduling_cycle
        if self.queueing_hints:
            self.active_q.add_event_if_any_in_flight(event, old, new)

    # ------------------------------------------------------------------ periodic flushes

    def _arm_backoff_flush(self) -> None:
        if self._backoff_tick:
            return
        self._backoff_tick = True
        now = self._clock.now()
        next_window = (math.floor(now / ORDERING_WINDOW) + 1) * ORDERING_WINDOW
        self._clock.after(next_window - now, self._backoff_flush_tick)

    def _backoff_flush_tick(self) -> None:
        self._backoff_tick = False
        self.flush_backoff_q_completed()
        if len(self.backoff_q):
            self._arm_backoff_flush()

    def flush_backoff_q_completed(self) -> None:
        """Move every pod whose backoff is over to activeQ (``flushBackoffQCompleted``)."""
        for qpi in self.backoff_q.pop_all_completed():
            self._move_to_active(qpi, BACKOFF_COMPLETE)

    def _arm_leftover_flush(self) -> None:
        if self._leftover_tick:
            return
        self._leftover_tick = True
        now = self._clock.now()
        period = UNSCHEDULABLE_FLUSH_PERIOD
        self._clock.after((math.floor(now / period) + 1) * period - now, self._leftover_tick_fn)

    def _leftover_tick_fn(self) -> None:
        self._leftover_tick = False
        self.flush_unschedulable_pods_leftover()
        if self.unschedulable:
            self._arm_leftover_flush()

    def flush_unschedulable_pods_leftover(self) -> None:
        """Requeue pods unschedulable for longer than 5 min (``flushUnschedulablePodsLeftover``)."""
        now = self._clock.now()
        stale = [
            q for q in self.unschedulable.values() if now - q.timestamp > self.max_in_unschedulable
        ]
        if stale:
            self.move_pods_to_active_or_backoff_queue(
                stale, EVENT_UNSCHEDULABLE_TIMEOUT, None, None
            )
