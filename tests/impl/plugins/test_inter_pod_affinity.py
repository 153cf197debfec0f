"""InterPodAffinity: required affinity (all terms by one pod, first-pod exception), anti-affinity,
existing pods' anti-affinity, namespaces, nil vs empty selectors; preferred scoring."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.api import Pod
from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.framework import Code, CycleState, NodeInfo, NodeScore
from schedspec.impl.plugins import inter_pod_affinity
from schedspec.impl.plugins.inter_pod_affinity import InterPodAffinity

AFF = "node(s) didn't match pod affinity rules"
ANTI = "node(s) didn't match pod anti-affinity rules"
EXISTING = "node(s) didn't satisfy existing pods anti-affinity rules"
NAMESPACES = {
    "default": {"kubernetes.io/metadata.name": "default"},
    "other": {"kubernetes.io/metadata.name": "other", "team": "x"},
}


def term(labels: dict[str, str] | None, key: str = "zone", **extra: Any) -> dict[str, Any]:
    t: dict[str, Any] = {"topologyKey": key, **extra}
    if labels is not None:
        t["labelSelector"] = {"matchLabels": labels}
    return t


def affinity(kind: str, *terms: dict[str, Any]) -> dict[str, Any]:
    return {"affinity": {kind: {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}}


def nodes(*on_n1: Pod) -> list[NodeInfo]:
    return [
        node_info(node("n1", labels={"zone": "a", "host": "n1"}), *on_n1),
        node_info(node("n2", labels={"zone": "a", "host": "n2"})),
        node_info(node("n3", labels={"zone": "b", "host": "n3"})),
        node_info(node("n4", labels={"host": "n4"})),
    ]


DB = pod("db", labels={"app": "db"})
CASES: list[tuple[str, Pod, list[NodeInfo], dict[str, str | None]]] = [
    (
        "affinity: same zone as a matching pod",
        pod("p", spec=affinity("podAffinity", term({"app": "db"}))),
        nodes(DB),
        {"n1": None, "n2": None, "n3": AFF, "n4": AFF},
    ),
    (
        "first pod of a self-affine group may go anywhere with the key",
        pod("p", labels={"app": "db"}, spec=affinity("podAffinity", term({"app": "db"}))),
        nodes(),
        {"n1": None, "n3": None, "n4": AFF},
    ),
    (
        "no exception for a pod that does not match its own terms",
        pod("p", spec=affinity("podAffinity", term({"app": "db"}))),
        nodes(),
        {"n1": AFF},
    ),
    (
        "one existing pod must match all the terms",
        pod("p", spec=affinity("podAffinity", term({"app": "db"}), term({"tier": "be"}))),
        nodes(pod("x", labels={"app": "db"}), pod("y", labels={"tier": "be"})),
        {"n1": AFF, "n2": AFF},
    ),
    (
        "namespaces default to the pod's own",
        pod("p", spec=affinity("podAffinity", term({"app": "db"}))),
        nodes(pod("db", ns="other", labels={"app": "db"})),
        {"n2": AFF},
    ),
    (
        "listed namespaces",
        pod("p", spec=affinity("podAffinity", term({"app": "db"}, namespaces=["other"]))),
        nodes(pod("db", ns="other", labels={"app": "db"})),
        {"n2": None},
    ),
    (
        "an empty namespaceSelector selects every namespace",
        pod("p", spec=affinity("podAffinity", term({"app": "db"}, namespaceSelector={}))),
        nodes(pod("db", ns="other", labels={"app": "db"})),
        {"n2": None},
    ),
    (
        "namespaceSelector against Namespace labels",
        pod(
            "p",
            spec=affinity(
                "podAffinity", term({"app": "db"}, namespaceSelector={"matchLabels": {"team": "x"}})
            ),
        ),
        nodes(pod("db", ns="other", labels={"app": "db"})),
        {"n2": None, "n3": AFF},
    ),
    (
        "a nil labelSelector matches no pod",
        pod("p", spec=affinity("podAffinity", term(None))),
        nodes(DB),
        {"n1": AFF},
    ),
    (
        "an empty labelSelector matches every pod of the namespace",
        pod("p", spec=affinity("podAffinity", {"topologyKey": "zone", "labelSelector": {}})),
        nodes(DB),
        {"n2": None, "n3": AFF},
    ),
    (
        "anti-affinity by host",
        pod("p", spec=affinity("podAntiAffinity", term({"app": "db"}, "host"))),
        nodes(DB),
        {"n1": ANTI, "n2": None},
    ),
    (
        "anti-affinity by zone",
        pod("p", spec=affinity("podAntiAffinity", term({"app": "db"}))),
        nodes(DB),
        {"n1": ANTI, "n2": ANTI, "n3": None},
    ),
    (
        "anti-affinity is satisfied on a node without the key",
        pod("p", spec=affinity("podAntiAffinity", term({"app": "db"}))),
        nodes(DB),
        {"n4": None},
    ),
    (
        "existing pods' required anti-affinity repels the pod",
        pod("p", labels={"app": "web"}),
        nodes(pod("guard", spec=affinity("podAntiAffinity", term({"app": "web"}, "host")))),
        {"n1": EXISTING, "n2": None},
    ),
]


@pytest.mark.parametrize(("name", "p", "infos", "expected"), CASES, ids=[c[0] for c in CASES])
def test_filter(name: str, p: Pod, infos: list[NodeInfo], expected: dict[str, str | None]) -> None:
    by_name = {ni.name: ni for ni in infos}
    for node_name, reason in expected.items():
        assert inter_pod_affinity.fits(p, by_name[node_name], infos, NAMESPACES) is (
            reason is None
        ), node_name
        cache, snapshot = Cache(), Snapshot()
        for ni in infos:
            assert ni.node is not None
            cache.add_node(ni.node)
            for info in ni.pods:
                cache.add_pod(info.pod)
        cache.update_snapshot(snapshot)
        handle = _Handle(snapshot)
        plugin, state = InterPodAffinity(handle), CycleState()  # type: ignore[arg-type]
        _, pre = plugin.pre_filter(state, p, snapshot.list())
        if pre is not None:
            assert pre.code is Code.SKIP and reason is None
            continue
        status = plugin.filter(state, p, snapshot.get(node_name))  # type: ignore[arg-type]
        assert (status.reasons[0] if status else None) == reason
        if status is not None:
            want = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if reason == AFF else Code.UNSCHEDULABLE
            assert status.code is want


class _Handle:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def snapshot_shared_lister(self) -> Snapshot:
        return self.snapshot

    def namespaces(self) -> Any:
        return NAMESPACES.items()


def preferred(kind: str, weight: int, labels: dict[str, str]) -> dict[str, Any]:
    w = [{"weight": weight, "podAffinityTerm": term(labels)}]
    return {"affinity": {kind: {"preferredDuringSchedulingIgnoredDuringExecution": w}}}


SCORE_CASES = [
    (
        "preferred affinity: +weight in the matching pod's zone",
        pod("p", spec=preferred("podAffinity", 10, {"app": "db"})),
        DB,
        {"n1": 100, "n2": 100, "n3": 0},
    ),
    (
        "preferred anti-affinity: −weight, min-max normalized",
        pod("p", spec=preferred("podAntiAffinity", 10, {"app": "db"})),
        DB,
        {"n1": 0, "n2": 0, "n3": 100},
    ),
    (
        "existing pods' required affinity counts hardPodAffinityWeight",
        pod("p", labels={"app": "web"}),
        pod("fan", spec=affinity("podAffinity", term({"app": "web"}, "host"))),
        {"n1": 100, "n2": 0, "n3": 0},
    ),
]


@pytest.mark.parametrize(
    ("name", "p", "existing", "expected"), SCORE_CASES, ids=[c[0] for c in SCORE_CASES]
)
def test_score(name: str, p: Pod, existing: Pod, expected: dict[str, int]) -> None:
    cache, snapshot = Cache(), Snapshot()
    for ni in nodes()[:3]:
        assert ni.node is not None
        cache.add_node(ni.node)
    cache.add_pod(existing.assigned_to("n1"))
    cache.update_snapshot(snapshot)
    plugin, state = InterPodAffinity(_Handle(snapshot)), CycleState()  # type: ignore[arg-type]
    infos = list(snapshot.list())
    assert plugin.pre_score(state, p, infos) is None
    scores = [NodeScore(ni.name, plugin.score(state, p, ni)[0]) for ni in infos]
    plugin.normalize_score(state, p, scores)
    assert {s.name: s.score for s in scores} == expected
