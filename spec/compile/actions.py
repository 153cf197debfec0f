"""The executable backend for state machines: check a step, enumerate successors and initial
states, evaluate an invariant on a state.

A *state* maps each declared variable to a TLA value. Definitions are evaluated by the closures
of :mod:`.python` with the module's constants, the state's variables and the next state's primed
variables (``x'``) bound as free names, so an action is just a definition that reads primed
names: :meth:`StateMachine.is_step` binds both states and evaluates ``Next`` (or any action) to a
boolean, whatever form its constraints take.

Enumerating successors (:meth:`StateMachine.successors`) needs more: as TLC does, it walks
``Next`` left to right, splitting on ``∨``, ``∃``, IF and CASE, entering the definitions ``Next``
reaches (the actions, :func:`.check_actions.actions_of`), and treating the first ``x' = e`` (or
``x' ∈ S``, one successor per element) of an unassigned ``x`` as its assignment; every other
conjunct is a guard evaluated with the primes assigned so far. A guard that reads a prime not
assigned yet is an :class:`EvalError` naming it. Initial states come from ``Init`` the same way,
with unprimed variables.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schedspec.spec import ast as A
from schedspec.spec.check_actions import INIT, NEXT, actions_of
from schedspec.spec.compile.python import Program, compile_module
from schedspec.spec.errors import EvalError
from schedspec.spec.parse import parse_expr
from schedspec.spec.values import Value, render

__all__ = ["State", "StateMachine", "Successor"]

State = dict[str, Value]


@dataclass(frozen=True)
class Successor:
    """A next state and the action (``Pop("p1")``) that leads to it."""

    action: str
    state: State


@dataclass
class _Work:
    """A conjunct still to satisfy, under the bindings of the binders around it."""

    expr: A.Expr
    env: dict[str, Value]


class StateMachine:
    """``module``'s Init/Next over ``constants`` (the values of its CONSTANTS)."""

    def __init__(self, module: A.Module, constants: Mapping[str, Value]) -> None:
        self.module = module
        self.constants = dict(constants)
        self.variables = tuple(b.name for b in module.variables)
        self.program: Program = compile_module(module)
        self.defs = {d.name: d for d in module.definitions}
        self.actions = actions_of(module)
        self._bound: tuple[Any, ...] | None = None

    # -- evaluation -------------------------------------------------------------------------------
    def bind(self, state: Mapping[str, Value], nxt: Mapping[str, Value] | None = None) -> None:
        """Bind the constants, ``state`` and (primed) ``nxt``; memos are kept while unchanged."""
        key = (tuple(state.items()), tuple((nxt or {}).items()))
        if key == self._bound:
            return
        primed = {A.primed(k): v for k, v in (nxt or {}).items()}
        self.program.bind({**self.constants, **state, **primed})
        self._bound = key

    def holds(self, name: str, state: Mapping[str, Value], *args: Value) -> bool:
        """Whether the state predicate ``name(args)`` is TRUE in ``state``."""
        self.bind(state)
        return self._truth(self.program.call(name, *args), name)

    def evaluate(self, formula: str, state: Mapping[str, Value]) -> Value:
        """A free-standing expression (``--inv`` text) evaluated in ``state``."""
        expr = parse_expr(formula)
        self.bind(state)
        probe = A.Module(None, (A.Definition("$probe", (), expr),))
        program = compile_module(probe)
        program.bind(self.program.constants)
        return program.call("$probe")

    def is_step(
        self, state: Mapping[str, Value], nxt: Mapping[str, Value], action: str = NEXT, *args: Value
    ) -> bool:
        """Whether ``state → nxt`` is an ``action(args)`` step (``Next`` by default)."""
        self.bind(state, nxt)
        return self._truth(self.program.call(action, *args), action)

    @staticmethod
    def _truth(v: Value, name: str) -> bool:
        if v is True or v is False:
            return v
        raise EvalError(f"'{name}' must be a boolean, got {render(v)}", A.NO_SPAN)

    # -- enumeration ------------------------------------------------------------------------------
    def initial_states(self) -> list[State]:
        """Every state ``Init`` allows (its ``x = e`` / ``x ∈ S`` conjuncts enumerated)."""
        init = self.defs[INIT]
        out: list[State] = []
        for assigned, _ in self._solve([_Work(init.body, {})], {}, {}, primed=False, label=""):
            out.append(self._complete(assigned, INIT))
        return _distinct(out)

    def successors(
        self, state: Mapping[str, Value], action: str = NEXT, *args: Value
    ) -> list[Successor]:
        """Every ``Next`` step from ``state``, each labelled with the action taken; or only the
        steps of ``action(args)`` (trace validation asks for the step an implementation's
        event names)."""
        d = self.defs[action]
        env = {p.name: v for p, v in zip(d.params, args, strict=True)}
        label = "" if action == NEXT else _label(action, args)
        out: dict[tuple[Any, ...], Successor] = {}
        for assigned, lab in self._solve(
            [_Work(d.body, env)], dict(state), {}, primed=True, label=label
        ):
            s = self._complete(assigned, lab or NEXT)
            out.setdefault(tuple(s.items()), Successor(lab or NEXT, s))
        return list(out.values())

    def _complete(self, assigned: Mapping[str, Value], where: str) -> State:
        missing = [v for v in self.variables if v not in assigned]
        if missing:
            raise EvalError(f"{where} leaves {', '.join(missing)} without a value", A.NO_SPAN)
        return {v: assigned[v] for v in self.variables}

    def _eval(
        self, e: A.Expr, env: Mapping[str, Value], state: State, assigned: State, primed: bool
    ) -> Value:
        if primed:
            self.bind(state, assigned)
        else:
            self.bind(assigned)
        return self.program.closure(e)(dict(env))

    def _target(self, e: A.Expr, primed: bool) -> str | None:
        """The variable ``e`` names, if it is one being assigned (``x'``, or ``x`` in Init)."""
        if not isinstance(e, A.Name):
            return None
        base = A.unprimed(e.name) if primed else e.name
        return base if base in self.variables else None

    def _solve(
        self,
        work: Sequence[_Work],
        state: State,
        assigned: State,
        *,
        primed: bool,
        label: str,
    ) -> Iterator[tuple[State, str]]:
        if not work:
            yield assigned, label
            return
        head, rest = work[0], list(work[1:])
        e, env = head.expr, head.env

        def then(*items: _Work, with_: State | None = None, lab: str | None = None) -> Any:
            return self._solve(
                [*items, *rest],
                state,
                assigned if with_ is None else with_,
                primed=primed,
                label=label if lab is None else lab,
            )

        if isinstance(e, A.Junction):
            if e.op is A.JunctionOp.AND:
                yield from then(*(_Work(i, env) for i in e.items))
            else:
                for item in e.items:
                    yield from then(_Work(item, env))
            return
        if isinstance(e, A.Quant) and e.kind is A.QuantKind.EXISTS:
            for inner in self._bindings(e.bounds, env, state, assigned, primed):
                yield from then(_Work(e.body, inner))
            return
        if isinstance(e, A.Let):
            # as the closures of .python expect: each LET definition sees the LET's bindings
            inner = dict(env)
            for d in e.defs:
                inner["$let:" + d.name] = inner
            yield from then(_Work(e.body, inner))
            return
        if isinstance(e, A.If):
            cond = self._eval(e.cond, env, state, assigned, primed)
            yield from then(_Work(e.then if cond is True else e.else_, env))
            return
        if isinstance(e, A.Case):
            for arm in e.arms:
                if self._eval(arm.guard, env, state, assigned, primed) is True:
                    yield from then(_Work(arm.body, env))
                    return
            if e.other is not None:
                yield from then(_Work(e.other, env))
            return
        if isinstance(e, A.Name | A.Apply) and e.name in self.actions and e.name not in env:
            d = self.defs[e.name]
            args = e.args if isinstance(e, A.Apply) else ()
            values = [self._eval(a, env, state, assigned, primed) for a in args]
            lab = label or _label(e.name, values)
            inner = {p.name: v for p, v in zip(d.params, values, strict=True)}
            yield from then(_Work(d.body, inner), lab=lab)
            return
        if isinstance(e, A.Binary) and e.op in (A.BinOp.EQ, A.BinOp.IN):
            var = self._target(e.left, primed)
            other = e.right
            if var is None and e.op is A.BinOp.EQ:
                var, other = self._target(e.right, primed), e.left
            if var is not None and var not in assigned:
                value = self._eval(other, env, state, assigned, primed)
                choices = [value] if e.op is A.BinOp.EQ else _elements(value, e)
                for v in choices:
                    yield from then(with_={**assigned, var: v})
                return
        try:
            ok = self._eval(e, env, state, assigned, primed)
        except EvalError as err:
            raise _unassigned(err, e) from None
        if ok is True:
            yield from then()
        elif ok is not False:
            raise EvalError(f"a conjunct of an action must be a boolean, got {render(ok)}", e.span)

    def _bindings(
        self,
        bounds: tuple[A.Bound, ...],
        env: Mapping[str, Value],
        state: State,
        assigned: State,
        primed: bool,
    ) -> Iterator[dict[str, Value]]:
        def go(i: int, env: dict[str, Value]) -> Iterator[dict[str, Value]]:
            if i == len(bounds):
                yield env
                return
            b = bounds[i]
            domain = _elements(self._eval(b.domain, env, state, assigned, primed), b.domain)

            def names(j: int, env: dict[str, Value]) -> Iterator[dict[str, Value]]:
                if j == len(b.names):
                    yield from go(i + 1, env)
                    return
                for v in domain:
                    yield from names(j + 1, {**env, b.names[j].name: v})

            yield from names(0, env)

        yield from go(0, dict(env))


def _elements(v: Value, node: A.Expr) -> list[Value]:
    if not isinstance(v, frozenset):
        raise EvalError(f"cannot enumerate {render(v)}: not a finite set", node.span)
    return sorted(v, key=render)


def _label(name: str, args: Sequence[Value]) -> str:
    return f"{name}({', '.join(render(a) for a in args)})" if args else name


def _unassigned(err: EvalError, e: A.Expr) -> EvalError:
    if "free variable '" in err.message and "'' is not bound" in err.message:
        name = err.message.split("'")[1]
        return EvalError(
            f"cannot enumerate successors: {name}' is read before an x' = e assigns it", e.span
        )
    return err


def _distinct(states: list[State]) -> list[State]:
    seen: dict[tuple[Any, ...], State] = {}
    for s in states:
        seen.setdefault(tuple(s.items()), s)
    return list(seen.values())
