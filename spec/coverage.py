"""Spec coverage: which CASE arms, IF branches, ∧/∨ items and integer boundaries an evaluation took.

A :class:`Coverage` lists the *targets* of a module, per definition, each with its source span and
a label a person can read::

    FilterStatusIn: CASE arm 3 (¬NodeUnschedulableOK(p, n))
    FiltersIn: ∧ item 2 (NodeNameOK(p, n)) FALSE
    TooManyPods: Cardinality(On(W, n)) + 1 > Allocatable(n, "pods") at the boundary (=)

* every CASE arm taken (its guard the first TRUE one), and OTHER taken;
* every IF's THEN and ELSE taken;
* every item of an ∧ / ∨ list evaluated TRUE and evaluated FALSE (items after the one that decides
  the list are not evaluated: TLA+'s short-circuit, as the executable backend does it);
* every boolean-bodied definition's value TRUE and FALSE;
* every integer comparison (``< ≤ > ≥`` always; ``= ≠`` when a side is syntactically an integer:
  a literal, arithmetic, ``Cardinality``/``Len``/``Sum``/``Max``/``Min``/``ToInt``, or a
  definition whose body is one of those) evaluated on its boundary (both sides equal) and off it.

:func:`instrument` compiles a separate program whose closures record the targets they reach
(:func:`schedspec.spec.compile.python.compile_module` with a probe); the ordinary program is not
touched, so uninstrumented evaluation costs nothing extra. Definitions are memoised per argument
tuple, so a repeated call records nothing new — it could not have reached anything new either.

Each target also carries its *path* (:class:`Site`): the binders, LET definitions and conditions
under which evaluation reaches it. :mod:`schedspec.checker.z3states` turns a path into a query
for Z3 ("a cluster on which this arm is taken").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard

from schedspec.spec import ast as A
from schedspec.spec.compile.python import Fn, Program, compile_module
from schedspec.spec.printer import pretty

__all__ = ["Coverage", "Frame", "Site", "Target", "calls", "instrument", "reachable"]

_COMPARE = {A.BinOp.LT, A.BinOp.LE, A.BinOp.GT, A.BinOp.GE}
_EQUALITY = {A.BinOp.EQ, A.BinOp.NEQ}
_ARITH = {A.BinOp.ADD, A.BinOp.SUB, A.BinOp.MUL, A.BinOp.DIV, A.BinOp.MOD}
_INT_BUILTINS = {"Cardinality", "Len", "Sum", "Max", "Min", "ToInt"}
_BOOL_BINOPS = {
    A.BinOp.IMPLIES, A.BinOp.EQUIV, A.BinOp.IN, A.BinOp.NOTIN, A.BinOp.SUBSETEQ,
} | _COMPARE | _EQUALITY  # fmt: skip
_INT_OPS: dict[A.BinOp, Callable[[int, int], bool]] = {
    A.BinOp.LT: lambda a, b: a < b,
    A.BinOp.LE: lambda a, b: a <= b,
    A.BinOp.GT: lambda a, b: a > b,
    A.BinOp.GE: lambda a, b: a >= b,
    A.BinOp.EQ: lambda a, b: a == b,
    A.BinOp.NEQ: lambda a, b: a != b,
}


@dataclass(frozen=True)
class Target:
    """One thing an evaluation can exercise; ``key`` is stable across loads of the same text."""

    definition: str
    kind: str  # case | if | and | or | result | compare
    outcome: str  # "arm 3" | "OTHER" | THEN | ELSE | TRUE | FALSE | boundary | off boundary
    span: A.Span
    label: str

    @property
    def key(self) -> str:
        s = self.span
        at = f"{s.line}:{s.col}-{s.end_line}:{s.end_col}"
        return f"{self.definition}@{at}/{self.kind}/{self.outcome}"

    @property
    def where(self) -> str:
        return str(self.span)


@dataclass(frozen=True)
class Frame:
    """One step of the path to a target: ``cond`` holds, ``exists`` binds ``bounds``, ``let``
    defines ``defs``, or ``opaque`` (a LAMBDA body: its parameters have no domain to phrase)."""

    kind: str  # cond | exists | let | opaque
    cond: A.Expr | None = None
    bounds: tuple[A.Bound, ...] = ()
    defs: tuple[A.Definition, ...] = ()


@dataclass(frozen=True)
class Site:
    """A target with the path that reaches it inside its definition and the condition that
    exercises it there (``None`` when it cannot be written as a formula)."""

    target: Target
    path: tuple[Frame, ...]
    condition: A.Expr | None


def _text(node: A.Expr, limit: int = 60) -> str:
    text = " ".join(pretty(node, unicode=True).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _not(e: A.Expr) -> A.Expr:
    if isinstance(e, A.Unary) and e.op is A.UnOp.NOT:
        return e.operand
    return A.Unary(A.UnOp.NOT, e)


def _and(*items: A.Expr) -> A.Expr:
    return items[0] if len(items) == 1 else A.Junction(A.JunctionOp.AND, tuple(items))


class _Collector:
    """Walks a module once, recording every target, its path and the probes that record it."""

    def __init__(self, module: A.Module) -> None:
        self.defs = {d.name: d for d in module.definitions}
        self.sites: list[Site] = []
        # id(node) -> what to record when the node's closure returns TRUE / FALSE / anything
        self.on_bool: dict[int, tuple[str | None, str | None]] = {}
        self.on_eval: dict[int, str] = {}
        self.on_compare: dict[int, tuple[str, str]] = {}
        self._inty: dict[str, bool] = {}
        self.definition = ""
        # (caller, the call, its path): how z3states phrases a callee whose parameters are not
        # cluster objects, by binding them to a caller's arguments
        self.call_sites: list[tuple[str, A.Apply, tuple[Frame, ...]]] = []

    def add(self, node: Any, kind: str, outcome: str, label: str, path: tuple[Frame, ...],
            condition: A.Expr | None) -> str:  # fmt: skip
        t = Target(self.definition, kind, outcome, node.span, f"{self.definition}: {label}")
        self.sites.append(Site(t, path, condition))
        return t.key

    def module(self) -> None:
        for d in self.defs.values():
            self.definition = d.name
            if _boolean(d.body):
                text = f"value ({_text(d.body, 40)})"
                kt = self.add(d, "result", "TRUE", f"{text} TRUE", (), d.body)
                kf = self.add(d, "result", "FALSE", f"{text} FALSE", (), _not(d.body))
                self._bool(d.body, kt, kf)
            self.expr(d.body, ())

    def _bool(self, node: A.Expr, on_true: str | None, on_false: str | None) -> None:
        old_t, old_f = self.on_bool.get(id(node), (None, None))
        self.on_bool[id(node)] = (on_true or old_t, on_false or old_f)

    # -- the walk ---------------------------------------------------------------------------------
    def expr(self, node: A.Expr, path: tuple[Frame, ...]) -> None:
        if isinstance(node, A.Junction):
            self.junction(node, path)
        elif isinstance(node, A.Case):
            self.case(node, path)
        elif isinstance(node, A.If):
            self.if_(node, path)
        elif isinstance(node, A.Binary):
            self.binary(node, path)
        elif isinstance(node, A.Quant | A.SetMap | A.FnCons):
            inner = path
            for b in node.bounds:
                self.expr(b.domain, inner)
                inner = (*inner, Frame("exists", bounds=(b,)))
            self.expr(node.expr if isinstance(node, A.SetMap) else node.body, inner)
        elif isinstance(node, A.SetFilter):
            self.expr(node.domain, path)
            bound = A.Bound((node.var,), node.domain, node.span)
            self.expr(node.pred, (*path, Frame("exists", bounds=(bound,))))
        elif isinstance(node, A.Let):
            inner = (*path, Frame("let", defs=node.defs))
            for d in node.defs:
                self.expr(d.body, inner if not d.params else (*inner, Frame("opaque")))
            self.expr(node.body, inner)
        elif isinstance(node, A.Lambda):
            self.expr(node.body, (*path, Frame("opaque")))
        else:
            if isinstance(node, A.Apply) and node.name in self.defs:
                self.call_sites.append((self.definition, node, path))
            for child in _children(node):
                self.expr(child, path)

    def junction(self, node: A.Junction, path: tuple[Frame, ...]) -> None:
        conj = node.op is A.JunctionOp.AND
        sym = "∧" if conj else "∨"
        before: list[A.Expr] = []
        for i, item in enumerate(node.items, 1):
            reach = (*path, *(Frame("cond", c) for c in before))
            text = f"{sym} item {i} ({_text(item)})"
            kind = "and" if conj else "or"
            kt = self.add(item, kind, "TRUE", f"{text} TRUE", reach, item)
            kf = self.add(item, kind, "FALSE", f"{text} FALSE", reach, _not(item))
            self._bool(item, kt, kf)
            self.expr(item, reach)
            before.append(item if conj else _not(item))

    def case(self, node: A.Case, path: tuple[Frame, ...]) -> None:
        failed: list[A.Expr] = []
        for i, arm in enumerate(node.arms, 1):
            reach = (*path, *(Frame("cond", _not(g)) for g in failed))
            key = self.add(arm, "case", f"arm {i}", f"CASE arm {i} ({_text(arm.guard)})",
                           reach, arm.guard)  # fmt: skip
            self._bool(arm.guard, key, None)
            self.expr(arm.guard, reach)
            self.expr(arm.body, (*reach, Frame("cond", arm.guard)))
            failed.append(arm.guard)
        if node.other is not None:
            reach = (*path, *(Frame("cond", _not(g)) for g in failed))
            key = self.add(node.other, "case", "OTHER", "CASE OTHER", reach, A.Bool(True))
            self.on_eval[id(node.other)] = key
            self.expr(node.other, reach)

    def if_(self, node: A.If, path: tuple[Frame, ...]) -> None:
        text = f"IF {_text(node.cond)}"
        kt = self.add(node, "if", "THEN", f"{text} THEN", path, node.cond)
        kf = self.add(node, "if", "ELSE", f"{text} ELSE", path, _not(node.cond))
        self._bool(node.cond, kt, kf)
        self.expr(node.cond, path)
        self.expr(node.then, (*path, Frame("cond", node.cond)))
        self.expr(node.else_, (*path, Frame("cond", _not(node.cond))))

    def binary(self, node: A.Binary, path: tuple[Frame, ...]) -> None:
        if node.op in _COMPARE or (
            node.op in _EQUALITY and (self.inty(node.left) or self.inty(node.right))
        ):
            text = _text(node)
            at = A.Binary(A.BinOp.EQ, node.left, node.right)
            off = A.Binary(A.BinOp.NEQ, node.left, node.right)
            ka = self.add(node, "compare", "boundary", f"{text} at the boundary (=)", path, at)
            ko = self.add(node, "compare", "off boundary", f"{text} off the boundary (≠)",
                          path, off)  # fmt: skip
            self.on_compare[id(node)] = (ka, ko)
        self.expr(node.left, path)
        right = (*path, Frame("cond", node.left)) if node.op is A.BinOp.IMPLIES else path
        self.expr(node.right, right)

    def inty(self, e: A.Expr) -> bool:
        if isinstance(e, A.Num):
            return True
        if isinstance(e, A.Binary):
            return e.op in _ARITH
        if isinstance(e, A.Unary):
            return e.op is A.UnOp.NEG
        if isinstance(e, A.Apply | A.Name):
            name = e.name
            if name in _INT_BUILTINS:
                return True
            d = self.defs.get(name)
            if d is None:
                return False
            if name not in self._inty:
                self._inty[name] = False  # recursion guard
                body = d.body
                self._inty[name] = (
                    self.inty(body.then) or self.inty(body.else_)
                    if isinstance(body, A.If)
                    else self.inty(body)
                )
            return self._inty[name]
        return False


def _boolean(e: A.Expr) -> bool:
    """Is ``e`` boolean by its form alone?"""
    if isinstance(e, A.Junction | A.Quant | A.Bool):
        return True
    if isinstance(e, A.Unary):
        return e.op is A.UnOp.NOT
    return isinstance(e, A.Binary) and e.op in _BOOL_BINOPS


def _is_expr(x: object) -> TypeGuard[A.Expr]:
    return isinstance(x, A.EXPR_TYPES)


def _children(node: A.Expr) -> list[A.Expr]:
    out: list[A.Expr] = []
    for f in getattr(node, "__dataclass_fields__", {}):
        if f == "span":
            continue
        v = getattr(node, f)
        items = v if isinstance(v, tuple) else (v,)
        for item in items:
            if _is_expr(item):
                out.append(item)
            elif isinstance(item, tuple):  # RecordLit fields: (name, expr)
                out.extend(y for y in item if _is_expr(y))
            elif isinstance(item, A.CaseArm):
                out.extend((item.guard, item.body))
    return out


# ---- the coverage object -------------------------------------------------------------------------


class Coverage:
    """The targets of a module and which of them were hit.

    ``Coverage(module)`` lists the targets; :func:`instrument` compiles a program that records into
    it; :meth:`merge` adds another coverage of the same module; :meth:`report` prints it.
    """

    def __init__(self, module: A.Module) -> None:
        self.module = module
        collector = _Collector(module)
        collector.module()
        self._collector = collector
        self.sites: tuple[Site, ...] = tuple(collector.sites)
        self.targets: tuple[Target, ...] = tuple(s.target for s in self.sites)
        self.call_sites = tuple(collector.call_sites)
        self._by_key = {t.key: t for t in self.targets}
        self.hit: set[str] = set()

    def missed(self, only: Iterable[str] | None = None) -> list[Target]:
        keep = set(only) if only is not None else None
        return [
            t
            for t in self.targets
            if t.key not in self.hit and (keep is None or t.definition in keep)
        ]

    def merge(self, other: Coverage) -> Coverage:
        """Add ``other``'s hits (a coverage of the same spec text); returns self."""
        unknown = other.hit - self._by_key.keys()
        if unknown:
            raise ValueError(
                f"cannot merge coverage of a different spec ({len(unknown)} unknown targets, "
                f"e.g. {sorted(unknown)[0]})"
            )
        self.hit |= other.hit
        return self

    def by_definition(self, only: Iterable[str] | None = None) -> dict[str, tuple[int, int]]:
        """definition -> (targets hit, targets), in module order."""
        keep = set(only) if only is not None else None
        out: dict[str, tuple[int, int]] = {}
        for t in self.targets:
            if keep is not None and t.definition not in keep:
                continue
            hit, total = out.get(t.definition, (0, 0))
            out[t.definition] = (hit + (t.key in self.hit), total + 1)
        return out

    def percent(self, only: Iterable[str] | None = None) -> float:
        rows = self.by_definition(only).values()
        total = sum(n for _, n in rows)
        return 100.0 * sum(h for h, _ in rows) / total if total else 100.0

    def report(self, only: Iterable[str] | None = None) -> str:
        """A table per definition (hit / targets, %), a total, then every missed target."""
        keep = list(only) if only is not None else None
        rows = self.by_definition(keep)
        width = max((len(d) for d in rows), default=10)
        lines = [f"{'definition':<{width}}  {'hit':>5} / {'all':<5} {'%':>6}"]
        for d, (hit, total) in rows.items():
            lines.append(f"{d:<{width}}  {hit:>5} / {total:<5} {100.0 * hit / total:>5.1f}%")
        hit = sum(h for h, _ in rows.values())
        total = sum(n for _, n in rows.values())
        lines.append(f"{'total':<{width}}  {hit:>5} / {total:<5} {self.percent(keep):>5.1f}%")
        missed = self.missed(keep)
        if missed:
            lines.append("")
            lines.append(f"missed ({len(missed)}):")
            lines += [f"  {t.where}: {t.label}" for t in missed]
        return "\n".join(lines)

    def as_json(self, only: Iterable[str] | None = None) -> dict[str, Any]:
        keep = set(only) if only is not None else None
        targets = [t for t in self.targets if keep is None or t.definition in keep]
        return {
            "targets": len(targets),
            "hit": sum(t.key in self.hit for t in targets),
            "percent": round(self.percent(keep), 2),
            "by_definition": {
                d: {"hit": h, "targets": n} for d, (h, n) in self.by_definition(keep).items()
            },
            "items": [
                {
                    "key": t.key,
                    "definition": t.definition,
                    "kind": t.kind,
                    "outcome": t.outcome,
                    "where": t.where,
                    "label": t.label,
                    "hit": t.key in self.hit,
                }
                for t in targets
            ],
        }

    def dumps(self) -> str:
        return json.dumps(self.as_json(), indent=2)

    # -- the probe the instrumented program is compiled with -------------------------------------
    def probe(self, program: Program, node: Any, fn: Fn) -> Fn:
        c, add = self._collector, self.hit.add
        compare = c.on_compare.get(id(node))
        if compare is not None:
            fn = _compare_probe(program, node, fn, compare, add)
        marks = c.on_bool.get(id(node))
        if marks is not None:
            fn = _bool_probe(fn, marks, add)
        other = c.on_eval.get(id(node))
        if other is not None:
            fn = _eval_probe(fn, other, add)
        return fn


