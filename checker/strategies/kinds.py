"""The other kinds a cluster holds: PriorityClasses, Namespaces, PodDisruptionBudgets, and the
Services and pod controllers PodTopologySpread's default constraints read."""

from __future__ import annotations

from collections.abc import Sequence

from schedspec.checker.strategies.pools import (
    DELETION_TIMESTAMP,
    LABEL_KEYS,
    LABEL_VALUES,
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


def _selecting(ch: _Choices, pods: Sequence[Obj]) -> list[Obj]:
    """Services and pod controllers (ReplicaSet, StatefulSet, ReplicationController) over
    ``pods``: what PodTopologySpread's default constraints take their selector from. A Service's
    selector is often a subset of one pod's labels, sometimes ``{}`` (selects every pod of its
    namespace, adds no label), absent (selects nothing) or just missing; a controller selects one
    pod's labels and some of the pods it selects name it (``controller: true``) in their
    ``ownerReferences``, now and then with a group/version kube-scheduler does not look up.
    Adds the owner references to ``pods`` in place."""
    labelled = [p for p in pods if p["metadata"].get("labels")]
    if not pods or not ch.chance(45):
        return []
    out: list[Obj] = []
    for i in range(ch.integer(1, 2)):
        pod = ch.one(pods)
        labels: dict[str, str] = pod["metadata"].get("labels") or {}
        spec: Obj = {}
        shape = ch.percent()
        if shape < 60 and labels:
            spec["selector"] = {k: labels[k] for k in ch.subset(sorted(labels), 1, 2)}
        elif shape < 75:
            spec["selector"] = {ch.one(LABEL_KEYS): ch.one(LABEL_VALUES)}
        elif shape < 90:
            spec["selector"] = {}
        meta = {"name": f"svc-{i}", "namespace": _namespace_of(pod)}
        out.append({"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec})
    if labelled and ch.chance(60):
        pod = ch.one(labelled)
        labels = pod["metadata"]["labels"]
        chosen = {k: labels[k] for k in ch.subset(sorted(labels), 1, 2)}
        kind, api = ch.one((("ReplicaSet", "apps/v1"), ("StatefulSet", "apps/v1"),
                            ("ReplicationController", "v1")))  # fmt: skip
        name = f"{kind.lower()}-0"
        namespace = _namespace_of(pod)
        template = {"metadata": {"labels": dict(chosen)}}
        selector: Obj = chosen if kind == "ReplicationController" else {"matchLabels": chosen}
        controller: Obj = {"apiVersion": api, "kind": kind,
                           "metadata": {"name": name, "namespace": namespace},
                           "spec": {"selector": selector, "template": template}}  # fmt: skip
        out.append(controller)
        for other in pods:
            mine = all((other["metadata"].get("labels") or {}).get(k) == v
                       for k, v in chosen.items())  # fmt: skip
            if mine and _namespace_of(other) == namespace and (other is pod or ch.chance(60)):
                version = "extensions/v1beta1" if ch.chance(5) else api
                ref = {"apiVersion": version, "kind": kind, "name": name, "controller": True}
                other["metadata"]["ownerReferences"] = [ref]
    return out


def _namespace_of(obj: Obj) -> str:
    namespace: str = obj["metadata"].get("namespace", "default")
    return namespace
