"""Why is my pod pending? Each node's verdict under ``scheduler.tla``, in kube-scheduler's words.

:func:`explain_pod` judges one pod against every node and, for each node, lists **every** Filter
plugin that rejects it (in profile order, so the first is the one kube-scheduler reports), each
with kube-scheduler's reason text and the witnesses that make it concrete: the untolerated taint,
the label the node lacks or carries with another value, the resource short and by how much, the
pod whose anti-affinity repels this one. The verdicts and witnesses are values of the spec's own
definitions (``UntoleratedTaints``, ``InsufficientResources``, ``AntiAffinityRepellers``, ...);
this module only chooses words. The summary line is kube-scheduler's ``FitError`` message
("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s).").
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from schedspec.cluster import Cluster, object_key
from schedspec.errors import UsageError
from schedspec.spec import ast as A
from schedspec.spec.errors import EvalError
from schedspec.spec.load import LoadedSpec
from schedspec.spec.values import Fcn, Value, render

__all__ = ["NodeWhy", "PluginScore", "Reason", "Why", "explain_pod"]

_UNRESOLVABLE = "UnschedulableAndUnresolvable"


@dataclass(frozen=True)
class Reason:
    """One Filter plugin's rejection: its status code, kube-scheduler's reason, the witnesses."""

    plugin: str
    rule: str
    status: str
    reasons: tuple[str, ...]
    details: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons)

    def as_json(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "rule": self.rule, "status": self.status,
                "reason": self.reason, "details": list(self.details)}  # fmt: skip


@dataclass(frozen=True)
class PluginScore:
    """One Score plugin on one feasible node: its raw score (before normalising over the
    feasible nodes; the score itself for plugins that do not normalise), its normalised score,
    its weight in the profile and what it adds to the node's total."""

    plugin: str
    raw: int
    score: int
    weight: int

    @property
    def contribution(self) -> int:
        return self.weight * self.score

    def as_json(self) -> dict[str, Any]:
        return {"raw": self.raw, "score": self.score, "weight": self.weight,
                "contribution": self.contribution}  # fmt: skip


@dataclass(frozen=True)
class NodeWhy:
    node: str
    feasible: bool
    score: int | None
    reasons: tuple[Reason, ...]
    scores: tuple[PluginScore, ...] = ()


@dataclass(frozen=True)
class Why:
    """The answer for one pod: a summary line, the best nodes, and every node's reasons."""

    pod: str
    priority: int
    message: str
    best: tuple[str, ...]
    nodes: tuple[NodeWhy, ...]
    bound_to: str = ""
    """The node the pod is bound to, if it is: the answer is then for the pod as if pending."""

    def as_json(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "bound_to": self.bound_to or None,
            "priority": self.priority,
            "message": self.message,
            "best": list(self.best),
            "nodes": {
                n.node: {"feasible": n.feasible, "score": n.score,
                         "scores": {x.plugin: x.as_json() for x in n.scores},
                         "reasons": [r.as_json() for r in n.reasons]}
                for n in self.nodes
            },
        }  # fmt: skip


class _Judge:
    """Calls the spec's definitions for one pod; every call is memoised by the program."""

    def __init__(self, spec: LoadedSpec, world: Any, pod: Fcn) -> None:
        self.program, self.world, self.pod = spec.program, world, pod
        self.snapshot = self.program.call("Snapshot")

    def __call__(self, name: str, *args: Value) -> Value:
        return self.program.call(name, *args)


