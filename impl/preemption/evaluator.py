"""The generic preemption evaluator: find candidates, pick one, evict its victims, nominate.

Mirrors ``pkg/scheduler/framework/preemption/preemption.go`` (v1.34) with ``OrderedScoreFuncs``
returning nil (the default). A preemption plugin supplies the policy (``PreemptionPolicy``:
eligibility, victims on one node, how many candidates, the random offset); the evaluator runs:

1. ``preempt``: re-read the pod from the API server; stop if it is not eligible.
2. ``find_candidates``: the *potential* nodes are those whose Filter status was Unschedulable
   (UnschedulableAndUnresolvable nodes cannot be helped by evicting pods). From a random offset,
   ``dry_run_preemption`` asks the policy for the victims on a *copy* of each node and of the
   cycle state, and stops once it has at least one candidate that violates no PDB and
   ``num_candidates`` candidates in all. Upstream checks nodes 16 at a time; here one at a time,
   in the same order, with the same stop rule and the same cap per list.
3. ``select_candidate`` → ``pick_one_node_for_preemption``: fewest PDB violations; then lowest
   highest-victim priority; then smallest sum of victim priorities (each + 2^31, so negative
   priorities count as small, not as savings); then fewest victims; then the latest start time
   of the most important victims; then the first candidate (non-violating ones come first).
4. ``prepare_candidate``: reject victims waiting at Permit, delete the others, clear the
   ``nominatedNodeName`` of lower-priority pods nominated to the node. With async preemption
   (``SchedulerAsyncPreemption``, beta and on by default since v1.33) these API calls run later
   in virtual time (a loop callback) and ``is_pod_running_preemption`` is true until all but the
   last victim are gone: the plugin's PreEnqueue keeps the preemptor out of the active queue
   meanwhile. Deletion is immediate: the simulated API server has no kubelet, so a victim
   never lingers as terminating (grace period 0).

Every successful preemption is appended to ``Evaluator.log`` (the report's "preempted by").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from schedspec.impl.api import Pod, pod_from_dict
from schedspec.impl.apiserver import APIError
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.interface import Handle, PostFilterResult
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import Diagnosis, FitError, NodeInfo, PodInfo
from schedspec.impl.preemption.pdb import PodDisruptionBudget, pdb_from_dict

__all__ = [
    "Candidate",
    "Evaluator",
    "PreemptionPolicy",
    "PreemptionRecord",
    "earliest_pod_start_time",
    "more_important_pod",
    "pick_one_node_for_preemption",
    "pod_start_time",
]

_PRIORITY_OFFSET = 2**31  # math.MaxInt32 + 1
NOT_HELPFUL = "Preemption is not helpful for scheduling"


# ------------------------------------------------------------------------------ ordering


def pod_start_time(pod: Pod) -> float:
    """``status.startTime`` in seconds since the epoch; a pod that has not started counts as
    starting now, i.e. later than every recorded start (``util.GetPodStartTime``)."""
    if not pod.start_time:
        return math.inf
    try:
        return datetime.fromisoformat(pod.start_time).timestamp()
    except ValueError:
        return math.inf


def more_important_pod(a: Pod, b: Pod) -> bool:
    """Higher priority first; at equal priority the pod that started earlier
    (``util.MoreImportantPod``)."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return pod_start_time(a) < pod_start_time(b)


def importance_key(pod: Pod) -> tuple[int, float]:
    """A sort key equivalent to ``more_important_pod`` (most important first)."""
    return (-pod.priority, pod_start_time(pod))


def earliest_pod_start_time(victims: Sequence[Pod]) -> float:
    """The earliest start among the victims of the highest priority
    (``util.GetEarliestPodStartTime``)."""
    top = max(v.priority for v in victims)
    return min(pod_start_time(v) for v in victims if v.priority == top)


