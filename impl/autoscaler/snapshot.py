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
        self.raw: dict[str, Mapping[str, Any]] = raw if raw is not None else {}

    # ---- building and changing

    def add_node(self, node: Node, pods: Iterable[Pod] = ()) -> None:
        """A node (with pods already bound to it, e.g. a template's DaemonSet pods)."""
        if node.name in self._infos:
            raise ValueError(f"node {node.name!r} is already in the snapshot")
        self._infos[node.name] = NodeInfo(node, [p.assigned_to(node.name) for p in pods])
        self._owned.add(node.name)
        self._list = None

    def add_pod(self, pod: Pod, node_name: str) -> Pod:
        """Place ``pod`` on ``node_name`` unchecked (``ForceAddPod``); returns the bound copy."""
        bound = pod if pod.node_name == node_name else pod.assigned_to(node_name)
        self._own(node_name).add_pod(PodInfo(bound))
        return bound

    def remove_pod(self, pod: Pod, node_name: str) -> None:
        self._own(node_name).remove_pod(pod)

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
        self._owned = set()  # the NodeInfos are shared now: both sides copy before writing
        return copy

    # ---- reading (the framework's SharedLister)

    def list(self) -> Sequence[NodeInfo]:
        if self._list is None:
            self._list = [*self._infos.values()]
        return self._list

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return [ni for ni in self.list() if ni.pods_with_affinity]

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return [ni for ni in self.list() if ni.pods_with_required_anti_affinity]

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
