"""The cache lifecycle: assume → add (confirm) / forget / expire; nodes; snapshots."""

from __future__ import annotations

import pytest
from impl_builders import node, pod

from schedspec.impl.cache import Cache, CacheError, NodeTree, Snapshot


def requested(cache: Cache, name: str) -> int:
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    ni = snapshot.get(name)
    assert ni is not None
    return ni.requested.get("cpu", 0)


def test_assumed_pod_counts_at_once_and_forget_frees_it() -> None:
    cache = Cache()
    cache.add_node(node("n"))
    p = pod("p", req={"cpu": "1"}).assigned_to("n")
    cache.assume_pod(p)
    assert cache.is_assumed(p) and requested(cache, "n") == 1000
    cache.forget_pod(p)
    assert not cache.is_assumed(p) and requested(cache, "n") == 0


def test_add_confirms_an_assumed_pod_without_double_counting() -> None:
    cache = Cache()
    cache.add_node(node("n"))
    p = pod("p", req={"cpu": "1"}).assigned_to("n")
    cache.assume_pod(p)
    cache.finish_binding(p, now=0.0)
    cache.add_pod(p)
    assert not cache.is_assumed(p) and requested(cache, "n") == 1000
    with pytest.raises(CacheError):
        cache.forget_pod(p)


def test_add_moves_an_assumed_pod_bound_elsewhere() -> None:
    cache = Cache()
    cache.add_node(node("a"))
    cache.add_node(node("b"))
    p = pod("p", req={"cpu": "1"})
    cache.assume_pod(p.assigned_to("a"))
    cache.add_pod(p.assigned_to("b"))
    assert requested(cache, "a") == 0 and requested(cache, "b") == 1000


def test_assumed_pods_expire_after_binding_finished_plus_ttl() -> None:
    cache = Cache(ttl=30.0)
    cache.add_node(node("n"))
    p = pod("p", req={"cpu": "1"}).assigned_to("n")
    cache.assume_pod(p)
    assert cache.cleanup_assumed_pods(now=100.0) == []  # binding not finished: never expires
    cache.finish_binding(p, now=100.0)
    assert cache.cleanup_assumed_pods(now=129.0) == []
    assert cache.cleanup_assumed_pods(now=130.0) == [p]
    assert requested(cache, "n") == 0


def test_terminal_pods_are_not_counted() -> None:
    cache = Cache()
    cache.add_node(node("n"))
    done = pod("done", req={"cpu": "1"}, node="n")
    cache.add_pod(
        type(done)(
            **{
                **{f: getattr(done, f) for f in ("name", "namespace", "uid", "containers")},
                "node_name": "n",
                "phase": "Succeeded",
            }
        )
    )
    assert requested(cache, "n") == 0


def test_pods_on_an_unknown_node_wait_for_it() -> None:
    cache, snapshot = Cache(), Snapshot()
    cache.add_pod(pod("p", req={"cpu": "1"}, node="late"))
    cache.update_snapshot(snapshot)
    assert snapshot.get("late") is None and len(snapshot) == 0
    cache.add_node(node("late"))
    assert requested(cache, "late") == 1000


def test_snapshot_is_refreshed_incrementally_and_isolated_from_the_cache() -> None:
    cache, snapshot = Cache(), Snapshot()
    for name in ("a", "b"):
        cache.add_node(node(name))
    cache.update_snapshot(snapshot)
    before = snapshot.get("a")
    cache.assume_pod(pod("p", req={"cpu": "1"}).assigned_to("a"))
    assert before is not None and before.requested.get("cpu", 0) == 0  # not until the next update
    cache.update_snapshot(snapshot)
    after = snapshot.get("a")
    assert after is not None and after is not before and after.requested["cpu"] == 1000
    assert snapshot.list()[0] is after


def test_node_tree_interleaves_zones() -> None:
    tree = NodeTree()
    for name, zone in [
        ("a1", "a"),
        ("a2", "a"),
        ("a3", "a"),
        ("b1", "b"),
        ("c1", "c"),
        ("c2", "c"),
    ]:
        tree.add(name, {"topology.kubernetes.io/zone": zone})
    assert tree.list() == ["a1", "b1", "c1", "a2", "c2", "a3"]
    tree.remove("b1")
    assert tree.list() == ["a1", "c1", "a2", "c2", "a3"]
