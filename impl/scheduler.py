"""The scheduler: scheduling cycle, binding cycle, and the informer-side event handlers.

Mirrors ``pkg/scheduler/schedule_one.go`` and ``eventhandlers.go`` (v1.34), single-threaded on
the ``EventLoop``:

1. ``_schedule_one`` pops a pod, refreshes the snapshot, runs PreFilter, then Filter over the
   nodes from the rotating ``next_start_node_index`` until ``num_feasible_nodes_to_find`` fit
   (the pod's nominated node is tried first); one feasible node is taken without scoring;
   otherwise PreScore, Score, NormalizeScore and weights, and ``select_host`` draws among the
   top scores with the seeded RNG. The pod is assumed in the cache, Reserve and Permit run.
2. The binding cycle is a later loop callback: it waits on Permit (approve / deny / timeout),
   then PreBind, Bind, PostBind. Any failure unreserves, forgets the assumed pod and requeues it
   (an Error backs off, a rejection waits for a cluster event).
3. Watch events from the API server feed the cache and the queue.

No feasible node gives a ``FitError``; PostFilter (DefaultPreemption) then runs and may nominate
the pod to a node (``status.nominatedNodeName``, recorded in the ``Nominator``). Filtering is
two-pass on nodes with nominated pods (``Framework.run_filter_plugins_with_nominated_pods``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schedspec.impl.api import Node, Pod, namespace_from_dict, node_from_dict, pod_from_dict
from schedspec.impl.apiserver import APIError, APIServer, WatchEvent
from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.errors import ConfigError
from schedspec.impl.framework.config import SchedulerConfig, parse_config
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.equivalence import keep
from schedspec.impl.framework.events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    NODE,
    ActionType,
    ClusterEvent,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from schedspec.impl.framework.nominator import NominationFollower, Nominator
from schedspec.impl.framework.registry import Registry
from schedspec.impl.framework.runtime import FilterFn, Framework, FrameworkHandle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import Diagnosis, FitError, NodeInfo, PodInfo, QueuedPodInfo
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins import (
    in_tree_registry,
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    taint_toleration,
)
from schedspec.impl.queue import SchedulingQueue
from schedspec.impl.queue.hints import build_queueing_hint_map
from schedspec.impl.trace import Tracer

__all__ = ["CycleRecord", "Failure", "Scheduler", "num_feasible_nodes_to_find"]

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
BASE_PERCENTAGE_OF_NODES_TO_SCORE = 50
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"


def num_feasible_nodes_to_find(percentage: int | None, num_all_nodes: int) -> int:
    """How many feasible nodes to find before scoring (adaptive when ``percentage`` is 0)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage or 0
    if pct == 0:
        pct = max(
            BASE_PERCENTAGE_OF_NODES_TO_SCORE - num_all_nodes // 125,
            MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
        )
    return max(num_all_nodes * pct // 100, MIN_FEASIBLE_NODES_TO_FIND)


class Failure:
    """Why a pod is not scheduled: the rejecting plugins and kube-scheduler's message."""

    __slots__ = ("code", "gate", "message", "plugins")

    def __init__(
        self, plugins: Sequence[str], message: str, code: Code, gate: bool = False
    ) -> None:
        self.plugins, self.message, self.code = sorted(plugins), message, code
        self.gate = gate  # a PreEnqueue plugin keeps the pod out of activeQ


@dataclass(frozen=True, slots=True)
class CycleRecord:
    """What one scheduling cycle saw and decided, handed to ``Scheduler.observer`` (the
    checker's decision properties). ``nodes`` is the snapshot the cycle ran against (it stays
    as it is until the next cycle refreshes it); ``host`` is "" unless a node was chosen;
    ``diagnosis`` is the FitError's, when no node fit; ``nomination`` is what PostFilter asked
    for (None: nothing; "": clear); ``error`` the message of a cycle that ended in an error."""

    cycle: int
    pod: Pod
    nodes: tuple[NodeInfo, ...]
    host: str = ""
    diagnosis: Diagnosis | None = None
    nomination: str | None = None
    error: str | None = None


class _CycleError(Exception):
    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


class Scheduler:
    def __init__(
        self,
        apiserver: APIServer,
        loop: EventLoop,
        config: SchedulerConfig | Mapping[str, Any] | None = None,
        registry: Registry | None = None,
        seed: int = 0,
        *,
        queueing_hints: bool = True,
        tracer: Tracer | None = None,
        convert_pod: Callable[[Mapping[str, Any]], Pod] | None = None,
    ) -> None:
        self.apiserver, self.loop = apiserver, loop
        self.tracer = tracer
        # how the informers turn a Pod object into a ``Pod``: ``pod_from_dict``, or one that
        # keeps what it made (a checker loads clusters that share most pods; a Pod is immutable)
        self._convert_pod = convert_pod if convert_pod is not None else pod_from_dict
        cfg = config if isinstance(config, SchedulerConfig) else parse_config(config)
        self.config = cfg
        self.rng = random.Random(seed)
        self.cache = Cache()
        self.snapshot = Snapshot()
        self.namespaces: dict[str, Mapping[str, str]] = {}
        self._implicit_namespaces: dict[str, Mapping[str, str]] = {}
        self.nominator = Nominator(lambda pod: _unbound(apiserver.get("Pod", pod.key)))
        self.handle = FrameworkHandle(
            self.snapshot, loop, apiserver, self._all_namespaces, self.nominator, self.rng
        )
        reg = registry if registry is not None else in_tree_registry()
        self.profiles = _frameworks(cfg, reg, self.handle)
        first = next(iter(self.profiles.values()))
        self.queue = SchedulingQueue(
            first.less,
            loop,
            cfg.pod_initial_backoff_seconds,
            cfg.pod_max_backoff_seconds,
            pre_enqueue={name: fwk.pre_enqueue for name, fwk in self.profiles.items()},
            hints={
                name: build_queueing_hint_map(fwk.plugins, fwk.lists, queueing_hints)
                for name, fwk in self.profiles.items()
            },
            queueing_hints=queueing_hints,
            nominator=self.nominator,
            on_active=self._kick,
            on_move=tracer.queue_move if tracer is not None else None,
        )
        self.next_start_node_index = 0
        self.failures: dict[str, Failure] = {}
        self.bindings: dict[str, str] = {}
        self.cycles = 0
        self.last_progress = 0.0
        self._tick_pending = False
        self._queued: dict[str, Pod] = {}  # pending pods of our profiles, by uid
        self.observer: Callable[[CycleRecord], None] | None = None  # called after each cycle
        apiserver.watch(self._on_event)
        apiserver.watch(NominationFollower(self.nominator, tuple(self.profiles)))

    # ------------------------------------------------------------------ running

    def run(self, idle_timeout: float = 60.0) -> None:
        """Run to quiescence: stop when nothing is left to do, or when only retries of pods
        failing with errors remain and nothing happened for ``idle_timeout`` virtual seconds."""
        loop = self.loop
        while (when := loop.next_time()) is not None:
            if when > self.last_progress + idle_timeout and not self.handle.waiting_pods:
                break
            loop.run_one()

    def sync(self) -> None:
        """Deliver what the API server holds now to the cache, queue and nominator (the
        informers' initial list) and refresh the snapshot, without running a scheduling cycle:
        the state a checker judges the plugins on."""
        held = self._tick_pending
        self._tick_pending = True  # no cycle is started while the events are delivered
        self.loop.run(until=self.loop.now())
        self._tick_pending = held
        self.cache.update_snapshot(self.snapshot)
        if not held and self._queued:
            self._kick()

    def pending_pods(self) -> list[Pod]:
        return list(self._queued.values())

    def _all_namespaces(self) -> Mapping[str, Mapping[str, str]]:
        if not self._implicit_namespaces:
            return self.namespaces
        return {**self._implicit_namespaces, **self.namespaces}

    def _kick(self) -> None:
        if not self._tick_pending:
            self._tick_pending = True
            self.loop.call_soon(self._schedule_one)

    def _progress(self) -> None:
        self.last_progress = self.loop.now()

    # ------------------------------------------------------------------ events

    def _on_event(self, event: WatchEvent) -> None:
        if not _status_only(event):
            self._progress()
        if event.kind == "Pod":
            self._on_pod(event)
        elif event.kind == "Node":
            self._on_node(event)
        else:
            # namespaces only feed namespaceSelector lookups; no queue event, as upstream
            ns = namespace_from_dict(event.obj)
            if event.type == "DELETED":
                self.namespaces.pop(ns.name, None)
            else:
                self.namespaces[ns.name] = ns.labels

    def _on_node(self, event: WatchEvent) -> None:
        """``add/update/deleteNodeToCache``: the cache, then the queue with NodeAdd, the
        fine-grained NodeUpdate events, or NodeDelete."""
        queue = self.queue
        node = node_from_dict(event.obj)
        if event.type == "DELETED":
            queue.move_all_to_active_or_backoff_queue(
                ClusterEvent(NODE, ActionType.DELETE), node, None
            )
            self.cache.remove_node(node.name)
        elif event.type == "ADDED":
            self.cache.add_node(node)
            queue.move_all_to_active_or_backoff_queue(
                ClusterEvent(NODE, ActionType.ADD), None, node, self._pre_check_for_node(node)
            )
        else:
            old = node_from_dict(event.old) if event.old is not None else node
            self.cache.update_node(node)
            for evt in node_scheduling_properties_change(node, old):
                queue.move_all_to_active_or_backoff_queue(
                    evt, old, node, self._pre_check_for_node(node)
                )

    def _pre_check_for_node(self, node: Node) -> Callable[[Pod], bool] | None:
        """``preCheckForNode``: nothing with QueueingHints; without them, the pod must pass
        the node's admission checks (resources, node name, affinity, ports) and taints."""
        if self.queue.queueing_hints:
            return None
        info = NodeInfo(node)  # (the pods already on the node are not counted here)
        return lambda pod: _admission_check(pod, info)

    def _pod(self, obj: Mapping[str, Any]) -> Pod:
        uid = obj["metadata"].get("uid", "")
        known = self.cache.get_pod(uid)
        node = obj["spec"].get("nodeName") or ""
        if known is not None and known.node_name == node and self.cache.is_assumed(known):
            return known  # the bind we made: the object only gained spec.nodeName
        pod = self._convert_pod(obj)
        if pod.namespace not in self.namespaces and pod.namespace not in self._implicit_namespaces:
            self._implicit_namespaces[pod.namespace] = {
                "kubernetes.io/metadata.name": pod.namespace
            }
        return pod

    def _on_pod(self, event: WatchEvent) -> None:
        """The two pod informers upstream: assigned pods feed the cache, unscheduled pods of
        our profiles the queue; a pod that becomes assigned leaves the queue side."""
        pod = self._pod(event.obj)
        old = self._convert_pod(event.old) if event.old is not None else None
        if event.type == "DELETED" or pod.is_terminal:
            if pod.node_name:
                self._assigned_pod_deleted(pod)
            self._unscheduled_pod_deleted(pod)
            return
        if pod.node_name:
            self._unscheduled_pod_deleted(pod, bound=True)
            if old is not None and old.node_name and self.cache.get_pod(pod.uid) is not None:
                self._assigned_pod_updated(old, pod)
            else:
                self.cache.add_pod(pod)
                self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, pod)
            return
        if event.type == "ADDED" or old is None:
            self._enqueue(pod)
        else:
            self._update_pending(old, pod)

    def _assigned_pod_updated(self, old: Pod, pod: Pod) -> None:
        self.cache.update_pod(old, pod)
        for evt in pod_scheduling_properties_change(pod, old):
            self.queue.move_all_to_active_or_backoff_queue(evt, old, pod)

    def _assigned_pod_deleted(self, pod: Pod) -> None:
        if self.tracer is not None:
            self.tracer.deleted(pod)
        if self.cache.get_pod(pod.uid) is not None:
            self.cache.remove_pod(pod)
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, pod, None)

    def _unscheduled_pod_deleted(self, pod: Pod, bound: bool = False) -> None:
        """``deletePodFromSchedulingQueue``: out of the queue; a pod waiting at Permit is
        rejected (its room frees up: AssignedPodDelete)."""
        if self._queued.pop(pod.uid, None) is None:
            return
        self.queue.delete(pod)
        self.failures.pop(pod.uid, None)
        if bound:
            return
        fwk = self.profiles.get(pod.scheduler_name)
        if fwk is not None and self.handle.reject_waiting_pod(pod.uid):
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, pod, None)
        elif pod.nominated_node_name:
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, pod, None, _le_priority(pod.priority)
            )

    def _enqueue(self, pod: Pod) -> None:
        fwk = self.profiles.get(pod.scheduler_name)
        if fwk is None or pod.is_terminal or pod.deletion_timestamp is not None:
            return
        self._queued[pod.uid] = pod
        self.queue.add(pod)
        self._sync_gate(pod)

    def _update_pending(self, old: Pod, pod: Pod) -> None:
        """``updatePodInSchedulingQueue``."""
        if pod.uid not in self._queued:
            self._enqueue(pod)
            return
        self._queued[pod.uid] = pod
        if self.cache.is_assumed(pod):
            return
        self.queue.update(old, pod)
        self._sync_gate(pod)
        if old.nominated_node_name and old.nominated_node_name != pod.nominated_node_name:
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, old, None, _le_priority(old.priority)
            )

    def _sync_gate(self, pod: Pod) -> None:
        """Report a gated pod with its gating plugin's message."""
        status = self.queue.gating_status.get(pod.uid)
        if status is not None:
            failure = Failure([status.plugin], status.message(), status.code, gate=True)
            self.failures[pod.uid] = failure
        elif (f := self.failures.get(pod.uid)) is not None and f.gate:
            del self.failures[pod.uid]

    # ------------------------------------------------------------------ scheduling cycle

    def _schedule_one(self) -> None:
        self._tick_pending = False
        qpi = self.queue.pop()
        if qpi is None:
            return
        if self.queue.can_pop():
            self._kick()
        pod = qpi.pod
        if pod.uid not in self._queued or self.cache.is_assumed(pod):
            self.queue.done(pod.uid)  # skipPodSchedule: no requeue, but end the in-flight span
            return
        self.cycles += 1
        fwk = self.profiles[pod.scheduler_name]
        state = CycleState()
        self.cache.update_snapshot(self.snapshot)
        try:
            host = self._schedule_pod(fwk, state, pod)
        except FitError as err:
            nomination = self._run_post_filter(fwk, state, pod, err)
            plugins = err.diagnosis.unschedulable_plugins | err.diagnosis.pending_plugins
            self._fail(qpi, Failure(sorted(plugins), str(err), Code.UNSCHEDULABLE))
            self._nominate(qpi, nomination)
            self._trace_cycle(fwk, state, qpi, err.diagnosis, "")
            self._observe(CycleRecord(self.cycles, pod, (), "", err.diagnosis, nomination))
            return
        except _CycleError as err:
            self._fail(qpi, Failure([], err.status.message(), Code.ERROR))
            self._nominate(qpi, "")  # newFailureNominatingInfo: an error clears the nomination
            self._trace_cycle(fwk, state, qpi, None, "")
            self._observe(CycleRecord(self.cycles, pod, (), "", None, "", err.status.message()))
            return
        self._trace_cycle(fwk, state, qpi, None, host)
        self._observe(CycleRecord(self.cycles, pod, (), host))
        self._assume_and_reserve(fwk, state, qpi, host)

    def _observe(self, record: CycleRecord) -> None:
        if self.observer is not None:
            self.observer(dataclasses.replace(record, nodes=tuple(self.snapshot.list())))

    def _trace_cycle(
        self,
        fwk: Framework,
        state: CycleState,
        qpi: QueuedPodInfo,
        diagnosis: Diagnosis | None,
        host: str,
    ) -> None:
        if self.tracer is None:
            return
        prefilter = None
        if diagnosis is not None and diagnosis.pre_filter_msg:
            prefilter = diagnosis.absent_nodes_status
        decision: dict[str, Any] = {"node": host}
        if not host:
            failure = self.failures.get(qpi.pod.uid)
            plugins, message = (failure.plugins, failure.message) if failure else ([], "")
            decision = {"unschedulable": {"plugins": list(plugins), "message": message}}
        nodes = self.snapshot.list()
        self.tracer.cycle(self.cycles, qpi, fwk, state, nodes, decision, prefilter)

    def _run_post_filter(
        self, fwk: Framework, state: CycleState, pod: Pod, err: FitError
    ) -> str | None:
        """Run PostFilter (preemption) after a FitError; the nomination it asks for (None:
        leave it as it is). Its message joins the FitError's."""
        if not fwk.has_post_filter_plugins():
            return None
        result, status = fwk.run_post_filter_plugins(state, pod, err.diagnosis)
        err.diagnosis.post_filter_msg = status.message() if status is not None else ""
        return None if result is None else result.nominated_node_name

    def _nominate(self, qpi: QueuedPodInfo, node: str | None) -> None:
        """Record the nomination (``AddNominatedPod``) and patch ``status.nominatedNodeName``
        when it changes (``updatePod``)."""
        pod = qpi.pod
        if pod.uid not in self._queued:
            return
        self.nominator.add_nominated_pod(qpi.pod_info, node)
        if node is None or node == pod.nominated_node_name:
            return
        obj = self.apiserver.get("Pod", pod.key)
        if obj is None or obj["spec"].get("nodeName"):
            return
        status = {k: v for k, v in (obj.get("status") or {}).items() if k != "nominatedNodeName"}
        if node:
            status["nominatedNodeName"] = node
        self.apiserver.update("Pod", {**obj, "status": status})

    def _assume_and_reserve(
        self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, host: str
    ) -> None:
        assumed = qpi.pod.assigned_to(host)
        self.cache.assume_pod(assumed)
        status = fwk.run_reserve_plugins_reserve(state, assumed, host)
        if status is None:
            status = fwk.run_permit_plugins(state, assumed, host)
            if status is not None and status.code is Code.WAIT:
                status = None
        if status is not None:
            fwk.run_reserve_plugins_unreserve(state, assumed, host)
            self.cache.forget_pod(assumed)
            self._fail(qpi, _failure_of(status))
            return
        self.loop.call_soon(lambda: self._binding_cycle(fwk, state, qpi, assumed, host))

    def _schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod) -> str:
        nodes = self.snapshot.list()
        if not nodes:
            raise _CycleError(Status(Code.ERROR, (ERR_NO_NODES_AVAILABLE,)))
        feasible, diagnosis = self._find_nodes_that_fit(fwk, state, pod, nodes)
        if not feasible:
            raise FitError(pod, len(nodes), diagnosis)
        # the pod is about to be assumed: it no longer needs a reservation (``assume``)
        self.nominator.delete_nominated_pod_if_exists(pod)
        if len(feasible) == 1:
            return feasible[0].name
        status = (
            fwk.run_pre_score_plugins(state, pod, feasible) if fwk.has_score_plugins() else None
        )
        if status is not None:
            raise _CycleError(status)
        totals, status = fwk.run_score_plugins(state, pod, feasible)
        if status is not None:
            raise _CycleError(status)
        return feasible[self.select_host(totals)].name

    def select_host(self, totals: Sequence[int]) -> int:
        """The index of a top score, uniformly among ties (reservoir sampling, seeded).

        Each tie draws ``rng.randrange(count)``; inlined here as what it is for a
        ``random.Random`` (``_randbelow_with_getrandbits``: ``getrandbits`` of ``count``'s
        bit length until below ``count``), the same numbers at a third of the cost — on equal
        nodes nearly every scored node is a tie (``test_select_host_draws_as_randrange``)."""
        getrandbits = self.rng.getrandbits
        best, best_score, count = 0, totals[0], 1
        for i in range(1, len(totals)):
            score = totals[i]
            if score > best_score:
                best, best_score, count = i, score, 1
            elif score == best_score:
                count += 1
                bits = count.bit_length()
                draw = getrandbits(bits)
                while draw >= count:
                    draw = getrandbits(bits)
                if draw == 0:
                    best = i
        return best

    def _find_nodes_that_fit(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[NodeInfo], Diagnosis]:
        diagnosis = Diagnosis()
        result, status, narrowing = fwk.run_pre_filter_plugins(state, pod, nodes)
        if status is not None:
            if not status.is_rejected():
                raise _CycleError(status)
            diagnosis.absent_nodes_status = status
            diagnosis.pre_filter_msg = status.message()
            diagnosis.add_plugin_status(status)
            diagnosis.unschedulable_plugins |= narrowing
            return [], diagnosis
        if pod.nominated_node_name:  # evaluateNominatedNode: set by preemption, or a hint
            nominated = self.snapshot.get(pod.nominated_node_name)
            if nominated is not None:
                status = fwk.run_filter_plugins_with_nominated_pods(state, pod, nominated)
                if status is None:
                    return [nominated], diagnosis
                if status.is_rejected():
                    diagnosis.node_to_status[nominated.name] = status
        candidates = nodes
        if result is not None and result.node_names is not None:
            names = sorted(result.node_names)
            candidates = [ni for n in names if (ni := self.snapshot.get(n)) is not None]
            message = f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(narrowing))}]"
            diagnosis.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,))
            diagnosis.unschedulable_plugins |= narrowing
        return self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, candidates), diagnosis

    def _find_nodes_that_pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: Sequence[NodeInfo],
    ) -> list[NodeInfo]:
        n = len(nodes)
        if n == 0:
            return []
        percentage = fwk.percentage_of_nodes_to_score
        if percentage is None:
            percentage = self.config.percentage_of_nodes_to_score
        to_find = num_feasible_nodes_to_find(percentage, n) if fwk.has_score_plugins() else 1
        start = self.next_start_node_index % n
        filters = fwk.active_filters(state)
        if not filters:
            return [nodes[(start + i) % n] for i in range(min(to_find, n))]
        feasible: list[NodeInfo] = []
        statuses = diagnosis.node_to_status
        processed = 0
        nominated = self.nominator.nominated_node_names()
        key = fwk.filter_key(state, pod)  # None: some verdict depends on more than the node
        for ni in itertools.chain(nodes[start:], nodes[:start]):
            processed += 1
            failed: Status | None
            if ni.name in nominated:  # two passes: with and without the nominated pods
                failed = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni, filters)
                if failed is not None and not failed.is_rejected():
                    raise _CycleError(failed)
            elif key is None:
                failed = _run_filters(filters, state, pod, ni)
            else:
                failed = ni.derived.get(key, _UNKNOWN)
                if failed is _UNKNOWN:
                    failed = _run_filters(filters, state, pod, ni)
                    if failed is None or failed.is_rejected():
                        keep(ni, key, failed)
            if failed is None:
                feasible.append(ni)
                if len(feasible) >= to_find:
                    break
            elif not failed.is_rejected():
                raise _CycleError(
                    Status(
                        Code.ERROR,
                        (f"running {failed.plugin!r} filter plugin: {failed.message()}",),
                    )
                )
            else:
                statuses[ni.name] = failed
                diagnosis.add_plugin_status(failed)
        self.next_start_node_index = (start + processed) % n
        return feasible

    # ------------------------------------------------------------------ binding cycle

    def _binding_cycle(
        self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, assumed: Pod, host: str
    ) -> None:
        def after_permit(status: Status | None) -> None:
            if status is not None:
                self._binding_failed(fwk, state, qpi, assumed, host, status)
                return
            # past Permit the pod can no longer be rejected as unschedulable: its in-flight
            # events are no longer needed
            self.queue.done(assumed.uid)
            self._bind(fwk, state, qpi, assumed, host)

        fwk.wait_on_permit(assumed, after_permit)

    def _bind(
        self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, assumed: Pod, host: str
    ) -> None:
        status = fwk.run_pre_bind_plugins(state, assumed, host)
        if status is None:
            status = fwk.run_bind_plugins(state, assumed, host)
        if status is not None:
            self._binding_failed(fwk, state, qpi, assumed, host, status)
            return
        self.cache.finish_binding(assumed, self.loop.now())
        if self.tracer is not None:
            self.tracer.bind(assumed, host, None)
        fwk.run_post_bind_plugins(state, assumed, host)
        self.bindings[assumed.key] = host
        self.failures.pop(assumed.uid, None)
        self._progress()

    def _binding_failed(
        self,
        fwk: Framework,
        state: CycleState,
        qpi: QueuedPodInfo,
        assumed: Pod,
        host: str,
        status: Status,
    ) -> None:
        if self.tracer is not None:
            self.tracer.bind(assumed, host, status)
        fwk.run_reserve_plugins_unreserve(state, assumed, host)
        forgot = self.cache.is_assumed(assumed)
        if forgot:
            self.cache.forget_pod(assumed)
        # the pod's room is free again (AssignedPodDelete): the others may fit now; after a
        # rejection the event is sent after requeueing, so it does not count for the pod itself
        if forgot and not status.is_rejected():
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, assumed)
        self._fail(qpi, _failure_of(status))
        if forgot and status.is_rejected():
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, assumed, None, lambda p: p.uid != assumed.uid
            )

    def _fail(self, qpi: QueuedPodInfo, failure: Failure) -> None:
        """``handleSchedulingFailure``: requeue the pod unless it is gone or bound meanwhile,
        and record PodScheduled=False on it."""
        pod = qpi.pod
        current = self._queued.get(pod.uid)
        if current is None:
            self.queue.done(pod.uid)
            return
        self.failures[pod.uid] = failure
        qpi.unschedulable_plugins = set(failure.plugins)
        qpi.pod_info = PodInfo(current)
        self.queue.add_unschedulable_if_not_present(qpi, self.queue.scheduling_cycle)
        self._patch_scheduled_condition(current, failure)

    def _patch_scheduled_condition(self, pod: Pod, failure: Failure) -> None:
        """Set the PodScheduled=False condition when it changes (``updatePod``); a failed
        patch is only logged upstream, so it is dropped here."""
        obj = self.apiserver.get("Pod", pod.key)
        if obj is None or obj["spec"].get("nodeName"):
            return
        reason = "SchedulerError" if failure.code is Code.ERROR else "Unschedulable"
        condition = {
            "type": "PodScheduled",
            "status": "False",
            "reason": reason,
            "message": failure.message,
        }
        conditions = list((obj.get("status") or {}).get("conditions") or [])
        old = [c for c in conditions if c.get("type") == "PodScheduled"]
        if old and all(old[0].get(k) == v for k, v in condition.items()):
            return
        conditions = [c for c in conditions if c.get("type") != "PodScheduled"] + [condition]
        with contextlib.suppress(APIError):
            self.apiserver.patch_pod_status(pod.namespace, pod.name, {"conditions": conditions})


