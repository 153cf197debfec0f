"""Parser tests, table-driven: spellings, precedence, junction-list layout, spans, the seed."""

from __future__ import annotations

import textwrap
from importlib import resources

import pytest

from schedspec.spec import ast as A
from schedspec.spec.errors import SpecSyntaxError
from schedspec.spec.parse import parse, parse_expr

# ---- tiny AST builders (spans are excluded from equality) ----------------------------------------

a, b, c, d, e, x, y, S, T, P, Q = (
    A.Name(n) for n in ("a", "b", "c", "d", "e", "x", "y", "S", "T", "P", "Q")
)


def bin_(op: A.BinOp, left: A.Expr, right: A.Expr) -> A.Binary:
    return A.Binary(op, left, right)


def and_(*items: A.Expr) -> A.Junction:
    return A.Junction(A.JunctionOp.AND, items, False)


def or_(*items: A.Expr) -> A.Junction:
    return A.Junction(A.JunctionOp.OR, items, False)


def and_list(*items: A.Expr) -> A.Junction:
    return A.Junction(A.JunctionOp.AND, items, True)


def or_list(*items: A.Expr) -> A.Junction:
    return A.Junction(A.JunctionOp.OR, items, True)


def not_(operand: A.Expr) -> A.Unary:
    return A.Unary(A.UnOp.NOT, operand)


def bound(name: str, domain: A.Expr) -> tuple[A.Bound, ...]:
    return (A.Bound((A.Binder(name),), domain),)


def forall(name: str, domain: A.Expr, body: A.Expr) -> A.Quant:
    return A.Quant(A.QuantKind.FORALL, bound(name, domain), body)


def num(n: int) -> A.Num:
    return A.Num(n)


# ---- every construct, in every spelling ----------------------------------------------------------

