"""Run the operational scheduler on a loaded cluster, to quiescence, reproducibly.

``simulate(cluster, config=None, seed=0)`` builds an event loop, an API server holding the
cluster's Namespaces, Nodes, Pods, PDBs, Services and pod controllers, and a ``Scheduler``
(profiles from ``config`` or the cluster's own KubeSchedulerConfiguration), runs it and returns
a ``ScheduleResult``. The same cluster, config and seed give the same result.

``preempted`` lists the pods evicted by preemption (``ns/name``, in eviction order, each once);
``nominations`` maps every pod that preempted to the node it was nominated to (its last
preemption), whether or not it was bound there later; ``preemptions`` has the details (who,
where, which victims, when). A preempted pod is gone, so it is not among the bindings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from schedspec.cluster import SELECTING_KINDS, Cluster
from schedspec.impl.api import Pod
from schedspec.impl.apiserver import APIServer
from schedspec.impl.framework.registry import Registry
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins.default_preemption import DefaultPreemption
from schedspec.impl.preemption import PreemptionRecord
from schedspec.impl.scheduler import Scheduler
from schedspec.impl.trace import Tracer

__all__ = ["ScheduleResult", "Unschedulable", "simulate"]


@dataclass(frozen=True, slots=True)
class Unschedulable:
    plugins: tuple[str, ...]
    message: str


@dataclass(frozen=True, slots=True)
class ScheduleResult:
    """What a run did: bindings made (``ns/name`` → node), pods left pending and why."""

    bindings: Mapping[str, str]
    unschedulable: Mapping[str, Unschedulable]
    preempted: tuple[str, ...] = ()
    nominations: Mapping[str, str] = field(default_factory=dict)
    preemptions: tuple[PreemptionRecord, ...] = ()
    cycles: int = 0
    virtual_seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "bindings": dict(sorted(self.bindings.items())),
            "unschedulable": {
                key: {"plugins": list(u.plugins), "message": u.message}
                for key, u in sorted(self.unschedulable.items())
            },
            "preempted": list(self.preempted),
            "nominations": dict(sorted(self.nominations.items())),
        }


def build(
    cluster: Cluster,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    registry: Registry | None = None,
    bind_fault: Callable[[str, str], str | None] | None = None,
    *,
    queueing_hints: bool = True,
    trace: IO[str] | None = None,
    convert_pod: Callable[[Mapping[str, Any]], Pod] | None = None,
) -> Scheduler:
    """A scheduler watching an API server that holds ``cluster`` (not yet run).
    ``queueing_hints=False`` is the ``SchedulerQueueingHints`` gate off; ``trace`` receives
    the JSON-lines trace; ``convert_pod`` is ``Scheduler``'s."""
    loop = EventLoop()
    api = APIServer(loop, bind_fault)
    for ns in cluster.namespaces:
        api.create("Namespace", ns)
    for node in cluster.nodes:
        api.create("Node", node)
    for pod in cluster.pods:
        api.create("Pod", pod)
    for pdb in cluster.pdbs:
        api.create("PodDisruptionBudget", pdb)
    for kind in SELECTING_KINDS:
        for obj in cluster.of_kind(kind):
            api.create(kind, obj)
    chosen = config if config is not None else cluster.scheduler_config
    tracer = Tracer(loop, trace) if trace is not None else None
    return Scheduler(
        api,
        loop,
        chosen,
        registry,
        seed,
        queueing_hints=queueing_hints,
        tracer=tracer,
        convert_pod=convert_pod,
    )


def preemptions_of(scheduler: Scheduler) -> list[PreemptionRecord]:
    """Every preemption the scheduler's DefaultPreemption plugins made, in time order."""
    records = [
        record
        for fwk in scheduler.profiles.values()
        for plugin in fwk.plugins.values()
        if isinstance(plugin, DefaultPreemption)
        for record in plugin.evaluator.log
    ]
    return sorted(records, key=lambda r: r.time)


def result_of(scheduler: Scheduler) -> ScheduleResult:
    records = preemptions_of(scheduler)
    preempted = dict.fromkeys(v for r in records for v in r.victims)
    gone = {k for k in preempted if scheduler.apiserver.get("Pod", k) is None}
    unschedulable = {}
    for pod in scheduler.pending_pods():
        failure = scheduler.failures.get(pod.uid)
        plugins = tuple(failure.plugins) if failure else ()
        unschedulable[pod.key] = Unschedulable(plugins, failure.message if failure else "")
    return ScheduleResult(
        bindings={k: v for k, v in scheduler.bindings.items() if k not in gone},
        unschedulable=unschedulable,
        preempted=tuple(preempted),
        nominations={r.preemptor: r.node for r in records},
        preemptions=tuple(records),
        cycles=scheduler.cycles,
        virtual_seconds=scheduler.loop.now(),
    )


def simulate(
    cluster: Cluster,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    registry: Registry | None = None,
    bind_fault: Callable[[str, str], str | None] | None = None,
    *,
    queueing_hints: bool = True,
    trace: IO[str] | None = None,
) -> ScheduleResult:
    """Schedule every pending pod of ``cluster`` and report (see the module docstring)."""
    scheduler = build(
        cluster, config, seed, registry, bind_fault, queueing_hints=queueing_hints, trace=trace
    )
    scheduler.run()
    return result_of(scheduler)
