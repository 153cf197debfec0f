"""The objects a live scheduler works on, rebuilt from a watch stream, at any point of it.

``History`` holds the latest version of every watched object (``kind``, ``ns/name``) and the
ordered log of changes that led there: ``apply(kind, obj_or_None)`` records one change (a watch
event: ADDED/MODIFIED give the object, DELETED gives None) and returns its position. The state
*before* change ``i`` is the latest state with the changes ``i, i+1, …`` undone, so a decision
recorded at position ``i`` can be judged against the objects the API server held just before it,
or a few changes before or after (``objects_at``): the scheduler's cache runs ahead of the API
server by the pods it has assumed but not yet bound, and behind it by its informer's lag.

``ClusterBuilder`` turns such a set of manifests into a ``Cluster`` as the YAML loader would
(``schedspec.cluster.from_objects``), loading each pod version once and the other kinds once per
change of any of them: a state differs from the last one by a few pods.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from schedspec.cluster import Cluster, from_objects, object_key

__all__ = ["Change", "ClusterBuilder", "History", "Key", "manifests"]

Key = tuple[str, str]
"""(kind, ``object_key``): ``("Pod", "shop/web-0")``, ``("Node", "n1")``."""

Obj = dict[str, Any]


@dataclass(frozen=True)
class Change:
    """One watch event: the object before (None: it was created) and after (None: deleted)."""

    key: Key
    old: Obj | None
    new: Obj | None


class History:
    """The latest objects and every change, in the order the watch delivered them."""

    def __init__(self) -> None:
        self.objects: dict[Key, Obj] = {}
        self.log: list[Change] = []

    def __len__(self) -> int:
        return len(self.log)

    def apply(self, kind: str, key: str, obj: Obj | None) -> int:
        """Records ``obj`` as the new version of (kind, key) (None: deleted); its position."""
        k = (kind, key)
        old = self.objects.get(k)
        if obj is None:
            self.objects.pop(k, None)
        else:
            self.objects[k] = obj
        self.log.append(Change(k, old, obj))
        return len(self.log) - 1

    def objects_at(self, position: int, pins: Mapping[Key, Obj | None] = {}) -> dict[Key, Obj]:
        """The objects just before change ``position`` (``len(self)``: the latest), with
        ``pins`` overriding some (None: absent)."""
        position = max(0, min(position, len(self.log)))
        objects = dict(self.objects)
        for change in reversed(self.log[position:]):
            if change.old is None:
                objects.pop(change.key, None)
            else:
                objects[change.key] = change.old
        for k, obj in pins.items():
            if obj is None:
                objects.pop(k, None)
            else:
                objects[k] = obj
        return objects

    def version_before(self, key: Key, position: int) -> Obj | None:
        """(kind, key) just before change ``position`` (None: absent then)."""
        for change in self.log[position:]:
            if change.key == key:
                return change.old
        return self.objects.get(key)


class ClusterBuilder:
    """Manifests → ``Cluster``, as ``from_objects`` builds it, reusing what was loaded before.

    Pods are loaded one at a time with the PriorityClasses (their priority is resolved from
    them when the server left it unset) and cached by content; the other kinds are loaded
    together, once per distinct set. A pod the loader refuses raises its ``ManifestError``.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = dict(config) if config is not None else None
        self._pods: dict[str, Obj] = {}
        self._rest: tuple[str, Cluster] | None = None

    def build(self, objects: Iterable[Obj]) -> Cluster:
        pods: list[Obj] = []
        rest: list[Obj] = []
        for obj in objects:
            (pods if obj["kind"] == "Pod" else rest).append(obj)
        rest.sort(key=lambda o: (o["kind"], object_key(o)))
        skeleton = self._skeleton(rest)
        classes = [o for o in rest if o["kind"] == "PriorityClass"]
        pods.sort(key=object_key)
        return dataclasses.replace(skeleton, pods=tuple(self._pod(p, classes) for p in pods))

    def _skeleton(self, rest: list[Obj]) -> Cluster:
        config = [self.config] if self.config is not None else []
        digest = json.dumps(rest, sort_keys=True)
        if self._rest is None or self._rest[0] != digest:
            self._rest = (digest, from_objects([*rest, *config], source="the watch"))
        return self._rest[1]

    def _pod(self, pod: Obj, classes: list[Obj]) -> Obj:
        digest = json.dumps(pod, sort_keys=True)
        loaded = self._pods.get(digest)
        if loaded is None:
            loaded = from_objects([*classes, pod], source="the watch").pods[0]
            if len(self._pods) > 50_000:
                self._pods.clear()
            self._pods[digest] = loaded
        return loaded


def manifests(objects: Mapping[Key, Obj]) -> list[Obj]:
    """The objects in a stable order: kinds as a snapshot writes them, then by key."""
    order = {"Namespace": 0, "PriorityClass": 1, "Node": 2, "Pod": 3}
    return [objects[k] for k in sorted(objects, key=lambda k: (order.get(k[0], 4), k))]
