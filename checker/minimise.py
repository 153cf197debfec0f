"""A Kubernetes-aware minimiser: the smallest cluster that still shows a failure.

``minimise(objects, still_fails)`` takes manifests (dicts, as ``cluster_objects`` draws them or a
counterexample file holds them) and a predicate that is True while the failure is still there,
and returns a smaller list of manifests for which it still holds. Greedy, to a fixed point, the
cheapest and largest edits first:

1. drop whole objects, halves first, then quarters, … then one at a time (delta debugging).
   Dropping a node drops the pods bound to it (or, when ``keep`` protects them or dropping them
   loses the failure, unbinds them) and clears nominations of it, so no pod is ever left bound
   to a missing node. Namespaces, PriorityClasses and PDBs go the same way;
2. drop one field or list element anywhere below ``metadata``/``spec``/``status`` (labels,
   taints, tolerations, affinity terms, expressions and values, spread constraints, containers,
   ports, images, …), shallowest first, so a whole ``affinity`` goes before its terms;
3. lower numbers: quantities (requests, limits, allocatable, overhead) and integers (priorities,
   PriorityClass values, ``maxSkew``, ``minDomains``, weights, budgets, image sizes) to the
   smallest value that still fails, by bisection from 0 (host and container ports are left
   alone: a smaller port number is no simpler);
4. rename nodes ``n0``, ``n1``… and pods ``p0``…, everywhere they are referenced.

A candidate that no longer loads (``from_objects`` raises ``ManifestError``) is skipped, never
tested and never returned; ``still_fails`` raising ``ManifestError`` counts as "does not fail";
any other exception propagates. ``keep(obj)`` protects an object from being dropped or renamed
(its fields may still be simplified). ``max_steps`` bounds the number of ``still_fails`` calls.
Deterministic: the same input gives the same output.

``to_yaml(objects)`` prints the result as multi-document YAML, keys in the order people write
them (apiVersion, kind, metadata, spec, status).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import yaml

from schedspec.checker.strategies import spell_quantity
from schedspec.cluster import from_objects, milli_value, value
from schedspec.errors import ManifestError
from schedspec.impl.errors import ConfigError

__all__ = ["minimise", "to_yaml"]

Obj = dict[str, Any]
Objects = list[Obj]
_Path = tuple[str | int, ...]

_QUANTITY_MAPS = frozenset({"requests", "limits", "allocatable", "capacity", "overhead",
                            "allocatedResources"})  # fmt: skip
_NOT_LOWERED = frozenset({"containerPort", "hostPort"})


class _Search:
    """The current best, the step budget and the cache of candidates already judged."""

    def __init__(
        self, objects: Objects, still_fails: Callable[[Objects], bool], max_steps: int
    ) -> None:
        self.best, self.still_fails, self.steps_left = objects, still_fails, max_steps
        self.judged: dict[str, bool] = {}

    def accept(self, candidate: Objects) -> bool:
        """Test ``candidate``; when it loads and still fails it becomes the best."""
        key = json.dumps(candidate, sort_keys=True)
        if key not in self.judged:
            if self.steps_left <= 0:
                return False
            self.judged[key] = self._fails(candidate)
        if self.judged[key] and candidate != self.best:
            self.best = candidate
            return True
        return False

    def _fails(self, candidate: Objects) -> bool:
        try:
            from_objects(candidate)
        except ManifestError:
            return False
        self.steps_left -= 1
        try:
            return bool(self.still_fails(copy.deepcopy(candidate)))
        except (ManifestError, ConfigError):
            # a configuration the scheduler refuses (e.g. defaultConstraints left under
            # defaultingType System once the minimiser dropped the type) is no cluster
            return False


def minimise(
    objects: list[dict[str, Any]],
    still_fails: Callable[[list[dict[str, Any]]], bool],
    *,
    keep: Callable[[dict[str, Any]], bool] | None = None,
    max_steps: int = 2000,
) -> list[dict[str, Any]]:
    """The smallest manifests found that still make ``still_fails`` True (module docstring).
    Raises ``ValueError`` when ``objects`` do not fail to begin with."""
    start = copy.deepcopy(list(objects))
    from_objects(start)  # bad input is the caller's ManifestError, not a silent "no failure"
    if not still_fails(copy.deepcopy(start)):
        raise ValueError("still_fails is False on the objects given: nothing to minimise")
    search = _Search(start, still_fails, max_steps)
    kept = keep or (lambda _obj: False)
    passes: list[Callable[[_Search, Callable[[Obj], bool]], bool]] = [
        _drop_objects,
        _drop_fields,
        _lower_numbers,
        _rename,
    ]
    progress = True
    while progress and search.steps_left > 0:
        progress = any(run(search, kept) for run in passes)  # back to the cheapest on success
    return search.best


# ---------------------------------------------------------------------------- 1. whole objects


def _name(obj: Obj) -> str:
    name: str = obj.get("metadata", {}).get("name", "")
    return name


def _without(objects: Objects, dropped: set[int], kept: Callable[[Obj], bool]) -> Objects:
    """``objects`` minus the indices ``dropped``; pods bound to a dropped node are dropped too
    (unbound when protected), nominations of it cleared."""
    gone = {_name(objects[i]) for i in dropped if objects[i].get("kind") == "Node"}
    out = []
    for i, obj in enumerate(objects):
        if i in dropped:
            continue
        if obj.get("kind") == "Pod" and gone:
            spec, status = obj.get("spec", {}), obj.get("status", {})
            if spec.get("nodeName") in gone:
                if not kept(obj):
                    continue
                obj = _unbound(obj)
            if status.get("nominatedNodeName") in gone:
                obj = copy.deepcopy(obj)
                del obj["status"]["nominatedNodeName"]
        out.append(obj)
    return out


def _unbound(pod: Obj) -> Obj:
    pod = copy.deepcopy(pod)
    del pod["spec"]["nodeName"]
    pod["status"] = {"phase": "Pending"}
    return pod


def _drop_objects(search: _Search, kept: Callable[[Obj], bool]) -> bool:
    changed = False
    size = max(1, len(search.best) // 2)
    while True:
        droppable = [i for i, obj in enumerate(search.best) if not kept(obj)]
        start = 0
        while start < len(droppable):
            chunk = set(droppable[start : start + size])
            if search.accept(_without(search.best, chunk, kept)):
                changed = True
                droppable = [i for i, obj in enumerate(search.best) if not kept(obj)]
            else:
                start += size
        if size == 1:
            return _unbind_pods(search) or changed
        size //= 2


def _unbind_pods(search: _Search) -> bool:
    """A bound pod that matters only as a pending one: unbind it."""
    changed = False
    for i in range(len(search.best)):
        obj = search.best[i]
        if obj.get("kind") == "Pod" and obj.get("spec", {}).get("nodeName"):
            changed |= search.accept([*search.best[:i], _unbound(obj), *search.best[i + 1 :]])
    return changed


# ------------------------------------------------------------------------------ 2. fields


def _protected(path: _Path) -> bool:
    if len(path) == 1:
        return path[0] in ("apiVersion", "kind", "metadata")
    return path[0] == "metadata" and path[1] in ("name", "namespace")


def _field_paths(data: Any, prefix: _Path = ()) -> Iterator[_Path]:
    """Every dict key and list element below ``data``, shallowest first."""
    level: list[tuple[_Path, Any]] = [(prefix, data)]
    while level:
        deeper: list[tuple[_Path, Any]] = []
        for path, node in level:
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, child in items:
                yield (*path, key)
                if isinstance(child, dict | list):
                    deeper.append(((*path, key), child))
        level = deeper


def _edited(obj: Obj, path: _Path, new: Any = ..., *, drop: bool = False) -> Obj:
    obj = copy.deepcopy(obj)
    parent: Any = obj
    for step in path[:-1]:
        parent = parent[step]
    if drop:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return obj


def _replace(objects: Objects, i: int, obj: Obj) -> Objects:
    return [*objects[:i], obj, *objects[i + 1 :]]


def _drop_fields(search: _Search, kept: Callable[[Obj], bool]) -> bool:
    changed = False
    for i in range(len(search.best)):
        at = 0
        while True:
            paths = [p for p in _field_paths(search.best[i]) if not _protected(p)]
            if at >= len(paths):
                break
            candidate = _edited(search.best[i], paths[at], drop=True)
            if search.accept(_replace(search.best, i, candidate)):
                changed = True  # the paths before ``at`` are unchanged: carry on from here
            else:
                at += 1
    return changed


# ------------------------------------------------------------------------------ 3. numbers


def _numbers(obj: Obj) -> Iterator[tuple[_Path, int, Callable[[int], Any]]]:
    """(path, current amount, how to write an amount back) of every number worth lowering."""
    for path in _field_paths(obj):
        leaf: Any = obj
        for step in path:
            leaf = leaf[step]
        last = path[-1]
        if len(path) >= 2 and path[-2] in _QUANTITY_MAPS and isinstance(last, str):
            if isinstance(leaf, str | int | float) and not isinstance(leaf, bool):
                amount = milli_value(leaf) if last == "cpu" else value(leaf)
                yield path, amount, _speller(last)
        elif isinstance(leaf, int) and not isinstance(leaf, bool) and last not in _NOT_LOWERED:
            yield path, leaf, _as_int


def _speller(resource: str) -> Callable[[int], Any]:
    return lambda amount: spell_quantity(resource, amount)


def _as_int(amount: int) -> int:
    return amount


def _lower_numbers(search: _Search, kept: Callable[[Obj], bool]) -> bool:
    changed = False
    for i in range(len(search.best)):
        for path, amount, write in list(_numbers(search.best[i])):
            changed |= _bisect(search, i, path, amount, write)
    return changed


def _bisect(search: _Search, i: int, path: _Path, amount: int, write: Callable[[int], Any]) -> bool:
    """Lower the number at ``path`` to the smallest amount in [0, amount) that still fails,
    assuming failure is monotone in it (a wrong guess only costs a larger result)."""

    def fails_at(a: int) -> bool:
        return search.accept(_replace(search.best, i, _edited(search.best[i], path, write(a))))

    if amount <= 0:
        return False
    if fails_at(0):
        return True
    low, high, changed = 0, amount, False  # fails at high, not at low
    while high - low > 1 and search.steps_left > 0:
        middle = (low + high) // 2
        if fails_at(middle):
            high, changed = middle, True
        else:
            low = middle
    return changed


# ------------------------------------------------------------------------------ 4. names


def _rename(search: _Search, kept: Callable[[Obj], bool]) -> bool:
    changed = False
    for kind, prefix in (("Node", "n"), ("Pod", "p")):
        names = [_name(o) for o in search.best if o.get("kind") == kind and not kept(o)]
        taken = {_name(o) for o in search.best if o.get("kind") == kind}
        fresh = (f"{prefix}{k}" for k in range(len(taken) + len(names) + 1))
        for old in names:
            new = next(n for n in fresh if n not in taken)
            if len(new) < len(old) and search.accept(_renamed(search.best, kind, old, new)):
                taken.add(new)
                changed = True
    return changed


def _renamed(objects: Objects, kind: str, old: str, new: str) -> Objects:
    """``objects`` with the ``kind`` ``old`` renamed ``new`` wherever a name refers to it."""
    text = json.dumps(objects)
    out: Objects = json.loads(text)
    for obj in out:
        meta, spec = obj.get("metadata", {}), obj.get("spec", {})
        if obj.get("kind") == kind and meta.get("name") == old:
            meta["name"] = new
            if kind == "Node" and meta.get("labels", {}).get("kubernetes.io/hostname") == old:
                meta["labels"]["kubernetes.io/hostname"] = new
        if kind == "Node" and obj.get("kind") == "Pod":
            if spec.get("nodeName") == old:
                spec["nodeName"] = new
            status = obj.get("status", {})
            if status.get("nominatedNodeName") == old:
                status["nominatedNodeName"] = new
            _rename_values(spec, old, new)
        if kind == "Pod" and obj.get("kind") == "PodDisruptionBudget":
            disrupted = obj.get("status", {}).get("disruptedPods") or {}
            if old in disrupted:
                disrupted[new] = disrupted.pop(old)
    return out


def _rename_values(data: Any, old: str, new: str) -> None:
    """Selector values naming the node (hostname / metadata.name requirements, nodeSelector)."""
    if isinstance(data, dict):
        if isinstance(data.get("values"), list):
            data["values"] = [new if v == old else v for v in data["values"]]
        for key, child in data.items():
            if key == "nodeSelector" and isinstance(child, dict):
                for label, v in child.items():
                    child[label] = new if v == old else v
            else:
                _rename_values(child, old, new)
    elif isinstance(data, list):
        for child in data:
            _rename_values(child, old, new)


# ------------------------------------------------------------------------------ YAML


_TOP = ("apiVersion", "kind", "metadata", "spec", "status")
_META = ("name", "namespace", "labels", "annotations")


def _ordered(obj: Mapping[str, Any]) -> Obj:
    out: Obj = {k: obj[k] for k in _TOP if k in obj}
    out.update({k: v for k, v in obj.items() if k not in out})
    if isinstance(out.get("metadata"), Mapping):
        meta = out["metadata"]
        out["metadata"] = {k: meta[k] for k in _META if k in meta}
        out["metadata"].update({k: v for k, v in meta.items() if k not in _META})
    return out


def to_yaml(objects: list[dict[str, Any]]) -> str:
    """Multi-document YAML (``---`` before each object), apiVersion/kind/metadata/spec/status
    first, strings that look like numbers quoted, so ``kubectl apply -f`` and ``load`` read it
    back as the same objects."""
    return yaml.safe_dump_all(
        [_ordered(o) for o in objects],
        sort_keys=False,
        explicit_start=True,
        default_flow_style=False,
        allow_unicode=True,
    )
