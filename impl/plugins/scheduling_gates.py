"""SchedulingGates: a PreEnqueue plugin keeping gated pods out of the active queue.

Mirrors ``pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.framework.args import check_fields
from schedspec.impl.framework.events import (
    POD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventObject,
    QueueingHint,
)
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status

__all__ = ["NAME", "SchedulingGates", "ungated"]

NAME = "SchedulingGates"


def ungated(pod: Pod) -> bool:
    return not pod.scheduling_gates


class SchedulingGates:
    def name(self) -> str:
        return NAME

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if ungated(pod):
            return None
        gates = " ".join(pod.scheduling_gates)
        return Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"waiting for scheduling gates: [{gates}]",)
        )

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        """Only the pod's own gates going away (scheduling_gates.go); nothing with the gate
        off, where the pod's update moves it."""
        if not queueing_hints:
            return []
        event = ClusterEvent(POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
        return [ClusterEventWithHint(event, self.is_schedulable_after_gates_eliminated)]

    def is_schedulable_after_gates_eliminated(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        if isinstance(new, Pod) and new.uid != pod.uid:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> SchedulingGates:
        check_fields(args, "SchedulingGatesArgs", ())
        return SchedulingGates()
