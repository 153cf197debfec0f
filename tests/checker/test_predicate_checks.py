"""The predicate-level checker: agreement where spec and impl agree, a precise disagreement where
impl is broken on purpose, declared differences carried with their id."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from schedspec import cluster
from schedspec.checker.differential import Checker, ClusterCheck
from schedspec.cluster import Cluster
from schedspec.impl.plugins import image_locality, taint_toleration

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "tests" / "spec" / "scenarios").rglob("*.yaml"))
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))

TAINTED = """
apiVersion: v1
kind: Node
metadata: {name: gpu-1, labels: {kubernetes.io/hostname: gpu-1}}
spec:
  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: cpu-1, labels: {kubernetes.io/hostname: cpu-1}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers:
  - name: web
    image: nginx:1.27
    resources: {requests: {cpu: 500m, memory: 256Mi}}
"""


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker()


def _scenario(path: Path) -> Cluster:
    return cluster.loads(yaml.safe_load(path.read_text())["objects"], source=str(path))


def test_every_hand_checked_scenario_and_example_agrees(checker: Checker) -> None:
    total = ClusterCheck()
    for path in SCENARIOS:
        total.merge(checker.check(_scenario(path)))
    for path in EXAMPLES:
        total.merge(checker.check(cluster.load(path)))
    assert [d.describe() for d in total.undeclared] == []
    # every seam point was exercised by these clusters
    assert {"TaintsOK", "FitOK", "SpreadOK", "NodeStatus", "Viability", "Best"} <= set(
        total.checked
    )
    assert total.checked["Feasible"] > 300


def test_a_broken_filter_function_is_caught_with_both_verdicts(
    checker: Checker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(taint_toleration, "fits", lambda pod, node: True)
    found = checker.check(cluster.loads(TAINTED)).undeclared
    assert [d.describe() for d in found] == [
        "TaintsOK(default/web on gpu-1): spec FALSE, impl TRUE"
    ]


def test_a_broken_plugin_is_caught_at_the_framework_level(
    checker: Checker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(taint_toleration.TaintToleration, "filter", lambda self, s, p, ni: None)
    found = {
        (d.predicate, d.node, d.spec, d.impl)
        for d in checker.check(cluster.loads(TAINTED)).undeclared
    }
    assert ("NodeStatus", "gpu-1", "UnschedulableAndUnresolvable", "Success") in found
    assert ("Feasible", "gpu-1", False, True) in found
    # the decision too: the pod may land on the tainted node as well
    assert ("Decision", None, frozenset({"cpu-1"}), frozenset({"cpu-1", "gpu-1"})) in found


def test_agreement_is_tallied_per_comparison(
    checker: Checker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(taint_toleration, "fits", lambda pod, node: True)
    check = checker.check(cluster.loads(TAINTED))
    table = check.agreement.table()
    assert list(table) == ["spec↔impl"]  # no oracle: no real scheduler to agree with
    assert table["spec↔impl"]["TaintsOK"] == (1, 2)
    assert table["spec↔impl"]["FitOK"] == (2, 2)
    assert {p: n for p, (_, n) in table["spec↔impl"].items()} == {
        p: n for p, n in check.checked.items() if p != "Pending"
    }


def test_a_broken_score_is_caught_per_node(
    checker: Checker, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = image_locality.ImageLocality.score

    def off_by_one(self: object, state: object, pod: object, ni: object) -> tuple[int, object]:
        value, status = real(self, state, pod, ni)  # type: ignore[arg-type]
        return value + 1, status

    monkeypatch.setattr(image_locality.ImageLocality, "score", off_by_one)
    found = checker.check(cluster.loads(TAINTED)).undeclared
    assert {d.predicate for d in found} == {"ImageLocalityScore", "Viability"}
    assert {(d.node, d.spec, d.impl) for d in found if d.predicate == "ImageLocalityScore"} == {
        ("cpu-1", 0, 1)
    }


def test_a_declared_difference_carries_its_id(checker: Checker) -> None:
    path = ROOT / "tests/spec/scenarios/fit/resized-pod-counts-allocated-resources.yaml"
    result = checker.check(_scenario(path))
    assert result.undeclared == []
    assert {d.declared for d in result.disagreements} == {"NodeResourcesFit.statusResources"}
    assert {d.predicate for d in result.disagreements} >= {"FitOK", "Feasible"}


def test_the_textbook_as_written_disagrees_with_impl() -> None:
    found = Checker("textbook").check(cluster.load(ROOT / "examples/zonal-web.yaml")).undeclared
    by_rule = {d.predicate for d in found}
    assert {"FilterLifecycle", "Resources", "Filter"} <= by_rule
    assert any("'p' is not bound" in str(d.spec) for d in found if d.predicate == "Resources")
