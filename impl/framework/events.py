"""Cluster events and QueueingHints: what moves a pod out of the unschedulable pool.

Mirrors ``k8s.io/kube-scheduler/framework/types.go`` (``ActionType``, ``EventResource``,
``ClusterEvent``, ``QueueingHint``, ``ClusterEventWithHint``) and
``pkg/scheduler/framework/events.go`` + ``types.go`` (``MatchClusterEvents``, the
``*SchedulingPropertiesChange`` extractors, the internal ``AssignedPod``/``UnschedulablePod``
resources) of v1.34.

A plugin that can reject a pod says which cluster events could make that pod schedulable again
(``events_to_register``); each registration carries an optional hint function
``fn(pod, old, new) -> QueueingHint`` that looks at the concrete objects (``Node``/``Pod`` or
None) and answers Queue or QueueSkip. A hint that raises counts as Queue, as upstream treats an
error. A plugin without ``events_to_register`` is interested in everything (the wildcard).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Protocol, runtime_checkable

from schedspec.impl.api import Node, Pod

__all__ = [
    "ASSIGNED_POD",
    "EVENT_ASSIGNED_POD_ADD",
    "EVENT_ASSIGNED_POD_DELETE",
    "EVENT_ASSIGNED_POD_UPDATE",
    "EVENT_FORCE_ACTIVATE",
    "EVENT_UNSCHEDULABLE_TIMEOUT",
    "EVENT_UNSCHEDULED_POD_ADD",
    "EVENT_UNSCHEDULED_POD_DELETE",
    "EVENT_UNSCHEDULED_POD_UPDATE",
    "NODE",
    "POD",
    "UNSCHEDULABLE_POD",
    "WILDCARD",
    "ActionType",
    "ClusterEvent",
    "ClusterEventWithHint",
    "EnqueueExtensions",
    "EventObject",
    "QueueingHint",
    "QueueingHintFn",
    "match_any_cluster_event",
    "match_cluster_events",
    "node_scheduling_properties_change",
    "pod_scheduling_properties_change",
    "unroll_wildcard_resource",
]


class ActionType(IntFlag):
    """What happened to an object; the Update bits are fine-grained (same order as upstream)."""

    NONE = 0
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    UPDATE_POD_SCALE_DOWN = 1 << 8
    UPDATE_POD_TOLERATION = 1 << 9
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 11
    UPDATE = (
        UPDATE_NODE_ALLOCATABLE
        | UPDATE_NODE_LABEL
        | UPDATE_NODE_TAINT
        | UPDATE_NODE_CONDITION
        | UPDATE_NODE_ANNOTATION
        | UPDATE_POD_LABEL
        | UPDATE_POD_SCALE_DOWN
        | UPDATE_POD_TOLERATION
        | UPDATE_POD_SCHEDULING_GATES_ELIMINATED
        | UPDATE_POD_GENERATED_RESOURCE_CLAIM
    )
    ALL = (1 << 12) - 1


_ACTION_LABELS = {
    ActionType.ADD: "Add",
    ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint",
    ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    ActionType.UPDATE_POD_TOLERATION: "UpdatePodToleration",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim",
    ActionType.UPDATE: "Update",
    ActionType.ALL: "All",
}

# Event resources (only the ones schedspec models; volumes and DRA are out of scope).
POD = "Pod"
NODE = "Node"
WILDCARD = "*"
# Internal resources for incoming Pod events only; never used in a registration.
ASSIGNED_POD = "AssignedPod"
UNSCHEDULABLE_POD = "UnschedulablePod"


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    resource: str
    action_type: ActionType
    custom_label: str = ""

    @property
    def label(self) -> str:
        """``NodeAdd``, ``AssignedPodDelete``, … or the custom label."""
        if self.custom_label:
            return self.custom_label
        action = _ACTION_LABELS.get(self.action_type, str(int(self.action_type)))
        return f"{self.resource}{action}"

    def is_wildcard(self) -> bool:
        return self.resource == WILDCARD and self.action_type == ActionType.ALL


class QueueingHint(IntEnum):
    QUEUE_SKIP = 0
    QUEUE = 1


EventObject = Node | Pod | None
QueueingHintFn = Callable[[Pod, EventObject, EventObject], QueueingHint]


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    event: ClusterEvent
    hint: QueueingHintFn | None = None


@runtime_checkable
class EnqueueExtensions(Protocol):
    """A plugin that says which events may make the pods it rejected schedulable.

    ``queueing_hints`` is the ``SchedulerQueueingHints`` gate: some plugins register fewer
    events when their hints can filter them (upstream ``enableSchedulingQueueHint``)."""

    def name(self) -> str: ...

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]: ...


EVENT_ASSIGNED_POD_ADD = ClusterEvent(ASSIGNED_POD, ActionType.ADD)
EVENT_ASSIGNED_POD_UPDATE = ClusterEvent(ASSIGNED_POD, ActionType.UPDATE)
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(ASSIGNED_POD, ActionType.DELETE)
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(UNSCHEDULABLE_POD, ActionType.ADD)
EVENT_UNSCHEDULED_POD_UPDATE = ClusterEvent(UNSCHEDULABLE_POD, ActionType.UPDATE)
EVENT_UNSCHEDULED_POD_DELETE = ClusterEvent(UNSCHEDULABLE_POD, ActionType.DELETE)
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ActionType.ALL, "UnschedulableTimeout")
EVENT_FORCE_ACTIVATE = ClusterEvent(WILDCARD, ActionType.ALL, "ForceActivate")


def _match_resources(registered: str, incoming: str) -> bool:
    return registered in (WILDCARD, incoming) or (
        registered == POD and incoming in (ASSIGNED_POD, UNSCHEDULABLE_POD)
    )


def match_cluster_events(registered: ClusterEvent, incoming: ClusterEvent) -> bool:
    """``incoming`` is the same as or more specific than ``registered``
    (``MatchClusterEvents``): a registration for Node/Update matches Node/UpdateNodeLabel, not
    the other way round."""
    return registered.is_wildcard() or (
        _match_resources(registered.resource, incoming.resource)
        and bool(registered.action_type & incoming.action_type)
        and incoming.action_type <= registered.action_type
    )


def match_any_cluster_event(incoming: ClusterEvent, registered: Sequence[ClusterEvent]) -> bool:
    return any(match_cluster_events(r, incoming) for r in registered)


def unroll_wildcard_resource() -> list[ClusterEventWithHint]:
    """What a plugin without ``events_to_register`` is registered for (the resources
    schedspec models)."""
    return [
        ClusterEventWithHint(ClusterEvent(POD, ActionType.ALL)),
        ClusterEventWithHint(ClusterEvent(NODE, ActionType.ALL)),
    ]


# ------------------------------------------------------------------------------ extractors


def pod_scheduling_properties_change(new: Pod, old: Pod) -> list[ClusterEvent]:
    """The fine-grained events of a Pod update, against AssignedPod or UnschedulablePod;
    a generic Update when none applies (``PodSchedulingPropertiesChange``)."""
    resource = ASSIGNED_POD if new.node_name else UNSCHEDULABLE_POD
    actions = [
        ActionType.UPDATE_POD_LABEL if dict(new.labels) != dict(old.labels) else ActionType.NONE,
        _scale_down(new, old),
        ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
        if not new.scheduling_gates and old.scheduling_gates
        else ActionType.NONE,
        ActionType.UPDATE_POD_TOLERATION
        if len(new.tolerations) != len(old.tolerations)
        else ActionType.NONE,
    ]
    events = [ClusterEvent(resource, a) for a in actions if a != ActionType.NONE]
    return events or [ClusterEvent(resource, ActionType.UPDATE)]


def _scale_down(new: Pod, old: Pod) -> ActionType:
    for name, amount in old.requests.items():
        if name not in new.requests or amount > new.requests[name]:
            return ActionType.UPDATE_POD_SCALE_DOWN
    return ActionType.NONE


def node_scheduling_properties_change(new: Node, old: Node) -> list[ClusterEvent]:
    """The fine-grained events of a Node update (``NodeSchedulingPropertiesChange``); an
    empty list when nothing the scheduler reads changed. schedspec's Node carries no
    conditions or annotations, so UpdateNodeCondition/UpdateNodeAnnotation never arise."""
    actions = [
        ActionType.UPDATE_NODE_TAINT
        if old.unschedulable and not new.unschedulable
        else ActionType.NONE,
        ActionType.UPDATE_NODE_ALLOCATABLE
        if dict(new.allocatable) != dict(old.allocatable)
        else ActionType.NONE,
        ActionType.UPDATE_NODE_LABEL if dict(new.labels) != dict(old.labels) else ActionType.NONE,
        ActionType.UPDATE_NODE_TAINT if new.taints != old.taints else ActionType.NONE,
    ]
    return [ClusterEvent(NODE, a) for a in actions if a != ActionType.NONE]


def default_hint(pod: Pod, old: EventObject, new: EventObject) -> QueueingHint:
    """The hint of a registration without one, and of every one with the gate off."""
    return QueueingHint.QUEUE


QueueingHintMap = Mapping[ClusterEvent, Sequence[tuple[str, QueueingHintFn]]]
