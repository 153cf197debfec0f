"""The size of a bounded symbolic cluster and the finite universes its strings range over."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields

LABEL_KEYS = (
    "topology.kubernetes.io/zone",
    "app",
    "kubernetes.io/hostname",
    "tier",
    "disktype",
    "example.com/rack",
)
LABEL_VALUES = ("a", "b", "1", "2", "3", "c")
NAMESPACES = ("default", "team-a", "team-b")
TAINT_KEYS = ("node.kubernetes.io/unschedulable", "nvidia.com/gpu")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
TOLERATION_OPERATORS = ("", "Equal", "Exists")
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
RESOURCES = ("cpu", "memory", "example.com/gpu")
PHASES = ("Pending", "Running", "Succeeded", "Failed")
HOST_IPS = ("", "0.0.0.0", "127.0.0.1")
PROTOCOLS = ("TCP", "UDP")
DELETION_TIME = "2026-01-01T00:00:00Z"
START_TIME = 1767225600  # 2026-01-01T00:00:00Z, every pod's startTime
IMAGE = "registry.k8s.io/pause:3.10"


@dataclass(frozen=True)
class Bounds:
    """How big the symbolic cluster is. Every field has a CLI flag of the same name."""

    nodes: int = 3
    pods: int = 3
    keys: int = 3
    values: int = 3
    namespaces: int = 2
    taints: int = 2
    tolerations: int = 2
    containers: int = 1
    init_containers: int = 1
    ports: int = 1
    terms: int = 1
    exprs: int = 1
    term_values: int = 2
    affinity: int = 1
    preferred: int = 1
    spread: int = 1
    services: int = 0
    groups: int = 1

    def __post_init__(self) -> None:
        limits = {
            "keys": len(LABEL_KEYS),
            "values": len(LABEL_VALUES),
            "namespaces": len(NAMESPACES),
        }
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"--{f.name.replace('_', '-')} must be a non-negative integer")
            if f.name in limits and v > limits[f.name]:
                raise ValueError(f"--{f.name} is at most {limits[f.name]}")
        if self.containers < 1:
            raise ValueError("--containers must be at least 1 (a pod has a container)")
        if self.namespaces < 1:
            raise ValueError("--namespaces must be at least 1")


BOUND_HELP = {
    "nodes": "nodes in the cluster",
    "pods": "pods in the cluster (bound or pending)",
    "keys": f"label keys in use (the first N of {', '.join(LABEL_KEYS)})",
    "values": f"label values in use (the first N of {', '.join(LABEL_VALUES)})",
    "namespaces": f"namespaces (the first N of {', '.join(NAMESPACES)})",
    "taints": "taints per node",
    "tolerations": "tolerations per pod",
    "containers": "app containers per pod",
    "init_containers": "init containers per pod (restartPolicy Always makes a sidecar)",
    "ports": "container ports per container",
    "terms": "required node-affinity terms per pod",
    "exprs": "match expressions per node term or label selector",
    "term_values": "values per match expression",
    "affinity": "required pod affinity terms per pod, and as many anti-affinity terms",
    "preferred": "preferred (weighted) pod affinity terms per pod, and as many anti-affinity terms",
    "spread": "topology spread constraints per pod",
    "services": "Services (their selectors make PodTopologySpread's default constraints apply)",
    "groups": "node groups (autoscaler specs: scale-from-zero Cluster API MachineDeployments)",
}


def bounds_flags(p: argparse.ArgumentParser) -> None:
    """The symbolic cluster's bounds as flags (one per :class:`Bounds` field)."""
    group = p.add_argument_group("bounds of the symbolic cluster")
    for name, f in Bounds.__dataclass_fields__.items():
        flag = "--" + name.replace("_", "-")
        group.add_argument(flag, dest=name, type=int, default=f.default, metavar="N",
                           help=f"{BOUND_HELP[name]} (default {f.default})")  # fmt: skip
