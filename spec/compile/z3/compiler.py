"""The compiler: path conditions, error conditions, memoised definitions, dispatch."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from schedspec.spec import ast as A
from schedspec.spec.compile.z3.equality import _Ops, _ShapeMismatch
from schedspec.spec.compile.z3.errors import CompileTimeout, Z3Unsupported
from schedspec.spec.compile.z3.handlers import _HANDLERS
from schedspec.spec.compile.z3.logic import Bool, SVal, _is_bool, _is_int, _is_op, conj, disj
from schedspec.spec.compile.z3.strings import Universe
from schedspec.spec.compile.z3.values import SSet, _InfiniteSet, kind


@dataclass
class Result:
    """A compiled term: its symbolic value and when evaluating it is an error (with why)."""

    value: SVal
    errors: list[tuple[Bool, str]]

    @property
    def error(self) -> Bool:
        return disj(*(c for c, _ in self.errors))


class _Frame:
    __slots__ = ("errors", "known", "pc")

    def __init__(self) -> None:
        self.pc: list[Bool] = []
        self.errors: dict[str, list[Bool]] = {}
        self.known: dict[int, int] = {}  # ids of terms the path condition asserts, with counts


def _asserted(b: Any, cache: dict[int, tuple[Any, list[int]]]) -> list[int]:
    """Ids of the terms ``b`` asserts: itself and, for a conjunction, its conjuncts. ``cache``
    holds each term it answers for, so no id in it can be reused by another term."""
    key = b.get_id()
    hit = cache.get(key)
    if hit is not None:
        return hit[1]
    ids = [key]
    if _is_op(b, z3.Z3_OP_AND):
        for x in b.children():
            ids += _asserted(x, cache)
    cache[key] = (b, ids)
    return ids


Env = dict[str, Any]


class Compiler:
    """Evaluate definitions of ``module`` on symbolic ``constants`` (bind them first)."""

    def __init__(self, module: A.Module, universe: Universe) -> None:
        self.module = module
        self.u = universe
        self.ops = _Ops(universe)
        self.defs = {d.name: d for d in module.definitions}
        self.constants: dict[str, SVal] = {}
        self._memo: dict[tuple[str, tuple[Any, ...]], tuple[SVal, list[tuple[Bool, str]]]] = {}
        self._frames: list[_Frame] = []
        self._asserted: dict[int, tuple[Any, list[int]]] = {}
        self._depth = 0
        self.deadline: float | None = None  # time.monotonic() value; past it, CompileTimeout
        self.approximated: set[str] = set()  # float64 kernels compiled as a relaxation (floats.py)
        self._relaxed: dict[tuple[str, tuple[Any, ...]], frozenset[str]] = {}  # … per memo entry
        for s in _string_literals(module):
            universe.code(s)

    def bind(self, constants: Mapping[str, SVal]) -> Compiler:
        self.constants = dict(constants)
        self._memo.clear()
        self._relaxed.clear()
        return self

    # -- public -----------------------------------------------------------------------------------
    def call(self, name: str, *args: SVal) -> Result:
        d = self.defs.get(name)
        if d is None:
            raise Z3Unsupported(f"no definition named '{name}' in {self._module_name()}")
        if len(d.params) != len(args):
            raise Z3Unsupported(f"'{name}' takes {len(d.params)} argument(s), given {len(args)}")
        return self._top(lambda: self._invoke(d, args, None))

    def expr(self, node: A.Expr, env: Env) -> Result:
        """Evaluate a free-standing expression (a ``find`` formula) with ``env`` bound."""
        return self._top(lambda: self.ev(node, dict(env)))

    def _module_name(self) -> str:
        return f"module {self.module.name or self.module.file}"

    def _top(self, run: Callable[[], SVal]) -> Result:
        self._frames.append(_Frame())
        try:
            value = run()
        finally:
            frame = self._frames.pop()
        return Result(value, [(disj(*cs), msg) for msg, cs in frame.errors.items()])

    # -- path conditions and errors ---------------------------------------------------------------
    @property
    def _frame(self) -> _Frame:
        return self._frames[-1]

    def _pc(self) -> Bool:
        return conj(*self._frame.pc)

    def fail(self, cond: Bool, message: str, span: A.Span) -> None:
        """Evaluation errs when the path condition and ``cond`` hold. A ``cond`` that negates a
        term the path condition asserts (``k ∈ DOMAIN f ∧ f[k]``) is dropped at once."""
        if cond is False:
            return
        if (
            cond is not True
            and _is_op(cond, z3.Z3_OP_NOT)
            and cond.arg(0).get_id() in self._frame.known
        ):
            return
        c = conj(self._pc(), cond)
        if c is False:
            return
        self._frame.errors.setdefault(f"{span}: {message}", []).append(c)

    def _under(self, cond: Bool, run: Callable[[], SVal]) -> SVal:
        if cond is False:
            return None
        if cond is True:
            return run()
        frame = self._frame
        frame.pc.append(cond)
        ids = _asserted(cond, self._asserted)
        known = frame.known
        for i in ids:
            known[i] = known.get(i, 0) + 1
        try:
            return run()
        finally:
            frame.pc.pop()
            for i in ids:
                if known[i] == 1:
                    del known[i]
                else:
                    known[i] -= 1

    # -- evaluation -------------------------------------------------------------------------------
    def ev(self, node: A.Expr, env: Env) -> SVal:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise Z3Unsupported(
                f"{node.span}: the Z3 backend has no rule for {type(node).__name__}"
            )
        return handler(self, node, env)

    def _invoke(self, d: A.Definition, args: Sequence[SVal], node: A.Expr | None) -> SVal:
        key = (d.name, tuple(_memo_key(a) for a in args))
        hit = self._memo.get(key)
        if hit is None:
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise CompileTimeout(d.name)
            self._depth += 1
            if self._depth > 200:
                raise Z3Unsupported(f"{d.span}: '{d.name}' recurses too deeply for the Z3 backend")
            self._frames.append(_Frame())
            outer, self.approximated = self.approximated, set()
            try:
                env = {p.name: a for p, a in zip(d.params, args, strict=True)}
                value = self.ev(d.body, env)
            finally:
                frame = self._frames.pop()
                self._depth -= 1
                self._relaxed[key] = frozenset(self.approximated)
                self.approximated = outer
            hit = (value, [(disj(*cs), msg) for msg, cs in frame.errors.items()])
            self._memo[key] = hit
        self.approximated |= self._relaxed.get(key, frozenset())
        value, errors = hit
        for cond, msg in errors:
            c = conj(self._pc(), cond)
            if c is not False:
                self._frame.errors.setdefault(msg, []).append(c)
        return value

    # checks of kinds (static in this backend: shapes are concrete)
    def boolean(self, v: SVal, node: A.Expr, what: str) -> Bool:
        if _is_bool(v):
            return v
        self.fail(True, f"{what} must be a boolean, got {kind(v)}", node.span)
        return False

    def integer(self, v: SVal, node: A.Expr, what: str) -> Any:
        if _is_int(v):
            return v
        self.fail(True, f"{what} must be an integer, got {kind(v)}", node.span)
        return 0

    def finite_set(self, v: SVal, node: A.Expr, what: str) -> SSet:
        if v.__class__ is SSet:
            return v
        if isinstance(v, _InfiniteSet):
            raise Z3Unsupported(f"{node.span}: {what}: cannot enumerate the infinite set {v.name}")
        self.fail(True, f"{what} must be a set, got {kind(v)}", node.span)
        return SSet([])

    def merge(self, c: Bool, a: SVal, b: SVal, node: A.Expr) -> SVal:
        try:
            return self.ops.merge(c, a, b)
        except _ShapeMismatch as err:
            raise Z3Unsupported(
                f"{node.span}: the arms have different shapes ({err}) under a symbolic "
                "condition; the Z3 backend needs both arms of one shape"
            ) from None

    def binders(self, bounds: Sequence[A.Bound], env: Env) -> Iterator[tuple[Bool, Env]]:
        """Every combination of ``x ∈ S, y ∈ T`` with the guard that all are members; each domain
        sees the variables bound before it."""

        def go(i: int, guard: Bool, env: Env) -> Iterator[tuple[Bool, Env]]:
            if i == len(bounds):
                yield guard, env
                return
            b = bounds[i]
            names = [n.name for n in b.names]

            def expand(j: int, guard: Bool, env: Env) -> Iterator[tuple[Bool, Env]]:
                if j == len(names):
                    yield from go(i + 1, guard, env)
                    return
                dom = self._under(guard, lambda: self.ev(b.domain, env))
                s = self.finite_set(dom, b.domain, "the domain of a bound variable")
                for g, e in s.present():
                    inner = dict(env)
                    inner[names[j]] = e
                    gg = conj(guard, g)
                    if gg is not False:
                        yield from expand(j + 1, gg, inner)

            yield from expand(0, guard, env)

        yield from go(0, True, env)


def _memo_key(v: SVal) -> Any:
    c = v.__class__
    if c is bool or c is int or c is str:
        return (c, v)
    if z3.is_expr(v):
        return ("z3", v.get_id())
    return ("obj", id(v))


def _string_literals(module: A.Module) -> list[str]:
    out: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, A.Str):
            out.append(x.value)
            return
        if isinstance(x, tuple):
            for y in x:
                walk(y)
            return
        if hasattr(x, "__dataclass_fields__"):
            for name in x.__dataclass_fields__:
                if name != "span":
                    walk(getattr(x, name))

    for d in module.definitions:
        walk(d.body)
    return out
