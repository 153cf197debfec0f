"""The compiler's rules, one per AST node type, and their dispatch table."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS, CONSTANTS
from schedspec.spec.compile.z3.builtins import _BUILTINS, _WHY_UNSUPPORTED
from schedspec.spec.compile.z3.equality import _iff, union
from schedspec.spec.compile.z3.errors import Z3Unsupported
from schedspec.spec.compile.z3.logic import Bool, SVal, _is_int, _ite, conj, disj, implies, neg
from schedspec.spec.compile.z3.values import SFun, SLambda, SSeq, SSet, _InfiniteSet, kind

if TYPE_CHECKING:
    from schedspec.spec.compile.z3.compiler import Compiler, Env


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
            return union(list(x.present()) + list(y.present()))
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
