"""The autoscaler seam: ``autoscaler.tla`` against ``impl/autoscaler`` on one cluster.

One call of :func:`compare` asks the spec's definitions and impl's ``run_once`` about the same
cluster and node groups, row by row (:data:`AUTOSCALER_SEAM`), and returns every disagreement with
both values, plus which rules the cluster exercised (:class:`AutoscalerCheck.covered`), so a
campaign can say which rules it never reached instead of passing silently.

Declared differences (``docs/autoscaler.md``): the ``random`` expander and a chain's final random
pick — impl's choice must be one of the spec's best options; the ``price`` expander keeps every
option in the spec (it needs a pricing model), so impl's price-ranked choice is only checked to be
an option. The plan (caps, then the split between similar groups) is compared for impl's choice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

from schedspec.autoscaling import Autoscaling
from schedspec.cluster import Cluster
from schedspec.impl.autoscaler import run_once
from schedspec.impl.autoscaler.results import AutoscalerResult
from schedspec.spec.kube.autoscaler_view import autoscaler_view
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.values import Fcn, Value

if TYPE_CHECKING:
    from schedspec.checker.oracle import Oracle

__all__ = ["AUTOSCALER_SEAM", "AutoscalerCheck", "Disagreement", "compare", "loaded_spec"]

AUTOSCALER_SEAM: Mapping[str, str] = {
    "ScaleUpDropped": "podlistprocessor: why a pending pod is no candidate",
    "PlacedExisting": "filter_out_schedulable: the existing node a pending pod fits",
    "UnschedulablePods": "the pods a scale-up is for",
    "SkipReason": "orchestrator.filterValidScaleUpNodeGroups",
    "TemplateAccepts": "orchestrator.SchedulablePodGroups (predicate checker on the template)",
    "TemplateRejection": "the first Filter plugin rejecting the pod on the template",
    "EstimatedNodes": "estimator/binpacking: new nodes that received a pod",
    "EstimatedPods": "estimator/binpacking: the pods placed",
    "EstimatedNode": "estimator/binpacking: which new node each pod went to",
    "ScaleUpOptions": "options with a node and a pod",
    "BestOptions": "the expander chain (impl's pick must be one)",
    "Plan": "the caps, then BalanceScaleUpBetweenGroups over the similar groups",
    "Utilization": "scaledown/eligibility: the utilization value and its resource",
    "ScaleDownReason": "scale-down eligibility, drain, placement and min size",
    "ScaleDownBlocker": "the pod blocking a drain and its BlockingPodReason",
    "ScaleDownMoves": "where a removable node's pods go",
}
"""Each autoscaler definition the checker compares, and the impl code it is compared with."""


@dataclass(frozen=True)
class Disagreement:
    row: str
    subject: str
    spec: Any
    impl: Any

    def __str__(self) -> str:
        return f"{self.row}({self.subject}): spec {self.spec!r}, impl {self.impl!r}"


@dataclass
class AutoscalerCheck:
    compared: Counter[str] = field(default_factory=Counter)
    disagreements: list[Disagreement] = field(default_factory=list)
    covered: Counter[str] = field(default_factory=Counter)
    result: AutoscalerResult | None = None  # impl's loop, for the decision properties

    def same(self, row: str, subject: str, spec: Any, impl: Any) -> None:
        self.compared[row] += 1
        if spec != impl:
            self.disagreements.append(Disagreement(row, subject, spec, impl))

    def cover(self, *rules: str) -> None:
        self.covered.update(rules)


@cache
def loaded_spec() -> LoadedSpec:
    return load_spec("autoscaler")


def _names(values: Iterable[Value]) -> frozenset[str]:
    return frozenset(str(v["name"]) for v in values)  # type: ignore[index]


def _key(pod: Value) -> str:
    meta = pod["metadata"]  # type: ignore[index]
    return f"{meta['namespace']}/{meta['name']}"


def compare(
    cluster: Cluster,
    autoscaling: Autoscaling,
    *,
    seed: int = 0,
    oracle: Oracle | None = None,
    result: AutoscalerResult | None = None,
) -> AutoscalerCheck:
    """Every row of :data:`AUTOSCALER_SEAM` on ``cluster`` (docstring of the module); with
    ``oracle``, also the real kube-scheduler's template verdicts (:mod:`.autoscaler_oracle`)
    against the spec's, as rows ``TemplateAccepts@real`` and ``TemplateRejection@real``.
    ``result`` is impl's loop on these inputs when the caller already ran it."""
    world = autoscaler_view(cluster, autoscaling)
    program = loaded_spec().runner.bind(world.constants)
    call: Callable[..., Any] = program.call
    if result is None:
        result = run_once(cluster, autoscaling, seed=seed)
    check = AutoscalerCheck(result=result)
    _scale_up(check, call, world, result, autoscaling)
    _scale_down(check, call, world, result)
    if oracle is not None:
        from schedspec.checker.autoscaler_oracle import real_template_verdicts

        real = real_template_verdicts(oracle, cluster, autoscaling, result)
        _real(check, call, world, real)
    return check


