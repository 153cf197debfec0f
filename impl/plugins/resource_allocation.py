"""Shared resource scoring for NodeResourcesFit and NodeResourcesBalancedAllocation.

Mirrors ``pkg/scheduler/framework/plugins/noderesources/resource_allocation.go``,
``least_allocated.go``, ``most_allocated.go`` (v1.34). For each configured resource the node's
allocatable and its requested-after-placement are computed: cpu/memory from the non-zero
requests (``use_requested=False``: LeastAllocated/MostAllocated) or the real ones (``True``:
BalancedAllocation), ephemeral-storage and scalars from the real ones; a scalar resource the pod
does not request, or the node does not advertise, is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.api.resources import fit_score_requests, is_scalar_resource
from schedspec.impl.errors import ConfigError
from schedspec.impl.framework.helpers import go_div
from schedspec.impl.framework.types import MAX_NODE_SCORE, NodeInfo

__all__ = [
    "DEFAULT_RESOURCES",
    "ResourceSpec",
    "allocatable_and_requested",
    "least_allocated",
    "most_allocated",
    "parse_resources",
    "pod_request_list",
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
        weight = item.get("weight", 1)
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


def allocatable_and_requested(
    node_info: NodeInfo, name: str, pod_request: int, use_requested: bool
) -> tuple[int, int]:
    """(allocatable, requested + pod's request) of one resource; (0, 0) to leave it out."""
    if pod_request == 0 and is_scalar_resource(name):
        return 0, 0
    alloc = node_info.allocatable
    if name in ("cpu", "memory"):
        used = node_info.requested if use_requested else node_info.non_zero_requested
        return alloc.get(name, 0), used.get(name, 0) + pod_request
    if name == "ephemeral-storage" or (is_scalar_resource(name) and name in alloc):
        return alloc.get(name, 0), node_info.requested.get(name, 0) + pod_request
    return 0, 0


def _weighted(
    node_info: NodeInfo,
    requests: Sequence[int],
    resources: Sequence[ResourceSpec],
    per_resource: Any,
) -> int:
    total = weights = 0
    for (name, weight), pod_request in zip(resources, requests, strict=True):
        alloc, req = allocatable_and_requested(node_info, name, pod_request, False)
        if alloc == 0:
            continue
        total += per_resource(req, alloc) * weight
        weights += weight
    return go_div(total, weights) if weights else 0


def _least(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def _most(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    return go_div(min(requested, capacity) * MAX_NODE_SCORE, capacity)


def least_allocated(
    node_info: NodeInfo, requests: Sequence[int], resources: Sequence[ResourceSpec]
) -> int:
    """``Σ w·(alloc − req)·100/alloc / Σ w`` over resources the node advertises."""
    return _weighted(node_info, requests, resources, _least)


def most_allocated(
    node_info: NodeInfo, requests: Sequence[int], resources: Sequence[ResourceSpec]
) -> int:
    return _weighted(node_info, requests, resources, _most)
