"""The Z3 backend: a checked definition evaluated symbolically over a bounded cluster.

The executable backend (:mod:`.python`) evaluates a definition on concrete TLA values. This one
evaluates the same AST on *symbolic* values: the shape of every value is concrete (a record's
fields, a set's candidate elements, a sequence's slots) while its leaves may be Z3 terms. A view
of a bounded symbolic cluster (:mod:`schedspec.spec.kube.symbolic`) supplies such values, and the
result of a definition is a Z3 term over the cluster's leaves that a solver can satisfy.

Representation (concrete Python values are used wherever a value is known, and operations fold
them, so the formula only carries what the bounds leave open):

| TLA+        | symbolic value                                                                   |
|-------------|----------------------------------------------------------------------------------|
| BOOLEAN     | ``bool`` or a Z3 ``BoolRef``                                                      |
| Int         | ``int`` or a Z3 ``ArithRef``                                                      |
| STRING      | ``str`` or :class:`SStr` (a Z3 integer indexing the finite string universe)       |
| set         | :class:`SSet`: candidate elements, each with a guard (a Z3 bool: "is a member")   |
| sequence    | :class:`SSeq`: slots with prefix-closed guards (slot i present ⇒ slot i−1 present)|
| function    | :class:`SFun`: entries (guard, key, value), present keys distinct; records too    |
| LAMBDA      | :class:`SLambda`                                                                  |

**Errors are formulas.** Wherever the executable backend raises an :class:`EvalError` (a missing
field, a key outside a function's DOMAIN, ``Max`` of an empty set, no CASE arm), this backend
records the condition under which evaluation reaches it: the *path condition* (the guards of the
enclosing IF/CASE arms, the earlier conjuncts of ``∧``, the membership guard of a quantified
element) conjoined with the local cause. :attr:`Result.error` is the disjunction, so a query can
ask for clusters on which the definition is defined, or on which one spec errs and another does
not. One over-approximation, stated: the executable backend stops a quantifier at the first
element that decides it, in set order; here every element's body counts, so a witness on which
:attr:`Result.error` is false never depends on iteration order.

Not compiled (a :class:`Z3Unsupported` error naming the spot): the Go float64 score kernels
(``FloatScale``, ``BalancedScore``, ``SpreadScore``), ``SortSet`` and ``FoldLeft`` over sequences
whose length is not fixed by the bounds, ``GroupBy``, infinite sets other than in ``∈``, and
``IF``/``CASE`` arms of different shapes under a symbolic condition.

Module definitions are evaluated once per argument tuple (as in :mod:`.python`), with their error
conditions kept relative to the definition body and re-anchored at each call site.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS, CONSTANTS, is_int
from schedspec.spec.errors import SpecError

__all__ = [
    "Compiler",
    "Result",
    "SFun",
    "SLambda",
    "SSeq",
    "SSet",
    "SStr",
    "Universe",
    "Z3Unsupported",
    "as_z3bool",
    "conj",
    "disj",
    "neg",
    "sym_eq",
]

Bool = Any  # bool | z3.BoolRef
SVal = Any  # bool | int | str | z3 term | SStr | SSet | SSeq | SFun | SLambda


class Z3Unsupported(SpecError):
    """A construct the Z3 backend cannot compile; the message names it and where it is."""


class CompileTimeout(Exception):
    """Building the formula ran past the caller's deadline (an *unknown*, never an *unsat*)."""


# ---- strings ------------------------------------------------------------------------------------


class Universe:
    """The finite set of strings a symbolic string may take, each with an integer code."""

    def __init__(self, strings: Iterable[str] = ()) -> None:
        self.strings: list[str] = []
        self._code: dict[str, int] = {}
        for s in strings:
            self.code(s)

    def code(self, s: str) -> int:
        c = self._code.get(s)
        if c is None:
            if len(self.strings) == 1 << STRING_BITS:
                raise Z3Unsupported(
                    f"more than {1 << STRING_BITS} distinct strings (spec literals and the "
                    f"cluster's label keys and values): the Z3 backend codes strings in "
                    f"{STRING_BITS} bits"
                )
            c = self._code[s] = len(self.strings)
            self.strings.append(s)
        return c

    def known(self, s: str) -> int | None:
        return self._code.get(s)

    def __len__(self) -> int:
        return len(self.strings)


STRING_BITS = 8
"""Strings are codes into the universe, held in Z3 bit-vectors: equalities between them
bit-blast to SAT, which decides these finite-domain problems far faster than integer arithmetic.
Eight bits hold both specs' literals and the bounded cluster's strings (about 70) with room for a
query's own; halving the width from 16 halved the solve time of a 30 × 30 Feasible query."""


def string_var(name: str) -> Any:
    return z3.BitVec(name, STRING_BITS)


@functools.cache
def string_val(code: int) -> Any:
    return z3.BitVecVal(code, STRING_BITS)


class SStr:
    """A symbolic string: ``z`` is a Z3 bit-vector, the code of a string of the universe."""

    __slots__ = ("z",)

    def __init__(self, z: Any) -> None:
        self.z = z

    def __repr__(self) -> str:
        return f"SStr({self.z})"


# ---- boolean helpers (folding concrete operands) -------------------------------------------------


# Python booleans are folded; Z3 terms are combined through the C API directly (the Python
# wrappers' argument coercion dominated compile time). A Z3 term is never the literal true/false:
# every constant is kept as a Python bool (see :func:`merge`).


def _mk(op: Callable[..., Any], out: list[Any]) -> Any:
    ctx = out[0].ctx
    arr = (z3.Ast * len(out))()
    for i, b in enumerate(out):
        arr[i] = b.as_ast()
    return z3.BoolRef(op(ctx.ref(), len(out), arr), ctx)


