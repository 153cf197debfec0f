"""The pretty-printer: ``parse(pretty(tree)) == tree`` (properties and a table of exact outputs)."""

from __future__ import annotations

from importlib import resources

import pytest
from ast_strategies import definitions, exprs, modules, node_strategies
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedspec.spec import ast as A
from schedspec.spec.parse import parse, parse_expr
from schedspec.spec.printer import pretty

SPELLINGS = [pytest.param(False, id="ascii"), pytest.param(True, id="unicode")]

a, b, c, x, y, S, T, P, Q = (A.Name(n) for n in ("a", "b", "c", "x", "y", "S", "T", "P", "Q"))


def and_list(*items: A.Expr) -> A.Junction:
    return A.Junction(A.JunctionOp.AND, items, True)


def case(body: A.Expr) -> A.Case:
    return A.Case((A.CaseArm(P, body),), None)


def forall(body: A.Expr) -> A.Quant:
    return A.Quant(A.QuantKind.FORALL, (A.Bound((A.Binder("x"),), S),), body)


def member(name: A.Name, domain: A.Expr) -> A.Binary:
    return A.Binary(A.BinOp.IN, name, domain)


def assert_round_trip(e: A.Expr, unicode: bool) -> None:
    text = pretty(e, unicode=unicode)
    assert parse_expr(text) == e, text


# ---- properties ----------------------------------------------------------------------------------


@pytest.mark.parametrize("unicode", SPELLINGS)
@settings(max_examples=300, deadline=None)
@given(e=exprs())
# a bullet list ending a CASE inside an argument list, closed by the `,` (fixed in parse.py)
@example(e=A.Apply("f", (case(and_list(a, b)), c)))
@example(e=A.SetEnum((A.Case((A.CaseArm(a, b),), and_list(a, b)), c)))
# `{x ∈ S, …}` is an enumeration whose first item is `x ∈ S`; `{x ∈ S ∧ P}` must not read so
@example(e=A.SetEnum((A.Junction(A.JunctionOp.AND, (member(x, S), P)),)))
@example(e=A.SetMap(member(x, S), (A.Bound((A.Binder("y"),), T),)))
@example(e=A.Unary(A.UnOp.NEG, A.Unary(A.UnOp.NEG, A.Unary(A.UnOp.NEG, A.Unary(A.UnOp.NEG, a)))))
def test_expression_round_trip(unicode: bool, e: A.Expr) -> None:
    assert_round_trip(e, unicode)


@pytest.mark.parametrize("unicode", SPELLINGS)
@settings(max_examples=300, deadline=None)
@given(module=modules())
def test_module_round_trip(unicode: bool, module: A.Module) -> None:
    text = pretty(module, unicode=unicode)
    assert parse(text) == module, text


@pytest.mark.parametrize("unicode", SPELLINGS)
@settings(max_examples=100, deadline=None)
@given(definition=definitions())
def test_definition_round_trip(unicode: bool, definition: A.Definition) -> None:
    text = pretty(definition, unicode=unicode)
    assert parse(text).definitions == (definition,), text


_SMALL = st.builds(A.Name, st.sampled_from(["a", "b", "x"])) | st.builds(A.Num, st.integers(0, 9))
_GREEDY_CHILDREN = st.recursive(
    _SMALL,
    lambda sub: st.one_of(*(node_strategies(sub)[t] for t in (A.Junction, A.Case, A.Quant, A.If))),
    max_leaves=4,
)


def test_strategies_cover_every_expression_type() -> None:
    assert set(node_strategies(_SMALL)) == set(A.EXPR_TYPES)


