"""The generated-source backend: every module definition becomes one Python function.

The closure backend (:mod:`.python`) walks a tree of closures and keeps every binding in a dict;
that is what lets :mod:`.explain` and :mod:`.coverage` re-run any sub-expression, and it is what
costs the checker most of its time. This backend compiles the same AST to Python *source*, one
function per definition: parameters and bound variables are Python locals, ``∧``/``∨``, CASE and
IF are ``if`` statements, quantifiers and comprehensions are ``for`` loops, and each operator
checks the common case inline (two integers, a set, a record with the field) before handing
anything unusual to the closure backend's own checks. Values, evaluation order and every
:class:`EvalError` (message and span) are the closure backend's; ``tests/spec/
test_compile_source.py`` holds the two to that on random expressions and modules, the scenario
files and the bundled specs over generated clusters.

No spec text reaches the generated source. Names are replaced by generated identifiers
(``a3``, ``x7``), literals are written with :func:`repr`, and everything else the code needs (AST
nodes for error spans, built-in implementations, messages) is a global of the generated module.

Module definitions are memoised per argument tuple, as in :class:`.python.Program`, until the
next :meth:`SourceProgram.bind`; ``bind(…, keep=True)`` forgets only the values of the
definitions that read (themselves or through the definitions they call) a constant it binds to
another object than before: a checker's clusters share most pods, so ``Requests(p)`` or
``TaintsOK(p, n)`` of one cluster is often the next one's. A zero-parameter LET definition is
evaluated at most once per evaluation of its LET (the closure backend evaluates it at each use;
the value is the same, definitions being pure, and an error surfaces at the first use either
way). A LAMBDA captures the values of the variables it uses when it is made; a LET inside a loop
gets a function of its own, so the definitions it makes keep the bindings of their iteration.

A pure, flat sub-expression (no binder, LET or LAMBDA in it) already computed on every path to a
point of a function is not computed again there: same shape, spans aside, and its names meaning
the same locals, definitions or constants (``p.spec.schedulerName``, ``Profiles``, a definition
compiled in place with the same arguments). What an IF or CASE arm, a short-circuited operand or
a loop body computed is forgotten when that block ends. Reusing a value that was computed
without error changes no value and no error: the second evaluation would have given the same.

Should a definition not compile (an expression nested past Python's limits), that one definition
runs on the closure backend; :attr:`SourceProgram.fallbacks` names them.
"""

from __future__ import annotations

import keyword
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from schedspec.spec import ast as A
from schedspec.spec import builtins as B
from schedspec.spec.builtins import BUILTINS, CONSTANTS, BuiltinError
from schedspec.spec.compile import python as P
from schedspec.spec.errors import EvalError
from schedspec.spec.values import Closure, Fcn, Value

__all__ = ["RECURSED", "SourceProgram", "compile_source"]

_MISS = P._MISSING


# ---- run-time helpers the generated code calls on its slow paths ------------------------------


def _raise(message: str, span: A.Span) -> Any:
    raise EvalError(message, span)


def _binop(op: A.BinOp, a: Value, b: Value, node: A.Binary) -> Value:
    try:
        return P._BINOPS[op](a, b, node)
    except BuiltinError as err:
        raise EvalError(str(err), node.span) from None


def _builtin_fails(check: Any, args: tuple[Value, ...], span: A.Span) -> None:
    """``check(*args)`` raises BuiltinError: as the closure backend reports it."""
    try:
        check(*args)
    except BuiltinError as err:
        raise EvalError(str(err), span) from None


_RUNTIME: dict[str, Any] = {
    "Fcn": Fcn,
    "Closure": Closure,
    "EvalError": EvalError,
    "BuiltinError": BuiltinError,
    "MISS": _MISS,
    "_raise": _raise,
    "_junction_operand": P._junction_operand,
    "_not_operator": P._not_operator,
    "_index_other": P._index_other,
    "_domain": P._domain,
    "_binop": _binop,
    "_builtin_fails": _builtin_fails,
    "_elements": B._elements,
    "_ints": B._ints,
    "_boolean": P._boolean,
    "_integer": P._integer,
    "_finite_set": P._finite_set,
    "_member": P._member,
    "_eq": P._eq,
    "_field_error": P._field_error,
}

# ---- what a name means at a point of the program ------------------------------------------------


class _Fn:
    """A Python function being generated: its lines, and the outer locals its body uses."""

    def __init__(self, parent: _Fn | None) -> None:
        self.parent = parent
        self.lines: list[str] = []
        self.depth = 1  # indentation of the next line, in levels
        self.loops = 0  # enclosing `for` statements of this function at the current line
        self.free: dict[str, None] = {}  # outer locals used, in first-use order
        # pure expressions computed on every path to the current line: key → the local holding
        # the value; each block (indentation level) lists the keys it added, forgotten when it
        # closes, so a value computed in an IF arm or a short-circuited operand is not reused
        # after it
        self.known: dict[_Key, str] = {}
        self.added: list[list[_Key]] = [[]]

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def open_block(self) -> None:
        self.depth += 1
        self.added.append([])

    def close_blocks(self, n: int) -> None:
        self.depth -= n
        for _ in range(n):
            for key in self.added.pop():
                del self.known[key]


@dataclass(frozen=True)
class _Var:
    py: str
    owner: _Fn


@dataclass
class _LetDef:
    """A LET definition is one of: a local variable, its body compiled where it is first needed
    (``local``); a nested function with a one-element list caching its value (``cell``); a
    nested function (parameters)."""

    definition: A.Definition
    fn: str
    cell: str | None
    owner: _Fn
    local: str | None = None
    scope: _Scope | None = None  # the LET's, for a local's body


@dataclass(frozen=True)
class _Scope:
    variables: Mapping[str, _Var] = field(default_factory=dict)
    lets: Mapping[str, _LetDef] = field(default_factory=dict)

    def bind(self, names: Mapping[str, _Var]) -> _Scope:
        return _Scope({**self.variables, **names}, self.lets)


_Key = tuple[int, tuple[tuple[str, str], ...]]


