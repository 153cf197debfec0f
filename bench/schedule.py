"""Throughput of the operational scheduler (pods scheduled per wall-clock second).

Workloads, after kube-scheduler's scheduler_perf ``SchedulingBasic``: nodes with 4 CPU / 32 GiB
spread over 3 zones, pods requesting 100m CPU / 256 MiB, scheduled from a cold start on an
already-populated cluster (``--init-pods`` bound pods). The anti-affinity + spread workload gives
every pod a preferred pod anti-affinity on the hostname and a ScheduleAnyway zone spread
constraint, on top of a required anti-affinity for a few "exclusive" pods.

    python bench/schedule.py            # 500 and 5000 nodes basic, 5000 nodes affinity+spread
    python bench/schedule.py --pods 500
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from schedspec.cluster import Cluster
from schedspec.impl.simulate import build, result_of


def _node(i: int) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": f"node-{i}", "topology.kubernetes.io/zone": f"zone-{i % 3}"}
    status = {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"node-{i}", "uid": f"n{i}", "labels": labels},
        "spec": {},
        "status": status,
    }


def _pod(i: int, spread: bool, node: str = "") -> dict[str, Any]:
    labels = {"app": f"app-{i % 10}"}
    container = {
        "name": "c",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}},
    }
    spec: dict[str, Any] = {
        "containers": [container],
        "schedulerName": "default-scheduler",
        "priority": 0,
        "preemptionPolicy": "PreemptLowerPriority",
    }
    if node:
        spec["nodeName"] = node
    if spread:
        selector = {"matchLabels": labels}
        term = {
            "weight": 10,
            "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname", "labelSelector": selector},
        }
        spec["affinity"] = {
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}
        }
        if i % 50 == 0:
            required = {
                "topologyKey": "kubernetes.io/hostname",
                "labelSelector": {"matchLabels": {"exclusive": "yes"}},
            }
            spec["affinity"]["podAntiAffinity"][
                "requiredDuringSchedulingIgnoredDuringExecution"
            ] = [required]
            labels = {**labels, "exclusive": "yes"}
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": selector,
            }
        ]
    meta = {
        "name": f"pod-{i}{'-init' if node else ''}",
        "namespace": "default",
        "uid": f"p{i}{node}",
        "labels": labels,
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": spec,
        "status": {"phase": "Pending"},
    }


def _cluster(nodes: int, pods: int, init_pods: int, spread: bool) -> Cluster:
    # Built directly (the dicts are already valid and defaulted) to keep setup out of the way.
    node_objs = tuple(_node(i) for i in range(nodes))
    init = tuple(_pod(i, spread, f"node-{i % nodes}") for i in range(init_pods))
    pending = tuple(_pod(i, spread) for i in range(pods))
    return Cluster(node_objs, init + pending, (), (), (), None, ())


def run(name: str, nodes: int, pods: int, init_pods: int, spread: bool) -> float:
    scheduler = build(_cluster(nodes, pods, init_pods, spread))
    # Deliver the initial watch events (informer sync) before the clock starts.
    while scheduler.loop.pending() and not scheduler.queue.pending():
        scheduler.loop.run_one()
    start = time.perf_counter()
    scheduler.run()
    elapsed = time.perf_counter() - start
    result = result_of(scheduler)
    bound = sum(1 for k in result.bindings if not k.endswith("-init"))
    rate = bound / elapsed
    print(
        f"{name:<28} nodes={nodes:<5} pods={pods:<5} bound={bound:<5} "
        f"{elapsed:6.2f}s {rate:8.1f} pods/s"
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pods", type=int, default=1000, help="pods to schedule per workload")
    parser.add_argument("--init-pods", type=int, default=1000, help="pods already bound")
    args = parser.parse_args()
    run("SchedulingBasic", 500, args.pods, args.init_pods, False)
    run("SchedulingBasic", 5000, args.pods, args.init_pods, False)
    run("AntiAffinity+TopologySpread", 5000, args.pods, args.init_pods, True)


if __name__ == "__main__":
    main()