def conj(*bs: Bool) -> Bool:
    out = []
    for b in bs:
        if b is True:
            continue
        if b is False:
            return False
        out.append(b)
    if not out:
        return True
    return out[0] if len(out) == 1 else _mk(z3.Z3_mk_and, out)


def disj(*bs: Bool) -> Bool:
    out = []
    for b in bs:
        if b is False:
            continue
        if b is True:
            return True
        out.append(b)
    if not out:
        return False
    return out[0] if len(out) == 1 else _mk(z3.Z3_mk_or, out)


def _is_op(b: Any, kind: int) -> bool:
    """Whether the Z3 term ``b`` applies the built-in operator ``kind`` (through the C API)."""
    ref, ast = b.ctx.ref(), b.as_ast()
    return bool(
        z3.Z3_get_ast_kind(ref, ast) == z3.Z3_APP_AST
        and z3.Z3_get_decl_kind(ref, z3.Z3_get_app_decl(ref, ast)) == kind
    )


def neg(b: Bool) -> Bool:
    if b is True or b is False:
        return not b
    if _is_op(b, z3.Z3_OP_NOT):
        return b.arg(0)
    return z3.BoolRef(z3.Z3_mk_not(b.ctx.ref(), b.as_ast()), b.ctx)


def implies(a: Bool, b: Bool) -> Bool:
    return disj(neg(a), b)


def _ite(c: Bool, a: Any, b: Any) -> Any:
    if c is True:
        return a
    if c is False:
        return b
    if a is b:
        return a
    if a.__class__ is int:
        a = z3.IntVal(a)
    if b.__class__ is int:
        b = z3.IntVal(b)
    if a.__class__ is bool or b.__class__ is bool or not (z3.is_expr(a) and z3.is_expr(b)):
        return z3.If(c, a, b)
    if isinstance(a, z3.BoolRef):
        ref: type = z3.BoolRef
    elif isinstance(a, z3.BitVecRef):
        ref = z3.BitVecRef
    elif isinstance(a, z3.ArithRef):
        ref = z3.ArithRef
    else:
        return z3.If(c, a, b)
    ctx = c.ctx
    return ref(z3.Z3_mk_ite(ctx.ref(), c.as_ast(), a.as_ast(), b.as_ast()), ctx)


def _eq(a: Any, b: Any) -> Any:
    """``a = b`` for two Z3 terms of one sort, through the C API."""
    ctx = a.ctx
    return z3.BoolRef(z3.Z3_mk_eq(ctx.ref(), a.as_ast(), b.as_ast()), ctx)


def _is_bool(v: SVal) -> bool:
    return v is True or v is False or z3.is_bool(v)


def _is_int(v: SVal) -> bool:
    return (v.__class__ is int) or (z3.is_expr(v) and z3.is_int(v))


# ---- collections --------------------------------------------------------------------------------


@dataclass(eq=False)
class SSet:
    """A set: each candidate element is a member when its guard holds. ``distinct`` promises that
    no two present candidates are equal (so counting needs no pairwise comparison)."""

    items: list[tuple[Bool, SVal]]
    distinct: bool = False

    def present(self) -> Iterator[tuple[Bool, SVal]]:
        return ((g, e) for g, e in self.items if g is not False)


@dataclass(eq=False)
class SSeq:
    """A sequence: slot i is present when its guard holds, and guards are prefix-closed."""

    items: list[tuple[Bool, SVal]]


@dataclass(eq=False)
class SFun:
    """A function or record. ``entries`` maps a concrete key to (guard, value); ``symbolic``
    holds entries whose key is symbolic. Present keys are pairwise distinct."""

    entries: dict[Any, tuple[Bool, SVal]] = field(default_factory=dict)
    symbolic: list[tuple[Bool, SVal, SVal]] = field(default_factory=list)
    ident: Any = None
    """An object's identity (an integer, or a Z3 integer for a symbolic choice): two records
    with identities are equal exactly when the identities are (a pod or node of the cluster)."""

    def all(self) -> Iterator[tuple[Bool, SVal, SVal]]:
        for k, (g, v) in self.entries.items():
            if g is not False:
                yield g, k, v
        for g, k, v in self.symbolic:
            if g is not False:
                yield g, k, v


def srecord(**fields: SVal) -> SFun:
    """A record whose fields are all present."""
    return SFun({k: (True, v) for k, v in fields.items()})


@dataclass(eq=False)
class SLambda:
    arity: int
    call: Callable[..., SVal]
    text: str


@dataclass(frozen=True)
class _InfiniteSet:
    name: str


def kind(v: SVal) -> str:
    if _is_bool(v):
        return "boolean"
    if _is_int(v):
        return "integer"
    if v.__class__ is str or v.__class__ is SStr:
        return "string"
    if v.__class__ is SSet:
        return "set"
    if v.__class__ is SSeq:
        return "sequence"
    if v.__class__ is SFun:
        return "function"
    if v.__class__ is SLambda:
        return "LAMBDA"
    return type(v).__name__


# ---- equality and merging -----------------------------------------------------------------------


