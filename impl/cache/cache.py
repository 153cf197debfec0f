"""The scheduler cache: nodes, the pods on them, and pods assumed but not yet bound.

Mirrors ``pkg/scheduler/backend/cache/cache.go`` (v1.34). A pod's life in the cache::

                 assume_pod              add_pod (bind observed)
      (absent) ─────────────▶ Assumed ─────────────────────────▶ Added ◀──┐
         ▲                     │   │                               │  │    │ update_pod
         │      forget_pod     │   │ finish_binding + TTL passes   │  └────┘
         ├─────────────────────┘   ▼                               │
         │                      Expired (cleanup_assumed_pods)     │ remove_pod
         │                         │                               ▼
         └─────────────────────────┴─────────────────────────── Deleted
                add_pod of an expired pod brings it back as Added

- ``assume_pod``: the scheduling cycle chose a node; the pod counts there at once.
- ``finish_binding``: the binding call returned; the TTL clock starts (TTL 0 = never expires,
  the v1.34 default ``durationToExpireAssumedPod``).
- ``forget_pod``: the binding cycle failed; the pod leaves the node.
- ``add_pod``: the watch shows the pod bound; an assumed pod is confirmed (moved if the node
  differs), any other pod is added.

Terminal pods are never added. A pod may name a node the cache does not know: its NodeInfo is
kept with ``node`` None and is not offered to plugins until the Node arrives.
"""

from __future__ import annotations

from dataclasses import dataclass

from schedspec.impl.api import Node, Pod
from schedspec.impl.cache.node_tree import NodeTree
from schedspec.impl.cache.snapshot import Snapshot
from schedspec.impl.framework.helpers import normalized_image_name
from schedspec.impl.framework.types import ImageStateSummary, NodeInfo, PodInfo

__all__ = ["Cache", "CacheError"]


class CacheError(Exception):
    """A cache call out of order (assuming a known pod, forgetting an unassumed one, …)."""


@dataclass(slots=True)
class _PodState:
    pod: Pod
    binding_finished: bool = False
    deadline: float | None = None


