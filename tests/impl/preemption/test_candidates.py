"""Choosing the node to preempt on (``pickOneNodeForPreemption``) and who may preempt at all."""

from __future__ import annotations

import pytest
from world import World, node, pdb, pod

from schedspec.impl.api import pod_from_dict
from schedspec.impl.framework.status import Code
from schedspec.impl.preemption import Candidate, pick_one_node_for_preemption

T0, T1 = "2025-09-14T08:00:00Z", "2025-09-14T09:00:00Z"


def _victim(name: str, priority: int, start: str | None = None) -> object:
    return pod_from_dict(pod(name, priority=priority, node="x", start=start))


def _candidate(node_name: str, victims: list[tuple[int, str | None]], pdb: int = 0) -> Candidate:
    pods = tuple(_victim(f"{node_name}-{i}", p, s) for i, (p, s) in enumerate(victims))
    return Candidate(node_name, pods, pdb)  # type: ignore[arg-type]


# each case: the winner ("b") loses on every rule after the one that decides
RULES = [
    (
        "fewest PDB violations",
        [_candidate("a", [(1, None)], pdb=1), _candidate("b", [(5, T0), (5, T0)], pdb=0)],
    ),
    (
        "lowest highest-priority victim",
        [_candidate("a", [(5, None)]), _candidate("b", [(4, T0), (4, T0), (4, T0)])],
    ),
    (
        "smallest sum of priorities",
        [_candidate("a", [(5, None), (4, None)]), _candidate("b", [(5, T0), (1, T0)])],
    ),
    (
        "sum of negative priorities: fewer is smaller",
        [_candidate("a", [(-5, None), (-5, None)]), _candidate("b", [(-5, T0)])],
    ),
    (
        "fewest victims",
        [
            _candidate("a", [(0, None), (-(2**31), None)]),  # same sum once shifted by 2^31
            _candidate("b", [(0, T0)]),
        ],
    ),
    (
        "latest start of the highest-priority victims",
        [_candidate("a", [(5, T0), (1, T1)]), _candidate("b", [(5, T1), (1, T0)])],
    ),
    (
        "first candidate when all else ties",
        [_candidate("b", [(5, T0)]), _candidate("a", [(5, T0)])],
    ),
]


@pytest.mark.parametrize(("rule", "candidates"), RULES, ids=[r[0] for r in RULES])
def test_pick_one_node_for_preemption(rule: str, candidates: list[Candidate]) -> None:
    best = pick_one_node_for_preemption(candidates)
    assert best is not None and best.node == "b"


def test_fewest_pdb_violations_wins_end_to_end() -> None:
    # n1's only victim is guarded by a budget with no disruption left; n2 needs two victims
    w = World(
        [node("n1", cpu="1"), node("n2", cpu="2")],
        [
            pod("guarded", priority=1, node="n1", labels={"app": "db"}),
            pod("w1", priority=1, node="n2"),
            pod("w2", priority=1, node="n2"),
            pod("p", cpu="1", priority=10),
        ],
        [pdb("db", {"app": "db"}, allowed=0)],
    )
    result, status = w.preempt("p")
    assert status is None and result is not None
    # n2 needs only one of its two pods evicted for a 1-cpu pod: no violation there
    assert result.nominated_node_name == "n2"
    assert w.preemption.evaluator.log[-1].victims in (("default/w1",), ("default/w2",))


def test_latest_start_time_of_the_highest_priority_victim_wins_end_to_end() -> None:
    w = World(
        [node("n1", cpu="1"), node("n2", cpu="1")],
        [
            pod("early", priority=1, node="n1", start=T0),
            pod("late", priority=1, node="n2", start=T1),
            pod("p", cpu="1", priority=10),
        ],
    )
    result, _ = w.preempt("p")
    assert result is not None and result.nominated_node_name == "n2"
    assert w.api.get("Pod", "default/late") is None  # evicted
    assert w.api.get("Pod", "default/early") is not None


def test_preemption_policy_never_is_not_eligible() -> None:
    w = World(
        [node("n", cpu="1")],
        [
            pod("low", priority=1, node="n"),
            pod("p", priority=10, spec={"preemptionPolicy": "Never"}),
        ],
    )
    result, status = w.preempt("p")
    assert result is None and status is not None and status.code is Code.UNSCHEDULABLE
    assert status.message() == "preemption: not eligible due to preemptionPolicy=Never."
    assert w.api.get("Pod", "default/low") is not None


BY_SCHEDULER = {
    "conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}
    ]
}


@pytest.mark.parametrize(
    ("condition", "eligible"),
    [(BY_SCHEDULER, False), ({}, True)],
    ids=["victim terminating by preemption: wait", "terminating for another reason: preempt"],
)
def test_a_nominated_pod_waits_for_its_terminating_victims(
    condition: dict[str, object], eligible: bool
) -> None:
    w = World(
        [node("n", cpu="1")],
        [
            pod("victim", priority=1, node="n", status=condition, deletionTimestamp=T1),
            pod("p", priority=10, status={"nominatedNodeName": "n"}),
        ],
    )
    result, status = w.preempt("p")
    if eligible:
        assert status is None and result is not None and result.nominated_node_name == "n"
    else:
        assert result is None  # the nomination is kept
        assert status is not None and status.message() == (
            "preemption: not eligible due to a terminating pod on the nominated node."
        )


def test_unschedulable_and_unresolvable_nodes_are_not_tried() -> None:
    # n1 is tainted (no victim can fix that); only n2 may be preempted on
    tainted = node("n1", cpu="1")
    tainted["spec"] = {"taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]}
    w = World(
        [tainted, node("n2", cpu="1")],
        [
            pod("on-n1", priority=1, node="n1", start=T1),
            pod("on-n2", priority=1, node="n2", start=T0),
            pod("p", priority=10),
        ],
    )
    result, _ = w.preempt("p")
    assert result is not None and result.nominated_node_name == "n2"
    assert w.api.get("Pod", "default/on-n1") is not None


def test_preemption_that_cannot_help_clears_the_nomination() -> None:
    tainted = node("n1", cpu="1")
    tainted["spec"] = {"taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]}
    w = World(
        [tainted],
        [
            pod("low", priority=1, node="n1"),
            pod("p", priority=10, status={"nominatedNodeName": "n1"}),
        ],
    )
    result, status = w.preempt("p")
    assert result is not None and result.nominated_node_name == ""
    assert status is not None and status.message() == (
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )


def test_lower_priority_nominations_on_the_node_are_cleared() -> None:
    w = World(
        [node("n", cpu="2")],
        [
            pod("low", cpu="2", priority=1, node="n"),
            pod("nominated-lower", priority=5, status={"nominatedNodeName": "n"}),
            pod("nominated-higher", priority=50, status={"nominatedNodeName": "n"}),
            pod("p", cpu="1", priority=10),
        ],
    )
    w.nominate("nominated-lower", "n")
    w.nominate("nominated-higher", "n")
    result, _ = w.preempt("p")
    assert result is not None and result.nominated_node_name == "n"
    lower = w.api.get("Pod", "default/nominated-lower")
    higher = w.api.get("Pod", "default/nominated-higher")
    assert lower is not None and "nominatedNodeName" not in lower["status"]
    assert higher is not None and higher["status"]["nominatedNodeName"] == "n"
