"""The other kinds a cluster holds: PriorityClasses, Namespaces and PodDisruptionBudgets."""

from __future__ import annotations

from collections.abc import Sequence

from schedspec.checker.strategies.pools import (
    DELETION_TIMESTAMP,
    NAMESPACE_LABELS,
    PRIORITY_CLASSES,
    Obj,
)
from schedspec.checker.strategies.primitives import _Choices, _selector


def _priority_classes(ch: _Choices) -> list[Obj]:
    names = ch.subset(list(PRIORITY_CLASSES), 0, 3)
    classes = []
    for i, name in enumerate(names):
        pc: Obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                   "metadata": {"name": name}, "value": PRIORITY_CLASSES[name]}  # fmt: skip
        if i == 0 and ch.chance(15):
            pc["globalDefault"] = True
        if ch.chance(10):
            pc["preemptionPolicy"] = "Never"
        classes.append(pc)
    return classes


def _namespace(ch: _Choices, name: str) -> Obj:
    labels = {k: ch.one(vs) for k, vs in NAMESPACE_LABELS.items() if ch.chance(50)}
    metadata: Obj = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}


def _pdb(ch: _Choices, name: str, namespace: str, pods: Sequence[Obj]) -> Obj:
    """A budget in ``namespace``, its selector often the labels of one of ``pods`` (its pods)."""
    pod_names = [p["metadata"]["name"] for p in pods]
    spec: Obj = {}
    if not ch.chance(5):
        labelled = [p["metadata"]["labels"] for p in pods if p["metadata"].get("labels")]
        spec["selector"] = _selector(ch, ch.one(labelled) if labelled else None)
    budget, amount = ch.one((("maxUnavailable", 1), ("maxUnavailable", 0),
                                 ("minAvailable", 1), ("minAvailable", "50%")))  # fmt: skip
    spec[budget] = amount
    status: Obj = {"disruptionsAllowed": ch.one((0, 1, 2))}
    if pod_names and ch.chance(15):
        status["disruptedPods"] = {ch.one(pod_names): DELETION_TIMESTAMP}
    metadata = {"name": name, "namespace": namespace}
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": metadata,
            "spec": spec, "status": status}  # fmt: skip