class Cache:
    def __init__(self, ttl: float = 0.0) -> None:
        self.ttl = ttl
        self._nodes: dict[str, NodeInfo] = {}
        self._tree = NodeTree()
        self._pods: dict[str, _PodState] = {}
        self._assumed: set[str] = set()
        self._images: dict[str, tuple[ImageStateSummary, set[str]]] = {}
        self._dirty: set[str] = set()
        self._nodes_changed = True
        self._last_snapshot: Snapshot | None = None

    # ---- pods

    def _node_info(self, name: str) -> NodeInfo:
        ni = self._nodes.get(name)
        if ni is None:
            ni = self._nodes[name] = NodeInfo()
            ni.name = name
        return ni

    def _add(self, pod: Pod) -> None:
        self._node_info(pod.node_name).add_pod(PodInfo(pod))
        self._dirty.add(pod.node_name)

    def _remove(self, pod: Pod) -> None:
        ni = self._nodes.get(pod.node_name)
        if ni is None or not ni.remove_pod(pod):
            raise CacheError(f"pod {pod.key} is not on node {pod.node_name!r}")
        self._dirty.add(pod.node_name)
        if ni.node is None and not ni.pods:
            del self._nodes[pod.node_name]

    def assume_pod(self, pod: Pod) -> None:
        """Count ``pod`` (with ``node_name`` set to the chosen node) on that node."""
        if pod.uid in self._pods:
            raise CacheError(f"pod {pod.key} is in the cache, so can't be assumed")
        self._add(pod)
        self._pods[pod.uid] = _PodState(pod)
        self._assumed.add(pod.uid)

    def finish_binding(self, pod: Pod, now: float) -> None:
        state = self._pods.get(pod.uid)
        if state is not None and pod.uid in self._assumed:
            state.binding_finished = True
            state.deadline = now + self.ttl if self.ttl > 0 else None

    def forget_pod(self, pod: Pod) -> None:
        state = self._pods.get(pod.uid)
        if state is None or pod.uid not in self._assumed:
            raise CacheError(f"pod {pod.key} wasn't assumed so cannot be forgotten")
        if state.pod.node_name != pod.node_name:
            raise CacheError(
                f"pod {pod.key} was assumed on {state.pod.node_name}, not {pod.node_name}"
            )
        self._remove(state.pod)
        del self._pods[pod.uid]
        self._assumed.discard(pod.uid)

    def add_pod(self, pod: Pod) -> None:
        """A bound pod appeared (or an assumed one's binding is observed)."""
        if pod.is_terminal:
            return
        state = self._pods.get(pod.uid)
        if state is not None and pod.uid in self._assumed:
            if state.pod.node_name != pod.node_name or state.pod != pod:
                self._remove(state.pod)
                self._add(pod)
            self._assumed.discard(pod.uid)
            self._pods[pod.uid] = _PodState(pod)
            return
        if state is None:
            self._add(pod)
            self._pods[pod.uid] = _PodState(pod)

    def update_pod(self, old: Pod, new: Pod) -> None:
        state = self._pods.get(old.uid)
        if state is None or old.uid in self._assumed:
            return
        self._remove(state.pod)
        del self._pods[old.uid]
        self.add_pod(new)

    def remove_pod(self, pod: Pod) -> None:
        state = self._pods.pop(pod.uid, None)
        if state is not None:
            self._remove(state.pod)
            self._assumed.discard(pod.uid)

    def is_assumed(self, pod: Pod) -> bool:
        return pod.uid in self._assumed

    def get_pod(self, uid: str) -> Pod | None:
        state = self._pods.get(uid)
        return state.pod if state else None

    def cleanup_assumed_pods(self, now: float) -> list[Pod]:
        """Expire assumed pods whose binding finished more than the TTL ago."""
        expired = [
            s.pod
            for uid, s in self._pods.items()
            if uid in self._assumed
            and s.binding_finished
            and s.deadline is not None
            and now >= s.deadline
        ]
        for pod in expired:
            self.remove_pod(pod)
        return expired

    def pod_count(self) -> int:
        return len(self._pods)

    # ---- nodes

    def add_node(self, node: Node) -> None:
        ni = self._node_info(node.name)
        if ni.node is not None:
            self._remove_images(ni.node)
        ni.set_node(node)
        self._add_images(ni)
        self._tree.add(node.name, node.labels)
        self._dirty.add(node.name)
        self._nodes_changed = True

    def update_node(self, node: Node) -> None:
        self._tree.update(node.name, node.labels)
        self.add_node(node)

    def remove_node(self, name: str) -> None:
        ni = self._nodes.get(name)
        if ni is None or ni.node is None:
            return
        self._remove_images(ni.node)
        ni.node = None
        if not ni.pods:
            del self._nodes[name]
        self._tree.remove(name)
        self._dirty.add(name)
        self._nodes_changed = True

    def node_count(self) -> int:
        return len(self._tree)

    def _add_images(self, ni: NodeInfo) -> None:
        ni.image_states = {}
        assert ni.node is not None
        for image in ni.node.images:
            for raw in image.names:
                name = normalized_image_name(raw)
                summary, nodes = self._images.setdefault(
                    name, (ImageStateSummary(image.size_bytes, 0), set())
                )
                nodes.add(ni.name)
                summary.num_nodes = len(nodes)
                ni.image_states[name] = summary

    def _remove_images(self, node: Node) -> None:
        for image in node.images:
            for raw in image.names:
                name = normalized_image_name(raw)
                entry = self._images.get(name)
                if entry is None:
                    continue
                entry[1].discard(node.name)
                entry[0].num_nodes = len(entry[1])
                if not entry[1]:
                    del self._images[name]

    # ---- snapshot

    def update_snapshot(self, snapshot: Snapshot) -> None:
        """Bring ``snapshot`` up to date, cloning only the NodeInfos changed since last time
        (everything, the first time a snapshot is seen)."""
        if snapshot is not self._last_snapshot:
            self._last_snapshot = snapshot
            snapshot.node_info_map.clear()
            self._dirty.update(self._nodes)
            self._nodes_changed = True
        affinity_changed = self._nodes_changed
        for name in self._dirty:
            old = snapshot.node_info_map.pop(name, None)
            ni = self._nodes.get(name)
            fresh = ni.clone() if ni is not None and ni.node is not None else None
            if fresh is not None:
                snapshot.node_info_map[name] = fresh
                index = snapshot.index.get(name)
                if index is not None and not self._nodes_changed:
                    snapshot.node_info_list[index] = fresh
            affinity_changed |= _has_affinity(old) or _has_affinity(fresh)
        if self._nodes_changed:
            snapshot.node_info_list = [snapshot.node_info_map[n] for n in self._tree.list()]
            snapshot.index = {ni.name: i for i, ni in enumerate(snapshot.node_info_list)}
        if affinity_changed:
            nodes = snapshot.node_info_list
            snapshot.with_affinity = [ni for ni in nodes if ni.pods_with_affinity]
            snapshot.with_required_anti_affinity = [
                ni for ni in nodes if ni.pods_with_required_anti_affinity
            ]
        snapshot.advance(frozenset(self._dirty), self._nodes_changed)
        self._dirty.clear()
        self._nodes_changed = False


def _has_affinity(ni: NodeInfo | None) -> bool:
    return ni is not None and bool(ni.pods_with_affinity or ni.pods_with_required_anti_affinity)
