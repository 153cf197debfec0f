"""Golden fixtures for parse errors: tests/golden/parse/<name>.tla and <name>.expected.

``<name>.expected`` is the exact ``str(SpecSyntaxError)`` (the rendered diagnostic: position,
code, message, the source line and a caret) for the file parsed under its path relative to the
repository root (``tests/golden/parse/<name>.tla``). Every fixture must fail to parse.

After changing a message on purpose, regenerate from the repository root with::

    python3 -m tests.spec.test_parse_golden --regen
    # or: SCHEDSPEC_REGEN=1 python3 -m pytest tests/spec/test_parse_golden.py -o addopts=""

and review the diff of the ``.expected`` files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schedspec.spec.errors import SpecSyntaxError
from schedspec.spec.parse import parse
from tests.golden import Golden

# lark's own names must never reach a user.
LARK_INTERNALS = ("__ANON", "$END", "RPAR", "LPAR", "IDENT", "Token(", "expected one of: ")


def rendered(fixture: Path) -> str:
    with pytest.raises(SpecSyntaxError) as info:
        parse(fixture.read_text("utf-8"), str(GOLDEN.folder / fixture.name))
    return str(info.value)


GOLDEN = Golden(Path("tests/golden/parse"), rendered)


@pytest.mark.parametrize("fixture", GOLDEN.fixtures, ids=lambda p: p.stem)
def test_golden(fixture: Path) -> None:
    GOLDEN.assert_matches(fixture)


@pytest.mark.parametrize("fixture", GOLDEN.fixtures, ids=lambda p: p.stem)
def test_message_reads_well(fixture: Path) -> None:
    text = rendered(fixture)
    assert [word for word in LARK_INTERNALS if word in text] == []
    assert text.startswith(f"{GOLDEN.folder / fixture.name}:")


def test_every_syntax_code_has_a_fixture() -> None:
    text = GOLDEN.expected_text()
    assert [c for c in ("SPC001", "SPC002", "SPC003", "SPC004") if f": {c} " not in text] == []


if __name__ == "__main__":
    GOLDEN.main("tests.spec.test_parse_golden")
