"""Counterexamples of queue trace validation as files (checker/queue_counterexample.py): with a
deliberately broken impl, the written cluster + event script reproduce the unexplained step
through ``schedspec schedule`` and through the directory replay; with impl as it is, nothing is
found on the same cluster."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path
from typing import Any

import itf_py
import pytest
from hypothesis import strategies as st

from schedspec.checker import queue_counterexample as qc
from schedspec.checker import queue_counterexample_cli as cli
from schedspec.cli import main
from schedspec.impl.queue.scheduling_queue import QueueingStrategy, SchedulingQueue


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}  # fmt: skip


def _pod(name: str, **spec: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "app:1", "resources": {"requests": {"cpu": "100m"}}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [container], **spec}}  # fmt: skip


# picky's nodeSelector matches no node: NodeAffinity parks it; web is bound after it, an
# AssignedPodAdd NodeAffinity never registered
OBJECTS = [_node("n1"), _pod("picky", nodeSelector={"disk": "ssd"}), _pod("web")]


def _every_event_requeues(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutant of docs/queue.md "Teeth": hints ignoring EventsToRegister."""
    monkeypatch.setattr(
        SchedulingQueue,
        "is_pod_worth_requeuing",
        lambda self, qpi, event, old, new: QueueingStrategy.AFTER_BACKOFF,
    )


def test_impl_as_it_is_gives_no_counterexample() -> None:
    assert qc.find("simulate", 1, objects=st.just(OBJECTS)) is None


def test_a_broken_hint_is_written_as_files_that_reproduce_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _every_event_requeues(monkeypatch)
    found = qc.find("simulate", 1, objects=st.just(OBJECTS))
    assert found is not None
    step = found.step
    moves = [r for r in step.records if r[0] == "move"]
    assert ("move", "default/picky", "unschedulablePods", "backoffQ", "AssignedPodAdd") in moves
    assert found.until == step.t  # cut at the step: the late node never comes
    qc.write(found, tmp_path)

    # through the command line, as README.txt says
    readme = (tmp_path / "README.txt").read_text()
    (cmd,) = [line.strip() for line in readme.splitlines() if "schedspec schedule" in line]
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(cmd)[1:]) == 0
    capsys.readouterr()
    trace = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    moved = [(r["t"], r["event"]) for r in trace if r["type"] == "queue" and r["pod"] ==
             "default/picky" and r["from"] == "unschedulablePods"]  # fmt: skip
    assert moved[-1] == (step.t, "AssignedPodAdd")

    # the directory replayed names the same step
    assert cli.main(["replay", str(tmp_path)]) == 1
    assert 'where["default/picky"]: "unschedulable" -> "backoffQ"' in capsys.readouterr().out

    # the ITF trace ends in that step, and only its last state is unexplained
    doc = json.loads((tmp_path / "counterexample.itf.json").read_text())
    flags = [s["unexplained"] for s in doc["states"]]
    assert flags[-1] and not any(flags[:-1])
    last = itf_py.trace_from_json(doc).states[-1].values  # what Apalache/Quint tools read
    assert last["where"]["default/picky"] == "backoffQ"
    assert last["rejecting"]["default/picky"] == {"NodeAffinity": True}
    assert doc["states"][0]["now"] == 0 and len(doc["states"]) > 3


def test_the_replay_of_a_fixed_run_says_it_is_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _every_event_requeues(monkeypatch)
    found = qc.find("simulate", 1, objects=st.just(OBJECTS))
    assert found is not None
    qc.write(found, tmp_path)
    monkeypatch.undo()  # impl fixed
    assert cli.main(["replay", str(tmp_path)]) == 0
    assert "every step is explained" in capsys.readouterr().out


@pytest.mark.campaign
def test_the_machine_search_shrinks_a_backoff_capped_at_5s(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from schedspec.impl.queue import backoff_queue

    real = backoff_queue.backoff_duration
    monkeypatch.setattr(
        backoff_queue, "backoff_duration", lambda n, initial, cap: real(n, initial, min(cap, 5.0))
    )
    found = qc.find("machine", 200, steps=12)
    assert found is not None
    qc.write(found, tmp_path)
    _, report = qc.replay_dir(tmp_path)
    assert report.unexplained and report.unexplained[0].render() == found.step.render()


def test_the_campaigns_out_flag_writes_the_shrunk_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``python3 -m schedspec.checker.queue_trace --out DIR``: a campaign with an unexplained
    step (here stood in for) gets its kind's search written under DIR/simulate."""
    from schedspec.checker import queue_trace_campaign as campaign
    from schedspec.checker.queue_trace import RunReport

    _every_event_requeues(monkeypatch)
    failing = campaign.Campaign(runs=1, unexplained=[("a drawn cluster", RunReport())])
    monkeypatch.setattr(campaign, "run_simulate", lambda runs, seed: failing)
    real_find = qc.find
    monkeypatch.setattr(qc, "find", lambda kind, runs, seed, steps: real_find(
        kind, runs, seed, steps, objects=st.just(OBJECTS)))  # fmt: skip
    printed = io.StringIO()
    assert campaign.main(["--runs", "1", "--out", str(tmp_path)], printed) == 1
    assert f"simulate: shrunk counterexample in {tmp_path}/simulate/" in printed.getvalue()
    assert cli.main(["replay", str(tmp_path / "simulate")]) == 1
