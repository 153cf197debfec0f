"""Bounded model checking: a state machine's Init and Next unrolled k steps, as Apalache does.

The constants are concrete (a small universe: three pods, two plugins, …); the states are
symbolic. A state variable's *shape* comes from its value in the first initial state (evaluated
by the executable backend): a function keeps its domain and gets a fresh leaf per key, an
integer, a boolean or a string becomes a free Z3 term (a string: a code into the spec's finite
string universe). Sets and sequences in the state have no fixed shape and are refused; write a
set of plugins as a function ``[Plugins → BOOLEAN]``.

The solver is asked for a behaviour ``s0 → … → sk`` with k ≤ K (Init on s0, Next on each pair)
in which an invariant is FALSE at sk, or in which evaluating Init, Next or an invariant errs (a
key outside a function's DOMAIN, …): by default in one query over every depth at once, or depth
by depth (``incremental``: one query per k on one incremental solver, so the first
counterexample is a shortest one and each depth is timed). *unsat* is "holds for every behaviour
of at most K steps within these constants" — never more; *unknown* (a timeout) is reported as
such, never as holding. A counterexample is read back as concrete states and
replayed on the executable backend, which names each step's action and must agree that each
step is a Next step and that the invariant fails at the end.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import z3

from schedspec.spec import ast as A
from schedspec.spec.check_actions import INIT, NEXT
from schedspec.spec.compile.actions import State, StateMachine
from schedspec.spec.compile.z3.compiler import Compiler
from schedspec.spec.compile.z3.concrete import concrete
from schedspec.spec.compile.z3.errors import CompileTimeout, Z3Unsupported
from schedspec.spec.compile.z3.logic import Bool, SVal, conj, disj, neg
from schedspec.spec.compile.z3.strings import SStr, Universe, string_var
from schedspec.spec.compile.z3.values import SFun, lift
from schedspec.spec.errors import SpecError
from schedspec.spec.parse import parse_expr
from schedspec.spec.values import Fcn, Value, render

__all__ = ["BmcResult", "Step", "bmc"]

Verdict = Literal["holds", "violated", "unknown"]


@dataclass(frozen=True)
class Step:
    """One state of a counterexample and the action that led to it (``Init`` for the first)."""

    action: str
    state: State


@dataclass
class BmcResult:
    verdict: Verdict
    steps: int
    """holds: every behaviour of at most ``steps`` steps; violated: the trace's length; unknown:
    the depth at which the solver gave up."""
    invariant: str | None = None
    trace: list[Step] = field(default_factory=list)
    seconds_per_depth: list[float] = field(default_factory=list)
    reason: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "result": self.verdict,
            "steps": self.steps,
            "invariant": self.invariant,
            "reason": self.reason,
            "seconds_per_depth": [round(t, 3) for t in self.seconds_per_depth],
            "trace": [
                {"action": s.action, "state": {k: _jsonable(v) for k, v in s.state.items()}}
                for s in self.trace
            ],
        }


def bmc(
    module: A.Module,
    constants: Mapping[str, Value],
    invariants: Sequence[str],
    steps: int,
    *,
    timeout: float = 60.0,
    incremental: bool = False,
    on_depth: Callable[[int, float], None] | None = None,
) -> BmcResult:
    """Check ``invariants`` (definition names or formulas) on every behaviour of ≤ ``steps``
    steps. ``timeout`` bounds the whole run (compilation and solving). ``incremental`` asks
    depth by depth (a shortest counterexample, a time per depth, ``on_depth`` called after
    each); otherwise one query covers every depth at once, which solves faster."""
    machine = _Bmc(module, constants, invariants, timeout)
    return machine.run(steps, on_depth, incremental)


class _Bmc:
    def __init__(
        self,
        module: A.Module,
        constants: Mapping[str, Value],
        invariants: Sequence[str],
        timeout: float,
    ) -> None:
        self.deadline = time.monotonic() + timeout
        self.machine = StateMachine(module, constants)
        initial = self.machine.initial_states()
        if not initial:
            raise SpecError("Init allows no state: nothing to check")
        self.shape = initial[0]
        self.universe = Universe()
        self.compiler = Compiler(module, self.universe)
        self.compiler.deadline = self.deadline
        for v in constants.values():
            _code_strings(v, self.universe)
        for v in self.shape.values():
            _code_strings(v, self.universe)
        self.constants = {k: lift(v) for k, v in constants.items()}
        self.invariants = list(invariants)
        self.parsed = {i: e for i in invariants if (e := _as_expr(i, module)) is not None}
        for e in self.parsed.values():
            for node in A.walk(e):
                if isinstance(node, A.Str):
                    self.universe.code(node.value)
        self.states: list[dict[str, SVal]] = []
        self.strings: list[Any] = []
        self.solver = z3.Solver()

    # -- building ---------------------------------------------------------------------------------
    def state(self, i: int) -> dict[str, SVal]:
        while len(self.states) <= i:
            n = len(self.states)
            self.states.append({k: self.fresh(v, f"{k}@{n}") for k, v in self.shape.items()})
        return self.states[i]

    def fresh(self, v: Value, name: str) -> SVal:
        if v is True or v is False:
            return z3.Bool(name)
        if isinstance(v, int):
            return z3.Int(name)
        if isinstance(v, str):
            s = string_var(name)
            self.strings.append(s)
            return SStr(s)
        if isinstance(v, Fcn):
            return SFun({k: (True, self.fresh(x, f"{name}[{render(k)}]")) for k, x in v.items()})
        what = "a set" if isinstance(v, frozenset) else type(v).__name__
        raise Z3Unsupported(
            f"state variable {name.split('@')[0]} holds {what}: bounded model checking needs "
            "functions, integers, booleans and strings (write a set as [S -> BOOLEAN])"
        )

    def formula(self, name: str, env: Mapping[str, SVal]) -> tuple[Bool, Bool]:
        """(value, error condition) of definition or formula ``name`` with ``env`` bound."""
        self.compiler.bind({**self.constants, **env})
        expr = self.parsed.get(name)
        result = self.compiler.call(name) if expr is None else self.compiler.expr(expr, {})
        value = result.value
        if not (value is True or value is False or z3.is_bool(value)):
            raise Z3Unsupported(f"'{name}' is not a boolean")
        return value, result.error

    def step_env(self, i: int) -> dict[str, SVal]:
        nxt = {A.primed(k): v for k, v in self.state(i + 1).items()}
        return {**self.state(i), **nxt}

    # -- the loop ---------------------------------------------------------------------------------
    def run(
        self, steps: int, on_depth: Callable[[int, float], None] | None, incremental: bool
    ) -> BmcResult:
        try:
            init, init_err = self.formula(INIT, self.state(0))
            self.solver.add(_z(conj(init, neg(init_err))))
            if incremental:
                return self.by_depth(steps, init_err, on_depth)
            return self.at_once(steps, init_err)
        except CompileTimeout:
            return BmcResult("unknown", 0, reason="timeout while building the formula")

    def violation(self, k: int, last: bool) -> tuple[Bool, Bool]:
        """(an invariant fails or errs at s_k, or Next errs from s_k; Next on s_k → s_k+1)."""
        checks = [self.formula(i, self.state(k)) for i in self.invariants]
        bad = [disj(neg(v), e) for v, e in checks]
        step, step_err = (True, False) if last else self.formula(NEXT, self.step_env(k))
        return disj(*bad, step_err), conj(step, neg(step_err))

    def at_once(self, steps: int, init_err: Bool) -> BmcResult:
        """One query: a violation at any depth ≤ ``steps`` (faster than depth by depth; the
        counterexample is cut at its first violation but need not be the shortest)."""
        started = time.monotonic()
        bad = [init_err]
        for k in range(steps + 1):
            b, step = self.violation(k, k == steps)
            bad.append(b)
            self.solver.add(_z(step))
        verdict = self.check(disj(*bad))
        took = [time.monotonic() - started]
        if verdict == z3.sat:
            return self.counterexample(steps, took)
        if verdict == z3.unknown:
            return BmcResult("unknown", steps, seconds_per_depth=took, reason=self.reason())
        return BmcResult("holds", steps, seconds_per_depth=took)

    def by_depth(
        self, steps: int, init_err: Bool, on_depth: Callable[[int, float], None] | None
    ) -> BmcResult:
        """Depth by depth: the first counterexample found is a shortest one."""
        times: list[float] = []
        for k in range(steps + 1):
            started = time.monotonic()
            bad, step = self.violation(k, k == steps)
            verdict = self.check(disj(bad, init_err if k == 0 else False))
            times.append(time.monotonic() - started)
            if verdict == z3.sat:
                return self.counterexample(k, times)
            if verdict == z3.unknown:
                return BmcResult("unknown", k, seconds_per_depth=times, reason=self.reason())
            self.solver.add(_z(step))
            if on_depth is not None:
                on_depth(k, times[-1])
        return BmcResult("holds", steps, seconds_per_depth=times)

    def reason(self) -> str:
        why = self.solver.reason_unknown()
        return "timeout" if time.monotonic() >= self.deadline or "timeout" in why else why

    def check(self, query: Bool) -> Any:
        left = self.deadline - time.monotonic()
        if left <= 0:
            return z3.unknown
        self.solver.set("timeout", max(1, int(left * 1000)))
        n = len(self.universe)
        self.solver.push()
        try:
            for s in self.strings:
                self.solver.add(z3.ULT(s, n))
            self.solver.add(_z(query))
            verdict = self.solver.check()
            self.model = self.solver.model() if verdict == z3.sat else None
            return verdict
        finally:
            self.solver.pop()

    # -- counterexamples --------------------------------------------------------------------------
    def counterexample(self, k: int, times: list[float]) -> BmcResult:
        model = self.model
        states: list[State] = []
        for i in range(k + 1):
            states.append({n: concrete(v, model, self.universe) for n, v in self.state(i).items()})
            if self.failing(states[-1]) is not None:
                break
        trace = [Step(INIT, states[0])]
        for before, after in itertools.pairwise(states):
            trace.append(Step(self.replay(before, after), after))
        failed = self.failing(states[-1]) or "an evaluation error of Init or Next"
        return BmcResult("violated", len(states) - 1, failed, trace, times)

    def replay(self, before: State, after: State) -> str:
        """The action the executable backend names for ``before → after`` (it must be one)."""
        if not self.machine.is_step(before, after):
            raise SpecError("the Z3 backend's step is not a Next step on the executable backend")
        for succ in self.machine.successors(before):
            if succ.state == after:
                return succ.action
        return NEXT

    def failing(self, state: State) -> str | None:
        """The first invariant ``state`` violates (on the executable backend), or None."""
        for name in self.invariants:
            try:
                ok = (
                    self.machine.holds(name, state)
                    if name not in self.parsed
                    else self.machine.evaluate(name, state) is True
                )
            except SpecError as err:
                return f"{name} (evaluation error: {err})"
            if not ok:
                return str(name)
        return None


def _as_expr(text: str, module: A.Module) -> A.Expr | None:
    """None for a zero-arity definition's name, else the formula ``text`` parses to."""
    if any(d.name == text and not d.params for d in module.definitions):
        return None
    return parse_expr(text, "<invariant>")


def _z(b: Bool) -> Any:
    return z3.BoolVal(b) if b is True or b is False else b


def _code_strings(v: Value, universe: Universe) -> None:
    if isinstance(v, str):
        universe.code(v)
    elif isinstance(v, Fcn):
        for k, x in v.items():
            _code_strings(k, universe)
            _code_strings(x, universe)
    elif isinstance(v, frozenset | tuple):
        for x in v:
            _code_strings(x, universe)


def _jsonable(v: Value) -> Any:
    if isinstance(v, Fcn):
        return {render(k) if not isinstance(k, str) else k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, frozenset):
        return sorted((_jsonable(x) for x in v), key=repr)
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    return v
