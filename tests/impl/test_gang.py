"""Gang scheduling through Permit (the Coscheduling plugin), end to end in virtual time."""

from __future__ import annotations

from typing import Any

import yaml

from schedspec.cluster import loads
from schedspec.impl.plugins.coscheduling import MIN_MEMBER_LABEL, POD_GROUP_LABEL
from schedspec.impl.queue import IN_FLIGHT
from schedspec.impl.simulate import build
from schedspec.impl.trace import Tracer

CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]}},
            "pluginConfig": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 20}}],
        }
    ],
}


def cluster(members: int, min_member: int, nodes: int, node_cpu: str = "2") -> Any:
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": f"n{i}"},
            "status": {"allocatable": {"cpu": node_cpu, "memory": "4Gi", "pods": "10"}},
        }
        for i in range(nodes)
    ]
    labels = {POD_GROUP_LABEL: "trainer", MIN_MEMBER_LABEL: str(min_member)}
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": "2"}}}
    docs += [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"worker-{i}", "labels": labels},
            "spec": {"containers": [container]},
        }
        for i in range(members)
    ]
    return loads(yaml.safe_dump_all(docs))


def test_members_wait_at_permit_until_min_member_then_all_bind() -> None:
    scheduler = build(cluster(3, 3, 3), CONFIG)
    tracer = Tracer(scheduler.loop)
    scheduler.tracer = tracer
    scheduler.run()
    assert sorted(scheduler.bindings) == [f"default/worker-{i}" for i in range(3)]
    kinds = [r["type"] for r in tracer.records if r["type"] in ("cycle", "bind")]
    assert kinds == ["cycle"] * 3 + ["bind"] * 3  # nobody binds before the third is assumed


def test_an_incomplete_gang_is_rejected_at_the_timeout_and_unreserved_together() -> None:
    scheduler = build(cluster(3, 3, 2), CONFIG)  # room for two members only
    scheduler.loop.run(until=19.0)
    assert len(scheduler.handle.waiting_pods) == 2 and not scheduler.bindings
    scheduler.loop.run(until=20.0)  # permitWaitingTimeSeconds
    assert not scheduler.bindings
    rejected = [key for key, f in scheduler.failures.items() if f.plugins == ["Coscheduling"]]
    assert len(rejected) == 2
    # both went back to the queue, unreserved: neither counts on a node any more
    back = [
        p for p in scheduler.pending_pods() if scheduler.failures[p.uid].plugins == ["Coscheduling"]
    ]
    assert all(scheduler.queue.where(p.uid) not in ("", IN_FLIGHT) for p in back)
    assert all(not scheduler.cache.is_assumed(p.assigned_to("n0")) for p in back)
    assert scheduler.failures[back[0].uid].message.startswith("rejected")


def test_pre_filter_rejects_a_group_that_can_never_reach_min_member() -> None:
    scheduler = build(cluster(2, 3, 3), CONFIG)
    scheduler.run()
    assert not scheduler.bindings
    for pod in scheduler.pending_pods():
        failure = scheduler.failures[pod.uid]
        assert failure.plugins == ["Coscheduling"]
        assert "cannot find enough sibling pods, current pods number: 2, minMember of group: 3" in (
            failure.message
        )
