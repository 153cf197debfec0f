"""The built-in operators the Z3 backend compiles, and those it refuses (with why)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import z3

from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS, is_int, is_label_key, is_label_value
from schedspec.spec.compile.z3.equality import _z3int
from schedspec.spec.compile.z3.errors import Z3Unsupported
from schedspec.spec.compile.z3.floats import FLOAT_KERNELS
from schedspec.spec.compile.z3.logic import Bool, SVal, _eq, _is_int, _ite, conj, disj, neg
from schedspec.spec.compile.z3.strings import SStr
from schedspec.spec.compile.z3.values import SFun, SLambda, SSeq, SSet, kind

if TYPE_CHECKING:
    from schedspec.spec.compile.z3.compiler import Compiler


_WHY_UNSUPPORTED = {
    "GroupBy": "used for explanations only",
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
    # Slot i holds e when the sequence was i long: present if it was, or if slot i - 1 was.
    items: list[tuple[Bool, SVal]] = []
    before: Bool = True
    for g, x in s.items:
        items.append((disj(g, before), c.merge(g, x, e, node)))
        before = g
    items.append((before, e))
    return SSeq(items)


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


def _string_kind(pred: Callable[[str], bool]) -> Callable[[Compiler, A.Apply, list[SVal]], SVal]:
    """A predicate on strings (``IsLabelKey``): FALSE on any other value, and on a symbolic
    string the disjunction of the universe's strings it holds for."""

    def build(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
        v = args[0]
        if kind(v) != "string":
            return False
        return _string_table(c, v, pred)

    return build


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


def _b_sort_set(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    """Each member goes to the slot of its rank: how many present members it comes after. Where
    ``Less`` leaves two members unordered they keep their candidate order (the executable
    backend's tie order is by printed form: a comparator that is not total may give the two
    backends different sequences — declared in docs/z3.md)."""
    s = args[0]
    less = _lam(c, node, args[1], "SortSet", 2)
    if s.__class__ is not SSet or less is None:
        c.fail(True, f"SortSet expects a set and a LAMBDA, got {kind(s)}", node.span)
        return SSeq([])
    items = c.ops.dedup(s)
    n = len(items)
    # before[j][i]: member j comes before member i (ties: the earlier candidate first)
    before: list[list[Bool]] = [[False] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            both = conj(items[i][0], items[j][0])
            ji = c._under(both, lambda i=i, j=j: less.call(items[j][1], items[i][1]))  # type: ignore[misc]
            ji = False if ji is None else c.boolean(ji, node, "SortSet's Less")
            before[j][i] = ji
            before[i][j] = neg(ji)
    ranks = [
        _sum_terms((conj(items[j][0], before[j][i]), 1) for j in range(n) if j != i)
        for i in range(n)
    ]
    count = _sum_terms((g, 1) for g, _ in items)
    out: list[tuple[Bool, SVal]] = []
    slots: list[list[tuple[Bool, SVal]]] = []
    for k in range(n):
        cases = [(conj(g, _int_is(r, k)), e) for (g, e), r in zip(items, ranks, strict=True)]
        cases = [(w, e) for w, e in cases if w is not False]
        if not cases:
            break
        value = cases[-1][1]
        for w, e in reversed(cases[:-1]):
            value = c.merge(w, e, value, node)
        out.append((count > k, value))
        slots.append(cases)
    return SSeq(out, slots)


def _int_is(v: Any, k: int) -> Bool:
    return v == k if v.__class__ is int else _eq(v, z3.IntVal(k))


FOLD_BY_CANDIDATE = True
"""FoldLeft steps through each candidate a sorted set's slot may hold (off: through the slot's
IF-chain of all of them, as before; ``bench/solver.py`` measures the two)."""


def _b_fold_left(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    op, acc, s = args
    f = _lam(c, node, op, "FoldLeft", 2)
    if f is None or s.__class__ is not SSeq:
        c.fail(True, "FoldLeft expects a LAMBDA and a sequence", node.span)
        return acc
    for k, (g, e) in enumerate(s.items):
        if g is False:
            break
        by_candidate = FOLD_BY_CANDIDATE and s.cases is not None
        if g is True and (not by_candidate or len(s.cases[k]) == 1):  # type: ignore[index]
            acc = f.call(acc, e)
            continue
        # a slot of a sequence of symbolic length or content: the step happens when it is
        # present, once per candidate it may hold when those are known
        cases = s.cases[k] if by_candidate else [(g, e)]  # type: ignore[index]
        out = acc
        for w, x in reversed(cases):
            step = c._under(w, lambda acc=acc, x=x: f.call(acc, x))  # type: ignore[misc]
            out = c.merge(w, step, out, node)
        acc = out
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
    "IsLabelKey": _string_kind(is_label_key),
    "IsLabelValue": _string_kind(is_label_value),
    "StartsWith": _strings2("StartsWith", lambda s, p: s.startswith(p)),
    "Contains": _strings2("Contains", lambda s, p: p in s),
    "BeforeSlashIs": _strings2("BeforeSlashIs", lambda s, p: s.split("/")[0] == p),
    "SumBy": _b_sum_by,
    "FoldLeft": _b_fold_left,
    "SortSet": _b_sort_set,
    **FLOAT_KERNELS,  # a relaxation in exact rationals: see floats.py
}


def unsupported_builtins() -> frozenset[str]:
    """Built-ins this backend refuses (with a reason)."""
    return frozenset(BUILTINS) - frozenset(_BUILTINS)
