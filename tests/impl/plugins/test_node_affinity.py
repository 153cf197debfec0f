"""NodeAffinity: nodeSelector ∧ required terms (ORed, lazily parsed) ∧ addedAffinity; PreFilter
narrowing by metadata.name; preferred-term scoring."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.framework import Code, CycleState, NodeScore
from schedspec.impl.plugins import node_affinity
from schedspec.impl.plugins.node_affinity import NodeAffinity


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    rq = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
    return {"affinity": {"nodeAffinity": rq}}


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": key, "operator": op, "values": list(values)}]}


LABELS = {"zone": "a", "cpu-gen": "7", "gpu": "true"}
FILTER_CASES: list[tuple[str, dict[str, Any], bool]] = [
    ("no selector, no affinity", {}, True),
    ("nodeSelector matches", {"nodeSelector": {"zone": "a"}}, True),
    ("nodeSelector key absent", {"nodeSelector": {"disk": "ssd"}}, False),
    ("empty nodeSelector matches every node", {"nodeSelector": {}}, True),
    ("In matches", required(expr("zone", "In", "a", "b")), True),
    ("NotIn is true when the key is absent", required(expr("disk", "NotIn", "hdd")), True),
    ("NotIn excludes the value", required(expr("zone", "NotIn", "a")), False),
    ("Exists", required(expr("gpu", "Exists")), True),
    ("DoesNotExist", required(expr("gpu", "DoesNotExist")), False),
    ("Gt with one integer", required(expr("cpu-gen", "Gt", "6")), True),
    ("Gt is strict", required(expr("cpu-gen", "Gt", "7")), False),
    ("Lt", required(expr("cpu-gen", "Lt", "8")), True),
    ("Gt with two values fails the term", required(expr("cpu-gen", "Gt", "1", "2")), False),
    ("Gt on a non-integer label fails", required(expr("zone", "Gt", "1")), False),
    ("an empty term matches nothing", required({}), False),
    ("terms are ORed", required(expr("zone", "In", "b"), expr("gpu", "Exists")), True),
    (
        "a term that fails to parse is skipped, another may match",
        required(expr("zone", "In"), expr("gpu", "Exists")),
        True,
    ),
    (
        "expressions within a term are ANDed",
        required(
            {
                "matchExpressions": [
                    {"key": "zone", "operator": "In", "values": ["a"]},
                    {"key": "gpu", "operator": "DoesNotExist"},
                ]
            }
        ),
        False,
    ),
    (
        "matchFields metadata.name In",
        required({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}),
        True,
    ),
    (
        "matchFields metadata.name NotIn",
        required({"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n"]}]}),
        False,
    ),
    (
        "matchFields with two values is a parse error",
        required(
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n", "m"]}]}
        ),
        False,
    ),
    (
        "nodeSelector and affinity must both hold",
        {"nodeSelector": {"zone": "b"}, **required(expr("gpu", "Exists"))},
        False,
    ),
]


@pytest.mark.parametrize(("name", "spec", "fits"), FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_filter(name: str, spec: dict[str, Any], fits: bool) -> None:
    p, n = pod(spec=spec), node("n", labels=LABELS)
    assert node_affinity.fits(p, n) is fits
    plugin, state = NodeAffinity(None, ()), CycleState()
    _, pre = plugin.pre_filter(state, p, [node_info(n)])
    status = plugin.filter(state, p, node_info(n))
    if fits:
        assert status is None
    else:
        assert status is not None and status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.reasons == ("node(s) didn't match Pod's node affinity/selector",)
    if not spec:
        assert pre is not None and pre.code is Code.SKIP


def names_term(*names: str) -> dict[str, Any]:
    return {"matchFields": [{"key": "metadata.name", "operator": "In", "values": list(names)}]}


PRE_FILTER_CASES: list[tuple[str, dict[str, Any], frozenset[str] | None, str | None]] = [
    (
        "every term names nodes: union",
        required(names_term("a", "b"), names_term("c")),
        frozenset({"a", "b", "c"}),
        None,
    ),
    (
        "one term without names: all nodes",
        required(names_term("a"), expr("zone", "Exists")),
        None,
        None,
    ),
    (
        "names within a term intersect",
        required(
            {
                "matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": ["a", "b"]},
                    {"key": "metadata.name", "operator": "In", "values": ["b", "c"]},
                ]
            }
        ),
        frozenset({"b"}),
        None,
    ),
    (
        "conflicting names",
        required(
            {
                "matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": ["a"]},
                    {"key": "metadata.name", "operator": "In", "values": ["b"]},
                ]
            }
        ),
        None,
        "pod affinity terms conflict",
    ),
]


@pytest.mark.parametrize(
    ("name", "spec", "names", "reason"), PRE_FILTER_CASES, ids=[c[0] for c in PRE_FILTER_CASES]
)
def test_pre_filter_narrows_by_node_name(
    name: str, spec: dict[str, Any], names: frozenset[str] | None, reason: str | None
) -> None:
    result, status = NodeAffinity(None, ()).pre_filter(CycleState(), pod(spec=spec), [])
    assert (result.node_names if result else None) == names
    assert (status.reasons if status else None) == ((reason,) if reason else None)


def test_added_affinity_is_enforced_on_every_pod() -> None:
    args = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [expr("pool", "In", "batch")]
            }
        }
    }
    plugin = NodeAffinity.new(args, None)  # type: ignore[arg-type]
    state, p = CycleState(), pod()
    _, pre = plugin.pre_filter(state, p, [])
    assert pre is None  # not skipped: the added affinity applies to a plain pod
    status = plugin.filter(state, p, node_info(node("n", labels={"pool": "web"})))
    assert status is not None
    assert status.reasons == ("node(s) didn't match scheduler-enforced node affinity",)
    assert plugin.filter(state, p, node_info(node("m", labels={"pool": "batch"}))) is None


def preferred(*terms: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    pref = [{"weight": w, "preference": t} for w, t in terms]
    return {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": pref}}}


def test_score_sums_matching_weights_and_max_normalizes() -> None:
    p = pod(spec=preferred((20, expr("zone", "In", "a")), (80, expr("gpu", "Exists"))))
    infos = [
        node_info(node("both", labels={"zone": "a", "gpu": "1"})),  # 100
        node_info(node("zone", labels={"zone": "a"})),  # 20
        node_info(node("none")),  # 0
    ]
    plugin, state = NodeAffinity(None, ()), CycleState()
    assert plugin.pre_score(state, p, infos) is None
    scores = [NodeScore(ni.name, plugin.score(state, p, ni)[0]) for ni in infos]
    assert [s.score for s in scores] == [100, 20, 0]
    infos = infos[1:]
    scores = [NodeScore(ni.name, plugin.score(state, p, ni)[0]) for ni in infos]
    plugin.normalize_score(state, p, scores)
    assert [s.score for s in scores] == [100, 0]  # 20 is the max: scaled to 100


def test_score_skips_pods_without_preferred_terms() -> None:
    status = NodeAffinity(None, ()).pre_score(CycleState(), pod(), [node_info(node())])
    assert status is not None and status.code is Code.SKIP