def _meaning(name: str, scope: _Scope) -> tuple[str, str]:
    """What ``name`` stands for in ``scope``: a local (its Python name), a LET definition, or a
    module definition, constant or built-in (the same throughout)."""
    var = scope.variables.get(name)
    if var is not None:
        return "v", var.py
    let = scope.lets.get(name)
    if let is not None:
        return "l", let.local or let.fn
    return "g", name


_Shape = tuple[int, tuple[str, ...], bool]
_LITERALS = (A.Num, A.Str, A.Bool)


class _Shapes:
    """Each pure, flat expression's shape (spans left out) as a small integer, the names it reads
    in order, and whether its value is worth keeping: two nodes of one shape whose names mean the
    same things compute the same value, or raise, both. Flat: no binder, LET or LAMBDA in it (a
    bound variable is a Python local that changes as the loop runs)."""

    def __init__(self) -> None:
        self._ids: dict[tuple[object, ...], int] = {}
        self._of: dict[int, tuple[A.Expr, _Shape | None]] = {}  # id(node) → (node, shape)

    def of(self, node: A.Expr) -> _Shape | None:
        hit = self._of.get(id(node))
        if hit is not None:
            return hit[1]
        shape = self._shape(node)
        self._of[id(node)] = (node, shape)  # the node kept alive, so its id is not reused
        return shape

    def _all(self, nodes: tuple[A.Expr, ...]) -> list[_Shape] | None:
        shapes = [self.of(n) for n in nodes]
        return None if any(s is None for s in shapes) else shapes  # type: ignore[return-value]

    def _shape(self, node: A.Expr) -> _Shape | None:
        kind = type(node)
        if isinstance(node, _LITERALS):
            return self._intern((kind, type(node.value), node.value)), (), False
        if isinstance(node, A.Name):
            return self._intern((kind,)), (node.name,), True
        parts: tuple[object, ...]
        if isinstance(node, A.Apply):
            items, parts = node.args, ()
        elif isinstance(node, A.Index):
            items, parts = (node.fn, *node.args), ()
        elif isinstance(node, A.TupleLit | A.SetEnum):
            items, parts = node.items, ()
        elif isinstance(node, A.Junction):
            items, parts = node.items, (node.op,)
        elif isinstance(node, A.Field):
            items, parts = (node.record,), (node.name,)
        elif isinstance(node, A.Unary):
            items, parts = (node.operand,), (node.op,)
        elif isinstance(node, A.Binary):
            items, parts = (node.left, node.right), (node.op,)
        elif isinstance(node, A.If):
            items, parts = (node.cond, node.then, node.else_), ()
        elif isinstance(node, A.Case):
            arms = tuple(e for arm in node.arms for e in (arm.guard, arm.body))
            items = arms if node.other is None else (*arms, node.other)
            parts = (node.other is None,)
        elif isinstance(node, A.RecordLit):
            items, parts = tuple(v for _, v in node.fields), tuple(k for k, _ in node.fields)
        else:
            return None
        shapes = self._all(items)
        if shapes is None:
            return None
        names = tuple(n for s in shapes for n in s[1])
        if isinstance(node, A.Apply):
            names = (node.name, *names)
        # a set of literals is built once, a global
        keep = not isinstance(node, A.SetEnum) or not all(isinstance(i, _LITERALS) for i in items)
        sid = self._intern((kind, len(items), *parts, *(s[0] for s in shapes)))
        return sid, names, keep

    def _intern(self, shape: tuple[object, ...]) -> int:
        return self._ids.setdefault(shape, len(self._ids))


_INT_OPS = {
    A.BinOp.LT: "<",
    A.BinOp.LE: "<=",
    A.BinOp.GT: ">",
    A.BinOp.GE: ">=",
    A.BinOp.ADD: "+",
    A.BinOp.SUB: "-",
    A.BinOp.MUL: "*",
}
_SET_OPS = {A.BinOp.CUP: "|", A.BinOp.CAP: "&", A.BinOp.SETMINUS: "-", A.BinOp.SUBSETEQ: "<="}