SPELLINGS: list[tuple[str, list[str], A.Expr]] = [
    ("and", ["a /\\ b", "a ∧ b"], and_(a, b)),
    ("or", ["a \\/ b", "a ∨ b"], or_(a, b)),
    ("not", ["~a", "¬a", "\\lnot a", "\\neg a"], not_(a)),
    ("implies", ["a => b", "a ⇒ b"], bin_(A.BinOp.IMPLIES, a, b)),
    ("equiv", ["a <=> b", "a ≡ b", "a ⇔ b"], bin_(A.BinOp.EQUIV, a, b)),
    ("eq", ["a = b"], bin_(A.BinOp.EQ, a, b)),
    ("neq", ["a # b", "a ≠ b", "a /= b"], bin_(A.BinOp.NEQ, a, b)),
    ("le", ["a <= b", "a =< b", "a ≤ b", "a \\leq b"], bin_(A.BinOp.LE, a, b)),
    ("ge", ["a >= b", "a ≥ b", "a \\geq b"], bin_(A.BinOp.GE, a, b)),
    ("lt-gt", ["a < b /\\ a > b", "a < b ∧ a > b"],
     and_(bin_(A.BinOp.LT, a, b), bin_(A.BinOp.GT, a, b))),
    ("in", ["x \\in S", "x ∈ S"], bin_(A.BinOp.IN, x, S)),
    ("notin", ["x \\notin S", "x ∉ S"], bin_(A.BinOp.NOTIN, x, S)),
    ("subseteq", ["S \\subseteq T", "S ⊆ T"], bin_(A.BinOp.SUBSETEQ, S, T)),
    ("cup", ["S \\cup T", "S ∪ T", "S \\union T"], bin_(A.BinOp.CUP, S, T)),
    ("cap", ["S \\cap T", "S ∩ T", "S \\intersect T"], bin_(A.BinOp.CAP, S, T)),
    ("setminus", ["S \\ T"], bin_(A.BinOp.SETMINUS, S, T)),
    ("range", ["1..9", "1 .. 9"], bin_(A.BinOp.RANGE, num(1), num(9))),
    ("arith", ["a + b * c - d % e", "a + b*c - d%e"],
     bin_(A.BinOp.SUB, bin_(A.BinOp.ADD, a, bin_(A.BinOp.MUL, b, c)), bin_(A.BinOp.MOD, d, e))),
    ("div", ["a \\div b", "a ÷ b"], bin_(A.BinOp.DIV, a, b)),
    ("neg", ["-a", "- a"], A.Unary(A.UnOp.NEG, a)),
    ("domain", ["DOMAIN f", "DOMAIN(f)"], A.Unary(A.UnOp.DOMAIN, A.Name("f"))),
    ("forall", ["\\A x \\in S : P", "∀ x ∈ S : P", "\\forall x \\in S: P"], forall("x", S, P)),
    ("exists", ["\\E x \\in S : P", "∃ x ∈ S : P", "\\exists x \\in S : P"],
     A.Quant(A.QuantKind.EXISTS, bound("x", S), P)),
    ("multi-bound", ["\\A x, y \\in S, a \\in T : P", "∀ x, y ∈ S, a ∈ T : P"],
     A.Quant(A.QuantKind.FORALL,
             (A.Bound((A.Binder("x"), A.Binder("y")), S), A.Bound((A.Binder("a"),), T)), P)),
    ("tuple", ["<<a, b>>", "⟨a, b⟩"], A.TupleLit((a, b))),
    ("empty-tuple", ["<<>>", "⟨⟩"], A.TupleLit(())),
    ("record", ["[a |-> 1, b |-> x]", "[a ↦ 1, b ↦ x]"], A.RecordLit((("a", num(1)), ("b", x)))),
    ("fn-cons", ["[x \\in S |-> x]", "[x ∈ S ↦ x]"], A.FnCons(bound("x", S), x)),
    ("set-enum", ["{a, 1}"], A.SetEnum((a, num(1)))),
    ("empty-set", ["{}", "{ }"], A.SetEnum(())),
    ("set-filter", ["{x \\in S : P}", "{x ∈ S : P}"], A.SetFilter(A.Binder("x"), S, P)),
    ("set-map", ["{f[x] : x \\in S}", "{f[x] : x ∈ S}"],
     A.SetMap(A.Index(A.Name("f"), (x,)), bound("x", S))),
    ("set-of-membership", ["{x \\in S}", "{x ∈ S}"], A.SetEnum((bin_(A.BinOp.IN, x, S),))),
    ("set-membership-first", ["{x \\in S, y}", "{x ∈ S, y}"],
     A.SetEnum((bin_(A.BinOp.IN, x, S), y))),
    ("set-map-of-membership", ["{(x \\in S) : x \\in T}", "{(x ∈ S) : x ∈ T}"],
     A.SetMap(bin_(A.BinOp.IN, x, S), bound("x", T))),
    ("apply-index-field", ["f(a, b)[c].g"],
     A.Field(A.Index(A.Apply("f", (a, b)), (c,)), "g")),
    ("literals", ['<<1, "s\\"\\n", TRUE, FALSE>>'],
     A.TupleLit((num(1), A.Str('s"\n'), A.Bool(True), A.Bool(False)))),
    ("if", ["IF a THEN b ELSE c"], A.If(a, b, c)),
    ("case", ["CASE a -> b [] c -> d [] OTHER -> e", "CASE a ⟶ b [] c → d [] OTHER ⟶ e"],
     A.Case((A.CaseArm(a, b), A.CaseArm(c, d)), e)),
    ("let", ["LET F == 1 G(p) == p IN F", "LET F ≝ 1 G(p) ≜ p IN F"],
     A.Let((A.Definition("F", (), num(1)),
            A.Definition("G", (A.Binder("p"),), A.Name("p"))), A.Name("F"))),
    ("lambda", ["LAMBDA x, y : x", "LAMBDA x, y: x"],
     A.Lambda((A.Binder("x"), A.Binder("y")), x)),
    ("bullets", ["/\\ a\n/\\ b", "∧ a\n∧ b"], and_list(a, b)),
    ("or-bullets", ["\\/ a\n\\/ b", "∨ a\n∨ b"], or_list(a, b)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(text, want, id=f"{name}-{i}")
        for name, texts, want in SPELLINGS
        for i, text in enumerate(texts)
    ],
)
def test_spelling(text: str, expected: A.Expr) -> None:
    assert parse_expr(text) == expected


@pytest.mark.parametrize("define", ["==", "≝", "≜"], ids=["ascii", "unicode", "triangle"])
def test_definition_spellings(define: str) -> None:
    module = parse(f"---- MODULE m ----\nF(p, q) {define} p\nG {define} 1\n====\n")
    assert module == A.Module(
        "m",
        (
            A.Definition("F", (A.Binder("p"), A.Binder("q")), A.Name("p")),
            A.Definition("G", (), num(1)),
        ),
    )


