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
from functools import partial
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.framework.args import check_fields, get_list
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.equivalence import scores_kept
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import MAX_NODE_SCORE, NodeInfo
from schedspec.impl.plugins.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceSpec,
    ScoredResource,
    parse_resources,
    pod_request_list,
    scored_resources,
)

__all__ = ["NAME", "BalancedAllocation", "balanced_score", "score"]

NAME = "NodeResourcesBalancedAllocation"


def balanced_score(fractions: Sequence[float]) -> int:
    """``⌊(1 − std)·100⌋`` of the fractions ``min(1, requested / allocatable)`` of the
    resources the node advertises (``balancedResourceScorer``)."""
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


def _score(node_info: NodeInfo, plan: Sequence[ScoredResource]) -> int:
    """``balanced_score`` over the resources of ``plan`` the node advertises (allocatable ≠ 0),
    with the node's real requests (``scored_resources(..., use_requested=True)``)."""
    alloc_of, used = node_info.allocatable.get, node_info.requested
    fractions: list[float] = []
    for name, _, pod_request, _ in plan:
        alloc = alloc_of(name, 0)
        if alloc != 0:
            fractions.append(min(1.0, (used.get(name, 0) + pod_request) / alloc))
    return balanced_score(fractions)


def _two_resources(nodes: Sequence[NodeInfo], plan: Sequence[ScoredResource]) -> list[int]:
    """``_score`` on each node for a plan of two resources (the default, cpu and memory), the
    standard deviation of two fractions being half their distance; inlined, as it runs for
    every scored node of every cycle. A node lacking one of them takes ``_score``."""
    (first, _, first_request, _), (second, _, second_request, _) = plan
    out: list[int] = []
    for ni in nodes:
        alloc, used = ni.allocatable, ni.requested
        a, b = alloc.get(first, 0), alloc.get(second, 0)
        if a == 0 or b == 0:
            out.append(_score(ni, plan))
            continue
        f = min(1.0, (used.get(first, 0) + first_request) / a)
        g = min(1.0, (used.get(second, 0) + second_request) / b)
        out.append(int((1 - abs((f - g) / 2)) * MAX_NODE_SCORE))
    return out


def score(
    pod: Pod, node_info: NodeInfo, resources: Sequence[ResourceSpec] = DEFAULT_RESOURCES
) -> int:
    """0..100; 100 when the fractions are equal. (Best-effort pods are skipped by PreScore.)"""
    requests = pod_request_list(pod, resources, True)
    return _score(node_info, scored_resources(requests, resources, True))


class _PreScoreState:
    """The pod's ``scored_resources`` (real requests), made once per cycle; None when the pod
    requests nothing (PreScore skips then)."""

    __slots__ = ("plan",)

    def __init__(self, plan: tuple[ScoredResource, ...]) -> None:
        self.plan = plan

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
        state.write(_STATE_KEY, _PreScoreState(scored_resources(requests, self.resources, True)))
        return None

    def _plan(self, state: CycleState, pod: Pod) -> tuple[ScoredResource, ...] | None:
        """The cycle's plan; None when the pod requests nothing (it scores 0 then)."""
        s = state.read_as(_STATE_KEY, _PreScoreState)
        if s is not None:
            return s.plan
        requests = pod_request_list(pod, self.resources, True)
        return scored_resources(requests, self.resources, True) if any(requests) else None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        plan = self._plan(state, pod)
        return (0 if plan is None else _score(node_info, plan)), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """``score`` on each of ``nodes``, the cycle state read once (``BatchScorer``); a
        node's score, a function of the plan and its NodeInfo, is kept on it for the next pod
        with the same plan (``scores_kept``)."""
        plan = self._plan(state, pod)
        if plan is None:
            return [0] * len(nodes), None
        if len(plan) != 2:
            return scores_kept(
                nodes, (self, plan), lambda batch: [_score(n, plan) for n in batch]
            ), None
        return scores_kept(nodes, (self, plan), partial(_two_resources, plan=plan)), None

    def score_extensions(self) -> None:
        return None

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> BalancedAllocation:
        check_fields(args, "NodeResourcesBalancedAllocationArgs", ("resources",))
        raw = get_list(args, "resources")
        return BalancedAllocation(parse_resources(raw, "resources") if raw else DEFAULT_RESOURCES)
