"""cluster-autoscaler 1.34's scale-up and scale-down planner, operationally, on impl's
framework (as CA embeds the scheduler's). The contract is docs/autoscaler.md; the spec twin is
``spec/kube/autoscaler.tla``. Laid out like CA's packages:

``predicate_checker`` (SchedulerPluginRunner), ``snapshot`` (the simulated cluster),
``context`` (the loop's inputs and its world), ``podlistprocessor`` (which pending pods count),
``orchestrator`` (the scale-up), ``estimator/`` (binpacking, limiter, pod orderer),
``expander/`` (random, most-pods, least-waste, price, priority, the chain), ``nodegroupset``
(similar groups, balancing), ``scaledown/`` (eligibility, drainability, PDBs, planner),
``resize`` (the cluster after the plan), ``results`` (what a loop decides).

``run_once(cluster, autoscaling, seed=0, now=None)`` judges scale-up and scale-down on the same
snapshot — the input's, after the pod list processors placed the nominated pods and the pending
pods that fit existing nodes (upstream's planner shares that snapshot) — independently: the
scale-down does not see the scale-up's new nodes. ``now`` (Unix seconds) dates the
``ToBeDeletedByClusterAutoscaler`` taints and terminating pods; by default it is CA's clock,
``schedspec.clock.ca_clock`` (the latest instant the input records).
"""

from __future__ import annotations

from schedspec.autoscaling import Autoscaling
from schedspec.cluster import Cluster
from schedspec.impl.autoscaler.context import AutoscalingContext
from schedspec.impl.autoscaler.orchestrator import scale_up
from schedspec.impl.autoscaler.podlistprocessor import process_pending_pods
from schedspec.impl.autoscaler.resize import grown_cluster, shrunk_cluster
from schedspec.impl.autoscaler.results import (
    AutoscalerResult,
    Estimate,
    GroupResult,
    NodeScaleDown,
    PodScaleUp,
    ScaleDownResult,
    ScaleUpResult,
    TemplateVerdict,
)
from schedspec.impl.autoscaler.scaledown import scale_down

__all__ = [
    "AutoscalerResult",
    "Estimate",
    "GroupResult",
    "NodeScaleDown",
    "PodScaleUp",
    "ScaleDownResult",
    "ScaleUpResult",
    "TemplateVerdict",
    "grown_cluster",
    "run_once",
    "shrunk_cluster",
]


def run_once(
    cluster: Cluster, autoscaling: Autoscaling, *, seed: int = 0, now: float | None = None
) -> AutoscalerResult:
    """One ``RunOnce``: the scale-up CA decides and the scale-down planner's verdict per node."""
    ctx = AutoscalingContext(cluster, autoscaling, now)
    world = ctx.world()
    listed = process_pending_pods(ctx, world)
    return AutoscalerResult(scale_up(ctx, world, listed, seed), scale_down(ctx, world))