class _Generator:
    """Source for one module definition (and the globals it needs, in ``ns``)."""

    def __init__(
        self,
        ns: dict[str, Any],
        defs: Mapping[str, tuple[str, A.Definition]],
        inline: frozenset[str] = frozenset(),
        shapes: _Shapes | None = None,
    ) -> None:
        self.ns = ns
        self.defs = defs  # module definition name → (function name, definition)
        self.inline = inline  # definitions compiled in place at each call
        self.shapes = shapes if shapes is not None else _Shapes()
        self.fn = _Fn(None)
        self._counter = 0
        self._consts: dict[int, str] = {}
        # what the definition's value may depend on besides its arguments
        self.constants_read: set[str] = set()  # free constants (``CONSTS``)
        self.calls: set[str] = set()  # module definitions called (not compiled in place)

    # -- names ------------------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def const(self, obj: Any) -> str:
        """A global of the generated module holding ``obj`` (an AST node, a built-in, …)."""
        name = self._consts.get(id(obj))
        if name is None:
            name = self._consts[id(obj)] = f"k{len(self.ns)}"
            self.ns[name] = obj
        return name

    def use(self, py: str, owner: _Fn) -> str:
        """``py`` read in the current function: every function between here and its owner
        needs it from outside."""
        fn: _Fn | None = self.fn
        while fn is not None and fn is not owner:
            fn.free.setdefault(py)
            fn = fn.parent
        return py

    def emit(self, line: str) -> None:
        self.fn.emit(line)

    def tmp(self, expr: str) -> str:
        t = self.fresh("t")
        self.emit(f"{t} = {expr}")
        return t

    def indent(self) -> None:
        self.fn.open_block()

    def dedent(self, n: int = 1) -> None:
        self.fn.close_blocks(n)

    # -- definitions ------------------------------------------------------------------------------
    def module_definition(self, py: str, memo: str, d: A.Definition) -> str:
        params = [self.fresh("a") for _ in d.params]
        scope = _Scope({p.name: _Var(a, self.fn) for p, a in zip(d.params, params, strict=True)})
        # TRUE == 1 in Python: a key holding a boolean tags it, so f(1) never answers f(TRUE)
        tagged = [f"({a} if {a}.__class__ is not bool else (bool, {a}))" for a in params]
        key = "()" if not params else tagged[0] if len(params) == 1 else ", ".join(tagged)
        self.emit(f"key = {key}")
        self.emit(f"r = {memo}.get(key, MISS)")
        self.emit("if r is not MISS:")
        self.emit("    return r")
        value = self.expr(d.body, scope)
        self.emit(f"{memo}[key] = {value}")
        self.emit(f"return {value}")
        header = f"def {py}({', '.join(params)}):"
        return "\n".join([header, *self.fn.lines]) + "\n"

    # -- expressions: each emits statements and returns a side-effect-free expression -------------
    def expr(self, node: A.Expr, scope: _Scope) -> str:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise P.UnsupportedNode(f"no source handler for {type(node).__name__}")
        key = self.key(node, scope)
        if key is None:
            return handler(self, node, scope)
        known = self.fn.known.get(key)
        if known is not None:
            return known
        value = handler(self, node, scope)
        self.remember(key, value)
        return value

    # -- common sub-expressions -------------------------------------------------------------------
    def key(self, node: A.Expr, scope: _Scope) -> _Key | None:
        """What ``node`` computes in ``scope``, for reuse: its shape and what each name in it
        means here; None for a node not worth keeping or not pure and flat (a literal, a bound
        variable, anything with a binder, LET or LAMBDA)."""
        shape = self.shapes.of(node)
        if shape is None or not shape[2]:
            return None
        if isinstance(node, A.Name) and node.name in scope.variables:
            return None  # a local already
        return shape[0], tuple(_meaning(name, scope) for name in shape[1])

    def remember(self, key: _Key, value: str) -> None:
        """``value`` (a local of this function, assigned by now on every path that gets here)
        holds ``key`` until the current block closes."""
        if not value.isidentifier() or keyword.iskeyword(value):
            return  # a literal, or None after code that always raises
        self.fn.known[key] = value
        self.fn.added[-1].append(key)

    def fail(self, message: str, node: A.Expr) -> str:
        self.emit(f"_raise({message!r}, {self.const(node.span)})")
        return "None"

    def boolean(self, v: str, node: A.Expr, what: str) -> str:
        """``v`` as a boolean, or the closure backend's error for ``what``."""
        check = f"_boolean({v}, {self.const(node)}, {what!r})"
        return f"({v} if {v} is True or {v} is False else {check})"

    def loops(self, binds: list[tuple[str, A.Expr, _Scope]], what: str) -> int:
        """Open one ``for`` per binder, each domain checked to be a finite set; returns how many."""
        for py, domain, scope in binds:
            d = self.expr(domain, scope)
            self.emit(f"if {d}.__class__ is not frozenset:")
            self.emit(f"    _finite_set({d}, {self.const(domain)}, {what!r})")
            self.emit(f"for {py} in {d}:")
            self.indent()
            self.fn.loops += 1
        return len(binds)

    def close_loops(self, n: int) -> None:
        self.dedent(n)
        self.fn.loops -= n

    def bindings(
        self, bounds: tuple[A.Bound, ...], scope: _Scope
    ) -> tuple[list[tuple[str, A.Expr, _Scope]], _Scope]:
        """``x, y ∈ S, z ∈ T``: each domain sees the variables of the bounds before it."""
        out: list[tuple[str, A.Expr, _Scope]] = []
        for b in bounds:
            names = {n.name: _Var(self.fresh("x"), self.fn) for n in b.names}
            out.extend((var.py, b.domain, scope) for var in names.values())
            scope = scope.bind(names)
        return out, scope


# ---- handlers -----------------------------------------------------------------------------------


def _num(g: _Generator, node: A.Num, scope: _Scope) -> str:
    return f"({node.value!r})"


def _str(g: _Generator, node: A.Str, scope: _Scope) -> str:
    return f"({node.value!r})"


def _bool(g: _Generator, node: A.Bool, scope: _Scope) -> str:
    return repr(node.value)


def _name(g: _Generator, node: A.Name, scope: _Scope) -> str:
    name = node.name
    var = scope.variables.get(name)
    if var is not None:
        return g.use(var.py, var.owner)
    let = scope.lets.get(name)
    if let is not None:
        return _call_let(g, let, (), node, scope)
    if name in g.defs:
        return _call_def(g, name, (), node, scope)
    if name in CONSTANTS:
        return g.const(CONSTANTS[name])
    g.constants_read.add(name)
    t = g.tmp(f"CONSTS.get({name!r}, MISS)")
    g.emit(f"if {t} is MISS:")
    message = "free variable '" + name + "' is not bound"
    g.emit(f"    _raise({message!r}, {g.const(node.span)})")
    return t


def _arity_fails(g: _Generator, name: str, takes: int, node: A.Expr, given: int) -> bool:
    if takes == given:
        return False
    g.fail(P._arity_message(name, takes, given), node)
    return True


def _args(g: _Generator, args: tuple[A.Expr, ...], scope: _Scope) -> list[str]:
    return [g.expr(a, scope) for a in args]


def _call_def(
    g: _Generator, name: str, args: tuple[A.Expr, ...], node: A.Expr, scope: _Scope
) -> str:
    py, d = g.defs[name]
    if _arity_fails(g, name, len(d.params), node, len(args)):
        return "None"
    values = _args(g, args, scope)
    if name in g.inline:
        # the body in place, its parameters the argument values: what a call computes, less
        # the call and the memo key (which cost more than such a body)
        params = {p.name: _Var(v, g.fn) for p, v in zip(d.params, values, strict=True)}
        return g.expr(d.body, _Scope(params))
    g.calls.add(name)
    return g.tmp(f"{py}({', '.join(values)})")