class _Ops:
    """Operations that need the string universe."""

    def __init__(self, universe: Universe) -> None:
        self.u = universe

    def str_term(self, s: SVal) -> Any:
        return s.z if s.__class__ is SStr else string_val(self.u.code(s))

    def eq(self, a: SVal, b: SVal) -> Bool:
        if a is b:
            return True
        ka, kb = a.__class__, b.__class__
        if ka is str and kb is str:
            return a == b
        if ka is SStr or kb is SStr:
            if ka is str:
                c = self.u.known(a)
                return False if c is None else _eq(b.z, string_val(c))
            if kb is str:
                c = self.u.known(b)
                return False if c is None else _eq(a.z, string_val(c))
            return _eq(a.z, b.z)
        if ka is int and kb is int:
            return a == b
        if (ka is bool or ka is int) and (kb is bool or kb is int):
            return a == b if ka is kb else False
        if z3.is_expr(a) or z3.is_expr(b):
            return a == b
        if ka is SSeq and kb is SSeq:
            return self._seq_eq(a, b)
        if ka is SSet and kb is SSet:
            return conj(self.subset(a, b), self.subset(b, a))
        if ka is SFun and kb is SFun:
            if a.ident is not None and b.ident is not None:
                ia, ib = a.ident, b.ident
                if ia.__class__ is int and ib.__class__ is int:
                    return ia == ib
                return _z3int(ia) == _z3int(ib)
            return self._fun_eq(a, b)
        return False

    def _seq_eq(self, a: SSeq, b: SSeq) -> Bool:
        n = max(len(a.items), len(b.items))
        parts = []
        for i in range(n):
            ga, ea = a.items[i] if i < len(a.items) else (False, None)
            gb, eb = b.items[i] if i < len(b.items) else (False, None)
            if ga is False and gb is False:
                break
            if ga is False or gb is False:
                parts.append(neg(disj(ga, gb)))
                continue
            same = self.eq(ea, eb)
            parts.append(conj(_iff(ga, gb), implies(ga, same)))
            if parts[-1] is False:
                return False
        return conj(*parts)

    def _fun_eq(self, a: SFun, b: SFun) -> Bool:
        if not a.symbolic and not b.symbolic:
            parts = []
            for k in a.entries.keys() | b.entries.keys():
                ga, va = a.entries.get(k, (False, None))
                gb, vb = b.entries.get(k, (False, None))
                if ga is False and gb is False:
                    continue
                if ga is False or gb is False:
                    parts.append(neg(disj(ga, gb)))
                else:
                    parts.append(conj(_iff(ga, gb), implies(ga, self.eq(va, vb))))
                if parts[-1] is False:
                    return False
            return conj(*parts)
        da, db = self.domain(a), self.domain(b)
        same_domain = conj(self.subset(da, db), self.subset(db, da))
        values = [implies(g, self.eq(v, self.apply(b, k)[0])) for g, k, v in a.all()]
        return conj(same_domain, *values)

    def member(self, x: SVal, s: SSet) -> Bool:
        return disj(*(conj(g, self.eq(x, e)) for g, e in s.present()))

    def subset(self, a: SSet, b: SSet) -> Bool:
        return conj(*(implies(g, self.member(e, b)) for g, e in a.present()))

    def domain(self, f: SFun) -> SSet:
        return SSet([(g, k) for g, k, _ in f.all()], distinct=True)

    def has_key(self, f: SFun, k: SVal) -> Bool:
        if k.__class__ is not SStr and not z3.is_expr(k) and not f.symbolic:
            try:
                return f.entries.get(k, (False, None))[0]
            except TypeError:
                pass
        return disj(*(conj(g, self.eq(k, key)) for g, key, _ in f.all()))

    def apply(self, f: SFun, k: SVal) -> tuple[SVal, Bool]:
        """``f[k]`` and the condition under which k is in the domain."""
        if k.__class__ is not SStr and not z3.is_expr(k) and not f.symbolic:
            try:
                g, v = f.entries.get(k, (False, None))
            except TypeError:
                g, v = False, None
            if g is False:
                return None, False
            return v, g
        cases = [(conj(g, self.eq(k, key)), v) for g, key, v in f.all()]
        cases = [(c, v) for c, v in cases if c is not False]
        if not cases:
            return None, False
        value = cases[-1][1]
        for c, v in reversed(cases[:-1]):
            value = self.merge(c, v, value)
        return value, disj(*(c for c, _ in cases))

    def merge(self, c: Bool, a: SVal, b: SVal) -> SVal:
        """IF c THEN a ELSE b, for values of the same kind."""
        if c is True or a is b:
            return a
        if c is False:
            return b
        if a is None:
            return b
        if b is None:
            return a
        ka, kb = a.__class__, b.__class__
        if (ka is str or ka is SStr) and (kb is str or kb is SStr):
            if ka is str and kb is str and a == b:
                return a
            return SStr(_ite(c, self.str_term(a), self.str_term(b)))
        if _is_bool(a) and _is_bool(b):
            return bool_ite(c, a, b)
        if _is_int(a) and _is_int(b):
            return _ite(c, _z3int(a), _z3int(b))
        if ka is SSet and kb is SSet:
            # Members of the two arms are never present together: distinctness survives.
            return SSet(
                [(conj(c, g), e) for g, e in a.present()]
                + [(conj(neg(c), g), e) for g, e in b.present()],
                a.distinct and b.distinct,
            )
        if ka is SSeq and kb is SSeq:
            n = max(len(a.items), len(b.items))
            items = []
            for i in range(n):
                ga, ea = a.items[i] if i < len(a.items) else (False, None)
                gb, eb = b.items[i] if i < len(b.items) else (False, None)
                items.append((bool_ite(c, ga, gb), self.merge(c, ea, eb)))
            return SSeq(items)
        if ka is SFun and kb is SFun:
            entries: dict[Any, tuple[Bool, SVal]] = {}
            for k in a.entries.keys() | b.entries.keys():
                ga, va = a.entries.get(k, (False, None))
                gb, vb = b.entries.get(k, (False, None))
                entries[k] = (bool_ite(c, ga, gb), self.merge(c, va, vb))
            symbolic = [(conj(c, g), k, v) for g, k, v in a.symbolic] + [
                (conj(neg(c), g), k, v) for g, k, v in b.symbolic
            ]
            ident = None
            if a.ident is not None and b.ident is not None:
                ident = _ite(c, _z3int(a.ident), _z3int(b.ident))
            return SFun(entries, symbolic, ident)
        raise _ShapeMismatch(f"{kind(a)} and {kind(b)}")

    def dedup(self, s: SSet) -> list[tuple[Bool, SVal]]:
        """Each member once: a candidate counts when no earlier present candidate equals it."""
        if s.distinct:
            return list(s.present())
        out: list[tuple[Bool, SVal]] = []
        seen: list[tuple[Bool, SVal]] = []
        for g, e in s.present():
            earlier = disj(*(conj(g2, self.eq(e2, e)) for g2, e2 in seen))
            out.append((conj(g, neg(earlier)), e))
            seen.append((g, e))
        return out


