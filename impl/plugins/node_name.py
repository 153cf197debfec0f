"""NodeName: a pod naming a node (``spec.nodeName``) fits only that node.

Mirrors ``pkg/scheduler/framework/plugins/nodename/node_name.go``. Queued pods have no
nodeName, so in a scheduling cycle this never rejects; it matters to simulations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedspec.impl.api import Node, Pod
from schedspec.impl.framework.args import check_fields
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.events import (
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
)
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import NodeInfo

__all__ = ["ERR_REASON", "NAME", "NodeName", "fits"]

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"
_REJECT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,))


def fits(pod: Pod, node: Node) -> bool:
    return not pod.node_name or pod.node_name == node.name


class NodeName:
    def name(self) -> str:
        return NAME

    def filter_signature(self, state: CycleState, pod: Pod) -> str:
        """Filter reads the pod's ``nodeName`` only (``NodeLocalFilter``)."""
        return pod.node_name

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.node_name or node_info.node is None or fits(pod, node_info.node):
            return None
        return _REJECT

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        """Only a new node can carry the requested name (node_name.go; no hint)."""
        action = ActionType.ADD
        if not queueing_hints:
            action |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [ClusterEventWithHint(ClusterEvent(NODE, action))]

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> NodeName:
        check_fields(args, "NodeNameArgs", ())
        return NodeName()
