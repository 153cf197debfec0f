"""The boundary bias: a pending pod's request set to a node's free capacity (or one unit more
or less), or to what it frees by preemption, and nodes' ``pods`` allocatable at their count."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from schedspec.checker.strategies.node import _allocatable
from schedspec.checker.strategies.pod import _with_extended_limits
from schedspec.checker.strategies.pools import DELETION_TIMESTAMP, Obj
from schedspec.checker.strategies.primitives import _Choices
from schedspec.checker.strategies.quantities import _amounts, request_vector, spell_quantity


def _free_capacity(nodes: Sequence[Obj], bound: Sequence[Obj]) -> dict[str, dict[str, int]]:
    """Node name → resource → allocatable minus the requests of its non-terminal pods."""
    free = {n["metadata"]["name"]: _amounts(_allocatable(n)) for n in nodes}
    for pod in bound:
        if pod["status"]["phase"] in ("Succeeded", "Failed"):
            continue
        room = free[pod["spec"]["nodeName"]]
        for r, amount in request_vector(pod).items():
            room[r] = room.get(r, 0) - amount
    return free


def _at_the_boundary(ch: _Choices, pod: Obj, free: Mapping[str, Mapping[str, int]]) -> None:
    """Set one resource of the pod's first container to a node's free capacity (or one unit
    above or below it), and make it the only source of that resource in the pod."""
    node = ch.one(sorted(free))
    resources = sorted(r for r in free[node] if r != "pods")
    if not resources:
        return
    resource = ch.one(resources)
    _only_request(pod, resource, max(0, free[node][resource] + ch.one((0, 1, -1))))


def _priority_of(pod: Obj, classes: Sequence[Obj]) -> int:
    """The priority admission gives ``pod`` (explicit, its class's, the global default's, 0)."""
    spec = pod["spec"]
    if "priority" in spec:
        return int(spec["priority"])
    values = {pc["metadata"]["name"]: int(pc["value"]) for pc in classes}
    if "priorityClassName" in spec:
        return values.get(spec["priorityClassName"], 0)
    return next((int(pc["value"]) for pc in classes if pc.get("globalDefault")), 0)


def _by_preemption(
    ch: _Choices,
    pod: Obj,
    free: Mapping[str, Mapping[str, int]],
    bound: Sequence[Obj],
    classes: Sequence[Obj],
    nodes: Mapping[str, Obj],
) -> None:
    """Make the pod fit a node only once some of its pods are gone: a priority just above (or,
    for a tie, equal to) the highest there, and one resource request of the free capacity plus
    what a few lower-priority pods there request (or one unit more or less) — so DefaultPreemption
    has candidates, victims to choose and reprieves to grant."""
    running = [q for q in bound if q["status"]["phase"] not in ("Succeeded", "Failed")]
    if not running:
        return
    node = ch.one(sorted({q["spec"]["nodeName"] for q in running}))
    on_node = [q for q in running if q["spec"]["nodeName"] == node]
    spec = pod["spec"]
    if ch.chance(75):
        _welcome_on(spec, nodes[node])  # else the node may well reject it for good
    spec.pop("priorityClassName", None)
    spec.pop("preemptionPolicy", None)
    spec["priority"] = priority = max(_priority_of(q, classes) for q in on_node) + ch.one((1, 1, 0))
    lower = [q for q in on_node if _priority_of(q, classes) < priority]
    resources = sorted(r for r in free[node] if r != "pods")
    if not resources:
        return
    resource = ch.one(resources)
    victims = ch.subset(lower, 1, len(lower)) if lower else []
    freed = sum(request_vector(q).get(resource, 0) for q in victims)
    _only_request(pod, resource, max(0, free[node][resource] + freed + ch.one((0, 1, -1))))
    if victims and ch.chance(30):
        # a preemption under way: nominated here, a victim terminating (not eligible again)
        pod.setdefault("status", {})["nominatedNodeName"] = node
        q = ch.one(victims)
        q["metadata"]["deletionTimestamp"] = DELETION_TIMESTAMP
        if ch.chance(70):
            reason = ch.one(("PreemptionByScheduler", "DeletionByTaintManager"))
            condition = {"type": "DisruptionTarget", "status": "True", "reason": reason}
            q["status"]["conditions"] = [condition]


def _welcome_on(spec: Obj, node: Obj) -> None:
    """Drop what would make ``node`` reject the pod whatever is evicted (an
    UnschedulableAndUnresolvable status: preemption skips such nodes): tolerate its taints, no
    node selection, no spread constraint whose topology key the node lacks."""
    taints = list((node.get("spec") or {}).get("taints") or [])
    if (node.get("spec") or {}).get("unschedulable"):
        taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
    tolerations = spec.setdefault("tolerations", [])
    for t in taints:
        tolerations.append({"key": t["key"], "operator": "Exists", "effect": t["effect"]})
    spec.pop("nodeSelector", None)
    affinity = spec.get("affinity") or {}
    affinity.pop("nodeAffinity", None)
    labels = node["metadata"].get("labels") or {}
    kept = [c for c in spec.get("topologySpreadConstraints") or [] if c["topologyKey"] in labels]
    if kept:
        spec["topologySpreadConstraints"] = kept
    else:
        spec.pop("topologySpreadConstraints", None)


def _only_request(pod: Obj, resource: str, amount: int) -> None:
    """Request ``amount`` of ``resource`` in the first container, and nowhere else in the pod."""
    spec = pod["spec"]
    spec.pop("overhead", None)
    if resource in ("cpu", "memory"):
        spec.pop("resources", None)
    for c in (*spec["containers"], *spec.get("initContainers", ())):
        for part in (c.get("resources") or {}).values():
            part.pop(resource, None)
    first = spec["containers"][0].setdefault("resources", {})
    first.pop("limits", None)
    first.setdefault("requests", {})[resource] = spell_quantity(resource, amount)
    _with_extended_limits(first)


def _pods_allocatable_at_the_edge(
    choices: Sequence[_Choices], nodes: Sequence[Obj], bound: Sequence[Obj]
) -> None:
    """Some nodes advertise exactly as many pods as they run, or one more."""
    counts = {n["metadata"]["name"]: 0 for n in nodes}
    for pod in bound:
        if pod["status"]["phase"] not in ("Succeeded", "Failed"):
            counts[pod["spec"]["nodeName"]] += 1
    for ch, node in zip(choices, nodes, strict=True):
        if ch.chance(30):
            count = counts[node["metadata"]["name"]] + ch.one((0, 1))
            _allocatable(node)["pods"] = str(count)
