"""NodeResourcesBalancedAllocation: 100·(1 − std of the resource fractions)."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.framework import Code, CycleState
from schedspec.impl.plugins import balanced_allocation
from schedspec.impl.plugins.balanced_allocation import BalancedAllocation

CASES: list[tuple[str, dict[str, Any], list[dict[str, Any]], int]] = [
    # fractions 1/4 and 4/8 → std 0.125 → 87
    ("std of two fractions is half their difference", {"cpu": "1", "memory": "4Gi"}, [], 87),
    ("equal fractions score 100", {"cpu": "2", "memory": "4Gi"}, [], 100),
    # existing 2 cpu + new 2 cpu = 4/4 = 1; memory 1/8 → std 0.4375 → 56
    (
        "existing pods count with their real requests",
        {"cpu": "2", "memory": "1Gi"},
        [{"cpu": "2"}],
        56,
    ),
    # cpu 6/4 capped at 1, memory 0 → std 0.5 → 50
    ("fractions are capped at 1", {"cpu": "6"}, [], 50),
]


@pytest.mark.parametrize(("name", "req", "existing", "expected"), CASES, ids=[c[0] for c in CASES])
def test_score(
    name: str, req: dict[str, Any], existing: list[dict[str, Any]], expected: int
) -> None:
    ni = node_info(
        node(alloc={"cpu": "4", "memory": "8Gi", "pods": "10"}),
        *(pod(f"e{i}", req=r) for i, r in enumerate(existing)),
    )
    p, plugin, state = pod("new", req=req), BalancedAllocation(), CycleState()
    assert plugin.pre_score(state, p, [ni]) is None
    assert plugin.score(state, p, ni)[0] == expected
    assert balanced_allocation.score(p, ni) == expected


def test_best_effort_pods_are_skipped() -> None:
    status = BalancedAllocation().pre_score(CycleState(), pod(), [node_info(node())])
    assert status is not None and status.code is Code.SKIP
