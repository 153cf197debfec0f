"""The cluster strategies: every draw loads, sizes are validated, and the bias towards the
scheduler's edges is real (counted over a fixed-seed sample)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import InvalidArgument

from schedspec.checker import strategies as ks
from schedspec.cluster import Cluster, from_objects
from schedspec.impl.api.convert import pod_from_dict
from schedspec.impl.api.resources import pod_requests, resource_list

_FAST = settings(
    max_examples=150,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


# ------------------------------------------------------------------------------------ validity


def _check_consistent(objects: list[dict[str, Any]], cluster: Cluster) -> None:
    # the only warnings are those strategies/warned.py draws on purpose: selector requirements
    assert all("matchExpressions[" in w or "matchFields[" in w for w in cluster.warnings)
    names = {n["metadata"]["name"] for n in cluster.nodes}
    for node in cluster.nodes:
        assert node["metadata"]["labels"][ks.HOSTNAME] == node["metadata"]["name"]
    for pod in cluster.pods:
        assert pod["spec"].get("nodeName", names and next(iter(names))) in names
        assert pod["status"].get("nominatedNodeName", "") in {"", *names}
    assert len(cluster.pods) + len(cluster.nodes) <= len(objects)


@_FAST
@given(ks.cluster_objects(max_nodes=6, max_pods=10))
def test_every_cluster_loads_warning_only_of_selectors(objects: list[dict[str, Any]]) -> None:
    _check_consistent(objects, from_objects(objects))


@_FAST
@given(ks.clusters(max_nodes=3, max_pods=4, extras=False))
def test_clusters_are_loaded(cluster: Cluster) -> None:
    assert isinstance(cluster, Cluster)
    assert (cluster.pdbs, cluster.priority_classes, cluster.namespaces) == ((), (), ())


@_FAST
@given(ks.nodes(name="worker-1"), ks.pods(name="web", node_names=["worker-1"], bound=True))
def test_single_node_and_pod_load_together(node: dict[str, Any], pod: dict[str, Any]) -> None:
    cluster = from_objects([node, pod])
    assert cluster.nodes[0]["metadata"]["name"] == "worker-1"
    assert cluster.pods[0]["spec"]["nodeName"] == "worker-1"


@_FAST
@given(ks.pods(bound=False, in_place_resize=False))
def test_a_pending_pod_alone_loads(pod: dict[str, Any]) -> None:
    (loaded,) = from_objects([pod]).pending_pods()
    assert "nodeName" not in loaded["spec"]


@_FAST
@given(
    ks.cluster_objects(min_nodes=2, max_nodes=3, min_pods=4, max_pods=5, min_pending=3),
)
def test_sizes_are_respected(objects: list[dict[str, Any]]) -> None:
    cluster = from_objects(objects)
    assert 2 <= len(cluster.nodes) <= 3
    assert 4 <= len(cluster.pods) <= 5
    assert sum(1 for p in cluster.pods if not p["spec"].get("nodeName")) >= 3


@_FAST
@given(ks.cluster_objects(min_nodes=0, max_nodes=0, min_pods=2, max_pods=2))
def test_without_nodes_every_pod_is_pending(objects: list[dict[str, Any]]) -> None:
    assert len(from_objects(objects).pending_pods()) == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_nodes": -1}, "min_nodes=-1 must be at least 0"),
        ({"min_nodes": 3, "max_nodes": 2}, "min_nodes=3 must be at most max_nodes=2"),
        ({"max_pods": 1.5}, "max_pods=1.5 must be an integer"),
        ({"min_pods": True}, "min_pods=True must be an integer"),
        ({"min_pods": 4, "max_pods": 3}, "min_pods=4 must be at most max_pods=3"),
        ({"min_pending": 9}, "min_pending=9 must be at most max_pods=8"),
    ],
    ids=["negative", "min-above-max", "float", "bool", "pods-inverted", "pending-above-max"],
)
@pytest.mark.parametrize("strategy", [ks.cluster_objects, ks.clusters], ids=["objects", "cluster"])
def test_bad_sizes_fail_when_the_strategy_is_built(
    strategy: Any, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidArgument, match=f"^{message}$"):
        strategy(**kwargs)


def test_bad_single_object_arguments() -> None:
    with pytest.raises(InvalidArgument, match="bound=True needs node_names"):
        ks.pods(bound=True)
    with pytest.raises(InvalidArgument, match="name='' must be a non-empty string"):
        ks.nodes(name="")


# ------------------------------------------------------------------------------------ the bias


@pytest.fixture(scope="module")
def sample() -> list[Cluster]:
    """300 clusters of the default sizes, always the same ones."""
    drawn: list[Cluster] = []

    @seed(20250914)
    @settings(max_examples=300, database=None, phases=[Phase.generate], deadline=None)
    @given(ks.clusters())
    def collect(cluster: Cluster) -> None:
        drawn.append(cluster)

    collect()
    assert len(drawn) == 300
    return drawn


def _free(cluster: Cluster) -> dict[str, dict[str, int]]:
    """Allocatable minus bound requests, computed with the impl's own request aggregation."""
    free = {n["metadata"]["name"]: resource_list(n["status"]["allocatable"]) for n in cluster.nodes}
    for pod in cluster.bound_pods():
        for resource, amount in pod_requests(pod_from_dict(pod)).items():
            room = free[pod["spec"]["nodeName"]]
            room[resource] = room.get(resource, 0) - amount
    return free


