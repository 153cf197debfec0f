"""``schedspec monitor`` against the real kube-scheduler v1.34.2 on a real control plane
(``python3 -m pytest -m apiserver tests/live/test_monitor_live.py``): the default scheduler on a
mixed workload breaks no rule; a scheduler whose profile lacks the TaintToleration filter,
judged against the default profile, is caught with a witness ``explain`` reproduces."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from live_objects import apply

from schedspec.checker.live_cluster import LiveCluster
from schedspec.cli import main

pytestmark = pytest.mark.apiserver

ROOT = Path(__file__).resolve().parents[2]
NO_TAINT_FILTER = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler",
                  "plugins": {"filter": {"disabled": [{"name": "TaintToleration"}]}}}],
}  # fmt: skip


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_monitor", ROOT / "bench" / "monitor.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_monitor"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_default_scheduler_on_a_mixed_workload_breaks_no_rule(live_binaries: None) -> None:
    bench = _bench()
    # 4 nodes (one tainted) of 4 CPUs: the waves fill them, so the high-priority pods preempt
    result = bench.run(4, 4, 30, seed=2)
    s = result.summary
    assert [(v.kind, v.pod, v.node, v.rule, v.reason) for v in s.violations] == []
    assert s.judged["binding"] >= 60
    assert s.judged["failure"] >= 1  # anti-affinity and the big pods leave some pending
    assert s.judged["preemption"] + s.judged["victim"] >= 1
    assert s.events["Preempted"] >= 1


def test_a_scheduler_without_the_taint_filter_is_caught_with_a_witness(
    live_cluster: LiveCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench()
    kubeconfig = str(live_cluster.kubeconfig("admin"))
    apply(live_cluster, [*bench.nodes(4), *bench.PRIORITY_CLASSES])
    live_cluster.start_scheduler(NO_TAINT_FILTER)
    out = tmp_path / "witnesses"
    monitor = subprocess.Popen(
        [sys.executable, "-m", "schedspec.cli", "monitor", "--kubeconfig", kubeconfig,
         "--duration", "25", "--json", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert monitor.stderr is not None
    assert monitor.stderr.readline().startswith("monitoring https://127.0.0.1:")  # it watches
    plain = [bench._pod(f"p-{i}", "plain", 100) for i in range(12)]
    apply(live_cluster, plain)
    stdout, stderr = monitor.communicate(timeout=120)
    assert monitor.returncode == 1, stderr
    report = json.loads(stdout)
    taints = [v for v in report["violations"] if v["rule"] == "Feasible"]
    assert taints, report
    assert {v["node"] for v in taints} == {"node-3"}  # the one tainted node
    assert all("TaintsOK" in v["reason"] for v in taints)
    assert report["judged"]["binding"] == 12
    # the witness: small, and explain gives the spec's verdict on it
    witness = report["witness_files"][report["violations"].index(taints[0])]
    assert main(["explain", witness, "--pod", taints[0]["pod"]]) == 0
    explained = capsys.readouterr().out
    assert "node-3  ✗ TaintToleration: node(s) had untolerated taint(s)" in explained
    assert len(taints[0]["objects"]) <= 3