def _call_let(
    g: _Generator, let: _LetDef, args: tuple[A.Expr, ...], node: A.Expr, scope: _Scope
) -> str:
    d = let.definition
    if _arity_fails(g, d.name, len(d.params), node, len(args)):
        return "None"
    if let.local is not None and let.scope is not None:
        g.emit(f"if {let.local} is MISS:")
        g.indent()
        g.emit(f"{let.local} = {g.expr(d.body, let.scope)}")
        g.dedent()
        return let.local
    fn = g.use(let.fn, let.owner)
    if let.cell is None:
        values = _args(g, args, scope)
        return g.tmp(f"{fn}({', '.join(values)})")
    cell = g.use(let.cell, let.owner)
    t = g.tmp(f"{cell}[0]")
    g.emit(f"if {t} is MISS:")
    g.emit(f"    {t} = {cell}[0] = {fn}()")
    return t


def _apply(g: _Generator, node: A.Apply, scope: _Scope) -> str:
    name = node.name
    var = scope.variables.get(name)
    if var is not None:
        f = g.use(var.py, var.owner)
        n = len(node.args)
        g.emit(f"if {f}.__class__ is not Closure or {f}.arity != {n}:")
        g.emit(f"    _not_operator({name!r}, {f}, {n}, {g.const(node)})")
        values = _args(g, node.args, scope)
        return g.tmp(f"{f}.call({', '.join(values)})")
    let = scope.lets.get(name)
    if let is not None:
        return _call_let(g, let, node.args, node, scope)
    if name in g.defs:
        return _call_def(g, name, node.args, node, scope)
    b = BUILTINS.get(name)
    if b is None:
        return g.fail(f"undefined operator '{name}'", node)
    if not b.min_arity <= len(node.args) <= b.max_arity:
        want = str(b.min_arity) if b.min_arity == b.max_arity else f"{b.min_arity}–{b.max_arity}"
        return g.fail(P._arity_message(b.name, want, len(node.args)), node)
    fn = _summed_lambda(node)
    if fn is not None:
        return _sum_loop(g, node, fn, scope)
    values = _args(g, node.args, scope)
    t = g.fresh("t")
    g.emit("try:")
    g.emit(f"    {t} = {g.const(b.impl)}({', '.join(values)})")
    g.emit("except BuiltinError as err:")
    g.emit(f"    raise EvalError(str(err), {g.const(node.span)}) from None")
    return t


def _summed_lambda(node: object) -> A.Lambda | None:
    """The LAMBDA of ``Sum(LAMBDA x : e, S)``, which compiles to a loop (when ``Sum`` is the
    built-in), else None."""
    if isinstance(node, A.Apply) and node.name == "Sum" and len(node.args) == 2:
        fn = node.args[0]
        if isinstance(fn, A.Lambda) and len(fn.params) == 1:
            return fn
    return None


def _sum_loop(g: _Generator, node: A.Apply, fn: A.Lambda, scope: _Scope) -> str:
    """``Sum(LAMBDA x : e, S)`` as a loop, no LAMBDA made: every term first (a term's error wins
    over an earlier term that is not an integer), then the first non-integer is the error."""
    s = g.expr(node.args[1], scope)
    span = g.const(node.span)
    g.emit(f"if {s}.__class__ is not frozenset and {s}.__class__ is not tuple:")
    g.emit(f"    _builtin_fails(_elements, ('Sum', {s}), {span})")
    total, bad, x = g.tmp("0"), g.tmp("MISS"), g.fresh("x")
    g.emit(f"for {x} in {s}:")
    g.indent()
    g.fn.loops += 1
    v = g.expr(fn.body, scope.bind({fn.params[0].name: _Var(x, g.fn)}))
    g.emit(f"if {v}.__class__ is int:")
    g.emit(f"    {total} += {v}")
    g.emit(f"elif {bad} is MISS:")
    g.emit(f"    {bad} = {v}")
    g.close_loops(1)
    g.emit(f"if {bad} is not MISS:")
    g.emit(f"    _builtin_fails(_ints, ('Sum', ({bad},)), {span})")
    return total


def _field(g: _Generator, node: A.Field, scope: _Scope) -> str:
    chain: list[A.Field] = [node]
    while isinstance(chain[-1].record, A.Field):
        chain.append(chain[-1].record)
    # ``r.a.b.c``: from the longest of ``r.a.b``, ``r.a`` already computed (``node`` itself was
    # looked up by ``expr``), each step kept for the next chain sharing it
    keys = [g.key(step, scope) for step in chain]
    r = None
    for i in range(1, len(chain)):
        key = keys[i]
        r = g.fn.known.get(key) if key is not None else None
        if r is not None:
            chain = chain[:i]
            break
    if r is None:
        r = g.expr(chain[-1].record, scope)
    for i in range(len(chain) - 1, -1, -1):
        step = chain[i]
        t = g.tmp(f"{r}.get({step.name!r}, MISS) if {r}.__class__ is Fcn else MISS")
        g.emit(f"if {t} is MISS:")
        g.emit(f"    _field_error({r}, {step.name!r}, {g.const(step)})")
        key = keys[i]
        if i > 0 and key is not None:
            g.remember(key, t)
        r = t
    return r


def _index(g: _Generator, node: A.Index, scope: _Scope) -> str:
    f = g.expr(node.fn, scope)
    values = _args(g, node.args, scope)
    x = values[0] if len(values) == 1 else "(" + ", ".join(values) + ",)"
    x = g.tmp(x) if len(values) > 1 else x
    t = g.tmp(f"{f}.get({x}, MISS) if {f}.__class__ is Fcn else MISS")
    g.emit(f"if {t} is MISS:")
    g.emit(f"    {t} = _index_other({f}, {x}, {g.const(node)})")
    return t


def _unary(g: _Generator, node: A.Unary, scope: _Scope) -> str:
    v = g.expr(node.operand, scope)
    if node.op is A.UnOp.NOT:
        return g.tmp("not " + g.boolean(v, node.operand, "the operand of ¬"))
    if node.op is A.UnOp.NEG:
        k = g.const(node.operand)
        return g.tmp(
            f"-({v} if {v}.__class__ is int else _integer({v}, {k}, 'the operand of unary -'))"
        )
    return g.tmp(f"frozenset({v}) if {v}.__class__ is Fcn else _domain({v}, {g.const(node)})")


