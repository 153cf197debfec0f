"""One handler per AST node type: the Python source each compiles to (``_HANDLERS``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any

from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS, CONSTANTS
from schedspec.spec.compile import python as P
from schedspec.spec.compile.source.scope import _Fn, _LetDef, _Scope, _Var

if TYPE_CHECKING:
    from schedspec.spec.compile.source.generator import _Generator


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
