"""The order binpacking places pods in: biggest relative to the template node first.

Mirrors ``estimator/decreasing_pod_orderer.go``: a pod's score is ``Σ cpu requests / template
allocatable cpu + Σ memory requests / template allocatable memory`` over its regular containers
(a term whose allocatable is zero or absent is left out); highest first, ties in the given
order (the unschedulable pods': priority, then namespace/name). Upstream sorts unstably and in
float64: **declared**, a stable sort of exact rationals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from schedspec.impl.api import Node, Pod
from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot

__all__ = ["order_pods", "pod_score"]


def pod_score(requests: Mapping[str, int], template: Node) -> Fraction:
    score = Fraction(0)
    for resource in podutil.CONTAINER_CPU_MEMORY:
        allocatable = template.allocatable.get(resource, 0)
        if allocatable > 0:
            score += Fraction(requests.get(resource, 0), allocatable)
    return score


def order_pods(pods: Sequence[Pod], template: Node, world: ClusterSnapshot) -> list[Pod]:
    scores = {p.uid: pod_score(podutil.container_requests(world.raw_of(p)), template) for p in pods}
    return sorted(pods, key=lambda p: scores[p.uid], reverse=True)
