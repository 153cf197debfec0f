"""The score kernels kube-scheduler computes in Go float64, compiled as a relaxation.

``FloatScale`` (ImageLocality's ``int64(float64(size) * (float64(n) / float64(total)))``),
``BalancedScore`` (NodeResourcesBalancedAllocation, two resources) and ``SpreadScore``
(PodTopologySpread's ``Σ count·ln(domains + 2) + (maxSkew − 1)``, rounded half away from zero)
are compiled in exact rational arithmetic: the value the float computation approximates.

IEEE doubles round at every step, so the two can differ where the exact value lies within a few
ulps of an integer: ``int64(49 * (1.0 / 49))`` is 0 in Go and ⌊49 · 1/49⌋ is 1. Measured: Z3's
floating-point theory over the same kernels answered ``unknown`` within 60 s on every query tried
(docs/z3.md), so the relaxation is what the solver can use. What makes it honest:

- on arguments the compiler knows (Python integers) the kernel is the executable backend's own,
  which computes in doubles as Go does, so the exec ↔ Z3 self-check holds exactly;
- every kernel compiled on symbolic arguments is recorded in ``Compiler.approximated``; ``find``
  and ``diff`` replay each witness on the executable backend (IEEE doubles) and report
  ``unknown`` when the replay disagrees, and report ``unknown``, never ``unsat``, when no
  witness exists in the relaxation (a double-rounding witness may still exist).

``ln`` has no term in Z3: ``domains`` is a count of topology domains, at most the bounded
cluster's node count, so ln(d + 2) is read from a table of the doubles Go computes, each as the
exact rational it is. upstream: plugins/imagelocality/image_locality.go,
plugins/noderesources/balanced_allocation.go, plugins/podtopologyspread/scoring.go.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import z3

from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS
from schedspec.spec.compile.z3.equality import _z3int, as_z3bool
from schedspec.spec.compile.z3.logic import Bool, SVal, _is_int, conj
from schedspec.spec.compile.z3.values import SFun, SSeq, kind

if TYPE_CHECKING:
    from schedspec.spec.compile.z3.compiler import Compiler

__all__ = ["FLOAT_KERNELS", "LN_TABLE_SIZE"]

LN_TABLE_SIZE = 64
"""ln(d + 2) is tabulated for d < LN_TABLE_SIZE domains (the bounded cluster has far fewer)."""


def _real(v: Any) -> Any:
    return z3.ToReal(_z3int(v))


def _concrete(*vals: Any) -> bool:
    return all(v.__class__ is int for v in vals)


def _ints(c: Compiler, node: A.Apply, vals: list[SVal], name: str) -> list[Any] | None:
    for v in vals:
        if not _is_int(v):
            c.fail(True, f"{name} expects integers, got {kind(v)}", node.span)
            return None
    return vals


def _tuples(
    c: Compiler, node: A.Apply, seq: SVal, width: int, name: str
) -> list[tuple[Bool, list[Any]]]:
    """The ``width``-tuples of a sequence, or of a function on integers in key order, each
    under its guard."""
    if seq.__class__ is SSeq:
        slots = list(seq.items)
    elif (
        seq.__class__ is SFun and not seq.symbolic and all(k.__class__ is int for k in seq.entries)
    ):
        slots = [seq.entries[k] for k in sorted(seq.entries)]
    else:
        c.fail(True, f"{name} expects a sequence of {width}-tuples, got {kind(seq)}", node.span)
        return []
    out = []
    for g, item in slots:
        if g is False:
            continue
        parts = list(item.items) if item.__class__ is SSeq else []
        if len(parts) != width or any(pg is not True for pg, _ in parts):
            c.fail(g, f"{name} expects a sequence of {width}-tuples, got {kind(item)}", node.span)
            continue
        ints = _ints(c, node, [v for _, v in parts], name)
        if ints is not None:
            out.append((g, ints))
    return out


def _exec(name: str, *args: Any) -> int:
    value = BUILTINS[name].impl(*args)
    assert value.__class__ is int
    return value


def _float_scale(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    ints = _ints(c, node, args, "FloatScale")
    if ints is None:
        return 0
    m, a, b = ints
    if _concrete(m, a, b):
        if b == 0:
            c.fail(True, "FloatScale: division by zero", node.span)
            return 0
        return _exec("FloatScale", m, a, b)
    c.approximated.add("FloatScale")
    c.fail(_z3int(b) == 0, "FloatScale: division by zero", node.span)
    exact = _real(m) * _real(a) / _real(b)
    return z3.If(exact >= 0, z3.ToInt(exact), -z3.ToInt(-exact))  # Go's int64(): toward zero


def _balanced_score(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    pairs = _tuples(c, node, args[0], 2, "BalancedScore")
    if all(g is True and _concrete(*v) for g, v in pairs):
        return _exec("BalancedScore", tuple(tuple(v) for _, v in pairs))
    if len(pairs) > 2:
        c.fail(True, "BalancedScore over more than two resources (a square root) is not "
               "compiled by the Z3 backend", node.span)  # fmt: skip
        return 0
    c.approximated.add("BalancedScore")
    # fraction min(r / a, 1) of each present pair with a ≠ 0; the score is 100 · (1 − |f₁ − f₂| / 2)
    # truncated when two fractions are counted, 100 when fewer are
    fractions: list[tuple[Any, Any]] = []
    for g, (r, a) in pairs:
        counted = conj(g, _z3int(a) != 0)
        ratio = _real(r) / _real(a)
        fractions.append((counted, z3.If(ratio > 1, z3.RealVal(1), ratio)))
    if len(fractions) < 2:
        return 100
    (g1, f1), (g2, f2) = fractions
    both = z3.And(as_z3bool(g1), as_z3bool(g2))
    diff = z3.If(f1 >= f2, f1 - f2, f2 - f1)
    return z3.If(both, z3.ToInt(100 - 50 * diff), z3.IntVal(100))


def _times_ln(count: Any, d: Any) -> Any:
    """count · ln(d + 2), ln as Go's math.Log gives it, d a symbolic domain count: one linear
    term per table entry."""
    out: Any = z3.RealVal(0)
    for k in reversed(range(LN_TABLE_SIZE)):
        out = z3.If(_z3int(d) == k, _real(count) * _ln(k), out)
    return out


def _ln(k: int) -> Any:
    return z3.RealVal(Fraction(math.log(float(k + 2))))


def _spread_score(c: Compiler, node: A.Apply, args: list[SVal]) -> SVal:
    triples = _tuples(c, node, args[0], 3, "SpreadScore")
    if all(g is True and _concrete(*v) for g, v in triples):
        return _exec("SpreadScore", tuple(tuple(v) for _, v in triples))
    c.approximated.add("SpreadScore")
    total: Any = z3.RealVal(0)
    for g, (count, domains, max_skew) in triples:
        if domains.__class__ is int:
            term = _real(count) * _ln(domains)
        else:
            c.fail(_z3int(domains) >= LN_TABLE_SIZE, f"SpreadScore: more than {LN_TABLE_SIZE} "
                   "topology domains is past the Z3 backend's table of ln", node.span)  # fmt: skip
            term = _times_ln(count, domains)
        term = term + _real(max_skew) - 1
        total = total + (term if g is True else z3.If(as_z3bool(g), term, z3.RealVal(0)))
    # math.Round, half away from zero; the sum is ≥ 0 whenever maxSkew ≥ 1
    return z3.If(total >= 0, z3.ToInt(total + Fraction(1, 2)), -z3.ToInt(-total + Fraction(1, 2)))


FLOAT_KERNELS: dict[str, Callable[[Compiler, A.Apply, list[SVal]], SVal]] = {
    "FloatScale": _float_scale,
    "BalancedScore": _balanced_score,
    "SpreadScore": _spread_score,
}
