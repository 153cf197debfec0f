"""spec/kube/queue.tla: it checks clean, its invariants hold on small universes (by explicit
search and by BMC), and BMC finds mutants of the spec and of an invariant."""

from __future__ import annotations

import itertools
import json
import re
import time
from importlib import resources

import pytest

from schedspec.cli import main
from schedspec.spec.ast import Module
from schedspec.spec.check import check
from schedspec.spec.compile.actions import State, StateMachine
from schedspec.spec.compile.z3.bmc import BmcResult, bmc
from schedspec.spec.kube.queue_view import queue_constants
from schedspec.spec.parse import parse
from schedspec.spec.values import Value

TEXT = (resources.files("schedspec.spec.kube") / "queue.tla").read_text(encoding="utf-8")
MODULE = parse(TEXT, "spec/kube/queue.tla")
INVARIANTS = [d.name for d in MODULE.definitions if d.name.endswith("Inv")]
CAP_1S = '\\A p \\in Pods : where[p] = "backoffQ" => backoffExpiry[p] - timestamp[p] <= 1'


def _mutant(old: str, new: str) -> Module:
    assert TEXT.count(old) == 1, old
    return parse(TEXT.replace(old, new), "mutant.tla")


def test_queue_checks_clean() -> None:
    assert check(MODULE).diagnostics == ()
    assert INVARIANTS == [
        "OnePlaceInv", "NoLostPodInv", "EventGatedInv", "BackoffCapInv", "PopFromBackoffQInv",
    ]  # fmt: skip


def test_cli_check_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "spec/kube/queue.tla"]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out


def _reachable(sm: StateMachine, depth: int) -> list[State]:
    seen: dict[tuple[object, ...], State] = {}
    frontier = sm.initial_states()
    for _ in range(depth + 1):
        fresh = []
        for s in frontier:
            key = tuple(s.items())
            if key not in seen:
                seen[key] = s
                fresh.append(s)
        frontier = [n.state for s in fresh for n in sm.successors(s)]
    return list(seen.values())


@pytest.mark.parametrize("pop_from_backoff", [True, False], ids=["kep5142", "no-kep5142"])
def test_invariants_hold_on_every_state_explicit_search(pop_from_backoff: bool) -> None:
    sm = StateMachine(MODULE, queue_constants(2, 1, 1, pop_from_backoff=pop_from_backoff))
    states = _reachable(sm, 4)
    assert len(states) > 100
    for s in states:
        assert all(sm.holds(inv, s) for inv in INVARIANTS), s


def test_invariants_hold_bmc_small() -> None:
    result = bmc(MODULE, queue_constants(2, 1, 2), INVARIANTS, 4, timeout=60)
    assert (result.verdict, result.steps) == ("holds", 4)


def _replays(result: BmcResult, constants: dict[str, Value], module: Module = MODULE) -> None:
    sm = StateMachine(module, constants)
    states = [s.state for s in result.trace]
    assert states[0] in sm.initial_states()
    for before, after in itertools.pairwise(states):
        assert sm.is_step(before, after)


def test_a_wrong_backoff_cap_invariant_is_found() -> None:
    constants = queue_constants(1, 1, 1)
    result = bmc(MODULE, constants, [CAP_1S], 8, timeout=60, incremental=True)
    assert (result.verdict, result.steps, result.invariant) == ("violated", 7, CAP_1S)
    last = result.trace[-1].state
    assert last["backoffExpiry"]["p1"] - last["timestamp"]["p1"] == 2
    _replays(result, constants)


def test_a_spec_doubling_one_step_too_early_violates_the_cap() -> None:
    mutant = _mutant(
        "ELSE IF InitialBackoff * Pow2(c - 1) > MaxBackoff THEN MaxBackoff\n"
        "  ELSE InitialBackoff * Pow2(c - 1)",
        "ELSE IF InitialBackoff * Pow2(c) > MaxBackoff THEN MaxBackoff\n"
        "  ELSE InitialBackoff * Pow2(c)",
    )
    result = bmc(mutant, queue_constants(1, 1, 1), ["BackoffCapInv"], 4, timeout=60)
    assert result.verdict == "violated" and result.invariant == "BackoffCapInv"


def test_an_event_that_does_not_wake_the_scheduler_violates_kep5142() -> None:
    mutant = _mutant(
        "       ELSE inFlightEvents[q]]\n  /\\ Broadcast",
        "       ELSE inFlightEvents[q]]\n  /\\ UNCHANGED waiting",
    )
    constants = queue_constants(1, 1, 1)
    result = bmc(mutant, constants, ["PopFromBackoffQInv"], 6, timeout=60, incremental=True)
    assert result.verdict == "violated" and result.invariant == "PopFromBackoffQInv"
    assert result.trace[-1].action.startswith("ClusterEvent")
    _replays(result, constants, mutant)


def test_hints_asked_of_plugins_that_did_not_register_the_event_violate_gating() -> None:
    mutant = TEXT
    for old, new in (
        ("Asked(q, pl, e) ==\n  /\\ e \\in Registered[pl]\n  /\\ ", "Asked(q, pl, e) ==\n  "),
        ("pending[q][pl]) /\\ e \\in Registered[pl] /\\ v[q][pl]", "pending[q][pl]) /\\ v[q][pl]"),
    ):
        assert mutant.count(old) == 1, old
        mutant = mutant.replace(old, new)
    module = parse(mutant, "mutant.tla")
    assert check(module).errors == ()
    result = bmc(module, queue_constants(1, 1, 2), ["EventGatedInv"], 5, timeout=60)
    assert result.verdict == "violated" and result.invariant == "EventGatedInv"
    event = result.trace[-1].state["lastEvent"]
    state = result.trace[-1].state
    assert not any(
        (state["rejecting"]["p1"][pl] or state["pending"]["p1"][pl])
        and event in queue_constants(1, 1, 2)["Registered"][pl]
        and state["verdict"]["p1"][pl]
        for pl in ("NodeResourcesFit", "NodeAffinity")
    )


def test_cli_bmc_json_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    small = ["--pods", "1", "--nodes", "1", "--plugins", "1"]
    assert main(["bmc", "queue", "--steps", "3", *small, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["result"] == "holds" and doc["steps"] == 3 and len(doc["invariants"]) == 5
    assert main(["bmc", "queue", "--steps", "8", *small, "--inv", CAP_1S, "--incremental"]) == 1
    out = capsys.readouterr().out
    # the shortest violation is 7 steps long; which action comes last is the model's choice
    # (Fail into backoffQ, or an event moving an unschedulable pod there)
    assert "is violated after 7 steps" in out and re.search(r"^ *7 [A-Za-z]+\(", out, re.M)
    assert 'where["p1"] = "backoffQ"' in out
    assert main(["bmc", "queue", "--steps", "1", "--inv", "Nope"]) == 2
    assert main(["bmc", "queue", "--steps", "3", "--timeout", "1e-9"]) == 3


@pytest.mark.campaign
def test_done_criterion_k8_three_pods_within_60s() -> None:
    started = time.monotonic()
    result = bmc(MODULE, queue_constants(3, 2, 2), INVARIANTS, 8, timeout=120)
    assert (result.verdict, result.steps) == ("holds", 8)
    assert time.monotonic() - started < 60
    found = bmc(MODULE, queue_constants(3, 2, 2), [CAP_1S], 8, timeout=120)
    assert found.verdict == "violated"
