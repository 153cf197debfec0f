"""``schedspec can-schedule``: is there a node this pod's placement constraints accept?

Asked of ``scheduler.tla``'s ``Feasible(p, n)`` through the Z3 backend on a
:class:`~.place.PlaceWorld`: the pod and the cluster are the user's, concrete; the node may be one
of the cluster's (judged as the cluster stands) and, unless ``existing`` is asked, one node Z3 may
add. ``sat`` names the cluster's nodes that accept the pod and the node to add as a Node manifest,
replayed on the executable backend before it is shown. ``unsat`` names a minimal set of the
pod's own constraints (and of the cluster's taints) under which no node accepts it: Z3's core
over the items' guards, then shrunk by deletion, each deletion asked again of the same formula.
The set is a minimal *unsatisfiable* one: these items alone, every other item dropped, leave no
node, and each of them is needed for that. Other items may stand in the way too (a second taint
of the same node, another contradiction): dropping one item of the core fixes this conflict, not
necessarily every one. ``unknown`` (a timeout) is never reported as ``unsat``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import yaml
import z3

from schedspec.cluster import Cluster, from_objects, object_key
from schedspec.spec.compile.z3 import CompileTimeout, Z3Unsupported
from schedspec.spec.errors import SpecError
from schedspec.spec.place import (
    HOSTNAME,
    OTHER_VALUE,
    Item,
    PlaceWorld,
    replay_feasible,
    replay_feasibles,
)

__all__ = ["MODES", "REASONS", "PlaceAnswer", "can_schedule", "minimal_core", "node_scope"]

MODES = ("both", "existing", "new")
"""Which nodes are considered: the cluster's and one Z3 may add; the cluster's only; the added
node only."""

REASONS = {
    "nodeSelector": "node(s) didn't match Pod's node affinity/selector",
    "nodeAffinity": "node(s) didn't match Pod's node affinity/selector",
    "taint": "node(s) had untolerated taint(s)",
    "unschedulable": "node(s) were unschedulable",
    "spread": "node(s) didn't match pod topology spread constraints",
    "minDomains": "node(s) didn't match pod topology spread constraints",
    "podAffinity": "node(s) didn't match pod affinity rules",
    "podAntiAffinity": "node(s) didn't match pod anti-affinity rules",
    "requests": "Insufficient {resource}",
    "hostPort": "node(s) didn't have free ports for the requested pod ports",
    "existingAntiAffinity": "node(s) didn't satisfy existing pods anti-affinity rules",
}
"""kube-scheduler's own reason for the Filter plugin each kind of item feeds (the plugins'
ErrReason constants, pkg/scheduler/framework/plugins/*)."""


class InternalDisagreement(SpecError):
    """The Z3 and executable backends disagree on a witness: a bug in schedspec."""


@dataclass
class PlaceAnswer:
    result: str  # sat | unsat | unknown
    pod: str
    mode: str
    considered: str
    accepted: list[str] = field(default_factory=list)
    """The cluster's nodes that accept the pod as the cluster stands (spec)."""
    node: dict[str, Any] | None = None
    """The node to add (a Node manifest), when one was asked for and exists."""
    core: list[Item] = field(default_factory=list)
    why: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    message: str = ""
    seconds: float = 0.0
    minimal: bool = True

    def as_json(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "pod": self.pod,
            "nodes_considered": {"mode": self.mode, "text": self.considered},
            "accepted_by": self.accepted,
            "node": self.node,
            "core": [i.as_json() for i in self.core],
            "core_minimal": self.minimal,
            "why": self.why,
            "message": self.message,
            "notes": self.notes,
            "seconds": round(self.seconds, 3),
        }


def node_scope(world: PlaceWorld, mode: str) -> str:
    names = list(world.nodes)
    shown = ", ".join(names[:6]) + (f", … +{len(names) - 6}" if len(names) > 6 else "")
    theirs = f"the cluster's {len(names)} node(s) ({shown})" if names else "the cluster's 0 nodes"
    if mode == "existing":
        return f"{theirs}, as they stand (--existing-only)"
    added = f"one node Z3 may add ({world.node_name})"
    if mode == "new":
        return added + " (--new-node)"
    return f"{theirs} and {added}" if names else f"{added}; the cluster has no nodes"


def bounds_notes(world: PlaceWorld) -> list[str]:
    """What an answer over the added node owes to its shape."""
    if world.symbolic is None:
        return []
    notes = []
    if world.dropped:
        notes.append(
            f"{world.dropped} label values of the cluster's nodes do not fit the solver's string "
            "universe and the added node cannot take them: an unsat is reported as unknown"
        )
    keys = ", ".join(k for k in world.label_keys if k != HOSTNAME) or "none"
    taints = len(world.symbolic.taints)
    notes.append(
        f"the node Z3 may add: labels with the keys the objects name ({keys}), each valued one "
        f"the objects name or {OTHER_VALUE!r} (any other value); {HOSTNAME} is its name, as "
        f"the kubelet sets it; up to {taints} taints, keyed as the tolerations are or "
        "otherwise; any allocatable. A filter reads no other label of a node, so these are the "
        "bounds of the answer"
    )
    if len(world.named_nodes) > 1:
        others = ", ".join(world.named_nodes[1:])
        notes.append(
            f"the added node is named {world.node_name}: a matchFields term naming another node "
            f"no node has ({others}) is judged against that name only"
        )
    return notes


def _holds(f: Any, guards: Sequence[Any]) -> bool | None:
    v = z3.simplify(z3.substitute(f, *((g, z3.BoolVal(True)) for g in guards)))
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    return None


def minimal_core(world: PlaceWorld, goal: Any) -> tuple[str, list[int], bool]:
    """(status, indices of a minimal set of items under which ``goal`` is unsatisfiable,
    proven minimal). Status "sat" when it holds with every item, "unknown" on a timeout."""
    s = world.solver()
    s.add(goal)
    guards = world.guards
    r = s.check(*guards)
    if r != z3.unsat:
        return ("sat" if r == z3.sat else "unknown"), [], False
    ids = {g.get_id(): i for i, g in enumerate(guards)}
    kept = sorted(ids[c.get_id()] for c in s.unsat_core() if c.get_id() in ids)
    # the cluster's items go first, so a core keeps the pod's own constraints where it can
    order = sorted(kept, key=lambda i: (world.items[i].own, i))
    proven = True
    for i in order:
        if i not in kept:
            continue
        if world.compiler.deadline is not None and time.monotonic() > world.compiler.deadline:
            proven = False  # out of time: what is kept is a core, perhaps not a minimal one
            break
        trial = [k for k in kept if k != i]
        assumptions = [guards[k] for k in trial]
        assumptions += [z3.Not(g) for k, g in enumerate(guards) if k not in trial]
        r = s.check(*assumptions)
        if r == z3.unsat:
            core = {c.get_id() for c in s.unsat_core()}
            kept = [k for k in trial if guards[k].get_id() in core]
        elif r == z3.unknown:
            proven = False
    return "unsat", kept, proven


def can_schedule(
    cluster: Cluster,
    pod: dict[str, Any],
    mode: str = "both",
    timeout: float = 60.0,
    owner: tuple[str, str] | None = None,
) -> PlaceAnswer:
    """Whether any node considered (``mode``, one of :data:`MODES`) accepts ``pod``; ``owner``
    names the object and path prefix its fields are said of (a workload's pod template)."""
    start = time.monotonic()
    key = object_key(pod)
    prefix = owner[1] if owner else ""
    try:
        world = PlaceWorld(cluster, [pod], new_node=mode != "existing", guards=True,
                           timeout=timeout, owners=[owner] if owner else ())  # fmt: skip
    except Z3Unsupported as err:
        return PlaceAnswer("unknown", key, mode, mode, message=f"the Z3 backend cannot: {err}",
                           seconds=time.monotonic() - start)  # fmt: skip
    scope = node_scope(world, mode)
    try:
        existing = (
            {}
            if mode == "new"
            else {n: world.without_new(world.feasible(0, rec)) for n, rec in world.nodes.items()}
        )
        added = None
        if world.symbolic is not None and world.new_record is not None:
            added = z3.And(world.symbolic.present, world.feasible(0, world.new_record))
    except CompileTimeout:
        return PlaceAnswer("unknown", key, mode, scope, message=_timeout_message(timeout),
                           seconds=time.monotonic() - start)  # fmt: skip
    except Z3Unsupported as err:
        return PlaceAnswer("unknown", key, mode, scope, message=f"the Z3 backend cannot: {err}",
                           seconds=time.monotonic() - start)  # fmt: skip
    notes = bounds_notes(world)
    answer = PlaceAnswer("unknown", key, mode, scope, notes=notes)
    for name, f in existing.items():
        holds = _holds(f, world.guards)
        if holds is None:
            s = world.solver()
            s.add(f)
            holds = s.check(*world.guards) == z3.sat
        if holds:
            answer.accepted.append(name)
    if answer.accepted:
        _check_accepted(world, cluster, pod, answer.accepted)
    added_unknown = False
    if added is not None:
        s = world.solver()
        s.add(added)
        r = s.check(*world.guards)
        if r == z3.sat:
            model = world.simplest(s, world.guards)
            answer.node = world.node_manifest(model)
            _check_node(world, cluster, pod, answer.node)
        added_unknown = r == z3.unknown
    if answer.accepted or answer.node:
        answer.result = "sat"
        answer.seconds = time.monotonic() - start
        return answer
    if added_unknown:
        answer.message = f"the solver gave up on the added node within {timeout:g}s"
        answer.seconds = time.monotonic() - start
        return answer
    goal = z3.Or(*existing.values(), *([added] if added is not None else []))
    status, core, proven = minimal_core(world, goal)
    answer.seconds = time.monotonic() - start
    if status == "unknown":
        answer.message = f"the solver gave up within {timeout:g}s while looking for a core"
        return answer
    if status == "sat":  # pragma: no cover - each disjunct was unsat on its own
        raise InternalDisagreement(f"{key}: no node accepts the pod, yet some node does")
    if world.dropped:
        answer.message = (
            "no node considered accepts the pod, but the added node could not take every label "
            "value of the cluster's nodes (see the notes)"
        )
        return answer
    if mode != "new" and any(
        replay_feasibles(world.spec, cluster, pod, list(world.nodes)).values()
    ):
        raise InternalDisagreement(  # pragma: no cover - a bug in one of the two backends
            f"Z3 says no node of the cluster accepts {key}; the executable backend says one does"
        )
    answer.result = "unsat"
    answer.core = [world.items[i] for i in core]
    answer.minimal = proven
    answer.why = explain_core(world, pod, answer.core, mode, prefix)
    answer.message = answer.why[0] if answer.why else ""
    if world.symbolic is not None:
        answer.notes.append(
            "unsat is a bounded claim: no node of the cluster, and no added node of the shape "
            "above, accepts the pod"
        )
    return answer


def _timeout_message(timeout: float) -> str:
    return f"building the formula took longer than the {timeout:g}s timeout"


def _check_accepted(
    world: PlaceWorld, cluster: Cluster, pod: Mapping[str, Any], names: list[str]
) -> None:
    replayed = replay_feasibles(world.spec, cluster, pod, names)
    for name in names:
        if not replayed[name]:
            raise InternalDisagreement(
                f"Z3 says node {name} accepts {object_key(pod)}; the executable backend says "
                "it does not. Please report this with the manifests."
            )


def _check_node(
    world: PlaceWorld, cluster: Cluster, pod: Mapping[str, Any], node: dict[str, Any]
) -> None:
    loaded = from_objects([node], source="the added node").nodes[0]
    grown = replace(cluster, nodes=(*cluster.nodes, loaded))
    if not replay_feasible(world.spec, grown, pod, node["metadata"]["name"]):
        raise InternalDisagreement(
            f"Z3's node does not accept {object_key(pod)} on the executable backend; please "
            "report this with the node:\n" + yaml.safe_dump(node, sort_keys=False)
        )


# ---- saying why ----------------------------------------------------------------------------------


def _toleration_text(t: Mapping[str, Any]) -> str:
    parts = [f"key: {t['key']}" if t.get("key") else "key: (any)"]
    parts.append(f"operator: {t.get('operator') or 'Equal'}")
    if t.get("value"):
        parts.append(f"value: {t['value']}")
    parts.append(f"effect: {t['effect']}" if t.get("effect") else "effect: (any)")
    return "{" + ", ".join(parts) + "}"


def _mismatch(t: Mapping[str, Any], key: str, value: str, effect: str) -> str:
    """Why toleration ``t`` does not tolerate the taint (ToleratesTaint, k8s.io/api core/v1
    toleration.go)."""
    why = []
    if t.get("effect") and t["effect"] != effect:
        why.append(f"effect {t['effect']} ≠ {effect}")
    if t.get("key") and t["key"] != key:
        why.append(f"key {t['key']} ≠ {key}")
    op = t.get("operator") or "Equal"
    if op == "Equal" and (t.get("value") or "") != value:
        why.append(f"value {_quoted(t.get('value') or '')} ≠ {_quoted(value)}")
    if op not in ("Equal", "Exists"):
        why.append(f"operator {op} is neither Equal nor Exists")
    return "; ".join(why) or "it does not match"


def _names(nodes: Sequence[str], shown: int = 8) -> str:
    more = f", … +{len(nodes) - shown}" if len(nodes) > shown else ""
    return ", ".join(nodes[:shown]) + more


def _quoted(s: str) -> str:
    return s if s else '""'


def _taint_sentence(
    pod: Mapping[str, Any], taint: Mapping[str, Any], nodes: list[str], prefix: str = ""
) -> str:
    key, value, effect = taint["key"], taint["value"], taint["effect"]
    text = f"{key}={value}:{effect}" if value else f"{key}:{effect}"
    head = f"taint {text} of node(s) {_names(nodes)} is not tolerated ({REASONS['taint']})"
    tols = list((pod.get("spec") or {}).get("tolerations") or ())
    if not tols:
        return f"{head}: the pod has no {prefix}spec.tolerations"
    near = [(i, t) for i, t in enumerate(tols) if t.get("key") == key]
    near = near or [(i, t) for i, t in enumerate(tols) if t.get("effect") in (effect, "", None)]
    if not near:
        return f"{head}: none of {prefix}spec.tolerations[0..{len(tols) - 1}] names key {key}"
    return (
        head
        + ": "
        + "; ".join(
            f"{prefix}spec.tolerations[{i}] {_toleration_text(t)} does not match it "
            f"({_mismatch(t, key, value, effect)})"
            for i, t in near
        )
    )


def _list(labels: Sequence[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def explain_core(
    world: PlaceWorld, pod: Mapping[str, Any], core: list[Item], mode: str, prefix: str = ""
) -> list[str]:
    """The core in sentences: the pod's own fields first, then the cluster's taints."""
    own = [i for i in core if i.own]
    spread_with_md = {i.data.get("index") for i in own if i.kind == "minDomains"}
    shown = [i for i in own if not (i.kind == "spread" and i.data.get("index") in spread_with_md)]
    taints: dict[tuple[str, str, str], list[str]] = {}
    unschedulable: list[str] = []
    for i in core:
        if i.kind == "taint":
            t = (i.data["key"], i.data["value"], i.data["effect"])
            taints.setdefault(t, []).append(i.data["node"])
        elif i.kind == "unschedulable":
            unschedulable.append(i.data["node"])
    where = "no node the cluster has" if mode == "existing" else "no node considered"
    out: list[str] = []
    labels = [i.label for i in shown]
    by_term: dict[int, list[str]] = {}
    for i in shown:
        if i.kind == "nodeAffinity":
            by_term.setdefault(int(i.data["term"]), []).append(i.label)
    if len(by_term) > 1 and not taints and not unschedulable:  # the terms are ORed
        rest = [i.label for i in shown if i.kind != "nodeAffinity"]
        terms = "; ".join(f"term {t}: {_list(ls)}" for t, ls in sorted(by_term.items()))
        head = f"{_list(rest)} contradicts" if rest else f"on {where}, none holds of"
        out.append(f"{head} each of the required node affinity's nodeSelectorTerms (ORed): {terms}")
    elif shown and not taints and not unschedulable:
        if len(shown) == 2:
            out.append(f"{labels[0]} contradicts {labels[1]}")
        elif len(shown) == 1:
            out.append(f"{labels[0]}: {where} satisfies it")
        else:
            out.append(f"{_list(labels)} cannot all hold on one node")
    elif shown:
        verb = "leaves" if len(labels) == 1 else "leave"
        out.append(f"{_list(labels)} {verb} only nodes that reject the pod, as follows")
    for item in shown:
        if item.kind == "minDomains":
            out.append(_min_domains_sentence(item))
    for (key, value, effect), nodes in taints.items():
        out.append(
            _taint_sentence(pod, {"key": key, "value": value, "effect": effect}, nodes, prefix)
        )
    if unschedulable:
        out.append(f"node(s) {_names(unschedulable)} are cordoned ({REASONS['unschedulable']})")
    for item in core:
        if item.kind == "existingAntiAffinity":
            out.append(
                f"{item.label} matches this pod: it keeps the pod out of that node's "
                f"{item.data['topologyKey']} domain ({REASONS['existingAntiAffinity']})"
            )
    if not core:
        out.append(
            f"{where} accepts the pod even without any of its own constraints: the cluster's "
            "capacity, pods or nodes stand in the way (schedspec explain says which, per node)"
        )
    reasons = sorted({REASONS[i.kind].format(**i.data) for i in (*shown, *core)})
    if reasons:
        out.append("kube-scheduler would say: " + "; ".join(reasons))
    return out


def _min_domains_sentence(item: Item) -> str:
    d = item.data
    return (
        f"{item.path}={d['minDomains']}: fewer than {d['minDomains']} domains of "
        f"{d['topologyKey']} can take the pod, so kube-scheduler takes the global minimum as 0 "
        "(podtopologyspread/filtering.go): a domain's skew is then its matching pods plus the "
        f"pod itself, above maxSkew {d['maxSkew']} wherever the pod may go"
    )