class _ShapeMismatch(Exception):
    pass


def bool_ite(c: Bool, a: Bool, b: Bool) -> Bool:
    """IF c THEN a ELSE b on booleans, keeping constants as Python bools."""
    if c is True or a is b:
        return a
    if c is False:
        return b
    if a is True:
        return disj(c, b)
    if a is False:
        return conj(neg(c), b)
    if b is True:
        return disj(neg(c), a)
    if b is False:
        return conj(c, a)
    return z3.If(c, a, b)


def _iff(a: Bool, b: Bool) -> Bool:
    if (a is True or a is False) and (b is True or b is False):
        return a is b
    return as_z3bool(a) == as_z3bool(b)


def as_z3bool(b: Bool) -> Any:
    return z3.BoolVal(b) if b is True or b is False else b


def _z3int(v: Any) -> Any:
    return z3.IntVal(v) if v.__class__ is int else v


def sym_eq(universe: Universe, a: SVal, b: SVal) -> Bool:
    return _Ops(universe).eq(a, b)


# ---- the compiler -------------------------------------------------------------------------------


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
        for s in _string_literals(module):
            universe.code(s)

    def bind(self, constants: Mapping[str, SVal]) -> Compiler:
        self.constants = dict(constants)
        self._memo.clear()
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
            try:
                env = {p.name: a for p, a in zip(d.params, args, strict=True)}
                value = self.ev(d.body, env)
            finally:
                frame = self._frames.pop()
                self._depth -= 1
            hit = (value, [(disj(*cs), msg) for msg, cs in frame.errors.items()])
            self._memo[key] = hit
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


# ---- handlers -----------------------------------------------------------------------------------


def _num(c: Compiler, node: A.Num, env: Env) -> SVal:
    return node.value


def _str(c: Compiler, node: A.Str, env: Env) -> SVal:
    return node.value


def _bool(c: Compiler, node: A.Bool, env: Env) -> SVal:
    return node.value


def _name(c: Compiler, node: A.Name, env: Env) -> SVal:
    name = node.name
    if name in env:
        return env[name]
    let = env.get("$let:" + name)
    if let is not None:
        return let(())
    d = c.defs.get(name)
    if d is not None:
        if d.params:
            raise Z3Unsupported(f"{node.span}: '{name}' takes arguments; it is used without any")
        return c._invoke(d, (), node)
    if name in CONSTANTS:
        return _InfiniteSet(name)
    if name in c.constants:
        return c.constants[name]
    c.fail(True, f"free variable '{name}' is not bound", node.span)
    return False


def _apply(c: Compiler, node: A.Apply, env: Env) -> SVal:
    name = node.name
    if name in env:
        f = env[name]
        if f.__class__ is not SLambda or f.arity != len(node.args):
            c.fail(True, f"'{name}' is {kind(f)}, not an operator of {len(node.args)}", node.span)
            return False
        return f.call(*(c.ev(a, env) for a in node.args))
    let = env.get("$let:" + name)
    if let is not None:
        return let(tuple(c.ev(a, env) for a in node.args))
    d = c.defs.get(name)
    if d is not None:
        if len(d.params) != len(node.args):
            c.fail(True, f"'{name}' takes {len(d.params)} arguments", node.span)
            return False
        return c._invoke(d, [c.ev(a, env) for a in node.args], node)
    b = _BUILTINS.get(name)
    if b is not None:
        return b(c, node, [c.ev(a, env) for a in node.args])
    if name in BUILTINS:
        raise Z3Unsupported(
            f"{node.span}: the Z3 backend cannot compile {name} "
            f"({_WHY_UNSUPPORTED.get(name, 'not supported')})"
        )
    c.fail(True, f"undefined operator '{name}'", node.span)
    return False


def _field(c: Compiler, node: A.Field, env: Env) -> SVal:
    r = c.ev(node.record, env)
    if r.__class__ is not SFun:
        c.fail(True, f".{node.name} applied to {kind(r)}, not a record", node.span)
        return False
    g, v = r.entries.get(node.name, (False, None))
    if g is False:
        fields = ", ".join(sorted(str(k) for k in r.entries)) or "none"
        c.fail(True, f"record has no field '{node.name}' (its fields: {fields})", node.span)
        return False
    c.fail(neg(g), f"record has no field '{node.name}'", node.span)
    return v


