"""Coscheduling: gang scheduling through Permit — a pod group binds all together or not at all.

Mirrors the out-of-tree ``sigs.k8s.io/scheduler-plugins/pkg/coscheduling`` (PreFilter, Permit,
Unreserve), reduced to what schedspec's cluster model carries. Not in the default profile;
enable it in a KubeSchedulerConfiguration (``multiPoint`` or ``preFilter``/``permit``/
``reserve``), with ``pluginConfig`` args ``permitWaitingTimeSeconds`` (default 60).

**Pod groups.** ``schedspec.cluster.load`` reads no ``PodGroup`` (scheduling.x-k8s.io/v1alpha1)
objects, so the group is read from the pods' labels: ``scheduling.x-k8s.io/pod-group: NAME``
names the group (as upstream) and ``pod-group.scheduling.sigs.k8s.io/min-available: "N"``
(the label of the lightweight coscheduling KEP) gives its ``minMember``; a member without it
counts as a group of 1.

- **PreFilter** rejects (UnschedulableAndUnresolvable) a member whose group has fewer than
  minMember pods in its namespace (the group can never be complete).
- **Permit**: members already assumed, waiting or bound (from the cycle's snapshot) plus this
  one; at minMember every waiting member is allowed and this one passes, otherwise it waits up to
  ``permitWaitingTimeSeconds``.
- **Unreserve** (a member timed out at Permit or failed to bind) rejects every waiting member of
  the group, so they are all unreserved and go back to the queue together.
- **Events**: Pod/Add with no hint (upstream registers Pod Add and PodGroup Add/Update).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from schedspec.impl.api import Pod
from schedspec.impl.framework.args import check_fields, get_int
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.events import POD, ActionType, ClusterEvent, ClusterEventWithHint
from schedspec.impl.framework.interface import Handle, WaitingPod
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import NodeInfo, PreFilterResult

__all__ = [
    "DEFAULT_PERMIT_WAITING_TIME_SECONDS",
    "MIN_MEMBER_LABEL",
    "NAME",
    "POD_GROUP_LABEL",
    "Coscheduling",
    "min_member",
    "pod_group",
]

NAME = "Coscheduling"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
MIN_MEMBER_LABEL = "pod-group.scheduling.sigs.k8s.io/min-available"
DEFAULT_PERMIT_WAITING_TIME_SECONDS = 60


def pod_group(pod: Pod) -> str:
    """``namespace/group`` of the pod, or "" when it belongs to none."""
    name = pod.labels.get(POD_GROUP_LABEL, "")
    return f"{pod.namespace}/{name}" if name else ""


def min_member(pod: Pod) -> int:
    raw = pod.labels.get(MIN_MEMBER_LABEL, "1")
    return int(raw) if raw.isdigit() else 1


@runtime_checkable
class _PodLister(Protocol):
    def list(self, kind: str) -> list[Mapping[str, Any]]: ...


class Coscheduling:
    def __init__(self, handle: Handle, permit_waiting_time: float) -> None:
        self._handle = handle
        self.permit_waiting_time = permit_waiting_time

    def name(self) -> str:
        return NAME

    # ---- PreFilter

    def _group_size(self, pod: Pod) -> int | None:
        """Pods of the group in the API server (None when the client cannot list)."""
        client = self._handle.client()
        if not isinstance(client, _PodLister):
            return None
        name = pod.labels.get(POD_GROUP_LABEL)
        count = 0
        for obj in client.list("Pod"):
            meta = obj.get("metadata") or {}
            phase = (obj.get("status") or {}).get("phase", "Pending")
            if (
                (meta.get("namespace") or "default") == pod.namespace
                and (meta.get("labels") or {}).get(POD_GROUP_LABEL) == name
                and phase not in ("Succeeded", "Failed")
            ):
                count += 1
        return count

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not pod_group(pod):
            return None, None
        want, have = min_member(pod), self._group_size(pod)
        if have is not None and have < want:
            message = (
                f"pre-filter pod {pod.name} cannot find enough sibling pods, "
                f"current pods number: {have}, minMember of group: {want}"
            )
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    # ---- Permit

    def _siblings_waiting(self, group: str) -> list[WaitingPod]:
        out: list[WaitingPod] = []
        self._handle.iterate_over_waiting_pods(
            lambda wp: out.append(wp) if pod_group(wp.pod) == group else None
        )
        return out

    def _assigned(self, pod: Pod, group: str) -> int:
        """Group members on nodes in the snapshot: bound, or assumed (waiting) earlier."""
        lister = self._handle.snapshot_shared_lister()
        return sum(
            1
            for ni in lister.list()
            for info in ni.pods
            if info.pod.uid != pod.uid and pod_group(info.pod) == group
        )

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        group = pod_group(pod)
        if not group:
            return None, 0.0
        if self._assigned(pod, group) + 1 < min_member(pod):
            return Status(Code.WAIT, (f"pod group {group} is not complete yet",)), float(
                self.permit_waiting_time
            )
        for wp in self._siblings_waiting(group):
            wp.allow(NAME)
        return None, 0.0

    # ---- Reserve / Unreserve

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        group = pod_group(pod)
        if not group:
            return
        for wp in self._siblings_waiting(group):
            if wp.pod.uid != pod.uid:
                wp.reject(NAME, "rejection in Unreserve")

    # ---- events

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(POD, ActionType.ADD))]

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> Coscheduling:
        check_fields(args, "CoschedulingArgs", ("permitWaitingTimeSeconds",))
        seconds = get_int(
            args, "permitWaitingTimeSeconds", DEFAULT_PERMIT_WAITING_TIME_SECONDS, 1, 2**31 - 1
        )
        return Coscheduling(handle, float(seconds))