def _real(
    check: AutoscalerCheck, call: Callable[..., Any], world: Any, real: Mapping[Any, Any]
) -> None:
    for (key, name), verdict in sorted(real.items()):
        pod, group = world.pods[key], world.groups[name]
        accepts = bool(call("TemplateAccepts", pod, group))
        check.same("TemplateAccepts@real", f"{key} on {name}", accepts, verdict.accepted)
        if not accepts and not verdict.accepted:
            plugin = str(call("TemplateRejection", pod, group))
            check.same("TemplateRejection@real", f"{key} on {name}", plugin, verdict.plugin)


def _scale_up(
    check: AutoscalerCheck,
    call: Callable[..., Any],
    world: Any,
    result: AutoscalerResult,
    autoscaling: Autoscaling,
) -> None:
    up = result.scale_up
    left = {_key(p) for p in call("FilterOut")["left"]}
    for key in world.pending:
        pod = world.pods[key]
        dropped = str(call("ScaleUpDropped", pod))
        if not dropped and key in left and call("DaemonSetPod", pod):
            dropped = "daemonset"
        check.same("ScaleUpDropped", key, dropped, up.dropped.get(key, ""))
        check.cover(f"dropped:{dropped or 'candidate'}")
        placed = call("PlacedExisting", pod)
        check.same(
            "PlacedExisting",
            key,
            frozenset(placed),
            frozenset([up.placed_existing[key]] if key in up.placed_existing else []),
        )
        if placed:
            check.cover("filter-out-schedulable placed a pod")
    unschedulable = frozenset(_key(p) for p in call("UnschedulablePods"))
    check.same("UnschedulablePods", "*", unschedulable, frozenset(up.unschedulable))
    valid = _names(call("ValidGroups"))
    for name, group in world.groups.items():
        skip = str(call("SkipReason", group))
        impl_group = up.groups.get(name)
        check.same("SkipReason", name, skip, (impl_group.skip_reason or "") if impl_group else "?")
        check.cover(f"skip:{skip or 'valid'}")
        if name not in valid or impl_group is None:
            continue
        _template(check, call, world, group, impl_group, unschedulable)
        _estimate(check, call, world, group, impl_group)
    options = _names(call("ScaleUpOptions"))
    check.same("ScaleUpOptions", "*", options, frozenset(up.options))
    best = _names(call("BestOptions"))
    random_last = (
        "random" in autoscaling.options.expander or "price" in autoscaling.options.expander
    )
    check.same(
        "BestOptions",
        "*",
        best if not random_last else frozenset(),
        frozenset(up.best) if not random_last else frozenset(),
    )
    if up.chosen is not None:
        check.same("BestOptions", "chosen ∈ best", True, up.chosen in (best or options))
        check.cover(f"expander chose among {min(len(best), 3)}" + ("+" if len(best) >= 3 else ""))
        group = world.groups[up.chosen]
        plan = {str(x[0]): (int(x[1]), int(x[2])) for x in call("Plan", group)}
        check.same("Plan", up.chosen, plan, dict(up.plan))
        check.cover("plan" if plan else "plan capped to nothing")
        if set(plan) - {up.chosen}:
            check.cover("plan balanced over similar groups")
    elif options:
        check.same("BestOptions", "a choice", "one of " + ",".join(sorted(best)), None)


