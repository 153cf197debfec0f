"""Actions in the spec language: VARIABLES, primes, UNCHANGED; SPC301–SPC304 with line:col."""

from __future__ import annotations

import pytest

from schedspec.spec import ast as A
from schedspec.spec.check import check
from schedspec.spec.errors import SpecSyntaxError
from schedspec.spec.parse import parse
from schedspec.spec.printer import pretty

COUNTER = """\
---- MODULE counter ----
CONSTANTS Pods
VARIABLES x, at
Init == x = 0 /\\ at = [_p \\in Pods |-> "none"]
Inc == x < 3 /\\ x' = x + 1 /\\ UNCHANGED at
Put(p) == /\\ at[p] = "none"
          /\\ at' = [q \\in Pods |-> IF q = p THEN "here" ELSE at[q]]
          /\\ x' \\in {x, x + 10}
Next == Inc \\/ \\E p \\in Pods : Put(p)
Inv == x < 12
====
"""


def _codes(text: str) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.col) for d in check(parse(text, "t.tla")).diagnostics]


def test_declarations_primes_and_unchanged_parse() -> None:
    m = parse(COUNTER)
    assert [b.name for b in m.variables] == ["x", "at"]
    assert [b.name for b in m.constants] == ["Pods"]
    inc = next(d for d in m.definitions if d.name == "Inc").body
    assert isinstance(inc, A.Junction)
    assert inc.items[1] == A.Binary(
        A.BinOp.EQ, A.Name("x'"), A.Binary(A.BinOp.ADD, A.Name("x"), A.Num(1))
    )
    assert inc.items[2] == A.Binary(A.BinOp.EQ, A.Name("at'"), A.Name("at"))


def test_unchanged_tuple_is_a_conjunction() -> None:
    m = parse("VARIABLES a, b\nA == UNCHANGED <<a, b>>\n")
    same = [A.Binary(A.BinOp.EQ, A.Name(n + "'"), A.Name(n)) for n in ("a", "b")]
    assert m.definitions[0].body == A.Junction(A.JunctionOp.AND, tuple(same))


def test_a_clean_state_machine_checks_clean() -> None:
    assert _codes(COUNTER) == []


def test_printed_module_parses_back_equal() -> None:
    m = parse(COUNTER)
    again = parse(pretty(m))
    assert again == m
    assert again.variables == m.variables and again.constants == m.constants


BAD = """\
VARIABLES x, y
Init == x = 0
A(p) == /\\ x' = x + p
        /\\ p > 0
B == x' = 1 /\\ UNCHANGED y
C == IF x > 0 THEN x' = 1 /\\ y' = 2 ELSE x' = 2
Inv == x' >= 0
Next == (\\E p \\in {1, 2} : A(p)) \\/ B \\/ C \\/ z' = 1
"""


@pytest.mark.parametrize(
    ("code", "line", "col"),
    [
        ("SPC304", 2, 1),  # Init gives y no value
        ("SPC301", 3, 1),  # A leaves y unconstrained
        ("SPC301", 6, 1),  # C's ELSE branch leaves y unconstrained
        ("SPC302", 7, 8),  # a prime in an invariant
        ("SPC301", 8, 47),  # the bare disjunct z' = 1
        ("SPC303", 8, 47),  # z is not a variable
    ],
    ids=["init", "action", "if-branch", "prime-outside", "disjunct", "not-a-variable"],
)
def test_action_errors_have_stable_codes_and_positions(code: str, line: int, col: int) -> None:
    assert (code, line, col) in _codes(BAD)


def test_no_diagnostic_for_the_complete_action() -> None:
    assert not [c for c in _codes(BAD) if c[1] == 5]


def test_unused_underscore_binder_is_not_reported() -> None:
    assert _codes("F == [_p \\in {1} |-> 0]\nG == [p \\in {1} |-> 0]\n") == [("SPC106", 2, 7)]


@pytest.mark.parametrize("text", ["VARIABLES x\nA == x'' = 1\n", "VARIABLES\nA == 1\n"])
def test_malformed_declarations_and_primes_are_syntax_errors(text: str) -> None:
    with pytest.raises(SpecSyntaxError) as err:
        parse(text, "t.tla")
    assert err.value.diagnostics[0].code in {"SPC001", "SPC002"}
