"""The scale-down planner: eligibility and utilization, the cumulative simulation, PDB budgets
across nodes, min sizes (docs/autoscaler.md, scale-down steps 1, 2, 4, 5)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from ca_builders import autoscaling, cluster, group, node, pdb, pod, run

from schedspec.impl.autoscaler import run_once

SPARE = node("spare", "8", "16Gi")  # in no group: a destination, never a candidate


@pytest.mark.parametrize(
    ("cpu", "mem", "util", "resource", "reason"),
    [
        ("1", None, Fraction(1, 2), "cpu", "NotUnderutilized"),  # exactly the threshold
        ("999m", None, Fraction(999, 2000), "cpu", ""),
        ("100m", "2Gi", Fraction(1, 2), "memory", "NotUnderutilized"),
        ("500m", "1Gi", Fraction(1, 4), "memory", ""),  # a tie names memory
    ],
    ids=["half-cpu", "just-under", "memory", "tie"],
)
def test_utilization(cpu: str, mem: str | None, util: Fraction, resource: str, reason: str) -> None:
    objects = [node("n1"), SPARE, pod("p", cpu, mem, on="n1")]
    verdict = run(objects, group("g", nodes=("n1",))).scale_down.nodes["n1"]
    assert (verdict.utilization, verdict.resource, verdict.reason) == (util, resource, reason)


def test_utilization_counts_init_containers_and_overhead_as_the_scheduler_does() -> None:
    # init container 1200m > app 100m: the pod requests 1200m + 100m overhead = 1300m
    init = {"name": "i", "image": "img", "resources": {"requests": {"cpu": "1200m"}}}
    spec = {"initContainers": [init], "overhead": {"cpu": "100m"}}
    objects = [node("n1"), SPARE, pod("p", "100m", on="n1", spec=spec)]
    verdict = run(objects, group("g", nodes=("n1",))).scale_down.nodes["n1"]
    assert verdict.utilization == Fraction(1300, 2000)


def test_gpu_node_is_judged_by_gpu_only() -> None:
    gpu = {"nvidia.com/gpu": "2"}
    p = pod("p", on="n1")
    p["spec"]["containers"][0]["resources"] = {
        "requests": {"nvidia.com/gpu": "1"},
        "limits": {"nvidia.com/gpu": "1"},
    }
    verdict = run([node("n1", extra=gpu), SPARE, p], group("g", nodes=("n1",))).scale_down.nodes[
        "n1"
    ]
    assert (verdict.utilization, verdict.resource) == (Fraction(1, 2), "nvidia.com/gpu")
    assert verdict.reason == "NotUnderutilized"


def _taint(value: str) -> list[dict[str, Any]]:
    return [{"key": "ToBeDeletedByClusterAutoscaler", "value": value, "effect": "NoSchedule"}]


@pytest.mark.parametrize(("age", "reason"), [(299, "CurrentlyBeingDeleted"), (300, "")])
def test_being_deleted_for_five_minutes(age: int, reason: str) -> None:
    objects = [node("n1", taints=_taint("1000")), SPARE]
    a = autoscaling(group("g", nodes=("n1",)))
    verdict = run_once(cluster(*objects), a, now=1000 + age).scale_down.nodes["n1"]
    assert verdict.reason == reason


@pytest.mark.parametrize(
    ("n1", "groups", "reason"),
    [
        (
            node(
                "n1", annotations={"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"}
            ),
            (group("g", nodes=("n1",)),),
            "ScaleDownDisabledAnnotation",
        ),
        (node("n1"), (), "NotAutoscaled"),
        (node("n1"), (group("g", nodes=("n1",), min_size=1),), "NodeGroupMinSizeReached"),
        # the candidates pre-filter (no group, min size) runs before eligibility's checks
        (
            node(
                "n1",
                taints=_taint("1000"),
                annotations={"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"},
            ),
            (),
            "NotAutoscaled",
        ),
        # being deleted wins over the annotation (first failing wins)
        (
            node(
                "n1",
                taints=_taint("1000"),
                annotations={"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"},
            ),
            (group("g", nodes=("n1",)),),
            "CurrentlyBeingDeleted",
        ),
    ],
    ids=["annotation", "no-group", "min-size", "pre-filter-first", "first-wins"],
)
def test_eligibility(n1: dict[str, Any], groups: tuple[Any, ...], reason: str) -> None:
    result = run_once(cluster(n1, SPARE), autoscaling(*groups), now=1000)
    verdict = result.scale_down.nodes["n1"]
    assert verdict.reason == reason
    assert verdict.utilization is None
    assert "n1" not in result.scale_down.order


def test_empty_nodes_are_candidates_first() -> None:
    objects = [node("a"), node("z"), SPARE, pod("p", "100m", on="a")]
    down = run(objects, group("g", nodes=("a", "z"))).scale_down
    assert down.order == ("z", "a")


def test_pdb_budget_is_spent_across_nodes() -> None:
    # one disruption allowed: n1's pod moves (to n2, first in name order) and spends it;
    # n2 then holds two pods of the budget and is blocked
    web = {"app": "web"}
    pods = [pod("a", "100m", on="n1", labels=web), pod("b", "100m", on="n2", labels=web)]
    objects = [node("n1"), node("n2"), SPARE, pdb("web", web, 1), *pods]
    down = run(objects, group("g", nodes=("n1", "n2"))).scale_down
    assert down.nodes["n1"].removable
    assert down.nodes["n1"].destinations == {"default/a": "n2"}
    assert down.nodes["n2"].blocking_pod == ("default/a", "NotEnoughPdb")


def test_no_place_to_move_pods() -> None:
    # n1's 900m fits neither n2 (1200m used of 2) nor anywhere else
    objects = [node("n1"), node("n2"), pod("a", "900m", on="n1"), pod("b", "1200m", on="n2")]
    down = run(objects, group("g", nodes=("n1", "n2"))).scale_down
    verdict = down.nodes["n1"]
    assert verdict.reason == "NoPlaceToMovePods"
    assert verdict.pods_to_move == ("default/a",)
    assert verdict.message == "can reschedule only 0 out of 1 pods (no place for default/a)"
    assert down.nodes["n2"].reason == "NotUnderutilized"


def test_moves_are_kept_for_the_nodes_after() -> None:
    # three nodes of 800m each: n1's pod goes to n2; n2 then has 1600m to place: n1 is gone,
    # n3 takes one 800m but not the second; n3's pod fits neither n2 (1600m) nor n1 (gone)
    objects = [node(f"n{i}") for i in (1, 2, 3)]
    objects += [pod(f"p{i}", "800m", on=f"n{i}") for i in (1, 2, 3)]
    down = run(objects, group("g", nodes=("n1", "n2", "n3"))).scale_down
    assert down.nodes["n1"].removable
    assert down.nodes["n1"].destinations == {"default/p1": "n2"}
    assert down.nodes["n2"].reason == "NoPlaceToMovePods"
    assert down.nodes["n3"].reason == "NoPlaceToMovePods"


def test_removals_stop_at_the_groups_min_size() -> None:
    objects = [node("n1"), node("n2"), node("n3")]
    down = run(objects, group("g", nodes=("n1", "n2", "n3"), min_size=1)).scale_down
    assert down.removable() == ("n1", "n2")
    assert down.nodes["n3"].reason == "NodeGroupMinSizeReached"
    assert down.nodes["n3"].message == "node group min size reached (current: 1, min: 1)"


def test_scale_down_sees_pending_pods_placed_on_existing_nodes() -> None:
    # the pending pod fits n1 (filter-out-schedulable) and keeps it over the threshold
    objects = [node("n1"), SPARE, pod("pending", "1500m")]
    verdict = run(objects, group("g", nodes=("n1",))).scale_down.nodes["n1"]
    assert verdict.reason == "NotUnderutilized"
