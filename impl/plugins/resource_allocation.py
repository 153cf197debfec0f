"""Shared resource scoring for NodeResourcesFit and NodeResourcesBalancedAllocation.

Mirrors ``pkg/scheduler/framework/plugins/noderesources/resource_allocation.go``,
``least_allocated.go``, ``most_allocated.go`` (v1.34). For each configured resource the node's
allocatable and its requested-after-placement are computed: cpu/memory from the non-zero
requests (``use_requested=False``: LeastAllocated/MostAllocated) or the real ones (``True``:
BalancedAllocation), ephemeral-storage and scalars from the real ones; a scalar resource the pod
does not request, or the node does not advertise, is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.api.resources import fit_score_requests, is_scalar_resource
from schedspec.impl.errors import ConfigError
from schedspec.impl.framework.helpers import go_div
from schedspec.impl.framework.types import MAX_NODE_SCORE, NodeInfo

__all__ = [
    "DEFAULT_RESOURCES",
    "PlanScorer",
    "ResourceSpec",
    "ScoredResource",
    "ShapePoint",
    "broken_linear",
    "least_allocated",
    "least_allocated_nodes",
    "least_allocated_of",
    "most_allocated",
    "most_allocated_of",
    "parse_resources",
    "parse_shape",
    "pod_request_list",
    "requested_to_capacity_ratio",
    "scored_resources",
]

ResourceSpec = tuple[str, int]  # (resource name, weight)
DEFAULT_RESOURCES: tuple[ResourceSpec, ...] = (("cpu", 1), ("memory", 1))


def parse_resources(raw: Sequence[Any], path: str) -> tuple[ResourceSpec, ...]:
    """``[{name, weight}]`` → specs; weights must be 1..100 (``validateResources``)."""
    out: list[ResourceSpec] = []
    for i, item in enumerate(raw):
        here = f"{path}[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ConfigError("a resource needs a string name", here)
        weight = item.get("weight") or 1  # v1 defaults: a weight of 0 is 1
        if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 100:
            raise ConfigError(
                f"resource weight of {item['name']} should be in range [1, 100]", f"{here}.weight"
            )
        out.append((item["name"], weight))
    return tuple(out)


def pod_request_list(pod: Pod, resources: Sequence[ResourceSpec], use_requested: bool) -> list[int]:
    # use_requested=False is NodeResourcesFit's scorer, which skips pod-level resources
    reqs = pod.requests if use_requested else fit_score_requests(pod)
    return [reqs.get(name, 0) for name, _ in resources]


ScoredResource = tuple[str, int, int, bool]
"""(name, weight, the pod's request, whether the node's total is its non-zero one)."""


def scored_resources(
    requests: Sequence[int], resources: Sequence[ResourceSpec], use_requested: bool
) -> tuple[ScoredResource, ...]:
    """The resources this pod is scored on, made once per cycle (upstream's
    ``calculateResourceAllocatableRequest`` classifies them per node): cpu and memory from the
    node's non-zero totals (``use_requested=False``) or real ones; ephemeral-storage; a scalar
    only if the pod requests it. Any other name scores nothing. On a node, a resource whose
    allocatable is 0 (or absent: a scalar the node does not advertise) is skipped by every
    scorer, so a scorer reads ``allocatable[name]`` and, where it is not 0, the node's total
    plus the pod's request."""
    out: list[ScoredResource] = []
    for (name, weight), pod_request in zip(resources, requests, strict=True):
        if name in ("cpu", "memory"):
            out.append((name, weight, pod_request, not use_requested))
        elif name == "ephemeral-storage" or (is_scalar_resource(name) and pod_request != 0):
            out.append((name, weight, pod_request, False))
    return tuple(out)


def _weighted(
    node_info: NodeInfo,
    plan: Sequence[ScoredResource],
    per_resource: Any,
    ratio: bool = False,
) -> int:
    """The weighted mean of ``per_resource`` over the resources the node advertises, truncated;
    ``ratio`` (RequestedToCapacityRatio): over those scoring above 0, rounded (``math.Round``)."""
    alloc_of, non_zero, used = (
        node_info.allocatable.get,
        node_info.non_zero_requested,
        node_info.requested,
    )
    total = weights = 0
    for name, weight, pod_request, from_non_zero in plan:
        alloc = alloc_of(name, 0)
        if alloc == 0:
            continue
        req = (non_zero if from_non_zero else used).get(name, 0) + pod_request
        score = per_resource(req, alloc)
        if ratio and score <= 0:
            continue
        total += score * weight
        weights += weight
    if not weights:
        return 0
    return (2 * total + weights) // (2 * weights) if ratio else go_div(total, weights)


