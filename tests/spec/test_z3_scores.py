"""Scores in Z3: the float64 kernels compiled as a relaxation, witnesses replayed in doubles.

Every ``sat`` below has been replayed by the executable backend inside ``find``/``diff`` (IEEE
doubles, as Go computes); these tests pin what a user sees: a witness where one exists, and
``unknown``, never ``unsat``, where the relaxation's answer could be an artefact of rounding.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from schedspec.cli import main
from schedspec.spec.kube.symbolic.bounds import Bounds
from schedspec.spec.solve import Session, diff, find


def test_textbook_and_scheduler_viability_differ_on_a_minimal_cluster() -> None:
    answer = diff("textbook", "scheduler", "Viability", minimize=True)
    assert answer.result == "sat", answer.message
    (witness,) = answer.witnesses
    textbook, scheduler = (
        witness.verdicts[k] for k in ("textbook:Viability", "scheduler:Viability")
    )
    assert textbook.isdigit() and scheduler.isdigit() and textbook != scheduler
    assert witness.minimal["objects"], witness.minimal  # fewer slots and numbers: time allowing
    kinds = sorted(o["kind"] for o in witness.objects)
    assert kinds == ["Node", "Pod"], kinds  # one node and the pod: nothing else is needed


def test_a_spread_score_strictly_between_the_extremes_is_found() -> None:
    formula = "PodTopologySpreadScore(p, n) > 0 /\\ PodTopologySpreadScore(p, n) < 100"
    answer = find(formula, bounds=Bounds(nodes=3, pods=3, spread=1))
    assert answer.result == "sat", answer.message
    pod = next(
        o
        for o in answer.objects
        if o["kind"] == "Pod" and o["spec"].get("topologySpreadConstraints")
    )
    assert any(
        c["whenUnsatisfiable"] == "ScheduleAnyway" for c in pod["spec"]["topologySpreadConstraints"]
    )
    assert any("SpreadScore" in note for note in answer.notes)


def test_a_balanced_score_of_71_is_found() -> None:
    # A fresh process, as the CLI runs it: how fast Z3 solves this depends on the terms made
    # before it in the same process (once 60 s inside the full suite, 1.5 s alone).
    query = "BalancedAllocationScore(p, n) = 71"
    argv = ["find", query, "--nodes", "1", "--pods", "1", "--json"]
    code = f"from schedspec.cli import main; raise SystemExit(main({argv!r}))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    answer = json.loads(run.stdout)
    assert answer["result"] == "sat", answer["message"]
    assert answer["witnesses"][0]["verdicts"] == {query: "TRUE"}


def test_no_witness_through_a_float_kernel_is_unknown_not_unsat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["find", "BalancedAllocationScore(p, n) > 100", "--nodes", "1", "--pods", "1"])
    out = capsys.readouterr().out
    assert code == 3, out
    assert "note: BalancedScore: Go computes these scores in float64" in out
    assert "unknown: no cluster within the bounds satisfies the formula in exact arithmetic" in out
    assert "unsat" not in out


def test_a_relaxation_witness_that_rounding_refutes_is_unknown() -> None:
    # int64(49 * (1.0 / 49)) is 0 in Go: the exact rational 1 is a witness only without rounding
    cpu = 'Get(Requests(p), "cpu")'
    formula = f"{cpu} = 49 /\\ FloatScale({cpu}, 1, {cpu}) = 1"
    answer = find(formula, bounds=Bounds(nodes=1, pods=1))
    assert answer.result == "unknown"
    assert "not in Go's float64 rounding" in answer.message


def test_kernels_on_known_numbers_are_go_float64_exactly() -> None:
    assert find("FloatScale(49, 1, 49) = 0", bounds=Bounds(nodes=1, pods=1)).result == "sat"
    answer = find("FloatScale(49, 1, 49) = 1", bounds=Bounds(nodes=1, pods=1))
    assert answer.result == "unsat"  # no relaxation reached: a proof, and said as one
    assert not any("float64" in note for note in answer.notes)


def test_a_query_answers_for_its_own_kernels_only() -> None:
    # z3states asks many queries of one session: a definition compiled once (memoised) still
    # counts its relaxed kernels for every later query that reaches it, and for no other
    session = Session(Bounds(nodes=1, pods=1), ["scheduler"], 60.0)
    compiler = session.specs["scheduler"].compiler
    session.formula("scheduler", "BalancedAllocationScore(p, n) = 1")
    assert compiler.approximated == {"BalancedScore"}
    compiler.approximated = set()
    session.formula("scheduler", "BalancedAllocationScore(p, n) = 2")  # a memo hit
    assert compiler.approximated == {"BalancedScore"}
    compiler.approximated = set()
    session.formula("scheduler", "Feasible(p, n)")
    assert compiler.approximated == set()