def explain_pod(spec: LoadedSpec, cluster: Cluster, pod: str) -> Why:
    """Judge ``pod`` ("ns/name") on every node of ``cluster`` under ``spec`` (the scheduler
    spec); raises :class:`UsageError` for another spec or an unknown pod."""
    if spec.view.name != "scheduler":
        raise UsageError(
            f"explain speaks kube-scheduler's rules: use --spec scheduler, not {spec.name}"
        )
    obj = next((q for q in cluster.pods if object_key(q) == pod), None)
    if obj is None:
        known = ", ".join(sorted(object_key(q) for q in cluster.pods)[:10]) or "none"
        raise UsageError(f"no pod {pod!r} in the cluster (pods: {known})")
    bound_to = obj["spec"].get("nodeName") or ""
    if bound_to:
        cluster = _as_pending(cluster, pod)
    world = spec.view.build(cluster)
    spec.program.bind(world.constants)
    scheduler = str(obj["spec"].get("schedulerName", "default-scheduler"))
    configured = world.constants.get("Profiles")
    if isinstance(configured, Fcn) and scheduler not in configured:
        profiles = ", ".join(sorted(configured))
        raise UsageError(
            f"pod {pod!r} names schedulerName {scheduler!r}, which no profile of the scheduler "
            f"configuration has (profiles: {profiles}): kube-scheduler leaves it to another "
            "scheduler"
        )
    p = world.pods[pod]
    judge = _Judge(spec, world, p)
    weights = _weights(spec, judge, p)
    try:
        nodes = [_judge_node(judge, p, world.nodes[name], weights) for name in world.nodes]
        best = tuple(sorted(judge("Best", p))) if any(n.feasible for n in nodes) else ()
    except EvalError as err:
        raise UsageError(f"the spec failed to evaluate: {err.message} ({err.span})") from None
    ranked = _ranked(nodes)
    message = _message(nodes, best)
    return Why(pod, int(p["spec"]["priority"]), message, best, tuple(ranked), bound_to)


def _as_pending(cluster: Cluster, pod: str) -> Cluster:
    """``cluster`` with ``pod`` unbound and Pending: kube-scheduler never schedules a bound pod,
    and judging it where it stands would count it against itself (its own anti-affinity, its
    own requests on its node)."""
    pods = []
    for q in cluster.pods:
        if object_key(q) == pod:
            q = copy.deepcopy(q)
            q["spec"].pop("nodeName", None)
            q.setdefault("status", {})["phase"] = "Pending"
        pods.append(q)
    return replace(cluster, pods=tuple(pods))


# Score definition → (the plugin kube-scheduler names, the definition of its raw score or None)
_SCORE_PLUGINS = {
    "TaintTolerationScore": ("TaintToleration", "IntolerablePreferTaints"),
    "NodeAffinityScore": ("NodeAffinity", "NodeAffinityRaw"),
    "PodTopologySpreadScore": ("PodTopologySpread", "SpreadRaw"),
    "InterPodAffinityScore": ("InterPodAffinity", "InterPodAffinityRaw"),
    "NodeResourcesFitScore": ("NodeResourcesFit", None),
    "BalancedAllocationScore": ("NodeResourcesBalancedAllocation", None),
    "ImageLocalityScore": ("ImageLocality", None),
}


def _weights(spec: LoadedSpec, judge: _Judge, p: Fcn) -> tuple[tuple[str, int], ...]:
    """(score definition, weight) as ``Viability`` sums them: the pod's profile's weights
    (``ScoreWeights``), or read from ``Viability``'s body in a spec without profiles — so the
    breakdown can never weigh a plugin otherwise than the total does; () if the body is not a
    weighted sum of known score definitions (the total is then checked against the breakdown)."""
    if any(d.name == "ScoreWeights" for d in spec.module.definitions):
        weights = judge("ScoreWeights", p)
        return tuple(
            (definition, int(weights[plugin]))
            for definition, (plugin, _) in _SCORE_PLUGINS.items()
            if isinstance(weights, Fcn) and plugin in weights
        )
    body = next((d.body for d in spec.module.definitions if d.name == "Viability"), None)
    terms: list[tuple[str, int]] = []

    def walk(x: Any) -> bool:
        if isinstance(x, A.Binary) and x.op is A.BinOp.ADD:
            return walk(x.left) and walk(x.right)
        if isinstance(x, A.Binary) and x.op is A.BinOp.MUL and isinstance(x.left, A.Num):
            x, weight = x.right, x.left.value
        else:
            weight = 1
        if isinstance(x, A.Apply) and x.name in _SCORE_PLUGINS:
            terms.append((x.name, weight))
            return True
        return False

    return tuple(terms) if body is not None and walk(body) else ()


