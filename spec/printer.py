"""AST → text: the inverse of :mod:`schedspec.spec.parse`.

``pretty(node)`` prints a module, a definition or an expression so that ``parse`` /
``parse_expr`` read it back to an equal tree (spans aside), in ASCII spelling (``/\\ \\A \\in ==
|-> <<>>``) or, with ``unicode=True``, in Unicode (``∧ ∀ ∈ ≝ ↦ ⟨⟩``). Three rules make the
round trip hold:

* **Precedence.** An operand is parenthesised when its operator binds more loosely than its
  position allows. The grammar's levels, loosest first::

      ⇒  ≡  ∨  ∧  ¬  = ≠ < ≤ > ≥ ∈ ∉ ⊆  ∪ ∩ \\  ..  + -  * ÷ %  -x DOMAIN  r.f f[x]  atoms

* **Greedy forms.** ``∀ ∃ IF CASE LET LAMBDA`` extend as far right as they can, and so does an
  aligned bullet list (it ends only at a token on or left of its column, or at a bracket or
  keyword enclosing it). Such a form is printed bare only in *tail* position, where the next
  token cannot continue it: a closing bracket, a ``,``, ``THEN``/``ELSE``/``IN`` of the enclosing
  form, the next bullet of an enclosing list, or the end of a definition. Elsewhere it is
  parenthesised, the ``)`` right after its last item.
* **Layout.** A bulleted junction prints one item per line, its bullets on the column where the
  first one lands (so nested lists sit further right); a CASE prints one arm per line, ``[]``
  under the ``CASE``; a top-level definition whose body is a bullet list or a CASE, and a
  quantifier whose body is a bullet list, start it on the next line, indented. Every line break
  lands right of all enclosing bullets, so it never closes a list. The rest stays on one line.

Two spots of the grammar need care besides: ``{x ∈ S, …}`` reads as an enumeration whose first
item is the membership test ``x ∈ S``, so a set whose first item merely *starts* with ``x ∈`` (and
a set map ``{e : …}`` whose ``e`` does) is parenthesised; and ``-`` never touches another ``-``
(``----`` is a module header).

Trees the parser never builds (an infix junction of fewer than two items, an empty argument
list, a negative ``Num``) print as well as they can but do not read back equal.
"""

from __future__ import annotations

from typing import assert_never

from schedspec.spec import ast as A

__all__ = ["pretty"]


# Precedence levels, loosest first (an operand position demands a minimum level).
_IMPLIES, _EQUIV, _DISJ, _CONJ, _NEG, _REL, _SETOP, _RANGE, _SUM, _PROD, _UNARY, _POSTFIX, _ATOM = (
    range(13)
)

# op -> (level of the operator, minimum level of its left operand, of its right operand)
_BINARY: dict[A.BinOp, tuple[int, int, int]] = {
    A.BinOp.IMPLIES: (_IMPLIES, _EQUIV, _IMPLIES),
    A.BinOp.EQUIV: (_EQUIV, _DISJ, _DISJ),
    **{op: (_REL, _SETOP, _SETOP) for op in (
        A.BinOp.EQ, A.BinOp.NEQ, A.BinOp.LT, A.BinOp.LE, A.BinOp.GT, A.BinOp.GE, A.BinOp.IN,
        A.BinOp.NOTIN, A.BinOp.SUBSETEQ,
    )},
    **{op: (_SETOP, _SETOP, _RANGE) for op in (A.BinOp.CUP, A.BinOp.CAP, A.BinOp.SETMINUS)},
    A.BinOp.RANGE: (_RANGE, _SUM, _SUM),
    A.BinOp.ADD: (_SUM, _SUM, _PROD),
    A.BinOp.SUB: (_SUM, _SUM, _PROD),
    A.BinOp.MUL: (_PROD, _PROD, _UNARY),
    A.BinOp.DIV: (_PROD, _PROD, _UNARY),
    A.BinOp.MOD: (_PROD, _PROD, _UNARY),
}  # fmt: skip
_JUNCTION_LEVEL = {A.JunctionOp.AND: _CONJ, A.JunctionOp.OR: _DISJ}
_EMPTY_JUNCTION = {A.JunctionOp.AND: "TRUE", A.JunctionOp.OR: "FALSE"}
_GREEDY = (A.Quant, A.If, A.Case, A.Let, A.Lambda)
_STRING_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


