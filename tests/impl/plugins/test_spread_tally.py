"""PodTopologySpread's PreFilter counts kept from cycle to cycle (``spread_tally``) equal a
full count after every change of the cluster: pods bound and deleted, terminating, relabelled,
a node added, relabelled and removed."""

from __future__ import annotations

from dataclasses import replace

from impl_builders import node, pod

from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.framework import CycleState
from schedspec.impl.plugins import pod_topology_spread as pts
from schedspec.impl.plugins.pod_topology_spread import PodTopologySpread

WEB = {"app": "web"}
SPREAD = {
    "topologySpreadConstraints": [
        {
            "maxSkew": 1,
            "topologyKey": "zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": WEB},
        }
    ]
}


class _Run:
    """A cache, its snapshot and the plugin, one PreFilter per ``cycle``."""

    def __init__(self) -> None:
        self.cache, self.snapshot = Cache(), Snapshot()
        handle = type("H", (), {"snapshot_shared_lister": lambda _: self.snapshot})()
        self.plugin = PodTopologySpread(handle)  # type: ignore[arg-type]
        self.incoming = pod("new", labels=WEB, spec=SPREAD)

    def cycle(self) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
        """(the kept counts, a full count) on the refreshed snapshot."""
        self.cache.update_snapshot(self.snapshot)
        nodes = self.snapshot.list()
        state = CycleState()
        self.plugin.pre_filter(state, self.incoming, nodes)
        kept = state.read_as("PreFilterPodTopologySpread", pts._PreFilterState)
        assert kept is not None
        constraints = pts._constraints(self.incoming, "DoNotSchedule")
        return kept.counts, pts._pre_filter_state(self.incoming, nodes, constraints).counts


def test_kept_counts_follow_every_change() -> None:
    run = _Run()
    for i, zone in enumerate(("a", "a", "b", "c")):
        run.cache.add_node(node(f"n{i}", labels={"zone": zone}))
    run.cache.add_node(node("bare"))  # no zone: not counted
    web = [pod(f"w{i}", labels=WEB, node=f"n{i % 4}") for i in range(6)]
    for p in web:
        run.cache.add_pod(p)
    run.cache.add_pod(pod("other", labels={"app": "db"}, node="n2"))
    kept, full = run.cycle()
    assert kept == full == [{"a": 4, "b": 1, "c": 1}]

    run.cache.add_pod(pod("w9", labels=WEB, node="n3"))  # bound
    run.cache.remove_pod(web[0])  # deleted
    run.cache.update_pod(web[1], replace(web[1], deletion_timestamp=1.0))  # terminating
    run.cache.update_pod(web[2], replace(web[2], labels={"app": "db"}))  # relabelled
    kept, full = run.cycle()
    assert kept == full == [{"a": 2, "b": 0, "c": 2}]

    run.cache.update_node(node("n2", labels={"zone": "c"}))  # node moved: counted afresh
    run.cache.add_node(node("n5", labels={"zone": "d"}))
    kept, full = run.cycle()
    assert kept == full == [{"a": 2, "c": 2, "d": 0}]

    run.cache.remove_node("n3")
    kept, full = run.cycle()
    assert kept == full


def test_a_pods_own_node_affinity_counts_in_full() -> None:
    """With a node selector to honour, which nodes count depends on the pod: nothing kept."""
    run = _Run()
    run.cache.add_node(node("n1", labels={"zone": "a", "disk": "ssd"}))
    run.cache.add_node(node("n2", labels={"zone": "b"}))
    run.cache.add_pod(pod("w", labels=WEB, node="n2"))
    run.incoming = pod("new", labels=WEB, spec={**SPREAD, "nodeSelector": {"disk": "ssd"}})
    kept, full = run.cycle()
    assert kept == full == [{"a": 0}]


def test_changed_since_names_the_replaced_nodes() -> None:
    cache, snapshot = Cache(), Snapshot()
    cache.add_node(node("n1"))
    cache.add_node(node("n2"))
    cache.update_snapshot(snapshot)
    start = snapshot.generation
    cache.add_pod(pod("p", node="n2"))
    cache.update_snapshot(snapshot)
    cache.update_snapshot(snapshot)
    assert snapshot.changed_since(start) == {"n2"}
    assert snapshot.changed_since(snapshot.generation) == set()
    cache.add_node(node("n3"))
    cache.update_snapshot(snapshot)
    assert snapshot.changed_since(start) is None  # the list was rebuilt
