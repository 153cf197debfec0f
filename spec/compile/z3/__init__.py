"""The Z3 backend: a checked definition evaluated symbolically over a bounded cluster.

The executable backend (:mod:`.python`) evaluates a definition on concrete TLA values. This one
evaluates the same AST on *symbolic* values: the shape of every value is concrete (a record's
fields, a set's candidate elements, a sequence's slots) while its leaves may be Z3 terms. A view
of a bounded symbolic cluster (:mod:`schedspec.spec.kube.symbolic`) supplies such values, and the
result of a definition is a Z3 term over the cluster's leaves that a solver can satisfy.

Representation (concrete Python values are used wherever a value is known, and operations fold
them, so the formula only carries what the bounds leave open):

| TLA+        | symbolic value                                                                   |
|-------------|----------------------------------------------------------------------------------|
| BOOLEAN     | ``bool`` or a Z3 ``BoolRef``                                                      |
| Int         | ``int`` or a Z3 ``ArithRef``                                                      |
| STRING      | ``str`` or :class:`SStr` (a Z3 integer indexing the finite string universe)       |
| set         | :class:`SSet`: candidate elements, each with a guard (a Z3 bool: "is a member")   |
| sequence    | :class:`SSeq`: slots with prefix-closed guards (slot i present ⇒ slot i−1 present)|
| function    | :class:`SFun`: entries (guard, key, value), present keys distinct; records too    |
| LAMBDA      | :class:`SLambda`                                                                  |

**Errors are formulas.** Wherever the executable backend raises an :class:`EvalError` (a missing
field, a key outside a function's DOMAIN, ``Max`` of an empty set, no CASE arm), this backend
records the condition under which evaluation reaches it: the *path condition* (the guards of the
enclosing IF/CASE arms, the earlier conjuncts of ``∧``, the membership guard of a quantified
element) conjoined with the local cause. :attr:`Result.error` is the disjunction, so a query can
ask for clusters on which the definition is defined, or on which one spec errs and another does
not. One over-approximation, stated: the executable backend stops a quantifier at the first
element that decides it, in set order; here every element's body counts, so a witness on which
:attr:`Result.error` is false never depends on iteration order.

The Go float64 score kernels (``FloatScale``, ``BalancedScore``, ``SpreadScore``) are compiled as
a relaxation in exact rationals and recorded in ``Compiler.approximated`` (see :mod:`.floats`).

Not compiled (a :class:`Z3Unsupported` error naming the spot): ``SortSet`` and ``FoldLeft`` over
sequences whose length is not fixed by the bounds, ``GroupBy``, infinite sets other than in
``∈``, and ``IF``/``CASE`` arms of different shapes under a symbolic condition.

Module definitions are evaluated once per argument tuple (as in :mod:`.python`), with their error
conditions kept relative to the definition body and re-anchored at each call site.
"""

from __future__ import annotations

from schedspec.spec.compile.z3.builtins import unsupported_builtins
from schedspec.spec.compile.z3.compiler import Compiler, Env, Result
from schedspec.spec.compile.z3.concrete import concrete
from schedspec.spec.compile.z3.equality import as_z3bool, bool_ite, sym_eq
from schedspec.spec.compile.z3.errors import CompileTimeout, Z3Unsupported
from schedspec.spec.compile.z3.logic import Bool, SVal, conj, disj, implies, neg
from schedspec.spec.compile.z3.strings import STRING_BITS, SStr, Universe, string_val, string_var
from schedspec.spec.compile.z3.values import SFun, SLambda, SSeq, SSet, kind, lift, srecord

__all__ = [
    "STRING_BITS",
    "Bool",
    "CompileTimeout",
    "Compiler",
    "Env",
    "Result",
    "SFun",
    "SLambda",
    "SSeq",
    "SSet",
    "SStr",
    "SVal",
    "Universe",
    "Z3Unsupported",
    "as_z3bool",
    "bool_ite",
    "concrete",
    "conj",
    "disj",
    "implies",
    "kind",
    "lift",
    "neg",
    "srecord",
    "string_val",
    "string_var",
    "sym_eq",
    "unsupported_builtins",
]
