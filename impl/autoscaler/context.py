"""What one autoscaler loop works from: the input, the flags, the predicate checker, ``now``,
and the world it simulates (upstream's ``AutoscalingContext`` plus the snapshot ``RunOnce``
builds, ``core/static_autoscaler.go``).

The world holds every node, in name order, and the bound pods that are neither terminal nor
expendable (priority < ``--expendable-pods-priority-cutoff``): an expendable pod's room counts
as free (``FilterOutExpendablePods``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from schedspec.autoscaling import Autoscaling, AutoscalingOptions, NodeGroup
from schedspec.clock import ca_clock
from schedspec.cluster import Cluster
from schedspec.impl.api import Node, Pod, namespace_from_dict, node_from_dict, pod_from_dict
from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.predicate_checker import PredicateChecker
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot

__all__ = ["HOSTNAME", "AutoscalingContext", "namespace_labels"]

HOSTNAME = "kubernetes.io/hostname"
_NS_NAME = "kubernetes.io/metadata.name"


class AutoscalingContext:
    def __init__(self, cluster: Cluster, autoscaling: Autoscaling, now: float | None) -> None:
        self.cluster = cluster
        self.autoscaling = autoscaling
        self.options: AutoscalingOptions = autoscaling.options
        self.groups: tuple[NodeGroup, ...] = tuple(sorted(autoscaling.groups, key=_name))
        self.node_objs: dict[str, Mapping[str, Any]] = {
            n["metadata"]["name"]: n for n in sorted(cluster.nodes, key=_node_name)
        }
        self.nodes: dict[str, Node] = {k: node_from_dict(v) for k, v in self.node_objs.items()}
        given = now if now is not None else getattr(self.options, "now", None)
        self.now: float = ca_clock(cluster, None if given is None else int(given))
        self.raw: dict[str, Mapping[str, Any]] = {}
        self._typed: dict[str, Pod] = {}
        self.checker = PredicateChecker(namespace_labels(cluster))

    def typed(self, obj: Mapping[str, Any]) -> Pod:
        """The typed pod of a cluster pod (converted once); its dict is kept in ``raw``."""
        uid = obj["metadata"].get("uid") or podutil.pod_key(obj)
        pod = self._typed.get(uid)
        if pod is None:
            pod = pod_from_dict(obj)
            if pod.uid != uid:
                pod = dataclasses.replace(pod, uid=uid)
            self._typed[uid] = pod
            self.raw[uid] = obj
        return pod

    def is_expendable(self, obj: Mapping[str, Any]) -> bool:
        cutoff: int = self.options.expendable_pods_priority_cutoff
        return podutil.priority(obj) < cutoff

    def world(self) -> ClusterSnapshot:
        """Every node and its non-terminal, non-expendable bound pods."""
        snapshot = ClusterSnapshot(self.raw)
        for node in self.nodes.values():
            snapshot.add_node(node)
        for obj in self.cluster.bound_pods():
            node = obj["spec"]["nodeName"]
            if node in snapshot and not self.is_expendable(obj):
                snapshot.add_pod(self.typed(obj), node)
        return snapshot

    def template(self, group: NodeGroup, name: str | None = None) -> tuple[Node, list[Pod]]:
        """The group's template node (renamed ``name``, hostname label set to it, when given)
        and its DaemonSet/mirror pods bound to it (renamed ``<pod>-<name>`` on a copy)."""
        node = node_from_dict(group.template)
        pods = [pod_from_dict(p) for p in group.template_pods]
        if name is None:
            return node, [p.assigned_to(node.name) for p in pods]
        labels = {**node.labels, HOSTNAME: name}
        copy = dataclasses.replace(node, name=name, uid=f"{node.uid}-{name}", labels=labels)
        renamed = [
            dataclasses.replace(p, name=f"{p.name}-{name}", uid=f"{p.uid}-{name}", node_name=name)
            for p in pods
        ]
        return copy, renamed


def _name(group: NodeGroup) -> str:
    return group.name


def _node_name(node: Mapping[str, Any]) -> str:
    return str(node["metadata"]["name"])


def namespace_labels(cluster: Cluster) -> dict[str, Mapping[str, str]]:
    """Namespace ↦ labels; a namespace pods use but the input does not declare has only
    ``kubernetes.io/metadata.name`` (as the scheduler assumes)."""
    out: dict[str, Mapping[str, str]] = {}
    for pod in cluster.pods:
        ns = pod["metadata"].get("namespace") or "default"
        out[ns] = {_NS_NAME: ns}
    for obj in cluster.namespaces:
        ns_obj = namespace_from_dict(obj)
        out[ns_obj.name] = ns_obj.labels
    return out
