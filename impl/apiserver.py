"""A simulated API server: an in-memory store of Nodes, Pods and Namespaces with watch events
and the ``pods/binding`` subresource, driven by the ``EventLoop``.

Objects are Kubernetes-shaped dicts; the store owns them and hands out the stored dict (treat
it as read-only); every change stores a new dict. Watch handlers receive events asynchronously
(one loop callback per event, in order), like informers. ``bind`` sets ``spec.nodeName`` as the
real subresource does: NotFound for an unknown pod, Conflict for a UID mismatch or a pod already
bound. ``patch_pod_status`` is the ``pods/status`` patch the scheduler uses for the
PodScheduled condition and ``nominatedNodeName``.

Fault hooks, for tests (each a callable returning an error message, or None to let the call
through):

- ``bind_fault(pod_key, node)`` fails a bind with InternalError (``FailBinds``: the first N);
- ``patch_fault(pod_key)`` fails a status patch with Conflict (``ConflictOnce``);
- ``delete_at(when, kind, key)`` deletes an object at a virtual time (a node deleted between
  cycles, a pod deleted while it waits at Permit).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from schedspec.cluster import SELECTING_KINDS
from schedspec.impl.loop import EventLoop

__all__ = ["APIError", "APIServer", "ConflictOnce", "FailBinds", "WatchEvent", "object_key"]

Obj = Mapping[str, Any]
KINDS = ("Namespace", "Node", "Pod")
# stored and listed, no events: preemption reads PDBs; PodTopologySpread's default constraints
# read Services and pod controllers
UNWATCHED_KINDS = ("PodDisruptionBudget", *SELECTING_KINDS)


class APIError(Exception):
    """An API call failed; ``reason`` is NotFound, Conflict, AlreadyExists or InternalError."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class WatchEvent:
    type: str  # ADDED, MODIFIED, DELETED
    kind: str
    obj: Obj
    old: Obj | None = None


def object_key(obj: Obj) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name', '')}" if ns else str(meta.get("name", ""))


class FailBinds:
    """A ``bind_fault`` failing the first ``times`` binds (optionally only of pods in ``keys``)."""

    def __init__(self, times: int, keys: frozenset[str] | None = None) -> None:
        self.remaining, self.keys = times, keys
        self.failed: list[str] = []

    def __call__(self, pod_key: str, node_name: str) -> str | None:
        if self.remaining <= 0 or (self.keys is not None and pod_key not in self.keys):
            return None
        self.remaining -= 1
        self.failed.append(pod_key)
        return f"injected fault: binding {pod_key} to {node_name} failed"


class ConflictOnce:
    """A ``patch_fault`` answering Conflict to the first status patch (of a pod in ``keys``)."""

    def __init__(self, keys: frozenset[str] | None = None) -> None:
        self.keys = keys
        self.failed: list[str] = []

    def __call__(self, pod_key: str) -> str | None:
        if self.failed or (self.keys is not None and pod_key not in self.keys):
            return None
        self.failed.append(pod_key)
        return (
            f'Operation cannot be fulfilled on pods "{pod_key}": the object has been '
            "modified; please apply your changes to the latest version and try again"
        )


class APIServer:
    def __init__(
        self,
        loop: EventLoop,
        bind_fault: Callable[[str, str], str | None] | None = None,
        patch_fault: Callable[[str], str | None] | None = None,
    ) -> None:
        self._loop = loop
        self._store: dict[str, dict[str, Obj]] = {kind: {} for kind in (*KINDS, *UNWATCHED_KINDS)}
        self._watchers: list[Callable[[WatchEvent], None]] = []
        self.bind_fault = bind_fault
        self.patch_fault = patch_fault
        self.bind_calls = 0
        self.patch_calls = 0

    # ---- store

    def get(self, kind: str, key: str) -> Obj | None:
        return self._store[kind].get(key)

    def list(self, kind: str) -> list[Obj]:
        return list(self._store[kind].values())

    def create(self, kind: str, obj: Obj) -> None:
        key = object_key(obj)
        if key in self._store[kind]:
            raise APIError("AlreadyExists", f'{kind.lower()}s "{key}" already exists')
        self._store[kind][key] = obj
        self._emit(WatchEvent("ADDED", kind, obj))

    def update(self, kind: str, obj: Obj) -> None:
        key = object_key(obj)
        old = self._store[kind].get(key)
        if old is None:
            raise APIError("NotFound", f'{kind.lower()}s "{key}" not found')
        self._store[kind][key] = obj
        self._emit(WatchEvent("MODIFIED", kind, obj, old))

    def delete(self, kind: str, key: str) -> None:
        old = self._store[kind].pop(key, None)
        if old is None:
            raise APIError("NotFound", f'{kind.lower()}s "{key}" not found')
        self._emit(WatchEvent("DELETED", kind, old))

    # ---- watch

    def watch(self, handler: Callable[[WatchEvent], None]) -> None:
        """Deliver every existing object as ADDED (Namespaces, Nodes, then Pods), then changes."""
        self._watchers.append(handler)
        for kind in KINDS:
            for obj in list(self._store[kind].values()):
                self._loop.call_soon(partial(handler, WatchEvent("ADDED", kind, obj)))

    def _emit(self, event: WatchEvent) -> None:
        if event.kind in UNWATCHED_KINDS:
            return
        for handler in self._watchers:
            self._loop.call_soon(partial(handler, event))

    # ---- subresources

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        """``POST pods/{name}/binding``: set ``spec.nodeName``."""
        self.bind_calls += 1
        key = f"{namespace}/{name}"
        pod = self._store["Pod"].get(key)
        if pod is None:
            raise APIError("NotFound", f'pods "{name}" not found')
        if uid and pod["metadata"].get("uid") != uid:
            raise APIError("Conflict", f'pods "{name}": the UID in the binding does not match')
        if pod["spec"].get("nodeName"):
            message = f'pod {name} is already assigned to node "{pod["spec"]["nodeName"]}"'
            raise APIError("Conflict", message)
        if self.bind_fault is not None and (failure := self.bind_fault(key, node_name)):
            raise APIError("InternalError", failure)
        spec = {**pod["spec"], "nodeName": node_name}
        self.update("Pod", {**pod, "spec": spec})

    def patch_pod_status(self, namespace: str, name: str, status: Mapping[str, Any]) -> None:
        """``PATCH pods/{name}/status``: merge ``status`` into the pod's status (a key with
        value None is removed)."""
        self.patch_calls += 1
        key = f"{namespace}/{name}"
        pod = self._store["Pod"].get(key)
        if pod is None:
            raise APIError("NotFound", f'pods "{name}" not found')
        if self.patch_fault is not None and (failure := self.patch_fault(key)):
            raise APIError("Conflict", failure)
        merged = {**(pod.get("status") or {}), **status}
        merged = {k: v for k, v in merged.items() if v is not None}
        self.update("Pod", {**pod, "status": merged})

    # ---- faults in time

    def delete_at(self, when: float, kind: str, key: str) -> None:
        """Delete ``kind``/``key`` at virtual time ``when`` (ignored if it is gone by then)."""

        def go() -> None:
            if key in self._store[kind]:
                self.delete(kind, key)

        self._loop.after(when - self._loop.now(), go)
