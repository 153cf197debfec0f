"""Decision properties of one autoscaler loop, judged by running the scheduler after it.

The seam (:mod:`.autoscaler`) asks whether impl does what the spec says CA does. These ask whether
what CA does *works*, by running impl's scheduler on the cluster the loop leaves behind:

- ``scaled up, pod still pending``: a pod the chosen option was for stays pending on the grown
  cluster. CA's estimate is a simulation (first fit, one template check per group, pods in its
  own order); the scheduler then scores and spreads. Topology spread and inter-pod affinity make
  real CA bugs of this class. A hit is a **finding** about cluster-autoscaler's design, reported
  with its cluster, not a failure of this project.
- ``removed node's pod still pending``: a pod the planner moved off a removable node finds no
  node when the scheduler places it on the shrunk cluster (also a finding).
- ``group above max`` / ``group below min``: the plan grows a group past its max, or the
  removable nodes take a group below its min — these are bugs (the model breaks CA's own rule).
"""

from __future__ import annotations

from collections.abc import Mapping

from schedspec.autoscaling import Autoscaling
from schedspec.cluster import Cluster
from schedspec.impl.autoscaler import grown_cluster, shrunk_cluster
from schedspec.impl.autoscaler.results import AutoscalerResult
from schedspec.impl.simulate import simulate

__all__ = ["BUGS", "FINDINGS", "judge"]

FINDINGS = ("scaled up, pod still pending", "removed node's pod still pending")
BUGS = ("group above max", "group below min")


def judge(cluster: Cluster, autoscaling: Autoscaling, result: AutoscalerResult) -> dict[str, str]:
    """Property ↦ a one-line description of its first violation on this loop."""
    out: dict[str, str] = {}
    groups = {g.name: g for g in autoscaling.groups}
    for name, (_, to) in result.scale_up.plan.items():
        if to > groups[name].max_size:
            out["group above max"] = f"{name} planned to {to} > max {groups[name].max_size}"
    removed: dict[str, int] = {}
    for node, verdict in result.scale_down.nodes.items():
        group = autoscaling.group_of(node)
        if verdict.removable and group is not None:
            removed[group.name] = removed.get(group.name, 0) + 1
    for name, count in removed.items():
        g = groups[name]
        if g.target_size - count < g.min_size:
            out["group below min"] = (
                f"{name}: {g.target_size} - {count} removable < min {g.min_size}"
            )
    if result.scale_up.chosen is not None and result.scale_up.plan:
        estimate = result.scale_up.groups[result.scale_up.chosen].estimate
        wanted = set(estimate.pods) if estimate else set()
        pending = _still_pending(grown_cluster(cluster, autoscaling, result), wanted)
        if pending:
            out["scaled up, pod still pending"] = ", ".join(sorted(pending))
    moved = {pod for v in result.scale_down.nodes.values() if v.removable for pod in v.destinations}
    if moved:
        pending = _still_pending(shrunk_cluster(cluster, result), moved)
        if pending:
            out["removed node's pod still pending"] = ", ".join(sorted(pending))
    return out


def _still_pending(cluster: Cluster, pods: set[str]) -> Mapping[str, object]:
    after = simulate(cluster)
    return {key: why for key, why in after.unschedulable.items() if key in pods}