# ---- precedence ----------------------------------------------------------------------------------

PRECEDENCE: list[tuple[str, str, A.Expr]] = [
    ("and-over-or", "a /\\ b \\/ c", or_(and_(a, b), c)),
    ("or-under-and", "a \\/ b /\\ c", or_(a, and_(b, c))),
    ("flattened", "a /\\ b /\\ c", and_(a, b, c)),
    ("parens-nest", "(a /\\ b) /\\ c", and_(and_(a, b), c)),
    ("not-over-and", "~a /\\ b", and_(not_(a), b)),
    ("not-under-relation", "~a = b", not_(bin_(A.BinOp.EQ, a, b))),
    ("implies-right-assoc", "a => b => c",
     bin_(A.BinOp.IMPLIES, a, bin_(A.BinOp.IMPLIES, b, c))),
    ("equiv-over-implies", "a => b <=> c", bin_(A.BinOp.IMPLIES, a, bin_(A.BinOp.EQUIV, b, c))),
    ("or-over-equiv", "a <=> b \\/ c", bin_(A.BinOp.EQUIV, a, or_(b, c))),
    ("relation-over-and", "a = b /\\ c", and_(bin_(A.BinOp.EQ, a, b), c)),
    ("setop-over-in", "x \\in S \\cup T", bin_(A.BinOp.IN, x, bin_(A.BinOp.CUP, S, T))),
    ("setops-left-assoc", "S \\cup T \\cap a",
     bin_(A.BinOp.CAP, bin_(A.BinOp.CUP, S, T), a)),
    ("range-over-setop", "S \\cup 1..2", bin_(A.BinOp.CUP, S, bin_(A.BinOp.RANGE, num(1), num(2)))),
    ("sum-over-range", "1 .. a + 1",
     bin_(A.BinOp.RANGE, num(1), bin_(A.BinOp.ADD, a, num(1)))),
    ("sub-left-assoc", "a - b - c", bin_(A.BinOp.SUB, bin_(A.BinOp.SUB, a, b), c)),
    ("prod-over-sum", "a + b * c", bin_(A.BinOp.ADD, a, bin_(A.BinOp.MUL, b, c))),
    ("neg-over-prod", "-a * b", bin_(A.BinOp.MUL, A.Unary(A.UnOp.NEG, a), b)),
    ("neg-neg", "- -a", A.Unary(A.UnOp.NEG, A.Unary(A.UnOp.NEG, a))),
    ("postfix-over-neg", "-a.f", A.Unary(A.UnOp.NEG, A.Field(a, "f"))),
    ("postfix-over-domain", "DOMAIN f[x]", A.Unary(A.UnOp.DOMAIN, A.Index(A.Name("f"), (x,)))),
    ("postfix-chain", "a.b[c].d", A.Field(A.Index(A.Field(a, "b"), (c,)), "d")),
    ("quant-body-greedy", "\\A x \\in S : P /\\ Q", forall("x", S, and_(P, Q))),
    ("quant-parenthesised", "(\\A x \\in S : P) /\\ Q", and_(forall("x", S, P), Q)),
    ("quant-domain-setop", "\\A x \\in S \\cup T : P",
     forall("x", bin_(A.BinOp.CUP, S, T), P)),
    ("else-greedy", "IF a THEN b ELSE c + 1", A.If(a, b, bin_(A.BinOp.ADD, c, num(1)))),
    ("case-arm-greedy", "CASE a -> b \\/ c [] OTHER -> d",
     A.Case((A.CaseArm(a, or_(b, c)),), d)),
    ("let-body-greedy", "LET F == 1 IN F + 1",
     A.Let((A.Definition("F", (), num(1)),), bin_(A.BinOp.ADD, A.Name("F"), num(1)))),
    ("lambda-body-stops-at-comma", "f(LAMBDA x : x + 1, S)",
     A.Apply("f", (A.Lambda((A.Binder("x"),), bin_(A.BinOp.ADD, x, num(1))), S))),
    ("quant-as-operand", "a + \\A x \\in S : P", bin_(A.BinOp.ADD, a, forall("x", S, P))),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"), [pytest.param(t, want, id=name) for name, t, want in PRECEDENCE]
)
def test_precedence(text: str, expected: A.Expr) -> None:
    assert parse_expr(text) == expected


# ---- aligned junction lists ----------------------------------------------------------------------