def _binary(g: _Generator, node: A.Binary, scope: _Scope) -> str:
    op = node.op
    if op is A.BinOp.IMPLIES:
        left = g.expr(node.left, scope)
        t = g.tmp("not " + g.boolean(left, node.left, "the left of ⇒"))
        g.emit(f"if not {t}:")
        g.indent()
        right = g.expr(node.right, scope)
        g.emit(f"{t} = " + g.boolean(right, node.right, "the right of ⇒"))
        g.dedent()
        return t
    if op is A.BinOp.EQUIV:
        left = g.expr(node.left, scope)
        lb = g.tmp(g.boolean(left, node.left, "the left of ≡"))
        right = g.expr(node.right, scope)
        return g.tmp(f"{lb} is " + g.boolean(right, node.right, "the right of ≡"))
    rhs = node.right
    if op is A.BinOp.IN and isinstance(rhs, A.Unary) and rhs.op is A.UnOp.DOMAIN:
        a = g.expr(node.left, scope)
        f = g.expr(rhs.operand, scope)
        return g.tmp(
            f"{a} in {f} if {f}.__class__ is Fcn "
            f"else _member({a}, _domain({f}, {g.const(rhs)}), {g.const(node)})"
        )
    a = g.expr(node.left, scope)
    b = g.expr(node.right, scope)
    k = g.const(node)
    slow = f"_binop({g.const(op)}, {a}, {b}, {k})"
    if op is A.BinOp.EQ or op is A.BinOp.NEQ:
        py, fallback = ("==", f"_eq({a}, {b}, {k})") if op is A.BinOp.EQ else ("!=", slow)
        return g.tmp(f"{a} {py} {b} if {_same_class(a, node.left, b, node.right)} else {fallback}")
    if op is A.BinOp.IN:
        if isinstance(node.right, A.SetEnum):
            return g.tmp(f"{a} in {b}")
        return g.tmp(f"{a} in {b} if {b}.__class__ is frozenset else _member({a}, {b}, {k})")
    if op is A.BinOp.NOTIN:
        return g.tmp(f"{a} not in {b} if {b}.__class__ is frozenset else {slow}")
    sym = _INT_OPS.get(op)
    if sym is not None:
        ints = [f"{v}.__class__ is int" for v, n in ((a, node.left), (b, node.right))]
        ints = [c for c, n in zip(ints, (node.left, node.right), strict=True) if not _is_int(n)]
        if not ints:
            return g.tmp(f"{a} {sym} {b}")
        return g.tmp(f"{a} {sym} {b} if {' and '.join(ints)} else {slow}")
    if op is A.BinOp.DIV or op is A.BinOp.MOD:
        py, ok = ("//", "!= 0") if op is A.BinOp.DIV else ("%", "> 0")
        return g.tmp(
            f"{a} {py} {b} if {a}.__class__ is int and {b}.__class__ is int and {b} {ok} "
            f"else {slow}"
        )
    sym = _SET_OPS.get(op)
    if sym is not None:
        return g.tmp(
            f"{a} {sym} {b} if {a}.__class__ is frozenset and {b}.__class__ is frozenset "
            f"else {slow}"
        )
    return g.tmp(slow)


def _is_int(node: A.Expr) -> bool:
    return isinstance(node, A.Num)


def _same_class(a: str, left: A.Expr, b: str, right: A.Expr) -> str:
    """The test that ``a`` and ``b`` are of one class, a literal's class known."""
    for v, other in ((a, right), (b, left)):
        if isinstance(other, A.Num):
            return f"{v}.__class__ is int"
        if isinstance(other, A.Str):
            return f"{v}.__class__ is str"
        if isinstance(other, A.Bool):
            return f"{v}.__class__ is bool"
    return f"{a}.__class__ is {b}.__class__"


def _junction(g: _Generator, node: A.Junction, scope: _Scope) -> str:
    stop = node.op is A.JunctionOp.OR  # ∨ stops at the first TRUE, ∧ at the first FALSE
    sym = node.op.unicode
    t = g.tmp(repr(not stop))
    opened = 0
    for i, item in enumerate(node.items):
        v = g.expr(item, scope)
        g.emit(f"if {v} is {stop}:")
        g.emit(f"    {t} = {stop}")
        g.emit(f"elif {v} is not {not stop}:")
        g.emit(f"    _junction_operand({v}, {sym!r}, {g.const(item)})")
        if i < len(node.items) - 1:
            g.emit("else:")
            g.indent()
            opened += 1
    g.dedent(opened)
    return t


def _quant(g: _Generator, node: A.Quant, scope: _Scope) -> str:
    binds, inner = g.bindings(node.bounds, scope)
    forall = node.kind is A.QuantKind.FORALL
    sym = node.kind.unicode
    t = g.tmp(repr(forall))
    g.loops(binds, f"the domain of {sym}")
    body = g.expr(node.body, inner)
    g.emit(f"if {body} is not {forall}:")
    g.emit(f"    if {body} is {not forall}:")
    g.emit(f"        {t} = {not forall}")
    g.emit("        break")
    g.emit(f"    _boolean({body}, {g.const(node.body)}, {f'the body of {sym}'!r})")
    for _ in binds[1:]:  # each outer loop stops once an inner one found the answer
        g.close_loops(1)
        g.emit(f"if {t} is {not forall}:")
        g.emit("    break")
    g.close_loops(1)
    return t


def _set_filter(g: _Generator, node: A.SetFilter, scope: _Scope) -> str:
    binds, inner = g.bindings((A.Bound((node.var,), node.domain, node.span),), scope)
    out = g.tmp("[]")
    n = g.loops(binds, "the domain of {x ∈ S : P}")
    pred = g.expr(node.pred, inner)
    g.emit(f"if {pred} is True:")
    g.emit(f"    {out}.append({binds[0][0]})")
    g.emit(f"elif {pred} is not False:")
    g.emit(f"    _boolean({pred}, {g.const(node.pred)}, 'the predicate of {{x ∈ S : P}}')")
    g.close_loops(n)
    return g.tmp(f"frozenset({out})")


