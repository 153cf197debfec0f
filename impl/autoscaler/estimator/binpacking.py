"""The binpacking estimator: how many template copies the pods would fill.

Mirrors ``estimator/binpacking_estimator.go`` (docs/autoscaler.md, scale-up step 4). On a fork
of the world, pods in the orderer's order (every pod its own equivalence group):

- try the new nodes in creation order; the first that passes the filters takes the pod;
- else, while new nodes may still be added: if the last added node holds no estimated pod,
  skip this pod (a fresh node would not help it); else if the limiter refuses, stop adding
  nodes for good; else add ``<template name>-<i>`` (i = 1, 2, …) and place the pod on it if
  the filters pass (if not, the empty node stays).

The estimate counts the new nodes that received a pod.
"""

from __future__ import annotations

from collections.abc import Sequence

from schedspec.autoscaling import NodeGroup
from schedspec.impl.api import Pod
from schedspec.impl.autoscaler.context import AutoscalingContext
from schedspec.impl.autoscaler.estimator.decreasing_pod_orderer import order_pods
from schedspec.impl.autoscaler.estimator.limiter import EstimationLimiter
from schedspec.impl.autoscaler.results import Estimate
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot

__all__ = ["estimate"]


def estimate(
    ctx: AutoscalingContext,
    world: ClusterSnapshot,
    group: NodeGroup,
    pods: Sequence[Pod],
    limiter: EstimationLimiter,
) -> Estimate:
    template, _ = ctx.template(group)
    sim = world.fork()
    new_nodes: list[str] = []
    with_pods: set[str] = set()
    placements: dict[str, str] = {}
    may_add = True

    def place(pod: Pod, node: str) -> None:
        sim.add_pod(pod, node)
        with_pods.add(node)
        placements[pod.key] = node

    for pod in order_pods(pods, template, world):
        node = ctx.checker.first_fit(sim, pod, among=new_nodes) if new_nodes else None
        if node is not None:
            place(pod, node)
            continue
        if not may_add:
            continue
        if new_nodes and new_nodes[-1] not in with_pods:
            continue
        if not limiter.permission_to_add_node():
            may_add = False
            continue
        name = f"{template.name}-{len(new_nodes) + 1}"
        copy, template_pods = ctx.template(group, name)
        sim.add_node(copy, template_pods)
        new_nodes.append(name)
        if ctx.checker.check(sim, pod, name) is None:
            place(pod, name)
    return Estimate(len(with_pods), tuple(placements), placements)
