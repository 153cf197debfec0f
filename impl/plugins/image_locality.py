"""ImageLocality: favour nodes that already have the pod's images, weighted by how widely spread
each image is.

Mirrors ``pkg/scheduler/framework/plugins/imagelocality/image_locality.go`` (v1.34):
``sum = Σ_{containers and init containers} size · (nodes with the image / all nodes)`` over
images present on the node (names normalized with ``:latest`` when untagged), clamped to
``[23 MiB, 1000 MiB · #containers]`` and scaled to 0..100. No normalization.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.framework.args import check_fields
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.helpers import normalized_image_name
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Status
from schedspec.impl.framework.types import MAX_NODE_SCORE, NodeInfo

__all__ = ["NAME", "ImageLocality", "normalized_image_name", "score"]

NAME = "ImageLocality"
_MB = 1024 * 1024
MIN_THRESHOLD = 23 * _MB
MAX_CONTAINER_THRESHOLD = 1000 * _MB


def _sum_image_scores(pod: Pod, node_info: NodeInfo, total_nodes: int) -> int:
    states = node_info.image_states
    total = 0
    for c in (*pod.init_containers, *pod.containers):
        state = states.get(normalized_image_name(c.image))
        if state is not None:
            total += int(state.size * (state.num_nodes / total_nodes))
    return total


def score(pod: Pod, node_info: NodeInfo, total_nodes: int) -> int:
    """0..100 for ``node_info`` in a cluster of ``total_nodes`` nodes."""
    if not node_info.image_states or total_nodes == 0:
        return 0
    containers = len(pod.init_containers) + len(pod.containers)
    high = MAX_CONTAINER_THRESHOLD * containers
    total = min(max(_sum_image_scores(pod, node_info, total_nodes), MIN_THRESHOLD), high)
    return MAX_NODE_SCORE * (total - MIN_THRESHOLD) // (high - MIN_THRESHOLD)


class ImageLocality:
    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def name(self) -> str:
        return NAME

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if not node_info.image_states:
            return 0, None
        total = len(self._handle.snapshot_shared_lister().list())
        return score(pod, node_info, total), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """``score`` on each of ``nodes`` in one call (``BatchScorer``); most nodes of a
        cluster without image states score 0 without a call."""
        total = len(self._handle.snapshot_shared_lister().list())
        return [score(pod, ni, total) if ni.image_states else 0 for ni in nodes], None

    def score_extensions(self) -> None:
        return None

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> ImageLocality:
        check_fields(args, "ImageLocalityArgs", ())
        return ImageLocality(handle)
