"""Similar node groups and BalanceScaleUpBetweenGroups (docs/autoscaler.md, scale-up step 6)."""

from __future__ import annotations

from typing import Any

import pytest
from ca_builders import group, node, pod, run, template

from schedspec.impl.api import pod_from_dict
from schedspec.impl.autoscaler.nodegroupset import balance_scale_up_between_groups, is_similar


@pytest.mark.parametrize(
    ("groups", "new", "plan"),
    [
        ([("a", 1, 5), ("b", 3, 5)], 4, {"a": (1, 4), "b": (3, 4)}),  # fill a up to b, then turns
        ([("a", 2, 5), ("b", 2, 5)], 3, {"a": (2, 4), "b": (2, 3)}),  # remainder to the first
        ([("a", 4, 5), ("b", 4, 5)], 5, {"a": (4, 5), "b": (4, 5)}),  # excess dropped
        ([("a", 0, 1), ("b", 0, 10)], 4, {"a": (0, 1), "b": (0, 3)}),  # a stops at its max
        ([("a", 5, 5), ("b", 0, 2)], 1, {"b": (0, 1)}),  # a group at max takes nothing
    ],
    ids=["water-fill", "remainder", "excess", "max", "full"],
)
def test_balance(
    groups: list[tuple[str, int, int]], new: int, plan: dict[str, tuple[int, int]]
) -> None:
    infos = balance_scale_up_between_groups(groups, new)
    assert {i.group: (i.current, i.new) for i in infos} == plan


def _similar(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return is_similar(a, [], b, [])


def test_identical_templates_are_similar_whatever_their_hostname_and_zone() -> None:
    assert _similar(
        template("a", labels={"topology.kubernetes.io/zone": "z1"}),
        template("b", labels={"topology.kubernetes.io/zone": "z2"}),
    )


@pytest.mark.parametrize(
    ("other", "similar"),
    [
        (template("b", mem="4040Mi"), True),  # memory 1.4 % off
        (template("b", mem="4200Mi"), False),  # memory 2.5 % off
        (template("b", cpu="3"), False),  # other capacity must be equal
        (template("b", labels={"team": "x"}), False),  # labels compared
        (template("b", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]), True),
    ],
    ids=["memory-within", "memory-off", "cpu", "labels", "taints-ignored"],
)
def test_similarity(other: dict[str, Any], similar: bool) -> None:
    assert _similar(template("a"), other) is similar


def test_free_room_after_template_pods_is_compared() -> None:
    ds = pod("ds", "500m", owner="DaemonSet")
    assert is_similar(template("a"), [], template("b"), []) is True
    assert is_similar(template("a"), [pod_from_dict(ds)], template("b"), []) is False


def test_balancing_splits_the_plan_over_similar_groups() -> None:
    # 4 pods of 1500m need 4 nodes; a has 1 node, b 3: a is filled up to b, then they alternate
    objects = [node("a1", "1"), *(node(f"b{i}", "1") for i in (1, 2, 3))]
    objects += [pod(f"p{i}", "1500m") for i in range(4)]
    groups = (group("a", nodes=("a1",)), group("b", nodes=("b1", "b2", "b3")))
    up = run(objects, *groups, balance_similar_node_groups=True).scale_up
    assert up.plan == {"a": (1, 4), "b": (3, 4)}
    message = "pod triggered scale-up: [{a 1->4 (max: 10)} {b 3->4 (max: 10)}]"
    assert up.pods["default/p0"].message == message
    unbalanced = run(objects, *groups).scale_up
    assert len(unbalanced.plan) == 1 and sum(b - a for a, b in unbalanced.plan.values()) == 4


def test_a_group_that_does_not_take_every_pod_is_not_similar() -> None:
    objects = [pod("p", "1500m", spec={"nodeSelector": {"team": "x"}})]
    groups = (group("a", tmpl=template("a", labels={"team": "x"})), group("b"))
    up = run(objects, *groups, balance_similar_node_groups=True).scale_up
    assert up.plan == {"a": (0, 1)}
