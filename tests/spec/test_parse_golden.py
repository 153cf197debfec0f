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

import os
import sys
from pathlib import Path

import pytest

from schedspec.spec.errors import SpecSyntaxError
from schedspec.spec.parse import parse

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path("tests/golden/parse")
FIXTURES = sorted((ROOT / GOLDEN).glob("*.tla"))
REGEN = os.environ.get("SCHEDSPEC_REGEN") == "1"
# lark's own names must never reach a user.
LARK_INTERNALS = ("__ANON", "$END", "RPAR", "LPAR", "IDENT", "Token(", "expected one of: ")


def rendered(fixture: Path) -> str:
    with pytest.raises(SpecSyntaxError) as info:
        parse(fixture.read_text("utf-8"), str(GOLDEN / fixture.name))
    return str(info.value)


def expected_path(fixture: Path) -> Path:
    return fixture.with_suffix(".expected")


def regenerate() -> None:
    for fixture in FIXTURES:
        expected_path(fixture).write_text(rendered(fixture) + "\n", "utf-8")
        print(f"wrote {expected_path(fixture).relative_to(ROOT)}")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_golden(fixture: Path) -> None:
    if REGEN:
        expected_path(fixture).write_text(rendered(fixture) + "\n", "utf-8")
    assert rendered(fixture) == expected_path(fixture).read_text("utf-8").rstrip("\n")


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_message_reads_well(fixture: Path) -> None:
    text = rendered(fixture)
    assert [word for word in LARK_INTERNALS if word in text] == []
    assert text.startswith(f"{GOLDEN / fixture.name}:")


def test_every_syntax_code_has_a_fixture() -> None:
    text = "\n".join(p.read_text("utf-8") for p in (ROOT / GOLDEN).glob("*.expected"))
    assert [c for c in ("SPC001", "SPC002", "SPC003", "SPC004") if f": {c} " not in text] == []


if __name__ == "__main__":
    if sys.argv[1:] != ["--regen"]:
        sys.exit("usage: python3 -m tests.spec.test_parse_golden --regen")
    regenerate()
