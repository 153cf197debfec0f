"""The QueueingHint verdicts in trace validation (checker/queue_hints.py, spec/kube/hints.tla):
hints.tla answers as upstream's hint functions do, and a run whose impl hint moved a pod the
spec's hint would have kept is unexplained."""

from __future__ import annotations

from typing import Any

import pytest

from schedspec.checker.queue_hints import Delivery, hint
from schedspec.checker.queue_trace import validate_cluster
from schedspec.cluster import from_objects
from schedspec.impl.framework.events import QueueingHint
from schedspec.impl.plugins.node_resources_fit import NodeResourcesFit


def _node(name: str, cpu: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": spec,
        "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "110"}},
    }


def _pod(name: str, cpu: str, **spec: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu}}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [container], **spec}}  # fmt: skip


def _ask(plugin: str, event: str, pod: dict[str, Any], old: Any, new: Any) -> bool:
    return hint(plugin, event, pod, Delivery(event, old, new, {}, False))


def test_node_resources_fit_queues_a_node_that_fits_the_pod_alone() -> None:
    big = _pod("big", "2")
    assert _ask("NodeResourcesFit", "NodeAdd", big, None, _node("n", "4"))
    assert not _ask("NodeResourcesFit", "NodeAdd", big, None, _node("n", "1"))
    # an update counts only when a requested resource grew
    grown, shrunk = (_node("n", "1"), _node("n", "4")), (_node("n", "8"), _node("n", "4"))
    assert _ask("NodeResourcesFit", "NodeAllocatableUpdate", big, *grown)
    assert not _ask("NodeResourcesFit", "NodeAllocatableUpdate", big, *shrunk)
    bound = {**big, "spec": {**big["spec"], "nodeName": "n"}}
    assert _ask("NodeResourcesFit", "AssignedPodDelete", big, bound, None)
    assert not _ask("NodeResourcesFit", "AssignedPodDelete", big, big, None)


def test_taints_affinity_and_unschedulable_hints() -> None:
    pod = _pod("p", "1", nodeSelector={"zone": "a"})
    tainted = _node("n", "4", taints=[{"key": "k", "effect": "NoSchedule"}])
    assert not _ask("TaintToleration", "NodeAdd", pod, None, tainted)
    assert _ask("TaintToleration", "NodeTaintUpdate", pod, tainted, _node("n", "4"))
    zoned = {**tainted, "metadata": {"name": "n", "labels": {"zone": "a"}}}
    assert _ask("NodeAffinity", "NodeAdd", pod, None, zoned)
    assert not _ask("NodeAffinity", "NodeLabelUpdate", pod, zoned, zoned)
    cordoned = _node("n", "4", unschedulable=True)
    assert _ask("NodeUnschedulable", "NodeTaintUpdate", pod, cordoned, _node("n", "4"))
    assert not _ask("NodeUnschedulable", "NodeAdd", pod, None, cordoned)


# one pod too big for the node; at t = 20 s the node is updated (twice the cpu: still too small)
CLUSTER = from_objects([_node("small", "500m"), _pod("big", "2")])


def test_a_node_update_the_spec_hint_skips_moves_no_pod() -> None:
    report = validate_cluster(CLUSTER, idle_timeout=400, late_node_at=40, update_node_at=20)
    assert report.skipped is None and report.unexplained == []
    assert report.actions["ClusterEvent"] >= 2


def test_an_impl_hint_that_always_queues_is_unexplained(monkeypatch: pytest.MonkeyPatch) -> None:
    def always(self: NodeResourcesFit, *args: Any) -> QueueingHint:
        return QueueingHint.QUEUE

    monkeypatch.setattr(NodeResourcesFit, "is_schedulable_after_node_change", always)
    report = validate_cluster(CLUSTER, idle_timeout=400, late_node_at=40, update_node_at=20)
    assert len(report.unexplained) == 1
    step = report.unexplained[0]
    assert step.t == 20
    assert "unschedulable" in step.render()


def test_the_runs_made_for_the_hints_are_explained_and_reach_their_plugins() -> None:
    from schedspec.checker.queue_hint_runs import run_hints

    campaign = run_hints(15)
    assert campaign.validated == 15 and campaign.unexplained == []
    assert campaign.actions["ClusterEvent"] > 0


def test_node_resources_fit_hint_ignores_no_resource_as_upstream() -> None:
    # upstream's isFit calls Fits with no ignored resources: a node without the extended
    # resource the pod requests does not fit, whatever ignoredResources says (impl ignored them)
    from schedspec.impl.api import node_from_dict, pod_from_dict

    pod = _pod("p", "100m")
    pod["spec"]["containers"][0]["resources"]["requests"]["example.com/foo"] = "1"
    node = _node("n", "4")
    plugin = NodeResourcesFit(ignored=frozenset({"example.com/foo"}))
    impl_says = plugin.is_schedulable_after_node_change(
        pod_from_dict(pod), None, node_from_dict(node)
    )
    assert impl_says is QueueingHint.QUEUE_SKIP
    assert not _ask("NodeResourcesFit", "NodeAdd", pod, None, node)


def test_an_always_queue_taint_hint_is_unexplained_on_a_taint_update(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from schedspec.checker.queue_node_updates import update_node
    from schedspec.impl.plugins.taint_toleration import TaintToleration

    tainted = _node("n0", "4", taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])
    cluster = from_objects([tainted, _pod("p", "100m")])
    # at 10 s the node gets a second taint: still untolerated, so upstream's hint skips
    actions = [(10.0, lambda sched: update_node(sched, 0, "taint"))]
    clean = validate_cluster(cluster, idle_timeout=400, late_node_at=40, actions=actions)
    assert clean.unexplained == [] and clean.skipped is None

    def always(self: TaintToleration, *args: Any) -> QueueingHint:
        return QueueingHint.QUEUE

    monkeypatch.setattr(TaintToleration, "is_schedulable_after_node_change", always)
    report = validate_cluster(cluster, idle_timeout=400, late_node_at=40, actions=actions)
    assert [u.t for u in report.unexplained] == [10]
