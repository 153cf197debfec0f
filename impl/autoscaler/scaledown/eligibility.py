"""Is a node a scale-down candidate at all, and how utilized is it?

Mirrors ``core/scaledown/eligibility/eligibility.go`` (``unremovableReasonAndNodeUtilization``)
and ``simulator/utilization/info.go`` (``Calculate``). Per node, the first failing check wins
(docs/autoscaler.md, scale-down step 1):

1. in no autoscaled group → ``NotAutoscaled``;
2. group target ≤ min → ``NodeGroupMinSizeReached`` (these two are upstream's candidates
   pre-filter, ``processors/nodes/pre_filtering_processor.go``, which records no reason);
3. a ``ToBeDeletedByClusterAutoscaler`` taint whose value (Unix seconds) is less than 5 minutes
   before now → ``CurrentlyBeingDeleted``;
4. annotation ``cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"`` →
   ``ScaleDownDisabledAnnotation``;
5. utilization ≥ the threshold → ``NotUnderutilized``.

Utilization, exact: a node with allocatable ``nvidia.com/gpu`` > 0 → its GPU requests over it
(GPU threshold); else the larger of cpu and memory requests over allocatable (memory on a tie),
requests as the scheduler computes them (``PodRequests``: init containers, sidecars, overhead;
impl's ``Pod.requests``), over the pods given (the planner passes the snapshot's pods on the
node but the long-terminating ones, as upstream's ``Calculate`` skips them). Zero or absent
allocatable → 0 (upstream only logs the error). With ``--ignore-daemonsets-utilization``
DaemonSet pods' requests leave both sides of the ratio.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from schedspec.autoscaling import AutoscalingOptions, NodeGroup
from schedspec.impl.api import Node, Pod
from schedspec.impl.autoscaler import podutil

__all__ = [
    "CURRENTLY_BEING_DELETED",
    "NODE_GROUP_MIN_SIZE_REACHED",
    "NOT_AUTOSCALED",
    "NOT_UNDERUTILIZED",
    "SCALE_DOWN_DISABLED_ANNOTATION",
    "Eligibility",
    "Utilization",
    "check_node",
    "utilization",
]

CURRENTLY_BEING_DELETED = "CurrentlyBeingDeleted"
SCALE_DOWN_DISABLED_ANNOTATION = "ScaleDownDisabledAnnotation"
NOT_AUTOSCALED = "NotAutoscaled"
NODE_GROUP_MIN_SIZE_REACHED = "NodeGroupMinSizeReached"
NOT_UNDERUTILIZED = "NotUnderutilized"

TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"
SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
MAX_NODE_DELETION_SECONDS = 5 * 60  # MaxCloudProviderNodeDeletionTime
GPU = "nvidia.com/gpu"


@dataclass(frozen=True)
class Utilization:
    value: Fraction
    resource: str  # cpu, memory or nvidia.com/gpu


@dataclass(frozen=True)
class Eligibility:
    reason: str  # "" when the node is a candidate
    message: str
    utilization: Utilization | None = None


def _ratio(resource: str, node: Node, pods: Sequence[Pod], skip: Callable[[Pod], bool]) -> Fraction:
    allocatable = node.allocatable.get(resource, 0)
    used = sum(p.requests.get(resource, 0) for p in pods if not skip(p))
    ignored = sum(p.requests.get(resource, 0) for p in pods if skip(p))
    room = allocatable - ignored
    return Fraction(used, room) if allocatable > 0 and room > 0 else Fraction(0)


def utilization(
    node: Node, pods: Sequence[Pod], is_ignored: Callable[[Pod], bool] = lambda _: False
) -> Utilization:
    """The node's utilization (``is_ignored``: DaemonSet pods under
    ``--ignore-daemonsets-utilization``)."""
    if node.allocatable.get(GPU, 0) > 0:
        return Utilization(_ratio(GPU, node, pods, is_ignored), GPU)
    for resource in podutil.CONTAINER_CPU_MEMORY:
        if node.allocatable.get(resource, 0) <= 0:
            return Utilization(Fraction(0), resource)
    cpu = _ratio("cpu", node, pods, is_ignored)
    memory = _ratio("memory", node, pods, is_ignored)
    return Utilization(cpu, "cpu") if cpu > memory else Utilization(memory, "memory")


def _being_deleted(obj: Mapping[str, Any], now: float) -> bool:
    for taint in (obj.get("spec") or {}).get("taints") or ():
        value = str(taint.get("value", ""))
        if taint.get("key") == TO_BE_DELETED_TAINT and value.isdigit():
            return now - int(value) < MAX_NODE_DELETION_SECONDS
    return False


def check_node(
    obj: Mapping[str, Any],
    node: Node,
    pods: Sequence[Pod],
    group: NodeGroup | None,
    options: AutoscalingOptions,
    now: float,
    is_daemonset: Callable[[Pod], bool],
) -> Eligibility:
    """The node's eligibility (see the module docstring)."""
    # The candidates processor (processors/nodes/pre_filtering_processor.go) drops nodes of no
    # group and of groups at min size before eligibility runs; upstream records no reason for
    # them, the tool names them.
    if group is None:
        return Eligibility(NOT_AUTOSCALED, "the node is in no autoscaled node group")
    if group.target_size <= group.min_size:
        message = (
            f"node group min size reached (current: {group.target_size}, min: {group.min_size})"
        )
        return Eligibility(NODE_GROUP_MIN_SIZE_REACHED, message)
    if _being_deleted(obj, now):
        return Eligibility(CURRENTLY_BEING_DELETED, "the node is currently being deleted")
    if podutil.annotations_of(obj).get(SCALE_DOWN_DISABLED) == "true":
        return Eligibility(SCALE_DOWN_DISABLED_ANNOTATION, "the node is marked as no scale down")
    ignored = is_daemonset if options.ignore_daemonsets_utilization else (lambda _: False)
    util = utilization(node, pods, ignored)
    gpu = util.resource == GPU
    threshold = (
        options.scale_down_gpu_utilization_threshold
        if gpu
        else options.scale_down_utilization_threshold
    )
    if util.value >= threshold:
        percent = f"{float(util.value * 100):.6g}"
        message = (
            f"{util.resource} requested ({percent}% of allocatable) is above the scale-down "
            "utilization threshold"
        )
        return Eligibility(NOT_UNDERUTILIZED, message, util)
    return Eligibility("", "", util)
