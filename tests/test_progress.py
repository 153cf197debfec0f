"""schedspec.progress: a bar on a terminal's stderr that never takes stdout's output."""

from __future__ import annotations

import io

import pytest

from schedspec.progress import bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_on_a_terminal_leaves_a_piped_stdout_its_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "160")
    with bar("mutants", 4, unit="mutants", label="survived") as shown:
        print("a witness")  # stdout is captured, not a terminal: it stays there
        shown.update(3, count=1)
        shown.note("found one")
    assert capsys.readouterr().out == "a witness\n"
    drawn = terminal.getvalue()
    assert "3/4" in drawn and "1 survived" in drawn and "found one" in drawn
    assert "mutants/s" in drawn and "a witness" not in drawn


def test_no_terminal_no_bar_but_notes_still_reach_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with bar("crosscheck", 10, label="differ") as shown:
        assert not shown.shown
        shown.update(5, count=2)
        shown.note("shard 3 found a counterexample")
    assert capsys.readouterr().err == "shard 3 found a counterexample\n"