def _index(c: Compiler, node: A.Index, env: Env) -> SVal:
    f = c.ev(node.fn, env)
    args = [c.ev(a, env) for a in node.args]
    x = args[0] if len(args) == 1 else SSeq([(True, a) for a in args])
    if f.__class__ is SFun:
        v, ok = c.ops.apply(f, x)
        c.fail(neg(ok), "the argument is not in the DOMAIN of the function", node.span)
        return v if v is not None else False
    if f.__class__ is SSeq:
        if x.__class__ is int:
            if 1 <= x <= len(f.items):
                g, e = f.items[x - 1]
                c.fail(neg(g), f"index {x} is outside the sequence", node.span)
                return e
            c.fail(True, f"index {x} is outside the sequence", node.span)
            return False
        if _is_int(x):
            cases = [(conj(g, x == i + 1), e) for i, (g, e) in enumerate(f.items)]
            cases = [(k, e) for k, e in cases if k is not False]
            c.fail(neg(disj(*(k for k, _ in cases))), "index outside the sequence", node.span)
            if not cases:
                return False
            value = cases[-1][1]
            for k, e in reversed(cases[:-1]):
                value = c.merge(k, e, value, node)
            return value
    c.fail(True, f"cannot apply {kind(f)} to an argument", node.span)
    return False


def _unary(c: Compiler, node: A.Unary, env: Env) -> SVal:
    v = c.ev(node.operand, env)
    if node.op is A.UnOp.NOT:
        return neg(c.boolean(v, node.operand, "the operand of ¬"))
    if node.op is A.UnOp.NEG:
        i = c.integer(v, node.operand, "the operand of unary -")
        return -i
    if v.__class__ is SFun:
        return c.ops.domain(v)
    if v.__class__ is SSeq:
        return SSet([(g, i + 1) for i, (g, _) in enumerate(v.items)], distinct=True)
    c.fail(True, f"DOMAIN of {kind(v)}: not a function", node.span)
    return SSet([])


def _int_binop(c: Compiler, node: A.Binary, a: SVal, b: SVal) -> SVal:
    sym = node.op.unicode
    x = c.integer(a, node.left, f"the left of {sym}")
    y = c.integer(b, node.right, f"the right of {sym}")
    op = node.op
    both = x.__class__ is int and y.__class__ is int
    if op is A.BinOp.ADD:
        return x + y
    if op is A.BinOp.SUB:
        return x - y
    if op is A.BinOp.MUL:
        return x * y
    if op is A.BinOp.LT:
        return x < y
    if op is A.BinOp.LE:
        return x <= y
    if op is A.BinOp.GT:
        return x > y
    if op is A.BinOp.GE:
        return x >= y
    if op is A.BinOp.DIV:
        c.fail(y == 0, "division by zero", node.span)
        if both:
            return x // y if y else 0
        # TLA+ \div floors, as Python's // does; Z3's div is Euclidean (same for y > 0).
        return _ite(y > 0, x / y, -((-x) / y)) if not isinstance(y, int) else x / y
    if op is A.BinOp.MOD:
        c.fail(y <= 0, "% needs a positive divisor", node.span)
        if both:
            return x % y if y > 0 else 0
        return x % y
    if op is A.BinOp.RANGE:
        if both:
            return SSet([(True, i) for i in range(x, y + 1)], distinct=True)
        raise Z3Unsupported(f"{node.span}: a range with symbolic bounds has no fixed size")
    raise Z3Unsupported(f"{node.span}: operator {sym}")


def _binary(c: Compiler, node: A.Binary, env: Env) -> SVal:
    op = node.op
    if op in (A.BinOp.IMPLIES, A.BinOp.EQUIV):
        sym = op.unicode
        a = c.boolean(c.ev(node.left, env), node.left, f"the left of {sym}")
        if op is A.BinOp.IMPLIES:
            b = c._under(a, lambda: c.ev(node.right, env))
            b = False if a is False else c.boolean(b, node.right, f"the right of {sym}")
            return implies(a, b)
        b = c.boolean(c.ev(node.right, env), node.right, f"the right of {sym}")
        return _iff(a, b)
    a, b = c.ev(node.left, env), c.ev(node.right, env)
    if op is A.BinOp.EQ or op is A.BinOp.NEQ:
        if kind(a) != kind(b):
            c.fail(True, f"cannot compare {kind(a)} with {kind(b)}", node.span)
            return False
        r = c.ops.eq(a, b)
        return r if op is A.BinOp.EQ else neg(r)
    if op is A.BinOp.IN or op is A.BinOp.NOTIN:
        if isinstance(b, _InfiniteSet):
            r = _infinite_member(c, a, b)
        elif b.__class__ is SSet:
            r = c.ops.member(a, b)
        else:
            c.fail(True, f"∈ needs a set on the right, got {kind(b)}", node.right.span)
            return False
        return r if op is A.BinOp.IN else neg(r)
    if op in (A.BinOp.CUP, A.BinOp.CAP, A.BinOp.SETMINUS, A.BinOp.SUBSETEQ):
        sym = op.unicode
        x = c.finite_set(a, node.left, f"the left of {sym}")
        y = c.finite_set(b, node.right, f"the right of {sym}")
        if op is A.BinOp.CUP:
            return SSet(list(x.present()) + list(y.present()))
        if op is A.BinOp.CAP:
            return SSet([(conj(g, c.ops.member(e, y)), e) for g, e in x.present()], x.distinct)
        if op is A.BinOp.SETMINUS:
            return SSet([(conj(g, neg(c.ops.member(e, y))), e) for g, e in x.present()], x.distinct)
        return c.ops.subset(x, y)
    return _int_binop(c, node, a, b)


def _infinite_member(c: Compiler, a: SVal, s: _InfiniteSet) -> Bool:
    k = kind(a)
    if s.name == "Int":
        return k == "integer"
    if s.name == "Nat":
        return a >= 0 if k == "integer" else False
    if s.name == "BOOLEAN":
        return k == "boolean"
    return k == "string"


