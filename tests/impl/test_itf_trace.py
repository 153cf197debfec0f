"""`schedspec schedule --itf FILE`: a scheduling run as an ITF trace, one state per event, read
back with itf-py."""

from __future__ import annotations

import json
from pathlib import Path

import itf_py
import pytest

from schedspec.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "preemption.yaml"
PREEMPTOR = "prod/checkout-api-5d9c8b7f6e-v6z8n"
VICTIMS = ("batch/analytics-daily-exec-1", "batch/analytics-daily-exec-2")


def test_a_preemption_run_reads_back_state_by_state(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "run.itf.json"
    assert main(["schedule", str(EXAMPLE), "--itf", str(path), "--trace", str(tmp_path / "t")]) == 0
    capsys.readouterr()
    trace = itf_py.trace_from_json(json.loads(path.read_text("utf-8")))
    assert trace.vars == ["time_ms", "event", "queues", "bindings"]
    states = [s.values for s in trace.states]
    assert states[0]["event"].type == "start"
    assert all(v in states[0]["bindings"] for v in VICTIMS)
    assert PREEMPTOR not in states[0]["bindings"]
    kinds = [s["event"].type for s in states]
    # the preemptor fails, its victims leave, then it is scheduled and bound
    assert kinds.index("delete") > kinds.index("cycle")
    assert kinds[-2:] == ["cycle", "bind"]
    last = states[-1]
    assert last["bindings"][PREEMPTOR] == "ip-10-20-3-88.us-west-2.compute.internal"
    assert not any(v in last["bindings"] for v in VICTIMS)
    assert PREEMPTOR not in last["queues"]
    # the JSON-lines trace has as many records as the ITF trace has events
    assert len((tmp_path / "t").read_text("utf-8").splitlines()) == len(states) - 1
