"""Text → AST. The only module that imports lark; the parse tree never leaves it.

The grammar (``grammar/tla.lark``) is LALR; TLA+'s aligned junction lists are handled by
:class:`JunctionLayout`, a post-lexer that turns a ``∧``/``∨`` in *prefix position* (where an
operand is expected) into a bullet, and closes the list with a virtual ``JL_END`` token when a
later line starts at or left of the bullet column (a same-kind bullet exactly on the column starts
the next item instead), or when a bracket, ``THEN``/``ELSE``, ``[]``/``⟶``, ``IN`` or ``,`` that
encloses the list arrives. So::

    ∧ CASE t.operator = "Exists" ⟶ TRUE
        [] OTHER ⟶ FALSE
    ∧ t.effect = x.effect

is a two-item conjunction, the second item not part of the last CASE arm.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.tree import Meta

from schedspec.spec import ast as A
from schedspec.spec.errors import Diagnostic, Severity, SpecSyntaxError

__all__ = ["JunctionLayout", "parse", "parse_expr"]


# Token types after which an operand is expected: a ∧/∨ there is a bullet, not an infix operator.
_OPERAND_EXPECTED = frozenset(
    {
        "DEF", "LPAR", "LSQB", "LBRACE", "LTUPLE", "COMMA", "COLON", "ARROW", "BOX", "MAPSTO",
        "IF", "THEN", "ELSE", "CASE", "IN", "AND", "OR", "NOT", "EQ", "NEQ", "LE", "GE", "LT",
        "GT", "IN_OP", "NOTIN", "SUBSETEQ", "CUP", "CAP", "SETMINUS", "DOTDOT", "PLUS", "MINUS",
        "STAR", "DIV", "MOD", "IMPLIES", "EQUIV", "DOMAIN", "BULLET_AND", "BULLET_OR",
    }
)  # fmt: skip
_OPENERS = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE", "LTUPLE": "RTUPLE"}
_CLOSERS = frozenset(_OPENERS.values())
_BULLET = {"AND": "BULLET_AND", "OR": "BULLET_OR"}


@dataclass(slots=True)
class _Frame:
    kind: str  # "list" | "bracket" | "if" | "case" | "let" | "quant"
    op: str = ""  # for lists: "AND" / "OR"
    col: int = 0  # for lists: the bullet column


class JunctionLayout:
    """Lark post-lexer implementing TLA+'s aligned ∧/∨ bullet lists (see the module docstring)."""

    always_accept: tuple[str, ...] = ()

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        frames: list[_Frame] = []
        prev: Token | None = None
        for tok in stream:
            if prev is None or _line(tok) > _end_line(prev):
                yield from self._close_left_of(frames, tok, prev)
            yield from self._structure(frames, tok, prev)
            prev = tok
        while frames:
            if frames.pop().kind == "list" and prev is not None:
                yield _virtual("JL_END", prev)

    @staticmethod
    def _innermost_list(frames: list[_Frame]) -> int:
        for i in range(len(frames) - 1, -1, -1):
            if frames[i].kind == "list":
                return i
        return -1

    def _pop_to(self, frames: list[_Frame], index: int, prev: Token | None) -> Iterator[Token]:
        """Pop frames above ``index`` (exclusive), closing the lists among them."""
        while len(frames) > index + 1:
            if frames.pop().kind == "list" and prev is not None:
                yield _virtual("JL_END", prev)

    def _close_left_of(
        self, frames: list[_Frame], tok: Token, prev: Token | None
    ) -> Iterator[Token]:
        col = tok.column or 0
        while (i := self._innermost_list(frames)) >= 0:
            lst = frames[i]
            if col > lst.col or (col == lst.col and tok.type == lst.op):
                return
            yield from self._pop_to(frames, i - 1, prev)

    def _nearest(self, frames: list[_Frame], kinds: frozenset[str]) -> int:
        """Index of the nearest non-list frame if its kind is in ``kinds``, else -1."""
        for i in range(len(frames) - 1, -1, -1):
            if frames[i].kind == "list":
                continue
            return i if frames[i].kind in kinds else -1
        return -1

    def _structure(self, frames: list[_Frame], tok: Token, prev: Token | None) -> Iterator[Token]:
        kind = tok.type
        if kind in _BULLET:
            yield self._junction(frames, tok, prev)
            return
        if kind in _CLOSERS:
            i = self._nearest(frames, frozenset({"bracket"}))
            if i < 0:
                i = next(
                    (j for j in range(len(frames) - 1, -1, -1) if frames[j].kind == "bracket"), -1
                )
            if i >= 0:
                yield from self._pop_to(frames, i - 1, prev)
        elif kind in ("THEN", "ELSE"):
            i = self._enclosing(frames, "if")
            if i >= 0:
                yield from self._pop_to(frames, i if kind == "THEN" else i - 1, prev)
        elif kind in ("ARROW", "BOX"):
            i = self._enclosing(frames, "case")
            if i >= 0:
                yield from self._pop_to(frames, i, prev)
        elif kind == "IN":
            i = self._enclosing(frames, "let")
            if i >= 0:
                yield from self._pop_to(frames, i - 1, prev)
        elif kind in ("COLON", "COMMA"):
            skip = ("list", "case")  # a CASE has no `,`/`:` of its own; its frame outlives it
            i = next((j for j in reversed(range(len(frames))) if frames[j].kind not in skip), -1)
            if i >= 0 and kind == "COLON" and frames[i].kind == "quant":
                yield from self._pop_to(frames, i - 1, prev)
            elif i >= 0 and frames[i].kind in ("bracket", "quant"):
                yield from self._pop_to(frames, i, prev)
        self._push(frames, kind)
        yield tok

    @staticmethod
    def _push(frames: list[_Frame], kind: str) -> None:
        if kind in _OPENERS:
            frames.append(_Frame("bracket"))
        elif kind in ("IF", "CASE", "LET"):
            frames.append(_Frame(kind.lower()))
        elif kind in ("FORALL", "EXISTS", "LAMBDA"):
            frames.append(_Frame("quant"))

    @staticmethod
    def _enclosing(frames: list[_Frame], kind: str) -> int:
        """Nearest frame of ``kind`` not beyond the innermost bracket."""
        for i in range(len(frames) - 1, -1, -1):
            if frames[i].kind == kind:
                return i
            if frames[i].kind == "bracket":
                return -1
        return -1

    def _junction(self, frames: list[_Frame], tok: Token, prev: Token | None) -> Token:
        i = self._innermost_list(frames)
        first_on_line = prev is None or _line(tok) > _end_line(prev)
        if first_on_line and i >= 0 and frames[i].col == tok.column and frames[i].op == tok.type:
            del frames[i + 1 :]  # inner lists were closed by the column rule already
            return Token.new_borrow_pos(_BULLET[tok.type], tok.value, tok)
        if prev is None or prev.type in _OPERAND_EXPECTED:
            frames.append(_Frame("list", tok.type, tok.column or 0))
            return Token.new_borrow_pos(_BULLET[tok.type], tok.value, tok)
        return tok


