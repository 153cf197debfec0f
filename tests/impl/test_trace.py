"""``schedspec schedule --trace``: the JSON-lines records and what they show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedspec.cli import main
from schedspec.cluster import loads
from schedspec.impl.simulate import build
from schedspec.impl.trace import Tracer

ZONAL = str(Path(__file__).resolve().parents[2] / "examples" / "zonal-web.yaml")


def _node(name: str, cpu: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "10"}},
    }


def _pod(name: str, cpu: str) -> dict[str, Any]:
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [container]},
    }


def test_the_trace_file_has_one_record_per_move_cycle_and_bind(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    assert main(["schedule", ZONAL, "--seed", "3", "--json", "--trace", str(trace)]) == 0
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    kinds = {r["type"] for r in records}
    assert kinds == {"queue", "cycle", "bind"}
    cycles = [r for r in records if r["type"] == "cycle"]
    failed = [c for c in cycles if "unschedulable" in c["decision"]]
    report = next(c for c in failed if c["pod"] == "shop/report-nightly-29301120-7b8j6")
    assert report["decision"]["unschedulable"]["plugins"] == ["NodeResourcesFit", "TaintToleration"]
    # every node has a verdict of every Filter plugin; the taint is named where it rejects
    verdicts = report["filters"]
    assert len(verdicts) == 7
    assert any(
        v["TaintToleration"].startswith("UnschedulableAndUnresolvable: node(s) had untolerated")
        for v in verdicts.values()
    )
    scored = [c for c in cycles if c["scores"]]
    assert scored, "some pod had several feasible nodes"
    c = scored[0]
    node = c["decision"]["node"]
    assert c["totals"][node] == max(c["totals"].values())
    assert set(c["scores"][node]) >= {"NodeResourcesFit", "TaintToleration"}
    first = next(r for r in records if r["type"] == "queue")
    assert (
        first["from"] == "" and first["to"] == "activeQ" and first["event"] == "UnschedulablePodAdd"
    )


def test_trace_shows_which_event_moved_a_pod_and_that_a_useless_one_did_not() -> None:
    cluster = loads(yaml.safe_dump_all([_node("small", "1"), _pod("big", "4")]))
    scheduler = build(cluster)
    tracer = Tracer(scheduler.loop)
    scheduler.tracer = tracer
    scheduler.queue.on_move = tracer.queue_move
    scheduler.loop.run(until=1.0)
    api = scheduler.apiserver
    api.create("Node", _node("also-small", "2"))
    scheduler.loop.run(until=2.0)
    moves = [(r["from"], r["to"], r["event"]) for r in tracer.records if r["type"] == "queue"]
    assert moves[-1] == ("inFlight", "unschedulablePods", "ScheduleAttemptFailure")
    api.create("Node", _node("roomy", "8"))
    scheduler.run()
    moves = [(r["from"], r["to"], r["event"]) for r in tracer.records if r["type"] == "queue"]
    # the pod was still backing off (1 s), so the hint's Queue sent it to backoffQ
    assert ("unschedulablePods", "backoffQ", "NodeAdd") in moves
    assert scheduler.bindings == {"default/big": "roomy"}


def test_an_unwritable_trace_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "missing-dir" / "trace.jsonl"
    assert main(["schedule", ZONAL, "--trace", str(bad)]) == 2
    assert "cannot write the trace" in capsys.readouterr().err