@pytest.mark.parametrize("node_type", A.EXPR_TYPES, ids=lambda t: t.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_each_node_type_round_trips(node_type: type, data: st.DataObject) -> None:
    """Every node type over greedy children (bullet lists, CASE, ∀, IF): the layout-heavy cases."""
    e = data.draw(node_strategies(_GREEDY_CHILDREN)[node_type])
    assert_round_trip(e, unicode=data.draw(st.booleans()))


# ---- exact output --------------------------------------------------------------------------------

EXAMPLES: list[tuple[str, A.Expr, str]] = [
    ("bullets", and_list(a, b), "/\\ a\n/\\ b"),
    ("nested-bullets", and_list(A.Junction(A.JunctionOp.OR, (a, b), True), c),
     "/\\ \\/ a\n   \\/ b\n/\\ c"),
    ("bullets-then-operator-wrapped", A.Junction(A.JunctionOp.OR, (and_list(a, b), c)),
     "(/\\ a\n /\\ b) \\/ c"),
    ("infix-junction", A.Junction(A.JunctionOp.AND, (a, b, c)), "a /\\ b /\\ c"),
    ("nested-infix-parenthesised",
     A.Junction(A.JunctionOp.AND, (A.Junction(A.JunctionOp.AND, (a, b)), c)), "(a /\\ b) /\\ c"),
    ("and-in-or-bare", A.Junction(A.JunctionOp.OR, (A.Junction(A.JunctionOp.AND, (a, b)), c)),
     "a /\\ b \\/ c"),
    ("left-assoc", A.Binary(A.BinOp.SUB, A.Binary(A.BinOp.SUB, a, b), c), "a - b - c"),
    ("right-operand-parenthesised", A.Binary(A.BinOp.SUB, a, A.Binary(A.BinOp.SUB, b, c)),
     "a - (b - c)"),
    ("implies-right-assoc", A.Binary(A.BinOp.IMPLIES, a, A.Binary(A.BinOp.IMPLIES, b, c)),
     "a => b => c"),
    ("not-of-relation", A.Unary(A.UnOp.NOT, A.Binary(A.BinOp.EQ, a, b)), "~a = b"),
    ("relation-of-not", A.Binary(A.BinOp.EQ, A.Unary(A.UnOp.NOT, a), b), "(~a) = b"),
    ("minus-minus", A.Unary(A.UnOp.NEG, A.Unary(A.UnOp.NEG, a)), "- -a"),
    ("binary-minus-negative", A.Binary(A.BinOp.SUB, a, A.Unary(A.UnOp.NEG, b)), "a - -b"),
    ("postfix", A.Field(A.Index(A.Unary(A.UnOp.DOMAIN, a), (b, c)), "f"), "(DOMAIN a)[b, c].f"),
    ("quant-followed", A.Junction(A.JunctionOp.AND, (forall(P), Q)),
     "(\\A x \\in S : P) /\\ Q"),
    ("quant-last", A.Junction(A.JunctionOp.AND, (Q, forall(P))), "Q /\\ \\A x \\in S : P"),
    ("quant-bullet-body", forall(and_list(a, b)), "\\A x \\in S :\n  /\\ a\n  /\\ b"),
    ("case-in-non-last-arm", A.Case((A.CaseArm(a, case(b)), A.CaseArm(c, x)), None),
     "CASE a -> (CASE P -> b)\n  [] c -> x"),
    ("case-then-sibling-bullet", and_list(A.Case((A.CaseArm(a, b),), A.Bool(False)), c),
     "/\\ CASE a -> b\n     [] OTHER -> FALSE\n/\\ c"),
    ("bullets-in-arguments", A.Apply("f", (and_list(a, b), c)), "f(/\\ a\n  /\\ b, c)"),
    ("if", A.If(a, and_list(b, c), x), "IF a THEN /\\ b\n          /\\ c ELSE x"),
    ("let", A.Let((A.Definition("F", (A.Binder("p"),), a), A.Definition("G", (), forall(P))), b),
     "LET F(p) == a G == \\A x \\in S : P IN b"),
    ("let-non-last-greedy", A.Let((A.Definition("F", (), forall(P)), A.Definition("G", (), a)), b),
     "LET F == (\\A x \\in S : P) G == a IN b"),
    ("lambda", A.Apply("Sum", (A.Lambda((A.Binder("t"),), A.Field(A.Name("t"), "w")), S)),
     "Sum(LAMBDA t : t.w, S)"),
    ("set-of-membership", A.SetEnum((member(x, S), y)), "{x \\in S, y}"),
    ("set-led-by-membership", A.SetEnum((A.Junction(A.JunctionOp.AND, (member(x, S), P)), y)),
     "{(x \\in S /\\ P), y}"),
    ("set-map-of-membership", A.SetMap(member(x, S), (A.Bound((A.Binder("y"),), T),)),
     "{(x \\in S) : y \\in T}"),
    ("set-filter", A.SetFilter(A.Binder("x"), S, P), "{x \\in S : P}"),
    ("empty-collections", A.TupleLit((A.SetEnum(()), A.TupleLit(()))), "<<{}, <<>>>>"),
    ("record-fn", A.RecordLit((("a", A.FnCons((A.Bound((A.Binder("x"), A.Binder("y")), S),), x)),)),
     "[a |-> [x, y \\in S |-> x]]"),
    ("string-escapes", A.Str('say "hi"\\\n\t\r'), '"say \\"hi\\"\\\\\\n\\t\\r"'),
]  # fmt: skip

UNICODE_EXAMPLES: list[tuple[str, A.Expr, str]] = [
    ("bullets", and_list(a, A.Unary(A.UnOp.NOT, b)), "∧ a\n∧ ¬b"),
    ("quant", A.Quant(A.QuantKind.EXISTS, (A.Bound((A.Binder("x"),), S),), member(x, T)),
     "∃ x ∈ S : x ∈ T"),
    ("operators", A.Binary(A.BinOp.LE, A.Binary(A.BinOp.CUP, S, T), A.Binary(A.BinOp.DIV, a, b)),
     "S ∪ T ≤ a ÷ b"),
    ("tuple-record", A.TupleLit((A.RecordLit((("k", a),)),)), "⟨[k ↦ a]⟩"),
    ("case", A.Case((A.CaseArm(a, b),), c), "CASE a ⟶ b\n  [] OTHER ⟶ c"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("e", "text"), [pytest.param(e, text, id=name) for name, e, text in EXAMPLES]
)
def test_ascii_output(e: A.Expr, text: str) -> None:
    assert pretty(e) == text
    assert parse_expr(text) == e


@pytest.mark.parametrize(
    ("e", "text"), [pytest.param(e, text, id=name) for name, e, text in UNICODE_EXAMPLES]
)
def test_unicode_output(e: A.Expr, text: str) -> None:
    assert pretty(e, unicode=True) == text
    assert parse_expr(text) == e


def test_module_output() -> None:
    module = A.Module(
        "m",
        (
            A.Definition("F", (A.Binder("p"),), and_list(A.Name("p"), a)),
            A.Definition("G", (), A.Num(1)),
        ),
    )
    text = "---- MODULE m ----\n\nF(p) ==\n  /\\ p\n  /\\ a\n\nG == 1\n\n====\n"
    assert pretty(module) == text
    assert parse(text) == module


def test_headerless_module_output() -> None:
    module = A.Module(None, (A.Definition("G", (), A.Num(1)),))
    assert pretty(module, unicode=True) == "G ≝ 1\n\n"
    assert pretty(A.Module(None, ())) == ""


# ---- the seed ------------------------------------------------------------------------------------


def textbook() -> A.Module:
    source = resources.files("schedspec.spec.kube").joinpath("textbook.tla").read_text("utf-8")
    return parse(source, "textbook.tla")


@pytest.mark.parametrize("unicode", SPELLINGS)
def test_textbook_round_trip(unicode: bool) -> None:
    module = textbook()
    text = pretty(module, unicode=unicode)
    assert parse(text) == module
    assert pretty(parse(text), unicode=unicode) == text  # printing is a fixed point
