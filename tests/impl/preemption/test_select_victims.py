"""SelectVictimsOnNode: who is removed, who is reprieved, and in which order."""

from __future__ import annotations

from world import World, node, pdb, pod

from schedspec.impl.framework.status import Code

T0, T1, T2 = "2025-09-14T08:00:00Z", "2025-09-14T09:00:00Z", "2025-09-14T10:00:00Z"


def test_equal_priority_pods_are_never_victims() -> None:
    # n has one equal-priority pod (2 cpu) and one lower (2 cpu); p needs 3 of 4 cpu
    w = World(
        [node("n", cpu="4")],
        [
            pod("peer", cpu="2", priority=10, node="n"),
            pod("low", cpu="2", priority=5, node="n"),
            pod("p", cpu="3", priority=10),
        ],
    )
    victims, _, status = w.victims(w.pod("p"), "n")
    assert victims == [] and status is not None  # removing "low" alone is not enough
    assert "Insufficient cpu" in status.message()


def test_a_node_with_only_equal_or_higher_priority_pods_is_unresolvable() -> None:
    w = World(
        [node("n", cpu="2")],
        [pod("peer", cpu="2", priority=10, node="n"), pod("p", cpu="1", priority=10)],
    )
    victims, _, status = w.victims(w.pod("p"), "n")
    assert victims == [] and status is not None
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message() == "No preemption victims found for incoming pod"


def test_more_important_pods_are_reprieved_first() -> None:
    # three 1-cpu pods on a full 3-cpu node; p needs 2: one pod can stay
    w = World(
        [node("n", cpu="3")],
        [
            pod("old", priority=1, node="n", start=T0),
            pod("young", priority=1, node="n", start=T2),
            pod("important", priority=3, node="n", start=T1),
            pod("p", cpu="2", priority=10),
        ],
    )
    victims, violations, status = w.victims(w.pod("p"), "n")
    assert status is None and violations == 0
    assert victims == ["old", "young"]  # "important" reprieved; victims most important first


def test_at_equal_priority_the_earlier_started_pod_is_reprieved() -> None:
    w = World(
        [node("n", cpu="2")],
        [
            pod("young", priority=1, node="n", start=T2),
            pod("old", priority=1, node="n", start=T0),
            pod("p", cpu="1", priority=10),
        ],
    )
    assert w.victims(w.pod("p"), "n")[0] == ["young"]


def test_pdb_violating_pods_are_reprieved_before_the_others() -> None:
    # "guarded" is the less important pod, but evicting it would break its budget (0 allowed):
    # it is given back first, so the more important unguarded pod is the victim
    w = World(
        [node("n", cpu="2")],
        [
            pod("guarded", priority=1, node="n", labels={"app": "db"}),
            pod("unguarded", priority=5, node="n", labels={"app": "web"}),
            pod("p", cpu="1", priority=10),
        ],
        [pdb("db", {"app": "db"}, allowed=0)],
    )
    victims, violations, status = w.victims(w.pod("p"), "n")
    assert status is None
    assert (victims, violations) == (["unguarded"], 0)


def test_a_violating_victim_is_counted() -> None:
    w = World(
        [node("n", cpu="2")],
        [
            pod("a", priority=1, node="n", labels={"app": "db"}, start=T0),
            pod("b", priority=1, node="n", labels={"app": "db"}, start=T1),
            pod("p", cpu="2", priority=10),
        ],
        [pdb("db", {"app": "db"}, allowed=1)],
    )
    victims, violations, _ = w.victims(w.pod("p"), "n")
    assert victims == ["a", "b"] and violations == 1  # the budget allows one of the two


def test_a_budget_selects_only_its_namespace_and_pods_with_labels() -> None:
    w = World(
        [node("n", cpu="2")],
        [
            pod("other-ns", priority=1, node="n", labels={"app": "db"}, ns="prod"),
            pod("no-labels", priority=1, node="n"),
            pod("p", cpu="2", priority=10),
        ],
        [pdb("db", {"app": "db"}, allowed=0)],
    )
    victims, violations, _ = w.victims(w.pod("p"), "n")
    assert sorted(victims) == ["no-labels", "other-ns"] and violations == 0


def test_a_pdb_with_an_invalid_selector_protects_nobody() -> None:
    bad = pdb("db", {"app": "db"}, allowed=0)
    bad["spec"]["selector"] = {"matchExpressions": [{"key": "app", "operator": "Is"}]}
    w = World(
        [node("n", cpu="1")],
        [pod("db", priority=1, node="n", labels={"app": "db"}), pod("p", priority=10)],
        [bad],
    )
    assert w.victims(w.pod("p"), "n")[:2] == (["db"], 0)
