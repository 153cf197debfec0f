"""Event scripts: timed cluster changes for ``schedspec schedule CLUSTER --events FILE``.

A script is one YAML (or JSON) list; each entry happens at a virtual time ``at`` (a Go /
Kubernetes duration: ``0s``, ``30s``, ``1m30s``, ``1.5s``, ``500ms``, ``2h``) and does exactly
one thing::

    - at: 30s
      create: {apiVersion: v1, kind: Node, metadata: {name: late},
               status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
    - at: 90s
      delete: {kind: Pod, namespace: default, name: web-0}   # namespace defaults to "default"
    - at: 2m
      update: {apiVersion: v1, kind: Node, metadata: {name: late}, spec: {unschedulable: true}}
    - at: 4m
      fail-binds: 2                  # the next 2 bind calls fail (InternalError)
    - at: 4m
      conflict-status-patches: 1     # the next status patch (PodScheduled, nomination) conflicts

``create`` and ``update`` take a whole manifest, validated and defaulted exactly as the cluster
loader does (:mod:`schedspec.cluster`; a pod's ``priorityClassName`` may name the cluster's
PriorityClasses); ``update`` replaces the stored object of that kind, namespace and name (it keeps
the stored ``metadata.uid``, and a bound pod stays bound: the API server never unbinds); it
stands for an update of the object and of its status subresource at once. A pod's spec may change
only as the API server lets it (:mod:`schedspec.pod_update`: images, resources, tolerations
added, scheduling gates removed, …). Kinds:
those the simulated API server holds — Namespace, Node, Pod, PodDisruptionBudget, Service,
ReplicationController, ReplicaSet, StatefulSet. ``fail-binds`` and ``conflict-status-patches``
set how many of the next calls fail (replacing what was left of an earlier entry's count).

Entries are in time order. An entry at time ``t`` happens once everything the scheduler had due
at ``t`` is done (as a user acting at that instant would see it). Everything is checked before
anything runs: a bad script raises one ``ManifestError`` listing every problem, each naming
``file:line``, the entry (``events[2].create``) and the field path; creating an object that
exists then (in the cluster or created earlier), or deleting / updating one that does not, is
such a problem. (Preemption may delete a pod before the script does: the run reports that
entry as skipped.)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path as FsPath
from typing import Any

from schedspec.cluster import SELECTING_KINDS, Cluster, from_docs, object_key
from schedspec.errors import ManifestError, UsageError
from schedspec.manifest_yaml import Doc, describe, parse
from schedspec.pod_update import pod_update_problems
from schedspec.validate import NAMESPACED

__all__ = [
    "ACTIONS",
    "EVENT_KINDS",
    "EventScript",
    "ScriptedEvent",
    "format_duration",
    "load_events",
    "loads_events",
    "parse_duration",
    "until_after",
]

EVENT_KINDS = ("Namespace", "Node", "Pod", "PodDisruptionBudget", *SELECTING_KINDS)
OBJECT_ACTIONS = ("create", "update", "delete")
COUNT_ACTIONS = ("fail-binds", "conflict-status-patches")
ACTIONS = (*OBJECT_ACTIONS, *COUNT_ACTIONS)


@dataclass(frozen=True)
class ScriptedEvent:
    """One entry: ``action`` at ``at`` virtual seconds, on ``kind``/``key`` (``object_key``)
    with the validated, defaulted ``obj`` (create, update), or ``count`` calls (faults)."""

    index: int
    at: float
    action: str
    kind: str = ""
    key: str = ""
    obj: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    count: int = 0

    def describe(self) -> str:
        """``create Node late``, ``fail the next 2 bind(s)``."""
        if self.action == "fail-binds":
            return f"fail the next {self.count} bind(s)"
        if self.action == "conflict-status-patches":
            return f"conflict the next {self.count} status patch(es)"
        return f"{self.action} {self.kind} {self.key}"


@dataclass(frozen=True)
class EventScript:
    source: str
    events: tuple[ScriptedEvent, ...]

    @property
    def last(self) -> float:
        """When the last entry happens (0 for an empty script)."""
        return max((e.at for e in self.events), default=0.0)


# ---- durations ------------------------------------------------------------------------------

_UNITS = {
    "ns": Fraction(1, 10**9), "us": Fraction(1, 10**6), "µs": Fraction(1, 10**6),
    "ms": Fraction(1, 1000), "s": Fraction(1), "m": Fraction(60), "h": Fraction(3600),
}  # fmt: skip
_TERM = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Seconds of a Go duration (``time.ParseDuration``'s syntax, no sign): ``1m30s`` → 90."""
    text = text.strip()
    if text == "0":
        return 0.0
    total, pos = Fraction(0), 0
    for m in _TERM.finditer(text):
        if m.start() != pos:
            break
        total += Fraction(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(text) or not text:
        raise ValueError(f"{json.dumps(text)} is not a duration such as 30s, 1m30s, 500ms")
    return float(total)


def format_duration(seconds: float) -> str:
    """A duration ``parse_duration`` reads back exactly: ``90`` → ``1m30s``, ``0.5`` →
    ``0.5s`` (seconds as Python prints them, so every float survives)."""
    if seconds < 0:
        return "-" + format_duration(-seconds)
    whole = int(seconds)
    hours, minutes = whole // 3600, whole % 3600 // 60
    rest = seconds - hours * 3600 - minutes * 60
    if hours * 3600 + minutes * 60 + rest != seconds:  # float rounding: plain seconds
        return f"{_digits(seconds)}s"
    out = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "")
    if rest or not out:
        out += f"{int(rest)}s" if float(rest).is_integer() else f"{_digits(rest)}s"
    return out


