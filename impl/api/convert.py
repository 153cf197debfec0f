"""Plain Kubernetes dicts (as ``schedspec.cluster`` loads them) → typed API objects.

The dicts are validated and partly defaulted by the loader; what is still absent is defaulted
here as the API server would: toleration operator ``""`` → ``Equal``, port protocol → ``TCP``,
``hostIP`` → ``0.0.0.0``, topology spread ``nodeAffinityPolicy`` → ``Honor`` and
``nodeTaintsPolicy`` → ``Ignore``. Two merges the API server performs at pod creation are done
here too: pod (anti-)affinity ``matchLabelKeys``/``mismatchLabelKeys`` (GA 1.33) become
``key In/NotIn [pod's value]`` in the term's labelSelector, and topology spread ``matchLabelKeys``
(``MatchLabelKeysInPodTopologySpreadSelectorMerge``, beta/on 1.34) become ``key In [value]``.
Keys the pod does not carry are ignored; merging twice is harmless (the requirements are ANDed).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedspec.impl.api.resources import resource_list
from schedspec.impl.api.types import (
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerRef,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)

__all__ = [
    "label_selector",
    "namespace_from_dict",
    "node_from_dict",
    "node_selector_term",
    "pod_from_dict",
]

_Obj = Mapping[str, Any]


def label_selector(raw: _Obj | None) -> LabelSelector | None:
    if raw is None:
        return None
    exprs = tuple(
        LabelSelectorRequirement(
            e.get("key", ""), e.get("operator", ""), tuple(e.get("values") or ())
        )
        for e in raw.get("matchExpressions") or ()
    )
    return LabelSelector(dict(raw.get("matchLabels") or {}), exprs)


def _merge_keys(
    selector: LabelSelector | None, labels: Mapping[str, str], keys: list[str], op: str
) -> LabelSelector | None:
    extra = tuple(
        LabelSelectorRequirement(k, op, (labels[k],)) for k in keys if k in labels and k != ""
    )
    if not extra or selector is None:
        return selector
    return LabelSelector(selector.match_labels, selector.match_expressions + extra)


def _node_requirements(raw: list[_Obj] | None) -> tuple[NodeSelectorRequirement, ...]:
    return tuple(
        NodeSelectorRequirement(
            r.get("key", ""), r.get("operator", ""), tuple(r.get("values") or ())
        )
        for r in raw or ()
    )


def node_selector_term(raw: _Obj) -> NodeSelectorTerm:
    return NodeSelectorTerm(
        _node_requirements(raw.get("matchExpressions")), _node_requirements(raw.get("matchFields"))
    )


def _node_affinity(raw: _Obj | None) -> NodeAffinity | None:
    if raw is None:
        return None
    req = raw.get("requiredDuringSchedulingIgnoredDuringExecution")
    required = None
    if req is not None:
        required = NodeSelector(tuple(node_selector_term(t) for t in req["nodeSelectorTerms"]))
    preferred = tuple(
        PreferredSchedulingTerm(p["weight"], node_selector_term(p.get("preference") or {}))
        for p in raw.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
    )
    return NodeAffinity(required, preferred)


def _pod_affinity_term(raw: _Obj, labels: Mapping[str, str]) -> PodAffinityTerm:
    selector = label_selector(raw.get("labelSelector"))
    selector = _merge_keys(selector, labels, raw.get("matchLabelKeys") or [], "In")
    selector = _merge_keys(selector, labels, raw.get("mismatchLabelKeys") or [], "NotIn")
    return PodAffinityTerm(
        topology_key=raw.get("topologyKey", ""),
        label_selector=selector,
        namespaces=tuple(raw.get("namespaces") or ()),
        namespace_selector=label_selector(raw.get("namespaceSelector")),
    )


def _pod_affinity(raw: _Obj | None, labels: Mapping[str, str]) -> PodAffinity | None:
    if raw is None:
        return None
    required = tuple(
        _pod_affinity_term(t, labels)
        for t in raw.get("requiredDuringSchedulingIgnoredDuringExecution") or ()
    )
    preferred = tuple(
        WeightedPodAffinityTerm(w["weight"], _pod_affinity_term(w["podAffinityTerm"], labels))
        for w in raw.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
    )
    return PodAffinity(required, preferred)


def _affinity(raw: _Obj | None, labels: Mapping[str, str]) -> Affinity | None:
    if raw is None:
        return None
    return Affinity(
        _node_affinity(raw.get("nodeAffinity")),
        _pod_affinity(raw.get("podAffinity"), labels),
        _pod_affinity(raw.get("podAntiAffinity"), labels),
    )


def _toleration(raw: _Obj) -> Toleration:
    return Toleration(
        key=raw.get("key", ""),
        operator=raw.get("operator") or "Equal",
        value=raw.get("value", ""),
        effect=raw.get("effect", ""),
        toleration_seconds=raw.get("tolerationSeconds"),
    )


def _spread(raw: _Obj, labels: Mapping[str, str]) -> TopologySpreadConstraint:
    keys = list(raw.get("matchLabelKeys") or [])
    selector = _merge_keys(label_selector(raw.get("labelSelector")), labels, keys, "In")
    return TopologySpreadConstraint(
        max_skew=raw["maxSkew"],
        topology_key=raw["topologyKey"],
        when_unsatisfiable=raw["whenUnsatisfiable"],
        label_selector=selector,
        min_domains=raw.get("minDomains"),
        node_affinity_policy=raw.get("nodeAffinityPolicy") or "Honor",
        node_taints_policy=raw.get("nodeTaintsPolicy") or "Ignore",
        match_label_keys=tuple(keys),
    )


def _port(raw: _Obj) -> ContainerPort:
    return ContainerPort(
        container_port=raw.get("containerPort", 0),
        host_port=raw.get("hostPort", 0) or 0,
        protocol=raw.get("protocol") or "TCP",
        host_ip=raw.get("hostIP") or "0.0.0.0",
    )


def _container(raw: _Obj) -> Container:
    return Container(
        name=raw.get("name", ""),
        image=raw.get("image", ""),
        requests=resource_list((raw.get("resources") or {}).get("requests")),
        ports=tuple(_port(p) for p in raw.get("ports") or ()),
        restart_policy=raw.get("restartPolicy"),
    )


def pod_from_dict(obj: _Obj) -> Pod:
    """A typed ``Pod`` from a Kubernetes-shaped dict."""
    meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
    labels = dict(meta.get("labels") or {})
    pod_level = (spec.get("resources") or {}).get("requests")
    return Pod(
        name=meta.get("name", ""),
        namespace=meta.get("namespace") or "default",
        uid=meta.get("uid", ""),
        labels=labels,
        containers=tuple(_container(c) for c in spec.get("containers") or ()),
        init_containers=tuple(_container(c) for c in spec.get("initContainers") or ()),
        node_name=spec.get("nodeName") or "",
        scheduler_name=spec.get("schedulerName") or "default-scheduler",
        priority=spec.get("priority") or 0,
        preemption_policy=spec.get("preemptionPolicy") or "PreemptLowerPriority",
        node_selector=spec.get("nodeSelector"),
        affinity=_affinity(spec.get("affinity"), labels),
        tolerations=tuple(_toleration(t) for t in spec.get("tolerations") or ()),
        topology_spread_constraints=tuple(
            _spread(c, labels) for c in spec.get("topologySpreadConstraints") or ()
        ),
        overhead=resource_list(spec.get("overhead")),
        pod_requests=resource_list(pod_level) if pod_level else None,
        scheduling_gates=tuple(g["name"] for g in spec.get("schedulingGates") or ()),
        phase=status.get("phase") or "Pending",
        deletion_timestamp=meta.get("deletionTimestamp"),
        nominated_node_name=status.get("nominatedNodeName") or "",
        start_time=status.get("startTime"),
        disruption_target_reason=_disruption_target_reason(status),
        owner_kinds=tuple(o.get("kind", "") for o in meta.get("ownerReferences") or ()),
        controller=next(
            (
                OwnerRef(str(o.get("apiVersion") or ""), o.get("kind", ""), o.get("name", ""))
                for o in meta.get("ownerReferences") or ()
                if o.get("controller") is True
            ),
            None,
        ),
    )


def _disruption_target_reason(status: _Obj) -> str:
    for cond in status.get("conditions") or ():
        if cond.get("type") == "DisruptionTarget":
            return str(cond.get("reason") or "") if cond.get("status") == "True" else ""
    return ""


def node_from_dict(obj: _Obj) -> Node:
    """A typed ``Node``; allocatable falls back to capacity (the loader already does that)."""
    meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
    taints = tuple(
        Taint(t["key"], t.get("effect", ""), t.get("value", "")) for t in spec.get("taints") or ()
    )
    images = tuple(
        ContainerImage(tuple(i.get("names") or ()), i.get("sizeBytes", 0))
        for i in status.get("images") or ()
    )
    return Node(
        name=meta.get("name", ""),
        uid=meta.get("uid", ""),
        labels=dict(meta.get("labels") or {}),
        unschedulable=bool(spec.get("unschedulable", False)),
        taints=taints,
        allocatable=resource_list(status.get("allocatable") or status.get("capacity")),
        images=images,
    )


def namespace_from_dict(obj: _Obj) -> Namespace:
    meta = obj.get("metadata") or {}
    labels = dict(meta.get("labels") or {})
    labels.setdefault("kubernetes.io/metadata.name", meta.get("name", ""))
    return Namespace(meta.get("name", ""), labels)
