"""A small differential test on examples/*.yaml: the real scheduler's filter verdicts against the
spec (scheduler.tla, as ``schedspec explain --json`` reports them) and the operational scheduler
(``schedspec schedule --json``). Compared: the set of rejecting plugins per node, and which pods
end bound / pending / preempted. Not compared: reason texts (v1.34.2 says "node(s) had untolerated
taint(s)", the spec names the taint) and which of equal-priority pods wins (queue order differs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schedspec.checker.oracle import Oracle
from schedspec.cluster import Cluster, load, object_key
from schedspec.impl.simulate import simulate
from schedspec.spec.kube.why import explain_pod
from schedspec.spec.load import load_spec

pytestmark = pytest.mark.oracle

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))


def _rejections(answer: dict[str, Any]) -> dict[str, set[str]]:
    """node → every Filter plugin that rejects the pod there (the oracle, plugin by plugin)."""
    return {
        n["node"]: {f["plugin"] for f in n["filters"] if f["code"] not in ("Success", "Skip")}
        for n in answer["nodes"]
    }


def _spec_rejections(cluster: Cluster, pod: str) -> dict[str, set[str]]:
    why = explain_pod(load_spec("scheduler"), cluster, pod).as_json()
    return {name: {r["plugin"] for r in n["reasons"]} for name, n in why["nodes"].items()}


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_filter_verdicts_agree_with_the_spec(oracle: Oracle, example: Path) -> None:
    cluster = load(example)
    disagreements = []
    for pod in map(object_key, cluster.pending_pods()):
        real = _rejections(oracle.filter(cluster, pod))
        spec = _spec_rejections(cluster, pod)
        for node in real:
            if real[node] != spec.get(node):
                disagreements.append(
                    f"{example.name} {pod} on {node}: real {real[node]}, spec {spec.get(node)}"
                )
    assert disagreements == []


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_schedule_outcomes_agree_with_impl(oracle: Oracle, example: Path) -> None:
    """Which pods end bound, pending or preempted (not where: ties and queue order may differ)."""
    cluster = load(example)
    real = oracle.schedule(cluster, seed=0)
    impl = simulate(cluster, seed=0).as_json()
    outcome_real = (len(real["bindings"]), sorted(real["preempted"]), len(real["unschedulable"]))
    outcome_impl = (len(impl["bindings"]), sorted(impl["preempted"]), len(impl["unschedulable"]))
    assert outcome_real == outcome_impl
    assert real["quiescent"] is True
    for key, node in real["bindings"].items():
        if key in real["ties"]:
            assert node in real["ties"][key]
