"""Equality, membership and merging (IF c THEN a ELSE b) of symbolic values."""

from __future__ import annotations

from typing import Any

import z3

from schedspec.spec.compile.z3.logic import (
    Bool,
    SVal,
    _eq,
    _is_bool,
    _is_int,
    _ite,
    conj,
    disj,
    implies,
    neg,
)
from schedspec.spec.compile.z3.strings import SStr, Universe, string_val
from schedspec.spec.compile.z3.values import SFun, SSeq, SSet, identity, kind


class _Ops:
    """Operations that need the string universe."""

    def __init__(self, universe: Universe) -> None:
        self.u = universe

    def str_term(self, s: SVal) -> Any:
        return s.z if s.__class__ is SStr else string_val(self.u.code(s))

    def eq(self, a: SVal, b: SVal) -> Bool:
        if a is b:
            return True
        ka, kb = a.__class__, b.__class__
        if ka is str and kb is str:
            return a == b
        if ka is SStr or kb is SStr:
            if ka is str:
                c = self.u.known(a)
                return False if c is None else _eq(b.z, string_val(c))
            if kb is str:
                c = self.u.known(b)
                return False if c is None else _eq(a.z, string_val(c))
            if ka is not kb:  # a string and another kind (an erring Index's placeholder FALSE)
                return False
            return _eq(a.z, b.z)
        if ka is int and kb is int:
            return a == b
        if (ka is bool or ka is int) and (kb is bool or kb is int):
            return a == b if ka is kb else False
        if z3.is_expr(a) or z3.is_expr(b):
            return a == b
        if ka is SSeq and kb is SSeq:
            return self._seq_eq(a, b)
        if ka is SSet and kb is SSet:
            return conj(self.subset(a, b), self.subset(b, a))
        if ka is SFun and kb is SFun:
            if a.ident is not None and b.ident is not None:
                ia, ib = a.ident, b.ident
                if ia.__class__ is int and ib.__class__ is int:
                    return ia == ib
                return _z3int(ia) == _z3int(ib)
            return self._fun_eq(a, b)
        return False

    def _seq_eq(self, a: SSeq, b: SSeq) -> Bool:
        n = max(len(a.items), len(b.items))
        parts = []
        for i in range(n):
            ga, ea = a.items[i] if i < len(a.items) else (False, None)
            gb, eb = b.items[i] if i < len(b.items) else (False, None)
            if ga is False and gb is False:
                break
            if ga is False or gb is False:
                parts.append(neg(disj(ga, gb)))
                continue
            same = self.eq(ea, eb)
            parts.append(conj(_iff(ga, gb), implies(ga, same)))
            if parts[-1] is False:
                return False
        return conj(*parts)

    def _fun_eq(self, a: SFun, b: SFun) -> Bool:
        if not a.symbolic and not b.symbolic:
            parts = []
            for k in a.entries.keys() | b.entries.keys():
                ga, va = a.entries.get(k, (False, None))
                gb, vb = b.entries.get(k, (False, None))
                if ga is False and gb is False:
                    continue
                if ga is False or gb is False:
                    parts.append(neg(disj(ga, gb)))
                else:
                    parts.append(conj(_iff(ga, gb), implies(ga, self.eq(va, vb))))
                if parts[-1] is False:
                    return False
            return conj(*parts)
        da, db = self.domain(a), self.domain(b)
        same_domain = conj(self.subset(da, db), self.subset(db, da))
        values = [implies(g, self.eq(v, self.apply(b, k)[0])) for g, k, v in a.all()]
        return conj(same_domain, *values)

    def member(self, x: SVal, s: SSet) -> Bool:
        return disj(*(conj(g, self.eq(x, e)) for g, e in s.present()))

    def subset(self, a: SSet, b: SSet) -> Bool:
        return conj(*(implies(g, self.member(e, b)) for g, e in a.present()))

    def domain(self, f: SFun) -> SSet:
        return SSet([(g, k) for g, k, _ in f.all()], distinct=True)

    def has_key(self, f: SFun, k: SVal) -> Bool:
        if k.__class__ is not SStr and not z3.is_expr(k) and not f.symbolic:
            try:
                return f.entries.get(k, (False, None))[0]
            except TypeError:
                pass
        return disj(*(conj(g, self.eq(k, key)) for g, key, _ in f.all()))

    def apply(self, f: SFun, k: SVal) -> tuple[SVal, Bool]:
        """``f[k]`` and the condition under which k is in the domain."""
        if k.__class__ is not SStr and not z3.is_expr(k) and not f.symbolic:
            try:
                g, v = f.entries.get(k, (False, None))
            except TypeError:
                g, v = False, None
            if g is False:
                return None, False
            return v, g
        cases = [(conj(g, self.eq(k, key)), v) for g, key, v in f.all()]
        cases = [(c, v) for c, v in cases if c is not False]
        if not cases:
            return None, False
        value = cases[-1][1]
        for c, v in reversed(cases[:-1]):
            value = self.merge(c, v, value)
        return value, disj(*(c for c, _ in cases))

    def merge(self, c: Bool, a: SVal, b: SVal) -> SVal:
        """IF c THEN a ELSE b, for values of the same kind."""
        if c is True or a is b:
            return a
        if c is False:
            return b
        if a is None:
            return b
        if b is None:
            return a
        ka, kb = a.__class__, b.__class__
        if (ka is str or ka is SStr) and (kb is str or kb is SStr):
            if ka is str and kb is str and a == b:
                return a
            return SStr(_ite(c, self.str_term(a), self.str_term(b)))
        if _is_bool(a) and _is_bool(b):
            return bool_ite(c, a, b)
        if _is_int(a) and _is_int(b):
            return _ite(c, _z3int(a), _z3int(b))
        if ka is SSet and kb is SSet:
            # Members of the two arms are never present together: distinctness survives.
            return union(
                [(conj(c, g), e) for g, e in a.present()]
                + [(conj(neg(c), g), e) for g, e in b.present()],
                a.distinct and b.distinct,
            )
        if ka is SSeq and kb is SSeq:
            n = max(len(a.items), len(b.items))
            items = []
            for i in range(n):
                ga, ea = a.items[i] if i < len(a.items) else (False, None)
                gb, eb = b.items[i] if i < len(b.items) else (False, None)
                items.append((bool_ite(c, ga, gb), self.merge(c, ea, eb)))
            return SSeq(items)
        if ka is SFun and kb is SFun:
            entries: dict[Any, tuple[Bool, SVal]] = {}
            for k in a.entries.keys() | b.entries.keys():
                ga, va = a.entries.get(k, (False, None))
                gb, vb = b.entries.get(k, (False, None))
                entries[k] = (bool_ite(c, ga, gb), self.merge(c, va, vb))
            symbolic = [(conj(c, g), k, v) for g, k, v in a.symbolic] + [
                (conj(neg(c), g), k, v) for g, k, v in b.symbolic
            ]
            ident = None
            if a.ident is not None and b.ident is not None:
                ident = _ite(c, _z3int(a.ident), _z3int(b.ident))
            return SFun(entries, symbolic, ident)
        raise _ShapeMismatch(f"{kind(a)} and {kind(b)}")

    def dedup(self, s: SSet) -> list[tuple[Bool, SVal]]:
        """Each member once: a candidate counts when no earlier present candidate equals it."""
        if s.distinct:
            return list(s.present())
        out: list[tuple[Bool, SVal]] = []
        seen: list[tuple[Bool, SVal, tuple[Any, ...]]] = []
        for g, e in s.present():
            key = identity(e)
            earlier = disj(
                *(conj(g2, self.eq(e2, e)) for g2, e2, k2 in seen if _may_equal(key, k2))
            )
            out.append((conj(g, neg(earlier)), e))
            seen.append((g, e, key))
        return out


