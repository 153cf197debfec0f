"""``Snapshot``: the cluster as one scheduling cycle sees it (``backend/cache/snapshot.go``).

Holds clones of the cache's NodeInfos (only nodes whose Node object is known), listed in the
zone-interleaved order of the node tree, plus the sub-lists of nodes with pods that have
(anti-)affinity. ``Cache.update_snapshot`` refreshes it in place before every cycle, cloning
only the NodeInfos that changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from schedspec.impl.framework.types import NodeInfo

__all__ = ["Snapshot"]


class Snapshot:
    def __init__(self) -> None:
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_info_list: list[NodeInfo] = []
        self.index: dict[str, int] = {}
        self.with_affinity: list[NodeInfo] = []
        self.with_required_anti_affinity: list[NodeInfo] = []
        self.generation = 0

    def list(self) -> Sequence[NodeInfo]:
        return self.node_info_list

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return self.with_affinity

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return self.with_required_anti_affinity

    def get(self, node_name: str) -> NodeInfo | None:
        return self.node_info_map.get(node_name)

    def __len__(self) -> int:
        return len(self.node_info_list)
