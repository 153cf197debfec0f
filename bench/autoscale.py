"""How long impl's cluster-autoscaler loop takes, and how it grows with nodes and pods.

The cluster: N nodes in 20 node groups (4 node shapes × 5 zones, labelled
``eks.amazonaws.com/nodegroup``), each node running two DaemonSet pods (kube-proxy, aws-node) and
Deployment pods that fill it to 50–90 % of its cpu, so neither the scale-up nor the scale-down
has a trivial answer: 8 groups labelled ``workload: batch`` are packed (50m cpu left per node), the
12 others run at 20–80 % of their cpu; P pending pods from 10 Deployments (100m–1500m cpu)
select ``workload: batch`` (some a zone too, some carry hostname anti-affinity), so
filter-out-schedulable scans every node in vain and only the batch groups can take them. Groups
run from their size to size + 50.

Scale-up: one ``RunOnce``'s pod list processing and orchestrator (filter-out-schedulable over
every node, the template check per group, binpacking, the expander). Scale-down: the planner's
pass over every node (utilization, drain rules, moving the pods of each underutilized node).
Timed separately, each the best of ``--repeat`` runs; the target is 10 s each at 5,000 nodes
and 1,000 pods on this machine (issue: the autoscaler).

    python3 bench/autoscale.py                     # 500/100 … 5000/1000
    python3 bench/autoscale.py --sizes 5000:1000
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from schedspec.autoscaling import Autoscaling, AutoscalingOptions, NodeGroup
from schedspec.cluster import Cluster, from_objects
from schedspec.impl.autoscaler.context import AutoscalingContext
from schedspec.impl.autoscaler.orchestrator import scale_up
from schedspec.impl.autoscaler.podlistprocessor import process_pending_pods
from schedspec.impl.autoscaler.scaledown import scale_down

LABEL = "eks.amazonaws.com/nodegroup"
SHAPES = (
    ("m5-large", "1930m", "7146Mi"),
    ("m5-xlarge", "3920m", "14564Mi"),
    ("c5-2xlarge", "7910m", "14600Mi"),
    ("r5-xlarge", "3920m", "30000Mi"),
)
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1f")
TARGET = 10.0


def _group(i: int) -> tuple[str, str, str, str]:
    shape, cpu, mem = SHAPES[i % len(SHAPES)]
    zone = ZONES[(i // len(SHAPES)) % len(ZONES)]
    return f"{shape}-{zone}", cpu, mem, zone


def _pod(
    name: str,
    ns: str,
    cpu: str,
    mem: str,
    node: str = "",
    owner: str = "ReplicaSet",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "c",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {"requests": {"cpu": cpu, "memory": mem}},
            }
        ],
        **(extra or {}),
    }
    if node:
        spec["nodeName"] = node
    meta = {
        "name": name,
        "namespace": ns,
        "labels": {"app": name.rsplit("-", 1)[0]},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": owner,
                "name": owner.lower(),
                "uid": f"{owner}-{ns}",
                "controller": True,
            }
        ],
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": spec,
        "status": {"phase": "Running" if node else "Pending"},
    }


def cluster_of(nodes: int, pending: int) -> tuple[Cluster, Autoscaling]:
    objects: list[dict[str, Any]] = []
    members: dict[str, list[str]] = {}
    for i in range(nodes):
        group, cpu, mem, zone = _group(i % 20)
        batch = i % 20 < 8  # 8 groups for batch work, packed full
        name = f"ip-10-{i // 250}-{i % 250}-{i % 7}.ec2.internal"
        members.setdefault(group, []).append(name)
        labels = {
            LABEL: group,
            "kubernetes.io/hostname": name,
            "topology.kubernetes.io/zone": zone,
            "workload": "batch" if batch else "general",
        }
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "status": {"allocatable": {"cpu": cpu, "memory": mem, "pods": "58"}},
            }
        )
        objects.append(_pod(f"kube-proxy-{i}", "kube-system", "100m", "64Mi", name, "DaemonSet"))
        objects.append(_pod(f"aws-node-{i}", "kube-system", "25m", "128Mi", name, "DaemonSet"))
        free = int(cpu[:-1]) - 125
        fill = free - 50 if batch else free * (1 + i % 4) // 5  # batch: 50m left; else 20–80 %
        for k in range(3):
            objects.append(_pod(f"api-{i}-{k}", "shop", f"{fill // 3}m", "512Mi", name))
    for j in range(pending):
        cpu = ("100m", "250m", "500m", "1", "1500m")[j % 5]
        extra: dict[str, Any] = {"nodeSelector": {"workload": "batch"}}
        if j % 10 == 3:
            extra["nodeSelector"]["topology.kubernetes.io/zone"] = ZONES[j % len(ZONES)]
        if j % 50 == 7:
            term = {
                "labelSelector": {"matchLabels": {"app": "batch-7"}},
                "topologyKey": "kubernetes.io/hostname",
            }
            extra["affinity"] = {
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
            }
        objects.append(_pod(f"batch-{j % 10}-{j}", "jobs", cpu, "2Gi", extra=extra))
    cluster = from_objects(objects)
    by_name = {n["metadata"]["name"]: n for n in cluster.nodes}
    groups = []
    for group, names in sorted(members.items()):
        template = dict(by_name[names[0]])
        tname = f"template-node-for-{group}"
        template = {
            **template,
            "metadata": {
                **template["metadata"],
                "name": tname,
                "labels": {**template["metadata"]["labels"], "kubernetes.io/hostname": tname},
            },
        }
        pods = tuple(
            {**p, "spec": {**p["spec"], "nodeName": tname}}
            for p in cluster.pods
            if p["spec"].get("nodeName") == names[0] and p["metadata"]["namespace"] == "kube-system"
        )
        groups.append(
            NodeGroup(group, 1, len(names) + 50, len(names), tuple(names), template, pods)
        )
    return cluster, Autoscaling(tuple(groups), AutoscalingOptions())


def _best(repeat: int, run: Any) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
    return best, out


def measure(nodes: int, pending: int, repeat: int) -> tuple[float, float, str]:
    cluster, autoscaling = cluster_of(nodes, pending)

    def up() -> Any:
        ctx = AutoscalingContext(cluster, autoscaling, None)
        world = ctx.world()
        return scale_up(ctx, world, process_pending_pods(ctx, world), 0)

    def down() -> Any:
        ctx = AutoscalingContext(cluster, autoscaling, None)
        world = ctx.world()
        process_pending_pods(ctx, world)
        return scale_down(ctx, world)

    up_s, result = _best(repeat, up)
    down_s, verdicts = _best(repeat, down)
    added = sum(b - a for a, b in result.plan.values())
    removable = sum(v.removable for v in verdicts.nodes.values())
    return (
        up_s,
        down_s,
        f"+{added} nodes for {len(result.unschedulable)} pods, {removable} removable",
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--sizes",
        nargs="+",
        default=["500:100", "1000:200", "2500:500", "5000:1000"],
        metavar="NODES:PODS",
    )
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print(f"impl/autoscaler, one RunOnce; target: {TARGET:.0f} s each at 5000 nodes / 1000 pods")
    print(f"{'nodes':>6} {'pending':>8} {'scale-up s':>11} {'scale-down s':>13}  outcome")
    last: tuple[int, float, float] | None = None
    for size in args.sizes:
        nodes, pods = (int(x) for x in size.split(":"))
        up_s, down_s, outcome = measure(nodes, pods, args.repeat)
        growth = ""
        if last is not None:
            ratios = (nodes / last[0], up_s / last[1], down_s / last[2])
            growth = "  (×{:.1f} size: scale-up ×{:.1f}, scale-down ×{:.1f})".format(*ratios)
        print(f"{nodes:>6} {pods:>8} {up_s:>11.2f} {down_s:>13.2f}  {outcome}{growth}")
        last = (nodes, up_s, down_s)


if __name__ == "__main__":
    main()
