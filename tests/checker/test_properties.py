"""Decision-level properties (checker/properties.py) on real scheduling runs: generated clusters
must raise none, and deliberately wrong schedulers must be caught."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedspec.checker.properties import (
    DecisionRecorder,
    PropertyReport,
    check_decision,
    record_run,
    run_properties,
)
from schedspec.checker.strategies import clusters as shared_clusters
from schedspec.cluster import Cluster, from_objects
from schedspec.impl.framework import Code, Status
from schedspec.impl.framework.nominator import Nominator
from schedspec.impl.framework.registry import Registry
from schedspec.impl.plugins import in_tree_registry, node_resources_fit, taint_toleration
from schedspec.impl.plugins.default_preemption import DefaultPreemption
from schedspec.impl.preemption.evaluator import Evaluator
from schedspec.impl.simulate import build
from schedspec.spec.load import LoadedSpec, load_spec


@pytest.fixture(scope="module")
def spec() -> LoadedSpec:
    return load_spec("scheduler")


# ----------------------------------------------------------------------------- small manifests


def node(name: str, cpu: str = "2", pods: str = "10", **extra: Any) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, **extra.pop("labels", {})}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": extra.pop("spec", {}),
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": pods}},
    }


def pod(name: str, cpu: str = "1", node_name: str = "", **spec: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu}}}
    body: dict[str, Any] = {"containers": [container], **spec}
    if node_name:
        body["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body}


TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
TOLERATE = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}


# ------------------------------------------------------------- clusters that make it preempt


@st.composite
def preemption_clusters(draw: st.DrawFn) -> Cluster:
    """Full nodes of low-priority bound pods (some under a PDB), more important pending pods,
    some already nominated: what ``checker.strategies`` rarely draws (preemption, two passes)."""
    n_nodes = draw(st.integers(1, 4))
    objects: list[dict[str, Any]] = []
    for i in range(n_nodes):
        labels = {"zone": draw(st.sampled_from(["a", "b"]))}
        extra: dict[str, Any] = {"labels": labels}
        if i and draw(st.integers(0, 3)) == 0:
            extra["spec"] = {"taints": [TAINT]}
        objects.append(node(f"n{i}", cpu=draw(st.sampled_from(["1", "2"])), **extra))
        for j in range(draw(st.integers(0, 3))):
            victim = pod(
                f"low-{i}-{j}",
                cpu=draw(st.sampled_from(["250m", "500m", "1"])),
                node_name=f"n{i}",
                priority=draw(st.sampled_from([0, 10])),
            )
            victim["metadata"]["labels"] = {"app": draw(st.sampled_from(["web", "db"]))}
            objects.append(victim)
    if draw(st.booleans()):
        budget = {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 0}
        pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget"}
        objects.append({**pdb, "metadata": {"name": "web"}, "spec": budget})
    for i in range(draw(st.integers(1, 3))):
        spec: dict[str, Any] = {"priority": draw(st.sampled_from([10, 100]))}
        if draw(st.booleans()):
            spec["tolerations"] = [TOLERATE]
        if draw(st.integers(0, 3)) == 0:
            term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}
            spec["affinity"] = {
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
            }
        manifest = pod(f"hi-{i}", cpu=draw(st.sampled_from(["500m", "1", "2"])), **spec)
        if draw(st.integers(0, 3)) == 0:
            manifest["status"] = {"nominatedNodeName": f"n{draw(st.integers(0, n_nodes - 1))}"}
        objects.append(manifest)
    return from_objects(objects)


def clusters() -> st.SearchStrategy[Cluster]:
    """The shared strategies (checker/strategies/), and now and then a preemption cluster."""
    return st.one_of(shared_clusters(max_nodes=4, max_pods=6), preemption_clusters())


# ------------------------------------------------------------------------------ the properties


def judge(cluster: Cluster, spec: LoadedSpec, **kw: Any) -> PropertyReport:
    return run_properties(cluster, spec=spec, **kw)


def test_examples_decide_as_the_spec_allows(spec: LoadedSpec) -> None:
    from schedspec.cluster import load

    report = PropertyReport()
    for name in ("gpu-pool", "kube-system", "preemption", "zonal-web"):
        report.merge(judge(load(f"examples/{name}.yaml"), spec))
    assert report.violations == []
    # every property had something to judge, preemption included
    assert {"feasible", "best", "unschedulable", "preemption"} <= set(report.checked)


def test_a_cycle_sees_the_services_its_default_spread_selects_by(spec: LoadedSpec) -> None:
    # web-1 has no constraints of its own; the Service selecting it gives it the system default
    # spread, which outweighs n-b's lighter load (LeastAllocated) and sends it to n-a, away from
    # web-0. Judged on a snapshot without the Service the spec would find n-b best.
    web = {"app": "web"}
    objects = [
        node("n-a", cpu="4"),
        node("n-b", cpu="4"),
        pod("other", cpu="300m", node_name="n-a"),
        {**pod("web-0", cpu="0", node_name="n-b"), "metadata": {"name": "web-0", "labels": web}},
        {**pod("web-1", cpu="0"), "metadata": {"name": "web-1", "labels": web}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
         "spec": {"selector": web}},
    ]  # fmt: skip
    cluster = from_objects(objects)
    assert [(d.pod, d.host) for d in record_run(cluster)] == [("default/web-1", "n-a")]
    report = judge(cluster, spec)
    assert report.checked["best"] == 1
    assert report.violations == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster=clusters(), seed=st.integers(0, 3))
def test_generated_clusters_decide_as_the_spec_allows(
    cluster: Cluster, seed: int, spec: LoadedSpec
) -> None:
    report = judge(cluster, spec, seed=seed)
    assert report.undeclared == [], "\n".join(v.describe() for v in report.undeclared)


@pytest.mark.campaign
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster=clusters(), seed=st.integers(0, 1000))
def test_campaign_generated_clusters_decide_as_the_spec_allows(
    cluster: Cluster, seed: int, spec: LoadedSpec
) -> None:
    report = judge(cluster, spec, seed=seed)
    assert report.undeclared == [], "\n".join(v.describe() for v in report.undeclared)


def test_a_run_records_the_snapshot_each_cycle_saw() -> None:
    # p0 takes the only room on n0; p1 (same request) then sees p0 assumed there
    cluster = from_objects([node("n0", cpu="1"), pod("p0"), pod("p1")])
    decisions = record_run(cluster)
    assert [(d.pod, d.host, d.unschedulable) for d in decisions[:2]] == [
        ("default/p0", "n0", False),
        ("default/p1", "", True),
    ]
    second = decisions[1].cluster
    assert [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in second.pods] == [
        ("p0", "n0"),
        ("p1", None),
    ]


def test_the_two_pass_rule_is_judged_on_a_host_with_nominated_pods(spec: LoadedSpec) -> None:
    # hi is nominated to n0; lo, of the same priority and queued first, is scheduled before
    # it and fits beside it: both passes. (A *gated* pod's nomination would reserve nothing:
    # the queue records nominations only for pods that pass PreEnqueue.)
    nominated = pod("hi", cpu="1", priority=100)
    nominated["status"] = {"nominatedNodeName": "n0"}
    cluster = from_objects([node("n0", cpu="2"), pod("lo", cpu="1", priority=100), nominated])
    report = judge(cluster, spec)
    assert report.violations == []
    assert report.checked["two_pass"] >= 1


# ------------------------------------------------------------------ teeth: wrong schedulers


class _TolerateAll(taint_toleration.TaintToleration):
    def filter(self, state: Any, pod: Any, node_info: Any) -> None:
        return None


class _NoFit(node_resources_fit.NodeResourcesFit):
    def filter(self, state: Any, pod: Any, node_info: Any) -> None:
        return None


def wrong(name: str, cls: Any) -> Registry:
    registry = in_tree_registry()
    original = registry[name]

    def factory(args: Mapping[str, Any], handle: Any) -> Any:
        plugin = original(args, handle)
        plugin.__class__ = cls
        return plugin

    registry[name] = factory
    return registry


def test_a_scheduler_ignoring_taints_is_caught(spec: LoadedSpec) -> None:
    cluster = from_objects([node("tainted", spec={"taints": [TAINT]}), pod("web")])
    assert judge(cluster, spec).violations == []  # the real one leaves it pending
    report = judge(cluster, spec, registry=wrong(taint_toleration.NAME, _TolerateAll))
    assert [(v.property, v.pod, v.node) for v in report.undeclared] == [
        ("feasible", "default/web", "tainted"),
    ]
    assert "UnschedulableAndUnresolvable" in report.violations[0].detail
    assert report.skipped["best: host not Feasible"] == 1


def test_a_scheduler_ignoring_resources_is_caught_preempting_too_much(spec: LoadedSpec) -> None:
    # hi needs 2 cpu on n0 where lo0 and lo1 use 1 each: without NodeResourcesFit it fits at
    # once (feasible is violated); with it, preemption evicts both, as the spec requires
    cluster = from_objects(
        [
            node("n0", cpu="2"),
            pod("lo0", node_name="n0"),
            pod("lo1", node_name="n0"),
            pod("hi", cpu="2", priority=100),
        ]
    )
    report = judge(cluster, spec)
    assert report.violations == [] and report.checked["preemption"] == 1
    bad = judge(cluster, spec, registry=wrong(node_resources_fit.NAME, _NoFit))
    assert ("feasible", "default/hi", "n0") in [(v.property, v.pod, v.node) for v in bad.undeclared]


def test_a_scheduler_that_never_preempts_is_caught(
    spec: LoadedSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hi fits on n0 once lo0 and lo1 are gone: a dry run that finds no victims leaves hi
    # pending, and an unschedulable verdict alone (no node is Feasible) cannot see that
    cluster = from_objects(
        [
            node("n0", cpu="2"),
            pod("lo0", node_name="n0"),
            pod("lo1", node_name="n0", priority=10),  # not tied with lo0: no declared difference
            pod("hi", cpu="2", priority=100),
            pod("never", cpu="2", priority=100, preemptionPolicy="Never"),
        ]
    )
    assert judge(cluster, spec).violations == []

    def no_victims(self: object, *args: object) -> tuple[list[object], int, Status]:
        return [], 0, Status(Code.UNSCHEDULABLE, ("no victims",))

    monkeypatch.setattr(DefaultPreemption, "select_victims_on_node", no_victims)
    report = judge(cluster, spec)
    assert [(v.property, v.pod) for v in report.undeclared] == [("no_preemption", "default/hi")]
    assert "PreemptionNodes is ['n0']" in report.undeclared[0].detail
    assert report.skipped["no_preemption: not EligibleToPreempt"] >= 1  # never's policy


def test_a_wrong_preemption_victim_set_is_caught(spec: LoadedSpec) -> None:
    # evicting lo0 alone makes room for hi; a record naming lo1 too is not minimal
    cluster = from_objects(
        [
            node("n0", cpu="2"),
            pod("lo0", cpu="1500m", node_name="n0"),
            pod("lo1", cpu="500m", node_name="n0"),
            pod("hi", cpu="1", priority=100),
        ]
    )
    scheduler = build(cluster)
    recorder = DecisionRecorder(scheduler)
    scheduler.run()
    preempting = next(d for d in recorder.decisions if d.preemption is not None)
    assert preempting.preemption is not None
    assert preempting.preemption.victims == ("default/lo0",)
    assert check_decision(spec, preempting).violations == []
    import dataclasses

    doctored = dataclasses.replace(
        preempting,
        preemption=dataclasses.replace(
            preempting.preemption, victims=("default/lo0", "default/lo1")
        ),
    )
    found = check_decision(spec, doctored).violations
    assert [v.property for v in found] == ["preemption"]
    assert "['default/lo1'] could have been reprieved" in found[0].detail


def test_a_scheduler_ignoring_nominated_pods_is_caught(
    spec: LoadedSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hi holds n0's only cpu by its nomination; lo (same priority, queued first) must not
    # take it
    nominated = pod("hi", cpu="1", priority=100)
    nominated["status"] = {"nominatedNodeName": "n0"}
    cluster = from_objects([node("n0", cpu="1"), pod("lo", cpu="1", priority=100), nominated])
    assert judge(cluster, spec).violations == []
    monkeypatch.setattr(Nominator, "add_nominated_pod", lambda *args, **kw: None)
    scheduler = build(cluster)
    recorder = DecisionRecorder(scheduler)
    scheduler.run()
    report = PropertyReport()
    for decision in recorder.decisions:
        check_decision(spec, decision, report)
    found = [(v.property, v.pod, v.node) for v in report.undeclared]
    assert ("two_pass", "default/lo", "n0") in found
    assert ("feasible", "default/lo", "n0") in found


def test_a_preemption_that_keeps_lower_nominations_is_caught(
    spec: LoadedSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hi preempts lo off n0, where mid (below hi) is nominated: mid's nomination must go. mid
    # never preempts, so its own failed cycles keep whatever nomination it holds; only hi's
    # preemption can take it away
    mid = pod("mid", cpu="1", priority=50, preemptionPolicy="Never")
    mid["status"] = {"nominatedNodeName": "n0"}
    cluster = from_objects(
        [
            node("n0", cpu="2"),
            pod("lo", cpu="2", node_name="n0"),
            mid,
            pod("hi", cpu="2", priority=100),
        ]
    )
    report = judge(cluster, spec)
    assert report.violations == []
    assert report.checked["nominations_cleared"] == 1
    monkeypatch.setattr(Evaluator, "_clear_lower_nominations", lambda *args: None)
    found = judge(cluster, spec).undeclared
    assert [(v.property, v.pod, v.node) for v in found] == [
        ("nominations_cleared", "default/mid", "n0")
    ]
    assert "default/hi preempted there" in found[0].detail
    assert "when the run ended" in found[0].detail


def _two_victims() -> Cluster:
    """hi needs both lo pods off n0."""
    return from_objects(
        [
            node("n0", cpu="2"),
            pod("lo-a", cpu="1", node_name="n0"),
            pod("lo-b", cpu="1", node_name="n0"),
            pod("hi", cpu="2", priority=100),
        ]
    )


def test_a_preemption_that_leaves_a_victim_bound_is_caught(
    spec: LoadedSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = _two_victims()  # each must be gone when the run ends
    report = judge(cluster, spec)
    assert report.violations == []
    assert report.checked["victims_evicted"] == 2
    # an evaluator that "evicts" a victim without deleting it
    monkeypatch.setattr(Evaluator, "preempt_pod", lambda *args: None)
    found = [v for v in judge(cluster, spec).undeclared if v.property == "victims_evicted"]
    assert sorted((v.pod, v.node) for v in found) == [
        ("default/lo-a", "n0"),
        ("default/lo-b", "n0"),
    ]
    assert "still bound there when the run ended, though default/hi preempted it on n0" in (
        found[0].detail
    )


def test_a_victim_preempted_twice_is_caught(
    spec: LoadedSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an evaluator that skips one victim: hi fails again and preempts lo-a a second time
    cluster = _two_victims()
    real = Evaluator.preempt_pod

    def skip_lo_a(self: Evaluator, c: Any, preemptor: Any, victim: Any) -> Any:
        return None if victim.name == "lo-a" else real(self, c, preemptor, victim)

    monkeypatch.setattr(Evaluator, "preempt_pod", skip_lo_a)
    found = [v for v in judge(cluster, spec).undeclared if v.property == "victims_evicted"]
    assert {v.pod for v in found} == {"default/lo-a"}
    assert any("chosen again by its next preemption" in v.detail for v in found)


def test_sampling_beyond_100_nodes_is_skipped_not_loosened(spec: LoadedSpec) -> None:
    # 200 nodes: numFeasibleNodesToFind is 100, so the host is only known to be Feasible
    nodes = [node(f"n{i:03}") for i in range(200)]
    report = judge(from_objects([*nodes, pod("web")]), spec)
    assert report.violations == []
    assert report.checked["feasible"] == 1 and report.checked["best"] == 0
    assert report.skipped["best: sampled"] == 1