# Score definition → the definition of the nodes its plugin ignores, whose raw score is 0
# without being computed (podtopologyspread/scoring.go Score: a node in IgnoredNodes, one without
# every soft constraint's topology key, where SpreadRaw's label lookup has nothing to read)
_IGNORED = {"PodTopologySpreadScore": "SpreadScoreIgnored"}


def _plugin_scores(
    judge: _Judge, p: Fcn, n: Fcn, weights: tuple[tuple[str, int], ...]
) -> tuple[PluginScore, ...]:
    out = []
    for definition, weight in weights:
        plugin, raw = _SCORE_PLUGINS[definition]
        score = int(judge(definition, p, n))
        ignored = definition in _IGNORED and judge(_IGNORED[definition], p, n) is True
        raw_score = score if raw is None else 0 if ignored else int(judge(raw, p, n))
        out.append(PluginScore(plugin, raw_score, score, weight))
    return tuple(out)


def _judge_node(
    judge: _Judge, p: Fcn, n: Fcn, weights: tuple[tuple[str, int], ...] = ()
) -> NodeWhy:
    name = str(n["metadata"]["name"])
    if judge("Feasible", p, n) is True:
        total = int(judge("Viability", p, n))
        scores = _plugin_scores(judge, p, n, weights)
        if sum(x.contribution for x in scores) != total:  # not Viability's own sum: say nothing
            scores = ()
        return NodeWhy(name, True, total, (), scores)
    reasons = [
        r
        for rule, plugin, point in _RULES
        if _runs(judge, p, rule, plugin, point) and (r := rule(judge, p, n)) is not None
    ]
    if not reasons:
        reasons = [_nominated(judge, p, n)]
    return NodeWhy(name, False, None, tuple(reasons))


def _ranked(nodes: list[NodeWhy]) -> list[NodeWhy]:
    """Feasible nodes by score; then the rejected, the most common reason first."""
    counts = Counter(n.reasons[0].reason for n in nodes if n.reasons)
    return sorted(
        nodes,
        key=lambda n: (
            (0, -(n.score or 0), n.node)
            if n.feasible
            else (1, -counts[n.reasons[0].reason], n.reasons[0].reason, n.node)
        ),
    )


def _message(nodes: list[NodeWhy], best: tuple[str, ...]) -> str:
    feasible = [n for n in nodes if n.feasible]
    if feasible:
        shown = ", ".join(best[:5]) + (f" and {len(best) - 5} more" if len(best) > 5 else "")
        count = f"{len(feasible)}/{len(nodes)} nodes are feasible"
        return f"{count}; the best (a tie is broken at random): {shown}"
    # FitError.Error(): each node's first failing plugin contributes its reasons.
    histogram = Counter(reason for n in nodes for reason in n.reasons[0].reasons)
    parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
    return f"0/{len(nodes)} nodes are available: {', '.join(parts)}."


# ---- the rules, in the default profile's Filter order ----------------------------------------


