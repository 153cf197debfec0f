"""TaintToleration: Filter (NoSchedule/NoExecute) and reversed PreferNoSchedule score."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.framework import Code, CycleState, NodeScore
from schedspec.impl.plugins import taint_toleration
from schedspec.impl.plugins.taint_toleration import TaintToleration

T = dict[str, str]
FILTER_CASES: list[tuple[str, list[T], list[dict[str, Any]], str | None]] = [
    ("no taints", [], [], None),
    (
        "untolerated NoSchedule",
        [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
        [],
        "dedicated",
    ),
    (
        "untolerated NoExecute, empty value",
        [{"key": "k", "effect": "NoExecute"}],
        [],
        "k",
    ),
    (
        "PreferNoSchedule never filters",
        [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}],
        [],
        None,
    ),
    (
        "empty key with Exists tolerates every taint",
        [{"key": "a", "value": "1", "effect": "NoSchedule"}, {"key": "b", "effect": "NoExecute"}],
        [{"operator": "Exists"}],
        None,
    ),
    (
        "empty effect tolerates every effect",
        [{"key": "k", "value": "v", "effect": "NoExecute"}],
        [{"key": "k", "operator": "Equal", "value": "v"}],
        None,
    ),
    (
        "empty operator is Equal: value must match",
        [{"key": "k", "value": "v", "effect": "NoSchedule"}],
        [{"key": "k", "value": "w", "effect": "NoSchedule"}],
        "k",
    ),
    (
        "empty operator is Equal: matching value",
        [{"key": "k", "value": "v", "effect": "NoSchedule"}],
        [{"key": "k", "value": "v"}],
        None,
    ),
    (
        "Exists ignores the value",
        [{"key": "k", "value": "v", "effect": "NoSchedule"}],
        [{"key": "k", "operator": "Exists"}],
        None,
    ),
    (
        "effect must match when set",
        [{"key": "k", "value": "v", "effect": "NoExecute"}],
        [{"key": "k", "value": "v", "effect": "NoSchedule"}],
        "k",
    ),
    (
        "first untolerated taint is reported",
        [
            {"key": "a", "value": "1", "effect": "NoSchedule"},
            {"key": "b", "value": "2", "effect": "NoSchedule"},
        ],
        [{"key": "a", "operator": "Exists"}],
        "b",
    ),
]


@pytest.mark.parametrize(
    ("name", "taints", "tolerations", "untolerated"), FILTER_CASES, ids=[c[0] for c in FILTER_CASES]
)
def test_filter(
    name: str, taints: list[T], tolerations: list[dict[str, Any]], untolerated: str | None
) -> None:
    """``untolerated``: the key of the taint the filter finds first (None: the pod fits)."""
    p = pod(spec={"tolerations": tolerations})
    n = node(taints=taints)
    status = TaintToleration().filter(CycleState(), p, node_info(n))
    assert taint_toleration.fits(p, n) is (untolerated is None)
    if untolerated is None:
        assert status is None
    else:
        assert status is not None
        assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        # v1.34.2 taint_toleration.go: one fixed reason, the taint is only logged
        assert status.reasons == ("node(s) had untolerated taint(s)",)
        first = taint_toleration.untolerated_taint(p, n)
        assert first is not None and first.key == untolerated


PNS = "PreferNoSchedule"
SCORE_CASES = [
    (
        "fewest intolerable PreferNoSchedule taints wins, reversed and scaled by the max",
        [],
        [
            [],
            [{"key": "a", "effect": PNS}],
            [{"key": "a", "effect": PNS}, {"key": "b", "effect": PNS}],
        ],
        [100, 50, 0],
    ),
    (
        "a toleration with effect PreferNoSchedule removes the penalty",
        [{"key": "a", "operator": "Exists", "effect": PNS}],
        [[{"key": "a", "effect": PNS}], [{"key": "b", "effect": PNS}]],
        [100, 0],
    ),
    (
        "a NoSchedule toleration does not count for scoring",
        [{"key": "a", "operator": "Exists", "effect": "NoSchedule"}],
        [[{"key": "a", "effect": PNS}], []],
        [0, 100],
    ),
    ("no intolerable taint anywhere: every node gets 100", [], [[], []], [100, 100]),
]


@pytest.mark.parametrize(
    ("name", "tolerations", "taints", "expected"), SCORE_CASES, ids=[c[0] for c in SCORE_CASES]
)
def test_score(
    name: str, tolerations: list[Any], taints: list[list[T]], expected: list[int]
) -> None:
    p = pod(spec={"tolerations": tolerations})
    infos = [node_info(node(f"n{i}", taints=t)) for i, t in enumerate(taints)]
    plugin, state = TaintToleration(), CycleState()
    assert plugin.pre_score(state, p, infos) is None
    scores = [NodeScore(ni.name, plugin.score(state, p, ni)[0]) for ni in infos]
    assert [taint_toleration.score(p, ni.node) for ni in infos if ni.node] == [
        s.score for s in scores
    ]
    plugin.normalize_score(state, p, scores)
    assert [s.score for s in scores] == expected
