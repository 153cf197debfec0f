"""NodeResourcesFit: Filter (free = allocatable − requested) and LeastAllocated/MostAllocated."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.framework import Code, CycleState
from schedspec.impl.plugins import node_resources_fit
from schedspec.impl.plugins.node_resources_fit import NodeResourcesFit

NODE = {"cpu": "4", "memory": "8Gi", "pods": "110"}
CASES: list[
    tuple[
        str,
        dict[str, Any],
        list[dict[str, Any]],
        dict[str, Any],
        dict[str, Any],
        tuple[str, ...],
        Code | None,
    ]
] = [
    ("fits in what is left", {"cpu": "1"}, [{"cpu": "2"}], NODE, {}, (), None),
    (
        "insufficient cpu counts the pods already there",
        {"cpu": "1"},
        [{"cpu": "3500m"}],
        NODE,
        {},
        ("Insufficient cpu",),
        Code.UNSCHEDULABLE,
    ),
    (
        "a request above the allocatable is unresolvable",
        {"cpu": "5"},
        [],
        NODE,
        {},
        ("Insufficient cpu",),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ),
    (
        "all failing resources are reported",
        {"cpu": "1", "memory": "1Gi"},
        [{"cpu": "4", "memory": "8Gi"}],
        NODE,
        {},
        ("Insufficient cpu", "Insufficient memory"),
        Code.UNSCHEDULABLE,
    ),
    (
        "pod count is always checked, even for a zero-request pod",
        {},
        [{}],
        {"cpu": "4", "memory": "8Gi", "pods": "1"},
        {},
        ("Too many pods",),
        Code.UNSCHEDULABLE,
    ),
    (
        "a zero-request pod fits a full node",
        {},
        [{"cpu": "4", "memory": "8Gi"}],
        NODE,
        {},
        (),
        None,
    ),
    (
        "no pods allocatable means too many pods",
        {"cpu": "1"},
        [],
        {"cpu": "4", "memory": "8Gi"},
        {},
        ("Too many pods",),
        Code.UNSCHEDULABLE,
    ),
    (
        "an extended resource the node does not advertise fails",
        {"example.com/foo": "1"},
        [],
        NODE,
        {},
        ("Insufficient example.com/foo",),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ),
    (
        "ignoredResources skips an extended resource",
        {"example.com/foo": "1"},
        [],
        NODE,
        {"ignoredResources": ["example.com/foo"]},
        (),
        None,
    ),
    (
        "ignoredResourceGroups skips a whole domain",
        {"example.com/foo": "1"},
        [],
        NODE,
        {"ignoredResourceGroups": ["example.com"]},
        (),
        None,
    ),
    (
        "ephemeral-storage is checked",
        {"ephemeral-storage": "2Gi"},
        [],
        {**NODE, "ephemeral-storage": "1Gi"},
        {},
        ("Insufficient ephemeral-storage",),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ),
]


@pytest.mark.parametrize(
    ("name", "req", "existing", "alloc", "args", "reasons", "code"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_filter(
    name: str,
    req: dict[str, Any],
    existing: list[dict[str, Any]],
    alloc: dict[str, Any],
    args: dict[str, Any],
    reasons: tuple[str, ...],
    code: Code | None,
) -> None:
    ni = node_info(node(alloc=alloc), *(pod(f"e{i}", req=r) for i, r in enumerate(existing)))
    p = pod("new", req=req)
    plugin, state = NodeResourcesFit.new(args, None), CycleState()  # type: ignore[arg-type]
    plugin.pre_filter(state, p, [ni])
    status = plugin.filter(state, p, ni)
    if code is None:
        assert status is None
    else:
        assert status is not None and status.code is code and status.reasons == reasons
    ignored = frozenset(args.get("ignoredResources", ()))
    groups = frozenset(args.get("ignoredResourceGroups", ()))
    assert node_resources_fit.fits(p, ni, ignored, groups) is (code is None)


SCORE_CASES = [
    # cpu (4000 − 1000 − 1000)·100/4000 = 50, memory (8 − 2 − 2)/8 → 50
    (
        "least allocated on non-zero requests",
        {"cpu": "1", "memory": "2Gi"},
        [{"cpu": "1", "memory": "2Gi"}],
        "LeastAllocated",
        50,
    ),
    # a pod without requests counts 100m / 200Mi: cpu 3900·100/4000 = 97, memory 7992·100/8192 = 97
    ("zero requests use 100m / 200Mi", {}, [], "LeastAllocated", 97),
    # most allocated: cpu 2000·100/4000 = 50, memory 4Gi/8Gi = 50
    (
        "most allocated",
        {"cpu": "1", "memory": "2Gi"},
        [{"cpu": "1", "memory": "2Gi"}],
        "MostAllocated",
        50,
    ),
    (
        "more requested than allocatable scores 0",
        {"cpu": "3"},
        [{"cpu": "2", "memory": "8Gi"}],
        "LeastAllocated",
        0,
    ),
]


@pytest.mark.parametrize(
    ("name", "req", "existing", "strategy", "expected"),
    SCORE_CASES,
    ids=[c[0] for c in SCORE_CASES],
)
def test_score(
    name: str, req: dict[str, Any], existing: list[dict[str, Any]], strategy: str, expected: int
) -> None:
    ni = node_info(node(alloc=NODE), *(pod(f"e{i}", req=r) for i, r in enumerate(existing)))
    p = pod("new", req=req)
    plugin = NodeResourcesFit.new({"scoringStrategy": {"type": strategy}}, None)  # type: ignore[arg-type]
    state = CycleState()
    plugin.pre_score(state, p, [ni])
    assert plugin.score(state, p, ni)[0] == expected
    assert node_resources_fit.score(p, ni, strategy=strategy) == expected
