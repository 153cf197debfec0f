"""NodeResourcesBalancedAllocation: favour nodes whose resource fractions stay close together.

Mirrors ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`` (v1.34): the
fraction per resource is ``min(1, (requested + pod request) / allocatable)`` over resources with
allocatable > 0, using real (not non-zero) requests; the score is ``⌊(1 − std)·100⌋`` with
``std = |f1 − f2| / 2`` for two resources and the population standard deviation for more.
PreScore skips pods whose requests are all zero (kubernetes#129138).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.framework.args import check_fields, get_list
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import MAX_NODE_SCORE, NodeInfo
from schedspec.impl.plugins.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceSpec,
    allocatable_and_requested,
    parse_resources,
    pod_request_list,
)

__all__ = ["NAME", "BalancedAllocation", "balanced_score", "score"]

NAME = "NodeResourcesBalancedAllocation"


def balanced_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    fractions = [min(1.0, r / a) for r, a in zip(requested, allocatable, strict=True) if a != 0]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


def _score(node_info: NodeInfo, requests: Sequence[int], resources: Sequence[ResourceSpec]) -> int:
    req_list: list[int] = []
    alloc_list: list[int] = []
    for (name, _), pod_request in zip(resources, requests, strict=True):
        alloc, req = allocatable_and_requested(node_info, name, pod_request, True)
        req_list.append(req if alloc else 0)
        alloc_list.append(alloc)
    return balanced_score(req_list, alloc_list)


def score(
    pod: Pod, node_info: NodeInfo, resources: Sequence[ResourceSpec] = DEFAULT_RESOURCES
) -> int:
    """0..100; 100 when the fractions are equal. (Best-effort pods are skipped by PreScore.)"""
    return _score(node_info, pod_request_list(pod, resources, True), resources)


class _PreScoreState:
    __slots__ = ("requests",)

    def __init__(self, requests: list[int]) -> None:
        self.requests = requests

    def clone(self) -> _PreScoreState:
        return self


_STATE_KEY = "PreScore" + NAME


class BalancedAllocation:
    def __init__(self, resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES) -> None:
        self.resources = resources

    def name(self) -> str:
        return NAME

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        requests = pod_request_list(pod, self.resources, True)
        if not any(requests):
            return Status(Code.SKIP)
        state.write(_STATE_KEY, _PreScoreState(requests))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.read_as(_STATE_KEY, _PreScoreState)
        requests = s.requests if s else pod_request_list(pod, self.resources, True)
        if not any(requests):
            return 0, None
        return _score(node_info, requests, self.resources), None

    def score_extensions(self) -> None:
        return None

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> BalancedAllocation:
        check_fields(args, "NodeResourcesBalancedAllocationArgs", ("resources",))
        raw = get_list(args, "resources")
        return BalancedAllocation(parse_resources(raw, "resources") if raw else DEFAULT_RESOURCES)
