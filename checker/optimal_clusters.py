"""Seeded clusters on which the scheduler's greedy run can lose to the optimum, for
``bench/optimal.py`` and the tests of ``schedspec optimal``.

``gap_cluster(nodes, pods, seed)``: nodes of three shapes (2, 4 and 8 CPUs) across three zones,
a third of them already running a pod or two; the pending pods come from Deployments of mixed
sizes (250m to 3 CPUs, memory alongside) and priorities, about a quarter with required
hostname anti-affinity between their replicas, one in seven with required affinity to the
previous Deployment's pods (same zone), one in five with a DoNotSchedule zone spread
(maxSkew 1), and the requests add up to 90–130 % of what is free, so someone stays pending and
the order matters. The same arguments give the same cluster.
"""

from __future__ import annotations

import random
from typing import Any

from schedspec.cluster import Cluster, from_objects

__all__ = ["gap_cluster"]

_ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")
_SHAPES = (("m5.large", 1930, 7), ("m5.xlarge", 3920, 14), ("m5.2xlarge", 7910, 29))
_SIZES = (250, 500, 750, 1000, 1500, 2000, 3000)
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def _node(name: str, zone: str, shape: tuple[str, int, int]) -> dict[str, Any]:
    kind, cpu, mem_gi = shape
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                HOSTNAME: name,
                ZONE: zone,
                "node.kubernetes.io/instance-type": kind,
                "kubernetes.io/os": "linux",
            },
        },
        "status": {"allocatable": {"cpu": f"{cpu}m", "memory": f"{mem_gi}Gi", "pods": "58"}},
    }


def _pod(
    name: str,
    app: str,
    cpu: int,
    priority: int,
    node: str = "",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "priority": priority,
        "containers": [
            {
                "name": app,
                "image": f"registry.example.com/{app}:1.4.2",
                "resources": {"requests": {"cpu": f"{cpu}m", "memory": f"{cpu * 2}Mi"}},
            }
        ],
        **(extra or {}),
    }
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "apps", "labels": {"app": app}},
        "spec": spec,
    }


def gap_cluster(nodes: int, pods: int, seed: int) -> Cluster:
    rng = random.Random(seed)
    objs: list[dict[str, Any]] = []
    free = 0
    node_names = []
    for i in range(nodes):
        shape = rng.choice(_SHAPES)
        name = f"ip-10-0-{i // 250}-{i % 250 + 4}.eu-west-1.compute.internal"
        objs.append(_node(name, _ZONES[i % len(_ZONES)], shape))
        node_names.append(name)
        used = 0
        if rng.random() < 1 / 3:
            for k in range(rng.randint(1, 2)):
                cpu = rng.choice(_SIZES[:4])
                objs.append(_pod(f"running-{i}-{k}", f"legacy-{i % 4}", cpu, 0, node=name))
                used += cpu
        free += max(shape[1] - used, 0)
    budget = free * rng.uniform(0.9, 1.3)
    sizes = []
    made = 0
    d = 0
    while made < pods:
        replicas = min(rng.randint(1, 6), pods - made)
        cpu = rng.choice(_SIZES)
        sizes.append((d, replicas, cpu))
        made += replicas
        d += 1
    scale = budget / max(sum(r * c for _, r, c in sizes), 1)
    for d, replicas, cpu in sizes:
        app = f"svc-{d}"
        want = max(100, int(cpu * scale) // 50 * 50)
        extra: dict[str, Any] = {}
        kind = rng.random()
        selector = {"matchLabels": {"app": app}}
        if kind < 0.25:
            term = {"labelSelector": selector, "topologyKey": HOSTNAME}
            extra["affinity"] = {
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
            }
        elif kind < 0.4 and d > 0:  # next to the previous Deployment's pods, in their zone
            term = {"labelSelector": {"matchLabels": {"app": f"svc-{d - 1}"}}, "topologyKey": ZONE}
            extra["affinity"] = {
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
            }
        elif kind < 0.6:
            extra["topologySpreadConstraints"] = [
                {
                    "maxSkew": 1,
                    "topologyKey": ZONE,
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": selector,
                }
            ]
        priority = rng.choice((0, 0, 100, 1000))
        suffix = f"{rng.getrandbits(32):08x}"[:9]
        for r in range(replicas):
            objs.append(_pod(f"{app}-{suffix}-{r}", app, want, priority, extra=extra))
    return from_objects(objs, source=f"gap_cluster({nodes}, {pods}, seed={seed})")
