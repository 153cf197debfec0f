"""A progress bar for long commands, drawn with ``rich`` on stderr when stderr is a terminal.

``bar(description, total)`` yields a :class:`Bar`; ``bar.update(done, **fields)`` moves it and
``bar.note(text)`` prints a line above it (a counterexample as it arrives). When stderr is not a
terminal — a pipe, a file, a test's captured output — or ``enabled`` is False, the bar draws
nothing and ``note`` writes plain lines to stderr; stdout (and so ``--json``) is never touched.
Beside the count it shows the rate in ``unit``/s, with ``label`` a second count (``count=`` in
``update``: clusters that differ, mutants that survived), the time spent and the ETA.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["Bar", "bar"]


class Bar:
    """A bar, or a stand-in that draws nothing (``progress`` is None)."""

    def __init__(self, progress: Any, task: Any) -> None:
        self._progress = progress
        self._task = task

    @property
    def shown(self) -> bool:
        return self._progress is not None

    def update(self, done: int, total: int | None = None, **fields: Any) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=done, total=total, **fields)

    def note(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False)
        else:
            sys.stderr.write(text if text.endswith("\n") else text + "\n")


def _columns(unit: str, label: str) -> list[Any]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task: Any) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.1f} {unit}/s" if speed else f"– {unit}/s")

    columns: list[Any] = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          Rate()]  # fmt: skip
    if label:
        columns.append(TextColumn("{task.fields[count]} " + label))
    return [*columns, TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()]


@contextlib.contextmanager
def bar(
    description: str,
    total: int | None,
    *,
    unit: str = "clusters",
    label: str = "",
    enabled: bool = True,
) -> Iterator[Bar]:
    """A bar on stderr while the block runs (``total`` None: it pulses, the count unknown)."""
    if not (enabled and sys.stderr.isatty()):
        yield Bar(None, None)
        return
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    # a print to stdout is drawn above the bar when both are the terminal, left alone otherwise
    # (redirected into stderr it would leave a pipe or file empty)
    redirect = sys.stdout.isatty()
    columns = _columns(unit, label)
    with Progress(
        *columns, console=console, speed_estimate_period=60, redirect_stdout=redirect,
        redirect_stderr=False,
    ) as progress:  # fmt: skip
        task = progress.add_task(description, total=total, count=0)
        yield Bar(progress, task)
