"""What the generated code calls at run time: its slow paths' helpers, as globals of every
generated module (``_RUNTIME``)."""

from __future__ import annotations

from typing import Any

from schedspec.spec import ast as A
from schedspec.spec import builtins as B
from schedspec.spec.builtins import BuiltinError
from schedspec.spec.compile import python as P
from schedspec.spec.errors import EvalError
from schedspec.spec.values import Closure, Fcn, Value

_MISS = P._MISSING


# ---- run-time helpers the generated code calls on its slow paths ------------------------------


def _raise(message: str, span: A.Span) -> Any:
    raise EvalError(message, span)


def _binop(op: A.BinOp, a: Value, b: Value, node: A.Binary) -> Value:
    try:
        return P._BINOPS[op](a, b, node)
    except BuiltinError as err:
        raise EvalError(str(err), node.span) from None


def _builtin_fails(check: Any, args: tuple[Value, ...], span: A.Span) -> None:
    """``check(*args)`` raises BuiltinError: as the closure backend reports it."""
    try:
        check(*args)
    except BuiltinError as err:
        raise EvalError(str(err), span) from None


_RUNTIME: dict[str, Any] = {
    "Fcn": Fcn,
    "Closure": Closure,
    "EvalError": EvalError,
    "BuiltinError": BuiltinError,
    "MISS": _MISS,
    "_raise": _raise,
    "_junction_operand": P._junction_operand,
    "_not_operator": P._not_operator,
    "_index_other": P._index_other,
    "_domain": P._domain,
    "_binop": _binop,
    "_builtin_fails": _builtin_fails,
    "_elements": B._elements,
    "_ints": B._ints,
    "_boolean": P._boolean,
    "_integer": P._integer,
    "_finite_set": P._finite_set,
    "_member": P._member,
    "_eq": P._eq,
    "_field_error": P._field_error,
}