def _set_map(g: _Generator, node: A.SetMap, scope: _Scope) -> str:
    binds, inner = g.bindings(node.bounds, scope)
    out = g.tmp("[]")
    n = g.loops(binds, "the domain of {e : x ∈ S}")
    g.emit(f"{out}.append({g.expr(node.expr, inner)})")
    g.close_loops(n)
    return g.tmp(f"frozenset({out})")


def _fn_cons(g: _Generator, node: A.FnCons, scope: _Scope) -> str:
    binds, inner = g.bindings(node.bounds, scope)
    out = g.tmp("[]")
    n = g.loops(binds, "the domain of [x ∈ S ↦ e]")
    key = binds[0][0] if len(binds) == 1 else "(" + ", ".join(b[0] for b in binds) + ",)"
    g.emit(f"{out}.append(({key}, {g.expr(node.body, inner)}))")
    g.close_loops(n)
    return g.tmp(f"Fcn({out})")


def _set_enum(g: _Generator, node: A.SetEnum, scope: _Scope) -> str:
    if all(isinstance(i, A.Num | A.Str | A.Bool) for i in node.items):
        # literals only: built once, in the order the closure backend builds it
        return g.const(frozenset(i.value for i in node.items))  # type: ignore[union-attr]
    values = _args(g, node.items, scope)
    return g.tmp("frozenset((" + "".join(v + ", " for v in values) + "))")


def _tuple(g: _Generator, node: A.TupleLit, scope: _Scope) -> str:
    values = _args(g, node.items, scope)
    return g.tmp("(" + "".join(v + ", " for v in values) + ")")


def _record(g: _Generator, node: A.RecordLit, scope: _Scope) -> str:
    pairs = [f"({k!r}, {g.expr(v, scope)})" for k, v in node.fields]
    return g.tmp("Fcn((" + "".join(p + ", " for p in pairs) + "))")


def _if(g: _Generator, node: A.If, scope: _Scope) -> str:
    cond = g.expr(node.cond, scope)
    t = g.fresh("t")
    g.emit(f"if {cond} is True:")
    g.indent()
    g.emit(f"{t} = {g.expr(node.then, scope)}")
    g.dedent()
    g.emit(f"elif {cond} is False:")
    g.indent()
    g.emit(f"{t} = {g.expr(node.else_, scope)}")
    g.dedent()
    g.emit("else:")
    g.emit(f"    {t} = _boolean({cond}, {g.const(node.cond)}, 'the IF condition')")
    return t


def _case(g: _Generator, node: A.Case, scope: _Scope) -> str:
    t = g.fresh("t")
    for arm in node.arms:
        guard = g.expr(arm.guard, scope)
        g.emit(f"if {guard} is True:")
        g.indent()
        g.emit(f"{t} = {g.expr(arm.body, scope)}")
        g.dedent()
        g.emit(f"elif {guard} is not False:")
        g.emit(f"    {t} = _boolean({guard}, {g.const(arm.guard)}, 'a CASE guard')")
        g.emit("else:")
        g.indent()
    if node.other is None:
        g.fail("no CASE guard is true and there is no OTHER arm", node)
    else:
        g.emit(f"{t} = {g.expr(node.other, scope)}")
    g.dedent(len(node.arms))
    return t


def _nested(g: _Generator, build: Callable[[], str]) -> tuple[_Fn, str]:
    """Run ``build`` with a new function as the current one; returns it and what build returned."""
    outer = g.fn
    g.fn = _Fn(outer)
    try:
        result = build()
        return g.fn, result
    finally:
        g.fn = outer


def _splice(g: _Generator, header: str, fn: _Fn) -> None:
    g.emit(header)
    pad = "    " * g.fn.depth
    g.fn.lines.extend(pad + line for line in fn.lines)


def _let(g: _Generator, node: A.Let, scope: _Scope) -> str:
    locals_ = _local_lets(g, node, scope)
    if g.fn.loops == 0 or all(d.name in locals_ for d in node.defs):
        return _let_here(g, node, scope, locals_)
    # Inside a loop: a function of its own, called with the outer locals it reads, so the
    # definitions it makes close over this iteration's values, not the loop's last.
    inner, value = _nested(g, lambda: _let_here(g, node, scope, locals_))
    inner.emit(f"return {value}")
    py = g.fresh("let")
    params = list(inner.free)
    _splice(g, f"def {py}({', '.join(params)}):", inner)
    outer_args = []
    for p in params:
        var = _owner_of(g, p)
        outer_args.append(g.use(p, var) if var is not None else p)
    return g.tmp(f"{py}({', '.join(outer_args)})")


_LOCAL_NODES = 300  # a local LET definition's nodes × the places its body is compiled


def _local_lets(g: _Generator, node: A.Let, scope: _Scope) -> frozenset[str]:
    """The zero-parameter definitions of ``node`` that can be locals: each use is in the LET's
    own function (not under a LAMBDA or a nested LET, which may become functions) in the body or
    in another local's body, they do not reach themselves, and copying the body to every use
    stays small."""
    defs = {d.name: d for d in node.defs}
    # Sum(LAMBDA …) compiles to a loop, not a function, unless something else is called Sum
    binders = {b.name for n in A.walk(node) if isinstance(n, A.Bound) for b in n.names}
    sum_loops = "Sum" not in scope.variables and "Sum" not in scope.lets and "Sum" not in g.defs
    sum_loops = sum_loops and "Sum" not in binders and "Sum" not in defs
    uses: dict[str, list[str | None]] = {name: [] for name in defs}  # by: None (body) or a def

    def scan(n: object, by: str | None, nested: bool) -> None:
        if isinstance(n, A.Name | A.Apply) and n.name in uses:
            uses[n.name].append(by if not nested else "")  # "" : from a nested function
        if isinstance(n, A.Lambda | A.Let):
            nested = True
        summed = _summed_lambda(n) if sum_loops else None
        if summed is not None:
            assert isinstance(n, A.Apply)
            scan(summed.body, by, nested)
            scan(n.args[1], by, nested)
            return
        if isinstance(n, tuple):
            for item in n:
                scan(item, by, nested)
        elif is_dataclass(n) and not isinstance(n, A.Span | type):
            for f in fields(n):
                scan(getattr(n, f.name), by, nested)

    scan(node.body, None, False)
    for d in node.defs:
        scan(d.body, d.name, False)
    size = {name: sum(1 for _ in A.walk(d.body)) for name, d in defs.items()}
    local = {name for name, d in defs.items() if not d.params}
    while True:
        copies = _copies(uses, local)
        keep = {name for name in local if copies[name] * size[name] <= _LOCAL_NODES}
        if keep == local:
            return frozenset(local)
        local = keep