def _most(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    return go_div(min(requested, capacity) * MAX_NODE_SCORE, capacity)


PlanScorer = Callable[[NodeInfo, Sequence[ScoredResource]], int]
"""A strategy's score of one node over a pod's ``scored_resources``."""


def least_allocated_of(node_info: NodeInfo, plan: Sequence[ScoredResource]) -> int:
    """``Σ w·(alloc − req)·100/alloc / Σ w`` over resources the node advertises (0 for one
    over capacity; Go's truncating division), inlined: it runs for every scored node of every
    cycle."""
    alloc_of, non_zero, used = (
        node_info.allocatable.get,
        node_info.non_zero_requested,
        node_info.requested,
    )
    total = weights = 0
    for name, weight, pod_request, from_non_zero in plan:
        alloc = alloc_of(name, 0)
        if alloc == 0:
            continue
        req = (non_zero if from_non_zero else used).get(name, 0) + pod_request
        if req <= alloc:
            free = (alloc - req) * MAX_NODE_SCORE
            total += (free // alloc if alloc > 0 else go_div(free, alloc)) * weight
        weights += weight
    if not weights:
        return 0
    return total // weights if total >= 0 else go_div(total, weights)


def least_allocated_nodes(nodes: Sequence[NodeInfo], plan: Sequence[ScoredResource]) -> list[int]:
    """``least_allocated_of`` on each node; for a plan of two resources from the non-zero
    totals (the default, cpu and memory) one inlined loop, as it runs for every scored node of
    every cycle. A node that lacks one of them (allocatable ≤ 0) takes ``least_allocated_of``."""
    if len(plan) != 2 or not (plan[0][3] and plan[1][3]):
        return [least_allocated_of(ni, plan) for ni in nodes]
    (first, w_first, r_first, _), (second, w_second, r_second, _) = plan
    weights = w_first + w_second
    out: list[int] = []
    for ni in nodes:
        alloc = ni.allocatable
        a, b = alloc.get(first, 0), alloc.get(second, 0)
        if a <= 0 or b <= 0:
            out.append(least_allocated_of(ni, plan))
            continue
        non_zero = ni.non_zero_requested
        p, q = non_zero.get(first, 0) + r_first, non_zero.get(second, 0) + r_second
        total = 0
        if p <= a:
            total += (a - p) * MAX_NODE_SCORE // a * w_first
        if q <= b:
            total += (b - q) * MAX_NODE_SCORE // b * w_second
        out.append(total // weights)
    return out


def most_allocated_of(node_info: NodeInfo, plan: Sequence[ScoredResource]) -> int:
    return _weighted(node_info, plan, _most)


def least_allocated(
    node_info: NodeInfo, requests: Sequence[int], resources: Sequence[ResourceSpec]
) -> int:
    """``Σ w·(alloc − req)·100/alloc / Σ w`` over resources the node advertises."""
    return least_allocated_of(node_info, scored_resources(requests, resources, False))


def most_allocated(
    node_info: NodeInfo, requests: Sequence[int], resources: Sequence[ResourceSpec]
) -> int:
    return most_allocated_of(node_info, scored_resources(requests, resources, False))


# ---- RequestedToCapacityRatio (requested_to_capacity_ratio.go, helper/shape_score.go)

ShapePoint = tuple[int, int]  # (utilization 0..100, score 0..100: the config's 0..10 × 10)

MAX_UTILIZATION = 100


def broken_linear(shape: Sequence[ShapePoint], p: int) -> int:
    """``BuildBrokenLinearFunction``: the first point at or above ``p`` interpolates from the
    one before it (Go's truncating division); below the first or above the last, its score."""
    for i, (utilization, score) in enumerate(shape):
        if p <= utilization:
            if i == 0:
                return score
            u0, s0 = shape[i - 1]
            return s0 + go_div((score - s0) * (p - u0), utilization - u0)
    return shape[-1][1]


def parse_shape(raw: Sequence[Any], path: str) -> tuple[ShapePoint, ...]:
    """``[{utilization, score}]`` → points, scores scaled to 0..100 (``validateFunctionShape``:
    at least one point, utilization 0..100 strictly increasing, score 0..10)."""
    if not raw:
        raise ConfigError("Required value: at least one point must be specified", path)
    points: list[ShapePoint] = []
    for i, item in enumerate(raw):
        here = f"{path}[{i}]"
        if not isinstance(item, dict):
            raise ConfigError("a shape point is a mapping of utilization and score", here)
        u, s = item.get("utilization", 0), item.get("score", 0)
        for key, value, hi in (("utilization", u, MAX_UTILIZATION), ("score", s, 10)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= hi:
                raise ConfigError(f"not in valid range [0, {hi}]", f"{here}.{key}")
        if points and points[-1][0] >= u:
            raise ConfigError("values must be sorted in increasing order", f"{here}.utilization")
        points.append((u, s * (MAX_NODE_SCORE // 10)))
    return tuple(points)


def requested_to_capacity_ratio(shape: Sequence[ShapePoint]) -> PlanScorer:
    """The scorer: per resource the shape at requested·100/allocatable (its score at 100 when
    over capacity), weighted over the resources scoring above 0, rounded (``math.Round``)."""

    def per_resource(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return broken_linear(shape, MAX_UTILIZATION)
        return broken_linear(shape, requested * MAX_UTILIZATION // capacity)

    def scorer(node_info: NodeInfo, plan: Sequence[ScoredResource]) -> int:
        return _weighted(node_info, plan, per_resource, ratio=True)

    return scorer
