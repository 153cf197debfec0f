"""Trace validation of impl's queue against queue.tla (checker/queue_trace.py): a handful of
runs are explained step by step, and a tampered trace is not."""

from __future__ import annotations

import dataclasses

import pytest

from schedspec.checker.queue_trace import Observation, record_run, validate, validate_cluster
from schedspec.checker.queue_trace_campaign import machine_campaign, run_simulate
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


# one pod too big for the node: it fails, waits unschedulable, is released by the late node's
# NodeAdd and bound there
CLUSTER = from_objects([_node("small", "1"), _pod("big", "2"), _pod("tiny", "100m")])


def _run() -> list[Observation]:
    observations, skip = record_run(CLUSTER, idle_timeout=400, late_node_at=40)
    assert skip is None
    return observations


def test_a_run_through_unschedulable_and_a_node_add_is_explained() -> None:
    report = validate(_run(), ["small", "late-node"])
    assert report.skipped is None
    assert report.unexplained == []
    for action in ("Add", "Pop", "Fail", "ClusterEvent", "Assume", "BindSucceeded", "Tick"):
        assert report.actions[action] > 0, action


def _tamper(observations: list[Observation]) -> tuple[list[Observation], int]:
    """The first step after which "big" still sits in unschedulablePods, say it is in activeQ:
    a move with no event behind it."""
    for i in range(1, len(observations)):
        obs, before = observations[i], observations[i - 1].pods.get("default/big")
        big = obs.pods.get("default/big")
        waiting = before is not None and before["where"] == "unschedulable"
        if waiting and big is not None and big["where"] == "unschedulable":
            moved = {**obs.pods, "default/big": {**big, "where": "activeQ"}}
            observations[i] = dataclasses.replace(obs, pods=moved)
            return observations, i
    raise AssertionError("big never waited in unschedulablePods")


def test_a_pod_moved_from_unschedulable_to_active_without_an_event_is_unexplained() -> None:
    observations, index = _tamper(_run())
    report = validate(observations, ["small", "late-node"])
    assert len(report.unexplained) == 1
    step = report.unexplained[0]
    assert step.index == index
    assert 'where["default/big"]: "unschedulable" -> "activeQ"' in step.render()


@pytest.mark.parametrize("runs", [12])
def test_generated_runs_are_explained(runs: int) -> None:
    simulated = run_simulate(runs)
    machine = machine_campaign(runs, steps=10)
    for campaign in (simulated, machine):
        assert campaign.unexplained == []
        assert campaign.steps > 0
    assert machine.validated == machine.runs


def test_a_cluster_outside_the_universe_is_skipped() -> None:
    many = from_objects([_node("n", "1"), *(_pod(f"p{i}", "10m") for i in range(5))])
    assert validate_cluster(many).skipped == "pods"
