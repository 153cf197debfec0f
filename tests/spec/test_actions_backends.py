"""The two backends on actions: steps, successors, and BMC agreeing with explicit search."""

from __future__ import annotations

import itertools

import pytest

from schedspec.spec.compile.actions import State, StateMachine
from schedspec.spec.compile.z3.bmc import bmc
from schedspec.spec.errors import EvalError
from schedspec.spec.parse import parse
from schedspec.spec.values import Fcn
from tests.spec.test_actions import COUNTER

PODS = {"Pods": frozenset({"a", "b"})}


def _machine(text: str = COUNTER) -> StateMachine:
    return StateMachine(parse(text, "counter.tla"), PODS)


def _at(**where: str) -> Fcn:
    return Fcn({"a": "none", "b": "none", **where})


def test_initial_states_and_successors() -> None:
    sm = _machine()
    (s0,) = sm.initial_states()
    assert s0 == {"x": 0, "at": _at()}
    got = {(s.action, s.state["x"], s.state["at"]) for s in sm.successors(s0)}
    assert got == {
        ("Inc", 1, _at()),
        ('Put("a")', 0, _at(a="here")),
        ('Put("a")', 10, _at(a="here")),
        ('Put("b")', 0, _at(b="here")),
        ('Put("b")', 10, _at(b="here")),
    }


def test_is_step_agrees_with_successors() -> None:
    sm = _machine()
    (s0,) = sm.initial_states()
    successors = [s.state for s in sm.successors(s0)]
    candidates = [{"x": x, "at": at} for x in (0, 1, 2, 10) for at in (_at(), _at(a="here"))]
    for nxt in candidates:
        assert sm.is_step(s0, nxt) == (nxt in successors), nxt
    assert sm.is_step(s0, {"x": 1, "at": _at()}, "Inc")
    assert not sm.is_step(s0, {"x": 1, "at": _at()}, "Put", "a")


def test_a_guard_reading_an_unassigned_prime_is_named() -> None:
    text = "VARIABLES x\nInit == x = 0\nNext == x' > x /\\ x' = x + 1\n"
    sm = StateMachine(parse(text, "t.tla"), {})
    with pytest.raises(EvalError, match="x' is read before"):
        sm.successors({"x": 0})


def _explicit_violation(sm: StateMachine, inv: str, steps: int) -> int | None:
    """The depth of the first violation by breadth-first search, or None within ``steps``."""
    frontier: list[State] = sm.initial_states()
    for depth in range(steps + 1):
        if any(not sm.evaluate(inv, s) for s in frontier):
            return depth
        frontier = [n.state for s in frontier for n in sm.successors(s)]
    return None


@pytest.mark.parametrize(
    "inv", ["x < 12", "x < 21", "x # 3", "x < 30", '\\A p \\in Pods : at[p] # "here" \\/ x # 1']
)
def test_z3_bmc_agrees_with_explicit_search(inv: str) -> None:
    module = parse(COUNTER, "counter.tla")
    steps = 3
    expected = _explicit_violation(StateMachine(module, PODS), inv, steps)
    result = bmc(module, PODS, [inv], steps, timeout=30, incremental=True)
    if expected is None:
        assert result.verdict == "holds" and result.steps == steps
        return
    assert result.verdict == "violated" and result.steps == expected
    sm = StateMachine(module, PODS)
    states = [s.state for s in result.trace]
    assert states[0] in sm.initial_states()
    for before, after in itertools.pairwise(states):
        assert sm.is_step(before, after)
    assert not sm.evaluate(inv, states[-1])


def test_at_once_and_by_depth_agree() -> None:
    module = parse(COUNTER, "counter.tla")
    for inv in ("x < 12", "x < 30"):
        a = bmc(module, PODS, [inv], 3, timeout=30)
        b = bmc(module, PODS, [inv], 3, timeout=30, incremental=True)
        assert a.verdict == b.verdict


def test_a_timeout_is_unknown_never_holds() -> None:
    module = parse(COUNTER, "counter.tla")
    result = bmc(module, PODS, ["x < 30"], 3, timeout=1e-9)
    assert result.verdict == "unknown"