class _Sym(A.Spelled):
    """Punctuation with two spellings (operators carry theirs on the ast enums)."""

    DEF = ("==", "≝")
    ARROW = ("->", "⟶")
    MAPSTO = ("|->", "↦")
    LTUPLE = ("<<", "⟨")
    RTUPLE = (">>", "⟩")


def pretty(node: A.Module | A.Definition | A.Expr, *, unicode: bool = False) -> str:
    """Print ``node`` as spec text that parses back to an equal tree (see the module docstring)."""
    printer = _Printer(unicode)
    if isinstance(node, A.Module):
        printer.module(node)
    elif isinstance(node, A.Definition):
        printer.definition(node, tail=True, top=True)
    else:
        printer.expr(node, _IMPLIES, tail=True)
    return printer.text()


def _level(e: A.Expr) -> int:
    if isinstance(e, A.Binary):
        return _BINARY[e.op][0]
    if isinstance(e, A.Junction) and not e.bulleted:
        return _JUNCTION_LEVEL[e.op]
    if isinstance(e, A.Unary):
        return _NEG if e.op is A.UnOp.NOT else _UNARY
    if isinstance(e, A.Field | A.Index):
        return _POSTFIX
    return _ATOM


def _is_bullets(e: A.Expr) -> bool:
    return isinstance(e, A.Junction) and e.bulleted


def _greedy(e: A.Expr) -> bool:
    return isinstance(e, _GREEDY) or _is_bullets(e)


def _is_membership(e: A.Expr) -> bool:
    """``x ∈ S`` with a plain name on the left: what ``{x ∈ S, …}`` reads as its first item."""
    return isinstance(e, A.Binary) and e.op is A.BinOp.IN and isinstance(e.left, A.Name)


def _starts_with_membership(e: A.Expr) -> bool:
    """Whether the printed ``e`` may begin ``x ∈`` (conservative: ignores parentheses)."""
    while not _is_membership(e):
        if isinstance(e, A.Binary):
            e = e.left
        elif isinstance(e, A.Junction) and not e.bulleted and e.items:
            e = e.items[0]
        else:
            return False
    return True


def _quote(value: str) -> str:
    return '"' + "".join(_STRING_ESCAPES.get(ch, ch) for ch in value) + '"'


