"""PodTopologySpread: DoNotSchedule filter (minDomains, inclusion policies, matchLabelKeys) and
ScheduleAnyway scoring."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.framework import Code, CycleState, NodeInfo, NodeScore
from schedspec.impl.plugins import pod_topology_spread
from schedspec.impl.plugins.pod_topology_spread import PodTopologySpread

WEB = {"app": "web"}


def spread(
    when: str = "DoNotSchedule", selector: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    sel = {"matchLabels": WEB} if selector is None else selector
    c = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": when,
        "labelSelector": sel,
        **extra,
    }
    return {"topologySpreadConstraints": [c]}


def cluster(on_a: int, on_b: int, **pod_kw: Any) -> list[NodeInfo]:
    """n1, n2 in zone a (pods on n1), n3 in zone b, n4 without a zone label."""
    a = [pod(f"a{i}", labels=WEB, **pod_kw) for i in range(on_a)]
    b = [pod(f"b{i}", labels=WEB, **pod_kw) for i in range(on_b)]
    return [
        node_info(node("n1", labels={"zone": "a"}), *a),
        node_info(node("n2", labels={"zone": "a"})),
        node_info(node("n3", labels={"zone": "b"}), *b),
        node_info(node("n4")),
    ]


MISSING = "node(s) didn't match pod topology spread constraints (missing required label)"
SKEW = "node(s) didn't match pod topology spread constraints"
CASES: list[tuple[str, dict[str, Any], dict[str, str], list[NodeInfo], dict[str, str | None]]] = [
    (
        "skew counts the pod itself",
        spread(),
        WEB,
        cluster(2, 0),
        {"n1": SKEW, "n2": SKEW, "n3": None, "n4": MISSING},
    ),
    (
        "a pod outside its own selector adds nothing",
        spread(),
        {"app": "other"},
        cluster(1, 0),
        {"n1": None, "n3": None},
    ),
    ("balanced domains accept either", spread(), WEB, cluster(1, 1), {"n1": None, "n3": None}),
    (
        "minDomains above the domain count makes the minimum 0",
        spread(minDomains=3),
        WEB,
        cluster(1, 1),
        {"n1": SKEW, "n3": SKEW},
    ),
    (
        "an empty selector counts nothing (but the pod matches it)",
        spread(selector={}),
        WEB,
        cluster(5, 0),
        {"n1": None},
    ),
    (
        "terminating pods are not counted",
        spread(),
        WEB,
        cluster(2, 0, deletionTimestamp="2025-01-01T00:00:00Z"),
        {"n1": None},
    ),
    (
        "pods of other namespaces are not counted",
        spread(),
        WEB,
        cluster(2, 0, ns="other"),
        {"n1": None},
    ),
    (
        "matchLabelKeys narrows the selector to the pod's value",
        spread(matchLabelKeys=["version"]),
        {**WEB, "version": "v2"},
        cluster(2, 0),
        {"n1": None},
    ),
]


@pytest.mark.parametrize(
    ("name", "spec", "labels", "nodes", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_filter(
    name: str,
    spec: dict[str, Any],
    labels: dict[str, str],
    nodes: list[NodeInfo],
    expected: dict[str, str | None],
) -> None:
    p = pod("new", labels=labels, spec=spec)
    plugin, state = PodTopologySpread(None), CycleState()  # type: ignore[arg-type]
    plugin.pre_filter(state, p, nodes)
    by_name = {ni.name: ni for ni in nodes}
    for name_, reason in expected.items():
        status = plugin.filter(state, p, by_name[name_])
        assert (status.reasons[0] if status else None) == reason, name_
        assert pod_topology_spread.fits(p, by_name[name_], nodes) is (reason is None)
        if status is not None:
            want = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if reason == MISSING else Code.UNSCHEDULABLE
            assert status.code is want


def test_node_affinity_policy_honor_ignores_nodes_the_pod_cannot_use() -> None:
    nodes = cluster(1, 0)
    honor = pod("new", labels=WEB, spec={**spread(), "nodeSelector": {"zone": "a"}})
    ignore = pod(
        "new",
        labels=WEB,
        spec={**spread(nodeAffinityPolicy="Ignore"), "nodeSelector": {"zone": "a"}},
    )
    assert pod_topology_spread.fits(honor, nodes[1], nodes)  # only zone a counts: 1 + 1 − 1
    assert not pod_topology_spread.fits(ignore, nodes[1], nodes)  # zone b (0) counts: 1 + 1 − 0


def test_node_taints_policy_honor_ignores_tainted_nodes() -> None:
    nodes = cluster(1, 0)
    nodes[2] = node_info(
        node("n3", labels={"zone": "b"}, taints=[{"key": "k", "effect": "NoSchedule"}])
    )
    honor = pod("new", labels=WEB, spec=spread(nodeTaintsPolicy="Honor"))
    ignore = pod("new", labels=WEB, spec=spread())
    assert pod_topology_spread.fits(honor, nodes[1], nodes)
    assert not pod_topology_spread.fits(ignore, nodes[1], nodes)


def test_score_prefers_the_emptier_domain() -> None:
    cache, snapshot = Cache(), Snapshot()
    cache.add_node(node("n1", labels={"zone": "a"}))
    cache.add_node(node("n3", labels={"zone": "b"}))
    for i in range(2):
        cache.add_pod(pod(f"w{i}", labels=WEB, node="n1"))
    cache.update_snapshot(snapshot)
    handle = type("H", (), {"snapshot_shared_lister": lambda self: snapshot})()
    plugin, state = PodTopologySpread(handle), CycleState()
    p = pod("new", labels=WEB, spec=spread("ScheduleAnyway"))
    nodes = list(snapshot.list())
    assert plugin.pre_score(state, p, nodes) is None
    # weight ln(2 domains + 2); n1: round(2·1.386 + 0) = 3, n3: 0 → 100·(3+0−s)/3
    scores = [NodeScore(ni.name, plugin.score(state, p, ni)[0]) for ni in nodes]
    assert {s.name: s.score for s in scores} == {"n1": 3, "n3": 0}
    plugin.normalize_score(state, p, scores)
    assert {s.name: s.score for s in scores} == {"n1": 0, "n3": 100}


def test_pods_without_constraints_skip_both_filter_and_score() -> None:
    plugin = PodTopologySpread(None)  # type: ignore[arg-type]
    _, status = plugin.pre_filter(CycleState(), pod(), [])
    assert status is not None and status.code is Code.SKIP


@pytest.mark.parametrize(
    ("expression", "why"),
    [
        ({"key": "app", "operator": "In", "values": []}, "values set can't be empty"),
        ({"key": "app", "operator": "Exists", "values": ["web"]}, "values set must be empty"),
        ({"key": "app", "operator": "Near"}, "'Near' is not a valid label selector operator"),
    ],
)
def test_an_invalid_hard_selector_is_a_prefilter_error(
    expression: dict[str, Any], why: str
) -> None:
    # filterTopologySpreadConstraints: LabelSelectorAsSelector's error fails PreFilter with Error,
    # on every node, instead of the selector counting nothing.
    nodes = cluster(0, 0)
    p = pod("new", labels=WEB, spec=spread(selector={"matchExpressions": [expression]}))
    _, status = PodTopologySpread(None).pre_filter(CycleState(), p, nodes)  # type: ignore[arg-type]
    assert status is not None and status.code is Code.ERROR
    assert status.reasons[0].startswith("get constraints from pod: topologySpreadConstraints[0]")
    assert why in status.reasons[0]
    assert not any(pod_topology_spread.fits(p, ni, nodes) for ni in nodes)
    soft = pod("new", labels=WEB, spec=spread("ScheduleAnyway", {"matchExpressions": [expression]}))
    assert PodTopologySpread(None).pre_filter(CycleState(), soft, nodes)[1].code is Code.SKIP  # type: ignore[arg-type,union-attr]
