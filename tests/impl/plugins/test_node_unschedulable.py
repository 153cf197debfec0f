"""NodeUnschedulable and NodeName filters."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.framework import Code, CycleState
from schedspec.impl.plugins import node_name, node_unschedulable
from schedspec.impl.plugins.node_name import NodeName
from schedspec.impl.plugins.node_unschedulable import NodeUnschedulable

UNSCHED = "node.kubernetes.io/unschedulable"
CASES: list[tuple[str, bool, list[dict[str, Any]], bool]] = [
    ("schedulable node", False, [], True),
    ("cordoned node", True, [], False),
    (
        "the unschedulable:NoSchedule toleration lets the pod in",
        True,
        [{"key": UNSCHED, "operator": "Exists", "effect": "NoSchedule"}],
        True,
    ),
    (
        "a NoExecute-only toleration does not",
        True,
        [{"key": UNSCHED, "operator": "Exists", "effect": "NoExecute"}],
        False,
    ),
    ("tolerate-everything works too", True, [{"operator": "Exists"}], True),
]


@pytest.mark.parametrize(
    ("name", "cordoned", "tolerations", "fits"), CASES, ids=[c[0] for c in CASES]
)
def test_node_unschedulable(name: str, cordoned: bool, tolerations: list[Any], fits: bool) -> None:
    p, n = pod(spec={"tolerations": tolerations}), node(unschedulable=cordoned)
    assert node_unschedulable.fits(p, n) is fits
    status = NodeUnschedulable().filter(CycleState(), p, node_info(n))
    assert (status is None) is fits
    if status is not None:
        assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.reasons == ("node(s) were unschedulable",)


@pytest.mark.parametrize(
    ("name", "pod_node", "fits"),
    [("no nodeName", "", True), ("same node", "n", True), ("other node", "m", False)],
    ids=["no nodeName", "same node", "other node"],
)
def test_node_name(name: str, pod_node: str, fits: bool) -> None:
    p, n = pod(node=pod_node), node("n")
    assert node_name.fits(p, n) is fits
    status = NodeName().filter(CycleState(), p, node_info(n))
    assert (status is None) is fits
    if status is not None:
        assert status.reasons == ("node(s) didn't match the requested node name",)
