"""Seed 003's server/database example end to end: the database preempts and is nominated; the
server, which needs the database on its node, must not take the database's reservation as if
the database were already there (pass 2 of the filter), so it waits instead of preempting."""

from __future__ import annotations

import yaml
from world import affinity, anti_affinity, node, pod

from schedspec.cluster import loads
from schedspec.impl import simulate


def _cluster(server_spec: dict[str, object], filler_2_priority: int = 0) -> str:
    filler_2 = pod("filler-2", cpu="2", node="n2", priority=filler_2_priority)
    docs = [
        {"apiVersion": "v1", "kind": "Node", **node("n1", cpu="2")},
        {"apiVersion": "v1", "kind": "Node", **node("n2", cpu="2")},
        {"apiVersion": "v1", "kind": "Pod", **pod("filler-1", cpu="2", node="n1")},
        {"apiVersion": "v1", "kind": "Pod", **filler_2},
        {"apiVersion": "v1", "kind": "Pod", **pod("db", priority=100, labels={"app": "db"})},
        {
            "apiVersion": "v1",
            "kind": "Pod",
            **pod("server", priority=50, labels={"app": "server"}, spec=server_spec),
        },
    ]
    for doc in docs[2:]:
        doc.pop("status", None)
        doc["metadata"].pop("uid", None)
    return yaml.safe_dump_all(docs)


def test_server_waits_for_its_database_instead_of_preempting() -> None:
    result = simulate(loads(_cluster(affinity({"app": "db"}))), seed=3)
    db_node = result.bindings["default/db"]
    assert result.bindings["default/server"] == db_node  # co-located, as its affinity asks
    assert result.nominations == {"default/db": db_node}  # the server never preempted
    filler = "default/filler-1" if db_node == "n1" else "default/filler-2"
    assert result.preempted == (filler,)  # one eviction in all, for the database


def test_a_pod_avoiding_the_database_does_not_take_its_reservation() -> None:
    # filler-2 outranks the server, so only n1 (the database's reservation) could take it:
    # pass 1 counts the nominated database there, and the server stays pending
    result = simulate(loads(_cluster(anti_affinity({"app": "db"}), filler_2_priority=60)))
    assert result.bindings == {"default/db": "n1"}  # n1's victim has the lowest priority
    assert result.preempted == ("default/filler-1",)
    assert result.nominations == {"default/db": "n1"}
    server = result.unschedulable["default/server"]
    assert "didn't match pod anti-affinity rules" in server.message
