"""NodeUnschedulable: rejects cordoned nodes unless the pod tolerates the unschedulable taint.

Mirrors ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedspec.impl.api import Node, Pod, Taint, Toleration
from schedspec.impl.framework.args import check_fields
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.events import (
    NODE,
    POD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventObject,
    QueueingHint,
)
from schedspec.impl.framework.helpers import tolerations_tolerate_taint
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import NodeInfo

__all__ = ["ERR_REASON_UNSCHEDULABLE", "NAME", "NodeUnschedulable", "fits"]

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "NoSchedule")


def fits(pod: Pod, node: Node) -> bool:
    """``¬unschedulable ∨ pod tolerates {node.kubernetes.io/unschedulable: NoSchedule}``."""
    return not node.unschedulable or tolerations_tolerate_taint(
        pod.tolerations, _UNSCHEDULABLE_TAINT
    )


_REJECT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNSCHEDULABLE,))


class NodeUnschedulable:
    def name(self) -> str:
        return NAME

    def filter_signature(self, state: CycleState, pod: Pod) -> tuple[Toleration, ...]:
        """Filter reads the pod's tolerations only (``NodeLocalFilter``)."""
        return pod.tolerations

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None or not node.unschedulable:
            return None
        return None if fits(pod, node) else _REJECT

    # ---- QueueingHints (node_unschedulable.go EventsToRegister, isSchedulableAfter*)

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        node_hint = self.is_schedulable_after_node_change
        if not queueing_hints:
            action = ActionType.ADD | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
            return [ClusterEventWithHint(ClusterEvent(NODE, action), node_hint)]
        return [
            ClusterEventWithHint(
                ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), node_hint
            ),
            ClusterEventWithHint(
                ClusterEvent(POD, ActionType.UPDATE_POD_TOLERATION),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Queue when a node is added schedulable or gets uncordoned."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE
        if (old is None and not new.unschedulable) or (
            old is not None and old.unschedulable and not new.unschedulable
        ):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Queue when the pod itself now tolerates the unschedulable taint."""
        if not isinstance(new, Pod):
            return QueueingHint.QUEUE
        if new.uid == pod.uid and tolerations_tolerate_taint(new.tolerations, _UNSCHEDULABLE_TAINT):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> NodeUnschedulable:
        check_fields(args, "NodeUnschedulableArgs", ())
        return NodeUnschedulable()
