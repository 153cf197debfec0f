"""The checker: one table per code (findings and non-findings), the all-node-types dispatch test,
and the textbook spec's known defects found where they are.

A case is ``(source, expected)``: ``expected`` lists ``(code, text under the caret)``; the checker
must report exactly those, in order. Message texts are pinned separately in ``MESSAGES``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schedspec.spec import ast as A
from schedspec.spec.check import Checked, Schema, UnsupportedNode, check
from schedspec.spec.errors import CODES, Severity
from schedspec.spec.parse import parse

ROOT = Path(__file__).resolve().parents[2]
TEXTBOOK = ROOT / "spec" / "kube" / "textbook.tla"

VIEW = Schema(
    fields=frozenset({"Kind", "Name", "Key", "Operator", "Labels"}),
    enums={
        "Operator": frozenset({"In", "NotIn", "Exists", "DoesNotExist"}),
        "Kind": frozenset({"Pod"}),
    },
    constants=frozenset({"Objects"}),
    name="the test view",
)


def run(source: str, schema: Schema | None = None) -> Checked:
    return check(parse(source, "t.tla"), schema)


def under_caret(source: str, span: A.Span) -> str:
    line = source.splitlines()[span.line - 1]
    end = span.end_col - 1 if span.end_line == span.line else len(line)
    return line[span.col - 1 : end]


def findings(source: str, schema: Schema | None = None) -> list[tuple[str, str]]:
    return [(d.code, under_caret(source, d.span)) for d in run(source, schema).diagnostics]


# (id, source, schema, expected findings)
Case = tuple[str, str, Schema | None, list[tuple[str, str]]]

CASES: list[Case] = [
    # SPC101 undefined operator
    ("101-undefined", "F == Foo(1)", None, [("SPC101", "Foo(1)")]),
    ("101-no-builtin", "F == Sum({1}) + Cardinality({2})", None, []),
    ("101-param-applied", "F(g) == g(1, 2)", None, []),
    ("101-lambda-param-applied", "F == LAMBDA g : g(1)", None, []),
    ("101-used-before-defined", "F == G(1)\nG(x) == x", None, []),
    ("101-let", "F == LET G(x) == x IN G(1)", None, []),
    # SPC102 free variable
    ("102-free", "F == x", None, [("SPC102", "x")]),
    ("102-initial", "F(Pod) == p.Name", None, [("SPC102", "p")]),
    ("102-bound", "F == ∀ x ∈ {1} : x = 1", None, []),
    ("102-constant", "F == Int \\cup Nat", None, []),
    ("102-schema-constant", "F == Objects", VIEW, []),
    ("102-no-schema", "F == Objects", None, [("SPC102", "Objects")]),
    ("102-let-scope", "F == (LET G == 1 IN G) + G", None, [("SPC102", "G")]),
    ("102-bound-scope", "F == (∃ x ∈ {1} : x = 1) ∧ x", None, [("SPC102", "x")]),
    ("102-later-domain", "F == ∀ x ∈ {1}, y ∈ {x} : x = y", None, []),
    # SPC103 arity
    ("103-too-few", "B(P, N, S) == TRUE\nF == B(1, 2)", None, [("SPC103", "B(1, 2)")]),
    ("103-bare", "G(x) == x\nF == G", None, [("SPC103", "G")]),
    ("103-zero-ary", "G == 1\nF == G(1)", None, [("SPC103", "G(1)")]),
    ("103-builtin", "F == Max({1}, {2})", None, [("SPC103", "Max({1}, {2})")]),
    ("103-builtin-range", "F == Sum(1, 2, 3)", None, [("SPC103", "Sum(1, 2, 3)")]),
    ("103-builtin-bare", "F == Cardinality", None, [("SPC103", "Cardinality")]),
    ("103-constant", "F == Int(1)", None, [("SPC103", "Int(1)")]),
    ("103-ok", "G(x, y) == x\nF == G(1, 2) + Sum(LAMBDA t : t, {1})", None, []),
    # SPC104 duplicate definition
    ("104-module", "F == 1\nF == 2", None, [("SPC104", "F == 2")]),
    ("104-let", "F == LET G == 1\n G == 2 IN G", None, [("SPC104", "G == 2")]),
    ("104-distinct", "F == 1\nG == 2", None, []),
    # SPC105 name bound twice
    ("105-hides-param", "F(x) == ∃ x ∈ {1} : x = 1", None, [("SPC105", "x")]),
    ("105-repeated-param", "F(x, x) == x", None, [("SPC105", "x")]),
    ("105-repeated-lambda", "F == LAMBDA x, x : x", None, [("SPC106", "x"), ("SPC105", "x")]),
    (
        "105-hides-variable",
        "F == ∀ x ∈ {1} : ∃ x ∈ {2} : x = 2",
        None,
        [("SPC106", "x"), ("SPC105", "x")],
    ),
    ("105-domain-not-in-scope", "F == ∃ y ∈ {y ∈ {1} : y = 1} : TRUE", None, [("SPC106", "y")]),
    ("105-let-param", "F(x) == LET G(x) == x IN G(1)", None, [("SPC105", "x")]),
    # SPC106 unused bound variable
    ("106-exists", "F == ∃ x ∈ {1} : TRUE", None, [("SPC106", "x")]),
    ("106-filter", "F == {x ∈ {1} : TRUE}", None, [("SPC106", "x")]),
    ("106-map", "F == {1 : x ∈ {1}}", None, [("SPC106", "x")]),
    ("106-fn", "F == [x ∈ {1} ↦ 1]", None, [("SPC106", "x")]),
    ("106-lambda", "F == LAMBDA x : 1", None, [("SPC106", "x")]),
    ("106-used", "F == ∃ x ∈ {1} : x = 1", None, []),
    ("106-used-applied", "F == Sum(LAMBDA f : f, {LAMBDA x : x(1)})", None, []),
    ("106-param-exempt", "F(x) == 1", None, []),
    # SPC107 recursion
    ("107-self", "F(x) == F(x)", None, [("SPC107", "F(x)")]),
    ("107-mutual", "F == G\nG == F", None, [("SPC107", "G")]),
    ("107-let", "F == LET G == G IN G", None, [("SPC107", "G")]),
    ("107-not-a-cycle", "F == G + G\nG == H\nH == 1", None, []),
    # SPC201 type errors
    ("201-arith-string", 'F == 1 + "a"', None, [("SPC201", '"a"')]),
    ("201-filter-int", "F == {i ∈ {1} : 5}", None, [("SPC106", "i"), ("SPC201", "5")]),
    ("201-filter-sum", "F(x) == {i ∈ {1} : x + i}", None, [("SPC201", "x + i")]),
    ("201-eq-kinds", 'F == 1 = "a"', None, [("SPC201", '1 = "a"')]),
    ("201-in-int", "F == 1 ∈ 2", None, [("SPC201", "2")]),
    ("201-cup-int", "F == {1} ∪ 2", None, [("SPC201", "2")]),
    ("201-domain-int", "F == DOMAIN 1", None, [("SPC201", "1")]),
    ("201-not-int", "F == ¬ 1", None, [("SPC201", "1")]),
    ("201-and-string", 'F == TRUE ∧ "a"', None, [("SPC201", '"a"')]),
    ("201-if-cond", "F == IF 1 THEN 2 ELSE 3", None, [("SPC201", "1")]),
    ("201-case-guard", "F == CASE 1 -> 2 [] OTHER -> 3", None, [("SPC201", "1")]),
    ("201-quant-body", "F == ∀ x ∈ {1} : x + 1", None, [("SPC201", "x + 1")]),
    ("201-compare-bool", "F == TRUE < 2", None, [("SPC201", "TRUE")]),
    ("201-builtin-arg", "F == Cardinality(<<1>>)", None, [("SPC201", "<<1>>")]),
    ("201-def-kind", "F == G + 1\nG == TRUE", None, [("SPC201", "G")]),
    ("201-bound-int", "F == ∀ x ∈ Int : x ∧ TRUE", None, [("SPC201", "x")]),
    ("201-field-of-int", "F == 1 .. 2 = {} ∧ (3).a = 1", None, [("SPC201", "3")]),
    ("201-unknown-ok", 'F(x, r) == x + 1 > 0 ∧ r.a = "b" ∧ r[1] ∈ x', None, []),
    ("201-seq-vs-fn", "F == <<1>> = [x ∈ {1} ↦ x]", None, []),
    ("201-sum-lambda", "F == Sum(LAMBDA t : t, {1}) + Len(<<>>)", None, []),
    # SPC202 string never equal to an enum field
    ("202-exits", 'F(r) == r.Operator = "Exits"', VIEW, [("SPC202", '"Exits"')]),
    ("202-flipped", 'F(r) == "Exits" # r.Operator', VIEW, [("SPC202", '"Exits"')]),
    ("202-ok", 'F(r) == r.Operator = "Exists"', VIEW, []),
    ("202-no-schema", 'F(r) == r.Operator = "Exits"', None, []),
    ("202-not-enum", 'F(r) == r.Name = "Exits"', VIEW, []),
    # SPC203 unknown field
    ("203-kind", 'F(Pod) == Pod.kind = "Pod"', VIEW, [("SPC203", "Pod.kind")]),
    ("203-known", 'F(Pod) == Pod.Kind = "Pod"', VIEW, []),
    ("203-record-literal", "F == [kind ↦ 1].kind", VIEW, []),
    ("203-no-schema", "F(Pod) == Pod.kind", None, []),
    (
        "203-spelling",
        "F(x) == x.Key = 1 ∧ x.Key = 2 ∧ x.key = 3",
        None,
        [("SPC203", "x.key")],
    ),
    ("203-spelling-other-var", "F(x, y) == x.Key = y.key", None, []),
    ("203-spelling-literal", "F(x) == x.Key = x.key ∧ [key ↦ 1, Key ↦ 2] = x", None, []),
    # SPC204 unreachable CASE arm
    ("204-same-guard", "F(x) == CASE x = 1 -> 1 [] x = 1 -> 2", None, [("SPC204", "x = 1")]),
    ("204-false", "F == CASE FALSE -> 1 [] OTHER -> 2", None, [("SPC204", "FALSE")]),
    (
        "204-after-true",
        "F(x) == CASE TRUE -> 1 [] x = 1 -> 2 [] OTHER -> 3",
        None,
        [("SPC204", "x = 1"), ("SPC204", "3")],
    ),
    ("204-distinct", "F(x) == CASE x = 1 -> 1 [] x = 2 -> 2 [] OTHER -> 3", None, []),
]


@pytest.mark.parametrize(
    ("source", "schema", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_findings(source: str, schema: Schema | None, expected: list[tuple[str, str]]) -> None:
    assert findings(source, schema) == expected


MESSAGES: list[tuple[str, str, Schema | None, str]] = [
    (
        "101",
        "Match(x) == x\nF == Mach(1)",
        None,
        "undefined operator 'Mach' (did you mean 'Match'?)",
    ),
    ("102", "F == x", None, "free variable 'x' is not bound here"),
    (
        "102-initial",
        "F(Pod) == p",
        None,
        "free variable 'p' is not bound here (did you mean 'Pod'?)",
    ),
    ("102-initial-ambiguous", "F(Pod, Pair) == p", None, "free variable 'p' is not bound here"),
    (
        "102-False",
        "F == False",
        None,
        "free variable 'False' is not bound here (did you mean 'FALSE'?)",
    ),
    (
        "102-True",
        "F == True",
        None,
        "free variable 'True' is not bound here (did you mean 'TRUE'?)",
    ),
    (
        "102-underscore",
        "F(Node) == _Node",
        None,
        "free variable '_Node' is not bound here (did you mean 'Node'?)",
    ),
    (
        "102-case",
        "F == objects",
        VIEW,
        "free variable 'objects' is not bound here (did you mean 'Objects'?)",
    ),
    (
        "103-def",
        "BoundTo(Pod, Node, Snapshot) == TRUE\nF == BoundTo(1, 2)",
        None,
        "'BoundTo' takes 3 arguments (Pod, Node, Snapshot), given 2",
    ),
    ("103-bare", "G(x) == x\nF == G", None, "'G' takes 1 argument (x), used without any"),
    ("103-zero", "G == 1\nF == G(1)", None, "'G' takes no arguments, given 1"),
    ("103-builtin", "F == Max({1}, {2})", None, "'Max' takes 1 argument, given 2"),
    ("103-builtin-range", "F == Sum(1, 2, 3)", None, "'Sum' takes 1 to 2 arguments, given 3"),
    ("104", "F == 1\nF == 2", None, "duplicate definition 'F' (first at 1:1)"),
    ("105-hides", "F(x) == ∃ x ∈ {1} : x = 1", None, "'x' hides the parameter bound at 1:3"),
    ("105-repeated", "F(x, x) == x", None, "'x' is repeated in this parameter list"),
    ("106", "F == ∃ Other ∈ {1} : TRUE", None, "bound variable 'Other' is never used"),
    (
        "107",
        "F == G\nG == H\nH == F",
        None,
        "'F' is recursive (F → G → H → F); the backends do not support recursion",
    ),
    (
        "201-arith",
        'F == 1 + "a"',
        None,
        "the right operand of '+' must be an integer, got a string",
    ),
    (
        "201-filter",
        "F == {i ∈ {1} : i * 5}",
        None,
        "the predicate of {x ∈ S : P} must be a boolean, got an integer",
    ),
    ("201-eq", 'F == 1 = "a"', None, "'=' compares an integer with a string"),
    ("201-in", "F == 1 ∈ 2", None, "the right operand of '∈' must be a set, got an integer"),
    (
        "201-domain",
        'F == DOMAIN "a"',
        None,
        "the operand of DOMAIN must be a function, record or sequence, got a string",
    ),
    (
        "202",
        'F(r) == r.Operator = "Exits"',
        VIEW,
        '"Exits" can never equal field \'Operator\' (values in the test view: "DoesNotExist", '
        '"Exists", "In", "NotIn"); did you mean "Exists"?',
    ),
    (
        "203",
        "F(Pod) == Pod.kind",
        VIEW,
        "no record of the test view has a field 'kind' (did you mean 'Kind'?)",
    ),
    (
        "203-spelling",
        "F(x) == x.Key = x.key",
        None,
        "field 'key' of 'x' is spelt 'Key' on line 1 (did you mean 'Key'?)",
    ),
    (
        "204-same",
        "F(x) == CASE x -> 1 [] x -> 2",
        None,
        "unreachable CASE arm: same guard as at 1:14",
    ),
    ("204-false", "F == CASE FALSE -> 1", None, "unreachable CASE arm: its guard is FALSE"),
    (
        "204-other",
        "F == CASE TRUE -> 1 [] OTHER -> 2",
        None,
        "unreachable OTHER: the guard at 1:11 is TRUE",
    ),
]


@pytest.mark.parametrize(
    ("source", "schema", "message"), [m[1:] for m in MESSAGES], ids=[m[0] for m in MESSAGES]
)
def test_messages(source: str, schema: Schema | None, message: str) -> None:
    assert [d.message for d in run(source, schema).diagnostics] == [message]


def test_severities_codes_and_order() -> None:
    checked = run("F == y\nG == ∃ x ∈ {1} : TRUE\nH == Foo ∧ Bar(1)")
    assert [d.code for d in checked.diagnostics] == ["SPC102", "SPC106", "SPC102", "SPC101"]
    assert [d.code for d in checked.warnings] == ["SPC106"]
    assert len(checked.errors) == 3 and not checked.ok
    assert all(d.code in CODES for d in checked.diagnostics)
    assert all(
        (d.severity is Severity.WARNING) == (d.code in {"SPC106"}) for d in checked.diagnostics
    )
    assert run("F == 1").ok and run("F == ∃ x ∈ {1} : TRUE").ok


def test_schema_is_frozen_and_normalised() -> None:
    schema = Schema(fields={"a"}, enums={"a": {"x"}}, constants={"C"})  # type: ignore[arg-type, dict-item]
    assert schema.fields == frozenset({"a"}) and schema.enums["a"] == frozenset({"x"})
    with pytest.raises(TypeError):
        schema.enums["b"] = frozenset()  # type: ignore[index]


# -- exhaustive dispatch --------------------------------------------------------------------------

EVERY_NODE = r"""
All(r, f, S) ==
  ∧ ∀ x ∈ S : ∃ y ∈ {z ∈ S : z = x} : y = r.a
  ∧ {f[x] : x ∈ S} = DOMAIN [x ∈ S ↦ <<x, "s", TRUE>>]
  ∧ IF f(1) THEN Sum({1, 2}) > -1 ELSE CASE r.a = 1 -> TRUE [] OTHER -> FALSE
  ∧ LET g == LAMBDA v : v IN g(1) = [a ↦ 1]