def _may_equal(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return a[0] == "o" or b[0] == "o" or a == b


def union(pairs: list[tuple[Bool, SVal]], distinct: bool = False) -> SSet:
    """The set of ``pairs`` (guard, element), a value met twice kept once under either guard
    (by :func:`identity`); distinct when ``distinct`` says so or every key is exact."""
    slots: dict[tuple[Any, ...], int] = {}
    items: list[tuple[Bool, SVal]] = []
    exact = True
    for g, e in pairs:
        if g is False:
            continue
        key = identity(e)
        exact = exact and key[0] != "o"
        at = slots.get(key)
        if at is None:
            slots[key] = len(items)
            items.append((g, e))
        else:
            items[at] = (disj(items[at][0], g), items[at][1])
    return SSet(items, distinct or exact)


class _ShapeMismatch(Exception):
    pass


def bool_ite(c: Bool, a: Bool, b: Bool) -> Bool:
    """IF c THEN a ELSE b on booleans, keeping constants as Python bools."""
    if c is True or a is b:
        return a
    if c is False:
        return b
    if a is True:
        return disj(c, b)
    if a is False:
        return conj(neg(c), b)
    if b is True:
        return disj(neg(c), a)
    if b is False:
        return conj(c, a)
    return z3.If(c, a, b)


def _iff(a: Bool, b: Bool) -> Bool:
    if (a is True or a is False) and (b is True or b is False):
        return a is b
    return as_z3bool(a) == as_z3bool(b)


def as_z3bool(b: Bool) -> Any:
    return z3.BoolVal(b) if b is True or b is False else b


def _z3int(v: Any) -> Any:
    return z3.IntVal(v) if v.__class__ is int else v


def sym_eq(universe: Universe, a: SVal, b: SVal) -> Bool:
    return _Ops(universe).eq(a, b)