def _line(tok: Token) -> int:
    return tok.line or 0


def _end_line(tok: Token) -> int:
    return tok.end_line or tok.line or 0


def _virtual(kind: str, after: Token) -> Token:
    """A zero-width token placed at the end of ``after``."""
    return Token(
        kind,
        "",
        start_pos=after.end_pos,
        line=after.end_line,
        column=after.end_column,
        end_line=after.end_line,
        end_column=after.end_column,
        end_pos=after.end_pos,
    )


@functools.cache
def _parser() -> Lark:
    return Lark.open_from_package(
        "schedspec.spec",
        "tla.lark",
        ("grammar",),
        parser="lalr",
        lexer="basic",
        postlex=JunctionLayout(),
        propagate_positions=True,
        start=["start", "expr_start"],
    )


# ---- parse tree → AST ----------------------------------------------------------------------------

_BINOPS: dict[str, A.BinOp] = {
    "IMPLIES": A.BinOp.IMPLIES, "EQUIV": A.BinOp.EQUIV, "EQ": A.BinOp.EQ, "NEQ": A.BinOp.NEQ,
    "LT": A.BinOp.LT, "LE": A.BinOp.LE, "GT": A.BinOp.GT, "GE": A.BinOp.GE, "IN_OP": A.BinOp.IN,
    "NOTIN": A.BinOp.NOTIN, "SUBSETEQ": A.BinOp.SUBSETEQ, "CUP": A.BinOp.CUP, "CAP": A.BinOp.CAP,
    "SETMINUS": A.BinOp.SETMINUS, "DOTDOT": A.BinOp.RANGE, "PLUS": A.BinOp.ADD,
    "MINUS": A.BinOp.SUB, "STAR": A.BinOp.MUL, "DIV": A.BinOp.DIV, "MOD": A.BinOp.MOD,
}  # fmt: skip
_UNOPS = {"NOT": A.UnOp.NOT, "MINUS": A.UnOp.NEG, "DOMAIN": A.UnOp.DOMAIN}
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}


