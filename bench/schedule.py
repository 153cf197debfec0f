"""Throughput of the operational scheduler (pods scheduled per wall-clock second).

Workloads, after kube-scheduler's scheduler_perf ``SchedulingBasic``: nodes with 4 CPU / 32 GiB
spread over 3 zones, pods requesting 100m CPU / 256 MiB, scheduled from a cold start on an
already-populated cluster (``--init-pods`` bound pods). The anti-affinity + spread workload gives
every pod a preferred pod anti-affinity on the hostname and a ScheduleAnyway zone spread
constraint, on top of a required anti-affinity for a few "exclusive" pods.

``PreemptionBasic`` (scheduler_perf's workload of that name): every node is filled by four
low-priority pods (900m CPU each, priority 1), then high-priority pods (3 CPU, priority 10) arrive;
each must preempt three low-priority pods. The figure counts the high-priority pods bound per
second (their two cycles, the dry run over the candidate nodes and the evictions included) and
prints the number of preemptions.

    python bench/schedule.py            # 500 and 5000 nodes basic, 5000 nodes affinity+spread,
                                        # 500 nodes preemption
    python bench/schedule.py --pods 500
    python bench/schedule.py --only unschedulable   # QueueingHints on vs off

The Unschedulable workload: 150 pods that never fit (too much CPU, a node selector no node
matches, pod affinity to pods that do not exist) beside 100 that do, on 50 nodes, with 300
cluster events 0.2 s apart (node label / taint / allocatable updates, node adds, bound pods
deleted). It prints the scheduling attempts — wasted ones are attempts that bound nothing —
and pods/s with QueueingHints on and off, in the same run.
    python bench/schedule.py --only preemption --preemption-nodes 5000
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


def _preemption_pod(name: str, cpu: str, priority: int, node: str = "") -> dict[str, Any]:
    container = {
        "name": "c",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": cpu, "memory": "500Mi"}},
    }
    spec: dict[str, Any] = {
        "containers": [container],
        "schedulerName": "default-scheduler",
        "priority": priority,
        "preemptionPolicy": "PreemptLowerPriority",
    }
    if node:
        spec["nodeName"] = node
    meta = {"name": name, "namespace": "default", "uid": name, "labels": {"app": name[:4]}}
    status = {"phase": "Running" if node else "Pending"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def run_preemption(nodes: int, pods: int) -> float:
    """PreemptionBasic: 4 low-priority pods per node, then ``pods`` high-priority ones."""
    node_objs = tuple(_node(i) for i in range(nodes))
    low = tuple(
        _preemption_pod(f"low-{i}", "900m", 1, f"node-{i % nodes}") for i in range(4 * nodes)
    )
    high = tuple(_preemption_pod(f"high-{i}", "3", 10) for i in range(pods))
    scheduler = build(Cluster(node_objs, low + high, (), (), (), None, ()))
    start = time.perf_counter()  # the informer sync of the low-priority pods is included
    scheduler.run()
    elapsed = time.perf_counter() - start
    result = result_of(scheduler)
    bound = sum(1 for k in result.bindings if k.startswith("default/high-"))
    print(
        f"{'PreemptionBasic':<28} nodes={nodes:<5} pods={pods:<5} bound={bound:<5} "
        f"{elapsed:6.2f}s {bound / elapsed:8.1f} pods/s  "
        f"preemptions={len(result.preemptions)} victims={len(result.preempted)}"
    )
    return bound / elapsed


# ---- Unschedulable: pods that never fit, and a churn of node and pod events ----------------


def _never_fit_pod(i: int) -> dict[str, Any]:
    """Rejected by NodeResourcesFit (64 CPU), NodeAffinity (no such disk) or InterPodAffinity
    (affinity to pods that do not exist), in turn."""
    pod = _pod(i, False)
    pod["metadata"] = {**pod["metadata"], "name": f"never-{i}", "uid": f"never-{i}"}
    spec = pod["spec"]
    kind = i % 3
    if kind == 0:
        spec["containers"] = [{**spec["containers"][0], "resources": {"requests": {"cpu": "64"}}}]
    elif kind == 1:
        spec["nodeSelector"] = {"disk": "nvme"}
    else:
        term = {
            "topologyKey": "kubernetes.io/hostname",
            "labelSelector": {"matchLabels": {"app": "db"}},
        }
        spec["affinity"] = {
            "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
        }
    return pod


def _churn(api: Any, i: int, nodes: int) -> None:
    """One cluster event: a node label, taint or allocatable update, a node add, or a bound
    pod deleted (every fifth)."""
    kind = i % 5
    if kind == 3:
        api.create("Node", _node(nodes + i))
        return
    if kind == 4:
        key = f"default/pod-{i % 200}"
        if api.get("Pod", key) is not None and api.get("Pod", key)["spec"].get("nodeName"):
            api.delete("Pod", key)
        return
    obj = api.get("Node", f"node-{i % nodes}")
    meta, spec, status = dict(obj["metadata"]), dict(obj.get("spec") or {}), dict(obj["status"])
    if kind == 0:
        meta["labels"] = {**meta["labels"], "churn": str(i)}
    elif kind == 1:
        taints = [] if spec.get("taints") else [{"key": "churn", "effect": "PreferNoSchedule"}]
        spec["taints"] = taints
    else:
        cpu = "5" if status["allocatable"]["cpu"] == "4" else "4"
        status["allocatable"] = {**status["allocatable"], "cpu": cpu}
    api.update("Node", {**obj, "metadata": meta, "spec": spec, "status": status})


def run_unschedulable(nodes: int, never: int, fit: int, events: int, hints: bool) -> float:
    """Wasted scheduling attempts with QueueingHints on and off (the gate off: every
    registered event moves every pod its plugins rejected, after the node pre-check)."""
    pods = tuple(_pod(i, False) for i in range(fit)) + tuple(
        _never_fit_pod(i) for i in range(never)
    )
    scheduler = build(
        Cluster(tuple(_node(i) for i in range(nodes)), pods, (), (), (), None, ()),
        queueing_hints=hints,
    )
    api = scheduler.apiserver
    for i in range(events):
        scheduler.loop.after(1.0 + i * 0.2, lambda i=i: _churn(api, i, nodes))
    start = time.perf_counter()
    scheduler.run()
    elapsed = time.perf_counter() - start
    bound = len(scheduler.bindings)
    attempts = scheduler.cycles
    label = f"Unschedulable (hints {'on' if hints else 'off'})"
    print(
        f"{label:<28} nodes={nodes:<5} pods={never + fit:<5} bound={bound:<5} "
        f"{elapsed:6.2f}s {bound / elapsed:8.1f} pods/s  attempts={attempts} "
        f"wasted={attempts - bound} events={events}"
    )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pods", type=int, default=1000, help="pods to schedule per workload")
    parser.add_argument("--init-pods", type=int, default=1000, help="pods already bound")
    parser.add_argument(
        "--only", choices=("basic", "preemption", "unschedulable"), help="run one family"
    )
    parser.add_argument(
        "--preemption-nodes", type=int, default=500, help="PreemptionBasic cluster size"
    )
    args = parser.parse_args()
    if args.only in (None, "basic"):
        run("SchedulingBasic", 500, args.pods, args.init_pods, False)
        run("SchedulingBasic", 5000, args.pods, args.init_pods, False)
        run("AntiAffinity+TopologySpread", 5000, args.pods, args.init_pods, True)
    if args.only in (None, "preemption"):
        run_preemption(args.preemption_nodes, min(args.pods, args.preemption_nodes))
    if args.only in (None, "unschedulable"):
        for hints in (True, False):
            run_unschedulable(50, 150, 100, 300, hints)


if __name__ == "__main__":
    main()
