"""``scoring_cluster_objects``: roomy nodes most pending pods fit, and what the Score plugins
rank them by."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from schedspec.checker.strategies.front import _choices
from schedspec.checker.strategies.kinds import _selecting
from schedspec.checker.strategies.node import _tagged
from schedspec.checker.strategies.pod import _PREFERRED, _REQUIRED, _WEIGHTS
from schedspec.checker.strategies.pools import (
    _MB,
    DELETION_TIMESTAMP,
    HOSTNAME,
    IMAGES,
    REGION,
    TOPOLOGY_KEYS,
    ZONE,
    ZONES,
    Obj,
)
from schedspec.checker.strategies.primitives import _Choices, _selector_keys
from schedspec.checker.strategies.validation import _check_range

_SCORE_APPS = ("web", "db")
_SCORE_TIERS = ("front", "back")
_SCORE_CPU = ("4", "8", "1m")
_SCORE_MEMORY = ("8Gi", "16Gi", "1")
_SCORE_CPU_REQUESTS = ("100m", "500m", "1", "2")
_SCORE_MEMORY_REQUESTS = ("256Mi", "1Gi", "4Gi")
_SCORE_IMAGE_SIZES = tuple(m * _MB + d for m in (23, 500, 1000) for d in (-1, 0, 1))


def _score_labels(ch: _Choices) -> dict[str, str]:
    labels = {"app": ch.one(_SCORE_APPS)}
    if ch.chance(50):
        labels["tier"] = ch.one(_SCORE_TIERS)
    return labels


def _score_selector(ch: _Choices) -> Obj:
    if ch.chance(80):
        return {"matchLabels": {"app": ch.one(_SCORE_APPS)}}
    operator = ch.one(("In", "NotIn", "Exists"))
    req: Obj = {"key": ch.one(("app", "tier")), "operator": operator}
    if operator != "Exists":
        req["values"] = [ch.one((*_SCORE_APPS, *_SCORE_TIERS))]
    return {"matchExpressions": [req]}


def _score_term(ch: _Choices) -> Obj:
    term: Obj = {"labelSelector": _score_selector(ch), "topologyKey": ch.one(TOPOLOGY_KEYS)}
    if ch.chance(15):
        term["namespaces"] = ["default", "prod"]
    return term


def _score_pod_affinity(ch: _Choices, *, required: bool) -> Obj:
    """Preferred pod affinity and anti-affinity terms, and (``required``) a required affinity
    term: the existing pods' terms InterPodAffinity scores with hardPodAffinityWeight."""
    affinity: Obj = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        part: Obj = {}
        if ch.chance(50):
            part[_PREFERRED] = [{"weight": ch.one(_WEIGHTS), "podAffinityTerm": _score_term(ch)}
                                for _ in range(ch.integer(1, 2))]  # fmt: skip
        if required and kind == "podAffinity" and ch.chance(30):
            part[_REQUIRED] = [_score_term(ch)]
        if part:
            affinity[kind] = part
    return affinity


def _score_container(ch: _Choices, name: str) -> Obj:
    container: Obj = {"name": name, "image": ch.one(IMAGES)}
    requests: Obj = {}
    if ch.chance(75):
        requests["cpu"] = ch.one(_SCORE_CPU_REQUESTS)
    if ch.chance(75):
        requests["memory"] = ch.one(_SCORE_MEMORY_REQUESTS)
    if requests:
        container["resources"] = {"requests": requests}
    return container


