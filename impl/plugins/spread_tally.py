"""PodTopologySpread's PreFilter counts, kept from one cycle to the next.

Upstream (``podtopologyspread/filtering.go`` ``calPreFilterState``, v1.34) counts, every cycle,
the matching pods of every eligible node in parallel. The counts depend on the constraints'
keys and selectors, the pod's namespace and — through the node inclusion policies — on the pod's
required node affinity and tolerations. When inclusion does not depend on the pod (no node
selector or required node affinity to honour, no taints policy to honour), the counts are a sum
over nodes of what each node alone contributes: this module keeps that sum per question and,
each cycle, recounts only the nodes the snapshot replaced since (``Snapshot.changed_since``).
The result is the same map of topology value → count (a value present exactly when some
eligible node carries it) that a full count gives.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Protocol, runtime_checkable

from schedspec.impl.framework.types import NodeInfo

__all__ = ["ChangeLog", "Share", "SpreadTally", "Tallies"]

Share = tuple[tuple[str, int], ...]  # per constraint: (topology value, matching pods)


@runtime_checkable
class ChangeLog(Protocol):
    """A snapshot that says which NodeInfos it replaced (``impl.cache.Snapshot``)."""

    generation: int

    def list(self) -> Sequence[NodeInfo]: ...

    def get(self, node_name: str) -> NodeInfo | None: ...

    def changed_since(self, generation: int) -> set[str] | None: ...


class SpreadTally:
    """Per constraint: topology value → matching pods, and → eligible nodes carrying it."""

    __slots__ = ("counts", "generation", "nodes", "share")

    def __init__(self, width: int) -> None:
        self.counts: list[dict[str, int]] = [{} for _ in range(width)]
        self.nodes: list[dict[str, int]] = [{} for _ in range(width)]
        self.share: dict[str, Share] = {}
        self.generation = -1

    def add(self, name: str, share: Share | None, sign: int) -> None:
        if share is None:
            return
        if sign > 0:
            self.share[name] = share
        for i, (value, n) in enumerate(share):
            counts, nodes = self.counts[i], self.nodes[i]
            left = nodes.get(value, 0) + sign
            if left == 0:
                del nodes[value], counts[value]
            else:
                nodes[value] = left
                counts[value] = counts.get(value, 0) + sign * n


class Tallies:
    """The tallies of the questions asked lately (at most ``limit``), by question."""

    def __init__(self, limit: int = 16) -> None:
        self._tallies: dict[Hashable, SpreadTally] = {}
        self._limit = limit

    def counts(
        self,
        question: Hashable,
        width: int,
        snapshot: ChangeLog,
        share_of: Callable[[NodeInfo], Share | None],
    ) -> list[dict[str, int]]:
        """Fresh copies of the counts for ``question`` on ``snapshot``; ``share_of(ni)`` is
        what one node contributes (None: not eligible)."""
        tally = self._tallies.get(question)
        changed = None if tally is None else snapshot.changed_since(tally.generation)
        if tally is None or changed is None:
            tally = SpreadTally(width)
            for ni in snapshot.list():
                tally.add(ni.name, share_of(ni), 1)
        else:
            for name in changed:
                tally.add(name, tally.share.pop(name, None), -1)
                fresh = snapshot.get(name)
                if fresh is not None and fresh.node is not None:
                    tally.add(name, share_of(fresh), 1)
        tally.generation = snapshot.generation
        if question not in self._tallies and len(self._tallies) >= self._limit:
            self._tallies.clear()
        self._tallies[question] = tally
        return [dict(c) for c in tally.counts]