def _digits(x: float) -> str:
    """The shortest decimal that reads back as ``x``, without an exponent."""
    return format(Decimal(repr(x)), "f")


# ---- loading --------------------------------------------------------------------------------


def load_events(path: str | os.PathLike[str], cluster: Cluster) -> EventScript:
    """The script in the file ``path``, checked against ``cluster`` (see the module docstring)."""
    source = os.fspath(path)
    try:
        text = FsPath(source).read_text(encoding="utf-8")
    except OSError as err:
        raise ManifestError(f"cannot read: {err.strerror or err}", where=source) from None
    except UnicodeDecodeError:
        raise ManifestError("cannot read: not UTF-8 text", where=source) from None
    return loads_events(text, cluster, source=source)


def loads_events(text: str, cluster: Cluster, *, source: str = "<events>") -> EventScript:
    docs = [d for d in parse(text, source) if d.data is not None]
    if not docs:
        return EventScript(source, ())
    if len(docs) > 1 or not isinstance(docs[0].data, list):
        got = "several documents" if len(docs) > 1 else describe(docs[0].data)
        raise ManifestError(f"an event script is one list of entries, got {got}", where=source)
    checker = _Checker(docs[0], cluster)
    events = [checker.entry(i) for i in range(len(docs[0].data))]
    if checker.errors:
        raise ManifestError.every(checker.errors)
    return EventScript(source, tuple(e for e in events if e is not None))


