"""The predicate-level checker: agreement where spec and impl agree, a precise disagreement where
impl is broken on purpose, declared differences carried with their id."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from schedspec import cluster
from schedspec.checker.differential import Checker, ClusterCheck
from schedspec.cluster import Cluster
from schedspec.impl.plugins import (
    default_preemption,
    image_locality,
    inter_pod_affinity,
    pod_topology_spread,
    taint_toleration,
)
from schedspec.impl.preemption import evaluator

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
    real_batch = image_locality.ImageLocality.score_nodes

    def off_by_one(self: object, state: object, pod: object, ni: object) -> tuple[int, object]:
        value, status = real(self, state, pod, ni)  # type: ignore[arg-type]
        return value + 1, status

    def batch_off_by_one(
        self: object, state: object, pod: object, nodes: object
    ) -> tuple[list[int], object]:  # the framework scores every node in one call (BatchScorer)
        values, status = real_batch(self, state, pod, nodes)  # type: ignore[arg-type]
        return [v + 1 for v in values], status

    monkeypatch.setattr(image_locality.ImageLocality, "score", off_by_one)
    monkeypatch.setattr(image_locality.ImageLocality, "score_nodes", batch_off_by_one)
    found = checker.check(cluster.loads(TAINTED)).undeclared
    assert {d.predicate for d in found} == {"ImageLocalityScore", "Viability"}
    assert {(d.node, d.spec, d.impl) for d in found if d.predicate == "ImageLocalityScore"} == {
        ("cpu-1", 0, 1)
    }


@pytest.mark.parametrize(
    ("module", "predicate"),
    [(pod_topology_spread, "SpreadOK"), (inter_pod_affinity, "InterPodAffinityOK")],
)
def test_a_pre_filter_computed_once_per_pod_is_still_judged_per_node(
    checker: Checker, monkeypatch: pytest.MonkeyPatch, module: object, predicate: str
) -> None:
    # fits_on's PreFilter state serves every node of a pod; broken, every node reports it
    def broken(*args: object) -> object:
        raise KeyError("topology.kubernetes.io/zone")

    monkeypatch.setattr(module, "_pre_filter_state", broken)
    found = [
        d for d in checker.check(cluster.loads(TAINTED)).undeclared if d.predicate == predicate
    ]
    assert sorted((d.node, d.spec) for d in found) == [("cpu-1", True), ("gpu-1", True)]
    assert {str(d.impl) for d in found} == {"error: KeyError: 'topology.kubernetes.io/zone'"}


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


PREEMPTION = ROOT / "examples/preemption.yaml"


def test_preemption_is_compared_per_candidate_node(checker: Checker) -> None:
    check = checker.check(cluster.load(PREEMPTION))
    assert check.undeclared == []
    table = check.agreement.table()["spec↔impl"]
    assert table["Victims"] == table["PreemptionCandidate"] == (3, 3)
    assert table["PreemptionNodes"] == table["EligibleToPreempt"] == (1, 1)


def test_a_victim_never_reprieved_is_caught(
    checker: Checker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """select_victims_on_node that forgets to put pods back when the preemptor still fits."""
    original = default_preemption._Victims.fits
    checked: list[default_preemption._Victims] = []  # kept alive: ids are not reused

    def no_reprieve(self: default_preemption._Victims) -> object:
        status = original(self)
        first = all(v is not self for v in checked)  # all lower-priority pods gone: honest
        checked.append(self)
        return status if first or status is not None else "still does not fit"

    monkeypatch.setattr(default_preemption._Victims, "fits", no_reprieve)
    found = checker.check(cluster.load(PREEMPTION)).undeclared
    victims = [d for d in found if d.predicate == "Victims"]
    assert victims and all(d.impl > d.spec for d in victims)  # impl evicts a superset


def test_a_broken_tie_break_is_caught_in_the_nodes_preemption_may_pick(
    checker: Checker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        evaluator.Evaluator, "select_candidate", lambda self, candidates: candidates[-1]
    )
    found = checker.check(cluster.load(PREEMPTION)).undeclared
    assert [d.predicate for d in found] == ["PreemptionNodes"]


TIED_VICTIMS = """
apiVersion: v1
kind: Node
metadata: {name: n0, labels: {kubernetes.io/hostname: n0}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "2"}}
---
apiVersion: v1
kind: Pod
metadata: {name: report, namespace: batch}
spec: {nodeName: n0, priority: 100, containers: [{name: c, image: busybox:1.36}]}
---
apiVersion: v1
kind: Pod
metadata: {name: cache, namespace: prod}
spec: {nodeName: n0, priority: 100, containers: [{name: c, image: redis:7}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: prod}
spec: {priority: 101, containers: [{name: c, image: nginx:1.27}]}
"""


def test_victims_that_tie_in_importance_are_a_declared_difference(checker: Checker) -> None:
    """One of two equal pods must go; which one is the cache's order (upstream too), and the
    spec, over sets, cannot know it: declared, with its id, only on that node."""
    check = checker.check(cluster.loads(TIED_VICTIMS))
    assert check.undeclared == []
    assert check.agreement.table()["spec↔impl"]["PreemptionCandidate"] == (1, 1)
    [d] = check.disagreements
    assert (d.predicate, d.declared) == ("Victims", "DefaultPreemption.tiedVictimOrder")
    assert (d.spec, d.impl) == (frozenset({"batch/report"}), frozenset({"prod/cache"}))


SHARED_HOST_PORT = """
apiVersion: v1
kind: Node
metadata: {name: n0, labels: {kubernetes.io/hostname: n0}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "2"}}
---
apiVersion: v1
kind: Pod
metadata: {name: dns, namespace: prod}
spec:
  nodeName: n0
  priority: 1
  containers:
  - {name: c, image: coredns:1.11, ports: [{containerPort: 53, hostPort: 53, protocol: UDP}]}
---
apiVersion: v1
kind: Pod
metadata: {name: old-dns, namespace: prod}
spec:
  nodeName: n0
  containers:
  - {name: c, image: coredns:1.10, ports: [{containerPort: 53, hostPort: 53, protocol: UDP}]}
---
apiVersion: v1
kind: Pod
metadata: {name: new-dns, namespace: prod}
spec:
  priority: 1
  containers:
  - {name: c, image: coredns:1.12, ports: [{containerPort: 53, hostPort: 53, protocol: UDP}]}
"""


def test_a_host_port_two_pods_hold_is_freed_by_one_removal_declared(checker: Checker) -> None:
    """Evicting old-dns frees UDP 53 in kube-scheduler's set of used ports although dns still
    holds it, so the node is a preemption candidate there (and in impl), not in the spec."""
    check = checker.check(cluster.loads(SHARED_HOST_PORT))
    assert check.undeclared == []
    found = {(d.predicate, d.spec, d.impl, d.declared) for d in check.disagreements}
    assert found == {
        ("PreemptionCandidate", False, True, "NodePorts.sharedHostPortRemoval"),
        ("PreemptionNodes", frozenset(), frozenset({"n0"}), "NodePorts.sharedHostPortRemoval"),
    }
