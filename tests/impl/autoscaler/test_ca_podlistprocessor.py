"""Which pending pods a scale-up is for (docs/autoscaler.md, scale-up step 1)."""

from __future__ import annotations

from typing import Any

import pytest
from ca_builders import group, node, pod, run


def test_expendable_cutoff_is_strict() -> None:
    # -10 is the cutoff itself: not expendable; -11 is below it
    result = run(
        [node("n1", "1"), pod("at", "2", priority=-10), pod("below", "2", priority=-11)],
        group("g"),
    ).scale_up
    assert result.dropped == {"default/below": "expendable"}
    assert result.unschedulable == ("default/at",)


def test_bound_expendable_pods_leave_their_room_free() -> None:
    objects = [node("n1", "1"), pod("old", "1", on="n1", priority=-100), pod("new", "1")]
    result = run(objects, group("g")).scale_up
    assert result.placed_existing == {"default/new": "n1"}
    assert result.unschedulable == ()


def test_nominated_pod_is_placed_unchecked_and_takes_the_room() -> None:
    # "waiting" is nominated to n1 (which it does not fit); it still fills n1 for "later"
    objects = [
        node("n1", "1"),
        pod("waiting", "800m", status={"nominatedNodeName": "n1"}),
        pod("later", "500m"),
    ]
    result = run(objects, group("g")).scale_up
    assert result.dropped == {"default/waiting": "nominated"}
    assert result.placed_existing == {}
    assert result.unschedulable == ("default/later",)


def test_nomination_to_a_missing_node_keeps_the_pod_a_candidate() -> None:
    objects = [node("n1", "1"), pod("p", "500m", status={"nominatedNodeName": "gone"})]
    result = run(objects, group("g")).scale_up
    assert result.dropped == {}
    assert result.placed_existing == {"default/p": "n1"}


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({"spec": {"schedulingGates": [{"name": "wait"}]}}, "gated"),
        ({"meta": {"deletionTimestamp": "2025-01-01T00:00:00Z"}}, "terminating"),
    ],
    ids=["gated", "terminating"],
)
def test_listing_drops(extra: dict[str, Any], reason: str) -> None:
    result = run([node("n1", "1"), pod("p", "4", **extra)], group("g")).scale_up
    assert result.dropped == {"default/p": reason}
    assert result.unschedulable == ()


def test_daemonset_pod_dropped_only_after_filter_out_schedulable() -> None:
    objects = [
        node("n1", "1"),
        pod("fits", "500m", owner="DaemonSet"),
        pod("big", "2", owner="DaemonSet"),
    ]
    result = run(objects, group("g")).scale_up
    assert result.placed_existing == {"default/fits": "n1"}
    assert result.dropped == {"default/big": "daemonset"}


def test_filter_out_schedulable_places_higher_priority_first() -> None:
    # one slot of 1 cpu: listed first but lower priority, "low" loses it to "high"
    objects = [
        node("n1", "1"),
        pod("low", "1", priority=1),
        pod("high", "1", priority=100),
        pod("tie-a", "1", priority=1),
    ]
    result = run(objects, group("g")).scale_up
    assert result.placed_existing == {"default/high": "n1"}
    assert result.unschedulable == ("default/low", "default/tie-a")  # ties keep input order


def test_filter_out_schedulable_is_first_fit_in_node_name_order_and_cumulative() -> None:
    objects = [
        node("b", "1"),
        node("a", "1"),
        pod("p1", "600m"),
        pod("p2", "600m"),
        pod("p3", "600m"),
    ]
    result = run(objects, group("g")).scale_up
    assert list(result.placed_existing.items()) == [("default/p1", "a"), ("default/p2", "b")]
    assert result.unschedulable == ("default/p3",)


def test_unschedulable_node_is_passed_over() -> None:
    objects = [node("a", "4", unschedulable=True), node("b", "1"), pod("p", "500m")]
    result = run(objects, group("g")).scale_up
    assert result.placed_existing == {"default/p": "b"}
