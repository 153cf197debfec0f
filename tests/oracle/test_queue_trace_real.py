"""The real kube-scheduler's queue as a witness of queue.tla (checker/queue_trace_real.py): a
recorded real run in virtual time is explained step by step, and a tampered one is not."""

from __future__ import annotations

import dataclasses
import json
import time

import pytest

from schedspec.checker.oracle import Oracle
from schedspec.checker.queue_trace import Observation, validate
from schedspec.checker.queue_trace_real import record_real_run, validate_real_cluster
from schedspec.cli import main
from schedspec.cluster import from_objects


def _node(name: str, cpu: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "110"}},
    }


def _pod(name: str, cpu: str) -> dict[str, object]:
    container = {"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu}}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [container]}}  # fmt: skip


# "big" fits only the late roomy node (64 cpu); "huge" fits nowhere: only the 5-minute flush
# moves it
CLUSTER = from_objects(
    [_node("small", "1"), _pod("big", "2"), _pod("tiny", "100m"), _pod("huge", "100")]
)
LATE = "late-node"
NODES = ["small", LATE]


def _run(oracle: Oracle) -> tuple[list[Observation], dict[str, object]]:
    return record_real_run(oracle, CLUSTER, idle_timeout=400, late_node_at=40)


def test_a_real_run_past_the_five_minute_flush_is_explained(oracle: Oracle) -> None:
    started = time.monotonic()
    observations, answer = _run(oracle)
    wall = time.monotonic() - started
    assert answer["bindings"] == {"default/big": "late-node", "default/tiny": "small"}
    assert answer["queue"]["virtualSeconds"] > 300  # type: ignore[index]
    assert wall < 5  # virtual time: minutes of the queue's clock in (well under) seconds
    report = validate(observations, NODES)
    assert report.skipped is None
    assert report.unexplained == []
    for action in ("Add", "Pop", "Fail", "ClusterEvent", "Assume", "BindSucceeded", "Tick"):
        assert report.actions[action] > 0, action
    assert report.actions["FlushUnschedulablePodsLeftover"] > 0
    # the late node's NodeAdd moved big, but NodeResourcesFit's hint skipped huge (64 cpu do
    # not fit it): huge failed at 0 s and waited until the first flush past 300 s, at 330 s
    second = [o for o in observations if o.pods.get("default/huge", {}).get("attempts", 0) >= 2]
    assert second and second[0].t == 330


def _tamper(observations: list[Observation]) -> tuple[list[Observation], int]:
    """The first step after which "huge" still waits in unschedulablePods: say it is in
    activeQ, a move with no event behind it."""
    for i in range(1, len(observations)):
        before, huge = (
            observations[i - 1].pods.get("default/huge"),
            observations[i].pods.get("default/huge"),
        )
        if before and huge and before["where"] == huge["where"] == "unschedulable":
            moved = {**observations[i].pods, "default/huge": {**huge, "where": "activeQ"}}
            observations[i] = dataclasses.replace(observations[i], pods=moved)
            return observations, i
    raise AssertionError("huge never waited in unschedulablePods")


def test_a_tampered_real_observation_is_unexplained(oracle: Oracle) -> None:
    observations, index = _tamper(_run(oracle)[0])
    report = validate(observations, NODES)
    assert len(report.unexplained) == 1
    step = report.unexplained[0]
    assert step.index == index
    assert 'where["default/huge"]: "unschedulable" -> "activeQ"' in step.render()


def test_a_backoff_expiry_off_by_a_second_is_unexplained(oracle: Oracle) -> None:
    # the queue's own BackoffExpiration, once computed, is what is compared
    observations, _ = _run(oracle)
    for i, obs in enumerate(observations):
        huge = obs.pods.get("default/huge")
        if huge is not None and huge["backoffExpiry"] > 0:
            late = {**huge, "backoffExpiry": huge["backoffExpiry"] + 1}
            observations[i] = dataclasses.replace(obs, pods={**obs.pods, "default/huge": late})
            break
    report = validate(observations, NODES)
    assert len(report.unexplained) == 1
    assert "backoffExpiry" in report.unexplained[0].render()


def test_the_recorded_run_schedules_as_the_plain_one(oracle: Oracle) -> None:
    # recording (and the fake clock) changes nothing the scheduler decides at t = 0
    plain = oracle.schedule(CLUSTER, ties=False)
    recorded = oracle.schedule(CLUSTER, ties=False, record_queue={"idle": 10})
    assert recorded["bindings"] == plain["bindings"] == {"default/tiny": "small"}
    assert set(recorded["unschedulable"]) == set(plain["unschedulable"])
    assert validate_real_cluster(oracle, CLUSTER, idle_timeout=10).unexplained == []


def test_a_real_skip_that_hints_tla_would_queue_is_unexplained(oracle: Oracle) -> None:
    # the real NodeResourcesFit hint skipped huge on the late node's NodeAdd (64 cpu < 100);
    # say the node had 200 cpu: hints.tla then answers Queue, and huge staying put is unexplained
    observations, _ = _run(oracle)
    for i, obs in enumerate(observations):
        records = list(obs.records)
        for j, rec in enumerate(records):
            if (
                rec[0] == "deliver"
                and rec[1] == "NodeAdd"
                and rec[2].new["metadata"]["name"] == LATE
            ):
                d = rec[2]
                roomy = {**d.new, "status": {"allocatable": {"cpu": "200", "pods": "110"}}}
                records[j] = ("deliver", "NodeAdd", dataclasses.replace(d, new=roomy))
                observations[i] = dataclasses.replace(obs, records=tuple(records))
                break
        else:
            continue
        break
    else:
        raise AssertionError("the late node's NodeAdd was not delivered")
    assert validate(_run(oracle)[0], NODES).unexplained == []
    report = validate(observations, NODES)
    assert len(report.unexplained) == 1
    assert "NodeAdd" in report.unexplained[0].render()


def test_the_queue_seam_reports_both_witnesses(
    oracle: Oracle, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["crosscheck", "--seam", "queue", "--oracle", "kube", "--examples", "4", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(report) == {"impl", "real"}
    for witness in report.values():
        assert witness["runs"] == 4
        assert witness["validated"] > 0 and witness["steps"] > 0
        assert witness["unexplained"] == []
