"""Fault hooks of the simulated API server, with the conservation law checked after every event
of the loop: every pod is exactly one of bound, assumed/binding, queued (activeQ, backoffQ or
unschedulable pods), waiting at Permit, or deleted — none is lost, none is in two places."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

from schedspec.cluster import Cluster, loads
from schedspec.impl.apiserver import ConflictOnce, FailBinds
from schedspec.impl.plugins.coscheduling import MIN_MEMBER_LABEL, POD_GROUP_LABEL
from schedspec.impl.queue import ACTIVE_Q, BACKOFF_Q, IN_FLIGHT, UNSCHEDULABLE_PODS
from schedspec.impl.scheduler import Scheduler
from schedspec.impl.simulate import build

QUEUED = (ACTIVE_Q, BACKOFF_Q, UNSCHEDULABLE_PODS)
GANG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]}}}],
}


def make_cluster(nodes: int, pods: int, cpu: str = "1", gang: int = 0) -> Cluster:
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
            "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}},
        }
        for i in range(nodes)
    ]
    labels = {POD_GROUP_LABEL: "g", MIN_MEMBER_LABEL: str(gang)} if gang else {}
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}
    docs += [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "labels": labels},
            "spec": {"containers": [container]},
        }
        for i in range(pods)
    ]
    return loads(yaml.safe_dump_all(docs))


def where_is(s: Scheduler, key: str, uid: str) -> list[str]:
    """Every state the pod is in right now."""
    obj = s.apiserver.get("Pod", key)
    states = []
    if obj is None:
        states.append("deleted")
    elif obj["spec"].get("nodeName"):
        states.append("bound")
    waiting = uid in s.handle.waiting_pods
    if waiting:
        states.append("waiting")
    known = s.cache.get_pod(uid)
    if known is not None and s.cache.is_assumed(known) and not waiting and "bound" not in states:
        states.append("assumed")
    if s.queue.where(uid) in QUEUED:
        states.append(s.queue.where(uid))
    return states


def check_queue_structure(s: Scheduler) -> None:
    """A pod sits in exactly the sub-queue the queue says it is in."""
    q = s.queue
    places: dict[str, list[str]] = {}
    for name, pods in (
        (ACTIVE_Q, q.pods_in_active_q()),
        (BACKOFF_Q, q.pods_in_backoff_q()),
        (UNSCHEDULABLE_PODS, q.unschedulable_pods()),
    ):
        for qpi in pods:
            places.setdefault(qpi.pod.uid, []).append(name)
    for uid, found in places.items():
        assert found == [q.where(uid)], (uid, found, q.where(uid))


def run_conserving(s: Scheduler, until: float = 400.0) -> int:
    """Run the loop one event at a time, checking conservation after each; the event count."""
    pods = {
        (o["metadata"]["namespace"], o["metadata"]["name"]): o["metadata"]["uid"]
        for o in s.apiserver.list("Pod")
    }
    steps = 0
    seen: set[str] = set()  # pods whose ADDED event the scheduler has handled
    while (when := s.loop.next_time()) is not None and when <= until:
        s.loop.run_one()
        steps += 1
        check_queue_structure(s)
        seen |= s._queued.keys()
        for (ns, name), uid in pods.items():
            if uid not in seen:
                continue
            states = where_is(s, f"{ns}/{name}", uid)
            pending = uid in s._queued
            if states == ["deleted"] or states == ["bound"]:
                continue
            # a deletion or a bind not yet seen by the scheduler: its old place is still valid
            internal = [x for x in states if x not in ("deleted", "bound")]
            assert len(internal) == 1, (name, states, s.loop.now())
            if pending:
                assert s.queue.where(uid) != IN_FLIGHT or internal[0] in ("waiting", "assumed")
    return steps


Setup = Callable[[], Scheduler]


def bind_failures() -> Scheduler:
    return build(make_cluster(3, 6), bind_fault=FailBinds(3))


def status_patch_conflict() -> Scheduler:
    s = build(make_cluster(1, 4, cpu="1500m"))  # one fits, three are unschedulable
    s.apiserver.patch_fault = ConflictOnce()
    return s


def node_deleted_between_cycles() -> Scheduler:
    # two binds fail at t=0 and are retried after their 1 s backoff, after n1 is gone
    s = build(make_cluster(2, 4, cpu="1"), bind_fault=FailBinds(2))
    s.apiserver.delete_at(0.5, "Node", "n1")
    return s


def pod_deleted_while_waiting_at_permit() -> Scheduler:
    s = build(make_cluster(2, 3, cpu="2", gang=3), GANG)  # two wait at Permit for a third
    s.apiserver.delete_at(5.0, "Pod", "default/p0")
    return s


@pytest.mark.parametrize(
    "setup",
    [
        bind_failures,
        status_patch_conflict,
        node_deleted_between_cycles,
        pod_deleted_while_waiting_at_permit,
    ],
    ids=lambda f: f.__name__,
)
def test_no_pod_is_lost_or_duplicated_under_a_fault(setup: Setup) -> None:
    s = setup()
    assert run_conserving(s) > 10


def test_bind_failures_are_retried_after_backoff_until_every_pod_binds() -> None:
    s = bind_failures()
    run_conserving(s)
    assert len(s.bindings) == 6 and s.apiserver.bind_calls == 9


def test_a_status_patch_conflict_is_dropped_and_the_next_failure_patches_again() -> None:
    s = status_patch_conflict()
    run_conserving(s, until=100.0)
    conflict = s.apiserver.patch_fault
    assert isinstance(conflict, ConflictOnce) and len(conflict.failed) == 1
    key = conflict.failed[0]
    obj = s.apiserver.get("Pod", key)
    assert obj is not None and "conditions" not in obj["status"]  # the patch was lost
    assert s.queue.where(obj["metadata"]["uid"]) == UNSCHEDULABLE_PODS  # the pod was not
    run_conserving(s, until=400.0)  # the 5 min sweep retries it; that failure patches
    obj = s.apiserver.get("Pod", key)
    assert obj is not None and obj["status"]["conditions"][0]["reason"] == "Unschedulable"


def test_pods_retried_after_their_node_is_deleted_go_elsewhere() -> None:
    s = node_deleted_between_cycles()
    run_conserving(s, until=0.5)
    before = dict(s.bindings)
    run_conserving(s, until=30.0)
    later = {k: n for k, n in s.bindings.items() if k not in before}
    assert later and set(later.values()) == {"n0"}  # n0 had room for one more
    (left,) = s.pending_pods()
    assert s.failures[left.uid].plugins == ["NodeResourcesFit"]


def test_a_pod_deleted_at_permit_is_unreserved_and_gone() -> None:
    s = pod_deleted_while_waiting_at_permit()
    run_conserving(s, until=4.9)
    assert len(s.handle.waiting_pods) == 2
    run_conserving(s, until=6.0)
    assert s.apiserver.get("Pod", "default/p0") is None
    # its sibling was rejected with it (Unreserve), and the group can no longer complete
    assert not s.handle.waiting_pods and not s.bindings and s.cache.pod_count() == 0
    assert sorted(p.name for p in s.pending_pods()) == ["p1", "p2"]
    assert "cannot find enough sibling pods" in " ".join(
        s.failures[p.uid].message for p in s.pending_pods()
    )
