"""NodePorts: a pod's host ports must be free on the node.

Mirrors ``pkg/scheduler/framework/plugins/nodeports/node_ports.go`` (v1.34): the wanted ports
are the hostPorts of the containers and sidecars (``util.GetHostPorts``); 0.0.0.0 conflicts with
the same protocol/port on any IP, another IP with itself or 0.0.0.0. PreFilter skips pods
without host ports. Failure is Unschedulable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schedspec.impl.api import Pod
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
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import NodeInfo, PreFilterResult, host_ports

__all__ = ["ERR_REASON", "NAME", "NodePorts", "fits", "fits_ports"]

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
_REJECT = Status(Code.UNSCHEDULABLE, (ERR_REASON,))
_SKIP = Status(Code.SKIP)
_STATE_KEY = "PreFilter" + NAME


def fits_ports(wanted: Sequence[tuple[str, str, int]], node_info: NodeInfo) -> bool:
    used = node_info.used_ports
    return not any(used.check_conflict(ip, proto, port) for ip, proto, port in wanted)


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """No host port of ``pod`` conflicts with one in use on the node."""
    return fits_ports(host_ports(pod), node_info)


class _State:
    __slots__ = ("ports",)

    def __init__(self, ports: tuple[tuple[str, str, int], ...]) -> None:
        self.ports = ports

    def clone(self) -> _State:
        return self


class NodePorts:
    def name(self) -> str:
        return NAME

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        ports = host_ports(pod)
        if not ports:
            return None, _SKIP
        state.write(_STATE_KEY, _State(ports))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter_signature(self, state: CycleState, pod: Pod) -> tuple[tuple[str, str, int], ...]:
        """Filter reads the pod's host ports only (``NodeLocalFilter``)."""
        s = state.read_as(_STATE_KEY, _State)
        return s.ports if s else host_ports(pod)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.read_as(_STATE_KEY, _State)
        wanted = s.ports if s else host_ports(pod)
        return None if fits_ports(wanted, node_info) else _REJECT

    # ---- QueueingHints (node_ports.go EventsToRegister, isSchedulableAfterPodDeleted)

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        node_action = ActionType.ADD
        if not queueing_hints:
            node_action |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [
            ClusterEventWithHint(
                ClusterEvent(POD, ActionType.DELETE), self.is_schedulable_after_pod_deleted
            ),
            ClusterEventWithHint(ClusterEvent(NODE, node_action)),
        ]

    def is_schedulable_after_pod_deleted(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Queue when the deleted pod was bound or nominated and held a port the pod wants."""
        if not isinstance(old, Pod):
            return QueueingHint.QUEUE
        if not old.node_name and not old.nominated_node_name:
            return QueueingHint.QUEUE_SKIP
        ports = host_ports(old)
        if not ports:
            return QueueingHint.QUEUE_SKIP
        freed = NodeInfo()
        for ip, protocol, port in ports:
            freed.used_ports.add(ip, protocol, port)
        return QueueingHint.QUEUE_SKIP if fits(pod, freed) else QueueingHint.QUEUE

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> NodePorts:
        check_fields(args, "NodePortsArgs", ())
        return NodePorts()
