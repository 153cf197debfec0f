"""InterPodAffinity's PreFilter counts and PreScore topology scores kept from cycle to cycle
(``affinity_sums``) equal a full walk over every existing pod after every change: pods with
affinity, anti-affinity and preferred terms bound, deleted and relabelled, a node relabelled."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from impl_builders import node, pod

from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.framework import CycleState, NodeInfo
from schedspec.impl.plugins import inter_pod_affinity as ipa
from schedspec.impl.plugins.inter_pod_affinity import InterPodAffinity


def _term(labels: dict[str, str], key: str) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key}


def _affine(kind: str, labels: dict[str, str], key: str, preferred: bool = False) -> dict[str, Any]:
    term = _term(labels, key)
    if preferred:
        return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 7, "podAffinityTerm": term}]}}  # fmt: skip
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


BLUE, GREEN = {"color": "blue"}, {"color": "green"}
INCOMING = {
    "affinity": {
        **_affine("podAffinity", BLUE, "zone"),
        **_affine("podAntiAffinity", GREEN, "kubernetes.io/hostname"),
    }
}


class _Lister:
    """The snapshot without its change log: the plugin then walks every pod."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def list(self) -> list[NodeInfo]:
        return list(self.snapshot.list())

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return list(self.snapshot.have_pods_with_affinity_list())

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return list(self.snapshot.have_pods_with_required_anti_affinity_list())

    def get(self, name: str) -> NodeInfo | None:
        return self.snapshot.get(name)


def _plugin(lister: object) -> InterPodAffinity:
    handle = type(
        "H", (), {"snapshot_shared_lister": lambda _: lister, "namespaces": lambda _: []}
    )()
    return InterPodAffinity(handle)  # type: ignore[arg-type]


class _Run:
    def __init__(self) -> None:
        self.cache, self.snapshot = Cache(), Snapshot()
        self.kept, self.full = _plugin(self.snapshot), _plugin(_Lister(self.snapshot))
        self.incoming = pod("new", labels=BLUE, spec=INCOMING)

    def cycle(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """(kept, full): the three PreFilter counts and the PreScore topology score."""
        self.cache.update_snapshot(self.snapshot)
        out = []
        for plugin, nodes in ((self.kept, self.snapshot.list()), (self.full, None)):
            state = CycleState()
            listed = nodes if nodes is not None else plugin._handle.snapshot_shared_lister().list()
            plugin.pre_filter(state, self.incoming, listed)
            plugin.pre_score(state, self.incoming, listed)
            f = state.read_as("PreFilterInterPodAffinity", ipa._PreFilterState)
            sc = state.read_as("PreScoreInterPodAffinity", ipa._PreScoreState)
            counts = (
                (f.existing_anti_affinity_counts, f.affinity_counts, f.anti_affinity_counts)
                if f
                else None
            )
            out.append((counts, sc.topology_score if sc else None))
        return out[0], out[1]


def test_kept_sums_follow_every_change() -> None:
    run = _Run()
    for i, zone in enumerate(("a", "a", "b")):
        run.cache.add_node(node(f"n{i}", labels={"zone": zone, "kubernetes.io/hostname": f"n{i}"}))
    repels = {"affinity": _affine("podAntiAffinity", BLUE, "zone")}
    likes = {"affinity": _affine("podAffinity", BLUE, "zone", preferred=True)}
    pods = [
        pod("b0", labels=BLUE, node="n0", spec={"affinity": _affine("podAffinity", BLUE, "zone")}),
        pod("g1", labels=GREEN, node="n1"),
        pod("r2", labels=GREEN, node="n2", spec=repels),
        pod("l1", labels={}, node="n1", spec=likes),
    ]
    for p in pods:
        run.cache.add_pod(p)
    kept, full = run.cycle()
    assert kept == full
    assert kept[0] is not None and kept[0][1] == {("zone", "a"): 1}  # b0 draws it to zone a

    run.cache.remove_pod(pods[0])
    run.cache.update_pod(pods[1], replace(pods[1], labels=BLUE))
    run.cache.add_pod(pod("g2", labels=GREEN, node="n2"))
    kept, full = run.cycle()
    assert kept == full
    assert kept[0] is not None and kept[0][1] == {("zone", "a"): 1}  # now g1, relabelled blue

    run.cache.update_node(node("n1", labels={"zone": "b", "kubernetes.io/hostname": "n1"}))
    kept, full = run.cycle()
    assert kept == full
