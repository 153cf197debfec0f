"""Golden fixtures for the checker: tests/golden/check/<name>.tla and <name>.expected.

``<name>.expected`` is the exact rendered output of every diagnostic (``Diagnostic.render`` with
the source, joined by newlines, sorted as :func:`check` sorts them), for the file parsed under its
path relative to the repository root (``tests/golden/check/<name>.tla``). A fixture containing the
line ``\\* schema: textbook`` is checked against the textbook view's schema (its FIELDS, ENUMS and
the constant ``Objects``); the others against none.

After changing a message or a rule on purpose, regenerate from the repository root with::

    python3 -m tests.spec.test_check_golden --regen
    # or: SCHEDSPEC_REGEN=1 python3 -m pytest tests/spec/test_check_golden.py -o addopts=""

and review the diff of the ``.expected`` files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schedspec.spec.check import Schema, check
from schedspec.spec.errors import render_all
from schedspec.spec.parse import parse
from tests.golden import Golden


def schema_for(source: str) -> Schema | None:
    if "\\* schema: textbook" not in source.splitlines():
        return None
    from schedspec.spec.kube.textbook_view import ENUMS, FIELDS

    return Schema(FIELDS, ENUMS, frozenset({"Objects"}), "the textbook view")


def rendered(fixture: Path) -> str:
    source = fixture.read_text("utf-8")
    checked = check(parse(source, str(GOLDEN.folder / fixture.name)), schema_for(source))
    return render_all(checked.diagnostics, source)


GOLDEN = Golden(Path("tests/golden/check"), rendered)


@pytest.mark.parametrize("fixture", GOLDEN.fixtures, ids=lambda p: p.stem)
def test_golden(fixture: Path) -> None:
    GOLDEN.assert_matches(fixture)


def test_every_code_has_a_fixture() -> None:
    text = GOLDEN.expected_text()
    codes = [f"SPC{n}" for n in (101, 102, 103, 104, 105, 106, 107, 201, 202, 203, 204)]
    assert [c for c in codes if f": {c} " not in text] == []


if __name__ == "__main__":
    GOLDEN.main("tests.spec.test_check_golden")
