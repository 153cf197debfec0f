"""A symbolic value read back, under a Z3 model, as the TLA value it takes."""

from __future__ import annotations

from typing import Any

import z3

from schedspec.spec.compile.z3.logic import Bool, SVal
from schedspec.spec.compile.z3.strings import SStr, Universe
from schedspec.spec.compile.z3.values import SFun, SSeq, SSet, kind


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