# ------------------------------------------------------------------------------ candidates


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node and the pods to evict there, most important first."""

    node: str
    victims: tuple[Pod, ...]
    num_pdb_violations: int


@dataclass(frozen=True, slots=True)
class PreemptionRecord:
    preemptor: str  # ns/name
    node: str
    victims: tuple[str, ...]  # ns/name, most important first
    time: float


def pick_one_node_for_preemption(candidates: Sequence[Candidate]) -> Candidate | None:
    """The best candidate by the lexicographic rules of the module docstring."""
    rules = (
        lambda c: -c.num_pdb_violations,
        lambda c: -c.victims[0].priority,
        lambda c: -sum(v.priority + _PRIORITY_OFFSET for v in c.victims),
        lambda c: -len(c.victims),
        lambda c: earliest_pod_start_time(c.victims),
    )
    remaining = list(candidates)
    for rule in rules:
        if len(remaining) <= 1:
            break
        scores = [rule(c) for c in remaining]
        best = max(scores)
        remaining = [c for c, s in zip(remaining, scores, strict=True) if s == best]
    return remaining[0] if remaining else None


# ------------------------------------------------------------------------------ the evaluator


class PreemptionPolicy(Protocol):
    """What a preemption plugin decides (upstream's ``preemption.Interface``)."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]: ...

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status | None]: ...


def _status_of(diagnosis: Diagnosis, node: str) -> Status:
    """The node's Filter status; nodes not listed share the absent status (by default
    UnschedulableAndUnresolvable)."""
    status = diagnosis.node_to_status.get(node)
    if status is not None:
        return status
    absent = diagnosis.absent_nodes_status
    return absent if absent is not None else Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


