"""The queue pictures (checker/queue_picture.py): a trace replayed into places step by step,
and the PNG the docs use drawn from a trace file."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedspec.checker import queue_picture
from schedspec.cli import main as schedspec

ROOT = Path(__file__).resolve().parents[2]
LATE = ROOT / "examples" / "scripted"


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("trace") / "t.jsonl"
    argv = ["schedule", str(LATE / "late-node.yaml"), "--events",
            str(LATE / "late-node.events.yaml"), "--trace", str(path)]  # fmt: skip
    assert schedspec(argv) == 0
    return path


def test_the_late_node_run_step_by_step(trace: Path) -> None:
    steps = queue_picture.places(queue_picture.read(trace))
    pod1 = [(s.t, s.where.get("default/pod1")) for s in steps]
    # parked at 0 s, released by the NodeAdd at 30 s, popped, bound; never anywhere else
    assert [p for i, (_, p) in enumerate(pod1) if i == 0 or p != pod1[i - 1][1]] == [
        "activeQ", "inFlight", "unschedulablePods", "activeQ", "inFlight", "bound",
    ]  # fmt: skip
    assert next(t for t, p in pod1 if p == "bound") == 30.0
    assert steps[-1].where == {"default/pod1": "bound", "default/pod2": "unschedulablePods"}
    assert steps[-1].what == "default/pod1: bound on node10"


def test_the_timeline_png(trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "timeline.png"
    assert queue_picture.main([str(trace), "-o", str(out), "--mark", "30"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "steps, 2 pods" in capsys.readouterr().out
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert queue_picture.main([str(empty), "-o", str(tmp_path / "x.png")]) == 2