def _score_pod(ch: _Choices, name: str, namespace: str) -> Obj:
    count = ch.integer(1, 2)
    spec: Obj = {"containers": [_score_container(ch, f"c{i}") for i in range(count)]}
    metadata: Obj = {"name": name, "namespace": namespace, "labels": _score_labels(ch)}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def _soft_spread(ch: _Choices) -> Obj:
    selector = _score_selector(ch)
    c: Obj = {"maxSkew": ch.integer(1, 3), "topologyKey": ch.one(TOPOLOGY_KEYS),
              "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector}  # fmt: skip
    if ch.chance(15) and "tier" not in _selector_keys(selector):
        c["matchLabelKeys"] = ["tier"]
    for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        if ch.chance(30):
            c[policy] = ch.one(("Honor", "Ignore"))
    return c


def _score_node(ch: _Choices, name: str) -> Obj:
    labels = {HOSTNAME: name}
    if not ch.chance(10):
        labels[ZONE] = zone = ch.one(sorted(ZONES))
        if not ch.chance(10):
            labels[REGION] = ZONES[zone]
    if ch.chance(40):
        labels["tier"] = ch.one(_SCORE_TIERS)
    allocatable = {"cpu": ch.one(_SCORE_CPU) if ch.chance(10) else ch.one(_SCORE_CPU[:2]),
                   "memory": ch.one(_SCORE_MEMORY) if ch.chance(10)
                   else ch.one(_SCORE_MEMORY[:2]), "pods": "110"}  # fmt: skip
    status: Obj = {"allocatable": allocatable}
    if ch.chance(50):
        status["images"] = [{"names": [_tagged(image)], "sizeBytes": ch.one(_SCORE_IMAGE_SIZES)}
                            for image in ch.subset(IMAGES, 1, 3)]  # fmt: skip
    node: Obj = {"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": name, "labels": labels}, "status": status}  # fmt: skip
    taints = []
    if ch.chance(30):
        taints.append({"key": "dedicated", "value": "infra", "effect": "PreferNoSchedule"})
    if ch.chance(15):
        taints.append({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
    if taints:
        node["spec"] = {"taints": taints}
    return node


def _score_pending(ch: _Choices, name: str, node_names: Sequence[str]) -> Obj:
    pod = _score_pod(ch, name, "default" if ch.chance(90) else "prod")
    spec = pod["spec"]
    if ch.chance(60):
        built = [_soft_spread(ch) for _ in range(ch.integer(1, 2))]
        if ch.chance(20):  # a hard one beside: what a nominated pod's PreFilter update moves
            hard = {**_soft_spread(ch), "whenUnsatisfiable": "DoNotSchedule"}
            built.append({**hard, "maxSkew": ch.integer(1, 2)})
        unique = {(c["topologyKey"], c["whenUnsatisfiable"]): c for c in built}
        spec["topologySpreadConstraints"] = list(unique.values())
    affinity = _score_pod_affinity(ch, required=False) if ch.chance(50) else {}
    if ch.chance(10):
        anti = affinity.setdefault("podAntiAffinity", {})
        anti[_REQUIRED] = [{**_score_term(ch), "topologyKey": ch.one((HOSTNAME, ZONE))}]
    if ch.chance(40):
        key, values = ch.one(((ZONE, sorted(ZONES)), ("tier", _SCORE_TIERS)))
        requirement = {"key": key, "operator": "In", "values": [ch.one(values)]}
        preference = {"matchExpressions": [requirement]}
        affinity["nodeAffinity"] = {_PREFERRED: [{"weight": ch.one(_WEIGHTS),
                                                  "preference": preference}]}  # fmt: skip
        if ch.chance(30):
            zones = ch.subset(sorted(ZONES), 2, 3)
            required = {"matchExpressions": [{"key": ZONE, "operator": "In",
                                              "values": zones}]}  # fmt: skip
            affinity["nodeAffinity"][_REQUIRED] = {"nodeSelectorTerms": [required]}
    if affinity:
        spec["affinity"] = affinity
    if ch.chance(30):
        effect = ch.one(("PreferNoSchedule", "NoSchedule"))
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists", "effect": effect}]
    pod["status"] = {"phase": "Pending"}
    if node_names and ch.chance(20):
        pod["status"]["nominatedNodeName"] = ch.one(node_names)
    return pod


@st.composite
def _scoring_objects(draw: DrawFn, nodes: tuple[int, int], pending: tuple[int, int]) -> list[Obj]:
    # A fresh draw of choices per object: one would run dry after a few (_Choices reads 0 then).
    node_list = [_score_node(_choices(draw), f"node-{i}") for i in range(draw(st.integers(*nodes)))]
    names = [n["metadata"]["name"] for n in node_list]
    bound: list[Obj] = []
    for node in node_list:
        for _ in range(draw(st.integers(0, 4))):
            ch = _choices(draw)
            pod = _score_pod(ch, f"pod-{len(bound)}", "default" if ch.chance(85) else "prod")
            pod["spec"]["nodeName"] = node["metadata"]["name"]
            pod["status"] = {"phase": "Running"}
            if ch.chance(30) and (affinity := _score_pod_affinity(ch, required=True)):
                pod["spec"]["affinity"] = affinity
            if ch.chance(10):
                pod["metadata"]["deletionTimestamp"] = DELETION_TIMESTAMP
            bound.append(pod)
    waiting: list[Obj] = []
    for i in range(draw(st.integers(*pending))):
        waiting.append(_score_pending(_choices(draw), f"pod-{len(bound) + i}", names))
    selecting = _selecting(_choices(draw), [*bound, *waiting])
    return [*node_list, *bound, *waiting, *selecting]


def scoring_cluster_objects(
    *, min_nodes: int = 2, max_nodes: int = 6, min_pending: int = 1, max_pending: int = 3
) -> SearchStrategy[list[Obj]]:
    """Clusters made for the Score phase, which ``cluster_objects`` reaches on about a fifth of
    its pod × node pairs: roomy nodes (now and then one with 1m of cpu or 1 byte of memory
    allocatable) that most pending pods fit, bound pods labelled ``app``/``tier`` in two
    namespaces (some terminating, some carrying preferred and required pod affinity terms of
    their own), pending pods with ScheduleAnyway spread constraints over those labels (inclusion
    policies, ``matchLabelKeys``), preferred pod (anti-)affinity and node affinity (now and then
    a hard spread constraint or anti-affinity term and a nomination, so the two-pass filter's
    PreFilter updates for nominated pods matter), node images one byte either side of
    ImageLocality's thresholds, PreferNoSchedule taints — so several nodes are feasible and
    every score plugin has something to rank."""
    _check_range("min_nodes", min_nodes, "max_nodes", max_nodes)
    _check_range("min_pending", min_pending, "max_pending", max_pending)
    return _scoring_objects((min_nodes, max_nodes), (min_pending, max_pending))