def _template(
    check: AutoscalerCheck,
    call: Callable[..., Any],
    world: Any,
    group: Fcn,
    impl_group: Any,
    unschedulable: frozenset[str],
) -> None:
    name = str(group["name"])
    for key in sorted(unschedulable):
        pod = world.pods[key]
        accepts = bool(call("TemplateAccepts", pod, group))
        verdict = impl_group.template.get(key)
        check.same(
            "TemplateAccepts", f"{key} on {name}", accepts, verdict.accepted if verdict else None
        )
        if accepts:
            check.cover("template accepts")
            continue
        plugin = str(call("TemplateRejection", pod, group))
        impl_plugin = (verdict.plugin or "PreFilter") if verdict else None
        check.same("TemplateRejection", f"{key} on {name}", plugin, impl_plugin)
        check.cover(f"template rejects:{plugin}")


def _estimate(
    check: AutoscalerCheck, call: Callable[..., Any], world: Any, group: Fcn, impl_group: Any
) -> None:
    name = str(group["name"])
    nodes = int(call("EstimatedNodes", group))
    pods = frozenset(_key(p) for p in call("EstimatedPods", group))
    estimate = impl_group.estimate
    check.same("EstimatedNodes", name, nodes, estimate.node_count if estimate else 0)
    check.same("EstimatedPods", name, pods, frozenset(estimate.pods) if estimate else frozenset())
    if nodes:
        check.cover("estimate: 1 node" if nodes == 1 else "estimate: 2+ nodes")
    for key in sorted(pods):
        on = frozenset(call("EstimatedNode", world.pods[key], group))
        impl_on = estimate.placements.get(key) if estimate else None
        check.same(
            "EstimatedNode",
            f"{key} in {name}",
            on,
            frozenset([impl_on]) if impl_on else frozenset(),
        )
    limit = int(call("NodeLimit", group))
    if nodes and nodes == limit:
        check.cover("estimate stopped by the limiter")


def _scale_down(
    check: AutoscalerCheck, call: Callable[..., Any], world: Any, result: AutoscalerResult
) -> None:
    for name, node in world.nodes.items():
        verdict = result.scale_down.nodes.get(name)
        reason = str(call("ScaleDownReason", node))
        check.same("ScaleDownReason", name, reason, verdict.reason if verdict else "?")
        if str(call("Ineligible", node)) in ("", "NotUnderutilized") and verdict is not None:
            resource, used, allocatable = call("Utilization", node)
            value = Fraction(int(used), int(allocatable)) if allocatable else Fraction(0)
            check.same("Utilization", name, value, verdict.utilization)
            if resource and verdict.utilization:  # the dominant resource, when one is computed
                check.same("Utilization", f"{name} resource", str(resource), verdict.resource)
        check.cover(f"scale-down:{reason or 'removable'}")
        blocker = {(_key(b[0]), str(b[1])) for b in call("ScaleDownBlocker", node)}
        impl_blocker = {verdict.blocking_pod} if verdict and verdict.blocking_pod else set()
        check.same("ScaleDownBlocker", name, blocker, impl_blocker)
        for _, why in blocker:
            check.cover(f"drain blocked:{why}")
        if reason == "":
            moves = {(_key(m[0]), str(m[1])) for m in call("ScaleDownMoves", node)}
            impl_moves = set(verdict.destinations.items()) if verdict else set()
            check.same("ScaleDownMoves", name, moves, impl_moves)
            if moves:
                check.cover("scale-down moved pods")