class _Checker:
    """Checks entries in order, keeping which objects exist at each point of the script."""

    def __init__(self, doc: Doc, cluster: Cluster) -> None:
        self.doc, self.cluster = doc, cluster
        self.errors: list[ManifestError] = []
        self.exists: dict[tuple[str, str], str] = {}  # (kind, key) → where it came from
        objects = [*cluster.namespaces, *cluster.nodes, *cluster.pods, *cluster.pdbs]
        objects += [o for o in cluster.others if o["kind"] in SELECTING_KINDS]
        self.current: dict[tuple[str, str], Mapping[str, Any]] = {}  # the latest manifests
        for obj in objects:
            self.exists[(obj["kind"], object_key(obj))] = "the cluster"
            self.current[(obj["kind"], object_key(obj))] = obj
        self.uids = {o["metadata"].get("uid"): (o["kind"], object_key(o)) for o in objects}
        self.previous = 0.0

    def fail(self, path: tuple[str | int, ...], message: str, obj: str = "") -> None:
        rendered = f"events[{path[0]}]" + "".join(
            f"[{s}]" if isinstance(s, int) else f".{s}" for s in path[1:]
        )
        where = self.doc.where(path)
        self.errors.append(ManifestError(message, where=where, obj=obj, path=rendered))

    def entry(self, i: int) -> ScriptedEvent | None:
        data = self.doc.data[i]
        if not isinstance(data, dict):
            self.fail((i,), f"an entry must be a mapping, got {describe(data)}")
            return None
        unknown = sorted(set(data) - {"at", *ACTIONS})
        for key in unknown:
            self.fail((i, key), f"unknown field; an entry has `at` and one of {', '.join(ACTIONS)}")
        at = self.time(i, data.get("at"))
        actions = [a for a in ACTIONS if a in data]
        if len(actions) != 1:
            said = f"got {', '.join(actions)}" if actions else "got none"
            self.fail((i,), f"an entry does exactly one of {', '.join(ACTIONS)}; {said}")
            return None
        action = actions[0]
        # the rest is checked even when `at` is wrong, so every problem is reported at once
        when = self.previous if at is None else at
        if action in COUNT_ACTIONS:
            event = self.count(i, when, action, data[action])
        elif action == "delete":
            event = self.delete(i, when, data["delete"])
        else:
            event = self.manifest(i, when, action, data[action])
        return None if at is None or unknown else event

    def time(self, i: int, value: Any) -> float | None:
        if value is None:
            self.fail((i,), "missing `at`: when the entry happens (30s, 1m30s)")
            return None
        try:
            if not isinstance(value, str):
                raise ValueError(f"must be a duration such as 30s or 1m30s, got {describe(value)}")
            at = parse_duration(value)
        except ValueError as err:
            self.fail((i, "at"), str(err))
            return None
        if at < self.previous:
            self.fail((i, "at"), f"entries go in time order: {value} comes after "
                      f"{format_duration(self.previous)}")  # fmt: skip
            return None
        self.previous = at
        return at

    def count(self, i: int, at: float, action: str, value: Any) -> ScriptedEvent | None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.fail((i, action), f"must be a whole number of calls ≥ 1, got {describe(value)}")
            return None
        return ScriptedEvent(i, at, action, count=value)

    def delete(self, i: int, at: float, value: Any) -> ScriptedEvent | None:
        if not isinstance(value, dict):
            self.fail((i, "delete"), f"must be {{kind, namespace, name}}, got {describe(value)}")
            return None
        for key in sorted(set(value) - {"kind", "namespace", "name"}):
            self.fail((i, "delete", key), "unknown field; delete takes kind, namespace, name")
        kind, name, ns = value.get("kind"), value.get("name"), value.get("namespace", "default")
        if kind not in EVENT_KINDS:
            self.fail((i, "delete", "kind"), _kind_message(kind))
            return None
        if not isinstance(name, str) or not name or not isinstance(ns, str):
            self.fail((i, "delete"), 'needs a `name` (and a `namespace`, default "default")')
            return None
        key = f"{ns}/{name}" if kind in NAMESPACED else name
        if (kind, key) not in self.exists:
            self.fail((i, "delete"), f"no {kind} {key} exists at {format_duration(at)}: not in "
                      "the cluster, or deleted by an earlier entry")  # fmt: skip
            return None
        del self.exists[(kind, key)]
        self.current.pop((kind, key), None)
        return ScriptedEvent(i, at, "delete", kind, key)

    def manifest(self, i: int, at: float, action: str, value: Any) -> ScriptedEvent | None:
        here = self.doc.child(value, i, action)
        if not isinstance(value, dict):
            self.fail((i, action), f"must be a manifest (a mapping), got {describe(value)}")
            return None
        kind = value.get("kind")
        if kind not in EVENT_KINDS:
            self.fail((i, action, "kind"), _kind_message(kind))
            return None
        # the cluster's PriorityClasses, so a pod's priorityClassName is admitted as on load
        classes = [Doc(pc, "the cluster", {}) for pc in self.cluster.priority_classes]
        try:
            loaded = from_docs([*classes, here])
        except ManifestError as err:
            for e in err.errors:
                self.errors.append(ManifestError(
                    e.message, where=e.where, obj=f"events[{i}].{action} {e.obj}".strip(),
                    path=e.path,
                ))  # fmt: skip
            return None
        obj = _the_object(loaded, kind)
        key, uid = object_key(obj), obj["metadata"].get("uid")
        return self.exist(i, at, action, kind, key, uid, obj)

    def exist(
        self, i: int, at: float, action: str, kind: str, key: str, uid: Any, obj: dict[str, Any]
    ) -> ScriptedEvent | None:
        there = self.exists.get((kind, key))
        if action == "create" and there is not None:
            self.fail((i, action), f"{kind} {key} already exists at {format_duration(at)} "
                      f"(created by {there})")  # fmt: skip
            return None
        if action == "update" and there is None:
            self.fail((i, action), f"no {kind} {key} exists at {format_duration(at)} to update")
            return None
        owner = self.uids.get(uid)
        if action == "create" and owner is not None and owner != (kind, key):
            self.fail((i, action, "metadata", "uid"), f"the UID of {owner[0]} {owner[1]}")
            return None
        if action == "update" and kind == "Pod":
            problems = pod_update_problems(self.current[(kind, key)], obj)
            for path, message in problems:
                self.fail((i, action, *path), message, obj=f"Pod {key}")
            if problems:
                return None
        self.exists[(kind, key)] = f"events[{i}]"
        self.current[(kind, key)] = obj
        self.uids[uid] = (kind, key)
        return ScriptedEvent(i, at, action, kind, key, obj)


def _kind_message(kind: Any) -> str:
    return f"kind {describe(kind)} is not one of {', '.join(EVENT_KINDS)}"


def _the_object(cluster: Cluster, kind: str) -> dict[str, Any]:
    by_kind = {
        "Namespace": cluster.namespaces,
        "Node": cluster.nodes,
        "Pod": cluster.pods,
        "PodDisruptionBudget": cluster.pdbs,
    }
    found = by_kind.get(kind) or cluster.of_kind(kind)
    return found[-1]


def until_after(script: EventScript, until: float | None) -> None:
    """``--until`` must not cut the script short (nothing would run half)."""
    late = [e for e in script.events if until is not None and e.at > until]
    if late:
        e = late[0]
        raise UsageError(
            f"{script.source}: events[{e.index}] ({e.describe()}) is at {format_duration(e.at)}, "
            f"after --until {format_duration(until or 0.0)}"
        )