def _junction(c: Compiler, node: A.Junction, env: Env) -> SVal:
    is_and = node.op is A.JunctionOp.AND
    sym = node.op.unicode
    done: list[Bool] = []
    for item in node.items:
        guard = conj(*done) if is_and else conj(*(neg(d) for d in done))
        if guard is False:
            break
        v = c._under(guard, lambda item=item: c.ev(item, env))  # type: ignore[misc]
        done.append(c.boolean(v, item, f"an operand of {sym}"))
    return conj(*done) if is_and else disj(*done)


def _quant(c: Compiler, node: A.Quant, env: Env) -> SVal:
    forall = node.kind is A.QuantKind.FORALL
    sym = node.kind.unicode
    parts = []
    for g, inner in c.binders(node.bounds, env):
        v = c._under(g, lambda inner=inner: c.ev(node.body, inner))  # type: ignore[misc]
        b = c.boolean(v, node.body, f"the body of {sym}")
        parts.append(implies(g, b) if forall else conj(g, b))
        if (forall and parts[-1] is False) or (not forall and parts[-1] is True):
            break
    return conj(*parts) if forall else disj(*parts)


def _set_enum(c: Compiler, node: A.SetEnum, env: Env) -> SVal:
    return SSet([(True, c.ev(i, env)) for i in node.items])


def _set_filter(c: Compiler, node: A.SetFilter, env: Env) -> SVal:
    bound = A.Bound((node.var,), node.domain, node.span)
    dom = c.finite_set(c.ev(node.domain, env), node.domain, "the domain of {x ∈ S : P}")
    items = []
    for g, inner in c.binders((bound,), env):
        v = c._under(g, lambda inner=inner: c.ev(node.pred, inner))  # type: ignore[misc]
        p = c.boolean(v, node.pred, "the predicate of {x ∈ S : P}")
        items.append((conj(g, p), inner[node.var.name]))
    return SSet(items, dom.distinct)


def _set_map(c: Compiler, node: A.SetMap, env: Env) -> SVal:
    items = []
    for g, inner in c.binders(node.bounds, env):
        items.append((g, c._under(g, lambda inner=inner: c.ev(node.expr, inner))))  # type: ignore[misc]
    return SSet(items)


def _tuple(c: Compiler, node: A.TupleLit, env: Env) -> SVal:
    return SSeq([(True, c.ev(i, env)) for i in node.items])


def _record(c: Compiler, node: A.RecordLit, env: Env) -> SVal:
    return SFun({k: (True, c.ev(v, env)) for k, v in node.fields})


def _fn_cons(c: Compiler, node: A.FnCons, env: Env) -> SVal:
    names = [b.name for bound in node.bounds for b in bound.names]
    entries: dict[Any, tuple[Bool, SVal]] = {}
    symbolic: list[tuple[Bool, SVal, SVal]] = []
    rows = list(c.binders(node.bounds, env))
    for g, inner in rows:
        key = inner[names[0]] if len(names) == 1 else SSeq([(True, inner[n]) for n in names])
        value = c._under(g, lambda inner=inner: c.ev(node.body, inner))  # type: ignore[misc]
        concrete = key.__class__ in (int, str, bool)
        if concrete and not symbolic:
            old = entries.get(key)
            if old is None:
                entries[key] = (g, value)
            else:  # the same key from two candidates: the first present one's value
                og, ov = old
                entries[key] = (disj(og, g), c.merge(og, ov, value, node))
        else:
            symbolic.append((g, key, value))
    if symbolic:
        # Present keys must be distinct: a candidate counts unless an earlier one has its key.
        allrows = [(g, k, v) for k, (g, v) in entries.items()] + symbolic
        out: list[tuple[Bool, SVal, SVal]] = []
        for i, (g, k, v) in enumerate(allrows):
            earlier = disj(*(conj(g2, c.ops.eq(k2, k)) for g2, k2, _ in allrows[:i]))
            out.append((conj(g, neg(earlier)), k, v))
        return SFun({}, out)
    return SFun(entries)


def _if(c: Compiler, node: A.If, env: Env) -> SVal:
    cond = c.boolean(c.ev(node.cond, env), node.cond, "the IF condition")
    if cond is True:
        return c.ev(node.then, env)
    if cond is False:
        return c.ev(node.else_, env)
    a = c._under(cond, lambda: c.ev(node.then, env))
    b = c._under(neg(cond), lambda: c.ev(node.else_, env))
    return c.merge(cond, a, b, node)


def _case(c: Compiler, node: A.Case, env: Env) -> SVal:
    taken: list[Bool] = []
    arms: list[tuple[Bool, SVal]] = []
    for arm in node.arms:
        none_before = conj(*(neg(t) for t in taken))
        if none_before is False:
            break
        g = c._under(none_before, lambda arm=arm: c.ev(arm.guard, env))  # type: ignore[misc]
        g = c.boolean(g, arm.guard, "a CASE guard")
        here = conj(none_before, g)
        if here is not False:
            arms.append((here, c._under(here, lambda arm=arm: c.ev(arm.body, env))))  # type: ignore[misc]
        taken.append(g)
    rest = conj(*(neg(t) for t in taken))
    if node.other is not None:
        if rest is not False:
            arms.append((rest, c._under(rest, lambda: c.ev(node.other, env))))  # type: ignore[arg-type]
    else:
        c.fail(rest, "no CASE guard is true and there is no OTHER arm", node.span)
    if not arms:
        return False
    value = arms[-1][1]
    for here, v in reversed(arms[:-1]):
        value = c.merge(here, v, value, node)
    return value


def _let(c: Compiler, node: A.Let, env: Env) -> SVal:
    inner = dict(env)
    for d in node.defs:

        def call(args: tuple[SVal, ...], d: A.Definition = d) -> SVal:
            local = dict(inner)
            for p, a in zip(d.params, args, strict=True):
                local[p.name] = a
            return c.ev(d.body, local)

        inner["$let:" + d.name] = call
        if not d.params:
            value = call(())
            inner["$let:" + d.name] = lambda args, value=value: value
    return c.ev(node.body, inner)


