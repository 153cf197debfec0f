"""Hypothesis strategies for well-formed spec ASTs: every tree here is one the parser can build.

``exprs()`` draws nested expressions of every type in ``ast.EXPR_TYPES``; ``node_strategies(sub)``
is the per-type table it is built from (a test checks the table covers ``EXPR_TYPES``), so a test
can also draw one node type over small children. ``definitions()`` and ``modules()`` wrap them.

Well-formed means what the grammar can produce: identifiers are not keywords, argument and
bound lists are non-empty, an infix junction has two or more items (a bullet list one or more),
numbers are non-negative (``-1`` is ``Unary(NEG, Num(1))``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from schedspec.spec import ast as A

__all__ = ["binders", "definitions", "exprs", "identifiers", "modules", "node_strategies"]

KEYWORDS = frozenset(
    {"IF", "THEN", "ELSE", "CASE", "OTHER", "LET", "IN", "LAMBDA", "DOMAIN", "TRUE", "FALSE",
     "MODULE"}
)  # fmt: skip

# Names that spell operators after a backslash (`\in`, `\A`, `\cup`), or keywords with a suffix:
# the printer never puts them next to a backslash, so they must round-trip like any other name.
_TRICKY_NAMES = (
    "in", "notin", "A", "E", "forall", "exists", "cup", "cap", "union", "intersect", "div",
    "leq", "geq", "lnot", "neg", "subseteq", "IFx", "INx", "DOMAIN_", "TRUEx", "x", "S", "_",
)  # fmt: skip

identifiers: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(_TRICKY_NAMES),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True).filter(
        lambda s: s not in KEYWORDS
    ),
)
binders: st.SearchStrategy[A.Binder] = st.builds(A.Binder, identifiers)

_leaves: st.SearchStrategy[A.Expr] = st.one_of(
    st.builds(A.Num, st.integers(min_value=0, max_value=10**12)),
    st.builds(A.Str, st.text(max_size=6)),
    st.builds(A.Bool, st.booleans()),
    st.builds(A.Name, identifiers),
)


def _tuples(
    elements: st.SearchStrategy[Any], min_size: int, max_size: int
) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(elements, min_size=min_size, max_size=max_size).map(tuple)


def _bounds(sub: st.SearchStrategy[A.Expr]) -> st.SearchStrategy[tuple[A.Bound, ...]]:
    return _tuples(st.builds(A.Bound, _tuples(binders, 1, 2), sub), 1, 2)


def _definition(sub: st.SearchStrategy[A.Expr]) -> st.SearchStrategy[A.Definition]:
    return st.builds(A.Definition, identifiers, _tuples(binders, 0, 2), sub)


def _set_enums(sub: st.SearchStrategy[A.Expr]) -> st.SearchStrategy[A.SetEnum]:
    """Plain enumerations, and ones whose first item is the membership test ``x ∈ S``."""
    membership = st.builds(A.Binary, st.just(A.BinOp.IN), st.builds(A.Name, identifiers), sub)
    led = st.tuples(membership, _tuples(sub, 0, 2)).map(lambda p: (p[0], *p[1]))
    return st.builds(A.SetEnum, _tuples(sub, 0, 3) | led)


def _junctions(sub: st.SearchStrategy[A.Expr]) -> st.SearchStrategy[A.Junction]:
    ops = st.sampled_from(A.JunctionOp)
    infix = st.builds(A.Junction, ops, _tuples(sub, 2, 4), st.just(False))
    bulleted = st.builds(A.Junction, ops, _tuples(sub, 1, 3), st.just(True))
    return infix | bulleted


def node_strategies(sub: st.SearchStrategy[A.Expr]) -> dict[type, st.SearchStrategy[A.Expr]]:
    """One strategy per expression type, with children drawn from ``sub``."""
    args = _tuples(sub, 1, 3)
    arms = _tuples(st.builds(A.CaseArm, sub, sub), 1, 3)
    table: dict[type, st.SearchStrategy[Any]] = {
        A.Num: st.builds(A.Num, st.integers(min_value=0)),
        A.Str: st.builds(A.Str, st.text(max_size=8)),
        A.Bool: st.builds(A.Bool, st.booleans()),
        A.Name: st.builds(A.Name, identifiers),
        A.Apply: st.builds(A.Apply, identifiers, args),
        A.Index: st.builds(A.Index, sub, args),
        A.Field: st.builds(A.Field, sub, identifiers),
        A.Unary: st.builds(A.Unary, st.sampled_from(A.UnOp), sub),
        A.Binary: st.builds(A.Binary, st.sampled_from(A.BinOp), sub, sub),
        A.Junction: _junctions(sub),
        A.Quant: st.builds(A.Quant, st.sampled_from(A.QuantKind), _bounds(sub), sub),
        A.SetEnum: _set_enums(sub),
        A.SetFilter: st.builds(A.SetFilter, binders, sub, sub),
        A.SetMap: st.builds(A.SetMap, sub, _bounds(sub)),
        A.TupleLit: st.builds(A.TupleLit, _tuples(sub, 0, 3)),
        A.RecordLit: st.builds(A.RecordLit, _tuples(st.tuples(identifiers, sub), 1, 3)),
        A.FnCons: st.builds(A.FnCons, _bounds(sub), sub),
        A.If: st.builds(A.If, sub, sub, sub),
        A.Case: st.builds(A.Case, arms, st.none() | sub),
        A.Let: st.builds(A.Let, _tuples(_definition(sub), 1, 2), sub),
        A.Lambda: st.builds(A.Lambda, _tuples(binders, 1, 2), sub),
    }
    return table


def _extend(sub: st.SearchStrategy[A.Expr]) -> st.SearchStrategy[A.Expr]:
    return st.one_of(*node_strategies(sub).values())


def exprs(max_leaves: int = 12) -> st.SearchStrategy[A.Expr]:
    """Nested expressions of every type, up to ``max_leaves`` leaves."""
    extend: Callable[[st.SearchStrategy[A.Expr]], st.SearchStrategy[A.Expr]] = _extend
    return st.recursive(_leaves, extend, max_leaves=max_leaves)


def definitions(max_leaves: int = 12) -> st.SearchStrategy[A.Definition]:
    return _definition(exprs(max_leaves))


def modules(max_leaves: int = 10) -> st.SearchStrategy[A.Module]:
    return st.builds(A.Module, st.none() | identifiers, _tuples(definitions(max_leaves), 0, 3))