case_match = A.Case(
    (A.CaseArm(bin_(A.BinOp.EQ, A.Field(A.Name("t"), "operator"), A.Str("Exists")), A.Bool(True)),),
    A.Bool(False),
)
effect_eq = bin_(A.BinOp.EQ, A.Field(A.Name("t"), "effect"), A.Field(x, "effect"))

LAYOUTS: list[tuple[str, str, A.Expr]] = [
    ("case-then-sibling-bullet", """
        /\\ CASE t.operator = "Exists" -> TRUE
             [] OTHER -> FALSE
        /\\ t.effect = x.effect
     """, and_list(case_match, effect_eq)),
    ("case-then-sibling-bullet-unicode", """
        ∧ CASE t.operator = "Exists" ⟶ TRUE
            [] OTHER ⟶ FALSE
        ∧ t.effect = x.effect
     """, and_list(case_match, effect_eq)),
    ("and-inside-or", """
        \\/ /\\ a
           /\\ b
        \\/ c
     """, or_list(and_list(a, b), c)),
    ("or-inside-and-inside-or", """
        \\/ /\\ a
           /\\ \\/ b
              \\/ c
        \\/ d
     """, or_list(and_list(a, or_list(b, c)), d)),
    ("same-op-nested", """
        /\\ /\\ a
           /\\ b
        /\\ c
     """, and_list(and_list(a, b), c)),
    ("closed-by-paren", """
        (/\\ a
         /\\ b) \\/ c
     """, or_(and_list(a, b), c)),
    ("closed-by-paren-on-own-line", """
        (/\\ a
         /\\ b
        ) \\/ c
     """, or_(and_list(a, b), c)),
    ("if-then-else", """
        IF /\\ a
           /\\ b
        THEN /\\ c
             /\\ d
        ELSE e
     """, A.If(and_list(a, b), and_list(c, d), e)),
    ("if-keywords-on-item-line", """
        IF /\\ a
           /\\ b THEN /\\ c
                     /\\ d ELSE e
     """, A.If(and_list(a, b), and_list(c, d), e)),
    ("let-in", """
        LET F == /\\ a
                 /\\ b
        IN F
     """, A.Let((A.Definition("F", (), and_list(a, b)),), A.Name("F"))),
    ("quantifier-body", """
        \\A x \\in S :
          /\\ x > 0
          /\\ x < 9
     """, forall("x", S, and_list(bin_(A.BinOp.GT, x, num(0)), bin_(A.BinOp.LT, x, num(9))))),
    ("quantifier-in-item", """
        /\\ \\A x \\in S : P
        /\\ Q
     """, and_list(forall("x", S, P), Q)),
    ("same-column-other-kind", """
        /\\ a
        \\/ b
     """, or_(and_list(a), b)),
    ("item-continues-right-of-column", """
        /\\ a +
             b
        /\\ c
     """, and_list(bin_(A.BinOp.ADD, a, b), c)),
    ("infix-on-item-line", """
        /\\ a /\\ b
        /\\ c
     """, and_list(and_(a, b), c)),
    ("comments-between-items", """
        /\\ a   \\* first
        \\* between, at the bullet column
        (* a block
           comment *)
          \\* indented
        /\\ b
     """, and_list(a, b)),
    ("args-comma", """
        f(/\\ a
          /\\ b, c)
     """, A.Apply("f", (and_list(a, b), c))),
    ("case-arm-body-then-comma", """
        f(CASE P -> /\\ a
                    /\\ b, c)
     """, A.Apply("f", (A.Case((A.CaseArm(P, and_list(a, b)),), None), c))),
    ("case-arm-body-then-box", """
        CASE P -> /\\ a
                  /\\ b [] OTHER -> c
     """, A.Case((A.CaseArm(P, and_list(a, b)),), c)),
    ("set-map-colon", """
        {/\\ a
         /\\ b : x \\in S}
     """, A.SetMap(and_list(a, b), bound("x", S))),
    ("single-item", "/\\ a", and_list(a)),
    ("bullet-right-of-column-is-infix", """
        /\\ a
           /\\ b
         /\\ c
     """, and_list(and_(a, b, c))),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"), [pytest.param(t, want, id=name) for name, t, want in LAYOUTS]
)
def test_junction_layout(text: str, expected: A.Expr) -> None:
    assert parse_expr(textwrap.dedent(text).strip("\n")) == expected


