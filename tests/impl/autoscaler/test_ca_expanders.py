"""Expanders and their chain (docs/autoscaler.md, scale-up step 5)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from ca_builders import group, pod, run, template

from schedspec.autoscaling import NodeGroup
from schedspec.impl.autoscaler.expander import ExpansionContext, Option, price


def _small_and_big() -> tuple[NodeGroup, NodeGroup]:
    return group("big", tmpl=template("big", "4", "8Gi")), group("small")


def test_least_waste_picks_the_smaller_template() -> None:
    # one pod of 1500m / 1 GiB: small (2 cpu, 4 GiB) wastes .25 + .75 = 1.0,
    # big (4 cpu, 8 GiB) wastes .625 + .875 = 1.5
    up = run([pod("p", "1500m", "1Gi")], *_small_and_big()).scale_up
    assert up.options == ("big", "small")
    assert up.best == ("small",)
    assert up.chosen == "small"


def test_least_waste_ties_are_kept_and_random_picks_with_the_seed() -> None:
    objects = [pod("p", "1500m", "1Gi")]
    chosen = {run(objects, group("a"), group("b"), seed=s).scale_up.chosen for s in range(20)}
    assert run(objects, group("a"), group("b")).scale_up.best == ("a", "b")
    assert chosen == {"a", "b"}
    assert run(objects, group("a"), group("b"), seed=3).scale_up.chosen == (
        run(objects, group("a"), group("b"), seed=3).scale_up.chosen
    )


def test_most_pods() -> None:
    # only "wide" (4 cpu) takes the 3-cpu pod as well
    objects = [pod("p1", "1500m"), pod("p2", "3")]
    up = run(
        objects, group("narrow"), group("wide", tmpl=template("wide", "4")), expander=("most-pods",)
    ).scale_up
    assert up.best == ("wide",)


@pytest.mark.parametrize(
    ("priorities", "best"),
    [
        ({10: ("^a$",), 50: ("b",)}, ("b",)),
        ({10: ("a",)}, ("a",)),  # options matching nothing are dropped
        ({10: ("nomatch",)}, ("a", "b", "gpu-pool-x")),  # none matches: all kept
        ({5: ("pool",), 1: ("a", "b")}, ("gpu-pool-x",)),  # unanchored
        # upstream starts at -1: lower priorities are never kept, and an empty best list
        # gives back every option
        ({-5: ("a",)}, ("a", "b", "gpu-pool-x")),
    ],
    ids=["highest", "unmatched-dropped", "none-matches", "unanchored", "below-minus-one"],
)
def test_priority(priorities: dict[int, tuple[str, ...]], best: tuple[str, ...]) -> None:
    groups = (group("a"), group("b"), group("gpu-pool-x"))
    up = run([pod("p", "1")], *groups, expander=("priority",), priorities=priorities).scale_up
    assert up.best == best
    if best:
        assert up.chosen in best
    else:
        assert up.chosen is None and up.plan == {}


def test_chain_priority_then_least_waste() -> None:
    big, small = _small_and_big()
    groups = (big, small, group("other"))
    up = run(
        [pod("p", "1500m", "1Gi")],
        *groups,
        expander=("priority", "least-waste"),
        priorities={10: ("big", "small"), 1: ("other",)},
    ).scale_up
    assert up.best == ("small",)


def test_price_prefers_the_cheaper_of_equal_templates() -> None:
    groups = (group("dear", price=Fraction(2)), group("cheap", price=Fraction(1, 10)))
    up = run([pod("p", "1", "1Gi")], *groups, expander=("price",)).scale_up
    assert up.best == ("cheap",)


def test_price_score_by_hand() -> None:
    # 1-node cluster → preferred 1 cpu; template 2 cpu → unfitness 2, one node → suppressed 2;
    # node 0.1/h; pod 1 cpu + 1 GiB; stabilisation pod 0.5 cpu + 500 MiB
    pod_price = 0.033174 + 0.004446
    stab = 0.5 * 0.033174 + 500 / 1024 * 0.004446
    expected = 2 * (0.1 + stab) / (pod_price + stab)
    option = Option(
        group("g", price=Fraction(1, 10)), 1, ("p",), ({"cpu": 1000, "memory": 1 << 30},)
    )
    score = price.score(option, ExpansionContext(cluster_nodes=1))
    assert score == pytest.approx(expected)
    assert math.isclose(expected, 4.2128, rel_tol=1e-4)


def test_price_gpu_template_is_unfit() -> None:
    gpu = group("gpu", tmpl=template("gpu", extra={"nvidia.com/gpu": "1"}), price=Fraction(1, 100))
    groups = (gpu, group("plain", price=Fraction(1)))
    up = run([pod("p", "1", "1Gi")], *groups, expander=("price",)).scale_up
    assert up.best == ("plain",)
