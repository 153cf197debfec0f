"""Fuzzing the parser: whatever the text, only ``SpecError`` subclasses escape (never a lark or
Python error), and broken text gives a ``SpecSyntaxError``.

Two sources of input: strings derived from the grammar itself (``hypothesis.extra.lark``; tokens
glued together, or separated by spaces and newlines so that more of them parse), and the seed
``textbook.tla`` with random bytes deleted, inserted or replaced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from schedspec.spec import ast as A
from schedspec.spec.errors import SpecError, SpecSyntaxError
from schedspec.spec.parse import parse, parse_expr

GRAMMAR_TEXT = resources.files("schedspec.spec").joinpath("grammar/tla.lark").read_text("utf-8")
TEXTBOOK = (
    resources.files("schedspec.spec.kube").joinpath("textbook.tla").read_text("utf-8").encode()
)

# No post-lexer here: from_lark only reads the grammar's rules and terminals.
GRAMMAR = Lark(GRAMMAR_TEXT, parser="lalr", lexer="basic", start=["start", "expr_start"])

# The post-lexer's virtual tokens, spelled as the text that makes it produce them.
DECLARED = {
    "BULLET_AND": st.sampled_from(["/\\ ", "∧ ", "\n/\\ ", "\n  ∧ "]),
    "BULLET_OR": st.sampled_from(["\\/ ", "∨ ", "\n\\/ ", "\n  ∨ "]),
    "JL_END": st.sampled_from(["", "\n", "\n  "]),
}
_SEPARATORS = st.sampled_from([" ", " ", "\n", "\n  ", "\n    "])


def _separated(name: str, pattern: str) -> st.SearchStrategy[str]:
    """A terminal followed by white space (a line comment by a newline)."""
    token = st.from_regex(pattern, fullmatch=True)
    sep = st.just("\n") if name == "LINE_COMMENT" else _SEPARATORS
    return st.builds(lambda t, s: t + s, token, sep)


SPACED = {
    **{t.name: _separated(t.name, t.pattern.to_regexp()) for t in GRAMMAR.terminals},
    **DECLARED,
    "WS": _SEPARATORS,  # no tabs: a tab in indentation stops the parse before the grammar runs
}
# from_lark refuses explicit strategies for terminals its start symbol cannot reach.
SPACED_EXPR = {
    k: v
    for k, v in SPACED.items()
    if k not in {"DASHES", "FOOTER", "MODULE", "EXTENDS", "VARIABLES_KW", "CONSTANTS_KW"}
}

grammar_texts = st.one_of(
    from_lark(GRAMMAR, start="start", explicit=DECLARED),
    from_lark(GRAMMAR, start="start", explicit=SPACED),
)
grammar_exprs = st.one_of(
    from_lark(GRAMMAR, start="expr_start", explicit=DECLARED),
    from_lark(GRAMMAR, start="expr_start", explicit=SPACED_EXPR),
)

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
# Most grammar-derived expressions overrun Hypothesis's buffer (every atom may nest several more
# expressions), so each valid one costs ~0.3 s to find: fewer of them keep the file fast.
FUZZ_EXPRS = settings(FUZZ, max_examples=40)


def _parses_or_spec_error(parse_it: Callable[[], object]) -> None:
    """Run ``parse_it``; a ``SpecError`` is fine, anything else fails the test."""
    with contextlib.suppress(SpecError):
        parse_it()


@FUZZ
@given(text=grammar_texts)
def test_grammar_derived_modules(text: str) -> None:
    _parses_or_spec_error(lambda: parse(text, "fuzz.tla"))


@FUZZ_EXPRS
@given(text=grammar_exprs)
def test_grammar_derived_expressions(text: str) -> None:
    _parses_or_spec_error(lambda: parse_expr(text))


# ---- mutated seed --------------------------------------------------------------------------------

_MUTATION = st.tuples(
    st.sampled_from(["delete", "insert", "replace"]),
    st.integers(min_value=0, max_value=len(TEXTBOOK) - 1),
    st.binary(min_size=1, max_size=4),
)


def mutate(data: bytes, mutations: list[tuple[str, int, bytes]]) -> bytes:
    for kind, at, payload in mutations:
        at = min(at, len(data))
        if kind == "delete":
            data = data[:at] + data[at + len(payload) :]
        elif kind == "insert":
            data = data[:at] + payload + data[at:]
        else:
            data = data[:at] + payload + data[at + len(payload) :]
    return data


@FUZZ
@given(mutations=st.lists(_MUTATION, min_size=1, max_size=6))
def test_mutated_textbook(mutations: list[tuple[str, int, bytes]]) -> None:
    text = mutate(TEXTBOOK, mutations).decode("utf-8", errors="replace")
    try:
        module = parse(text, "textbook.tla")
    except SpecSyntaxError as err:
        assert err.diagnostics and all(d.code.startswith("SPC00") for d in err.diagnostics)
        assert str(err).startswith("textbook.tla:")
    else:
        assert isinstance(module, A.Module)


@pytest.mark.parametrize(
    "text",
    ["", "\n", "====", "---- MODULE m ----", "F ==", "/\\", "\\/\n\\/", "(*", '"', "\t/\\ a"],
    ids=["empty", "newline", "footer", "header", "no-body", "bullet", "bullets", "comment",
         "quote", "tab"],
)  # fmt: skip
def test_fragments(text: str) -> None:
    _parses_or_spec_error(lambda: parse(text))
    _parses_or_spec_error(lambda: parse_expr(text))
