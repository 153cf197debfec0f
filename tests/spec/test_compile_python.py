"""The Python backend: TLA+ semantics, one table per concern, and the checker's kinds as an oracle.

A case is ``(id, source, expected)``: ``source`` is module text whose definition ``F`` is evaluated.
Error cases also pin the message (a substring) and the text under the error's span, so a user is
pointed at the right place. The property test at the end draws closed expressions and asserts that
whenever the checker infers a kind for one and evaluation succeeds, the value has that kind: the
checker's inference and the evaluator are independent code paths that must agree.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedspec.spec import ast as A
from schedspec.spec.check import Kind, check
from schedspec.spec.compile.python import _HANDLERS, UnsupportedNode, compile_module
from schedspec.spec.errors import EvalError
from schedspec.spec.parse import parse
from schedspec.spec.values import Closure, Fcn, Value, record


def run(source: str, name: str = "F", *args: Value) -> Value:
    return compile_module(parse(source, "t.tla")).call(name, *args)


def under_span(source: str, span: A.Span) -> str:
    lines = source.splitlines()
    if span.end_line == span.line:
        return lines[span.line - 1][span.col - 1 : span.end_col - 1]
    return lines[span.line - 1][span.col - 1 :]


# -- values by node type --------------------------------------------------------------------------

VALUE_CASES: list[tuple[str, str, Value]] = [
    # literals and names
    ("num", "F == 42", 42),
    ("str-escape", 'F == "a\\"b"', 'a"b'),
    ("bool", "F == TRUE", True),
    ("name-definition", "G == 3\nF == G", 3),
    ("name-used-before-defined", "F == G + 1\nG == 3", 4),
    ("name-constant", "F == 3 \\in Nat", True),
    # Apply: definitions, built-ins, LAMBDA parameters
    ("apply-definition", "G(x, y) == x - y\nF == G(5, 2)", 3),
    ("apply-builtin", "F == Cardinality({1, 2, 2})", 2),
    ("apply-lambda-param", "Ap(f, x) == f(x)\nF == Ap(LAMBDA y : y + 1, 41)", 42),
    # Index and Field
    ("index-function", "F == [x \\in 1..3 |-> x * x][2]", 4),
    ("index-two-args", "F == [x \\in {1}, y \\in {2} |-> x + y][1, 2]", 3),
    ("index-sequence-1-based", "F == <<10, 20, 30>>[1]", 10),
    ("index-sequence-last", "F == <<10, 20, 30>>[3]", 30),
    ("index-record-by-string", 'F == [a |-> 1]["a"]', 1),
    ("field", "F == [a |-> 1, b |-> 2].b", 2),
    ("field-nested", "F == [a |-> [b |-> 7]].a.b", 7),
    # Unary
    ("not", "F == ~TRUE", False),
    ("neg", "F == -(3)", -3),
    ("domain-sequence-is-1-to-n", "F == DOMAIN <<4, 5, 6>>", frozenset({1, 2, 3})),
    ("domain-empty-sequence", "F == DOMAIN <<>>", frozenset()),
    ("domain-record", "F == DOMAIN [a |-> 1, b |-> 2]", frozenset({"a", "b"})),
    ("domain-function", 'F == DOMAIN [x \\in {"p", "q"} |-> 0]', frozenset({"p", "q"})),
    # Binary: arithmetic (\div is floor division, % needs a positive divisor, as TLA+'s Integers)
    ("add-mul-precedence", "F == 2 + 3 * 4", 14),
    ("sub", "F == 2 - 5", -3),
    ("div", "F == 7 \\div 2", 3),
    ("div-negative-floors", "F == (-7) \\div 2", -4),
    ("div-unicode", "F == 9 ÷ 3", 3),
    ("mod", "F == 7 % 3", 1),
    ("mod-negative-dividend", "F == (-7) % 2", 1),
    ("range", "F == 2..4", frozenset({2, 3, 4})),
    ("range-empty", "F == 3..2", frozenset()),
    # Binary: sets
    ("cup", "F == {1, 2} \\cup {3}", frozenset({1, 2, 3})),
    ("cap", "F == {1, 2} \\cap {2, 3}", frozenset({2})),
    ("setminus", "F == {1, 2, 3} \\ {2}", frozenset({1, 3})),
    ("subseteq", "F == {1} \\subseteq {1, 2}", True),
    ("in", "F == 2 \\in {1, 2}", True),
    ("notin", "F == 3 \\notin {1, 2}", True),
    # Binary: comparison and logic
    ("eq-records", "F == [a |-> 1, b |-> 2] = [b |-> 2, a |-> 1]", True),
    ("neq", 'F == "a" # "b"', True),
    ("le-ge", "F == 1 <= 1 /\\ 2 >= 3", False),
    ("implies", "F == TRUE => FALSE", False),
    ("equiv", "F == FALSE <=> FALSE", True),
    # Int, Nat, BOOLEAN, STRING: membership only
    ("nat-zero", "F == 0 \\in Nat", True),
    ("nat-negative", "F == (-1) \\in Nat", False),
    ("int-negative", "F == -1 \\in Int", True),
    ("int-string", 'F == "1" \\in Int', False),
    ("int-boolean", "F == TRUE \\in Int", False),
    ("boolean", "F == FALSE \\in BOOLEAN", True),
    ("string", 'F == "x" \\in STRING', True),
    # Junction: infix and aligned bullets
    ("and", "F == TRUE /\\ FALSE", False),
    ("or", "F == FALSE \\/ TRUE", True),
    ("bullets", "F ==\n  /\\ TRUE\n  /\\ \\/ FALSE\n     \\/ TRUE", True),
    # Quant
    ("forall", "F == \\A x \\in 1..3 : x > 0", True),
    ("forall-empty", "F == \\A x \\in {} : FALSE", True),
    ("exists-two-names", "F == \\E x, y \\in 1..3 : x + y = 6", True),
    ("exists-empty", "F == \\E x \\in {} : TRUE", False),
    ("bound-sees-earlier", "F == \\A x \\in 1..3, y \\in x..3 : x <= y", True),
    ("unicode", "F == ∀ x ∈ {1, 2} : ∃ y ∈ {2} : x ≤ y", True),
    # sets and sequences
    ("set-enum-dedups", "F == {1, 2, 2}", frozenset({1, 2})),
    ("set-empty", "F == {}", frozenset()),
    ("set-order-free", "F == {1, 1, 2} = {2, 1}", True),
    ("sequence-order-and-repeats", "F == <<1, 1, 2>> # <<1, 2>>", True),
    ("set-filter", "F == {x \\in 1..6 : x % 2 = 0}", frozenset({2, 4, 6})),
    ("set-filter-outer-bound", "F == {x \\in 1..3 : x > 1} = {y \\in {2, 3} : TRUE}", True),
    (
        "set-map-two-bounds",
        "F == {x + y : x \\in {1, 2}, y \\in {10, 20}}",
        frozenset({11, 12, 21, 22}),
    ),
    ("set-map-dependent-bounds", "F == {x * y : x \\in 1..2, y \\in x..2}", frozenset({1, 2, 4})),
    (
        "set-map-shared-bound",
        "F == {<<x, y>> : x, y \\in {1, 2}}",
        frozenset({(1, 1), (1, 2), (2, 1), (2, 2)}),
    ),
    (
        "set-of-sets",
        "F == {{x \\in 1..n : TRUE} : n \\in 1..2}",
        frozenset({frozenset({1}), frozenset({1, 2})}),
    ),
    ("tuple", 'F == <<1, "a", TRUE>>', (1, "a", True)),
    ("tuple-empty", "F == <<>>", ()),
    ("len-counts-repeats", "F == Len(<<1, 1>>)", 2),
    ("cardinality-dedups", "F == Cardinality({1, 1})", 1),
    ("sum-set-of-distinct", "F == Sum({100, 100})", 100),
    ("sum-sequence", "F == Sum(<<100, 100>>)", 200),
    ("max-min", "F == Max({3, 9, 4}) - Min(<<3, 9, 4>>)", 6),
    ("head-tail-append", "F == Append(Tail(<<1, 2>>), Head(<<7>>))", (2, 7)),
    # records and functions
    ("record", 'F == [a |-> 1, b |-> "x"]', record(a=1, b="x")),
    ("fn-cons", "F == [x \\in 1..3 |-> x * 2]", Fcn({1: 2, 2: 4, 3: 6})),
    ("fn-cons-two-bounds", "F == [x \\in {1}, y \\in {2} |-> x]", Fcn({(1, 2): 1})),
    ("set-of-records", "F == Cardinality({[a |-> 1], [a |-> 1], [a |-> 2]})", 2),
    # IF and CASE: arms tried in order, the first TRUE guard wins
    ("if", 'F == IF 1 < 2 THEN "yes" ELSE "no"', "yes"),
    ("case-first-true-wins", 'F == CASE 1 > 2 -> "a" [] 2 > 1 -> "b" [] TRUE -> "c"', "b"),
    ("case-other", "F == CASE FALSE -> 1 [] OTHER -> 2", 2),
    ("case-unicode-arrow", "F == CASE TRUE ⟶ 1", 1),
    # LET: parameters, several definitions, capture of bound variables (static scoping)
    ("let", "F == LET G(y) == y + 1 IN G(2)", 3),
    ("let-several", "F == LET A == 1\n         B == A + 1 IN B", 2),
    # a name a LET defines twice (the checker's SPC104 error) evaluates as its last definition
    ("let-defined-twice", "F == LET A == 1\n         A == 2 IN A", 2),
    ("let-captures-bound", "F == \\A z \\in {1, 2} : LET G(y) == y + z IN G(0) = z", True),
    (
        "let-keeps-its-binding",
        "F == \\A z \\in {1} : LET G(y) == y + z IN \\A z \\in {5} : G(0) = 1",
        True,
    ),
    (
        "let-zero-ary-keeps-binding",
        "F == \\A z \\in {1} : LET G == z IN {G : z \\in {5}} = {1}",
        True,
    ),
    ("let-param-hides-outer", "F == \\A y \\in {3} : LET G(y) == y * 10 IN G(2) + y = 23", True),
    ("let-in-definition", "G(x) == LET H == x + 1 IN H\nF == G(1) + G(2)", 5),
    # LAMBDA: with Sum, capturing bound variables
    ("lambda-sum", "F == Sum(LAMBDA x : x * 10, {1, 2, 3})", 60),
    ("lambda-captures", "F == \\A k \\in {2, 3} : Sum(LAMBDA x : x * k, {1, 2}) = 3 * k", True),
    ("lambda-sum-over-sequence", "F == Sum(LAMBDA r : r.w, <<[w |-> 2], [w |-> 2]>>)", 4),
    # IsInt / ToInt: Go's strconv.ParseInt(s, 10, 64)
    ("isint-42", 'F == IsInt("42")', True),
    ("isint-minus-7", 'F == IsInt("-7")', True),
    ("isint-plus-5", 'F == IsInt("+5")', True),
    ("isint-4.2", 'F == IsInt("4.2")', False),
    ("isint-empty", 'F == IsInt("")', False),
    ("isint-space", 'F == IsInt(" 42")', False),
    ("isint-int64-max", 'F == IsInt("9223372036854775807")', True),
    ("isint-int64-overflow", 'F == IsInt("9223372036854775808")', False),
    ("isint-int64-min", 'F == IsInt("-9223372036854775808")', True),
    ("isint-int64-underflow", 'F == IsInt("-9223372036854775809")', False),
    ("isint-integer", "F == IsInt(42)", True),
    ("isint-boolean", "F == IsInt(TRUE)", False),
    ("toint-42", 'F == ToInt("42")', 42),
    ("toint-minus-7", 'F == ToInt("-7")', -7),
    ("toint-integer", "F == ToInt(5)", 5),
    # IsLabelKey / IsLabelValue: apimachinery's validateLabelKey / validateLabelValue
    ("labelkey-plain", 'F == IsLabelKey("app")', True),
    ("labelkey-prefixed", 'F == IsLabelKey("topology.kubernetes.io/zone")', True),
    ("labelkey-space", 'F == IsLabelKey("Bad Key!")', False),
    ("labelkey-empty", 'F == IsLabelKey("")', False),
    ("labelkey-two-slashes", 'F == IsLabelKey("a/b/c")', False),
    ("labelkey-64-chars", f'F == IsLabelKey("{"a" * 64}")', False),
    ("labelvalue-empty", 'F == IsLabelValue("")', True),
    ("labelvalue-dots", 'F == IsLabelValue("v1.2_x-y")', True),
    ("labelvalue-negative", 'F == IsLabelValue("-1")', False),
    ("labelvalue-slash", 'F == IsLabelValue("a/b")', False),
    ("labelvalue-integer", "F == IsLabelValue(1)", False),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in VALUE_CASES], ids=[c[0] for c in VALUE_CASES]
)
def test_value(source: str, expected: Value) -> None:
    value = run(source)
    assert value == expected
    assert type(value) is type(expected)  # TRUE is not 1, a sequence is not a set


# -- short-circuit: an operand after the deciding one is never evaluated --------------------------

BOOM = "1 \\div 0 = 1"  # an operand that raises if evaluated

SHORT_CIRCUIT: list[tuple[str, str, bool]] = [
    ("and-false-first", f"F == FALSE /\\ {BOOM}", False),
    ("or-true-first", f"F == TRUE \\/ {BOOM}", True),
    ("implies-false-left", f"F == FALSE => {BOOM}", True),
    ("and-bullets", f"F ==\n  /\\ 1 > 2\n  /\\ {BOOM}", False),
    ("or-bullets", f"F ==\n  \\/ 2 > 1\n  \\/ {BOOM}", True),
    ("and-guards-non-boolean", "F == FALSE /\\ 1", False),
    ("and-guards-missing-field", "F == FALSE /\\ [a |-> 1].b", False),
    ("and-guards-undefined-name", "F == FALSE /\\ Nope", False),
    ("and-guards-undefined-operator", "F == FALSE /\\ Nope(1)", False),
    ("and-guards-wrong-arity", "G(x) == x\nF == FALSE /\\ G(1, 2)", False),
    ("forall-stops", f"F == \\A x \\in {{1}} : x = 2 /\\ {BOOM}", False),
    ("if-untaken-branch", f"F == IF TRUE THEN TRUE ELSE {BOOM}", True),
    ("case-later-arm", f"F == CASE TRUE -> TRUE [] {BOOM} -> FALSE", True),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in SHORT_CIRCUIT], ids=[c[0] for c in SHORT_CIRCUIT]
)
def test_short_circuit(source: str, expected: bool) -> None:
    assert run(source) is expected


@pytest.mark.parametrize(
    "source",
    [
        f"F == TRUE /\\ {BOOM}",
        f"F == FALSE \\/ {BOOM}",
        f"F == TRUE => {BOOM}",
        f"F == {BOOM} /\\ FALSE",
    ],
    ids=["and", "or", "implies", "left-to-right"],
)
def test_undecided_operand_is_evaluated(source: str) -> None:
    with pytest.raises(EvalError, match="division by zero"):
        run(source)


# -- errors: message and span ---------------------------------------------------------------------

# (id, source with the error's span between « and », message substring)
ERROR_CASES: list[tuple[str, str, str]] = [
    ("missing-field", "F ==\n  «[a |-> 1].b»", "record has no field 'b' (its fields: a)"),
    ("field-of-non-record", "F == «(3).a»", ".a applied to integer 3, not a record"),
    (
        "non-boolean-in-and",
        "F ==\n  /\\ TRUE\n  /\\ «1 + 1»",
        "an operand of ∧ must be a boolean, got integer 2",
    ),
    (
        "non-boolean-in-or",
        'F == FALSE \\/ «"x"»',
        'an operand of ∨ must be a boolean, got string "x"',
    ),
    ("non-boolean-not", "F == ~ «1»", "the operand of ¬ must be a boolean, got integer 1"),
    ("non-boolean-implies", "F == TRUE => «2»", "the right of ⇒ must be a boolean, got integer 2"),
    ("non-boolean-if", "F == IF «1» THEN 2 ELSE 3", "the IF condition must be a boolean"),
    ("non-boolean-quant", "F == \\A x \\in {1} : «x»", "the body of ∀ must be a boolean"),
    ("non-boolean-filter", "F == {x \\in {1} : «x»}", "predicate of {x ∈ S : P} must be a boolean"),
    ("non-boolean-case-guard", "F == CASE «1» -> 2", "a CASE guard must be a boolean"),
    ("compare-int-string", 'F == «1 = "1"»', 'cannot compare integer 1 with string "1"'),
    ("compare-string-int", 'F == «"1" # 1»', 'cannot compare string "1" with integer 1'),
    ("compare-bool-int", "F == «TRUE = 1»", "cannot compare boolean TRUE with integer 1"),
    ("compare-set-sequence", "F == «{} = <<>>»", "cannot compare set {} with sequence <<>>"),
    ("order-int-string", 'F == 1 < «"2"»', 'the right of < must be an integer, got string "2"'),
    ("arith-string", 'F == «"1"» + 1', 'the left of + must be an integer, got string "1"'),
    ("outside-function-domain", "F ==\n  «[x \\in 1..2 |-> x][3]»", "3 is not in the DOMAIN of"),
    ("outside-record-domain", 'F == «[a |-> 1]["b"]»', '"b" is not in the DOMAIN of [a |-> 1]'),
    ("outside-sequence-0", "F == «<<1, 2>>[0]»", "cannot apply sequence <<1, 2>> to 0"),
    ("outside-sequence-n+1", "F == «<<1, 2>>[3]»", "cannot apply sequence <<1, 2>> to 3"),
    ("apply-a-set", "F == «{1}[1]»", "cannot apply set {1} to 1"),
    ("domain-of-set", "F == «DOMAIN {1}»", "DOMAIN of set {1}: not a function"),
    ("undefined-name-reached", "F == TRUE /\\ «Nope»", "free variable 'Nope' is not bound"),
    ("undefined-operator-reached", "F == TRUE /\\ «Nope(1)»", "undefined operator 'Nope'"),
    ("arity-definition", "G(x) == x\nF == «G(1, 2)»", "'G' takes 1 argument, given 2"),
    ("arity-bare", "G(x) == x\nF == «G»", "'G' takes 1 argument, given 0"),
    ("arity-zero-ary", "G == 1\nF == «G(1)»", "'G' takes 0 arguments, given 1"),
    ("arity-builtin", "F == «Sum({1}, {2}, {3})»", "'Sum' takes 1–2 arguments, given 3"),
    ("arity-let", "F == LET G(x) == x IN «G(1, 2)»", "'G' takes 1 argument, given 2"),
    ("arity-lambda", "Ap(f) == «f(1, 2)»\nF == Ap(LAMBDA x : x)", "'f' takes 1 argument, given 2"),
    ("apply-non-operator", "Ap(f) == «f(1)»\nF == Ap(3)", "'f' is integer 3, not an operator"),
    ("sum-lambda-arity", "F == «Sum(LAMBDA x, y : x, {1})»", "expected a one-parameter LAMBDA"),
    (
        "case-no-other",
        "F ==\n  «CASE 1 > 2 -> 1\n    [] 2 > 3 -> 2»",
        "no CASE guard is true and there is no OTHER",
    ),
    ("div-by-zero", "F == «1 \\div 0»", "division by zero"),
    ("mod-by-negative", "F == «7 % -2»", "% needs a positive divisor, got -2"),
    ("infinite-domain", "F == \\A x \\in «Nat» : x >= 0", "cannot enumerate the infinite set Nat"),
    ("infinite-union", "F == «Nat» \\cup {1}", "cannot enumerate the infinite set Nat"),
    ("member-of-non-set", "F == 1 \\in «2»", "∈ needs a set on the right, got integer 2"),
    ("toint-decimal", 'F == «ToInt("4.2")»', 'ToInt: "4.2" is not a base-10 64-bit integer'),
    ("toint-int64-overflow", 'F == «ToInt("9223372036854775808")»', "not a base-10 64-bit integer"),
    ("max-empty", "F == «Max({})»", "Max of an empty set is undefined"),
    (
        "cardinality-sequence",
        "F == «Cardinality(<<1>>)»",
        "Cardinality expects a set, got sequence",
    ),
    ("len-set", "F == «Len({1})»", "Len expects a sequence, got set"),
    ("sum-strings", 'F == «Sum({"a"})»', 'Sum expects integers, got string "a"'),
    ("recursion", "«F == G(1)»\nG(n) == G(n + 1)", "recursed too deeply"),
]


def unmark(marked: str) -> tuple[str, tuple[int, int, int, int]]:
    """The source without « », and the (line, col, end_line, end_col) span they enclose."""
    source = marked.replace("«", "").replace("»", "")
    start, end = marked.index("«"), marked.index("»") - 1

    def position(offset: int) -> tuple[int, int]:
        line = source.count("\n", 0, offset) + 1
        return line, offset - (source.rfind("\n", 0, offset) + 1) + 1

    return source, (*position(start), *position(end))


@pytest.mark.parametrize(
    ("marked", "message"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_error(marked: str, message: str) -> None:
    source, (line, col, end_line, end_col) = unmark(marked)
    with pytest.raises(EvalError) as info:
        run(source)
    err = info.value
    assert message in err.message
    assert err.span == A.Span("t.tla", line, col, end_line, end_col)
    assert str(err) == f"t.tla:{line}:{col}: {err.message}"


def test_error_messages_shorten_long_values() -> None:
    with pytest.raises(EvalError) as info:
        run("F == [x \\in 1..200 |-> x][0]")
    assert "…" in info.value.message
    assert len(info.value.message) < 120


def test_call_checks_arity_at_the_definition() -> None:
    source = "F(x, y) == x"
    with pytest.raises(EvalError, match="'F' takes 2 arguments, given 1") as info:
        run(source, "F", 1)
    assert under_span(source, info.value.span) == source


def test_call_binds_arguments() -> None:
    assert run("F(r, s) == r.a + Cardinality(s)", "F", record(a=1), frozenset({7, 8})) == 3


def test_call_a_lambda_argument() -> None:
    double = Closure(1, lambda x: 2 * x, "LAMBDA x : 2 * x")
    assert run("F(f) == f(21)", "F", double) == 42


# -- Program: constants, closures, dispatch --------------------------------------------------------


def test_bind_sets_and_replaces_constants() -> None:
    program = compile_module(parse("F == Objects \\cup {3}", "t.tla"))
    with pytest.raises(EvalError, match="free variable 'Objects' is not bound"):
        program.call("F")
    assert program.bind({"Objects": frozenset({1})}).call("F") == frozenset({1, 3})
    assert program.bind({"Objects": frozenset({2})}).call("F") == frozenset({2, 3})
    assert compile_module(program.module, {"Objects": frozenset()}).call("F") == frozenset({3})


def test_closure_of_any_node_evaluates_under_given_bindings() -> None:
    program = compile_module(parse("F(x) == x + 1 > 2", "t.tla"))
    body = program.definition("F").body
    assert isinstance(body, A.Binary)
    assert program.closure(body)({"x": 5}) is True
    assert program.closure(body.left)({"x": 5}) == 6
    assert program.closure(body.right)({}) == 2


def test_evaluation_leaves_no_bindings_behind() -> None:
    program = compile_module(parse("F(x) == \\A x \\in {1, 2} : x > 0", "t.tla"))
    body = program.definition("F").body
    env = {"x": "outer"}
    assert program.closure(body)(env) is True
    assert env == {"x": "outer"}


def test_every_node_type_has_a_handler() -> None:
    assert set(_HANDLERS) == set(A.EXPR_TYPES)


def test_unknown_node_is_loud() -> None:
    class Alien:
        span = A.NO_SPAN

    module = A.Module(None, (A.Definition("F", (), Alien()),))  # type: ignore[arg-type]
    with pytest.raises(UnsupportedNode, match="Alien"):
        compile_module(module)


_nodes = A.walk


def test_the_value_table_covers_every_node_type() -> None:
    seen = {type(n) for _, source, _ in VALUE_CASES for n in _nodes(parse(source).definitions)}
    assert [t.__name__ for t in A.EXPR_TYPES if t not in seen] == []


# -- the checker's kinds agree with the evaluator's values -----------------------------------------

_VALUE_KINDS = {
    bool: Kind.BOOLEAN,
    int: Kind.INTEGER,
    str: Kind.STRING,
    frozenset: Kind.SET,
    tuple: Kind.SEQUENCE,
    Fcn: Kind.RECORD,
    Closure: Kind.LAMBDA,
}
_KINDS_BY_TEXT = {k.value: k for k in Kind}
_PROBE_NOT = A.Span("<probe-not>", 1, 1, 1, 2)
_PROBE_NEG = A.Span("<probe-neg>", 1, 1, 1, 2)


def inferred_kind(expr: A.Expr) -> Kind:
    """The checker's kind for ``expr``, read through its public diagnostics: ``¬ E`` reports the
    kind of a known non-boolean ``E`` (SPC201 "…, got <kind>"), ``-E`` that of a known boolean."""
    module = A.Module(
        None,
        (
            A.Definition("E", (), expr),
            A.Definition("PNot", (), A.Unary(A.UnOp.NOT, A.Name("E", _PROBE_NOT))),
            A.Definition("PNeg", (), A.Unary(A.UnOp.NEG, A.Name("E", _PROBE_NEG))),
        ),
    )
    got = {
        d.span.file: _KINDS_BY_TEXT[d.message.rsplit(", got ", 1)[1]]
        for d in check(module).diagnostics
        if d.span in (_PROBE_NOT, _PROBE_NEG)
    }
    if "<probe-not>" in got:
        return got["<probe-not>"]
    return Kind.BOOLEAN if "<probe-neg>" in got else Kind.UNKNOWN


def test_inferred_kind_probe() -> None:
    def kind_of_text(text: str) -> Kind:
        return inferred_kind(parse(f"E == {text}").definitions[0].body)

    assert kind_of_text("1 + 2") is Kind.INTEGER
    assert kind_of_text("1 < 2") is Kind.BOOLEAN
    assert kind_of_text("{1}") is Kind.SET
    assert kind_of_text("<<1>>") is Kind.SEQUENCE
    assert kind_of_text("[a |-> 1]") is Kind.RECORD
    assert kind_of_text('"s"') is Kind.STRING
    assert kind_of_text("<<1>>[1]") is Kind.UNKNOWN


# Closed expressions drawn by kind, with a few deliberately ill-typed forms so the checker sometimes
# infers a kind evaluation then refutes with an error (never with a value of another kind).
_KIND_NAMES = ("int", "bool", "set", "seq", "rec", "str")
_DEPTH = 3


def _num(hi: int = 6) -> st.SearchStrategy[A.Expr]:
    return st.builds(A.Num, st.integers(0, hi))


def _tuple_of(s: st.SearchStrategy[A.Expr], lo: int, hi: int) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(s, min_size=lo, max_size=hi).map(tuple)


def _leaves(kind: str, scope: tuple[str, ...]) -> st.SearchStrategy[A.Expr]:
    if kind == "int":
        names = [st.sampled_from(scope).map(A.Name)] if scope else []
        return st.one_of(_num(), *names)
    if kind == "bool":
        return st.builds(A.Bool, st.booleans())
    if kind == "set":  # small, so nested quantifiers stay cheap
        ranged = st.builds(A.Binary, st.just(A.BinOp.RANGE), _num(2), _num(4))
        return st.one_of(st.builds(A.SetEnum, _tuple_of(_num(), 0, 3)), ranged)
    if kind == "seq":
        return st.builds(A.TupleLit, _tuple_of(_num(), 0, 3))
    if kind == "rec":
        fields_ = st.tuples(
            st.tuples(st.just("a"), _num()),
            st.tuples(st.just("b"), st.builds(A.Bool, st.booleans())),
        )
        return st.builds(A.RecordLit, fields_)
    return st.builds(A.Str, st.sampled_from(["", "a", "42", "-7", "4.2", "9223372036854775808"]))


@functools.cache
def typed(kind: str, depth: int, scope: tuple[str, ...] = ()) -> st.SearchStrategy[A.Expr]:
    """Closed expressions of ``kind`` (ints may use the bound variables in ``scope``)."""
    leaves = _leaves(kind, scope)
    if depth == 0:
        return leaves
    var = f"v{depth}"
    inner = (*scope, var)

    def sub(k: str, s: tuple[str, ...] = scope) -> st.SearchStrategy[A.Expr]:
        return typed(k, depth - 1, s)

    anything = st.one_of(*(sub(k) for k in _KIND_NAMES))
    domain = typed("set", 0, scope)
    bound = st.builds(A.Bound, st.just((A.Binder(var),)), domain)
    same = st.sampled_from(_KIND_NAMES).flatmap(lambda k: st.tuples(sub(k), sub(k)))
    composites: dict[str, list[st.SearchStrategy[Any]]] = {
        "int": [
            st.builds(
                A.Binary,
                st.sampled_from([A.BinOp.ADD, A.BinOp.SUB, A.BinOp.MUL, A.BinOp.DIV, A.BinOp.MOD]),
                sub("int"),
                sub("int"),
            ),
            st.builds(A.Unary, st.just(A.UnOp.NEG), sub("int")),
            st.builds(A.Apply, st.just("Cardinality"), _tuple_of(sub("set"), 1, 1)),
            st.builds(A.Apply, st.just("Len"), _tuple_of(sub("seq"), 1, 1)),
            st.builds(
                A.Apply,
                st.sampled_from(["Sum", "Max", "Min"]),
                _tuple_of(st.one_of(sub("set"), sub("seq")), 1, 1),
            ),
            st.builds(
                A.Apply,
                st.just("Sum"),
                st.tuples(
                    st.builds(A.Lambda, st.just((A.Binder(var),)), sub("int", inner)), sub("set")
                ),
            ),
            st.builds(
                A.Apply, st.just("ToInt"), _tuple_of(st.one_of(sub("str"), sub("int")), 1, 1)
            ),
            st.builds(A.Index, sub("seq"), _tuple_of(sub("int"), 1, 1)),
            st.builds(
                A.Index,
                st.builds(A.FnCons, st.tuples(bound), sub("int", inner)),
                _tuple_of(sub("int"), 1, 1),
            ),
            st.builds(A.Field, sub("rec"), st.just("a")),
            st.builds(
                A.Let,
                st.tuples(
                    st.builds(
                        A.Definition, st.just("L"), st.just((A.Binder(var),)), sub("int", inner)
                    )
                ),
                st.builds(A.Apply, st.just("L"), _tuple_of(sub("int"), 1, 1)),
            ),
        ],
        "bool": [
            st.builds(
                A.Binary,
                st.sampled_from([A.BinOp.LT, A.BinOp.LE, A.BinOp.GT, A.BinOp.GE]),
                sub("int"),
                sub("int"),
            ),
            same.map(lambda p: A.Binary(A.BinOp.EQ, *p)),
            same.map(lambda p: A.Binary(A.BinOp.NEQ, *p)),
            st.builds(
                A.Binary,
                st.sampled_from([A.BinOp.IN, A.BinOp.NOTIN]),
                sub("int"),
                st.one_of(sub("set"), st.sampled_from(["Int", "Nat"]).map(A.Name)),
            ),
            st.builds(A.Binary, st.just(A.BinOp.SUBSETEQ), sub("set"), sub("set")),
            st.builds(
                A.Binary,
                st.sampled_from([A.BinOp.IMPLIES, A.BinOp.EQUIV]),
                sub("bool"),
                sub("bool"),
            ),
            st.builds(A.Junction, st.sampled_from(A.JunctionOp), _tuple_of(sub("bool"), 2, 3)),
            st.builds(A.Unary, st.just(A.UnOp.NOT), sub("bool")),
            st.builds(A.Quant, st.sampled_from(A.QuantKind), st.tuples(bound), sub("bool", inner)),
            st.builds(
                A.Apply, st.just("IsInt"), _tuple_of(st.one_of(sub("str"), sub("int")), 1, 1)
            ),
        ],
        "set": [
            st.builds(
                A.Binary,
                st.sampled_from([A.BinOp.CUP, A.BinOp.CAP, A.BinOp.SETMINUS]),
                sub("set"),
                sub("set"),
            ),
            st.builds(A.SetFilter, st.just(A.Binder(var)), domain, sub("bool", inner)),
            st.builds(
                A.SetMap,
                sub("int", (*inner, "w")),
                st.tuples(bound, st.builds(A.Bound, st.just((A.Binder("w"),)), domain)),
            ),
            st.builds(A.Unary, st.just(A.UnOp.DOMAIN), st.one_of(sub("seq"), sub("rec"))),
            st.builds(A.SetEnum, _tuple_of(sub("int"), 0, 3)),
        ],
        "seq": [
            st.builds(A.TupleLit, _tuple_of(sub("int"), 0, 3)),
            st.builds(A.Apply, st.just("Tail"), _tuple_of(sub("seq"), 1, 1)),
            st.builds(A.Apply, st.just("Append"), st.tuples(sub("seq"), sub("int"))),
        ],
        "rec": [
            st.builds(
                A.RecordLit,
                st.tuples(st.tuples(st.just("a"), sub("int")), st.tuples(st.just("b"), anything)),
            ),
            st.builds(A.FnCons, st.tuples(bound), sub("int", inner)),
        ],
        "str": [],
    }
    conditionals = [
        st.builds(A.If, sub("bool"), sub(kind), sub(kind)),
        st.builds(
            A.Case,
            _tuple_of(st.builds(A.CaseArm, sub("bool"), sub(kind)), 1, 2),
            st.none() | sub(kind),
        ),
    ]
    ill_typed = st.one_of(
        st.builds(A.If, sub("bool"), anything, anything),
        st.builds(
            A.Binary, st.sampled_from([A.BinOp.ADD, A.BinOp.CUP, A.BinOp.LT]), anything, anything
        ),
        st.builds(A.Junction, st.just(A.JunctionOp.AND), st.tuples(anything, sub("bool"))),
        st.builds(A.Unary, st.sampled_from(A.UnOp), anything),
        st.builds(A.Field, anything, st.just("a")),
    )
    if depth < _DEPTH:  # ill-typed forms at the root only: one deep down fails the whole tree
        return st.one_of(leaves, *composites[kind], *conditionals)
    return st.one_of(leaves, *composites[kind], *conditionals, ill_typed)


closed_exprs = st.sampled_from(_KIND_NAMES).flatmap(lambda k: typed(k, _DEPTH))


@settings(max_examples=300, deadline=None)
@given(expr=closed_exprs)
@example(expr=A.If(A.Bool(True), A.Num(1), A.Num(2)))
@example(expr=A.Apply("Tail", (A.TupleLit((A.Num(1),)),)))
@example(expr=A.Unary(A.UnOp.DOMAIN, A.TupleLit((A.Num(1),))))
def test_checker_kind_matches_value_kind(expr: A.Expr) -> None:
    kind = inferred_kind(expr)
    try:
        value = compile_module(A.Module(None, (A.Definition("E", (), expr),))).call("E")
    except EvalError:
        return
    if kind is not Kind.UNKNOWN:
        assert _VALUE_KINDS[type(value)] is kind, value
