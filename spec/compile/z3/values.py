"""Symbolic collections: sets, sequences, functions and records, LAMBDAs; a value's kind."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from schedspec.spec.compile.z3.logic import Bool, SVal, _is_bool, _is_int
from schedspec.spec.compile.z3.strings import SStr


@dataclass(eq=False)
class SSet:
    """A set: each candidate element is a member when its guard holds. ``distinct`` promises that
    no two present candidates are equal (so counting needs no pairwise comparison)."""

    items: list[tuple[Bool, SVal]]
    distinct: bool = False

    def present(self) -> Iterator[tuple[Bool, SVal]]:
        return ((g, e) for g, e in self.items if g is not False)


@dataclass(eq=False)
class SSeq:
    """A sequence: slot i is present when its guard holds, and guards are prefix-closed.
    ``cases``, when known, lists per slot the candidates it may hold, each under its own
    condition (a sorted set's slots): a fold steps through each candidate rather than through
    the IF-chain of all of them."""

    items: list[tuple[Bool, SVal]]
    cases: list[list[tuple[Bool, SVal]]] | None = None


@dataclass(eq=False)
class SFun:
    """A function or record. ``entries`` maps a concrete key to (guard, value); ``symbolic``
    holds entries whose key is symbolic. Present keys are pairwise distinct."""

    entries: dict[Any, tuple[Bool, SVal]] = field(default_factory=dict)
    symbolic: list[tuple[Bool, SVal, SVal]] = field(default_factory=list)
    ident: Any = None
    """An object's identity (an integer, or a Z3 integer for a symbolic choice): two records
    with identities are equal exactly when the identities are (a pod or node of the cluster)."""

    def all(self) -> Iterator[tuple[Bool, SVal, SVal]]:
        for k, (g, v) in self.entries.items():
            if g is not False:
                yield g, k, v
        for g, k, v in self.symbolic:
            if g is not False:
                yield g, k, v


def srecord(**fields: SVal) -> SFun:
    """A record whose fields are all present."""
    return SFun({k: (True, v) for k, v in fields.items()})


def lift(v: Any) -> SVal:
    """A concrete TLA value (:mod:`schedspec.spec.values`) as a symbolic one with no Z3 leaf."""
    from schedspec.spec.values import Fcn

    if isinstance(v, bool | int | str):
        return v
    if isinstance(v, Fcn):
        return SFun({k: (True, lift(x)) for k, x in v.items()})
    if isinstance(v, frozenset):
        return SSet([(True, lift(e)) for e in v], distinct=True)
    if isinstance(v, tuple):
        return SSeq([(True, lift(e)) for e in v])
    raise TypeError(f"no symbolic value for {type(v).__name__}")


@dataclass(eq=False)
class SLambda:
    arity: int
    call: Callable[..., SVal]
    text: str


@dataclass(frozen=True)
class _InfiniteSet:
    name: str


def kind(v: SVal) -> str:
    if _is_bool(v):
        return "boolean"
    if _is_int(v):
        return "integer"
    if v.__class__ is str or v.__class__ is SStr:
        return "string"
    if v.__class__ is SSet:
        return "set"
    if v.__class__ is SSeq:
        return "sequence"
    if v.__class__ is SFun:
        return "function"
    if v.__class__ is SLambda:
        return "LAMBDA"
    return type(v).__name__


def identity(e: SVal) -> tuple[Any, ...]:
    """A key equal for two values only if they are equal: concrete scalars by value, objects
    of the cluster by their concrete identity, anything else by the Python object (so values
    with different ``"o"`` keys may still be equal)."""
    c = e.__class__
    if c is str or c is int or c is bool:
        return ("v", c, e)
    if c is SFun and e.ident.__class__ is int:
        return ("i", e.ident)
    return ("o", id(e))