def _lambda(c: Compiler, node: A.Lambda, env: Env) -> SVal:
    params = [p.name for p in node.params]
    captured = dict(env)

    def call(*args: SVal) -> SVal:
        local = dict(captured)
        local.update(zip(params, args, strict=True))
        return c.ev(node.body, local)

    return SLambda(len(params), call, "LAMBDA " + ", ".join(params))


_HANDLERS: dict[type, Callable[[Compiler, Any, Env], SVal]] = {
    A.Num: _num,
    A.Str: _str,
    A.Bool: _bool,
    A.Name: _name,
    A.Apply: _apply,
    A.Field: _field,
    A.Index: _index,
    A.Unary: _unary,
    A.Binary: _binary,
    A.Junction: _junction,
    A.Quant: _quant,
    A.SetEnum: _set_enum,
    A.SetFilter: _set_filter,
    A.SetMap: _set_map,
    A.TupleLit: _tuple,
    A.RecordLit: _record,
    A.FnCons: _fn_cons,
    A.If: _if,
    A.Case: _case,
    A.Let: _let,
    A.Lambda: _lambda,
}


# ---- built-ins ----------------------------------------------------------------------------------

_WHY_UNSUPPORTED = {
    "FloatScale": "Go float64 arithmetic; score definitions run on the executable backend",
    "BalancedScore": "Go float64 arithmetic; score definitions run on the executable backend",
    "SpreadScore": "Go float64 arithmetic; score definitions run on the executable backend",
    "GroupBy": "used for explanations only",
    "SortSet": "sorting a symbolic set",
}


def _elements(c: Compiler, node: A.Apply, v: SVal, name: str) -> list[tuple[Bool, SVal]]:
    """The members of a set (each once) or the slots of a sequence."""
    if v.__class__ is SSet:
        return c.ops.dedup(v)
    if v.__class__ is SSeq:
        return list(v.items)
    c.fail(True, f"{name} expects a set or a sequence, got {kind(v)}", node.span)
    return []


def _lam(c: Compiler, node: A.Apply, f: SVal, name: str, arity: int) -> SLambda | None:
    if f.__class__ is SLambda and f.arity == arity:
        return f
    c.fail(True, f"{name} expects a {arity}-parameter LAMBDA, got {kind(f)}", node.span)
    return None


def _ints(c: Compiler, node: A.Apply, items: list[tuple[Bool, SVal]], name: str) -> list[Any]:
    out = []
    for g, v in items:
        if not _is_int(v):
            c.fail(g, f"{name} expects integers, got {kind(v)}", node.span)
            out.append(0)
        else:
            out.append(v)
    return out


