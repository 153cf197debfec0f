"""Built-in operators and constants of the spec language: one table, read by the checker (names,
arity) and by every backend (behaviour). Add an operator by adding a row.

Set semantics are TLA+'s: ``Sum({…})`` of a *set* sums distinct values (two containers asking for
100m are one element), which is one of the textbook spec's defects, faithfully kept.

Three groups beyond the arithmetic ones:

- **Higher order** (as in the TLA+ community modules ``SequencesExt``/``Functions``):
  ``FoldLeft(Op, base, seq)`` folds a two-parameter LAMBDA over a sequence from the left, the way
  an ordered greedy loop reads in Go (DefaultPreemption's reprieve walk); ``SortSet(S, Less)``
  sorts a finite set into a sequence by a strict-order LAMBDA (elements it leaves unordered keep a
  canonical order, by their printed form, so the result never depends on hashing);
  ``SumBy(F, K, S)`` is the function ``k ↦ Σ {F(x) : x ∈ S, K(x) = k}`` over the keys that occur
  (a group-by: per-domain pod counts in one pass instead of one pass per domain), and
  ``GroupBy(K, S)`` the function ``k ↦ {x ∈ S : K(x) = k}``.
- **Strings**: ``StartsWith`` and ``Contains`` (resource-name classes such as ``hugepages-*``).
- **Go float64 kernels**: the few places where kube-scheduler computes a score in ``float64``
  and truncates. Python floats are IEEE-754 doubles with the same rounding, so each kernel gives
  bit-for-bit the value Go gives, where exact rational arithmetic would be off by one at some
  boundaries (``int64(0.29 * 100)`` is 28 in Go).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from schedspec.spec.values import Closure, Fcn, Value, kind_of, render
from schedspec.validate import label_key_problem, label_value_problem

__all__ = ["BUILTINS", "CONSTANTS", "Builtin", "BuiltinError", "InfiniteSet", "is_int", "to_int"]

_INT64 = re.compile(r"[+-]?[0-9]+\Z")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class BuiltinError(Exception):
    """A built-in was applied to values it does not accept; the backend adds the span."""


def is_int(v: Value) -> bool:
    """An integer, or a string that Go's ``strconv.ParseInt(s, 10, 64)`` accepts."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, str) and bool(_INT64.match(v)) and _INT64_MIN <= int(v) <= _INT64_MAX


def is_label_key(v: Value) -> bool:
    """A string apimachinery's ``validateLabelKey`` accepts: a qualified name (``name`` or
    ``prefix/name``, the prefix a DNS subdomain, the name 1–63 alphanumerics, ``-``, ``_``,
    ``.``, alphanumeric at both ends)."""
    return isinstance(v, str) and label_key_problem(v) is None


def is_label_value(v: Value) -> bool:
    """A string ``validateLabelValue`` accepts: empty, or 1–63 characters as a name's."""
    return isinstance(v, str) and label_value_problem(v) is None


def to_int(v: Value) -> int:
    if not is_int(v):
        raise BuiltinError(f"ToInt: {render(v)} is not a base-10 64-bit integer")
    return int(v)


@dataclass(frozen=True, slots=True)
class InfiniteSet:
    """``Int``, ``Nat``, ``BOOLEAN``, ``STRING``: sets that support membership only."""

    name: str
    contains: Callable[[Value], bool]

    def __repr__(self) -> str:
        return self.name


