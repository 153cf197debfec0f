"""bench/mutation.py --hints: the queueing-hint mutants (out of the default killers' reach) are
the ones chosen, with the queue-trace killer (docs/mutation.md, "QueueingHints by trace
validation")."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from schedspec.checker.mutants import enumerate_mutants, load_killer
from schedspec.checker.mutants.running import queue_trace_killer


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "bench" / "mutation.py"
    spec = importlib.util.spec_from_file_location("bench_mutation", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_mutation"] = module
    spec.loader.exec_module(module)
    return module


def test_hints_lists_exactly_the_queueing_hint_mutants(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    assert bench.main(["--hints", "--list"]) == 0
    listed = capsys.readouterr().out.strip().splitlines()
    hints = [m for m in enumerate_mutants() if m.reach == bench.HINTS]
    assert len(listed) == len(hints) > 0
    assert all(line.startswith(m.describe()) for line, m in zip(listed, hints, strict=True))


def test_the_queue_trace_killer_is_built_in() -> None:
    assert load_killer("queue-trace") is queue_trace_killer
