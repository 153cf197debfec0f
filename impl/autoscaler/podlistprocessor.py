"""Which pending pods reach scale-up, and the world they leave behind.

Mirrors ``utils/kubernetes/listers.go`` (the unschedulable-pod lister) and
``core/podlistprocessor`` (``filter_out_expendable.go``, ``filter_out_schedulable.go``,
``filter_out_daemon_sets.go``), in that order (docs/autoscaler.md, scale-up step 1):

1. pending pods (no ``spec.nodeName``, not terminal); a pod with a ``deletionTimestamp`` is
   dropped as ``terminating``, one with scheduling gates as ``gated``. Upstream lists only pods
   the scheduler marked ``PodScheduled=False/Unschedulable``; manifests rarely carry that
   status, so every pending pod is a candidate and step 4 drops those the scheduler would place
   (**declared**);
2. ``expendable``: priority strictly below the cutoff;
3. ``nominated``: ``status.nominatedNodeName`` naming an existing node — placed there
   unchecked (``ForceAddPod``);
4. filter-out-schedulable: the rest by priority, highest first (ties by namespace/name: upstream's
   sort is unstable, **declared**), each first-fit on the existing nodes, cumulatively;
   the placed pods stay in the world;
5. ``daemonset``: DaemonSet pods still unplaced are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.context import AutoscalingContext
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot

__all__ = ["PodListResult", "process_pending_pods"]

TERMINATING, GATED, EXPENDABLE, NOMINATED, DAEMONSET = (
    "terminating",
    "gated",
    "expendable",
    "nominated",
    "daemonset",
)


@dataclass(frozen=True)
class PodListResult:
    dropped: Mapping[str, str]
    placed_existing: Mapping[str, str]
    unschedulable: tuple[Pod, ...]


def _listing_drop(obj: Mapping[str, Any]) -> str | None:
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return TERMINATING
    if (obj.get("spec") or {}).get("schedulingGates"):
        return GATED
    return None


def process_pending_pods(ctx: AutoscalingContext, world: ClusterSnapshot) -> PodListResult:
    """Run the listing and the processors over ``ctx.cluster``'s pending pods; ``world`` gains
    the nominated and the placed pods."""
    dropped: dict[str, str] = {}
    candidates: list[Mapping[str, Any]] = []
    obj: Mapping[str, Any]
    for obj in ctx.cluster.pending_pods():
        key = podutil.pod_key(obj)
        reason = _listing_drop(obj)
        if reason is None and ctx.is_expendable(obj):
            reason = EXPENDABLE
        nominated = (obj.get("status") or {}).get("nominatedNodeName") or ""
        if reason is None and nominated in world:
            world.add_pod(ctx.typed(obj), nominated)
            reason = NOMINATED
        if reason is None:
            candidates.append(obj)
        else:
            dropped[key] = reason
    candidates.sort(key=_priority_order)
    placed: dict[str, str] = {}
    left: list[Mapping[str, Any]] = []
    for obj in candidates:
        pod = ctx.typed(obj)
        node = ctx.checker.first_fit(world, pod)
        if node is None:
            left.append(obj)
        else:
            world.add_pod(pod, node)
            placed[pod.key] = node
    unschedulable: list[Pod] = []
    for obj in left:
        if podutil.is_daemonset_pod(obj):
            dropped[podutil.pod_key(obj)] = DAEMONSET
        else:
            unschedulable.append(ctx.typed(obj))
    return PodListResult(dropped, placed, tuple(unschedulable))


def _priority_order(obj: Mapping[str, Any]) -> tuple[int, str, str]:
    meta = obj["metadata"]
    return (-podutil.priority(obj), meta.get("namespace", "default"), meta["name"])