def _unescape(lit: str) -> str:
    body, out, i = lit[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _exprs(children: list[Any]) -> list[Any]:
    return [c for c in children if not isinstance(c, Token)]


@dataclass(frozen=True)
class _Extends:
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Declaration:
    variables: bool
    names: tuple[A.Binder, ...]


@v_args(meta=True)
class _ToAst(Transformer[Token, Any]):
    def __init__(self, file: str) -> None:
        super().__init__()
        self.file = file

    def _span(self, meta: Meta) -> A.Span:
        if getattr(meta, "empty", True):
            return A.NO_SPAN
        return A.Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tok_span(self, tok: Token) -> A.Span:
        return A.Span(
            self.file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0
        )

    # module structure
    def start(self, meta: Meta, ch: list[Any]) -> A.Module:
        name = next((c for c in ch if isinstance(c, str) and not isinstance(c, Token)), None)
        defs = tuple(c for c in ch if isinstance(c, A.Definition))
        extends = next((c for c in ch if isinstance(c, _Extends)), _Extends())
        decls = [c for c in ch if isinstance(c, _Declaration)]
        variables = tuple(b for d in decls if d.variables for b in d.names)
        constants = tuple(b for d in decls if not d.variables for b in d.names)
        return A.Module(
            name, defs, file=self.file, extends=extends.names, variables=variables,
            constants=constants,
        )  # fmt: skip

    def declaration(self, meta: Meta, ch: list[Any]) -> _Declaration:
        names = tuple(A.Binder(str(c), self._tok_span(c)) for c in ch[1:])
        return _Declaration(ch[0].type == "VARIABLES_KW", names)

    def expr_start(self, meta: Meta, ch: list[Any]) -> A.Expr:
        return ch[0]  # type: ignore[no-any-return]

    def header(self, meta: Meta, ch: list[Any]) -> str:
        return str(next(c for c in ch if c.type == "IDENT"))

    def footer(self, meta: Meta, ch: list[Any]) -> None:
        return None

    def extends(self, meta: Meta, ch: list[Any]) -> _Extends:
        return _Extends(tuple(str(c) for c in ch if c.type == "IDENT"))

    def definition(self, meta: Meta, ch: list[Any]) -> A.Definition:
        params: tuple[A.Binder, ...] = ()
        if isinstance(ch[1], tuple):
            params = ch[1]
        return A.Definition(str(ch[0]), params, ch[-1], self._span(meta))

    def params(self, meta: Meta, ch: list[Any]) -> tuple[A.Binder, ...]:
        return tuple(ch)

    def binder(self, meta: Meta, ch: list[Any]) -> A.Binder:
        return A.Binder(str(ch[0]), self._tok_span(ch[0]))

    # operators
    def binop(self, meta: Meta, ch: list[Any]) -> A.Binary:
        left, op, right = ch
        return A.Binary(_BINOPS[op.type], left, right, self._span(meta))

    def unop(self, meta: Meta, ch: list[Any]) -> A.Unary:
        return A.Unary(_UNOPS[ch[0].type], ch[1], self._span(meta))

    def conj(self, meta: Meta, ch: list[Any]) -> A.Junction:
        return A.Junction(A.JunctionOp.AND, tuple(_exprs(ch)), False, self._span(meta))

    def disj(self, meta: Meta, ch: list[Any]) -> A.Junction:
        return A.Junction(A.JunctionOp.OR, tuple(_exprs(ch)), False, self._span(meta))

    def bullets(self, meta: Meta, ch: list[Any]) -> A.Junction:
        op = A.JunctionOp.AND if ch[0].type == "BULLET_AND" else A.JunctionOp.OR
        return A.Junction(op, tuple(_exprs(ch)), True, self._span(meta))

    def field(self, meta: Meta, ch: list[Any]) -> A.Field:
        return A.Field(ch[0], str(ch[1]), self._span(meta))

    def index(self, meta: Meta, ch: list[Any]) -> A.Index:
        return A.Index(ch[0], ch[1], self._span(meta))

    # atoms
    def num(self, meta: Meta, ch: list[Any]) -> A.Num:
        return A.Num(int(ch[0]), self._span(meta))

    def string(self, meta: Meta, ch: list[Any]) -> A.Str:
        return A.Str(_unescape(str(ch[0])), self._span(meta))

    def true(self, meta: Meta, ch: list[Any]) -> A.Bool:
        return A.Bool(True, self._span(meta))

    def false(self, meta: Meta, ch: list[Any]) -> A.Bool:
        return A.Bool(False, self._span(meta))

    def name(self, meta: Meta, ch: list[Any]) -> A.Name:
        return A.Name(str(ch[0]), self._span(meta))

    def unchanged(self, meta: Meta, ch: list[Any]) -> A.Expr:
        """``UNCHANGED <<x, y>>`` is ``x' = x ∧ y' = y`` (``UNCHANGED x``: ``x' = x``)."""
        same = [
            A.Binary(
                A.BinOp.EQ,
                A.Name(A.primed(str(t)), self._tok_span(t)),
                A.Name(str(t), self._tok_span(t)),
                self._tok_span(t),
            )
            for t in ch
            if t.type == "IDENT"
        ]
        if len(same) == 1:
            return same[0]
        return A.Junction(A.JunctionOp.AND, tuple(same), False, self._span(meta))

    def apply(self, meta: Meta, ch: list[Any]) -> A.Apply:
        return A.Apply(str(ch[0]), ch[1], self._span(meta))

    def exprs(self, meta: Meta, ch: list[Any]) -> tuple[A.Expr, ...]:
        return tuple(ch)

    def set_empty(self, meta: Meta, ch: list[Any]) -> A.SetEnum:
        return A.SetEnum((), self._span(meta))

    def set_enum(self, meta: Meta, ch: list[Any]) -> A.SetEnum:
        return A.SetEnum(ch[0], self._span(meta))

    def set_filter(self, meta: Meta, ch: list[Any]) -> A.SetFilter:
        var = A.Binder(str(ch[0]), self._tok_span(ch[0]))
        domain, pred = _exprs(ch[1:])
        return A.SetFilter(var, domain, pred, self._span(meta))

    def set_enum_in(self, meta: Meta, ch: list[Any]) -> A.SetEnum:
        # `{x ∈ S, …}`: the first item is the membership test `x ∈ S`, not a binder.
        span = self._tok_span(ch[0])
        domain, *rest = _exprs(ch[1:])
        first = A.Binary(A.BinOp.IN, A.Name(str(ch[0]), span), domain, _join(span, domain))
        return A.SetEnum((first, *rest), self._span(meta))

    def set_map(self, meta: Meta, ch: list[Any]) -> A.SetMap:
        return A.SetMap(ch[0], ch[1], self._span(meta))

    def tuple_empty(self, meta: Meta, ch: list[Any]) -> A.TupleLit:
        return A.TupleLit((), self._span(meta))

    def tuple_lit(self, meta: Meta, ch: list[Any]) -> A.TupleLit:
        return A.TupleLit(_exprs(ch)[0], self._span(meta))

    def record(self, meta: Meta, ch: list[Any]) -> A.RecordLit:
        return A.RecordLit(tuple(ch), self._span(meta))

    def field_value(self, meta: Meta, ch: list[Any]) -> tuple[str, A.Expr]:
        return (str(ch[0]), ch[2])

    def fn_cons(self, meta: Meta, ch: list[Any]) -> A.FnCons:
        return A.FnCons(ch[0], ch[2], self._span(meta))

    def bounds(self, meta: Meta, ch: list[Any]) -> tuple[A.Bound, ...]:
        return tuple(ch)

    def bound(self, meta: Meta, ch: list[Any]) -> A.Bound:
        names = tuple(c for c in ch if isinstance(c, A.Binder))
        return A.Bound(names, ch[-1], self._span(meta))

    def quant(self, meta: Meta, ch: list[Any]) -> A.Quant:
        kind = A.QuantKind.FORALL if ch[0].type == "FORALL" else A.QuantKind.EXISTS
        return A.Quant(kind, ch[1], ch[2], self._span(meta))

    def if_(self, meta: Meta, ch: list[Any]) -> A.If:
        return A.If(ch[0], ch[1], ch[2], self._span(meta))

    def case_arm(self, meta: Meta, ch: list[Any]) -> A.CaseArm:
        return A.CaseArm(ch[0], ch[2], self._span(meta))

    def case(self, meta: Meta, ch: list[Any]) -> A.Case:
        arms = tuple(c for c in ch if isinstance(c, A.CaseArm))
        other = None
        for i, c in enumerate(ch):
            if isinstance(c, Token) and c.type == "ARROW":
                other = ch[i + 1]
        return A.Case(arms, other, self._span(meta))

    def let(self, meta: Meta, ch: list[Any]) -> A.Let:
        defs = tuple(c for c in ch if isinstance(c, A.Definition))
        return A.Let(defs, ch[-1], self._span(meta))

    def lambda_(self, meta: Meta, ch: list[Any]) -> A.Lambda:
        return A.Lambda(tuple(ch[:-1]), ch[-1], self._span(meta))


def _join(a: A.Span, b: A.Expr) -> A.Span:
    end = b.span
    if a is A.NO_SPAN or end is A.NO_SPAN:
        return a
    return A.Span(a.file, a.line, a.col, end.end_line, end.end_col)


# ---- errors ----------------------------------------------------------------------------------

# How a message names a terminal: punctuation by its ASCII spelling, keywords as themselves.
_TOKEN_WORDS = {
    "$END": "the end of the input", "JL_END": "the end of a junction list",
    "BULLET_AND": "a ∧ bullet", "BULLET_OR": "a ∨ bullet",
    "IDENT": "a name", "NUMBER": "a number", "STRING": "a string",
    "DEF": "'=='", "DASHES": "'----'", "FOOTER": "'===='", "LPAR": "'('", "RPAR": "')'",
    "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'", "LTUPLE": "'<<'",
    "RTUPLE": "'>>'", "COMMA": "','", "COLON": "':'", "DOT": "'.'", "DOTDOT": "'..'",
    "ARROW": "'->'", "MAPSTO": "'|->'", "BOX": "'[]'", "AND": "'/\\'", "OR": "'\\/'",
    "NOT": "'~'", "IMPLIES": "'=>'", "EQUIV": "'<=>'", "EQ": "'='", "NEQ": "'#'", "LE": "'<='",
    "GE": "'>='", "LT": "'<'", "GT": "'>'", "IN_OP": "'\\in'", "NOTIN": "'\\notin'",
    "SUBSETEQ": "'\\subseteq'", "CUP": "'\\cup'", "CAP": "'\\cap'", "SETMINUS": "'\\'",
    "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "DIV": "'\\div'", "MOD": "'%'",
    "FORALL": "'\\A'", "EXISTS": "'\\E'", "PRIMED": "a primed variable",
    "VARIABLES_KW": "'VARIABLES'", "CONSTANTS_KW": "'CONSTANTS'",
}  # fmt: skip
# The tokens an expression can start with: an error expecting all these says "an expression".
_EXPRESSION_START = frozenset(
    {
        "NUMBER", "STRING", "TRUE", "FALSE", "IDENT", "LPAR", "LBRACE", "LTUPLE", "LSQB",
        "FORALL", "EXISTS", "IF", "CASE", "LET", "LAMBDA", "BULLET_AND", "BULLET_OR", "NOT",
        "MINUS", "DOMAIN", "PRIMED", "UNCHANGED",
    }
)  # fmt: skip


def _describe(tok: Token) -> str:
    """The unexpected token as a message names it: ``')'``, ``name 'G'``, ``number 12``."""
    kind = {"IDENT": "name", "NUMBER": "number", "STRING": "string"}.get(tok.type)
    if kind:
        return f"{kind} {str(tok)!r}"
    if tok.type in _TOKEN_WORDS and not str(tok):
        return _TOKEN_WORDS[tok.type]
    return f"'{tok}'"


def _expected(names: set[str]) -> str:
    names = {n for n in names if not n.startswith("__")}
    words: list[str] = []
    if {"IDENT", "NUMBER", "LPAR"} <= names:
        names -= _EXPRESSION_START
        words.append("an expression")
    words += sorted(_TOKEN_WORDS.get(n, n) for n in names)
    if not words:
        return ""
    if len(words) > 8:
        words = [*words[:7], "…"]
    last = words.pop()
    return f"; expected {', '.join(words)} or {last}" if words else f"; expected {last}"


def _diagnostic(err: UnexpectedInput, file: str, text: str) -> Diagnostic:
    line, col = err.line, err.column
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream or 0
        ch = text[pos] if 0 <= pos < len(text) else "?"
        code, msg = "SPC002", f"unexpected character {ch!r}"
        if ch == '"':
            msg = "unterminated string (a string ends on the line it starts)"
    elif isinstance(err, UnexpectedToken) and err.token.type != "$END":
        code, msg = "SPC001", f"unexpected {_describe(err.token)}{_expected(err.expected)}"
    else:
        lines = text.rstrip().splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        names = err.expected if isinstance(err, UnexpectedToken | UnexpectedEOF) else set()
        code, msg = "SPC003", f"unexpected end of input{_expected(set(names))}"
    if line is None or line < 1:
        line, col = 1, 1
    span = A.Span(file, line, col, line, col + 1)
    return Diagnostic(code, Severity.ERROR, msg, span)


def _check_tabs(text: str, file: str) -> None:
    for n, line in enumerate(text.splitlines(), 1):
        indent = line[: len(line) - len(line.lstrip())]
        if "\t" in indent:
            span = A.Span(file, n, indent.index("\t") + 1, n, indent.index("\t") + 2)
            msg = "tab in indentation; junction lists align by column, indent with spaces"
            raise SpecSyntaxError((Diagnostic("SPC004", Severity.ERROR, msg, span),), text)


def _run(text: str, file: str, start: str) -> Any:
    _check_tabs(text, file)
    try:
        tree = _parser().parse(text, start=start)
        return _ToAst(file).transform(tree)
    except UnexpectedInput as err:
        raise SpecSyntaxError((_diagnostic(err, file, text),), text) from None
    except RecursionError:
        span = A.Span(file, 1, 1, 1, 2)
        msg = "expression nested too deeply to parse; split it into smaller definitions"
        raise SpecSyntaxError((Diagnostic("SPC005", Severity.ERROR, msg, span),), text) from None


def parse(text: str, file: str = "<string>") -> A.Module:
    """Parse a spec module; raise :class:`SpecSyntaxError` with a positioned diagnostic."""
    module: A.Module = _run(text, file, "start")
    return A.Module(
        module.name,
        module.definitions,
        file=file,
        source=text,
        extends=module.extends,
        variables=module.variables,
        constants=module.constants,
    )


def parse_expr(text: str, file: str = "<expr>") -> A.Expr:
    """Parse a single expression (``schedspec find FORMULA``)."""
    expr: A.Expr = _run(text, file, "expr_start")
    return expr
