"""The executable backend: every definition compiled once into Python closures.

No user text is ever ``eval``-ed: each AST node becomes a closure ``f(env) -> value`` built by the
handler for its type (one handler per node type, dispatched through :data:`_HANDLERS`; an unknown
node raises :class:`UnsupportedNode`). ``env`` maps variable names to values. Quantifiers and
comprehensions rebind their variable in place and restore it afterwards; LAMBDA and LET capture a
copy, so closures that escape keep their bindings.

Semantics follow TLA+: ``∧``/``∨``/``⇒`` short-circuit left to right; a non-boolean where a
boolean is needed, a missing record field, a function applied outside its domain, comparing values
of different kinds, or a CASE with no true guard and no OTHER is an :class:`EvalError` at the node's
span — never a Python exception. Names the checker reports as undefined still compile, to closures
that raise when (and only if) evaluation reaches them, so a spec with defects can be evaluated and
its defects seen where they bite.

Every closure is kept by node (:meth:`Program.closure`), so :mod:`.explain` can re-evaluate any
sub-expression under any bindings and report which conjunct failed, with witnesses.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS, CONSTANTS, Builtin, BuiltinError, InfiniteSet
from schedspec.spec.errors import EvalError, SpecError
from schedspec.spec.values import Closure, Fcn, Value, kind_of, render

__all__ = ["Probe", "Program", "UnsupportedNode", "compile_module"]

Env = dict[str, Any]
Fn = Callable[[Env], Value]
# A coverage probe (spec/coverage.py): given the program, a node and its compiled closure, the
# closure to use instead. Consulted at compile time only, so a program compiled without one runs
# exactly the closures it always did.
Probe = Callable[["Program", Any, Fn], Fn]


class UnsupportedNode(SpecError):
    """A backend met an AST node type it has no handler for (a bug, never user input)."""


def _short(v: Value, limit: int = 80) -> str:
    text = render(v)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _described(v: Value) -> str:
    return f"{kind_of(v)} {_short(v)}"


@dataclass
class _Target:
    """A module or LET definition; ``body`` is filled in after all names are known."""

    definition: A.Definition
    body: Fn = field(default=lambda env: None)
    is_let: bool = False
    params: tuple[str, ...] = ()
    memo: dict[Any, Value] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.params = tuple(p.name for p in self.definition.params)

    def invoke(self, args: tuple[Value, ...]) -> Value:
        """The body on ``args``, once per distinct argument tuple (see :class:`Program`)."""
        key = _memo_key(args)
        try:
            return self.memo[key]
        except KeyError:
            pass
        value = self.body(dict(zip(self.params, args, strict=True)))
        self.memo[key] = value
        return value


def _memo_key(args: tuple[Value, ...]) -> Any:
    # TRUE == 1 in Python; keep the two apart so a cached f(1) never answers f(TRUE).
    for a in args:
        if a.__class__ is bool:
            return tuple((a.__class__, a) for a in args)
    return args


@dataclass(frozen=True)
class _Scope:
    """What a name means at a point of the program (static scoping)."""

    variables: frozenset[str] = frozenset()
    lets: Mapping[str, _Target] = field(default_factory=dict)

    def bind(self, *names: str) -> _Scope:
        return _Scope(self.variables | frozenset(names), self.lets)


class Program:
    """A compiled module: call definitions by name, read any node's closure.

    Module definitions are pure functions of their arguments and the bound constants, so each is
    evaluated once per distinct argument tuple and the value kept until the next :meth:`bind`.
    A spec can therefore state a per-pod or per-node precomputation (kube-scheduler's PreFilter
    state, a node's requested resources) as an ordinary definition and pay for it once. LET
    definitions see their enclosing bindings and are not cached.
    """

    def __init__(self, module: A.Module, probe: Probe | None = None) -> None:
        self.module = module
        self._probe = probe
        self.constants: dict[str, Value] = {}
        self._targets = {d.name: _Target(d) for d in module.definitions}
        self._closures: dict[int, Fn] = {}
        for target in self._targets.values():
            target.body = self.compile(target.definition.body, _Scope(frozenset(target.params)))

    # -- public -----------------------------------------------------------------------------------
    def bind(self, constants: Mapping[str, Value]) -> Program:
        """Set the free constants a view provides (``Objects``, …); returns self."""
        self.constants.clear()
        self.constants.update(constants)
        for target in self._targets.values():
            target.memo.clear()
        return self

    def has(self, name: str) -> bool:
        return name in self._targets

    def definition(self, name: str) -> A.Definition:
        return self._targets[name].definition

    def call(self, name: str, *args: Value) -> Value:
        """Evaluate definition ``name`` on ``args``; raises :class:`EvalError`."""
        target = self._targets[name]
        if len(args) != len(target.params):
            raise EvalError(
                _arity_message(name, len(target.params), len(args)),
                target.definition.span,
            )
        return _guard_recursion(lambda env: target.invoke(args), {}, target.definition.span)

    def closure(self, node: A.Expr) -> Fn:
        """The compiled closure of a node of this program's module."""
        return self._closures[id(node)]

    def target_body(self, name: str) -> Fn:
        return self._targets[name].body

    # -- compilation ------------------------------------------------------------------------------
    def compile(self, node: A.Expr, scope: _Scope) -> Fn:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise UnsupportedNode(f"no Python handler for {type(node).__name__}")
        fn = handler(self, node, scope)
        if self._probe is not None:
            fn = self._probe(self, node, fn)
        self._closures[id(node)] = fn
        return fn

    def resolve_apply(self, name: str, scope: _Scope) -> _Target | Builtin | str | None:
        """What ``name(…)`` calls: a LET or module definition, a built-in, or a variable."""
        if name in scope.variables:
            return name
        if name in scope.lets:
            return scope.lets[name]
        if name in self._targets:
            return self._targets[name]
        return BUILTINS.get(name)


def _arity_message(name: str, takes: int | str, given: int) -> str:
    noun = "argument" if takes == 1 or takes == "1" else "arguments"
    return f"'{name}' takes {takes} {noun}, given {given}"


def _guard_recursion(body: Fn, env: Env, span: A.Span) -> Value:
    try:
        return body(env)
    except RecursionError:
        raise EvalError("evaluation recursed too deeply (recursive definition?)", span) from None


def compile_module(
    module: A.Module, constants: Mapping[str, Value] | None = None, *, probe: Probe | None = None
) -> Program:
    """Compile every definition of ``module``; ``constants`` are the view's free names.
    ``probe`` instruments the closures (:func:`schedspec.spec.coverage.instrument`)."""
    program = Program(module, probe)
    if constants:
        program.bind(constants)
    return program


# ---- value checks shared by handlers -----------------------------------------------------------


def _boolean(v: Value, node: A.Expr, what: str) -> bool:
    if v is True or v is False:
        return v
    raise EvalError(f"{what} must be a boolean, got {_described(v)}", node.span)


def _integer(v: Value, node: A.Expr, what: str) -> int:
    if v.__class__ is int:
        return v
    raise EvalError(f"{what} must be an integer, got {_described(v)}", node.span)


def _finite_set(v: Value, node: A.Expr, what: str) -> frozenset[Any]:
    if v.__class__ is frozenset:
        return v
    if isinstance(v, InfiniteSet):
        raise EvalError(f"{what}: cannot enumerate the infinite set {v.name}", node.span)
    raise EvalError(f"{what} must be a set, got {_described(v)}", node.span)


_KIND = {bool: "boolean", int: "integer", str: "string", frozenset: "set", tuple: "sequence"}


def _comparable(a: Value, b: Value, node: A.Expr) -> None:
    ka, kb = _KIND.get(a.__class__, "function"), _KIND.get(b.__class__, "function")
    if ka != kb:
        raise EvalError(f"cannot compare {_described(a)} with {_described(b)}", node.span)


# ---- handlers -----------------------------------------------------------------------------------

Handler = Callable[[Program, Any, _Scope], Fn]


def _num(prog: Program, node: A.Num, scope: _Scope) -> Fn:
    v = node.value
    return lambda env: v


def _str(prog: Program, node: A.Str, scope: _Scope) -> Fn:
    v = node.value
    return lambda env: v


def _bool(prog: Program, node: A.Bool, scope: _Scope) -> Fn:
    v = node.value
    return lambda env: v


def _raiser(message: str, span: A.Span) -> Fn:
    def fail(env: Env) -> Value:
        raise EvalError(message, span)

    return fail


def _name(prog: Program, node: A.Name, scope: _Scope) -> Fn:
    name = node.name
    if name in scope.variables:
        return lambda env: env[name]
    target = scope.lets.get(name) or prog._targets.get(name)
    if target is not None:
        return _call_target(target, (), node)
    if name in CONSTANTS:
        const = CONSTANTS[name]
        return lambda env: const
    consts = prog.constants

    def constant(env: Env) -> Value:
        try:
            return consts[name]
        except KeyError:
            raise EvalError(f"free variable '{name}' is not bound", node.span) from None

    return constant


def _call_target(target: _Target, args: tuple[Fn, ...], node: A.Expr) -> Fn:
    params, name = target.params, target.definition.name
    if len(args) != len(params):
        return _raiser(_arity_message(name, len(params), len(args)), node.span)
    if target.is_let:
        return _call_let(target, args)
    memo, invoke = target.memo, target.invoke
    if len(params) == 0:

        def call0(env: Env) -> Value:
            try:
                return memo[()]
            except KeyError:
                return invoke(())

        return call0
    if len(params) == 1:
        (a0,) = args

        def call1(env: Env) -> Value:
            x = a0(env)
            if x.__class__ is not bool:
                try:
                    return memo[(x,)]
                except KeyError:
                    pass
            return invoke((x,))

        return call1
    return lambda env: invoke(tuple(a(env) for a in args))


def _call_let(target: _Target, args: tuple[Fn, ...]) -> Fn:
    """A LET definition sees the bindings of the LET that made it (kept in env under $let:name)."""
    key, params = "$let:" + target.definition.name, target.params

    def call(env: Env) -> Value:
        captured: Env = env[key]
        inner = dict(captured)
        for p, a in zip(params, args, strict=True):
            inner[p] = a(env)
        return target.body(inner)

    return call


def _apply(prog: Program, node: A.Apply, scope: _Scope) -> Fn:
    args = tuple(prog.compile(a, scope) for a in node.args)
    target = prog.resolve_apply(node.name, scope)
    if isinstance(target, _Target):
        return _call_target(target, args, node)
    if isinstance(target, Builtin):
        return _call_builtin(target, args, node)
    if isinstance(target, str):
        return _call_variable(target, args, node)
    return _raiser(f"undefined operator '{node.name}'", node.span)


def _call_builtin(b: Builtin, args: tuple[Fn, ...], node: A.Apply) -> Fn:
    if not b.min_arity <= len(args) <= b.max_arity:
        want = str(b.min_arity) if b.min_arity == b.max_arity else f"{b.min_arity}–{b.max_arity}"
        return _raiser(_arity_message(b.name, want, len(args)), node.span)
    impl = b.impl
    if len(args) == 1:
        (a0,) = args

        def call1(env: Env) -> Value:
            try:
                return impl(a0(env))
            except BuiltinError as err:
                raise EvalError(str(err), node.span) from None

        return call1

    def call(env: Env) -> Value:
        values = [a(env) for a in args]
        try:
            return impl(*values)
        except BuiltinError as err:
            raise EvalError(str(err), node.span) from None

    return call


def _not_operator(name: str, f: Value, arity: int, node: A.Expr) -> None:
    """Raise unless ``f`` is a LAMBDA of ``arity`` parameters (``name`` applied to arguments)."""
    if not isinstance(f, Closure):
        raise EvalError(f"'{name}' is {_described(f)}, not an operator", node.span)
    if f.arity != arity:
        raise EvalError(_arity_message(name, f.arity, arity), node.span)


def _call_variable(name: str, args: tuple[Fn, ...], node: A.Apply) -> Fn:
    def call(env: Env) -> Value:
        f = env[name]
        if f.__class__ is not Closure or f.arity != len(args):
            _not_operator(name, f, len(args), node)
        return f.call(*(a(env) for a in args))

    return call


def _field(prog: Program, node: A.Field, scope: _Scope) -> Fn:
    """``r.a.b.c`` is one closure walking the path (the hot path of every view-reading spec);
    the inner ``r.a.b`` still gets its own closure, for explain."""
    chain: list[A.Field] = [node]
    while isinstance(chain[-1].record, A.Field):
        chain.append(chain[-1].record)
    chain.reverse()
    for inner in chain[:-1]:
        prog.compile(inner, scope)
    base = prog.compile(chain[0].record, scope)
    steps = tuple((f.name, f) for f in chain)

    def get(env: Env) -> Value:
        r = base(env)
        for name, at in steps:
            if r.__class__ is Fcn and name in r:
                r = r[name]
            else:
                _field_error(r, name, at)
        return r

    return get


def _field_error(r: Value, name: str, node: A.Field) -> None:
    if r.__class__ is Fcn:
        fields = ", ".join(sorted(str(k) for k in r)) or "none"
        raise EvalError(f"record has no field '{name}' (its fields: {fields})", node.span)
    raise EvalError(f".{name} applied to {_described(r)}, not a record", node.span)


def _index(prog: Program, node: A.Index, scope: _Scope) -> Fn:
    fn = prog.compile(node.fn, scope)
    args = tuple(prog.compile(a, scope) for a in node.args)
    single = args[0] if len(args) == 1 else None

    def get(env: Env) -> Value:
        f = fn(env)
        x = single(env) if single is not None else tuple(a(env) for a in args)
        if f.__class__ is Fcn:
            try:
                return f[x]
            except KeyError:
                pass
        return _index_other(f, x, node)

    return get


def _index_other(f: Value, x: Value, node: A.Index) -> Value:
    """``f[x]`` unless ``f`` is a function with ``x`` in its domain: a sequence's element, or
    the error."""
    if f.__class__ is Fcn:
        raise EvalError(f"{_short(x)} is not in the DOMAIN of {_short(f)}", node.span)
    if f.__class__ is tuple and x.__class__ is int and 1 <= x <= len(f):
        return f[x - 1]
    raise EvalError(f"cannot apply {_described(f)} to {_short(x)}", node.span)


def _unary(prog: Program, node: A.Unary, scope: _Scope) -> Fn:
    arg = prog.compile(node.operand, scope)
    if node.op is A.UnOp.NOT:
        return lambda env: not _boolean(arg(env), node.operand, "the operand of ¬")
    if node.op is A.UnOp.NEG:
        return lambda env: -_integer(arg(env), node.operand, "the operand of unary -")

    return lambda env: _domain(arg(env), node)


def _domain(f: Value, node: A.Unary) -> Value:
    if f.__class__ is Fcn:
        return frozenset(f)
    if f.__class__ is tuple:
        return frozenset(range(1, len(f) + 1))
    raise EvalError(f"DOMAIN of {_described(f)}: not a function", node.span)


def _int_op(op: Callable[[int, int], Value], sym: str) -> Callable[[Value, Value, A.Binary], Value]:
    def run(a: Value, b: Value, node: A.Binary) -> Value:
        return op(
            _integer(a, node.left, f"the left of {sym}"),
            _integer(b, node.right, f"the right of {sym}"),
        )

    return run


def _set_op(
    op: Callable[[frozenset[Any], frozenset[Any]], Value], sym: str
) -> Callable[[Value, Value, A.Binary], Value]:
    def run(a: Value, b: Value, node: A.Binary) -> Value:
        return op(
            _finite_set(a, node.left, f"the left of {sym}"),
            _finite_set(b, node.right, f"the right of {sym}"),
        )

    return run


def _eq(a: Value, b: Value, node: A.Binary) -> bool:
    if a.__class__ is not b.__class__:
        _comparable(a, b, node)
    return bool(a == b)


def _member(a: Value, s: Value, node: A.Binary) -> bool:
    if s.__class__ is frozenset:
        return a in s
    if isinstance(s, InfiniteSet):
        return s.contains(a)
    raise EvalError(f"∈ needs a set on the right, got {_described(s)}", node.right.span)


def _div(a: int, b: int) -> int:
    if b == 0:
        raise BuiltinError("division by zero")
    return a // b


def _mod(a: int, b: int) -> int:
    if b <= 0:
        raise BuiltinError(f"% needs a positive divisor, got {b}")
    return a % b


_BINOPS: dict[A.BinOp, Callable[[Value, Value, A.Binary], Value]] = {
    A.BinOp.EQ: _eq,
    A.BinOp.NEQ: lambda a, b, n: not _eq(a, b, n),
    A.BinOp.LT: _int_op(operator.lt, "<"),
    A.BinOp.LE: _int_op(operator.le, "≤"),
    A.BinOp.GT: _int_op(operator.gt, ">"),
    A.BinOp.GE: _int_op(operator.ge, "≥"),
    A.BinOp.IN: _member,
    A.BinOp.NOTIN: lambda a, s, n: not _member(a, s, n),
    A.BinOp.SUBSETEQ: _set_op(operator.le, "⊆"),
    A.BinOp.CUP: _set_op(operator.or_, "∪"),
    A.BinOp.CAP: _set_op(operator.and_, "∩"),
    A.BinOp.SETMINUS: _set_op(operator.sub, "\\"),
    A.BinOp.RANGE: _int_op(lambda a, b: frozenset(range(a, b + 1)), ".."),
    A.BinOp.ADD: _int_op(operator.add, "+"),
    A.BinOp.SUB: _int_op(operator.sub, "-"),
    A.BinOp.MUL: _int_op(operator.mul, "*"),
    A.BinOp.DIV: _int_op(_div, "÷"),
    A.BinOp.MOD: _int_op(_mod, "%"),
}


def _binary(prog: Program, node: A.Binary, scope: _Scope) -> Fn:
    left, right = prog.compile(node.left, scope), prog.compile(node.right, scope)
    if node.op is A.BinOp.IMPLIES:
        return lambda env: (
            (not _boolean(left(env), node.left, "the left of ⇒"))
            or _boolean(right(env), node.right, "the right of ⇒")
        )
    if node.op is A.BinOp.EQUIV:
        return lambda env: (
            _boolean(left(env), node.left, "the left of ≡")
            is _boolean(right(env), node.right, "the right of ≡")
        )
    fast = _fast_binary(prog, node, left, right)
    if fast is not None:
        return fast
    op = _BINOPS[node.op]

    def run(env: Env) -> Value:
        try:
            return op(left(env), right(env), node)
        except BuiltinError as err:
            raise EvalError(str(err), node.span) from None

    return run


_INT_COMPARE = {
    A.BinOp.LT: operator.lt,
    A.BinOp.LE: operator.le,
    A.BinOp.GT: operator.gt,
    A.BinOp.GE: operator.ge,
}


def _fast_binary(prog: Program, node: A.Binary, left: Fn, right: Fn) -> Fn | None:
    """Inline the common cases of =, ∈ and integer comparisons; anything unusual (different
    kinds, a non-set, a non-integer) falls back to the checked path, so semantics are unchanged.
    ``k ∈ DOMAIN f`` tests the key without building the domain set."""
    rhs = node.right
    if node.op is A.BinOp.IN and isinstance(rhs, A.Unary) and rhs.op is A.UnOp.DOMAIN:
        fn = prog.closure(rhs.operand)

        def in_domain(env: Env) -> Value:
            a, f = left(env), fn(env)
            if f.__class__ is Fcn:
                return a in f
            return _member(a, right(env), node)

        return in_domain
    if node.op is A.BinOp.EQ:

        def eq(env: Env) -> Value:
            a, b = left(env), right(env)
            return a == b if a.__class__ is b.__class__ else _eq(a, b, node)

        return eq
    if node.op is A.BinOp.IN:

        def member(env: Env) -> Value:
            a, s = left(env), right(env)
            return a in s if s.__class__ is frozenset else _member(a, s, node)

        return member
    compare = _INT_COMPARE.get(node.op)
    if compare is None:
        return None
    checked = _BINOPS[node.op]

    def cmp(env: Env) -> Value:
        a, b = left(env), right(env)
        if a.__class__ is int and b.__class__ is int:
            return compare(a, b)
        return checked(a, b, node)

    return cmp


def _junction(prog: Program, node: A.Junction, scope: _Scope) -> Fn:
    items = tuple(prog.compile(i, scope) for i in node.items)
    stop = node.op is A.JunctionOp.OR  # ∨ stops at the first TRUE, ∧ at the first FALSE
    sym = node.op.unicode

    def run(env: Env) -> Value:
        for item, expr in zip(items, node.items, strict=True):
            v = item(env)
            if v is stop:
                return stop
            if v is not (not stop):
                _junction_operand(v, sym, expr)
        return not stop

    return run


def _junction_operand(v: Value, sym: str, node: A.Expr) -> None:
    raise EvalError(f"an operand of {sym} must be a boolean, got {_described(v)}", node.span)


def _bindings(
    prog: Program, bounds: tuple[A.Bound, ...], scope: _Scope
) -> tuple[list[tuple[str, Fn, A.Bound]], _Scope]:
    """Compile ``x, y ∈ S, z ∈ T``: each domain sees the variables bound before it."""
    out: list[tuple[str, Fn, A.Bound]] = []
    for b in bounds:
        domain = prog.compile(b.domain, scope)
        for binder in b.names:
            out.append((binder.name, domain, b))
        scope = scope.bind(*(n.name for n in b.names))
    return out, scope


def iterate(binds: list[tuple[str, Fn, A.Bound]], env: Env, what: str) -> Iterator[None]:
    """Bind each combination in ``env`` in turn (restoring it afterwards)."""
    if not binds:
        yield
        return
    (name, domain, bound), rest = binds[0], binds[1:]
    values = _finite_set(domain(env), bound.domain, what)
    missing = object()
    saved = env.get(name, missing)
    try:
        for v in values:
            env[name] = v
            yield from iterate(rest, env, what)
    finally:
        if saved is missing:
            env.pop(name, None)
        else:
            env[name] = saved


def _quant(prog: Program, node: A.Quant, scope: _Scope) -> Fn:
    binds, inner = _bindings(prog, node.bounds, scope)
    body = prog.compile(node.body, inner)
    forall = node.kind is A.QuantKind.FORALL
    sym = node.kind.unicode
    if len(binds) == 1:
        return _quant1(binds[0], body, node, forall)

    def run(env: Env) -> Value:
        for _ in iterate(binds, env, f"the domain of {sym}"):
            if _boolean(body(env), node.body, f"the body of {sym}") is not forall:
                return not forall
        return forall

    return run


def _quant1(bind: tuple[str, Fn, A.Bound], body: Fn, node: A.Quant, forall: bool) -> Fn:
    """``∀/∃ x ∈ S : P`` with one variable: the same semantics as the general loop, unrolled."""
    name, domain, bound = bind
    sym = node.kind.unicode

    def run(env: Env) -> Value:
        values = domain(env)
        if values.__class__ is not frozenset:
            values = _finite_set(values, bound.domain, f"the domain of {sym}")
        saved = env.get(name, _MISSING)
        try:
            for v in values:
                env[name] = v
                r = body(env)
                if r is not forall:
                    if r is (not forall):
                        return not forall
                    _boolean(r, node.body, f"the body of {sym}")
            return forall
        finally:
            if saved is _MISSING:
                env.pop(name, None)
            else:
                env[name] = saved

    return run


_MISSING = object()


def _set_enum(prog: Program, node: A.SetEnum, scope: _Scope) -> Fn:
    items = tuple(prog.compile(i, scope) for i in node.items)
    return lambda env: frozenset(i(env) for i in items)


def _set_filter(prog: Program, node: A.SetFilter, scope: _Scope) -> Fn:
    binds, inner = _bindings(prog, (A.Bound((node.var,), node.domain, node.span),), scope)
    pred = prog.compile(node.pred, inner)
    name = node.var.name

    def run(env: Env) -> Value:
        out = []
        for _ in iterate(binds, env, "the domain of {x ∈ S : P}"):
            if _boolean(pred(env), node.pred, "the predicate of {x ∈ S : P}"):
                out.append(env[name])
        return frozenset(out)

    return run


def _set_map(prog: Program, node: A.SetMap, scope: _Scope) -> Fn:
    binds, inner = _bindings(prog, node.bounds, scope)
    expr = prog.compile(node.expr, inner)
    return lambda env: frozenset(
        [expr(env) for _ in iterate(binds, env, "the domain of {e : x ∈ S}")]
    )


def _tuple(prog: Program, node: A.TupleLit, scope: _Scope) -> Fn:
    items = tuple(prog.compile(i, scope) for i in node.items)
    return lambda env: tuple(i(env) for i in items)


def _record(prog: Program, node: A.RecordLit, scope: _Scope) -> Fn:
    fields = tuple((k, prog.compile(v, scope)) for k, v in node.fields)
    return lambda env: Fcn((k, v(env)) for k, v in fields)


def _fn_cons(prog: Program, node: A.FnCons, scope: _Scope) -> Fn:
    binds, inner = _bindings(prog, node.bounds, scope)
    body = prog.compile(node.body, inner)
    names = [name for name, _, _ in binds]

    def key(env: Env) -> Value:
        return env[names[0]] if len(names) == 1 else tuple(env[n] for n in names)

    return lambda env: Fcn(
        [(key(env), body(env)) for _ in iterate(binds, env, "the domain of [x ∈ S ↦ e]")]
    )


def _if(prog: Program, node: A.If, scope: _Scope) -> Fn:
    cond, then, else_ = (prog.compile(e, scope) for e in (node.cond, node.then, node.else_))
    return lambda env: (
        then(env) if _boolean(cond(env), node.cond, "the IF condition") else else_(env)
    )


def _case(prog: Program, node: A.Case, scope: _Scope) -> Fn:
    arms = tuple((prog.compile(a.guard, scope), prog.compile(a.body, scope), a) for a in node.arms)
    other = prog.compile(node.other, scope) if node.other is not None else None

    def run(env: Env) -> Value:
        for guard, body, arm in arms:
            if _boolean(guard(env), arm.guard, "a CASE guard"):
                return body(env)
        if other is None:
            raise EvalError("no CASE guard is true and there is no OTHER arm", node.span)
        return other(env)

    return run


def _let(prog: Program, node: A.Let, scope: _Scope) -> Fn:
    made = [_Target(d, is_let=True) for d in node.defs]
    targets = {t.definition.name: t for t in made}  # a name defined twice (SPC104): the last
    inner = _Scope(scope.variables, {**scope.lets, **targets})
    for target in made:
        target.body = prog.compile(target.definition.body, inner.bind(*target.params))
    body = prog.compile(node.body, inner)
    keys = ["$let:" + name for name in targets]

    def run(env: Env) -> Value:
        captured = dict(env)
        for k in keys:
            captured[k] = captured
        # The body gets its own copy: binders in it rebind names in place, and the LET
        # definitions must keep seeing the bindings of the LET (static scoping).
        return body(dict(captured))

    return run


def _lambda(prog: Program, node: A.Lambda, scope: _Scope) -> Fn:
    params = tuple(p.name for p in node.params)
    body = prog.compile(node.body, scope.bind(*params))
    text = "LAMBDA " + ", ".join(params)

    def make(env: Env) -> Value:
        captured = dict(env)

        def call(*args: Value) -> Value:
            inner = captured.copy()
            for p, a in zip(params, args, strict=True):
                inner[p] = a
            return body(inner)

        return Closure(len(params), call, text)

    return make


_HANDLERS: dict[type, Handler] = {
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

sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
