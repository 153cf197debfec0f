"""TLA+ values as Python values.

| TLA+            | Python                                   |
|-----------------|------------------------------------------|
| BOOLEAN         | ``bool``                                 |
| Int             | ``int`` (never ``bool``)                 |
| STRING          | ``str``                                  |
| set             | ``frozenset``                            |
| tuple/sequence  | ``tuple`` (1-based ``DOMAIN``)           |
| function/record | :class:`Fcn` (a record is a function whose domain is strings) |
| LAMBDA          | :class:`Closure`                         |

Values are immutable and hashable, so sets of records work. ``Fcn`` subclasses ``dict`` for speed:
``r.f`` and ``f[x]`` compile to a plain dict lookup. Never mutate one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["Closure", "Fcn", "Value", "kind_of", "record", "render"]

Value = Any  # bool | int | str | frozenset | tuple | Fcn | Closure


class Fcn(dict[Any, Any]):
    """An immutable, hashable TLA+ function (and record).

    Built by ``dict``'s own constructor, ``Fcn(mapping)`` or ``Fcn(pairs)``: no Python-level
    ``__init__``, as views and specs build hundreds of thousands. The hash is computed on
    first use and kept (``_hash`` is unset until then)."""

    __slots__ = ("_hash",)
    _hash: int

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            self._hash = h = hash(frozenset(self.items()))
            return h

    def _immutable(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("TLA+ functions are immutable")

    __setitem__ = __delitem__ = _immutable
    clear = pop = popitem = setdefault = update = _immutable

    def __repr__(self) -> str:
        return render(self)


def record(**fields: Value) -> Fcn:
    """``record(a=1, b="x")`` is the TLA+ record ``[a ↦ 1, b ↦ "x"]``."""
    return Fcn(fields)


class Closure:
    """A ``LAMBDA`` value: parameters bound to arguments, then the body evaluated."""

    __slots__ = ("arity", "call", "text")

    def __init__(self, arity: int, call: Callable[..., Value], text: str) -> None:
        self.arity = arity
        self.call = call
        self.text = text

    def __repr__(self) -> str:
        return self.text


def kind_of(v: Value) -> str:
    """The TLA+ kind of a value, as error messages name it."""
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, str):
        return "string"
    if isinstance(v, frozenset):
        return "set"
    if isinstance(v, tuple):
        return "sequence"
    if isinstance(v, Fcn):
        return "record" if all(isinstance(k, str) for k in v) and v else "function"
    if isinstance(v, Closure):
        return "LAMBDA"
    return type(v).__name__


def _sort_key(v: Value) -> tuple[int, str]:
    order = {"boolean": 0, "integer": 1, "string": 2}
    k = kind_of(v)
    if k == "integer":
        return (1, f"{v:+021d}")
    return (order.get(k, 3), render(v))


def render(v: Value) -> str:
    """TLA+ text for a value (ASCII spelling, sets and domains sorted for stable output)."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, frozenset):
        return "{" + ", ".join(render(x) for x in sorted(v, key=_sort_key)) + "}"
    if isinstance(v, tuple):
        return "<<" + ", ".join(render(x) for x in v) + ">>"
    if isinstance(v, Fcn):
        keys = sorted(v, key=_sort_key)
        if keys and all(isinstance(k, str) and k.isidentifier() for k in keys):
            return "[" + ", ".join(f"{k} |-> {render(v[k])}" for k in keys) + "]"
        if not keys:
            return "[x \\in {} |-> x]"
        return "(" + " @@ ".join(f"{render(k)} :> {render(v[k])}" for k in keys) + ")"
    if isinstance(v, Closure):
        return v.text
    return repr(v)