def _boundary_hits(cluster: Cluster, delta: int) -> int:
    free = _free(cluster)
    return sum(
        1
        for pod in cluster.pending_pods()
        for resource, amount in pod_requests(pod_from_dict(pod)).items()
        for room in free.values()
        if amount > 0 and room.get(resource) is not None and amount == room[resource] + delta
    )


@pytest.mark.parametrize("delta", [0, 1], ids=["equal", "one-above"])
def test_pending_requests_sit_on_free_capacity(sample: list[Cluster], delta: int) -> None:
    assert sum(1 for c in sample if _boundary_hits(c, delta)) >= 30


def test_some_nodes_are_exactly_full_of_pods(sample: list[Cluster]) -> None:
    full = 0
    for cluster in sample:
        for node in cluster.nodes:
            on = [
                p for p in cluster.bound_pods() if p["spec"]["nodeName"] == node["metadata"]["name"]
            ]
            full += str(len(on)) == str(node["status"]["allocatable"].get("pods"))
    assert full >= 30


def _near_miss(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """Same key, but the value differs under Equal (or the effect differs)."""
    if toleration.get("key") != taint["key"]:
        return False
    equal = toleration.get("operator", "Equal") in ("", "Equal")
    value_differs = equal and toleration.get("value", "") != taint.get("value", "")
    effect_differs = toleration.get("effect", "") not in ("", taint["effect"])
    return value_differs or effect_differs


def _pairs(cluster: Cluster) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    for pod, node in itertools.product(cluster.pods, cluster.nodes):
        for toleration in pod["spec"].get("tolerations", ()):
            for taint in node.get("spec", {}).get("taints", ()):
                yield toleration, taint


def test_tolerations_almost_match_taints(sample: list[Cluster]) -> None:
    near = sum(1 for c in sample if any(_near_miss(t, x) for t, x in _pairs(c)))
    exact = sum(1 for c in sample if any(t == x for t, x in _pairs(c)))
    assert near >= 30
    assert exact == 0 or exact < near  # the pools are small, but near misses dominate


def _host_ports(pod: dict[str, Any]) -> set[tuple[str, str, int]]:
    spec = pod["spec"]
    return {
        (port["protocol"], port.get("hostIP") or "0.0.0.0", port["hostPort"])
        for c in (*spec["containers"], *spec.get("initContainers", ()))
        for port in c.get("ports", ())
        if port.get("hostPort")
    }


def _ports_collide(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return any(
        pa == pb and (ia == ib or "0.0.0.0" in (ia, ib))
        for (pa, ia, na), (pb, ib, nb) in itertools.product(_host_ports(a), _host_ports(b))
        if na == nb
    )


def test_host_ports_collide(sample: list[Cluster]) -> None:
    colliding = sum(
        1 for c in sample if any(_ports_collide(a, b) for a, b in itertools.combinations(c.pods, 2))
    )
    assert colliding >= 15


def test_pending_pods_are_sometimes_nominated(sample: list[Cluster]) -> None:
    nominated = [
        p for c in sample for p in c.pending_pods() if p["status"].get("nominatedNodeName")
    ]
    assert len(nominated) >= 30


def test_priorities_tie(sample: list[Cluster]) -> None:
    def ties(cluster: Cluster) -> bool:
        pending = {p["spec"]["priority"] for p in cluster.pending_pods()}
        return any(p["spec"]["priority"] in pending for p in cluster.bound_pods())

    assert sum(1 for c in sample if ties(c)) >= 45  # uniform int32 priorities: ~0


def _paths(data: Any, prefix: str = "") -> Iterator[str]:
    if isinstance(data, dict):
        for key, child in data.items():
            path = f"{prefix}.{key}" if prefix else key
            yield path
            if key not in _DATA_KEYS:
                yield from _paths(child, path)
    elif isinstance(data, list):
        for child in data:
            yield from _paths(child, f"{prefix}[]")


# Every field scheduler.tla reads (spec/kube/scheduler_view.py), plus the values that steer it;
# {R} and {P} stand for the required/preferredDuringSchedulingIgnoredDuringExecution keys.
_MUST_APPEAR = """
Node metadata.labels; Node spec.unschedulable; Node spec.taints[].value
Node status.images[].sizeBytes; Node status.capacity
Pod metadata.deletionTimestamp; Pod spec.nodeName; Pod spec.priority
Pod spec.priorityClassName; Pod spec.preemptionPolicy; Pod spec.nodeSelector
Pod spec.tolerations[].tolerationSeconds; Pod spec.tolerations[].operator
Pod spec.initContainers[].restartPolicy; Pod spec.containers[].resources.limits
Pod spec.containers[].ports[].hostIP; Pod spec.containers[].ports[].protocol; Pod spec.overhead
Pod spec.resources.requests; Pod spec.schedulingGates[].name
Pod spec.affinity.nodeAffinity.{R}.nodeSelectorTerms[].matchFields[].values
Pod spec.affinity.nodeAffinity.{P}[].preference.matchExpressions[].values
Pod spec.affinity.podAffinity.{R}[].namespaceSelector
Pod spec.affinity.podAffinity.{R}[].namespaces
Pod spec.affinity.podAntiAffinity.{P}[].podAffinityTerm.matchLabelKeys
Pod spec.affinity.podAntiAffinity.{R}[].mismatchLabelKeys
Pod spec.topologySpreadConstraints[].minDomains; Pod spec.topologySpreadConstraints[].matchLabelKeys
Pod spec.topologySpreadConstraints[].nodeAffinityPolicy
Pod spec.topologySpreadConstraints[].nodeTaintsPolicy
Pod status.nominatedNodeName; Pod status.startTime; Pod status.conditions[].reason
Pod status.containerStatuses[].allocatedResources; Pod status.containerStatuses[].resources.requests
PodDisruptionBudget spec.selector; PodDisruptionBudget spec.minAvailable
PodDisruptionBudget status.disruptionsAllowed; PodDisruptionBudget status.disruptedPods
PriorityClass globalDefault; PriorityClass preemptionPolicy; Namespace metadata.labels
""".format(
    R="requiredDuringSchedulingIgnoredDuringExecution",
    P="preferredDuringSchedulingIgnoredDuringExecution",
)
# label maps and resource lists: their keys are data, not fields
_DATA_KEYS = frozenset(
    {"labels", "matchLabels", "nodeSelector", "requests", "limits", "allocatable", "capacity",
     "allocatedResources", "disruptedPods"}
)  # fmt: skip


def test_every_field_the_spec_reads_is_exercised(sample: list[Cluster]) -> None:
    seen: set[str] = set()
    for cluster in sample:
        for obj in (*cluster.nodes, *cluster.pods, *cluster.pdbs, *cluster.priority_classes,
                    *cluster.namespaces):  # fmt: skip
            seen.update(f"{obj['kind']} {path}" for path in _paths(obj))
    wanted = {w.strip() for line in _MUST_APPEAR.strip().splitlines() for w in line.split(";")}
    assert sorted(wanted - seen) == []


def test_every_operator_and_effect_is_exercised(sample: list[Cluster]) -> None:
    found: set[str] = set()
    for cluster in sample:
        for pod in cluster.pods:
            found.update(_strings_under(pod["spec"], {"operator", "effect", "whenUnsatisfiable"}))
        for node in cluster.nodes:
            found.update(t["effect"] for t in node.get("spec", {}).get("taints", ()))
    expected = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equal", *ks.TAINT_EFFECTS,
                "DoNotSchedule", "ScheduleAnyway"}  # fmt: skip
    assert expected <= found


def _strings_under(data: Any, keys: set[str]) -> Iterator[str]:
    if isinstance(data, dict):
        for key, child in data.items():
            if key in keys and isinstance(child, str):
                yield child
            yield from _strings_under(child, keys)
    elif isinstance(data, list):
        for child in data:
            yield from _strings_under(child, keys)


def test_selectors_the_loader_warns_about_are_drawn(sample: list[Cluster]) -> None:
    """strategies/warned.py: the API server refuses them, a user's YAML may hold them, and the
    checker must see spec and impl decide them alike (tests/checker/test_warned_inputs.py)."""
    warned = [w for c in sample for w in c.warnings]
    assert sum(1 for c in sample if c.warnings) >= 15
    kinds = {
        kind
        for w in warned
        for kind in ("unknown operator", "needs at least one value", "takes no values",
                     "invalid label key", "invalid label value", "exactly one integer value",
                     "matchFields key")
        if kind in w
    }  # fmt: skip
    assert len(kinds) >= 5, kinds


def test_spell_quantity_round_trips() -> None:
    for resource, amount in [("cpu", 1500), ("cpu", 2000), ("memory", 2**30), ("memory", 3 * 2**20),
                             ("memory", 2**30 + 1), ("nvidia.com/gpu", 0)]:  # fmt: skip
        spelled = ks.spell_quantity(resource, amount)
        assert resource_list({resource: spelled}) == {resource: amount}, spelled
    assert ks.spell_quantity("cpu", 1500) == "1500m"
    assert ks.spell_quantity("memory", 2**30) == "1Gi"


@settings(max_examples=200, database=None, deadline=None)
@given(ks.pods(in_place_resize=False))
def test_request_vector_agrees_with_the_impl(pod: dict[str, Any]) -> None:
    loaded = from_objects([pod]).pods[0]
    assert ks.request_vector(loaded) == pod_requests(pod_from_dict(loaded))


# ------------------------------------------------------------------------ preemption clusters


def test_preemption_clusters_load_and_mostly_offer_preemption() -> None:
    # Counted with the spec, not the impl: most draws have a pending pod that some node's
    # lower-priority pods could make room for, and a fair share put a PDB in the way.
    from schedspec.checker.differential import SpecState
    from schedspec.spec.load import load_spec

    spec = load_spec("scheduler")
    counts = {"clusters": 0, "candidate": 0, "violating": 0}

    @seed(20261121)
    @settings(max_examples=100, database=None, phases=[Phase.generate], deadline=None)
    @given(ks.preemption_cluster_objects())
    def collect(objects: list[dict[str, Any]]) -> None:
        cluster = from_objects(objects)
        assert cluster.warnings == ()
        assert 1 <= len(cluster.nodes) <= 4 and 1 <= len(cluster.pending_pods()) <= 3
        s = SpecState(spec, cluster)
        pairs = [(s.world.pods[k], n) for k in s.world.pending for n in s.world.nodes.values()]
        candidates = [(p, n) for p, n in pairs if s.call("PreemptionCandidate", p, n) is True]
        counts["clusters"] += 1
        counts["candidate"] += bool(candidates)
        counts["violating"] += any(s.call("NumPDBViolations", p, n) > 0 for p, n in candidates)

    collect()
    assert counts["clusters"] == 100
    assert counts["candidate"] >= 35 and counts["violating"] >= 8, counts


def test_preemption_cluster_sizes_are_validated() -> None:
    with pytest.raises(InvalidArgument, match=r"^min_nodes=5 must be at most max_nodes=4$"):
        ks.preemption_cluster_objects(min_nodes=5)
    with pytest.raises(InvalidArgument, match=r"^min_pending=-1 must be at least 0$"):
        ks.preemption_cluster_objects(min_pending=-1)


# --------------------------------------------------------------------------- scoring clusters


def test_scoring_clusters_load_and_give_every_score_plugin_a_ranking() -> None:
    # Counted with the spec: most pending pod × node pairs are feasible, and over the pods with
    # two or more feasible nodes, the scores that cluster_objects rarely spreads out (soft
    # topology spread, inter-pod affinity, preferred node affinity) do rank those nodes.
    from schedspec.checker.differential import SpecState
    from schedspec.spec.load import load_spec

    spec = load_spec("scheduler")
    ranked = ("PodTopologySpreadScore", "InterPodAffinityScore", "NodeAffinityScore")
    counts = dict.fromkeys(("clusters", "pairs", "feasible", *ranked), 0)

    @seed(20261121)
    @settings(max_examples=100, database=None, phases=[Phase.generate], deadline=None)
    @given(ks.scoring_cluster_objects())
    def collect(objects: list[dict[str, Any]]) -> None:
        cluster = from_objects(objects)
        assert cluster.warnings == ()
        assert 2 <= len(cluster.nodes) <= 6 and 1 <= len(cluster.pending_pods()) <= 3
        s = SpecState(spec, cluster)
        counts["clusters"] += 1
        for key in s.world.pending:
            p = s.world.pods[key]
            feasible = [n for n in s.world.nodes.values() if s.call("Feasible", p, n) is True]
            counts["pairs"] += len(s.world.nodes)
            counts["feasible"] += len(feasible)
            for name in ranked:
                counts[name] += len({s.call(name, p, n) for n in feasible}) > 1

    collect()
    assert counts["clusters"] == 100
    assert counts["feasible"] >= 0.6 * counts["pairs"], counts
    assert counts["PodTopologySpreadScore"] >= 15, counts
    assert counts["InterPodAffinityScore"] >= 20 and counts["NodeAffinityScore"] >= 8, counts


def test_scoring_cluster_sizes_are_validated() -> None:
    with pytest.raises(InvalidArgument, match=r"^min_nodes=7 must be at most max_nodes=6$"):
        ks.scoring_cluster_objects(min_nodes=7)
    with pytest.raises(InvalidArgument, match=r"^max_pending=1.5 must be an integer$"):
        ks.scoring_cluster_objects(max_pending=1.5)  # type: ignore[arg-type]
