"""What one ``RunOnce`` decides: the scale-up and the scale-down planner's verdicts.

Keys: a pod is ``namespace/name``, a node or a group its name. Every mapping keeps a meaningful
order (input, candidate or placement order, as each field says). The wording of messages and
reasons is cluster-autoscaler's (``processors/status/eventing_scale_up_processor.go``,
``core/scaleup/orchestrator/skippedreasons.go``, ``simulator/drainability/rules``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

__all__ = [
    "AutoscalerResult",
    "Estimate",
    "GroupResult",
    "NodeScaleDown",
    "PodScaleUp",
    "ScaleDownResult",
    "ScaleUpResult",
    "TemplateVerdict",
]


@dataclass(frozen=True)
class TemplateVerdict:
    """Does the group's template node accept the pod? ``plugin`` is the first failing Filter
    plugin (None when accepted, or when PreFilter rejected the pod: then ``reasons`` is empty)."""

    accepted: bool
    plugin: str | None = None
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Estimate:
    """The binpacking estimate: new nodes that received a pod, the pods placed (in placement
    order) and where (``<template name>-<i>``)."""

    node_count: int
    pods: tuple[str, ...]
    placements: Mapping[str, str]


@dataclass(frozen=True)
class GroupResult:
    """``skip_reason`` is set for a group the skip checks rejected (then nothing else is);
    a valid group has a verdict for every unschedulable pod, and an estimate when its
    template accepted one."""

    skip_reason: str | None = None
    template: Mapping[str, TemplateVerdict] = field(default_factory=dict)
    estimate: Estimate | None = None


@dataclass(frozen=True)
class PodScaleUp:
    """``reasons`` counts, for a pod no valid template accepts, each group's skip reason or
    its template's rejection reasons; ``message`` is the event CA would emit ("" for none)."""

    triggered: bool
    reasons: Mapping[str, int]
    message: str


@dataclass(frozen=True)
class ScaleUpResult:
    dropped: Mapping[str, str]
    placed_existing: Mapping[str, str]
    unschedulable: tuple[str, ...]
    groups: Mapping[str, GroupResult]
    options: tuple[str, ...]
    best: tuple[str, ...]
    chosen: str | None
    plan: Mapping[str, tuple[int, int]]
    pods: Mapping[str, PodScaleUp]


@dataclass(frozen=True)
class NodeScaleDown:
    """One node's verdict. ``reason`` is "" when removable, else an ``UnremovableReason``
    name; ``blocking_pod`` is (pod, ``BlockingPodReason`` name) for ``BlockedByPod``."""

    utilization: Fraction | None
    resource: str
    removable: bool
    reason: str
    blocking_pod: tuple[str, str] | None
    message: str
    pods_to_move: tuple[str, ...] = ()
    destinations: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ScaleDownResult:
    """``nodes`` in name order; ``order`` the candidates (eligible nodes) in simulation order."""

    nodes: Mapping[str, NodeScaleDown]
    order: tuple[str, ...]

    def removable(self) -> tuple[str, ...]:
        return tuple(name for name, verdict in self.nodes.items() if verdict.removable)


@dataclass(frozen=True)
class AutoscalerResult:
    scale_up: ScaleUpResult
    scale_down: ScaleDownResult