CONSTANTS: dict[str, InfiniteSet] = {
    "Int": InfiniteSet("Int", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "Nat": InfiniteSet("Nat", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
    "BOOLEAN": InfiniteSet("BOOLEAN", lambda v: isinstance(v, bool)),
    "STRING": InfiniteSet("STRING", lambda v: isinstance(v, str)),
}


def _elements(name: str, v: Value) -> Iterable[Value]:
    if v.__class__ is frozenset or v.__class__ is tuple:  # no subclass is a value
        return v
    raise BuiltinError(f"{name} expects a set or a sequence, got {kind_of(v)} {render(v)}")


def _ints(name: str, vs: Iterable[Value]) -> list[int]:
    out = list(vs)
    for v in out:
        if v.__class__ is not int:
            raise BuiltinError(f"{name} expects integers, got {kind_of(v)} {render(v)}")
    return out


def _apply(f: Value, x: Value) -> Value:
    if not isinstance(f, Closure) or f.arity != 1:
        raise BuiltinError(f"expected a one-parameter LAMBDA, got {kind_of(f)}")
    return f.call(x)


def _sum(*args: Value) -> int:
    if len(args) == 2:
        f, s = args
        if not isinstance(f, Closure) or f.arity != 1:
            _apply(f, None)
        return sum(_ints("Sum", [f.call(x) for x in _elements("Sum", s)]))
    return sum(_ints("Sum", _elements("Sum", args[0])))


def _extreme(name: str, pick: Callable[[list[int]], int]) -> Callable[[Value], int]:
    def run(s: Value) -> int:
        xs = _ints(name, _elements(name, s))
        if not xs:
            raise BuiltinError(f"{name} of an empty {kind_of(s)} is undefined")
        return pick(xs)

    return run


def _cardinality(s: Value) -> int:
    if not isinstance(s, frozenset):
        raise BuiltinError(f"Cardinality expects a set, got {kind_of(s)}")
    return len(s)


def _seq(name: str, s: Value) -> tuple[Any, ...]:
    if not isinstance(s, tuple):
        raise BuiltinError(f"{name} expects a sequence, got {kind_of(s)}")
    return s


def _head(s: Value) -> Value:
    seq = _seq("Head", s)
    if not seq:
        raise BuiltinError("Head of the empty sequence is undefined")
    return seq[0]


def _tail(s: Value) -> Value:
    seq = _seq("Tail", s)
    if not seq:
        raise BuiltinError("Tail of the empty sequence is undefined")
    return seq[1:]


def _closure(name: str, f: Value, arity: int) -> Closure:
    if not isinstance(f, Closure) or f.arity != arity:
        raise BuiltinError(f"{name} expects a {arity}-parameter LAMBDA, got {kind_of(f)}")
    return f


def _fold_left(op: Value, base: Value, seq: Value) -> Value:
    f = _closure("FoldLeft", op, 2)
    acc = base
    for x in _seq("FoldLeft", seq):
        acc = f.call(acc, x)
    return acc


def _sort_set(s: Value, less: Value) -> tuple[Any, ...]:
    f = _closure("SortSet", less, 2)
    if not isinstance(s, frozenset):
        raise BuiltinError(f"SortSet expects a set, got {kind_of(s)}")

    def compare(a: Value, b: Value) -> int:
        if f.call(a, b) is True:
            return -1
        if f.call(b, a) is True:
            return 1
        return 0

    canonical = sorted(s, key=render)  # then stable: ties keep this order
    return tuple(sorted(canonical, key=functools.cmp_to_key(compare)))


def _sum_by(value: Value, key: Value, s: Value) -> Fcn:
    f, k = _closure("SumBy", value, 1), _closure("SumBy", key, 1)
    sums: dict[Any, int] = {}
    for x in _elements("SumBy", s):
        v = f.call(x)
        if v.__class__ is not int:
            raise BuiltinError(f"SumBy expects integers, got {kind_of(v)} {render(v)}")
        group = k.call(x)
        sums[group] = sums.get(group, 0) + v
    return Fcn(sums)


def _strings(name: str, a: Value, b: Value) -> tuple[str, str]:
    for v in (a, b):
        if not isinstance(v, str):
            raise BuiltinError(f"{name} expects strings, got {kind_of(v)} {render(v)}")
    return a, b


def _starts_with(s: Value, prefix: Value) -> bool:
    text, start = _strings("StartsWith", s, prefix)
    return text.startswith(start)


def _contains(s: Value, sub: Value) -> bool:
    text, part = _strings("Contains", s, sub)
    return part in text


def _before_slash_is(s: Value, part: Value) -> bool:
    text, head = _strings("BeforeSlashIs", s, part)
    return text.split("/")[0] == head


def _float_scale(m: Value, a: Value, b: Value) -> int:
    """Go's ``int64(float64(m) * (float64(a) / float64(b)))``."""
    m, a, b = _ints("FloatScale", (m, a, b))
    if b == 0:
        raise BuiltinError("FloatScale: division by zero")
    return int(float(m) * (float(a) / float(b)))


def _ordered(name: str, seq: Value) -> Iterable[Value]:
    """A sequence, or a function on integers read in the order of its keys."""
    if isinstance(seq, Fcn) and all(k.__class__ is int for k in seq):
        return [seq[k] for k in sorted(seq)]
    return _seq(name, seq)


def _group_by(key: Value, s: Value) -> Fcn:
    k = _closure("GroupBy", key, 1)
    groups: dict[Any, set[Value]] = {}
    for x in _elements("GroupBy", s):
        groups.setdefault(k.call(x), set()).add(x)
    return Fcn({g: frozenset(xs) for g, xs in groups.items()})


def _pairs(name: str, seq: Value, width: int) -> list[list[int]]:
    out = []
    for item in _ordered(name, seq):
        if not isinstance(item, tuple) or len(item) != width:
            raise BuiltinError(f"{name} expects a sequence of {width}-tuples, got {render(item)}")
        out.append(_ints(name, item))
    return out


def _balanced_score(seq: Value) -> int:
    """NodeResourcesBalancedAllocation's ``balancedResourceScorer`` on ⟨requested, allocatable⟩
    pairs (pairs with allocatable 0 are skipped, fractions capped at 1)."""
    fractions = [min(float(r) / float(a), 1.0) for r, a in _pairs("BalancedScore", seq, 2) if a]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    return int((1 - std) * 100)


def _go_round(x: float) -> int:
    """Go's ``math.Round``: half away from zero."""
    t = math.trunc(x)
    return int(t + math.copysign(1, x)) if abs(x - t) >= 0.5 else int(t)


def _spread_score(seq: Value) -> int:
    """PodTopologySpread's ``Score`` on ⟨count, domains, maxSkew⟩ triples: the float64 sum of
    ``count·ln(domains + 2) + (maxSkew − 1)``, rounded as ``math.Round``."""
    score = 0.0
    for count, domains, max_skew in _pairs("SpreadScore", seq, 3):
        score += float(count) * math.log(float(domains + 2)) + float(max_skew - 1)
    return _go_round(score)


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    min_arity: int
    max_arity: int
    impl: Callable[..., Value]
    doc: str


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in (
        Builtin("Sum", 1, 2, _sum, "Sum(S): sum of a set/sequence of integers; Sum(f, S): Σ f(x)"),
        Builtin("Max", 1, 1, _extreme("Max", max), "largest integer of a non-empty set/sequence"),
        Builtin("Min", 1, 1, _extreme("Min", min), "smallest integer of a non-empty set/sequence"),
        Builtin("Cardinality", 1, 1, _cardinality, "number of elements of a set"),
        Builtin("Len", 1, 1, lambda s: len(_seq("Len", s)), "length of a sequence"),
        Builtin("Head", 1, 1, _head, "first element of a non-empty sequence"),
        Builtin("Tail", 1, 1, _tail, "all but the first element of a non-empty sequence"),
        Builtin("Append", 2, 2, lambda s, e: (*_seq("Append", s), e), "sequence with e at the end"),
        Builtin("IsInt", 1, 1, is_int, "an integer or a base-10 int64 string (Go ParseInt)"),
        Builtin("ToInt", 1, 1, to_int, "the integer of IsInt's argument"),
        Builtin("IsLabelKey", 1, 1, is_label_key, "a valid label key (labels.NewRequirement)"),
        Builtin("IsLabelValue", 1, 1, is_label_value, "a valid label value ('' allowed)"),
        Builtin("FoldLeft", 3, 3, _fold_left, "FoldLeft(Op, b, s): Op(Op(b, s[1]), s[2])…"),
        Builtin("SortSet", 2, 2, _sort_set, "SortSet(S, Less): S as a sequence ordered by Less"),
        Builtin("SumBy", 3, 3, _sum_by, "SumBy(F, K, S): [k ↦ Σ F(x) over x ∈ S with K(x) = k]"),
        Builtin("GroupBy", 2, 2, _group_by, "GroupBy(K, S): [k ↦ {x ∈ S : K(x) = k}]"),
        Builtin("StartsWith", 2, 2, _starts_with, "StartsWith(s, prefix)"),
        Builtin("Contains", 2, 2, _contains, "Contains(s, sub): sub occurs in s"),
        Builtin("BeforeSlashIs", 2, 2, _before_slash_is, "the text of s before its first '/' is p"),
        Builtin("FloatScale", 3, 3, _float_scale, "Go int64(float64(m)*(float64(a)/float64(b)))"),
        Builtin("BalancedScore", 1, 1, _balanced_score, "BalancedAllocation's float64 scorer"),
        Builtin("SpreadScore", 1, 1, _spread_score, "PodTopologySpread's float64 node score"),
    )
}
