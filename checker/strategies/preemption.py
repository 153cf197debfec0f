"""``preemption_cluster_objects``: small full nodes, more important pending pods and PDBs over
the bound ones (DefaultPreemption's inputs)."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from schedspec.checker.strategies.front import _choices
from schedspec.checker.strategies.pools import (
    DELETION_TIMESTAMP,
    HOSTNAME,
    START_TIMES,
    ZONE,
    ZONES,
    Obj,
)
from schedspec.checker.strategies.primitives import _Choices
from schedspec.checker.strategies.validation import _check_range

_APPS = ("web", "db")
_VICTIM_CPU = ("250m", "500m", "1")


@st.composite
def _preemption_objects(
    draw: DrawFn, nodes: tuple[int, int], pending: tuple[int, int]
) -> list[Obj]:
    ch = _choices(draw)
    objects: list[Obj] = []
    bound: list[Obj] = []
    node_names: list[str] = []
    for i in range(ch.integer(*nodes)):
        name = f"node-{i}"
        node_names.append(name)
        zone = ch.one(sorted(ZONES))
        node: Obj = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {HOSTNAME: name, ZONE: zone}},
            "status": {"allocatable": {"cpu": ch.one(("1", "2")), "memory": "4Gi",
                                       "pods": ch.one(("3", "110"))}},
        }  # fmt: skip
        if ch.chance(20):
            node["spec"] = {
                "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
            }
        objects.append(node)
        for _ in range(ch.integer(0, 3)):
            pod = _small_pod(ch, f"pod-{len(bound)}", ch.one(_VICTIM_CPU), ch.one((0, 10, 10)))
            pod["spec"]["nodeName"] = name
            pod["status"] = {"phase": "Running", "startTime": ch.one(START_TIMES)}
            if ch.chance(10):
                pod["metadata"]["deletionTimestamp"] = DELETION_TIMESTAMP
                pod["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                                "reason": "PreemptionByScheduler"}]  # fmt: skip
            bound.append(pod)
    objects += bound
    for i in range(ch.integer(*pending)):
        pod = _small_pod(ch, f"pod-{len(bound) + i}", ch.one(("500m", "1", "2")),
                         ch.one((10, 100, 1000)))  # fmt: skip
        spec = pod["spec"]
        if ch.chance(50):
            spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        if ch.chance(15):
            spec["preemptionPolicy"] = "Never"
        if ch.chance(20):
            term = {"labelSelector": {"matchLabels": {"app": ch.one(_APPS)}},
                    "topologyKey": ch.one((HOSTNAME, ZONE))}  # fmt: skip
            kind = ch.one(("podAffinity", "podAntiAffinity"))
            spec["affinity"] = {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
        pod["status"] = {"phase": "Pending"}
        if node_names and ch.chance(25):
            pod["status"]["nominatedNodeName"] = ch.one(node_names)
        objects.append(pod)
    for i in range(ch.integer(0, 2)):
        budget: Obj = {"selector": _pdb_selector(ch)}
        budget[ch.one(("maxUnavailable", "minAvailable"))] = ch.one((0, 1))
        status: Obj = {"disruptionsAllowed": ch.one((0, 0, 1, 2))}
        if bound and ch.chance(20):
            status["disruptedPods"] = {ch.one(bound)["metadata"]["name"]: DELETION_TIMESTAMP}
        namespace = "prod" if ch.chance(20) else "default"
        objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": f"pdb-{i}", "namespace": namespace},
                        "spec": budget, "status": status})  # fmt: skip
    return objects


def _pdb_selector(ch: _Choices) -> Obj:
    """Mostly one app; now and then a selector that matches pods without labels (NotIn,
    DoesNotExist) or the empty one, which a budget — unlike everything else — reads as none."""
    which = ch.percent()
    if which < 70:
        return {"matchLabels": {"app": ch.one(_APPS)}}
    if which < 80:
        return {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["db"]}]}
    if which < 90:
        return {"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}
    return {}


def _small_pod(ch: _Choices, name: str, cpu: str, priority: int) -> Obj:
    container = {"name": "app", "image": "registry.k8s.io/pause:3.10",
                 "resources": {"requests": {"cpu": cpu}}}  # fmt: skip
    metadata: Obj = {"name": name, "namespace": "prod" if ch.chance(15) else "default"}
    if not ch.chance(10):
        metadata["labels"] = {"app": ch.one(_APPS)}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [container], "priority": priority},
    }


def preemption_cluster_objects(
    *, min_nodes: int = 1, max_nodes: int = 4, min_pending: int = 1, max_pending: int = 3
) -> SearchStrategy[list[Obj]]:
    """Clusters made for DefaultPreemption, which ``cluster_objects`` reaches in a few clusters
    of a hundred: small nodes full of low-priority pods (labelled ``app: web|db``, start times
    that tie, now and then one already terminating by preemption), more important pending pods
    (some nominated, some ``preemptionPolicy: Never``, some with required pod (anti-)affinity),
    and budgets over the bound pods with few disruptions allowed — so candidates differ in PDB
    violations, victim priorities and counts, and reprieves matter."""
    _check_range("min_nodes", min_nodes, "max_nodes", max_nodes)
    _check_range("min_pending", min_pending, "max_pending", max_pending)
    return _preemption_objects((min_nodes, max_nodes), (min_pending, max_pending))
