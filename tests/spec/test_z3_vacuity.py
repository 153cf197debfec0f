"""An `unsat` is an answer about the rules only when the question was asked: a formula or a
`--where` that errs on every cluster (a set passed to `Elems`, a field no object has) is the
user's mistake and exits 2; a `--where` that no cluster within the bounds satisfies compares
nothing and is `unknown`; a formula undefined on some clusters says so beside its `unsat`.
Before, all three printed a plain `unsat` (the catalogue's own §2 #22 query was one of them)."""

from __future__ import annotations

import json

import pytest

from schedspec.cli import main
from schedspec.errors import UsageError
from schedspec.spec.solve import diff, find

ELEMS_OF_A_SET = "\\E T \\in Elems(RequiredNodeTerms(p)) : TermEmpty(T)"


def test_a_formula_that_errs_everywhere_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["find", ELEMS_OF_A_SET]) == 2
    captured = capsys.readouterr()
    assert "cannot be evaluated on any cluster within the bounds" in captured.err
    assert "DOMAIN of set: not a function" in captured.err
    assert "unsat" not in captured.out


def test_the_same_question_asked_rightly_is_answered() -> None:
    assert find("\\E T \\in RequiredNodeTerms(p) : TermEmpty(T)").result == "sat"


def test_an_unsat_over_a_partly_undefined_formula_says_so() -> None:
    answer = find('p.spec.nodeSelector["disktype"] = "ssd" /\\ Len(p.spec.containers) = 0')
    assert answer.result == "unsat"
    assert any("undefined on some clusters" in n and "not in the DOMAIN" in n for n in answer.notes)


def test_a_where_no_cluster_satisfies_compares_nothing() -> None:
    answer = diff("scheduler", "scheduler", "TaintsOK", where="Len(p.spec.containers) = 0")
    assert answer.result == "unknown"
    assert answer.message.startswith("nothing was compared")


def test_a_where_that_errs_everywhere_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="--where cannot be evaluated"):
        diff("scheduler", "scheduler", "TaintsOK", "Feasible", where=ELEMS_OF_A_SET)


def test_the_cli_passes_where_on(capsys: pytest.CaptureFixture[str]) -> None:
    """`schedspec diff --where` was parsed and then dropped: every diff compared all clusters."""
    argv = ["diff", "scheduler", "scheduler", "--predicate", "TaintsOK"]
    assert main([*argv, "--where", "Len(p.spec.containers) = 0"]) == 3
    assert capsys.readouterr().out.startswith("unknown: nothing was compared")
    narrowed = '\\A x \\in n.spec.taints : x.effect = "PreferNoSchedule"'
    textbook = ["diff", "textbook", "scheduler", "--predicate", "FilterTaints=TaintsOK", "--json"]
    assert main([*textbook, "--where", narrowed]) == 1
    (witness,) = json.loads(capsys.readouterr().out)["witnesses"]
    n = witness["bindings"]["n"]
    (node,) = [o for o in witness["objects"] if o["kind"] == "Node" and o["metadata"]["name"] == n]
    assert node["spec"]["taints"]  # the textbook rejects it for a taint TaintsOK ignores
    assert all(t["effect"] == "PreferNoSchedule" for t in node["spec"]["taints"])
