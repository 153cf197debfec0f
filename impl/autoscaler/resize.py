"""The cluster after the plan: ``grown_cluster`` adds the planned nodes, ``shrunk_cluster``
removes the removable ones, so impl's scheduler can be run on the result.

Both rebuild the cluster through ``schedspec.cluster.from_objects``, so what they return is
validated like any input.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from schedspec.autoscaling import Autoscaling
from schedspec.cluster import Cluster, from_objects
from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.context import HOSTNAME
from schedspec.impl.autoscaler.results import AutoscalerResult

__all__ = ["grown_cluster", "shrunk_cluster"]

Obj = dict[str, Any]


def _objects(cluster: Cluster) -> list[Obj]:
    out: list[Obj] = []
    for group in (cluster.namespaces, cluster.priority_classes, cluster.nodes, cluster.pdbs):
        out.extend(copy.deepcopy(list(group)))
    if cluster.scheduler_config is not None:
        out.append(copy.deepcopy(cluster.scheduler_config))
    return out


def _new_node(template: Mapping[str, Any], name: str) -> Obj:
    node: Obj = copy.deepcopy(dict(template))
    meta = node.setdefault("metadata", {})
    meta["name"] = name
    meta.pop("uid", None)
    meta["labels"] = {**(meta.get("labels") or {}), HOSTNAME: name}
    return node


def _new_pod(pod: Mapping[str, Any], node: str) -> Obj:
    copied: Obj = copy.deepcopy(dict(pod))
    meta = copied.setdefault("metadata", {})
    meta["name"] = f"{meta.get('name', 'pod')}-{node}"
    meta.pop("uid", None)
    copied.setdefault("spec", {})["nodeName"] = node
    return copied


def grown_cluster(cluster: Cluster, autoscaling: Autoscaling, result: AutoscalerResult) -> Cluster:
    """``cluster`` plus, per planned group, ``to − from`` copies of its template named
    ``<template name>-<i>`` (i = 1, 2, …; ``kubernetes.io/hostname`` set) with the template's
    DaemonSet/mirror pods copied onto each (named ``<pod>-<node>``)."""
    objects = _objects(cluster)
    objects.extend(copy.deepcopy(list(cluster.pods)))
    by_name = {g.name: g for g in autoscaling.groups}
    for group_name, (before, after) in result.scale_up.plan.items():
        group = by_name[group_name]
        base = group.template["metadata"]["name"]
        for i in range(1, after - before + 1):
            name = f"{base}-{i}"
            objects.append(_new_node(group.template, name))
            objects.extend(_new_pod(p, name) for p in group.template_pods)
    return from_objects(objects, source="<grown cluster>")


def shrunk_cluster(cluster: Cluster, result: AutoscalerResult) -> Cluster:
    """``cluster`` without the removable nodes: their DaemonSet, mirror, terminal and
    long-terminating pods are dropped, every other pod on them is unbound (pending again)."""
    gone = set(result.scale_down.removable())
    objects = [n for n in _objects(cluster) if not _is_gone_node(n, gone)]
    for pod in cluster.pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if node not in gone:
            objects.append(copy.deepcopy(pod))
            continue
        phase = (pod.get("status") or {}).get("phase")
        if podutil.is_daemonset_pod(pod) or podutil.is_mirror_pod(pod):
            continue
        if phase in ("Succeeded", "Failed") or (pod.get("metadata") or {}).get("deletionTimestamp"):
            continue
        unbound: Obj = copy.deepcopy(pod)
        del unbound["spec"]["nodeName"]
        unbound["status"] = {"phase": "Pending"}
        objects.append(unbound)
    return from_objects(objects, source="<shrunk cluster>")


def _is_gone_node(obj: Mapping[str, Any], gone: set[str]) -> bool:
    return obj.get("kind") == "Node" and obj["metadata"]["name"] in gone
