"""The estimation limiter: how many new nodes one binpacking run may add.

Mirrors ``estimator/threshold_based_limiter.go`` with the thresholds upstream's builder gives it
(``static_threshold.go`` for ``--max-nodes-per-scaleup``, ``sng_capacity_threshold.go``,
``cluster_capacity_threshold.go``). The limit is the least of the positive ones among
``--max-nodes-per-scaleup``, ``max − target`` of the group (no node at all if ≤ 0) and
``--max-nodes-total − |nodes|`` when that flag is > 0 (no node at all if ≤ 0). The binpacking
time limits are declared out.
"""

from __future__ import annotations

__all__ = ["MAX_NODES_PER_SCALE_UP", "EstimationLimiter"]

MAX_NODES_PER_SCALE_UP = 1000  # --max-nodes-per-scaleup


class EstimationLimiter:
    def __init__(
        self,
        group_headroom: int,
        max_nodes_total: int,
        cluster_nodes: int,
        max_nodes_per_scale_up: int = MAX_NODES_PER_SCALE_UP,
    ) -> None:
        limits = [max_nodes_per_scale_up, group_headroom]
        if max_nodes_total > 0:
            limits.append(max_nodes_total - cluster_nodes)
        refused = group_headroom <= 0 or (max_nodes_total > 0 and limits[-1] <= 0)
        positive = [n for n in limits if n > 0]
        self.limit = 0 if refused or not positive else min(positive)
        self.added = 0

    def permission_to_add_node(self) -> bool:
        """True (and one more node counted) while fewer than ``limit`` were added."""
        if self.added >= self.limit:
            return False
        self.added += 1
        return True
