"""The scheduling and binding cycles end to end, on the simulated API server in virtual time."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedspec.cluster import Cluster, load, loads
from schedspec.impl import simulate
from schedspec.impl.api import Pod
from schedspec.impl.apiserver import FailBinds
from schedspec.impl.framework import Code, CycleState, Status
from schedspec.impl.framework.interface import Handle
from schedspec.impl.plugins import in_tree_registry
from schedspec.impl.scheduler import num_feasible_nodes_to_find
from schedspec.impl.simulate import build, result_of

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))


def make_cluster(
    nodes: int, pods: int, cpu: str = "1", node_cpu: str = "4", zones: int = 1
) -> Cluster:
    docs: list[dict[str, Any]] = []
    for i in range(nodes):
        labels = {
            "topology.kubernetes.io/zone": f"z{i % zones}",
            "kubernetes.io/hostname": f"node-{i}",
        }
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"node-{i}", "labels": labels},
                "status": {"allocatable": {"cpu": node_cpu, "memory": "16Gi", "pods": "110"}},
            }
        )
    for i in range(pods):
        container = {
            "name": "c",
            "image": "app:1",
            "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}},
        }
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"pod-{i}"},
                "spec": {"containers": [container]},
            }
        )
    return loads(yaml.safe_dump_all(docs))


EXPECTED = {
    "autoscaling.yaml": (  # the burst waits for the autoscaler: nothing fits today's nodes
        {},
        [
            "shop/search-indexer-6c8b7d9f5-vp9gz",
            "shop/search-indexer-6c8b7d9f5-686ft",
            "shop/search-indexer-6c8b7d9f5-bjncl",
            "shop/search-indexer-6c8b7d9f5-twdkg",
            "batch/video-transcode-29331852-rjv68",
            "ml/llm-finetune-7rq2m",
            "analytics/graviton-benchmark-0",
            "ci/ci-runner-9f7b5d8c6-m8l6l",
        ],
    ),
    "fragmentation.yaml": (  # greedy spreads the replicas: no node keeps 3 cpu for an executor
        {},
        [
            "analytics/nightly-sessionize-4c1f7e9a8b2d-exec-1",
            "analytics/nightly-sessionize-4c1f7e9a8b2d-exec-2",
        ],
    ),
    "gpu-pool.yaml": (
        {
            "ml/train-resnet50-mkwvp": "gpu-a10g-2",
            "ml/etl-parquet-compact-29301300-6fxzz": "cpu-pool-m6i-1",
        },
        ["ml/sentiment-inference-5f7d8c9b6-p42cn"],
    ),
    "kube-system.yaml": (
        {"kube-system/fluent-bit-jwth8": "k8s-fra-worker-2"},
        ["kube-system/fluent-bit-lxnwz"],
    ),
    "preemption.yaml": (
        {"prod/checkout-api-5d9c8b7f6e-v6z8n": "ip-10-20-3-88.us-west-2.compute.internal"},
        [],
    ),
    "zonal-web.yaml": ({}, ["shop/report-nightly-29301120-7b8j6"]),
}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_schedules_as_its_header_describes(path: Path) -> None:
    cluster = load(path)
    result = simulate(cluster, seed=1)
    bound, pending = EXPECTED[path.name]
    assert bound.items() <= result.bindings.items()
    for key in pending:
        assert key in result.unschedulable and result.unschedulable[key].message.startswith(
            f"0/{len(cluster.nodes)} nodes are available: "
        )
    assert len(result.bindings) + len(result.unschedulable) == len(cluster.pending_pods())


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_same_seed_same_result(path: Path) -> None:
    cluster = load(path)
    assert simulate(cluster, seed=7).as_json() == simulate(cluster, seed=7).as_json()


def test_zonal_web_places_two_web_replicas_and_the_third_fails_on_anti_affinity() -> None:
    result = simulate(load(next(p for p in EXAMPLES if p.name == "zonal-web.yaml")))
    web = [k for k in result.bindings if k.startswith("shop/web-")]
    assert len(web) == 2
    (left,) = [k for k in result.unschedulable if k.startswith("shop/web-")]
    assert "didn't match pod anti-affinity rules" in result.unschedulable[left].message
    assert result.unschedulable[left].plugins[0] == "InterPodAffinity"


def test_fit_error_message_sorts_reasons_like_kube_scheduler() -> None:
    gpu = [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]
    docs = [
        *(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"g{i}"},
                "spec": {"taints": gpu},
                "status": {"allocatable": {"cpu": "8", "pods": "10"}},
            }
            for i in range(2)
        ),
        *(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"s{i}"},
                "status": {"allocatable": {"cpu": "1", "pods": "10"}},
            }
            for i in range(3)
        ),
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "big"},
            "spec": {
                "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "2"}}}]
            },
        },
    ]
    result = simulate(loads(yaml.safe_dump_all(docs)))
    u = result.unschedulable["default/big"]
    assert (
        u.message == "0/5 nodes are available: 2 node(s) had untolerated taint(s), "
        "3 Insufficient cpu. preemption: 0/5 nodes are available: "
        "5 Preemption is not helpful for scheduling."
    )
    assert u.plugins == ("NodeResourcesFit", "TaintToleration")


@pytest.mark.parametrize(
    ("nodes", "percentage", "expected"),
    [
        (50, None, 50),
        (500, None, 230),
        (1000, None, 420),
        (5000, None, 500),
        (10000, None, 500),
        (500, 100, 500),
        (500, 10, 100),
    ],
    ids=[
        "small clusters: all",
        "500",
        "1000",
        "5000",
        "floor at 5%",
        "100 percent",
        "at least 100",
    ],
)
def test_num_feasible_nodes_to_find(nodes: int, percentage: int | None, expected: int) -> None:
    assert num_feasible_nodes_to_find(percentage, nodes) == expected


def test_search_starts_where_the_last_one_stopped() -> None:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": 50,
    }
    scheduler = build(make_cluster(200, 2), config)
    scheduler.run()
    assert len(scheduler.bindings) == 2
    assert scheduler.next_start_node_index == 0  # 100 nodes searched per cycle, twice, of 200


def test_ties_are_broken_by_the_seed() -> None:
    cluster = make_cluster(20, 1)
    chosen = {simulate(cluster, seed=s).bindings["default/pod-0"] for s in range(12)}
    assert len(chosen) > 1  # all 20 nodes score the same: the seed decides


def _select_host_by_randrange(rng: random.Random, totals: list[int]) -> int:
    """``select_host`` as written before its draws were inlined: ``rng.randrange(count)``."""
    best, best_score, count = 0, totals[0], 1
    for i in range(1, len(totals)):
        if totals[i] > best_score:
            best, best_score, count = i, totals[i], 1
        elif totals[i] == best_score:
            count += 1
            if rng.randrange(count) == 0:
                best = i
    return best


def test_select_host_draws_as_randrange() -> None:
    scheduler = build(make_cluster(2, 0))
    reference = random.Random(7)
    scheduler.rng = random.Random(7)
    shapes = random.Random(1)
    for _ in range(300):  # ties of every size, a new top score now and then
        totals = [shapes.choice((90, 100, 100, 100)) for _ in range(shapes.randrange(1, 700))]
        assert scheduler.select_host(totals) == _select_host_by_randrange(reference, totals)
    assert scheduler.rng.random() == reference.random()  # the same numbers drawn


def test_a_bind_failure_loses_no_pod() -> None:
    cluster = make_cluster(3, 6)
    fault = FailBinds(2)
    scheduler = build(cluster, bind_fault=fault)
    scheduler.run()
    result = result_of(scheduler)
    assert len(fault.failed) == 2
    assert len(result.bindings) == 6 and not result.unschedulable
    assert scheduler.apiserver.bind_calls == 8
    assert scheduler.cache.pod_count() == 6  # nothing left assumed or double counted
    assert result.virtual_seconds >= 1.0  # the failed pods came back after their backoff


def test_node_number_permit_holds_pods_in_virtual_time() -> None:
    docs: list[dict[str, Any]] = [
        *(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"node{i}"},
                "status": {"allocatable": {"cpu": "4", "pods": "10"}},
            }
            for i in range(10)
        ),
        *(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            }
            for name in ("pod1", "pod9")
        ),
    ]
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {"plugins": {"multiPoint": {"enabled": [{"name": "NodeNumber", "weight": 10}]}}}
        ],
    }
    scheduler = build(loads(yaml.safe_dump_all(docs)), config)
    scheduler.loop.run(until=0.5)
    assert scheduler.bindings == {}  # pod1 waits 1 s at Permit
    scheduler.loop.run(until=8.9)
    assert scheduler.bindings == {"default/pod1": "node1"}  # pod9 waits 9 s
    scheduler.loop.run(until=9.0)
    assert scheduler.bindings == {"default/pod1": "node1", "default/pod9": "node9"}


class _NeverAllow:
    """A Permit plugin that asks every pod to wait 5 s and never allows it."""

    def name(self) -> str:
        return "NeverAllow"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status(Code.WAIT), 5.0

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> _NeverAllow:
        return _NeverAllow()


def test_permit_timeout_rejects_and_requeues_the_pod() -> None:
    registry = {**in_tree_registry(), "NeverAllow": _NeverAllow.new}
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {"permit": {"enabled": [{"name": "NeverAllow"}]}}}],
    }
    scheduler = build(make_cluster(2, 1), config, registry=registry)
    scheduler.run()
    result = result_of(scheduler)
    assert not result.bindings
    u = result.unschedulable["default/pod-0"]
    assert u.plugins == ("NeverAllow",)
    assert u.message == "rejected due to timeout after waiting 5s at plugin NeverAllow"
    assert scheduler.cache.pod_count() == 0


def test_gated_pods_wait_for_their_gates() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "gated"},
        "spec": {
            "schedulingGates": [{"name": "example.com/quota"}],
            "containers": [{"name": "c", "image": "i"}],
        },
    }
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n"},
        "status": {"allocatable": {"pods": "1"}},
    }
    result = simulate(loads(yaml.safe_dump_all([node, pod])))
    assert (
        result.unschedulable["default/gated"].message
        == "waiting for scheduling gates: [example.com/quota]"
    )
    assert result.unschedulable["default/gated"].plugins == ("SchedulingGates",)
