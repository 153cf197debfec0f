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

No feasible node gives a ``FitError``; there is no PostFilter yet (preemption is next).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from schedspec.impl.api import Pod, namespace_from_dict, node_from_dict, pod_from_dict
from schedspec.impl.apiserver import APIServer, WatchEvent
from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.framework.config import SchedulerConfig, parse_config
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.registry import Registry
from schedspec.impl.framework.runtime import Framework, FrameworkHandle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import Diagnosis, FitError, NodeInfo, PodInfo, QueuedPodInfo
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins import in_tree_registry
from schedspec.impl.queue import SchedulingQueue

__all__ = ["Failure", "Scheduler", "num_feasible_nodes_to_find"]

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

    __slots__ = ("code", "message", "plugins")

    def __init__(self, plugins: Sequence[str], message: str, code: Code) -> None:
        self.plugins, self.message, self.code = sorted(plugins), message, code


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
    ) -> None:
        self.apiserver, self.loop = apiserver, loop
        cfg = config if isinstance(config, SchedulerConfig) else parse_config(config)
        self.config = cfg
        self.rng = random.Random(seed)
        self.cache = Cache()
        self.snapshot = Snapshot()
        self.namespaces: dict[str, Mapping[str, str]] = {}
        self._implicit_namespaces: dict[str, Mapping[str, str]] = {}
        self.handle = FrameworkHandle(self.snapshot, loop, apiserver, self._all_namespaces)
        reg = registry if registry is not None else in_tree_registry()
        self.profiles = {p.scheduler_name: Framework(p, reg, self.handle) for p in cfg.profiles}
        first = next(iter(self.profiles.values()))
        self.queue = SchedulingQueue(
            first.less,
            loop,
            cfg.pod_initial_backoff_seconds,
            cfg.pod_max_backoff_seconds,
            on_active=self._kick,
        )
        self.next_start_node_index = 0
        self.failures: dict[str, Failure] = {}
        self.bindings: dict[str, str] = {}
        self.cycles = 0
        self.last_progress = 0.0
        self._tick_pending = False
        self._queued: dict[str, QueuedPodInfo] = {}
        apiserver.watch(self._on_event)

    # ------------------------------------------------------------------ running

    def run(self, idle_timeout: float = 60.0) -> None:
        """Run to quiescence: stop when nothing is left to do, or when only retries of pods
        failing with errors remain and nothing happened for ``idle_timeout`` virtual seconds."""
        loop = self.loop
        while (when := loop.next_time()) is not None:
            if when > self.last_progress + idle_timeout and not self.handle.waiting_pods:
                break
            loop.run_one()

    def pending_pods(self) -> list[Pod]:
        return [q.pod for q in self._queued.values()]

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
        self._progress()
        if event.kind == "Pod":
            self._on_pod(event)
        elif event.kind == "Node":
            self._on_node(event)
        else:
            ns = namespace_from_dict(event.obj)
            if event.type == "DELETED":
                self.namespaces.pop(ns.name, None)
            else:
                self.namespaces[ns.name] = ns.labels
            self.queue.move_all_to_active()

    def _on_node(self, event: WatchEvent) -> None:
        if event.type == "DELETED":
            self.cache.remove_node(str(event.obj["metadata"]["name"]))
        elif event.type == "ADDED":
            self.cache.add_node(node_from_dict(event.obj))
        else:
            self.cache.update_node(node_from_dict(event.obj))
        self.queue.move_all_to_active()

    def _pod(self, obj: Mapping[str, Any]) -> Pod:
        uid = obj["metadata"].get("uid", "")
        known = self.cache.get_pod(uid)
        node = obj["spec"].get("nodeName") or ""
        if known is not None and known.node_name == node and self.cache.is_assumed(known):
            return known  # the bind we made: the object only gained spec.nodeName
        pod = pod_from_dict(obj)
        if pod.namespace not in self.namespaces and pod.namespace not in self._implicit_namespaces:
            self._implicit_namespaces[pod.namespace] = {
                "kubernetes.io/metadata.name": pod.namespace
            }
        return pod

    def _on_pod(self, event: WatchEvent) -> None:
        pod = self._pod(event.obj)
        if event.type == "DELETED":
            self._forget_queued(pod)
            if pod.node_name:
                self.cache.remove_pod(pod)
                self.queue.move_all_to_active()
            return
        if pod.node_name:
            self._forget_queued(pod)
            if pod.is_terminal:
                self.cache.remove_pod(pod)
            else:
                self.cache.add_pod(pod)
            self.queue.move_all_to_active()
            return
        if event.type == "ADDED":
            self._enqueue(pod)
        else:
            self._update_pending(pod)

    def _forget_queued(self, pod: Pod) -> None:
        if self._queued.pop(pod.uid, None) is not None:
            self.queue.delete(pod.uid)

    def _enqueue(self, pod: Pod) -> None:
        fwk = self.profiles.get(pod.scheduler_name)
        if fwk is None or pod.is_terminal or pod.deletion_timestamp is not None:
            return
        qpi = QueuedPodInfo(PodInfo(pod))
        self._queued[pod.uid] = qpi
        status = fwk.run_pre_enqueue_plugins(pod)
        if status is not None:
            self.failures[pod.uid] = Failure([status.plugin], status.message(), status.code)
        self.queue.add(qpi, gated=status is not None)

    def _update_pending(self, pod: Pod) -> None:
        qpi = self._queued.get(pod.uid)
        if qpi is None:
            self._enqueue(pod)
            return
        qpi.pod_info = PodInfo(pod)
        fwk = self.profiles[pod.scheduler_name]
        if qpi.gated and fwk.run_pre_enqueue_plugins(pod) is None:
            self.failures.pop(pod.uid, None)
            self.queue.activate_gated(pod.uid)

    # ------------------------------------------------------------------ scheduling cycle

    def _schedule_one(self) -> None:
        self._tick_pending = False
        qpi = self.queue.pop()
        if qpi is None:
            return
        if len(self.queue):
            self._kick()
        pod = qpi.pod
        if pod.uid not in self._queued or self.cache.is_assumed(pod):
            return
        self.cycles += 1
        fwk = self.profiles[pod.scheduler_name]
        state = CycleState()
        self.cache.update_snapshot(self.snapshot)
        try:
            host = self._schedule_pod(fwk, state, pod)
        except FitError as err:
            plugins = err.diagnosis.unschedulable_plugins | err.diagnosis.pending_plugins
            self._fail(qpi, Failure(sorted(plugins), str(err), Code.UNSCHEDULABLE))
            return
        except _CycleError as err:
            self._fail(qpi, Failure([], err.status.message(), Code.ERROR))
            return
        self._assume_and_reserve(fwk, state, qpi, host)

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
        """The index of a top score, uniformly among ties (reservoir sampling, seeded)."""
        best, best_score, count = 0, totals[0], 1
        for i in range(1, len(totals)):
            score = totals[i]
            if score > best_score:
                best, best_score, count = i, score, 1
            elif score == best_score:
                count += 1
                if self.rng.randrange(count) == 0:
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
        if pod.nominated_node_name:
            nominated = self.snapshot.get(pod.nominated_node_name)
            if nominated is not None and fwk.run_filter_plugins(state, pod, nominated) is None:
                return [nominated], diagnosis
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
        success = Code.SUCCESS
        for i in range(n):
            ni = nodes[(start + i) % n]
            processed += 1
            failed: Status | None = None
            for name, fn in filters:
                status = fn(state, pod, ni)
                if status is not None and status.code is not success:
                    failed = status.with_plugin(name)
                    break
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
        fwk.run_reserve_plugins_unreserve(state, assumed, host)
        if self.cache.is_assumed(assumed):
            self.cache.forget_pod(assumed)
        self._fail(qpi, _failure_of(status))
        # the pod's room is free again (AssignedPodDelete): the others may fit now
        self.queue.move_all_to_active(exclude=assumed.uid)

    def _fail(self, qpi: QueuedPodInfo, failure: Failure) -> None:
        pod = qpi.pod
        if pod.uid not in self._queued:
            return
        self.failures[pod.uid] = failure
        qpi.unschedulable_plugins = set(failure.plugins)
        self.queue.add_unschedulable(qpi, error=failure.code is Code.ERROR)


def _failure_of(status: Status) -> Failure:
    plugins = [status.plugin] if status.plugin and status.is_rejected() else []
    code = status.code if status.is_rejected() else Code.ERROR
    return Failure(plugins, status.message(), code)
