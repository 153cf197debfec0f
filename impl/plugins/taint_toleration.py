"""TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints lower the score.

Mirrors ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`` (v1.34) with
component-helpers v0.34.0 ``FindMatchingUntoleratedTaint``/``TolerationsTolerateTaint``.
Filter fails UnschedulableAndUnresolvable with the first untolerated taint; Score counts the
PreferNoSchedule taints not tolerated by a toleration with effect "" or PreferNoSchedule, and
NormalizeScore reverses it (fewest such taints → 100).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from schedspec.impl.framework.helpers import (
    DO_NOT_SCHEDULE_EFFECTS,
    default_normalize_score,
    find_untolerated_taint,
    tolerations_tolerate_taint,
)
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import MAX_NODE_SCORE, NodeInfo, NodeScore

__all__ = ["NAME", "TaintToleration", "fits", "reason", "score", "untolerated_taint"]

NAME = "TaintToleration"


def untolerated_taint(pod: Pod, node: Node) -> Taint | None:
    """The first NoSchedule/NoExecute taint of ``node`` that ``pod`` does not tolerate."""
    return find_untolerated_taint(node.taints, pod.tolerations, DO_NOT_SCHEDULE_EFFECTS)


def fits(pod: Pod, node: Node) -> bool:
    return untolerated_taint(pod, node) is None


REASON = "node(s) had untolerated taint(s)"
"""v1.34.2 reports one fixed reason; which taint it was goes to the log only."""


def reason(taint: Taint) -> str:
    return REASON


def _prefer_no_schedule_tolerations(pod: Pod) -> tuple[Toleration, ...]:
    return tuple(t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule"))


def _count_intolerable(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> int:
    return sum(
        1
        for t in taints
        if t.effect == "PreferNoSchedule" and not tolerations_tolerate_taint(tolerations, t)
    )


def score(pod: Pod, node: Node) -> int:
    """The raw score: PreferNoSchedule taints the pod does not tolerate (lower is better)."""
    return _count_intolerable(node.taints, _prefer_no_schedule_tolerations(pod))


class _PreScoreState:
    __slots__ = ("tolerations",)

    def __init__(self, tolerations: tuple[Toleration, ...]) -> None:
        self.tolerations = tolerations

    def clone(self) -> _PreScoreState:
        return self


_STATE_KEY = "PreScore" + NAME


class TaintToleration:
    def name(self) -> str:
        return NAME

    def filter_signature(self, state: CycleState, pod: Pod) -> tuple[Toleration, ...]:
        """Filter reads the pod's tolerations only (``NodeLocalFilter``)."""
        return pod.tolerations

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None or not node.taints:
            return None
        taint = untolerated_taint(pod, node)
        if taint is None:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason(taint),))

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if nodes:
            state.write(_STATE_KEY, _PreScoreState(_prefer_no_schedule_tolerations(pod)))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        node = node_info.node
        if node is None or not node.taints:
            return 0, None
        s = state.read_as(_STATE_KEY, _PreScoreState)
        tolerations = s.tolerations if s else _prefer_no_schedule_tolerations(pod)
        return _count_intolerable(node.taints, tolerations), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """``score`` on each of ``nodes`` (``BatchScorer``): 0 for a node without taints —
        most nodes — and the cycle state read once."""
        s = state.read_as(_STATE_KEY, _PreScoreState)
        tolerations = s.tolerations if s else _prefer_no_schedule_tolerations(pod)
        return [
            _count_intolerable(node.taints, tolerations)
            if (node := ni.node) is not None and node.taints
            else 0
            for ni in nodes
        ], None

    def score_extensions(self) -> TaintToleration:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return None

    # ---- QueueingHints (taint_toleration.go EventsToRegister, isSchedulableAfter*)

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
        """Queue when the node had an untolerated taint (or is new) and now has none."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE
        was_untolerated = old is None or untolerated_taint(pod, old) is not None
        if was_untolerated and untolerated_taint(pod, new) is None:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Only the pod's own toleration change can help it."""
        if not isinstance(new, Pod) or new.uid == pod.uid:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> TaintToleration:
        check_fields(args, "TaintTolerationArgs", ())
        return TaintToleration()