class _Printer:
    """Appends text and tracks the current column, which aligned bullet lists need."""

    def __init__(self, unicode: bool) -> None:
        self._unicode = unicode
        self._parts: list[str] = []
        self._col = 0

    def text(self) -> str:
        return "".join(self._parts)

    # ---- output -------------------------------------------------------------------------------

    def emit(self, text: str) -> None:
        if not text:
            return
        if text.startswith("-") and self._parts and self._parts[-1].endswith("-"):
            text = " " + text  # `- -x`, never `--x` (`----` is a module header)
        self._parts.append(text)
        self._col += len(text)

    def newline(self, indent: int) -> None:
        self._parts.append("\n" + " " * indent)
        self._col = indent

    def spell(self, op: A.Spelled) -> str:
        return op.unicode if self._unicode else op.ascii

    # ---- modules and definitions --------------------------------------------------------------

    def module(self, m: A.Module) -> None:
        if m.name is not None:
            self.emit(f"---- MODULE {m.name} ----")
            self.newline(0)
            self.newline(0)
        if m.extends:
            self.emit(f"EXTENDS {', '.join(m.extends)}")
            self.newline(0)
            self.newline(0)
        for keyword, names in (("CONSTANTS", m.constants), ("VARIABLES", m.variables)):
            if names:
                self.emit(f"{keyword} {', '.join(b.name for b in names)}")
                self.newline(0)
                self.newline(0)
        for d in m.definitions:
            self.definition(d, tail=True, top=True)
            self.newline(0)
            self.newline(0)
        if m.name is not None:
            self.emit("====")
            self.newline(0)

    def definition(self, d: A.Definition, *, tail: bool, top: bool = False) -> None:
        """``top``: a bullet-list or CASE body starts on the next line, indented by two."""
        start = self._col
        self.emit(d.name)
        if d.params:
            self.emit("(" + ", ".join(p.name for p in d.params) + ")")
        self.emit(" " + self.spell(_Sym.DEF))
        if top and (isinstance(d.body, A.Case) or _is_bullets(d.body)):
            self.newline(start + 2)
        else:
            self.emit(" ")
        self.expr(d.body, _IMPLIES, tail)

    # ---- expressions --------------------------------------------------------------------------

    def expr(self, e: A.Expr, level: int, tail: bool) -> None:
        """Print ``e`` where the grammar wants ``level``; ``tail``: nothing after can extend it."""
        if _level(e) < level or (_greedy(e) and not tail):
            self.emit("(")
            self.node(e, tail=True)
            self.emit(")")
        else:
            self.node(e, tail)

    def node(self, e: A.Expr, tail: bool) -> None:
        match e:
            case A.Num() | A.Bool() | A.Str() | A.Name():
                self.emit(self.leaf(e))
            case A.Apply():
                self.emit(e.name)
                self.items("(", e.args, ")")
            case A.Index():
                self.expr(e.fn, _POSTFIX, tail=False)
                self.items("[", e.args, "]")
            case A.Field():
                self.expr(e.record, _POSTFIX, tail=False)
                self.emit("." + e.name)
            case A.Unary():
                self.unary(e, tail)
            case A.Binary():
                self.binary(e, tail)
            case A.Junction():
                self.junction(e, tail)
            case A.Quant():
                self.quant(e, tail)
            case A.SetEnum():
                self.set_enum(e)
            case A.SetFilter():
                self.set_filter(e)
            case A.SetMap():
                self.set_map(e)
            case A.TupleLit():
                self.items(self.spell(_Sym.LTUPLE), e.items, self.spell(_Sym.RTUPLE))
            case A.RecordLit():
                self.record(e)
            case A.FnCons():
                self.fn_cons(e)
            case A.If():
                self.if_(e, tail)
            case A.Case():
                self.case(e, tail)
            case A.Let():
                self.let(e, tail)
            case A.Lambda():
                self.lambda_(e, tail)
            case _:
                assert_never(e)

    @staticmethod
    def leaf(e: A.Num | A.Bool | A.Str | A.Name) -> str:
        if isinstance(e, A.Bool):
            return "TRUE" if e.value else "FALSE"
        if isinstance(e, A.Str):
            return _quote(e.value)
        return str(e.value) if isinstance(e, A.Num) else e.name

    def items(self, open_: str, items: tuple[A.Expr, ...], close: str) -> None:
        """``open_ a, b, … close``: each item ends at a comma or the closer, so it is a tail."""
        self.emit(open_)
        for i, item in enumerate(items):
            if i:
                self.emit(", ")
            self.expr(item, _IMPLIES, tail=True)
        self.emit(close)

    def unary(self, e: A.Unary, tail: bool) -> None:
        if e.op is A.UnOp.DOMAIN:
            self.emit("DOMAIN ")
        else:
            self.emit(self.spell(e.op))
        self.expr(e.operand, _NEG if e.op is A.UnOp.NOT else _UNARY, tail)

    def binary(self, e: A.Binary, tail: bool) -> None:
        _, left, right = _BINARY[e.op]
        self.expr(e.left, left, tail=False)
        self.emit(f" {self.spell(e.op)} ")
        self.expr(e.right, right, tail)

    def junction(self, e: A.Junction, tail: bool) -> None:
        if not e.items:
            self.emit(_EMPTY_JUNCTION[e.op])
        elif e.bulleted:
            self.bullets(e)
        else:
            level = _JUNCTION_LEVEL[e.op] + 1
            for i, item in enumerate(e.items):
                if i:
                    self.emit(f" {self.spell(e.op)} ")
                self.expr(item, level, tail and i == len(e.items) - 1)

    def bullets(self, e: A.Junction) -> None:
        """One item per line, bullets on this column; the next bullet ends each item."""
        col = self._col
        for i, item in enumerate(e.items):
            if i:
                self.newline(col)
            self.emit(self.spell(e.op) + " ")
            self.expr(item, _IMPLIES, tail=True)

    def bounds(self, bounds: tuple[A.Bound, ...]) -> None:
        for i, bound in enumerate(bounds):
            if i:
                self.emit(", ")
            names = ", ".join(b.name for b in bound.names)
            self.emit(f"{names} {self.spell(A.BinOp.IN)} ")
            self.expr(bound.domain, _SETOP, tail=False)

    def quant(self, e: A.Quant, tail: bool) -> None:
        """A bullet-list body goes on the next line, indented under the quantifier."""
        col = self._col
        self.emit(self.spell(e.kind) + " ")
        self.bounds(e.bounds)
        self.emit(" :")
        if tail and _is_bullets(e.body):
            self.newline(col + 2)
        else:
            self.emit(" ")
        self.expr(e.body, _IMPLIES, tail)

    def set_enum(self, e: A.SetEnum) -> None:
        if not e.items or _is_membership(e.items[0]) or not _starts_with_membership(e.items[0]):
            self.items("{", e.items, "}")
            return
        self.emit("{(")
        self.expr(e.items[0], _IMPLIES, tail=True)
        self.emit(")")
        self.items("" if len(e.items) == 1 else ", ", e.items[1:], "}")

    def set_filter(self, e: A.SetFilter) -> None:
        self.emit(f"{{{e.var.name} {self.spell(A.BinOp.IN)} ")
        self.expr(e.domain, _SETOP, tail=False)
        self.emit(" : ")
        self.expr(e.pred, _IMPLIES, tail=True)
        self.emit("}")

    def set_map(self, e: A.SetMap) -> None:
        self.emit("{")
        if _starts_with_membership(e.expr):
            self.emit("(")
            self.expr(e.expr, _IMPLIES, tail=True)
            self.emit(")")
        else:
            self.expr(e.expr, _IMPLIES, tail=False)
        self.emit(" : ")
        self.bounds(e.bounds)
        self.emit("}")

    def record(self, e: A.RecordLit) -> None:
        self.emit("[")
        for i, (name, value) in enumerate(e.fields):
            if i:
                self.emit(", ")
            self.emit(f"{name} {self.spell(_Sym.MAPSTO)} ")
            self.expr(value, _IMPLIES, tail=True)
        self.emit("]")

    def fn_cons(self, e: A.FnCons) -> None:
        self.emit("[")
        self.bounds(e.bounds)
        self.emit(f" {self.spell(_Sym.MAPSTO)} ")
        self.expr(e.body, _IMPLIES, tail=True)
        self.emit("]")

    def if_(self, e: A.If, tail: bool) -> None:
        self.emit("IF ")
        self.expr(e.cond, _IMPLIES, tail=True)
        self.emit(" THEN ")
        self.expr(e.then, _IMPLIES, tail=True)
        self.emit(" ELSE ")
        self.expr(e.else_, _IMPLIES, tail)

    def case(self, e: A.Case, tail: bool) -> None:
        """One arm per line, ``[]`` under ``CASE``; that column is right of any enclosing bullet.

        A non-last arm's body is followed by ``[]``, which a nested CASE would take.
        """
        col = self._col
        self.emit("CASE ")
        for i, arm in enumerate(e.arms):
            if i:
                self.newline(col + 2)
                self.emit("[] ")
            self.expr(arm.guard, _IMPLIES, tail=False)
            self.emit(f" {self.spell(_Sym.ARROW)} ")
            self.expr(arm.body, _IMPLIES, tail and i == len(e.arms) - 1 and e.other is None)
        if e.other is not None:
            self.newline(col + 2)
            self.emit(f"[] OTHER {self.spell(_Sym.ARROW)} ")
            self.expr(e.other, _IMPLIES, tail)

    def let(self, e: A.Let, tail: bool) -> None:
        """A non-last definition's body is followed by the next definition's name."""
        self.emit("LET ")
        for i, d in enumerate(e.defs):
            if i:
                self.emit(" ")
            self.definition(d, tail=i == len(e.defs) - 1)
        self.emit(" IN ")
        self.expr(e.body, _IMPLIES, tail)

    def lambda_(self, e: A.Lambda, tail: bool) -> None:
        self.emit("LAMBDA " + ", ".join(p.name for p in e.params) + " : ")
        self.expr(e.body, _IMPLIES, tail)
