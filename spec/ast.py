"""The spec language's abstract syntax: frozen, slotted dataclasses with source spans.

Spans are excluded from equality, so two parses of the same text in different layouts compare
equal, and a pretty-printed module parses back to an equal tree. Every backend dispatches on the
closed set :data:`EXPR_TYPES`; a test asserts each backend handles all of them.

Expressions::

    Num Str Bool Name                 literals and names (variables, 0-ary definitions, built-ins)
    Apply(name, args)                 Name(a, b): a definition, a built-in, or a LAMBDA parameter
    Index(fn, args)                   f[x]        Field(record, name)     r.f
    Unary(op, operand)                ¬ e, -e, DOMAIN e
    Binary(op, left, right)           every binary operator but ∧ and ∨
    Junction(op, items, bulleted)     e1 ∧ e2 ∧ …, or an aligned bullet list (n-ary, flattened)
    Quant(kind, bounds, body)         ∀/∃ x, y ∈ S, z ∈ T : body
    SetEnum SetFilter SetMap          {a, b}   {x ∈ S : P}   {e : x ∈ S}
    TupleLit RecordLit FnCons         <<a, b>>  [a ↦ 1]  [x ∈ S ↦ e]
    If Case Let Lambda
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import TypeAlias

__all__ = [
    "EXPR_TYPES",
    "NO_SPAN",
    "Apply",
    "BinOp",
    "Binary",
    "Binder",
    "Bool",
    "Bound",
    "Case",
    "CaseArm",
    "Definition",
    "Expr",
    "Field",
    "FnCons",
    "If",
    "Index",
    "Junction",
    "JunctionOp",
    "Lambda",
    "Let",
    "Module",
    "Name",
    "Num",
    "Quant",
    "QuantKind",
    "RecordLit",
    "SetEnum",
    "SetFilter",
    "SetMap",
    "Span",
    "Spelled",
    "Str",
    "TupleLit",
    "UnOp",
    "Unary",
    "primed",
    "unprimed",
    "walk",
]


@dataclass(frozen=True, slots=True)
class Span:
    """A source range: 1-based line and column of the first and last character."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_SPAN = Span("<generated>", 0, 0, 0, 0)


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False)


class Spelled(enum.Enum):
    """An enum whose values are (ASCII, Unicode) spellings."""

    @property
    def ascii(self) -> str:
        return str(self.value[0])

    @property
    def unicode(self) -> str:
        return str(self.value[1])


class BinOp(Spelled):
    """Binary operators, with their ASCII and Unicode spellings."""

    IMPLIES = ("=>", "⇒")
    EQUIV = ("<=>", "≡")
    EQ = ("=", "=")
    NEQ = ("#", "≠")
    LT = ("<", "<")
    LE = ("<=", "≤")
    GT = (">", ">")
    GE = (">=", "≥")
    IN = ("\\in", "∈")
    NOTIN = ("\\notin", "∉")
    SUBSETEQ = ("\\subseteq", "⊆")
    CUP = ("\\cup", "∪")
    CAP = ("\\cap", "∩")
    SETMINUS = ("\\", "\\")
    RANGE = ("..", "..")
    ADD = ("+", "+")
    SUB = ("-", "-")
    MUL = ("*", "*")
    DIV = ("\\div", "÷")
    MOD = ("%", "%")


class UnOp(Spelled):
    NOT = ("~", "¬")
    NEG = ("-", "-")
    DOMAIN = ("DOMAIN", "DOMAIN")


class JunctionOp(Spelled):
    AND = ("/\\", "∧")
    OR = ("\\/", "∨")


class QuantKind(Spelled):
    FORALL = ("\\A", "∀")
    EXISTS = ("\\E", "∃")