def _bool_probe(fn: Fn, marks: tuple[str | None, str | None], add: Callable[[str], None]) -> Fn:
    on_true, on_false = marks

    def run(env: dict[str, Any]) -> Any:
        v = fn(env)
        if v is True:
            if on_true is not None:
                add(on_true)
        elif v is False and on_false is not None:
            add(on_false)
        return v

    return run


def _eval_probe(fn: Fn, key: str, add: Callable[[str], None]) -> Fn:
    def run(env: dict[str, Any]) -> Any:
        add(key)
        return fn(env)

    return run


def _compare_probe(
    program: Program, node: A.Binary, fn: Fn, keys: tuple[str, str], add: Callable[[str], None]
) -> Fn:
    left, right = program.closure(node.left), program.closure(node.right)
    op, (at, off) = _INT_OPS[node.op], keys

    def run(env: dict[str, Any]) -> Any:
        a, b = left(env), right(env)
        if a.__class__ is int and b.__class__ is int:
            add(at if a == b else off)
            return op(a, b)
        return fn(env)  # not two integers: the ordinary closure decides (and raises)

    return run


def instrument(module: A.Module, coverage: Coverage) -> Program:
    """A program of ``module`` recording into ``coverage`` (built from the same module object)."""
    if coverage.module is not module:
        raise ValueError("the coverage was built from another module object")
    return compile_module(module, probe=coverage.probe)


# ---- the call graph ------------------------------------------------------------------------------


def calls(module: A.Module) -> dict[str, set[str]]:
    """definition -> the module definitions its body names."""
    names = {d.name for d in module.definitions}
    out: dict[str, set[str]] = {}
    for d in module.definitions:
        used = {x.name for x in A.walk(d.body) if isinstance(x, A.Apply | A.Name)}
        out[d.name] = used & names
    return out


def reachable(module: A.Module, roots: Iterable[str]) -> set[str]:
    """The definitions ``roots`` use, directly or not (roots included)."""
    graph = calls(module)
    seen: set[str] = set()
    todo = [r for r in roots if r in graph]
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo.extend(graph[d] - seen)
    return seen
