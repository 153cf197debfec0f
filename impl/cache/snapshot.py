"""``Snapshot``: the cluster as one scheduling cycle sees it (``backend/cache/snapshot.go``).

Holds clones of the cache's NodeInfos (only nodes whose Node object is known), listed in the
zone-interleaved order of the node tree, plus the sub-lists of nodes with pods that have
(anti-)affinity. ``Cache.update_snapshot`` refreshes it in place before every cycle, cloning
only the NodeInfos that changed, and notes which (``advance``): a plugin that keeps a sum over
all nodes from one cycle to the next asks ``changed_since`` which nodes to recount.
"""

from __future__ import annotations

from collections.abc import Sequence

from schedspec.impl.framework.types import NodeInfo

__all__ = ["Snapshot"]

_LOG_LIMIT = 256  # updates remembered by ``changed_since``


class Snapshot:
    def __init__(self) -> None:
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_info_list: list[NodeInfo] = []
        self.index: dict[str, int] = {}
        self.with_affinity: list[NodeInfo] = []
        self.with_required_anti_affinity: list[NodeInfo] = []
        self.generation = 0
        self._log: list[tuple[int, frozenset[str]]] = []  # (generation, names refreshed in it)
        self._relisted = 0  # the generation whose update rebuilt the node list

    def advance(self, refreshed: frozenset[str], relisted: bool) -> None:
        """One update done: ``refreshed`` NodeInfos replaced; ``relisted``: nodes came, went
        or moved (every sum over the nodes is then to be made afresh)."""
        self.generation += 1
        if relisted:
            self._relisted, self._log = self.generation, []
        elif refreshed:
            self._log.append((self.generation, refreshed))
            if len(self._log) > _LOG_LIMIT:
                del self._log[: len(self._log) - _LOG_LIMIT]

    def changed_since(self, generation: int) -> set[str] | None:
        """The nodes whose NodeInfo was replaced after ``generation``; None when that is not
        known (the list was rebuilt since, or the log no longer reaches back that far)."""
        if generation < self._relisted or generation > self.generation:
            return None
        if self._log and self._log[0][0] > generation + 1 and len(self._log) >= _LOG_LIMIT:
            return None
        out: set[str] = set()
        for at, names in reversed(self._log):
            if at <= generation:
                break
            out |= names
        return out

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
