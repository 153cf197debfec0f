"""Built-in operators and constants of the spec language: one table, read by the checker (names,
arity) and by every backend (behaviour). Add an operator by adding a row.

Set semantics are TLA+'s: ``Sum({…})`` of a *set* sums distinct values (two containers asking for
100m are one element), which is one of the textbook spec's defects, faithfully kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from schedspec.spec.values import Closure, Value, kind_of, render

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
    if isinstance(v, frozenset | tuple):
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
    )
}
