"""Node updates scripted into trace-validation runs, so that the QueueingHints' update paths
(``NodeAllocatableUpdate``, ``NodeLabelUpdate``, ``NodeTaintUpdate``, ``NodeDelete``) are judged
against ``spec/kube/hints.tla``: each kind is one edit of a node's manifest, written back through
impl's API server (a watch MODIFIED or DELETED event)."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

from schedspec.impl.scheduler import Scheduler
from schedspec.quantity import parse_quantity

__all__ = ["NODE_UPDATES", "RACK", "update_named_node", "update_node"]

_Obj = dict[str, Any]
_ZONE = "topology.kubernetes.io/zone"
_HOST = "kubernetes.io/hostname"
RACK = "schedspec.io/rack"


def _scale(alloc: _Obj, resource: str, factor: float) -> None:
    amount = parse_quantity(alloc.get(resource, "0"))
    if resource == "cpu":
        alloc[resource] = f"{math.ceil(1000 * factor * amount)}m"
    else:
        alloc[resource] = str(math.ceil(factor * amount))


def _heal(obj: _Obj) -> None:
    """No taints, schedulable, a new label, twice the cpu and pods: three events at once."""
    obj["spec"].pop("taints", None)
    obj["spec"]["unschedulable"] = False
    obj["metadata"]["labels"]["schedspec.io/healed"] = "true"
    alloc = obj["status"]["allocatable"]
    _scale(alloc, "cpu", 2)
    alloc["pods"] = str(2 * int(parse_quantity(alloc.get("pods", "0"))) + 1)


def _zone(obj: _Obj) -> None:
    """A zone label added, or its value changed (a topology key for spread and affinity)."""
    labels = obj["metadata"]["labels"]
    labels[_ZONE] = labels.get(_ZONE, "") + "-moved"


def _rack(obj: _Obj) -> None:
    """A rack label added (a topology key no node has at first)."""
    obj["metadata"]["labels"][RACK] = "r1"


def _unlabel(obj: _Obj) -> None:
    """The hostname, zone and rack labels dropped (a node leaving its topology domains)."""
    for key in (_HOST, _ZONE, RACK):
        obj["metadata"]["labels"].pop(key, None)


def _untaint(obj: _Obj) -> None:
    obj["spec"].pop("taints", None)


def _taint(obj: _Obj) -> None:
    taints = obj["spec"].setdefault("taints", [])
    taints.append({"key": "schedspec.io/tainted", "effect": "NoSchedule"})


def _cordon(obj: _Obj) -> None:
    obj["spec"]["unschedulable"] = not obj["spec"].get("unschedulable", False)


def _grow(obj: _Obj) -> None:
    _scale(obj["status"]["allocatable"], "cpu", 4)


def _shrink(obj: _Obj) -> None:
    _scale(obj["status"]["allocatable"], "cpu", 0.5)


def _more_memory(obj: _Obj) -> None:
    _scale(obj["status"]["allocatable"], "memory", 4)


NODE_UPDATES: dict[str, Callable[[_Obj], None]] = {
    "heal": _heal,
    "zone": _zone,
    "rack": _rack,
    "unlabel": _unlabel,
    "untaint": _untaint,
    "taint": _taint,
    "cordon": _cordon,
    "grow": _grow,
    "shrink": _shrink,
    "more-memory": _more_memory,
}
"""Kinds of node update, by name; ``"delete"`` (the node removed) is :func:`update_node`'s own."""


def update_named_node(sched: Scheduler, name: str, kind: str) -> None:
    """Apply update ``kind`` to node ``name`` (if it still exists); reads and writes only
    ``sched.apiserver``."""
    found = sched.apiserver.get("Node", name)
    if found is None:
        return
    if kind == "delete":
        sched.apiserver.delete("Node", name)
        return
    obj = copy.deepcopy(found)
    obj.setdefault("spec", {})
    obj.setdefault("metadata", {}).setdefault("labels", {})
    obj.setdefault("status", {}).setdefault("allocatable", {})
    NODE_UPDATES[kind](obj)
    sched.apiserver.update("Node", obj)


def update_node(sched: Scheduler, index: int, kind: str) -> None:
    """Apply update ``kind`` to the ``index``-th node (modulo how many there are) in ``sched``'s
    API server, now."""
    nodes = sorted(n["metadata"]["name"] for n in sched.apiserver.list("Node"))
    if not nodes:
        return
    update_named_node(sched, nodes[index % len(nodes)], kind)
