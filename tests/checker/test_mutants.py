"""The mutation engine: deterministic enumeration, scope, and mutants that really take effect in a
forked child while the parent stays untouched."""

from __future__ import annotations

import time
from typing import Any

import pytest

from schedspec.checker import mutants as mut
from schedspec.checker.mutants import (
    KillerChain,
    Mutant,
    enumerate_mutants,
    run_in_child,
    run_mutants,
)
from schedspec.impl.api import Node, Pod, node_from_dict, pod_from_dict
from schedspec.impl.framework import CycleState
from schedspec.impl.framework.types import NodeInfo
from schedspec.impl.plugins import image_locality, in_tree_registry, taint_toleration

TT = "schedspec.impl.plugins.taint_toleration"
NRF = "schedspec.impl.plugins.node_resources_fit"


def _pod(tolerations: list[dict[str, Any]] | None = None) -> Pod:
    spec = {"containers": [{"name": "c", "image": "img"}], "tolerations": tolerations or []}
    return pod_from_dict(
        {"metadata": {"name": "p", "namespace": "default", "uid": "u"}, "spec": spec}
    )


def _tainted_node() -> Node:
    return node_from_dict(
        {
            "metadata": {"name": "n"},
            "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        }
    )


def _find(mutants: list[Mutant], function: str | None, operator: str) -> Mutant:
    return next(m for m in mutants if m.function == function and m.operator == operator)


def test_enumeration_is_deterministic_with_unique_ids() -> None:
    first, second = enumerate_mutants(), enumerate_mutants()
    assert first == second
    assert len({m.id for m in first}) == len(first)
    assert {m.module for m in first} == set(mut.SCOPE)


def test_every_operator_is_generated() -> None:
    kinds = {m.operator.split(" ")[0] for m in enumerate_mutants()}
    assert kinds >= {"cmp", "drop", "and", "or", "remove", "int", "return", "arith", "max", "min"}


def test_queueing_hints_are_out_of_reach_and_filters_in_reach() -> None:
    by_function: dict[str | None, set[str]] = {}
    for m in enumerate_mutants([TT]):
        by_function.setdefault(m.function, set()).add(m.reach)
    assert by_function["TaintToleration.is_schedulable_after_node_change"] == {"queueing hint"}
    assert by_function["TaintToleration.filter"] == {""}
    assert by_function["fits"] == {""}
    for m in enumerate_mutants():
        name = (m.function or "").rsplit(".", 1)[-1]
        if name.startswith(("is_schedulable_after_", "events_to_register")):
            assert m.reach == "queueing hint", m.id


def test_helpers_used_only_by_queueing_hints_are_out_of_reach() -> None:
    reach = {m.function: m.reach for m in enumerate_mutants([NRF])}
    assert reach["_requested_resource_increased"] == "queueing hint"
    assert reach["_insufficient"] == ""
    hints = {m.function for m in enumerate_mutants() if m.reach == "queueing hint"}
    helpers = {f for f in hints if f and not f.rsplit(".", 1)[-1].startswith(("is_", "events_"))}
    assert all(f.rsplit(".", 1)[-1].startswith("_") for f in helpers), helpers


def test_config_errors_are_out_of_reach() -> None:
    reaches = {
        m.reach
        for m in enumerate_mutants(["schedspec.impl.plugins.resource_allocation"])
        if m.function == "parse_resources" and "not 1 <= weight <= 100" in m.original
    }
    assert reaches == {"error path"}


def test_mutated_lines_show_the_edit() -> None:
    m = _find(enumerate_mutants([TT]), "fits", "cmp is -> is not")
    assert m.original == "return untolerated_taint(pod, node) is None"
    assert m.mutated == "return untolerated_taint(pod, node) is not None"
    assert m.describe().startswith("impl/plugins/taint_toleration.py:")


def test_a_flipped_comparison_changes_fits_in_the_child_only() -> None:
    m = _find(enumerate_mutants([TT]), "fits", "cmp is -> is not")
    pod, node = _pod(), _tainted_node()
    assert taint_toleration.fits(pod, node) is False
    assert run_in_child(m, lambda: taint_toleration.fits(pod, node)) is True
    assert taint_toleration.fits(pod, node) is False


def test_a_method_mutant_reaches_plugins_built_from_the_registry() -> None:
    m = next(
        m
        for m in enumerate_mutants([TT])
        if m.function == "TaintToleration.filter"
        and m.operator == "cmp is -> is not"
        and "taint is None" in m.original
    )
    pod, info = _pod(), NodeInfo(_tainted_node(), [])

    def verdict() -> bool:
        plugin = in_tree_registry()[taint_toleration.NAME]({}, None)  # type: ignore[arg-type]
        return plugin.filter(CycleState(), pod, info) is None  # type: ignore[attr-defined]

    assert verdict() is False
    assert run_in_child(m, verdict) is True
    assert verdict() is False


def test_a_module_constant_mutant_is_rebound_in_the_child() -> None:
    m = next(
        m
        for m in enumerate_mutants([image_locality.__name__])
        if m.function is None and "MIN_THRESHOLD = 23" in m.original and m.operator == "int +1"
    )
    before = image_locality.MIN_THRESHOLD
    assert run_in_child(m, lambda: image_locality.MIN_THRESHOLD) == before // 23 * 24
    after = image_locality.MIN_THRESHOLD
    assert after == before


def _fits_killer(examples: int, seed: int) -> list[str]:
    """Notices exactly the mutants that make a tainted node fit an intolerant pod."""
    return ["a tainted node fits"] if taint_toleration.fits(_pod(), _tainted_node()) else []


def test_run_mutants_tells_killed_from_survived() -> None:
    ms = enumerate_mutants([TT])
    flip = _find(ms, "fits", "cmp is -> is not")
    harmless = _find(
        ms, "_count_intolerable", "int +1"
    )  # the score is not what the killer looks at
    outcomes = {
        o.mutant: o
        for o in run_mutants(
            [flip, harmless], _fits_killer, examples=1, seed=0, timeout=30, parallel=2
        )
    }
    assert outcomes[flip].status == "killed"
    assert outcomes[flip].detail == "a tainted node fits"
    assert outcomes[harmless].status == "survived"


def test_a_mutant_that_hangs_is_a_timeout() -> None:
    m = _find(enumerate_mutants([TT]), "fits", "cmp is -> is not")

    def hang(examples: int, seed: int) -> list[str]:
        time.sleep(30)
        return []

    (outcome,) = run_mutants([m], hang, examples=1, seed=0, timeout=0.5)
    assert outcome.status == "timeout"
    assert outcome.seconds < 10


def test_killer_chain_reports_only_differences_from_the_baseline() -> None:
    found: list[str] = ["known disagreement"]

    def campaign(examples: int, seed: int) -> list[str]:
        return list(found)

    def crashes(examples: int, seed: int) -> list[str]:
        if "crash" in found:
            raise ValueError("boom")
        return []

    chain = KillerChain([("campaign", campaign), ("other", crashes)])
    chain.warm_up(1, 0)
    assert chain(1, 0) == []
    found.append("new disagreement")
    assert chain(1, 0) == ["campaign: new disagreement"]
    found[:] = ["known disagreement", "crash"]
    assert chain(1, 0) == ["campaign: crash"]
    chain.baselines["campaign"] = sorted(found)
    assert chain(1, 0) == ["other: raised ValueError: boom"]


@pytest.mark.parametrize("spec", ["nope", "pytest@0", "pytest@x", "mod:"], ids=str)
def test_bad_killer_names_are_rejected(spec: str) -> None:
    with pytest.raises(ValueError, match="killer="):
        mut.load_killer(spec)


def test_a_control_run_applies_nothing() -> None:
    pod, node = _pod(), _tainted_node()
    assert run_in_child(None, lambda: taint_toleration.fits(pod, node)) is False


def test_a_mutant_of_a_changed_source_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    m = _find(enumerate_mutants([TT]), "fits", "cmp is -> is not")
    edited = mut._source(TT).replace(
        "return untolerated_taint(pod, node) is None",
        "return untolerated_taint(pod, node) is None or False",
    )
    # patched where the applying code looks it up (``mutants.applying``), not the re-export
    monkeypatch.setattr(mut.applying, "_source", lambda name: edited)
    with pytest.raises(RuntimeError, match="changed since it was imported"):
        run_in_child(m, lambda: taint_toleration.fits(_pod(), _tainted_node()))