def _b_sum(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    if len(args) == 2:
        f = _lam(c, node, args[0], "Sum", 1)
        s = args[1]
        if f is None:
            return 0
        items = _elements(c, node, s, "Sum")  # each member once, as the set holds it
        vals = [(g, c._under(g, lambda e=e: f.call(e))) for g, e in items]  # type: ignore[misc]
    else:
        vals = _elements(c, node, args[0], "Sum")
    ints = _ints(c, node, vals, "Sum")
    return _sum_terms((g, v) for (g, _), v in zip(vals, ints, strict=True))


def _sum_terms(items: Iterable[tuple[Bool, Any]]) -> Any:
    total: Any = 0
    for g, v in items:
        if g is False:
            continue
        term = v if g is True else _ite(g, _z3int(v), z3.IntVal(0))
        total = term if isinstance(total, int) and total == 0 else total + term
    return total


def _extreme(name: str, bigger: bool) -> Callable[[Compiler, A.Apply, list[SVal]], SVal]:
    def run(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
        items = _elements(c, node, args[0], name)
        ints = _ints(c, node, items, name)
        best: Any = None
        seen: Bool = False
        for (g, _), v in zip(items, ints, strict=True):
            if g is False:
                continue
            if best is None:
                best, seen = v, g
                continue
            better = (v > best) if bigger else (v < best)
            take = conj(g, disj(neg(seen), better))
            best = (
                v
                if take is True
                else best
                if take is False
                else z3.If(take, _z3int(v), _z3int(best))
            )
            seen = disj(seen, g)
        c.fail(neg(seen), f"{name} of an empty {kind(args[0])} is undefined", node.span)
        return 0 if best is None else best

    return run


def _b_cardinality(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    s = args[0]
    if s.__class__ is not SSet:
        c.fail(True, f"Cardinality expects a set, got {kind(s)}", node.span)
        return 0
    return _sum_terms((g, 1) for g, _ in c.ops.dedup(s))


def _b_len(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    s = args[0]
    if s.__class__ is not SSeq:
        c.fail(True, f"Len expects a sequence, got {kind(s)}", node.span)
        return 0
    return _sum_terms((g, 1) for g, _ in s.items)


def _b_append(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    s, e = args
    if s.__class__ is not SSeq:
        c.fail(True, f"Append expects a sequence, got {kind(s)}", node.span)
        return SSeq([])
    if all(g is True for g, _ in s.items):
        return SSeq([*s.items, (True, e)])
    raise Z3Unsupported(f"{node.span}: Append to a sequence of symbolic length")


def _b_head(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    s = args[0]
    if s.__class__ is not SSeq or not s.items:
        c.fail(True, "Head of the empty sequence is undefined", node.span)
        return False
    g, e = s.items[0]
    c.fail(neg(g), "Head of the empty sequence is undefined", node.span)
    return e


def _b_tail(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    s = args[0]
    if s.__class__ is not SSeq or not s.items:
        c.fail(True, "Tail of the empty sequence is undefined", node.span)
        return SSeq([])
    c.fail(neg(s.items[0][0]), "Tail of the empty sequence is undefined", node.span)
    return SSeq(s.items[1:])


def _string_table(c: Compiler, s: SVal, pred: Callable[[str], bool]) -> Bool:
    if s.__class__ is str:
        return pred(s)
    return disj(*(s.z == i for i, text in enumerate(c.u.strings) if pred(text)))


def _b_is_int(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    v = args[0]
    if _is_int(v):
        return True
    if kind(v) != "string":
        return False
    return _string_table(c, v, is_int)


def _b_to_int(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    v = args[0]
    if _is_int(v):
        return v
    if v.__class__ is str:
        if is_int(v):
            return int(v)
        c.fail(True, f"ToInt: {v!r} is not a base-10 64-bit integer", node.span)
        return 0
    if v.__class__ is SStr:
        ints = [(i, int(text)) for i, text in enumerate(c.u.strings) if is_int(text)]
        c.fail(neg(disj(*(v.z == i for i, _ in ints))), "ToInt: not an integer", node.span)
        out: Any = z3.IntVal(0)
        for i, n in ints:
            out = z3.If(v.z == i, z3.IntVal(n), out)
        return out
    c.fail(True, f"ToInt of {kind(v)}", node.span)
    return 0


def _strings2(name: str, pred: Callable[[str, str], bool]) -> Callable[..., SVal]:
    def run(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
        s, t = args
        if kind(s) != "string" or kind(t) != "string":
            c.fail(True, f"{name} expects strings", node.span)
            return False
        if t.__class__ is not str:
            raise Z3Unsupported(f"{node.span}: {name} with a symbolic second argument")
        return _string_table(c, s, lambda text: pred(text, t))

    return run


def _b_sum_by(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    f, k = _lam(c, node, args[0], "SumBy", 1), _lam(c, node, args[1], "SumBy", 1)
    if f is None or k is None:
        return SFun()
    items = _elements(c, node, args[2], "SumBy")
    rows = []
    for g, e in items:
        v = c._under(g, lambda e=e: f.call(e))  # type: ignore[misc]
        key = c._under(g, lambda e=e: k.call(e))  # type: ignore[misc]
        if not _is_int(v):
            c.fail(g, f"SumBy expects integers, got {kind(v)}", node.span)
            v = 0
        rows.append((g, key, v))
    out: list[tuple[Bool, SVal, SVal]] = []
    for i, (g, key, _) in enumerate(rows):
        earlier = disj(*(conj(g2, c.ops.eq(k2, key)) for g2, k2, _ in rows[:i]))
        first = conj(g, neg(earlier))
        if first is False:
            continue
        total = _sum_terms((conj(g2, c.ops.eq(k2, key)), v2) for g2, k2, v2 in rows)
        out.append((first, key, total))
    if all(key.__class__ is str for _, key, _ in out) and len({k for _, k, _ in out}) == len(out):
        return SFun({key: (g, v) for g, key, v in out})
    return SFun({}, out)


def _b_fold_left(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    op, acc, s = args
    f = _lam(c, node, op, "FoldLeft", 2)
    if f is None or s.__class__ is not SSeq:
        c.fail(True, "FoldLeft expects a LAMBDA and a sequence", node.span)
        return acc
    if not all(g is True for g, _ in s.items):
        raise Z3Unsupported(f"{node.span}: FoldLeft over a sequence of symbolic length")
    for _, e in s.items:
        acc = f.call(acc, e)
    return acc


_BUILTINS: dict[str, Callable[[Compiler, A.Apply, list[SVal]], SVal]] = {
    "Sum": _b_sum,
    "Max": _extreme("Max", True),
    "Min": _extreme("Min", False),
    "Cardinality": _b_cardinality,
    "Len": _b_len,
    "Head": _b_head,
    "Tail": _b_tail,
    "Append": _b_append,
    "IsInt": _b_is_int,
    "ToInt": _b_to_int,
    "StartsWith": _strings2("StartsWith", lambda s, p: s.startswith(p)),
    "Contains": _strings2("Contains", lambda s, p: p in s),
    "SumBy": _b_sum_by,
    "FoldLeft": _b_fold_left,
}


def unsupported_builtins() -> frozenset[str]:
    """Built-ins this backend refuses (with a reason)."""
    return frozenset(BUILTINS) - frozenset(_BUILTINS)


def concrete(v: SVal, model: z3.ModelRef, universe: Universe) -> Any:
    """The TLA value a symbolic value takes under ``model`` (as :mod:`.python` would build it)."""
    from schedspec.spec.values import Fcn

    def ev(x: Any) -> Any:
        return model.eval(x, model_completion=True)

    def holds(g: Bool) -> bool:
        return g if g is True or g is False else z3.is_true(ev(g))

    c = v.__class__
    if c is bool or c is int or c is str:
        return v
    if c is SStr:
        return universe.strings[ev(v.z).as_long()]
    if z3.is_expr(v):
        r = ev(v)
        return z3.is_true(r) if z3.is_bool(r) else r.as_long()
    if c is SSet:
        return frozenset(concrete(e, model, universe) for g, e in v.items if holds(g))
    if c is SSeq:
        return tuple(concrete(e, model, universe) for g, e in v.items if holds(g))
    if c is SFun:
        return Fcn(
            (concrete(k, model, universe), concrete(x, model, universe))
            for g, k, x in v.all()
            if holds(g)
        )
    raise TypeError(f"no concrete value for {kind(v)}")
