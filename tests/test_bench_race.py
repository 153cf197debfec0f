"""bench/race.py's workload builders: scheduler_perf's shapes, loadable, at the expected sizes,
and schedulable by impl (the live race itself: tests/live/test_race_live.py, -m apiserver)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from schedspec.cluster import from_objects


def _race() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "bench" / "race.py"
    spec = importlib.util.spec_from_file_location("bench_race", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_race"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


race = _race()
WORKLOADS = sorted(race.SHAPES)


@pytest.mark.parametrize("name", WORKLOADS)
def test_upstream_parameters_at_upstream_sizes(name: str) -> None:
    for nodes, init, measured in race.SHAPES[name].upstream:
        assert race.sizes(name, nodes) == (init, measured)


@pytest.mark.parametrize(
    ("name", "init", "measured"),
    [
        ("SchedulingBasic", 6, 12),
        ("SchedulingPodAntiAffinity", 1, 5),
        ("SchedulingPodAffinity", 6, 12),
        ("TopologySpreading", 12, 12),
        ("PreemptionBasic", 24, 6),
    ],
    ids=str,
)
def test_tiny_workload_loads_with_expected_counts(name: str, init: int, measured: int) -> None:
    load = race.workload(name, 6)
    cluster = from_objects(load.objects)
    assert len(cluster.nodes) == 6
    bound = [p for p in cluster.pods if p["spec"].get("nodeName")]
    pending = {f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in cluster.pods
               if not p["spec"].get("nodeName")}  # fmt: skip
    assert (len(bound), len(pending)) == (init, measured)
    assert pending == load.measured
    assert all(n["metadata"]["labels"]["kubernetes.io/hostname"] for n in cluster.nodes)


def test_pods_caps_the_measured_pods_and_keeps_capacity_bound_workloads_feasible() -> None:
    assert race.sizes("SchedulingBasic", 500, pods=50) == (500, 50)
    assert race.sizes("SchedulingPodAntiAffinity", 500, pods=1000) == (100, 400)
    assert race.sizes("PreemptionBasic", 500, pods=1000) == (2000, 500)


@pytest.mark.parametrize("name", WORKLOADS)
def test_impl_binds_every_measured_pod(name: str) -> None:
    load = race.workload(name, 6)
    figure = race.run_impl(load)
    assert figure.bound == len(load.measured)
    assert figure.rate > 0


def test_preemption_workload_preempts_and_priority_comes_from_its_class() -> None:
    cluster = from_objects(race.workload("PreemptionBasic", 3).objects)
    high = [p for p in cluster.pods if not p["spec"].get("nodeName")]
    assert {p["spec"]["priority"] for p in high} == {10}


def test_log_stamps_reads_bindings_and_preemptions_from_the_scheduler_log() -> None:
    lines = [
        'I1125 14:05:59.100000   13284 preemption.go:199] "Preemptor Pod preempted victim Pod"'
        ' preemptor="default/pod-0" victim="default/init-1" node="node-1"',
        'I1125 14:06:00.250000   13284 schedule_one.go:346] "Successfully bound pod to node"'
        ' pod="default/pod-0" node="node-1" evaluatedNodes=5 feasibleNodes=1',
        'I1125 14:06:00.750000   13284 schedule_one.go:346] "Successfully bound pod to node"'
        ' pod="default/init-9" node="node-1" evaluatedNodes=5 feasibleNodes=1',
        'E1125 14:06:01.000000   13284 x.go:1] "Successfully bound pod to node"'
        ' pod="default/pod-1"',
        "not a klog line",
    ]
    bound, first = race.log_stamps(lines, frozenset({"default/pod-0", "default/pod-1"}))
    assert bound == {"default/pod-0": 14 * 3600 + 6 * 60 + 0.25}
    assert first == 14 * 3600 + 5 * 60 + 59.1