_UNKNOWN = Status(Code.ERROR, ("no verdict kept",))  # a sentinel: never a verdict


def _run_filters(
    filters: Sequence[tuple[str, FilterFn]], state: CycleState, pod: Pod, ni: NodeInfo
) -> Status | None:
    """The first non-success of ``filters`` on the node, naming its plugin; None if all pass."""
    success = Code.SUCCESS
    for name, fn in filters:
        status = fn(state, pod, ni)
        if status is not None and status.code is not success:
            return status.with_plugin(name)
    return None


def _status_only(event: WatchEvent) -> bool:
    """A pod update that changed only its status (our own condition/nomination patches)."""
    old, new = event.old, event.obj
    return (
        event.kind == "Pod"
        and old is not None
        and old.get("spec") == new.get("spec")
        and old.get("metadata") == new.get("metadata")
    )


def _le_priority(priority: int) -> Callable[[Pod], bool]:
    """``getLEPriorityPreCheck``."""
    return lambda pod: pod.priority <= priority


def _admission_check(pod: Pod, info: NodeInfo) -> bool:
    """``AdmissionCheck`` + untolerated taints: the pre-check of node events with
    QueueingHints off (``preCheckForNode``)."""
    node = info.node
    assert node is not None
    return (
        node_resources_fit.fits(pod, info)
        and node_name.fits(pod, node)
        and node_affinity.fits(pod, node)
        and node_ports.fits(pod, info)
        and taint_toleration.fits(pod, node)
    )


def _frameworks(
    cfg: SchedulerConfig, registry: Registry, handle: FrameworkHandle
) -> dict[str, Framework]:
    """A framework per profile; every profile's problems raise together."""
    out: dict[str, Framework] = {}
    problems: list[ConfigError] = []
    for profile in cfg.profiles:
        try:
            out[profile.scheduler_name] = Framework(profile, registry, handle)
        except ConfigError as err:
            problems.append(err)
    if problems:
        raise ConfigError.every(problems)
    return out


def _unbound(obj: Mapping[str, Any] | None) -> bool:
    return obj is not None and not obj["spec"].get("nodeName")


def _failure_of(status: Status) -> Failure:
    plugins = [status.plugin] if status.plugin and status.is_rejected() else []
    code = status.code if status.is_rejected() else Code.ERROR
    return Failure(plugins, status.message(), code)
