"""DefaultPreemption: the PostFilter that evicts lower-priority pods to make room.

Mirrors ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` (v1.34);
the generic steps (candidates, choice, eviction) are ``schedspec.impl.preemption.evaluator``.
This module holds the policy:

- ``pod_eligible_to_preempt_others``: never with ``preemptionPolicy: Never``; not while the
  pod's nominated node (unless it was UnschedulableAndUnresolvable this cycle) still hosts a
  lower-priority pod terminating because of scheduler preemption (deletionTimestamp and a
  ``DisruptionTarget=True`` condition with reason ``PreemptionByScheduler``): the pod waits for
  those victims instead of evicting more.
- ``calculate_num_candidates``: ``max(n · minCandidateNodesPercentage / 100,
  minCandidateNodesAbsolute)``, at most n (defaults 10 % and 100); the offset into the
  potential nodes is drawn from the scheduler's seeded RNG.
- ``select_victims_on_node`` on a cloned NodeInfo and CycleState: remove every pod of lower
  priority (telling the PreFilter ``remove_pod`` extensions); if the pod still does not fit
  (two-pass filter) the node is no candidate. Sort the removed pods most important first,
  split them by PDB violation, then add them back one at a time — violating pods first, then
  the others — keeping each one whose return still lets the pod fit (it is *reprieved*); the
  rest are the victims.

``pre_enqueue`` keeps a pod out of the active queue while its asynchronous preemption is still
deleting victims. Args (``DefaultPreemptionArgs``): ``minCandidateNodesPercentage`` 0..100,
``minCandidateNodesAbsolute`` ≥ 0, not both 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.errors import ConfigError
from schedspec.impl.framework.args import check_fields, get_int
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.events import (
    POD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventObject,
    QueueingHint,
)
from schedspec.impl.framework.interface import Handle, PostFilterResult
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import Diagnosis, NodeInfo, PodInfo
from schedspec.impl.preemption.evaluator import Evaluator, importance_key
from schedspec.impl.preemption.pdb import PodDisruptionBudget, filter_pods_with_pdb_violation

__all__ = ["NAME", "DefaultPreemption", "calculate_num_candidates", "terminating_by_preemption"]

NAME = "DefaultPreemption"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
_INT32_MAX = 2**31 - 1


def calculate_num_candidates(num_nodes: int, percentage: int, absolute: int) -> int:
    return min(max(num_nodes * percentage // 100, absolute), num_nodes)


def terminating_by_preemption(pod: Pod) -> bool:
    return pod.deletion_timestamp is not None and (
        pod.disruption_target_reason == PREEMPTION_BY_SCHEDULER
    )


class _Victims:
    """Removing and re-adding pods on a node copy, keeping the PreFilter states in step."""

    def __init__(self, handle: Handle, state: CycleState, pod: Pod, node_info: NodeInfo) -> None:
        self.handle, self.state, self.pod, self.node_info = handle, state, pod, node_info

    def remove(self, info: PodInfo) -> Status | None:
        self.node_info.remove_pod(info.pod)
        return self.handle.run_pre_filter_extension_remove_pod(
            self.state, self.pod, info, self.node_info
        )

    def add(self, info: PodInfo) -> Status | None:
        self.node_info.add_pod(info)
        return self.handle.run_pre_filter_extension_add_pod(
            self.state, self.pod, info, self.node_info
        )

    def fits(self) -> Status | None:
        return self.handle.run_filter_plugins_with_nominated_pods(
            self.state, self.pod, self.node_info
        )


class DefaultPreemption:
    def __init__(
        self,
        handle: Handle,
        min_candidate_nodes_percentage: int = 10,
        min_candidate_nodes_absolute: int = 100,
        async_preemption: bool = True,
    ) -> None:
        self.handle = handle
        self.percentage = min_candidate_nodes_percentage
        self.absolute = min_candidate_nodes_absolute
        self.evaluator = Evaluator(NAME, handle, self, async_preemption)

    def name(self) -> str:
        return NAME

    # ---- extension points

    def post_filter(
        self, state: CycleState, pod: Pod, diagnosis: Diagnosis
    ) -> tuple[PostFilterResult | None, Status | None]:
        result, status = self.evaluator.preempt(state, pod, diagnosis)
        if status.message():
            return result, Status(status.code, (f"preemption: {status.message()}",))
        return result, status

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if self.evaluator.is_pod_running_preemption(pod.uid):
            message = "waiting for the preemption for this pod to be finished"
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,))
        return None

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        """A pod deletion is registered but its hint always skips (upstream): the preemptor
        is requeued by the rejecting Filter plugins' own events."""
        if not self.evaluator.async_preemption:
            return []
        event = ClusterEvent(POD, ActionType.DELETE)
        return [ClusterEventWithHint(event, self.is_pod_schedulable_after_pod_deletion)]

    def is_pod_schedulable_after_pod_deletion(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        return QueueingHint.QUEUE_SKIP

    # ---- the policy (preemption.Interface)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        offset = self.handle.rng().randrange(num_nodes)
        return offset, calculate_num_candidates(num_nodes, self.percentage, self.absolute)

    def is_preemption_allowed(self, victim: Pod, preemptor: Pod) -> bool:
        return victim.priority < preemptor.priority  # IsEligiblePod is always true by default

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            return False, "not eligible due to preemptionPolicy=Never."
        node = pod.nominated_node_name
        if not node:
            return True, ""
        if (
            nominated_node_status is not None
            and nominated_node_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        ):
            return True, ""
        node_info = self.handle.snapshot_shared_lister().get(node)
        if node_info is not None:
            for info in node_info.pods:
                if self.is_preemption_allowed(info.pod, pod) and terminating_by_preemption(
                    info.pod
                ):
                    return False, "not eligible due to a terminating pod on the nominated node."
        return True, ""

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status | None]:
        """(victims most important first, how many of them violate a PDB, None) or a status
        saying why this node is no candidate."""
        node = _Victims(self.handle, state, pod, node_info)
        potential = [i for i in node_info.pods if self.is_preemption_allowed(i.pod, pod)]
        for info in potential:
            if (status := node.remove(info)) is not None:
                return [], 0, status
        if not potential:
            message = "No preemption victims found for incoming pod"
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,))
        if (status := node.fits()) is not None:
            return [], 0, status
        potential.sort(key=lambda i: importance_key(i.pod))
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []
        num_violating = 0
        for group, counts in ((violating, True), (non_violating, False)):
            for info in group:
                if (status := node.add(info)) is not None:
                    return [], 0, status
                if node.fits() is None:
                    continue  # reprieved
                if (status := node.remove(info)) is not None:
                    return [], 0, status
                victims.append(info)
                num_violating += counts
        if violating and non_violating:
            victims.sort(key=lambda i: importance_key(i.pod))
        return [i.pod for i in victims], num_violating, None

    # ---- factory

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> DefaultPreemption:
        check_fields(
            args,
            "DefaultPreemptionArgs",
            ("minCandidateNodesPercentage", "minCandidateNodesAbsolute"),
        )
        percentage = get_int(args, "minCandidateNodesPercentage", 10, 0, 100)
        absolute = get_int(args, "minCandidateNodesAbsolute", 100, 0, _INT32_MAX)
        if percentage == 0 and absolute == 0:
            raise ConfigError(
                "cannot be zero at the same time as minCandidateNodesAbsolute",
                "minCandidateNodesPercentage",
            )
        return DefaultPreemption(handle, percentage, absolute)
