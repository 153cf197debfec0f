"""The scale-up orchestrator: from the unschedulable pods to a plan and an event per pod.

Mirrors ``core/scaleup/orchestrator/orchestrator.go`` (``ScaleUp``) and
``core/scaleup/resource/manager.go``; docs/autoscaler.md, "Scale-up", steps 2–7:

2. skip checks per group, in name order (``filterValidScaleUpNodeGroups``);
3. each valid group's template, added to the world, checked against each pod
   (``SchedulablePodGroups``; every pod is checked, not one per equivalence group: **declared**);
4. a binpacking estimate per valid group its template accepts a pod of;
5. options (estimates with a node and a pod), the expander chain, the seeded pick;
6. the plan: capped by ``--max-nodes-total`` and the cores/memory left, split by
   ``BalanceScaleUpBetweenGroups`` over the chosen group and its similar groups;
7. per pod, ``TriggeredScaleUp`` or ``NotTriggerScaleUp`` wording.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from schedspec.autoscaling import NodeGroup
from schedspec.impl.api import Pod
from schedspec.impl.autoscaler import expander, podutil
from schedspec.impl.autoscaler.context import AutoscalingContext
from schedspec.impl.autoscaler.estimator import EstimationLimiter, estimate
from schedspec.impl.autoscaler.nodegroupset import (
    BASIC_IGNORED_LABELS,
    ScaleUpInfo,
    balance_scale_up_between_groups,
    is_similar,
)
from schedspec.impl.autoscaler.podlistprocessor import PodListResult
from schedspec.impl.autoscaler.results import (
    GroupResult,
    PodScaleUp,
    ScaleUpResult,
    TemplateVerdict,
)
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot

__all__ = ["MAX_LIMIT_REACHED", "reasons_message", "scale_up"]

MAX_LIMIT_REACHED = "max node group size reached"
TRIGGERED = "pod triggered scale-up: "
NOT_TRIGGERED = "pod didn't trigger scale-up: "
_RESOURCES = ("cpu", "memory")


# ---------------------------------------------------------------------------- limits and skips


def _template_delta(group: NodeGroup) -> dict[str, int]:
    cores, memory = podutil.node_cores_and_memory(group.template)
    return {"cpu": cores, "memory": memory}


def resources_left(ctx: AutoscalingContext) -> dict[str, int]:
    """Cores and memory (bytes) left under ``--cores-total``/``--memory-total`` (only those
    whose max > 0): Σ over groups of target × template capacity, plus the nodes in no group."""
    maxima = {
        "cpu": ctx.options.cores_total[1],
        "memory": ctx.options.memory_total[1] * podutil.GIB,
    }
    total = dict.fromkeys(_RESOURCES, 0)
    for group in ctx.groups:
        delta = _template_delta(group)
        for r in _RESOURCES:
            total[r] += max(group.target_size, 0) * delta[r]
    grouped = {name for g in ctx.groups for name in g.nodes}
    for name, obj in ctx.node_objs.items():
        if name not in grouped:
            cores, memory = podutil.node_cores_and_memory(obj)
            total["cpu"] += cores
            total["memory"] += memory
    return {r: max(0, maxima[r] - total[r]) for r in _RESOURCES if maxima[r] > 0}


def skip_reason(group: NodeGroup, left: Mapping[str, int]) -> str | None:
    if group.target_size >= group.max_size:
        return MAX_LIMIT_REACHED
    delta = _template_delta(group)
    exceeded = [r for r in _RESOURCES if r in left and delta[r] > 0 and delta[r] > left[r]]
    if exceeded:
        return f"max cluster {', '.join(sorted(exceeded))} limit reached"
    return None


# ---------------------------------------------------------------------------- templates


def template_verdicts(
    ctx: AutoscalingContext, world: ClusterSnapshot, group: NodeGroup, pods: Sequence[Pod]
) -> dict[str, TemplateVerdict]:
    """Each pod checked alone on the world plus one template node (with its pods)."""
    node, template_pods = ctx.template(group)
    sim = world.fork()
    sim.add_node(node, template_pods)
    verdicts: dict[str, TemplateVerdict] = {}
    for pod in pods:
        err = ctx.checker.check(sim, pod, node.name)
        verdicts[pod.key] = (
            TemplateVerdict(True)
            if err is None
            else TemplateVerdict(False, err.plugin, err.reasons)
        )
    return verdicts


# ---------------------------------------------------------------------------- the plan


def _capped_node_count(ctx: AutoscalingContext, group: NodeGroup, new: int) -> int:
    """``GetCappedNewNodeCount`` then ``applyLimits``; < 1 means no scale-up."""
    limit = ctx.options.max_nodes_total
    if limit > 0 and len(ctx.nodes) + new > limit:
        new = limit - len(ctx.nodes)
    if new < 1:
        return 0
    left, delta = resources_left(ctx), _template_delta(group)
    for r in _RESOURCES:
        if r in left and delta[r] > 0 and new * delta[r] > left[r]:
            new = left[r] // delta[r]
    return max(new, 0)


def _similar_groups(
    ctx: AutoscalingContext,
    chosen: NodeGroup,
    valid: Sequence[NodeGroup],
    accepted: Mapping[str, frozenset[str]],
) -> list[NodeGroup]:
    if not ctx.options.balance_similar_node_groups:
        return []
    mine = accepted[chosen.name]
    _, chosen_pods = ctx.template(chosen)
    out = []
    for g in valid:
        if g.name == chosen.name or not mine <= accepted[g.name]:
            continue
        _, pods = ctx.template(g)
        ignored = BASIC_IGNORED_LABELS | frozenset(ctx.options.balancing_ignore_labels)
        if is_similar(chosen.template, chosen_pods, g.template, pods, ignored):
            out.append(g)
    return out


# ---------------------------------------------------------------------------- events


def reasons_message(reasons: Mapping[str, int]) -> str:
    """``"2 node(s) didn't match …, 1 max node group size reached"``: by count, then text."""
    ordered = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{count} {reason}" for reason, count in ordered)


def _pod_results(
    pods: Sequence[Pod],
    groups: Mapping[str, GroupResult],
    triggered_by: frozenset[str],
    infos: Sequence[ScaleUpInfo],
) -> dict[str, PodScaleUp]:
    out: dict[str, PodScaleUp] = {}
    event = TRIGGERED + "[" + " ".join(str(i) for i in infos) + "]"
    for pod in pods:
        key = pod.key
        if key in triggered_by:
            out[key] = PodScaleUp(True, {}, event)
            continue
        if any(g.template.get(key, _REJECTED).accepted for g in groups.values()):
            out[key] = PodScaleUp(False, {}, "")
            continue
        reasons: dict[str, int] = {}
        for g in groups.values():
            verdict_reasons = (g.skip_reason,) if g.skip_reason else g.template[key].reasons
            for reason in verdict_reasons:
                reasons[reason] = reasons.get(reason, 0) + 1
        out[key] = PodScaleUp(False, reasons, NOT_TRIGGERED + reasons_message(reasons))
    return out


_REJECTED = TemplateVerdict(False)


# ---------------------------------------------------------------------------- scale-up


def scale_up(
    ctx: AutoscalingContext, world: ClusterSnapshot, listed: PodListResult, seed: int
) -> ScaleUpResult:
    """The scale-up for ``listed``'s unschedulable pods, ``world`` the snapshot after the pod
    list processors (left as it is)."""
    pods = listed.unschedulable
    left = resources_left(ctx)
    groups: dict[str, GroupResult] = {}
    valid: list[NodeGroup] = []
    for group in ctx.groups:
        reason = skip_reason(group, left)
        if reason is not None:
            groups[group.name] = GroupResult(skip_reason=reason)
        else:
            valid.append(group)
            groups[group.name] = GroupResult(template=template_verdicts(ctx, world, group, pods))
    accepted = {
        g.name: frozenset(k for k, v in groups[g.name].template.items() if v.accepted)
        for g in valid
    }
    options: list[expander.Option] = []
    uids = {p.key: p.uid for p in pods}
    for group in valid:
        fits = [p for p in pods if p.key in accepted[group.name]]
        if not fits:
            continue
        # sng_capacity_threshold.go: the room of the group and of its similar groups
        similar = _similar_groups(ctx, group, valid, accepted)
        room = sum(max(g.max_size - g.target_size, 0) for g in (group, *similar))
        limiter = EstimationLimiter(room, ctx.options.max_nodes_total, len(ctx.nodes))
        est = estimate(ctx, world, group, fits, limiter)
        groups[group.name] = GroupResult(template=groups[group.name].template, estimate=est)
        if est.node_count > 0 and est.pods:
            requests = tuple(podutil.container_requests(ctx.raw[uids[k]]) for k in est.pods)
            options.append(expander.Option(group, est.node_count, est.pods, requests))
    exp_ctx = expander.ExpansionContext(ctx.autoscaling.priorities, len(ctx.nodes))
    best = expander.best_options(ctx.options.expander, options, exp_ctx) if options else []
    chosen = expander.choose(best, seed)
    infos: list[ScaleUpInfo] = []
    if chosen is not None:
        new = _capped_node_count(ctx, chosen.group, chosen.node_count)
        if new > 0:
            similar = _similar_groups(ctx, chosen.group, valid, accepted)
            sizes = [(g.name, g.target_size, g.max_size) for g in (chosen.group, *similar)]
            infos = balance_scale_up_between_groups(sizes, new)
    triggered_by = frozenset(chosen.pods) if chosen is not None and infos else frozenset()
    return ScaleUpResult(
        dropped=listed.dropped,
        placed_existing=listed.placed_existing,
        unschedulable=tuple(p.key for p in pods),
        groups=groups,
        options=tuple(o.group.name for o in options),
        best=tuple(o.group.name for o in best),
        chosen=chosen.group.name if chosen is not None else None,
        plan={i.group: (i.current, i.new) for i in infos},
        pods=_pod_results(pods, groups, triggered_by, infos),
    )
