"""``Nominator``: which pending pods are nominated to which node.

Mirrors ``pkg/scheduler/backend/queue/nominator.go`` (v1.34). A pod is nominated to a node when
preemption made room for it there (the scheduler sets ``status.nominatedNodeName``), or when
something outside the scheduler set that field (honoured as a hint). The scheduler asks
``nominated_pods_for_node`` in the two-pass filter: nominated pods of priority ≥ the incoming
pod's count as if they were already running on their node, so the room freed for them is not
taken by a less important pod.

Lifecycle of an entry::

      add_nominated_pod(pi, "n")        update_nominated_pod(old, new)
    (absent) ───────────────────▶ nominated to n ───────────────────▶ nominated to new's
        ▲                               │                              status node (or kept
        │  delete_nominated_pod_if_exists (pod deleted, assumed,       on n when neither old
        └────────────────────────────── bound, or nomination cleared)  nor new has one)

``add_nominated_pod(pi, None)`` takes the node from ``pi``'s own ``status.nominatedNodeName``
(upstream's ``ModeNoop``); a string overrides it (``ModeOverride``); ``""`` only removes. A pod
that the optional ``is_bound`` lookup reports as bound (or gone) is not added, as upstream's
pod-lister check does.

``NominationFollower`` keeps a nominator in step with the API server's pod watch events, as the
scheduling queue does upstream (Add/Update/Delete of an unscheduled pod; an assigned pod leaves
the nominator). It is idempotent, so it may run beside a queue that makes the same calls.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, KeysView, Mapping
from typing import Any, Protocol

from schedspec.impl.api import Pod, pod_from_dict
from schedspec.impl.framework.types import PodInfo

__all__ = ["NominationFollower", "Nominator"]


class Nominator:
    """Node name → nominated pods (in nomination order), and pod uid → node name."""

    __slots__ = ("_by_node", "_node_of", "_still_pending")

    def __init__(self, still_pending: Callable[[Pod], bool] | None = None) -> None:
        self._by_node: dict[str, dict[str, PodInfo]] = {}
        self._node_of: dict[str, str] = {}
        self._still_pending = still_pending

    def add_nominated_pod(self, pod_info: PodInfo, nominated_node_name: str | None = None) -> None:
        """Nominate ``pod_info``'s pod to ``nominated_node_name`` (None: its status field)."""
        pod = pod_info.pod
        self.delete_nominated_pod_if_exists(pod)
        node = pod.nominated_node_name if nominated_node_name is None else nominated_node_name
        if not node:
            return
        if self._still_pending is not None and not self._still_pending(pod):
            return
        self._node_of[pod.uid] = node
        self._by_node.setdefault(node, {})[pod.uid] = pod_info

    def update_nominated_pod(self, old_pod: Pod, new_pod_info: PodInfo) -> None:
        """The pod changed. Without a ``nominatedNodeName`` before and after, a nomination the
        scheduler recorded is kept (the status update may not have arrived yet); otherwise the
        new object's field decides."""
        node: str | None = None
        if not old_pod.nominated_node_name and not new_pod_info.pod.nominated_node_name:
            node = self._node_of.get(old_pod.uid)
        self.delete_nominated_pod_if_exists(old_pod)
        self.add_nominated_pod(new_pod_info, node)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        node = self._node_of.pop(pod.uid, None)
        if node is None:
            return
        pods = self._by_node[node]
        del pods[pod.uid]
        if not pods:
            del self._by_node[node]

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to ``node_name``, in the order they were nominated."""
        pods = self._by_node.get(node_name)
        return list(pods.values()) if pods else []

    def nominated_node_names(self) -> KeysView[str]:
        """The nodes with at least one nominated pod (a live view)."""
        return self._by_node.keys()

    def nominated_node_of(self, uid: str) -> str | None:
        return self._node_of.get(uid)

    def __len__(self) -> int:
        return len(self._node_of)


class _WatchEvent(Protocol):
    @property
    def type(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def obj(self) -> Mapping[str, Any]: ...
    @property
    def old(self) -> Mapping[str, Any] | None: ...


class NominationFollower:
    """A watch handler: pod events of the given schedulers → ``Nominator`` calls."""

    __slots__ = ("nominator", "schedulers")

    def __init__(self, nominator: Nominator, schedulers: Collection[str]) -> None:
        self.nominator, self.schedulers = nominator, schedulers

    def __call__(self, event: _WatchEvent) -> None:
        if event.kind != "Pod":
            return
        obj = event.obj
        uid = (obj.get("metadata") or {}).get("uid", "")
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        known = self.nominator.nominated_node_of(uid) is not None
        if not known and not status.get("nominatedNodeName"):
            return  # the common case: nothing to do, nothing to convert
        pod = pod_from_dict(obj)
        if event.type == "DELETED" or spec.get("nodeName") or pod.is_terminal:
            self.nominator.delete_nominated_pod_if_exists(pod)
        elif (spec.get("schedulerName") or "default-scheduler") not in self.schedulers:
            return
        elif event.type == "ADDED" or event.old is None:
            # upstream records a nomination only when the pod passes PreEnqueue into activeQ
            # (scheduling_queue.go moveToActiveQ); a gated pod waits in unschedulablePods
            # and reserves nothing
            if not pod.scheduling_gates:
                self.nominator.add_nominated_pod(PodInfo(pod))
        else:
            self.nominator.update_nominated_pod(pod_from_dict(event.old), PodInfo(pod))
