"""The checks of state machines (SPC3xx): which definitions are actions, and what they constrain.

A module with ``VARIABLES`` describes behaviours: ``Init`` is a state predicate giving every
variable a value, ``Next`` a disjunction of actions relating a state to the next one (a primed
variable ``x'`` is its value in the next state). As in TLA+ and Apalache:

- the *actions* are the definitions ``Next`` reaches through references; a prime anywhere else
  (Init, an invariant, an unused helper) is SPC302, and a prime on a name that is not a declared
  variable is SPC303;
- every disjunct of ``Next`` (through ``∨``, ``∃`` and calls of definitions whose body is itself a
  disjunction) must constrain every variable on every path: ``x' = e``, ``x' ∈ S`` or ``UNCHANGED
  x`` (which parses as ``x' = x``). ``∧`` constrains what any conjunct does, ``∨``/IF/CASE only
  what every branch does. A disjunct that does not is SPC301, at the action's definition;
- ``Init`` must give every variable a value (``x = e`` or ``x ∈ S``), else SPC304.

This is a syntactic analysis, like Apalache's assignment finder: ``x' + 1 = 2`` does not count as
constraining ``x``, which keeps the executable backend able to compute successors
(:mod:`.compile.actions`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from schedspec.spec import ast as A
from schedspec.spec.errors import Diagnostic, Severity

__all__ = ["action_diagnostics", "actions_of", "constrained"]

INIT, NEXT = "Init", "Next"


def action_diagnostics(module: A.Module) -> list[Diagnostic]:
    """SPC301–SPC304 for ``module`` (nothing when it declares no variables and has no primes)."""
    variables = frozenset(b.name for b in module.variables)
    defs = {d.name: d for d in module.definitions}
    out = list(_bad_primes(module, variables, defs))
    if variables and NEXT in defs:
        out += _unconstrained_actions(defs[NEXT], variables, defs)
    if variables and INIT in defs:
        init = defs[INIT]
        missing = variables - constrained(init.body, defs, primed=False)
        if missing:
            msg = f"Init gives no value to {_names(missing)} (write x = e or x \\in S)"
            out.append(_error("SPC304", msg, init.span))
    return out


def actions_of(module: A.Module) -> frozenset[str]:
    """The definitions ``Next`` reaches (itself included): where primes may appear."""
    defs = {d.name: d for d in module.definitions}
    return _reach(NEXT, defs) if NEXT in defs else frozenset()


def constrained(e: A.Expr, defs: Mapping[str, A.Definition], *, primed: bool = True) -> set[str]:
    """The variables ``e`` constrains on every path (``primed``: ``x'``; else ``x``, for Init)."""
    return _Constrained(defs, primed).expr(e, frozenset())


class _Constrained:
    def __init__(self, defs: Mapping[str, A.Definition], primed: bool) -> None:
        self.defs, self.primed = defs, primed
        self.memo: dict[str, set[str]] = {}

    def target(self, e: A.Expr) -> str | None:
        if not isinstance(e, A.Name):
            return None
        base = A.unprimed(e.name)
        return base if self.primed else (e.name if base is None else None)

    def expr(self, e: A.Expr, bound: frozenset[str]) -> set[str]:
        if isinstance(e, A.Junction):
            parts = [self.expr(i, bound) for i in e.items]
            if e.op is A.JunctionOp.AND:
                return set().union(*parts)
            return set.intersection(*parts)
        if isinstance(e, A.Binary) and e.op in (A.BinOp.EQ, A.BinOp.IN):
            found = {t for t in (self.target(e.left),) if t is not None and t not in bound}
            if e.op is A.BinOp.EQ and (t := self.target(e.right)) is not None and t not in bound:
                found.add(t)
            return found
        if isinstance(e, A.Quant):
            names = frozenset(b.name for bd in e.bounds for b in bd.names)
            return self.expr(e.body, bound | names)
        if isinstance(e, A.If):
            return self.expr(e.then, bound) & self.expr(e.else_, bound)
        if isinstance(e, A.Case):
            arms = [self.expr(a.body, bound) for a in e.arms]
            if e.other is not None:
                arms.append(self.expr(e.other, bound))
            return set.intersection(*arms) if arms else set()
        if isinstance(e, A.Let):
            return self.expr(e.body, bound)
        if isinstance(e, A.Name | A.Apply) and e.name not in bound and e.name in self.defs:
            return self.call(e.name)
        return set()

    def call(self, name: str) -> set[str]:
        if name not in self.memo:
            self.memo[name] = set()  # a cycle constrains nothing more (SPC107 reports it)
            self.memo[name] = self.expr(self.defs[name].body, frozenset())
        return self.memo[name]


def _leaves(
    e: A.Expr, defs: Mapping[str, A.Definition], seen: frozenset[str]
) -> Iterator[tuple[A.Expr, A.Definition | None]]:
    """The actions ``e`` is a disjunction of, each with the definition it is the body of."""
    if isinstance(e, A.Junction) and e.op is A.JunctionOp.OR:
        for item in e.items:
            yield from _leaves(item, defs, seen)
    elif isinstance(e, A.Quant) and e.kind is A.QuantKind.EXISTS:
        yield from _leaves(e.body, defs, seen)
    elif isinstance(e, A.Name | A.Apply) and e.name in defs and e.name not in seen:
        d = defs[e.name]
        body = d.body
        if _is_dispatch(body):
            yield from _leaves(body, defs, seen | {d.name})
        else:
            yield body, d
    else:
        yield e, None


def _is_dispatch(e: A.Expr) -> bool:
    return (isinstance(e, A.Junction) and e.op is A.JunctionOp.OR) or (
        isinstance(e, A.Quant) and e.kind is A.QuantKind.EXISTS
    )


def _unconstrained_actions(
    nxt: A.Definition, variables: frozenset[str], defs: Mapping[str, A.Definition]
) -> Iterator[Diagnostic]:
    analysis = _Constrained(defs, primed=True)
    reported: set[str] = set()
    for leaf, owner in _leaves(nxt.body, defs, frozenset({nxt.name})):
        if owner is not None and owner.name in reported:
            continue
        missing = variables - analysis.expr(leaf, frozenset())
        if not missing:
            continue
        if owner is not None and owner is not nxt:
            reported.add(owner.name)
            what, span = f"action '{owner.name}'", owner.span
        else:
            what, span = "this disjunct of Next", leaf.span
        msg = (
            f"{what} leaves {_names(missing)} unconstrained "
            "(neither primed-assigned nor in UNCHANGED on every path)"
        )
        yield _error("SPC301", msg, span)


def _bad_primes(
    module: A.Module, variables: frozenset[str], defs: Mapping[str, A.Definition]
) -> Iterator[Diagnostic]:
    actions = _reach(NEXT, defs) if NEXT in defs else frozenset()
    in_init = _reach(INIT, defs) if INIT in defs else frozenset()
    for d in module.definitions:
        for node in A.walk(d.body):
            if not isinstance(node, A.Name | A.Apply) or (base := A.unprimed(node.name)) is None:
                continue
            if base not in variables:
                msg = f"'{node.name}': only a declared variable can be primed ('{base}' is not one)"
                yield _error("SPC303", msg, node.span)
            elif d.name not in actions or d.name in in_init:
                where = "Init" if d.name in in_init else f"'{d.name}', which Next does not reach"
                yield _error(
                    "SPC302",
                    f"primed variable '{node.name}' outside an action (in {where})",
                    node.span,
                )


def _reach(start: str, defs: Mapping[str, A.Definition]) -> frozenset[str]:
    seen, todo = {start}, [start]
    while todo:
        for node in A.walk(defs[todo.pop()].body):
            if isinstance(node, A.Name | A.Apply) and node.name in defs and node.name not in seen:
                seen.add(node.name)
                todo.append(node.name)
    return frozenset(seen)


def _names(names: set[str] | frozenset[str]) -> str:
    listed = ", ".join(f"'{n}'" for n in sorted(names))
    return f"variable{'s' if len(names) > 1 else ''} {listed}"


def _error(code: str, message: str, span: A.Span) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span)
