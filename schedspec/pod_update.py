"""What an update may change in a pod's spec, as the API server allows it.

Mirrors ``ValidatePodUpdate`` (k8s.io/kubernetes v1.34, pkg/apis/core/validation/validation.go)
for the fields an event script's ``update`` can touch, plus the ``pods/resize`` subresource
(in-place resize, on by default in v1.34) for container resources:

- a container's or init container's ``image`` and ``resources`` (the number of containers, and
  everything else about them, stays);
- ``activeDeadlineSeconds``: set from none, or lowered — never raised, never removed;
- ``tolerations``: only added; ``schedulingGates``: only removed;
- on a pod that is still gated: ``nodeSelector`` entries added, ``affinity.nodeAffinity``
  changed (upstream further limits the latter to narrowing the required terms; not checked here).

Anything else in ``spec`` differing is refused, with the first path that differs. ``metadata``
(labels, annotations) and ``status`` may change: labels by update, status through the status
subresource, which the script's ``update`` stands for too.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["pod_update_problems"]

Problem = tuple[tuple[str | int, ...], str]


def pod_update_problems(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Problem]:
    """(field path, message) for every change of ``new``'s spec the API server refuses."""
    o, n = old.get("spec") or {}, new.get("spec") or {}
    problems: list[Problem] = []
    for name in ("containers", "initContainers"):
        if len(o.get(name) or []) != len(n.get(name) or []):
            problems.append((("spec", name), "may not add or remove containers"))
            return problems
    problems += _deadline(o.get("activeDeadlineSeconds"), n.get("activeDeadlineSeconds"))
    if any(t not in (n.get("tolerations") or []) for t in o.get("tolerations") or []):
        problems.append((("spec", "tolerations"), "existing tolerations may not be removed"))
    if any(g not in (o.get("schedulingGates") or []) for g in n.get("schedulingGates") or []):
        problems.append((("spec", "schedulingGates"), "only deletion is allowed"))
    gated = bool(o.get("schedulingGates"))
    if gated:
        old_sel, new_sel = o.get("nodeSelector") or {}, n.get("nodeSelector") or {}
        if any(new_sel.get(k) != v for k, v in old_sel.items()):
            problems.append((("spec", "nodeSelector"), "only additions are allowed"))
    munged = _munged(o, n, gated)
    if munged != o:
        path = _first_difference(o, munged, ("spec",))
        problems.append((path, "pod updates may not change fields other than the containers' "
                         "image and resources, activeDeadlineSeconds, tolerations (additions) "
                         "and schedulingGates (removals)"))  # fmt: skip
    return problems


def _deadline(old: Any, new: Any) -> list[Problem]:
    path = ("spec", "activeDeadlineSeconds")
    if new is None:
        return [(path, "must not update from a positive integer to nil value")] if old else []
    if old is not None and new > old:
        return [(path, "must be less than or equal to previous value")]
    return []


def _munged(old: Mapping[str, Any], new: Mapping[str, Any], gated: bool) -> dict[str, Any]:
    """``new`` with every field an update may change taken from ``old``."""
    out = copy.deepcopy(dict(new))
    for name in ("containers", "initContainers"):
        for c_new, c_old in zip(out.get(name) or [], old.get(name) or [], strict=True):
            for key in ("image", "resources"):
                _take(c_new, c_old, key)
    for key in ("activeDeadlineSeconds", "tolerations", "schedulingGates"):
        _take(out, old, key)
    if gated:
        _take(out, old, "nodeSelector")
        affinity = dict(out.get("affinity") or {})
        affinity.pop("nodeAffinity", None)
        if old.get("affinity", {}).get("nodeAffinity") is not None:
            affinity["nodeAffinity"] = old["affinity"]["nodeAffinity"]
        if affinity or "affinity" in old:
            out["affinity"] = affinity
        else:
            out.pop("affinity", None)
    return out


def _take(into: dict[str, Any], source: Mapping[str, Any], key: str) -> None:
    if key in source:
        into[key] = source[key]
    else:
        into.pop(key, None)


def _first_difference(a: Any, b: Any, path: tuple[str | int, ...]) -> tuple[str | int, ...]:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in sorted(set(a) | set(b)):
            if json.dumps(a.get(key), sort_keys=True) != json.dumps(b.get(key), sort_keys=True):
                return _first_difference(a.get(key), b.get(key), (*path, key))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, (*path, i))
    return path
