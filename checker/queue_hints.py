"""The QueueingHint verdicts of trace validation: what ``spec/kube/hints.tla`` answers for each
cluster event impl delivered, so that ``queue.tla``'s free ``verdict`` is pinned to upstream's.

:class:`Deliveries` instruments a :class:`~schedspec.impl.scheduler.Scheduler` from outside
(instance attributes only; impl's code and behaviour are untouched): the watch event being
handled, and every ``move_all_to_active_or_backoff_queue`` call with the manifests of its old and
new objects and of the queued pods at that moment. A :class:`Delivery` rides on the spec action
that delivers the event (``ClusterEvent``, ``AssignedPodDeleted``, ``BindFailed``);
:func:`pinned` keeps only the spec successors whose ``verdict`` for every pod and plugin the
spec's ``Asked`` names is ``Hint(pl, e, pod, old, new)`` of ``hints.tla``.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from schedspec.impl.api.types import Node, Pod
from schedspec.impl.apiserver import WatchEvent
from schedspec.impl.scheduler import Scheduler
from schedspec.spec.compile.source import SourceProgram
from schedspec.spec.kube.profiles import profiles
from schedspec.spec.kube.scheduler_view import node_affinity_record, node_record, pod_record
from schedspec.spec.load import with_extended
from schedspec.spec.parse import parse
from schedspec.spec.values import Fcn, Value

__all__ = ["Deliveries", "Delivery", "hint", "pinned"]

_Obj = Mapping[str, Any]


@dataclass(frozen=True, eq=False)
class Delivery:
    """One event impl delivered: its label, the manifests of its old and new objects (None when
    absent), the queued pods' manifests by key, and whether a pre-check narrowed the pods."""

    label: str
    old: _Obj | None
    new: _Obj | None
    pods: Mapping[str, _Obj]
    prechecked: bool


class Deliveries:
    """Appends a ``("deliver", label, Delivery)`` record to ``records`` for every event the
    scheduler hands its queue (see the module docstring)."""

    def __init__(self, scheduler: Scheduler, records: list[tuple[Any, ...]]) -> None:
        self.scheduler = scheduler
        self.records = records
        self.watch: WatchEvent | None = None
        for name in ("_on_node", "_on_pod"):
            setattr(scheduler, name, self._watching(getattr(scheduler, name)))
        queue = scheduler.queue
        move_all = queue.move_all_to_active_or_backoff_queue

        def delivered(event: Any, old: Any = None, new: Any = None, pre_check: Any = None) -> None:
            d = self._delivery(event.label, old, new, pre_check)
            self.records.append(("deliver", event.label, d))
            move_all(event, old, new, pre_check)

        queue.move_all_to_active_or_backoff_queue = delivered  # type: ignore[method-assign]

    def _watching(self, handler: Callable[[WatchEvent], None]) -> Callable[[WatchEvent], None]:
        def handle(event: WatchEvent) -> None:
            self.watch = event
            try:
                handler(event)
            finally:
                self.watch = None

        return handle

    def _delivery(self, label: str, old: Any, new: Any, pre_check: Any) -> Delivery:
        # the hint reads the pod as the queue holds it: the pending pods' manifests
        pods = {
            _key(o): o
            for o in self.scheduler.apiserver.list("Pod")
            if not o["spec"].get("nodeName")
        }
        man_old, man_new = self._manifest(old, "old"), self._manifest(new, "new")
        return Delivery(label, man_old, man_new, pods, pre_check is not None)

    def _manifest(self, obj: Any, side: str) -> _Obj | None:
        """The manifest of one of an event's objects: the watch event's for a node, the API
        server's (or the deleted one from the watch event) for a pod, with the node and
        nomination impl's object holds (an assumed pod's node is not in the API yet)."""
        if obj is None:
            return None
        w = self.watch
        if isinstance(obj, Node):
            if w is not None and w.kind == "Node":
                chosen = w.old if side == "old" and w.old is not None else w.obj
                if chosen["metadata"]["name"] == obj.name:
                    return chosen
            found = self.scheduler.apiserver.get("Node", obj.name)
            return found if found is not None else {"metadata": {"name": obj.name}}
        if isinstance(obj, Pod):
            base: _Obj | None = None
            if w is not None and w.kind == "Pod" and _key(w.obj) == obj.key:
                base = w.old if side == "old" and w.old is not None else w.obj
            if base is None:
                base = self.scheduler.apiserver.get("Pod", obj.key)
            out = copy.deepcopy(dict(base or {"metadata": {"name": obj.name}}))
            out.setdefault("spec", {})["nodeName"] = obj.node_name
            out.setdefault("status", {})["nominatedNodeName"] = obj.nominated_node_name or ""
            return out
        return None


def _key(obj: _Obj) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', 'default')}/{meta.get('name', '')}"


# ---- the spec's answer ----------------------------------------------------------------------

_NIL = Fcn({"nil": True})


@functools.cache
def _program() -> SourceProgram:
    text = (resources.files("schedspec.spec.kube") / "hints.tla").read_text(encoding="utf-8")
    module = with_extended(parse(text, "spec/kube/hints.tla"))
    program = SourceProgram(module)
    return program.bind({"Profiles": profiles(None, node_affinity_record)})


@functools.lru_cache(maxsize=4096)
def _hint(plugin: str, event: str, pod: Fcn, old: Fcn, new: Fcn) -> bool:
    return bool(_program().call("Hint", plugin, event, pod, old, new))


def _record(obj: _Obj | None, node: bool) -> Fcn:
    if obj is None:
        return _NIL
    return node_record(obj) if node else pod_record(obj)


def hint(plugin: str, event: str, pod: _Obj, d: Delivery) -> bool:
    """``Hint(plugin, event, pod, old, new)`` of ``hints.tla``: True for Queue."""
    node = event.startswith("Node")
    return _hint(plugin, event, pod_record(pod), _record(d.old, node), _record(d.new, node))


def pinned(
    before: Mapping[str, Value],
    after: Mapping[str, Value],
    event: str,
    d: Delivery,
    registered: Fcn,
) -> bool:
    """Whether the spec step ``before → after`` delivering ``event`` chose, for every pod and
    plugin ``queue.tla``'s ``Asked`` names, the verdict ``hints.tla`` gives."""
    where, rejecting, pending = before["where"], before["rejecting"], before["pending"]
    verdict = after["verdict"]
    assert isinstance(where, Fcn) and isinstance(verdict, Fcn)
    assert isinstance(rejecting, Fcn) and isinstance(pending, Fcn)
    for q in where:
        place = where[q]
        if place not in ("inFlight", "unschedulable"):
            continue
        for pl, chosen in verdict[q].items():  # type: ignore[union-attr]
            if event not in registered[pl]:  # type: ignore[operator]
                continue
            if place == "unschedulable" and not (rejecting[q][pl] or pending[q][pl]):  # type: ignore[index]
                continue
            pod = d.pods.get(str(q))
            if pod is None:
                continue
            if chosen != hint(str(pl), event, pod, d):
                return False
    return True
