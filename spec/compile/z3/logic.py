"""Boolean helpers that fold concrete operands and build Z3 terms through the C API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

Bool = Any  # bool | z3.BoolRef
SVal = Any  # bool | int | str | z3 term | SStr | SSet | SSeq | SFun | SLambda


# Python booleans are folded; Z3 terms are combined through the C API directly (the Python
# wrappers' argument coercion dominated compile time). A Z3 term is never the literal true/false:
# every constant is kept as a Python bool (see :func:`merge`).


def _mk(op: Callable[..., Any], out: list[Any]) -> Any:
    ctx = out[0].ctx
    arr = (z3.Ast * len(out))()
    for i, b in enumerate(out):
        arr[i] = b.as_ast()
    return z3.BoolRef(op(ctx.ref(), len(out), arr), ctx)


def conj(*bs: Bool) -> Bool:
    out = []
    for b in bs:
        if b is True:
            continue
        if b is False:
            return False
        out.append(b)
    if not out:
        return True
    return out[0] if len(out) == 1 else _mk(z3.Z3_mk_and, out)


def disj(*bs: Bool) -> Bool:
    out = []
    for b in bs:
        if b is False:
            continue
        if b is True:
            return True
        out.append(b)
    if not out:
        return False
    return out[0] if len(out) == 1 else _mk(z3.Z3_mk_or, out)


def _is_op(b: Any, kind: int) -> bool:
    """Whether the Z3 term ``b`` applies the built-in operator ``kind`` (through the C API)."""
    ref, ast = b.ctx.ref(), b.as_ast()
    return bool(
        z3.Z3_get_ast_kind(ref, ast) == z3.Z3_APP_AST
        and z3.Z3_get_decl_kind(ref, z3.Z3_get_app_decl(ref, ast)) == kind
    )


def neg(b: Bool) -> Bool:
    if b is True or b is False:
        return not b
    if _is_op(b, z3.Z3_OP_NOT):
        return b.arg(0)
    return z3.BoolRef(z3.Z3_mk_not(b.ctx.ref(), b.as_ast()), b.ctx)


def implies(a: Bool, b: Bool) -> Bool:
    return disj(neg(a), b)


def _ite(c: Bool, a: Any, b: Any) -> Any:
    if c is True:
        return a
    if c is False:
        return b
    if a is b:
        return a
    if a.__class__ is int:
        a = z3.IntVal(a)
    if b.__class__ is int:
        b = z3.IntVal(b)
    if a.__class__ is bool or b.__class__ is bool or not (z3.is_expr(a) and z3.is_expr(b)):
        return z3.If(c, a, b)
    if isinstance(a, z3.BoolRef):
        ref: type = z3.BoolRef
    elif isinstance(a, z3.BitVecRef):
        ref = z3.BitVecRef
    elif isinstance(a, z3.ArithRef):
        ref = z3.ArithRef
    else:
        return z3.If(c, a, b)
    ctx = c.ctx
    return ref(z3.Z3_mk_ite(ctx.ref(), c.as_ast(), a.as_ast(), b.as_ast()), ctx)


def _eq(a: Any, b: Any) -> Any:
    """``a = b`` for two Z3 terms of one sort, through the C API."""
    ctx = a.ctx
    return z3.BoolRef(z3.Z3_mk_eq(ctx.ref(), a.as_ast(), b.as_ast()), ctx)


def _is_bool(v: SVal) -> bool:
    return v is True or v is False or z3.is_bool(v)


def _is_int(v: SVal) -> bool:
    return (v.__class__ is int) or (z3.is_expr(v) and z3.is_int(v))