def _copies(uses: Mapping[str, list[str | None]], local: set[str]) -> dict[str, float]:
    """How many times each definition's body would be compiled were ``local`` the locals: once
    per use in the LET body, once per copy of a local using it; unbounded when a use is in a
    nested function or a non-local definition, or the definition reaches itself."""
    copies: dict[str, float] = {}

    def count(name: str, visiting: frozenset[str]) -> float:
        if name in copies:
            return copies[name]
        total = 0.0
        for by in uses[name]:
            if by is None:
                total += 1
            elif by == "" or by not in local or by in visiting or by == name:
                total = float("inf")
            else:
                total += count(by, visiting | {name})
        copies[name] = total
        return total

    for name in local:
        count(name, frozenset())
    return copies


def _owner_of(g: _Generator, py: str) -> _Fn | None:
    """The function owning local ``py``: the first enclosing one that does not list it as free."""
    fn: _Fn | None = g.fn
    while fn is not None and py in fn.free:
        fn = fn.parent
    return fn


def _let_here(g: _Generator, node: A.Let, scope: _Scope, locals_: frozenset[str]) -> str:
    lets = dict(scope.lets)
    made: list[_LetDef] = []
    for d in node.defs:
        if d.name in locals_:
            let = _LetDef(d, "", None, g.fn, local=g.fresh("v"))
            g.emit(f"{let.local} = MISS")
        else:
            let = _LetDef(d, g.fresh("L"), g.fresh("c") if not d.params else None, g.fn)
        made.append(let)
        lets[d.name] = let
    inner = _Scope(scope.variables, lets)
    for let in made:
        let.scope = inner
        if let.local is not None:
            continue
        d = let.definition
        params = {p.name: _Var(g.fresh("a"), g.fn) for p in d.params}

        def body(d: A.Definition = d, params: dict[str, _Var] = params) -> str:
            # parameters belong to the nested function
            owned = {k: _Var(v.py, g.fn) for k, v in params.items()}
            return g.expr(d.body, inner.bind(owned))

        fn, value = _nested(g, body)
        fn.emit(f"return {value}")
        _splice(g, f"def {let.fn}({', '.join(v.py for v in params.values())}):", fn)
        if let.cell is not None:
            g.emit(f"{let.cell} = [MISS]")
    return g.expr(node.body, inner)


def _lambda(g: _Generator, node: A.Lambda, scope: _Scope) -> str:
    params: dict[str, _Var] = {}

    def body() -> str:
        params.update({p.name: _Var(g.fresh("a"), g.fn) for p in node.params})
        return g.expr(node.body, scope.bind(params))

    fn, value = _nested(g, body)
    fn.emit(f"return {value}")
    py = g.fresh("lam")
    names = [v.py for v in params.values()]
    captured = [f"{p}={p}" for p in fn.free]
    header = ", ".join(names + (["*", *captured] if captured else []))
    _splice(g, f"def {py}({header}):", fn)
    for p in fn.free:
        owner = _owner_of(g, p)
        if owner is not None:
            g.use(p, owner)
    text = "LAMBDA " + ", ".join(p.name for p in node.params)
    return g.tmp(f"Closure({len(names)}, {py}, {text!r})")