def _node_unschedulable(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("NodeUnschedulableOK", p, n) is True:
        return None
    return Reason(
        "NodeUnschedulable", "NodeUnschedulableOK", _UNRESOLVABLE, ("node(s) were unschedulable",),
        ("the node is cordoned (spec.unschedulable: true) and the pod does not tolerate "
         "node.kubernetes.io/unschedulable:NoSchedule",),
    )  # fmt: skip


def _node_name(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("NodeNameOK", p, n) is True:
        return None
    return Reason(
        "NodeName",
        "NodeNameOK",
        _UNRESOLVABLE,
        ("node(s) didn't match the requested node name",),
        (f"the pod names spec.nodeName {p['spec']['nodeName']}",),
    )


def _taints(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("TaintsOK", p, n) is True:
        return None
    taints = sorted(j("UntoleratedTaints", p, n), key=lambda x: (x["key"], x["effect"]))
    details = tuple(
        f"taint {x['key']}={x['value']}:{x['effect']} is not tolerated; a toleration that fits: "
        f'{{key: {x["key"]}, operator: Equal, value: "{x["value"]}", effect: {x["effect"]}}}'
        for x in taints
    )
    # v1.34.2 taint_toleration.go Filter: one fixed reason; the taints are the witnesses.
    reason = "node(s) had untolerated taint(s)"
    return Reason("TaintToleration", "TaintsOK", _UNRESOLVABLE, (reason,), details)


def _node_affinity(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    own = "PodNodeAffinityOK" if j.program.has("PodNodeAffinityOK") else "NodeAffinityOK"
    if j(own, p, n) is True:
        return None
    labels = n["metadata"]["labels"]
    details = [
        f"nodeSelector {k}={v}: " + (f"the node has {k}={labels[k]}" if k in labels
                                     else f"the node has no label {k}")
        for k, v in sorted(p["spec"]["nodeSelector"].items())
        if labels.get(k) != v
    ]  # fmt: skip
    if j("RequiredNodeAffinityOK", p, n) is not True:
        terms = p["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"]
        details += [f"required term {i}: {_term_miss(j, t, n)}" for i, t in enumerate(terms, 1)]
        if not terms:
            details.append("required node affinity lists no terms: it matches no node")
    reason = "node(s) didn't match Pod's node affinity/selector"
    return Reason("NodeAffinity", "NodeAffinityOK", _UNRESOLVABLE, (reason,), tuple(details))


def _term_miss(j: _Judge, term: Fcn, n: Fcn) -> str:
    if j("TermEmpty", term) is True:
        return "empty: an empty term matches no node"
    if j("TermValid", term) is not True:
        return "does not parse (bad operator or value count), so it is skipped"
    labels = n["metadata"]["labels"]
    for r in sorted(term["matchExpressions"], key=render):
        if j("NodeRequirementOK", r, labels) is not True:
            have = (
                f"the node has {r['key']}={labels[r['key']]}"
                if r["key"] in labels
                else (f"the node has no label {r['key']}")
            )
            return f"{r['key']} {r['operator']} {list(r['values'])}: {have}"
    for f in sorted(term["matchFields"], key=render):
        if j("FieldRequirementOK", f, n) is not True:
            node = n["metadata"]["name"]
            return f"{f['key']} {f['operator']} {list(f['values'])}: the node is {node}"
    return "matches"  # pragma: no cover - the term would have matched


def _ports(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("PortsOK", p, n) is True:
        return None
    ports = sorted(j("ConflictingPorts", p, n, j.snapshot), key=render)
    details = tuple(
        f"hostPort {w['port']}/{w['protocol']} on {w['ip']} is already taken on the node"
        for w in ports
    )
    reason = "node(s) didn't have free ports for the requested pod ports"
    return Reason("NodePorts", "PortsOK", "Unschedulable", (reason,), details)


def _fit(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("FitOK", p, n) is True:
        return None
    reasons, details = [], []
    if j("TooManyPods", n, j.snapshot) is True:
        count = len(j.snapshot[n["metadata"]["name"]])
        reasons.append("Too many pods")
        details.append(f"pods: {count} of {j('Allocatable', n, 'pods')} allowed are in use")
    requests = j("Requests", p)
    for r in sorted(j("InsufficientResources", p, n, j.snapshot)):
        want, alloc = requests[r], j("Allocatable", n, r)
        used = j("Requested", n, j.snapshot, r)
        reasons.append(f"Insufficient {r}")
        details.append(
            f"{r}: the pod requests {_qty(r, want)}; the node has {_qty(r, alloc)} allocatable, "
            f"{_qty(r, used)} requested by its pods, so {_qty(r, max(alloc - used, 0))} free "
            f"(short by {_qty(r, want - max(alloc - used, 0))})"
        )
    status = _UNRESOLVABLE if j("FitUnresolvable", p, n, j.snapshot) is True else "Unschedulable"
    return Reason("NodeResourcesFit", "FitOK", status, tuple(reasons), tuple(details))


def _qty(resource: str, amount: int) -> str:
    if resource == "cpu":
        return f"{amount // 1000}" if amount % 1000 == 0 else f"{amount}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if amount and amount % size == 0:
                return f"{amount // size}{unit}"
    return str(amount)


def _spread(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("SpreadOK", p, n) is True:
        return None
    if j("SpreadValid", p, "DoNotSchedule") is not True:
        return Reason("PodTopologySpread", "SpreadOK", "Error",
                      ("a topology spread constraint's labelSelector does not parse",))  # fmt: skip
    constraints, labels, details = j("Spread", p), n["metadata"]["labels"], []
    for i in sorted(j("SpreadIndices", p, "DoNotSchedule")):
        c = constraints[i - 1]
        key, name = c["topologyKey"], f"constraint {i}"
        if "defaulted" in c:
            name = f"the profile's default constraint {i}, over the pods {_selected_by(j, p)}"
        if key not in labels:
            details.append(f"{name}: the node has no label {key}")
        elif j("SpreadConstraintOK", p, i, n, j.snapshot) is not True:
            skew, low = j("SpreadSkew", p, i, n, j.snapshot), j("SpreadMinMatch", p, i, j.snapshot)
            details.append(
                f"{name} ({key}, maxSkew {c['maxSkew']}): placing the pod in "
                f"{key}={labels[key]} gives {skew + low} matching pod(s) there against {low} in "
                f"the emptiest domain: skew {skew} > {c['maxSkew']}"
            )
    missing = j("SpreadUnresolvable", p, n, j.snapshot) is True
    reason = "node(s) didn't match pod topology spread constraints"
    if missing:
        return Reason("PodTopologySpread", "SpreadOK", _UNRESOLVABLE,
                      (reason + " (missing required label)",), tuple(details))  # fmt: skip
    return Reason("PodTopologySpread", "SpreadOK", "Unschedulable", (reason,), tuple(details))


def _selected_by(j: _Judge, p: Fcn) -> str:
    """What the default constraints' selector comes from: ``ReplicaSet web-5d8 and Service web
    select``."""
    owners = [f"Service {s['metadata']['name']}" for s in j("SelectingServices", p)
              if s["spec"].get("selector")]  # fmt: skip
    owners += [f"{c['kind']} {c['metadata']['name']}" for c in j("PodController", p)]
    return f"{' and '.join(sorted(owners))} select{'s' if len(owners) == 1 else ''}"


def _inter_pod_affinity(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("InterPodAffinityOK", p, n) is True:
        return None
    if j("AffinityTermsValid", p) is not True:
        return Reason("InterPodAffinity", "InterPodAffinityOK", _UNRESOLVABLE,
                      ("a pod (anti-)affinity term's selector does not parse",))  # fmt: skip
    labels = n["metadata"]["labels"]
    if j("PodAffinityOK", p, n) is not True:
        terms = p["spec"]["affinity"]["podAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]
        details = [f"the node has no label {t['topologyKey']}" for t in terms
                   if t["topologyKey"] not in labels]  # fmt: skip
        if not details:
            where = ", ".join(
                sorted(f"{t['topologyKey']}={labels[t['topologyKey']]}" for t in terms)
            )
            details.append(f"no pod matching all required affinity terms runs in {where}")
        return Reason("InterPodAffinity", "PodAffinityOK", _UNRESOLVABLE,
                      ("node(s) didn't match pod affinity rules",), tuple(details))  # fmt: skip
    if j("PodAntiAffinityOK", p, n) is not True:
        repellers = _pods_on(
            j, j("AntiAffinityRepellers", p, n), "matches this pod's anti-affinity"
        )
        return Reason("InterPodAffinity", "PodAntiAffinityOK", "Unschedulable",
                      ("node(s) didn't match pod anti-affinity rules",), repellers)  # fmt: skip
    repellers = _pods_on(
        j, j("ExistingAntiAffinityRepellers", p, n), "has required anti-affinity selecting this pod"
    )
    reason = "node(s) didn't satisfy existing pods anti-affinity rules"
    return Reason(
        "InterPodAffinity", "ExistingAntiAffinityOK", "Unschedulable", (reason,), repellers
    )


def _pods_on(j: _Judge, pods: frozenset[Fcn], what: str) -> tuple[str, ...]:
    shown = sorted(pods, key=object_key)
    lines = [f"pod {object_key(q)} on {q['spec']['nodeName']} {what}" for q in shown[:5]]
    if len(shown) > 5:
        lines.append(f"… and {len(shown) - 5} more")
    return tuple(lines)


def _nominated(j: _Judge, p: Fcn, n: Fcn) -> Reason:
    """Every rule passes on the snapshot, so pass 1 of the two-pass filter failed."""
    nominated = sorted(j("NominatedFor", p, n), key=object_key)
    placed = j("Place", j.snapshot, n, frozenset(nominated))
    status = str(j("FilterStatusIn", p, n, placed))
    names = ", ".join(f"{object_key(q)} (priority {q['spec']['priority']})" for q in nominated)
    return Reason(
        "Nominated pods", "Feasible", status,
        ("node(s) are reserved for nominated pods of higher or equal priority",),
        (f"the pod fits only if these pods nominated to the node are ignored: {names}",),
    )  # fmt: skip


def _added_affinity(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("AddedAffinityOK", p, n) is True:
        return None
    return Reason(
        "NodeAffinity", "AddedAffinityOK", _UNRESOLVABLE,
        ("node(s) didn't match scheduler-enforced node affinity",),
        ("the profile's NodeAffinityArgs.addedAffinity requires terms the node does not match",),
    )  # fmt: skip


def _pre_filter_names(j: _Judge, p: Fcn, n: Fcn) -> Reason | None:
    if j("NodeAffinityPreFilterOK", p, n) is True:
        return None
    names = ", ".join(sorted(j("PreFilterNodeNames", p)))
    return Reason(
        "NodeAffinity", "NodeAffinityPreFilterOK", _UNRESOLVABLE,
        ("node(s) didn't satisfy plugin(s) [NodeAffinity]",),
        ("NodeAffinity's PreFilter narrowed the nodes to its matchFields names: "
         f"{names or 'none'}",),
    )  # fmt: skip


_Rule = Callable[[_Judge, Fcn, Fcn], Reason | None]

# Each rule with its plugin and the extension point it runs at there.
_RULES: tuple[tuple[_Rule, str, str], ...] = (
    (_pre_filter_names, "NodeAffinity", "preFilters"),
    (_node_unschedulable, "NodeUnschedulable", "filters"),
    (_node_name, "NodeName", "filters"),
    (_taints, "TaintToleration", "filters"),
    (_added_affinity, "NodeAffinity", "filters"),
    (_node_affinity, "NodeAffinity", "filters"),
    (_ports, "NodePorts", "filters"),
    (_fit, "NodeResourcesFit", "filters"),
    (_spread, "PodTopologySpread", "filters"),
    (_inter_pod_affinity, "InterPodAffinity", "filters"),
)


def _runs(j: _Judge, p: Fcn, rule: _Rule, plugin: str, point: str) -> bool:
    """Whether the pod's profile runs the rule's plugin at ``point`` (a spec without profiles
    runs every rule but those of a profile's own parts)."""
    if not j.program.has("Runs"):
        return rule not in (_pre_filter_names, _added_affinity)
    return j("Runs", p, point, plugin) is True


def lines(why: Why) -> Iterator[str]:
    """The human rendering ``schedspec explain`` prints."""
    yield f"Pod {why.pod} (priority {why.priority})"
    if why.bound_to:
        yield (
            f"  bound to {why.bound_to} (spec.nodeName): kube-scheduler does not schedule a bound "
            "pod again; below, where it could go were it pending (itself not counted)"
        )
    yield f"  {why.message}"
    width = max(len(n.node) for n in why.nodes) if why.nodes else 4
    for n in why.nodes:
        if n.feasible:
            best = " (best)" if n.node in why.best else ""
            yield f"  {n.node:<{width}}  feasible, score {n.score}{best}"
            if n.scores:
                pad = f"  {'':<{width}}      "
                yield f"{pad}{'Score plugin':<32} {'raw':>5} {'score':>5} {'weight':>6} {'adds':>5}"
                for x in n.scores:
                    yield (
                        f"{pad}{x.plugin:<32} {x.raw:>5} {x.score:>5} {x.weight:>6} "
                        f"{x.contribution:>5}"
                    )
            continue
        for i, r in enumerate(n.reasons):
            head = n.node if i == 0 else ""
            code = "" if r.status == "Unschedulable" else f" [{r.status}]"
            yield f"  {head:<{width}}  ✗ {r.plugin}: {r.reason}{code}"
            for d in r.details:
                yield f"  {'':<{width}}      {d}"