MODULE_LAYOUTS: list[tuple[str, str, tuple[A.Definition, ...]]] = [
    ("lists-at-column-1", """
        F ==
        /\\ a
        /\\ b
        G == c
     """, (A.Definition("F", (), and_list(a, b)), A.Definition("G", (), c))),
    ("next-definition-closes", """
        F == /\\ a
             /\\ b
        G == /\\ c
     """, (A.Definition("F", (), and_list(a, b)), A.Definition("G", (), and_list(c)))),
    ("infix-at-line-start-continues", """
        F == a
          /\\ b
        G == c
          \\/ d
     """, (A.Definition("F", (), and_(a, b)), A.Definition("G", (), or_(c, d)))),
    ("footer-closes", """
        ---- MODULE m ----
        F ==
          /\\ a
          /\\ b
        ====
     """, (A.Definition("F", (), and_list(a, b)),)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"), [pytest.param(t, want, id=name) for name, t, want in MODULE_LAYOUTS]
)
def test_module_layout(text: str, expected: tuple[A.Definition, ...]) -> None:
    assert parse(textwrap.dedent(text)).definitions == expected


# ---- spans ---------------------------------------------------------------------------------------

SPAN_SOURCE = "F(x) ==\n  /\\ x + 1 > 2\n  /\\ \\A y \\in S : y\nG == {a, b}\n"


def _span_of(path: str) -> tuple[int, int]:
    module = parse(SPAN_SOURCE, "f.tla")
    node: object = module
    for step in path.split("."):
        node = node[int(step)] if step.isdigit() else getattr(node, step)  # type: ignore[index]
    span = node.span  # type: ignore[attr-defined]
    assert span.file == "f.tla"
    return span.line, span.col


@pytest.mark.parametrize(
    ("path", "line_col"),
    [
        pytest.param("definitions.0", (1, 1), id="definition"),
        pytest.param("definitions.0.params.0", (1, 3), id="parameter"),
        pytest.param("definitions.0.body", (2, 3), id="bullet-list"),
        pytest.param("definitions.0.body.items.0", (2, 6), id="relation"),
        pytest.param("definitions.0.body.items.0.left.right", (2, 10), id="number"),
        pytest.param("definitions.0.body.items.1", (3, 6), id="quantifier"),
        pytest.param("definitions.0.body.items.1.bounds.0.names.0", (3, 9), id="binder"),
        pytest.param("definitions.1", (4, 1), id="second-definition"),
        pytest.param("definitions.1.body", (4, 6), id="set"),
    ],
)
def test_spans(path: str, line_col: tuple[int, int]) -> None:
    assert _span_of(path) == line_col


def test_module_keeps_file_and_source() -> None:
    module = parse(SPAN_SOURCE, "f.tla")
    assert (module.file, module.source, module.name) == ("f.tla", SPAN_SOURCE, None)


# ---- the seed ------------------------------------------------------------------------------------

TEXTBOOK_DEFINITIONS = [
    "BoundTo", "Bound", "FilterLifecycle", "Resources", "FilterNodeSelector", "FilterTaints",
    "Match", "FilterAffinity", "Filter", "Match_NS", "P_Affinity", "Match_LS", "Viability",
    "Rating",
]  # fmt: skip


def textbook_source() -> str:
    return resources.files("schedspec.spec.kube").joinpath("textbook.tla").read_text("utf-8")


def test_textbook_definitions() -> None:
    module = parse(textbook_source(), "textbook.tla")
    assert module.name == "textbook"
    assert [d.name for d in module.definitions] == TEXTBOOK_DEFINITIONS


def test_textbook_match_is_a_two_item_list() -> None:
    """The CASE's `[] OTHER ⟶ FALSE` does not swallow the next bullet."""
    match = next(d for d in parse(textbook_source()).definitions if d.name == "Match")
    assert isinstance(match.body, A.Junction) and match.body.bulleted
    assert [type(item) for item in match.body.items] == [A.Case, A.Binary]


@pytest.mark.parametrize(
    "text",
    ["F == " + "f(" * 3000 + "x" + ")" * 3000, "F == " + "~" * 20000 + "TRUE"],
    ids=["deep-calls", "deep-negations"],
)
def test_deep_nesting_is_a_diagnostic_not_a_traceback(text: str) -> None:
    with pytest.raises(SpecSyntaxError) as info:
        parse(text, "deep.tla")
    assert [d.code for d in info.value.diagnostics] == ["SPC005"]
