"""Run the operational scheduler on a loaded cluster, to quiescence, reproducibly.

``simulate(cluster, config=None, seed=0)`` builds an event loop, an API server holding the
cluster's Namespaces, Nodes and Pods, and a ``Scheduler`` (profiles from ``config`` or the
cluster's own KubeSchedulerConfiguration), runs it and returns a ``ScheduleResult``. The same
cluster, config and seed give the same result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from schedspec.cluster import Cluster
from schedspec.impl.apiserver import APIServer
from schedspec.impl.framework.registry import Registry
from schedspec.impl.loop import EventLoop
from schedspec.impl.scheduler import Scheduler

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
            "nominations": dict(self.nominations),
        }


def build(
    cluster: Cluster,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    registry: Registry | None = None,
    bind_fault: Callable[[str, str], str | None] | None = None,
) -> Scheduler:
    """A scheduler watching an API server that holds ``cluster`` (not yet run)."""
    loop = EventLoop()
    api = APIServer(loop, bind_fault)
    for ns in cluster.namespaces:
        api.create("Namespace", ns)
    for node in cluster.nodes:
        api.create("Node", node)
    for pod in cluster.pods:
        api.create("Pod", pod)
    chosen = config if config is not None else cluster.scheduler_config
    return Scheduler(api, loop, chosen, registry, seed)


def result_of(scheduler: Scheduler) -> ScheduleResult:
    unschedulable = {}
    for pod in scheduler.pending_pods():
        failure = scheduler.failures.get(pod.uid)
        plugins = tuple(failure.plugins) if failure else ()
        unschedulable[pod.key] = Unschedulable(plugins, failure.message if failure else "")
    return ScheduleResult(
        bindings=dict(scheduler.bindings),
        unschedulable=unschedulable,
        cycles=scheduler.cycles,
        virtual_seconds=scheduler.loop.now(),
    )


def simulate(
    cluster: Cluster,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    registry: Registry | None = None,
    bind_fault: Callable[[str, str], str | None] | None = None,
) -> ScheduleResult:
    """Schedule every pending pod of ``cluster`` and report (see the module docstring)."""
    scheduler = build(cluster, config, seed, registry, bind_fault)
    scheduler.run()
    return result_of(scheduler)