_HANDLERS: dict[type, Callable[[_Generator, Any, _Scope], str]] = {
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


# ---- which definitions are compiled in place ----------------------------------------------------

# Node types a definition compiled in place may contain: no loop, no nested function.
_FLAT = (
    A.Num, A.Str, A.Bool, A.Name, A.Apply, A.Field, A.Index, A.Unary, A.Binary, A.Junction,
    A.If, A.Case, A.TupleLit, A.RecordLit, A.SetEnum,
)  # fmt: skip
# Built-ins that do not walk a collection (one that does is worth its definition's memo).
_FLAT_BUILTINS = frozenset(
    {"Cardinality", "Len", "Head", "Tail", "Append", "IsInt", "ToInt", "IsLabelKey",
     "IsLabelValue", "StartsWith", "Contains", "BeforeSlashIs", "FloatScale"}
)  # fmt: skip
_INLINE_NODES = 40


def inline_set(module: A.Module) -> frozenset[str]:
    """Module definitions small and flat enough to compile in place: at most ``_INLINE_NODES``
    nodes, none of them a loop, LET or LAMBDA, calling only built-ins that do not walk a
    collection and definitions that qualify themselves (never through a cycle)."""
    defs = {d.name: d for d in module.definitions}
    verdict: dict[str, bool] = {}

    def flat(name: str, visiting: frozenset[str]) -> bool:
        if name in verdict:
            return verdict[name]
        if name in visiting:
            return False
        d = defs[name]
        params = {p.name for p in d.params}
        nodes = [n for n in A.walk(d.body) if isinstance(n, A.EXPR_TYPES)]
        ok = len(nodes) <= _INLINE_NODES and all(isinstance(n, _FLAT) for n in nodes)
        for n in nodes:
            if ok and isinstance(n, A.Apply | A.Name) and n.name not in params:
                if n.name in defs:
                    ok = flat(n.name, visiting | {name})
                elif isinstance(n, A.Apply):
                    ok = n.name in _FLAT_BUILTINS
        verdict[name] = ok
        return ok

    return frozenset(name for name in defs if flat(name, frozenset()))


# ---- the program --------------------------------------------------------------------------------


RECURSED = "evaluation recursed too deeply (recursive definition?)"
_KEPT = 256  # memoised values a definition keeps across binds that leave its constants alone
_ANY = "*"  # read by a definition on the closure backend: any constant, changed at every bind


def _constants_reached(
    reads: Mapping[int, set[str]], calls: Mapping[int, set[int]]
) -> dict[int, frozenset[str]]:
    """Per definition, the constants it reads or a definition it calls reads, directly or not."""
    out = {i: set(r) for i, r in reads.items()}
    grew = True
    while grew:
        grew = False
        for i, callees in calls.items():
            for j in callees:
                if not out[j] <= out[i]:
                    out[i] |= out[j]
                    grew = True
    return {i: frozenset(r) for i, r in out.items()}


class SourceProgram:
    """A module compiled to Python source: :meth:`bind`, :meth:`call`, :meth:`has` and
    :meth:`definition` as :class:`.python.Program` has them (no closures by node: explaining
    and coverage stay on the closure backend)."""

    def __init__(self, module: A.Module) -> None:
        self.module = module
        self.constants: dict[str, Value] = {}
        self.sources: dict[str, str] = {}
        self.fallbacks: dict[str, str] = {}  # definition → why it runs on the closure backend
        self._definitions = {d.name: d for d in module.definitions}
        self._ns: dict[str, Any] = {**_RUNTIME, "CONSTS": self.constants}
        self._memos: list[dict[Any, Value]] = []
        self._closures: P.Program | None = None
        names = {d.name: (f"d{i}", d) for i, d in enumerate(module.definitions)}
        self.inlined = inline_set(module)
        shapes = _Shapes()  # inlined bodies are shared between definitions
        self._fns: dict[str, tuple[Any, int]] = {}
        reads: dict[int, set[str]] = {}  # the constants each definition reads itself
        calls: dict[int, set[int]] = {}
        for i, d in enumerate(module.definitions):
            py, memo = f"d{i}", f"m{i}"
            self._ns[memo] = {}
            self._memos.append(self._ns[memo])
            try:
                gen = _Generator(self._ns, names, self.inlined, shapes)
                text = gen.module_definition(py, memo, d)
                with warnings.catch_warnings():
                    # ``(1) is True``: a literal where a value is checked to be a boolean
                    # (``~1``) is deliberate, and its answer (no) is the one meant
                    warnings.simplefilter("ignore", SyntaxWarning)
                    code = compile(text, f"<spec {d.name}>", "exec")
            except (P.UnsupportedNode, SyntaxError, RecursionError, MemoryError) as err:
                self.fallbacks[d.name] = f"{type(err).__name__}: {err}"
                self._ns[py] = self._fallback(d.name)
                reads[i] = {_ANY}
                continue
            self.sources[d.name] = text
            exec(code, self._ns)  # generated from the AST: no spec text in it
            reads[i] = gen.constants_read
            calls[i] = {int(names[n][0][1:]) for n in gen.calls}
        for name, (py, d) in names.items():
            self._fns[name] = (self._ns[py], len(d.params))
        reached = _constants_reached(reads, calls)
        self.reads = {d.name: reached[i] for i, d in enumerate(module.definitions)}
        """Per definition, the free constants its value may depend on besides its arguments."""
        # With ``bind(…, keep=True)`` a definition keeps its memo from one binding to the next
        # while the constants it reads are bound to the same objects (a checker's clusters share
        # most pods, and the scheduler view gives an unchanged constant its old object): ``bind``
        # empties the others, and a kept memo once it has grown past ``_KEPT``.
        groups: dict[frozenset[str], list[dict[Any, Value]]] = {}
        for i, table in enumerate(self._memos):
            groups.setdefault(reached[i], []).append(table)
        self._groups = list(groups.items())
        self._read = frozenset().union(*groups) - {_ANY}

    def _fallback(self, name: str) -> Any:
        if self._closures is None:
            self._closures = P.compile_module(self.module, self.constants)
        invoke = self._closures._targets[name].invoke
        return lambda *args: invoke(args)

    def bind(self, constants: Mapping[str, Value], *, keep: bool = False) -> SourceProgram:
        """Set the free constants a view provides; forgets every memoised value, or with
        ``keep`` only those that may depend on a constant bound to another object than before
        (:attr:`reads`). Keeping pays for a view that gives an equal value of the next cluster
        the same object, as the scheduler view does: a memo's lookups then stop at identity,
        where an equal copy would be compared field by field."""
        old = self.constants
        changed = {_ANY} | {
            n for n in self._read if constants.get(n, _MISS) is not old.get(n, _MISS)
        }
        self.constants.clear()
        self.constants.update(constants)
        for read, memos in self._groups:
            if keep and changed.isdisjoint(read):
                for memo in memos:
                    if len(memo) > _KEPT:
                        memo.clear()
            else:
                for memo in memos:
                    memo.clear()
        if self._closures is not None:
            self._closures.bind(constants)
        return self

    def forget(self) -> SourceProgram:
        """Forget every memoised value (``bind`` keeps those of definitions whose constants
        stayed the same objects)."""
        for memo in self._memos:
            memo.clear()
        return self

    def has(self, name: str) -> bool:
        return name in self._definitions

    def definition(self, name: str) -> A.Definition:
        return self._definitions[name]

    def call(self, name: str, *args: Value) -> Value:
        """Evaluate definition ``name`` on ``args``; raises :class:`EvalError`."""
        fn, arity = self._fns[name]
        if len(args) != arity:
            d = self._definitions[name]
            raise EvalError(P._arity_message(name, arity, len(args)), d.span)
        try:
            return fn(*args)
        except RecursionError:
            d = self._definitions[name]
            raise EvalError(RECURSED, d.span) from None

    def function(self, name: str) -> tuple[Callable[..., Value], int]:
        """The function :meth:`call` runs for ``name``, and how many arguments it takes: a caller
        that calls it many times checks the count once, and turns a ``RecursionError`` into
        the error :data:`RECURSED` says as ``call`` does."""
        return self._fns[name]


def compile_source(module: A.Module, constants: Mapping[str, Value] | None = None) -> SourceProgram:
    """Compile every definition of ``module`` to Python source; ``constants`` as in
    :func:`.python.compile_module`."""
    program = SourceProgram(module)
    if constants:
        program.bind(constants)
    return program
