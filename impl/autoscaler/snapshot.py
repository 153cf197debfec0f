"""The cluster as cluster-autoscaler simulates it: nodes and the pods on them, forkable.

Mirrors ``simulator/clustersnapshot`` (``ClusterSnapshot``: ``AddNodeInfo``, ``ForceAddPod``,
``ForceRemovePod``, ``Fork``/``Commit``/``Revert``). Nodes are listed in the order they were
added: the real nodes in name order, then template copies in creation order — the order
first-fit walks (docs/autoscaler.md, "The world CA simulates").

A fork is a copy that shares NodeInfos with its parent until it changes one (copy on write):
``fork()`` returns the copy; keeping it is a commit, dropping it a revert. The snapshot is the
framework's ``SharedLister`` while a predicate check runs on it.

``raw`` maps a pod's uid to its Kubernetes dict (owners, annotations, volumes: what the drain
rules read and the typed ``Pod`` does not carry); it is shared by all forks.

Indexes kept up to date as nodes and pods come and go spare the predicate checker walks over
every node (bench/autoscale.py): the nodes holding pods with required anti-affinity (the lister's
``HavePodsWithRequiredAntiAffinityList``, still in the snapshot's order); per namespace, the
nodes holding pods of it (``nodes_with_pods_in``); each node's cpu left (``free_cpu``, in the
snapshot's order); and ``nodes_version``, which changes when a node is added and only then.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from schedspec.impl.api import Node, Pod
from schedspec.impl.framework.types import NodeInfo, PodInfo

__all__ = ["ClusterSnapshot"]


class ClusterSnapshot:
    def __init__(self, raw: dict[str, Mapping[str, Any]] | None = None) -> None:
        self._infos: dict[str, NodeInfo] = {}
        self._owned: set[str] = set()
        self._list: Sequence[NodeInfo] | None = None
        self._pos: dict[str, int] = {}  # node name -> its place in the order
        self._anti: dict[str, None] = {}  # nodes with pods with required anti-affinity
        self._ns: dict[str, dict[str, int]] = {}  # namespace -> node -> pods of it there
        self._ns_owned: set[str] = set()  # the namespaces whose dict this snapshot may change
        self._free_cpu: list[int] = []  # allocatable - requested cpu, by place in the order
        self.nodes_version = object()  # a new one whenever a node is added
        self.raw: dict[str, Mapping[str, Any]] = raw if raw is not None else {}

    # ---- building and changing

    def add_node(self, node: Node, pods: Iterable[Pod] = ()) -> None:
        """A node (with pods already bound to it, e.g. a template's DaemonSet pods)."""
        if node.name in self._infos:
            raise ValueError(f"node {node.name!r} is already in the snapshot")
        info = NodeInfo(node, [p.assigned_to(node.name) for p in pods])
        self._infos[node.name] = info
        self._pos[node.name] = len(self._pos)
        self._owned.add(node.name)
        self._list = None
        self.nodes_version = object()
        for pi in info.pods:
            self._count(pi.pod.namespace, node.name, 1)
        self._index_anti(info)
        self._free_cpu.append(0)
        self._index_cpu(info)

    def add_pod(self, pod: Pod, node_name: str) -> Pod:
        """Place ``pod`` on ``node_name`` unchecked (``ForceAddPod``); returns the bound copy."""
        bound = pod if pod.node_name == node_name else pod.assigned_to(node_name)
        info = self._own(node_name)
        info.add_pod(PodInfo(bound))
        self._count(bound.namespace, node_name, 1)
        self._index_anti(info)
        self._index_cpu(info)
        return bound

    def remove_pod(self, pod: Pod, node_name: str) -> None:
        info = self._own(node_name)
        # the pod NodeInfo.remove_pod takes out: the first with ``pod``'s uid
        gone = next((pi.pod for pi in info.pods if pi.pod.uid == pod.uid), None)
        if gone is not None and info.remove_pod(pod):
            self._count(gone.namespace, node_name, -1)
            self._index_anti(info)
            self._index_cpu(info)

    def _index_cpu(self, info: NodeInfo) -> None:
        left = info.allocatable.get("cpu", 0) - info.requested.get("cpu", 0)
        self._free_cpu[self._pos[info.name]] = left

    def _index_anti(self, info: NodeInfo) -> None:
        if info.pods_with_required_anti_affinity:
            self._anti[info.name] = None
        else:
            self._anti.pop(info.name, None)

    def _count(self, namespace: str, node_name: str, delta: int) -> None:
        if namespace not in self._ns_owned:
            self._ns[namespace] = dict(self._ns.get(namespace, {}))
            self._ns_owned.add(namespace)
        counts = self._ns[namespace]
        left = counts.get(node_name, 0) + delta
        if left > 0:
            counts[node_name] = left
        else:
            counts.pop(node_name, None)

    def _own(self, name: str) -> NodeInfo:
        if name not in self._owned:
            self._infos[name] = self._infos[name].clone()
            self._owned.add(name)
            self._list = None
        return self._infos[name]

    def fork(self) -> ClusterSnapshot:
        """A copy to simulate on; this snapshot stays as it is whatever the copy does."""
        copy = ClusterSnapshot(self.raw)
        copy._infos = dict(self._infos)
        copy._pos = dict(self._pos)
        copy._anti = dict(self._anti)
        copy._ns = dict(self._ns)
        copy._free_cpu = list(self._free_cpu)
        copy.nodes_version = self.nodes_version
        self._owned = set()  # the NodeInfos are shared now: both sides copy before writing
        self._ns_owned = set()  # so are the namespace counts
        return copy

    # ---- reading (the framework's SharedLister)

    def list(self) -> Sequence[NodeInfo]:
        if self._list is None:
            self._list = [*self._infos.values()]
        return self._list

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return [ni for ni in self.list() if ni.pods_with_affinity]

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return self.in_order(self._anti)

    def in_order(self, names: Iterable[str]) -> Sequence[NodeInfo]:
        """The NodeInfos of ``names`` (nodes of this snapshot), in the snapshot's order."""
        return [self._infos[n] for n in sorted(names, key=self._pos.__getitem__)]

    def free_cpu(self) -> Sequence[int]:
        """Each node's allocatable cpu less the cpu its pods request, in the snapshot's order."""
        return self._free_cpu

    def nodes_with_pods_in(self, namespace: str) -> Iterable[str]:
        """The nodes holding at least one pod of ``namespace``."""
        return self._ns.get(namespace, {}).keys()

    def get(self, node_name: str) -> NodeInfo | None:
        return self._infos.get(node_name)

    def node_names(self) -> tuple[str, ...]:
        return tuple(self._infos)

    def pods_on(self, node_name: str) -> tuple[Pod, ...]:
        info = self._infos.get(node_name)
        return () if info is None else tuple(pi.pod for pi in info.pods)

    def raw_of(self, pod: Pod) -> Mapping[str, Any]:
        return self.raw.get(pod.uid) or {"metadata": {"name": pod.name}, "spec": {}}

    def __contains__(self, node_name: object) -> bool:
        return node_name in self._infos

    def __len__(self) -> int:
        return len(self._infos)
