"""NodeResourcesFit's RequestedToCapacityRatio strategy: the broken linear function against
upstream's own table (requested_to_capacity_ratio_test.go TestBrokenLinearFunction), and the
spec's ShapeScore against impl's on every utilization, rising and falling shapes alike (Go's
division truncates toward zero, TLA's ÷ floors)."""

from __future__ import annotations

import pytest

from schedspec.impl.errors import ConfigError
from schedspec.impl.plugins.node_resources_fit import NodeResourcesFit
from schedspec.impl.plugins.resource_allocation import broken_linear
from schedspec.spec.load import load_spec
from schedspec.spec.values import record

UPSTREAM = [
    ([(10, 1), (90, 9)],
     [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9),
      (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)],
     [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
]  # fmt: skip


@pytest.mark.parametrize(("points", "table"), UPSTREAM)
def test_broken_linear_matches_upstream_s_table(
    points: list[tuple[int, int]], table: list[tuple[int, int]]
) -> None:
    assert [broken_linear(points, p) for p, _ in table] == [want for _, want in table]


@pytest.mark.parametrize(
    "shape",
    [[(0, 0), (100, 10)], [(0, 10), (100, 0)], [(0, 2), (40, 10), (100, 0)], [(30, 7)],
     [(10, 3), (35, 0), (36, 9), (99, 1)]],
)  # fmt: skip
def test_the_spec_s_shape_score_is_impl_s(shape: list[tuple[int, int]]) -> None:
    spec = load_spec("scheduler")
    points = tuple(record(utilization=u, score=s) for u, s in shape)
    scaled = [(u, s * 10) for u, s in shape]
    for u in range(-5, 106):
        assert spec.program.call("ShapeScore", points, u) == broken_linear(scaled, u), u


def test_a_ratio_strategy_without_a_shape_is_refused_with_its_path() -> None:
    with pytest.raises(ConfigError) as err:
        NodeResourcesFit.new({"scoringStrategy": {"type": "RequestedToCapacityRatio"}}, None)  # type: ignore[arg-type]
    assert "requestedToCapacityRatio.shape" in str(err.value)
    with pytest.raises(ConfigError) as err:
        NodeResourcesFit.new(
            {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {
                "shape": [{"utilization": 50, "score": 1}, {"utilization": 40, "score": 2}]}}},
            None,  # type: ignore[arg-type]
        )  # fmt: skip
    assert "increasing order" in str(err.value)