@dataclass(frozen=True, slots=True)
class Num:
    value: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Str:
    value: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Bool:
    value: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Name:
    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Apply:
    name: str
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Index:
    fn: Expr
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Field:
    record: Expr
    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Unary:
    op: UnOp
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Binary:
    op: BinOp
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Junction:
    """``items[0] op items[1] op …``; ``bulleted`` records the layout (an aligned bullet list)."""

    op: JunctionOp
    items: tuple[Expr, ...]
    bulleted: bool = False
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Binder:
    """A bound variable's name where it is introduced (kept for 'unused variable' diagnostics)."""

    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Bound:
    """``x, y ∈ S`` in a quantifier, set map or function constructor."""

    names: tuple[Binder, ...]
    domain: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Quant:
    kind: QuantKind
    bounds: tuple[Bound, ...]
    body: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class SetEnum:
    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class SetFilter:
    """``{x ∈ S : P}``."""

    var: Binder
    domain: Expr
    pred: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class SetMap:
    """``{e : x ∈ S, y ∈ T}``."""

    expr: Expr
    bounds: tuple[Bound, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TupleLit:
    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class RecordLit:
    fields: tuple[tuple[str, Expr], ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class FnCons:
    """``[x ∈ S ↦ e]``."""

    bounds: tuple[Bound, ...]
    body: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class If:
    cond: Expr
    then: Expr
    else_: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class CaseArm:
    guard: Expr
    body: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Case:
    arms: tuple[CaseArm, ...]
    other: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Let:
    defs: tuple[Definition, ...]
    body: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Lambda:
    params: tuple[Binder, ...]
    body: Expr
    span: Span = _span()


Expr: TypeAlias = (
    Num
    | Str
    | Bool
    | Name
    | Apply
    | Index
    | Field
    | Unary
    | Binary
    | Junction
    | Quant
    | SetEnum
    | SetFilter
    | SetMap
    | TupleLit
    | RecordLit
    | FnCons
    | If
    | Case
    | Let
    | Lambda
)

EXPR_TYPES: tuple[type, ...] = (
    Num, Str, Bool, Name, Apply, Index, Field, Unary, Binary, Junction, Quant, SetEnum,
    SetFilter, SetMap, TupleLit, RecordLit, FnCons, If, Case, Let, Lambda,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Definition:
    """``Name(p1, p2) ≝ body``; a definition with no parameters is written without parentheses."""

    name: str
    params: tuple[Binder, ...]
    body: Expr
    span: Span = _span()

    @property
    def arity(self) -> int:
        return len(self.params)


@dataclass(frozen=True, slots=True)
class Module:
    """A module. ``variables`` (``VARIABLES x, y``) are its state: a definition that reads a
    primed variable ``x'`` (a :class:`Name` spelt with the quote) is an action, and ``UNCHANGED
    <<x, y>>`` is parsed as ``x' = x ∧ y' = y``. ``constants`` (``CONSTANTS A, B``) are names the
    caller binds, like a view's."""

    name: str | None
    definitions: tuple[Definition, ...]
    file: str = field(default="<string>", compare=False)
    source: str = field(default="", compare=False, repr=False)
    extends: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    """The text of every file a definition comes from (EXTENDS merges modules); ``source`` is
    this module's own."""
    variables: tuple[Binder, ...] = ()
    constants: tuple[Binder, ...] = ()

    def source_of(self, file: str) -> str:
        return self.sources.get(file, self.source)


def primed(name: str) -> str:
    """The name a primed variable is spelt with (``x`` → ``x'``)."""
    return name + "'"


def unprimed(name: str) -> str | None:
    """``x`` for ``x'``; None for a name without a prime."""
    return name[:-1] if name.endswith("'") else None


def walk(root: object) -> Iterator[object]:
    """Every AST node under ``root`` (itself included), depth first; tuples are looked into."""
    if isinstance(root, tuple):
        for item in root:
            yield from walk(item)
    elif is_dataclass(root) and not isinstance(root, Span | type):
        yield root
        for f in fields(root):
            yield from walk(getattr(root, f.name))
