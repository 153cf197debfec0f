"""Nominated pods: the two-pass filter and the nominated-node fast path."""

from __future__ import annotations

import yaml
from preemption.world import World, affinity, node, pod

from schedspec.cluster import loads
from schedspec.impl import simulate
from schedspec.impl.framework.status import Code


def test_pass_two_rejects_what_pass_one_would_accept_affinity() -> None:
    # seed 003: the server needs a database on its node; the database is only nominated there.
    # Pass 1 pretends it runs (affinity satisfied); pass 2 sees it does not, so n is rejected.
    w = World(
        [node("n")],
        [
            pod("db", priority=100, labels={"app": "db"}, status={"nominatedNodeName": "n"}),
            pod("server", priority=50, spec=affinity({"app": "db"})),
        ],
    )
    w.nominate("db", "n")
    status = w.filter(w.pod("server"), "n")
    assert status is not None and status.plugin == "InterPodAffinity"
    assert status.message() == "node(s) didn't match pod affinity rules"


def test_pass_one_rejects_what_pass_two_would_accept_resources() -> None:
    # a higher-priority pod nominated to n reserves its 3 cpu: 2 more do not fit in 4
    w = World(
        [node("n", cpu="4")],
        [pod("big", cpu="3", priority=100), pod("small", cpu="2", priority=1)],
    )
    assert w.filter(w.pod("small"), "n") is None  # nothing nominated yet
    w.nominate("big", "n")
    status = w.filter(w.pod("small"), "n")
    assert status is not None and status.code is Code.UNSCHEDULABLE
    assert status.message() == "Insufficient cpu"


def test_only_nominated_pods_of_equal_or_higher_priority_reserve_room() -> None:
    w = World(
        [node("n", cpu="4")],
        [pod("big", cpu="3", priority=1), pod("small", cpu="2", priority=100)],
    )
    w.nominate("big", "n")
    assert w.filter(w.pod("small"), "n") is None  # it may take room freed for a lesser pod
    w.nominate("small", "n")
    assert w.filter(w.pod("small"), "n") is None  # its own nomination does not count


def _docs(hint: str | None) -> str:
    status = {"nominatedNodeName": hint} if hint else {}
    docs = [
        {"apiVersion": "v1", "kind": "Node", **node("empty", cpu="8")},
        {"apiVersion": "v1", "kind": "Node", **node("busy", cpu="8")},
        {"apiVersion": "v1", "kind": "Pod", **pod("tenant", cpu="6", node="busy")},
        {"apiVersion": "v1", "kind": "Pod", **pod("p", cpu="1", status=status)},
    ]
    for doc in docs[2:]:
        doc["metadata"].pop("uid")
    return yaml.safe_dump_all(docs)


def test_a_nominated_node_that_fits_is_taken_without_scoring() -> None:
    assert simulate(loads(_docs(None))).bindings["default/p"] == "empty"  # scoring's choice
    # a nominatedNodeName set by another component is honoured as a hint
    assert simulate(loads(_docs("busy"))).bindings["default/p"] == "busy"


def test_a_nominated_node_that_does_not_fit_falls_back_to_the_search() -> None:
    docs = _docs("busy").replace("cpu: '1'", "cpu: '3'")
    assert simulate(loads(docs)).bindings["default/p"] == "empty"