class Evaluator:
    def __init__(
        self, plugin_name: str, handle: Handle, policy: PreemptionPolicy, async_preemption: bool
    ) -> None:
        self.plugin_name, self.handle, self.policy = plugin_name, handle, policy
        self.async_preemption = async_preemption
        self.preempting: set[str] = set()
        self.log: list[PreemptionRecord] = []

    def is_pod_running_preemption(self, uid: str) -> bool:
        return uid in self.preempting

    # ---- Preempt

    def preempt(
        self, state: CycleState, pod: Pod, diagnosis: Diagnosis
    ) -> tuple[PostFilterResult | None, Status]:
        """Success with the nominated node; Unschedulable with a result clearing the
        nomination when no candidate exists; Unschedulable or Error without a result (the
        nomination stays) otherwise."""
        obj = self.handle.client().get("Pod", pod.key)
        if obj is None:
            return None, Status(Code.ERROR, (f'pod "{pod.key}" not found',))
        pod = pod_from_dict(obj)
        nominated_status = _status_of(diagnosis, pod.nominated_node_name)
        eligible, message = self.policy.pod_eligible_to_preempt_others(pod, nominated_status)
        if not eligible:
            return None, Status(Code.UNSCHEDULABLE, (message,))
        all_nodes = self.handle.snapshot_shared_lister().list()
        if not all_nodes:
            return None, Status(Code.ERROR, ("no nodes available",))
        candidates, statuses, errors = self.find_candidates(state, pod, diagnosis, all_nodes)
        if errors and not candidates:
            return None, Status(Code.ERROR, (errors[0],))
        if not candidates:
            fit = Diagnosis(node_to_status=statuses)
            fit.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,))
            message = str(FitError(pod, len(all_nodes), fit))
            return PostFilterResult(""), Status(Code.UNSCHEDULABLE, (message,))
        best = self.select_candidate(candidates)
        if best is None:
            return None, Status(Code.UNSCHEDULABLE, ("no candidate node for preemption",))
        self.log.append(
            PreemptionRecord(
                pod.key, best.node, tuple(v.key for v in best.victims), self.handle.clock().now()
            )
        )
        if self.async_preemption:
            self.prepare_candidate_async(best, pod)
        else:
            status = self.prepare_candidate(best, pod)
            if status is not None:
                return None, status
        return PostFilterResult(best.node), Status(Code.SUCCESS)

    def find_candidates(
        self, state: CycleState, pod: Pod, diagnosis: Diagnosis, all_nodes: Sequence[NodeInfo]
    ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        potential = [
            ni for ni in all_nodes if _status_of(diagnosis, ni.name).code is Code.UNSCHEDULABLE
        ]
        if not potential:
            return [], {}, []
        pdbs = [pdb_from_dict(o) for o in self.handle.client().list("PodDisruptionBudget")]
        offset, num = self.policy.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num)

    def dry_run_preemption(
        self,
        state: CycleState,
        pod: Pod,
        potential: Sequence[NodeInfo],
        pdbs: Sequence[PodDisruptionBudget],
        offset: int,
        num_candidates: int,
    ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        """(candidates, non-violating first; the status of every node that is not one; the
        error messages)."""
        fine: list[Candidate] = []
        violating: list[Candidate] = []
        statuses: dict[str, Status] = {}
        errors: list[str] = []
        n = len(potential)
        for i in range(n):
            node_copy = potential[(offset + i) % n].clone()
            victims, violations, status = self.policy.select_victims_on_node(
                state.clone(), pod, node_copy, pdbs
            )
            if status is None and victims:
                found = fine if violations == 0 else violating
                if len(found) < num_candidates:
                    found.append(Candidate(node_copy.name, tuple(victims), violations))
                if fine and len(fine) + len(violating) >= num_candidates:
                    break
                continue
            if status is None:
                message = f'expected at least one victim pod on node "{node_copy.name}"'
                status = Status(Code.ERROR, (message,))
            if status.code is Code.ERROR:
                errors.append(status.message())
            statuses[node_copy.name] = status
        return fine + violating, statuses, errors

    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        by_node: dict[str, Candidate] = {}
        for c in candidates:
            by_node.setdefault(c.node, c)  # CandidatesToVictimsMap: one per node
        return pick_one_node_for_preemption(list(by_node.values()))

    # ---- prepareCandidate

    def prepare_candidate(self, c: Candidate, pod: Pod) -> Status | None:
        """Evict the victims, then clear lower-priority nominations on the node (errors
        there are not fatal)."""
        for victim in c.victims:
            status = self.preempt_pod(c, pod, victim)
            if status is not None:
                return status
        self._clear_lower_nominations(pod, c.node)
        return None

    def prepare_candidate_async(self, c: Candidate, pod: Pod) -> None:
        """As ``prepare_candidate``, in a later loop callback; the pod counts as preempting
        until every victim but the last is gone."""
        self.preempting.add(pod.uid)

        def run() -> None:
            self._clear_lower_nominations(pod, c.node)
            for victim in c.victims[:-1]:
                self.preempt_pod(c, pod, victim)
            self.preempting.discard(pod.uid)
            if c.victims:
                self.preempt_pod(c, pod, c.victims[-1])

        self.handle.clock().after(0.0, run)

    def preempt_pod(self, c: Candidate, preemptor: Pod, victim: Pod) -> Status | None:
        """Reject a victim waiting at Permit, else delete it (already gone is fine)."""
        waiting = self.handle.get_waiting_pod(victim.uid)
        if waiting is not None:
            waiting.reject(self.plugin_name, "preempted")
            return None
        try:
            self.handle.client().delete("Pod", victim.key)
        except APIError as err:
            if err.reason != "NotFound":
                return Status(Code.ERROR, (str(err),))
        return None

    def _clear_lower_nominations(self, pod: Pod, node: str) -> None:
        client = self.handle.client()
        for info in self._lower_priority_nominated(pod, node):
            obj = client.get("Pod", info.pod.key)
            status = (obj or {}).get("status") or {}
            if obj is None or not status.get("nominatedNodeName"):
                continue
            cleared = {k: v for k, v in status.items() if k != "nominatedNodeName"}
            try:
                client.update("Pod", {**obj, "status": cleared})
            except APIError:
                continue  # not critical, as upstream

    def _lower_priority_nominated(self, pod: Pod, node: str) -> list[PodInfo]:
        nominated = self.handle.nominator().nominated_pods_for_node(node)
        return [info for info in nominated if info.pod.priority < pod.priority]