"""


def sample_nodes() -> dict[type, A.Expr]:
    seen: dict[type, A.Expr] = {}

    def visit(node: object) -> None:
        if isinstance(node, tuple):
            for item in node:
                visit(item)
        elif hasattr(node, "__dataclass_fields__") and not isinstance(node, A.Span):
            if isinstance(node, A.EXPR_TYPES):
                seen.setdefault(type(node), node)  # type: ignore[arg-type]
            for name in node.__dataclass_fields__:
                visit(getattr(node, name))

    visit(parse(EVERY_NODE).definitions)
    return seen


@pytest.mark.parametrize("node_type", A.EXPR_TYPES, ids=lambda t: t.__name__)
def test_every_node_type_is_handled(node_type: type) -> None:
    node = sample_nodes()[node_type]
    body = A.Let((A.Definition("g", (A.Binder("v"),), A.Name("v")),), node)
    params = tuple(A.Binder(n) for n in ("r", "f", "S", "x", "y", "z"))
    check(A.Module(None, (A.Definition("T", params, body),)))


def test_unknown_node_is_loud() -> None:
    class Alien:
        span = A.NO_SPAN

    module = A.Module(None, (A.Definition("F", (), Alien()),))  # type: ignore[arg-type]
    with pytest.raises(UnsupportedNode, match="Alien"):
        check(module)


# -- the textbook spec ----------------------------------------------------------------------------


def textbook_schema() -> Schema:
    view = pytest.importorskip("schedspec.spec.kube.textbook_view")
    return Schema(view.FIELDS, view.ENUMS, frozenset({"Objects"}), "the textbook view")


def line_of(text: str, needle: str, nth: int = 0) -> int:
    """1-based line of the ``nth`` occurrence of ``needle`` outside the header comment."""
    body_start = text.index("*)\n\n") if "*)\n\n" in text else 0
    hits = [m.start() for m in re.finditer(re.escape(needle), text) if m.start() > body_start]
    return text.count("\n", 0, hits[nth]) + 1


def test_textbook_defects_are_found() -> None:
    text = TEXTBOOK.read_text()
    checked = check(parse(text, str(TEXTBOOK)), textbook_schema())
    found = {(d.code, d.span.line, under_caret(text, d.span)) for d in checked.diagnostics}
    messages = {(d.code, d.span.line): d.message for d in checked.diagnostics}
    expected = [
        ("SPC202", line_of(text, '"Exits"'), '"Exits"'),
        ("SPC102", line_of(text, "DOMAIN p.Spec"), "p"),
        ("SPC106", line_of(text, "∃ Other ∈"), "Other"),
        ("SPC103", line_of(text, "BoundTo(Pod, Node)"), "BoundTo(Pod, Node)"),
        ("SPC102", line_of(text, "= False"), "False"),
        ("SPC102", line_of(text, "_NodeSelectorRequirement."), "_NodeSelectorRequirement"),
        ("SPC102", line_of(text, "_LabelSelectorRequirement."), "_LabelSelectorRequirement"),
        ("SPC102", line_of(text, "∈ objects"), "objects"),
        ("SPC203", line_of(text, "Pod.kind"), "Pod.kind"),
        ("SPC203", line_of(text, "LabelSelectorRequirement.key"), "LabelSelectorRequirement.key"),
    ]
    assert [e for e in expected if e not in found] == []
    assert "(did you mean 'Pod'?)" in messages["SPC102", line_of(text, "DOMAIN p.Spec")]
    assert "(did you mean 'FALSE'?)" in messages["SPC102", line_of(text, "= False")]
    assert "(did you mean 'Objects'?)" in messages["SPC102", line_of(text, "∈ objects")]
    assert "(did you mean 'Kind'?)" in messages["SPC203", line_of(text, "Pod.kind")]
    assert 'did you mean "Exists"?' in messages["SPC202", line_of(text, '"Exits"')]
    assert (
        "(Pod, Node, Snapshot), given 2" in messages["SPC103", line_of(text, "BoundTo(Pod, Node)")]
    )
