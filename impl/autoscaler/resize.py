"""The cluster after the plan: ``grown_cluster`` adds the planned nodes, ``shrunk_cluster``
removes the removable ones, so impl's scheduler can be run on the result.

Both build on the loaded cluster: its objects were validated and admitted once (priorities
resolved from their classes), and new ones are copies of validated objects, so nothing is loaded
a second time — a second admission would judge the admitted fields as if a user had written them.
"""

from __future__ import annotations

import copy
import dataclasses
import uuid
from collections.abc import Mapping
from typing import Any

from schedspec.autoscaling import Autoscaling
from schedspec.cluster import Cluster
from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.context import HOSTNAME
from schedspec.impl.autoscaler.results import AutoscalerResult

__all__ = ["grown_cluster", "shrunk_cluster"]

Obj = dict[str, Any]


def _new_node(template: Mapping[str, Any], name: str) -> Obj:
    node: Obj = copy.deepcopy(dict(template))
    meta = node.setdefault("metadata", {})
    meta["name"] = name
    meta["uid"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"schedspec/Node/{name}"))
    meta["labels"] = {**(meta.get("labels") or {}), HOSTNAME: name}
    return node


def _new_pod(pod: Mapping[str, Any], node: str) -> Obj:
    copied: Obj = copy.deepcopy(dict(pod))
    meta = copied.setdefault("metadata", {})
    meta["name"] = f"{meta.get('name', 'pod')}-{node}"
    meta["uid"] = str(
        uuid.uuid5(uuid.NAMESPACE_URL, f"schedspec/Pod/{meta.get('namespace')}/{meta['name']}")
    )
    copied.setdefault("spec", {})["nodeName"] = node
    return copied


def grown_cluster(cluster: Cluster, autoscaling: Autoscaling, result: AutoscalerResult) -> Cluster:
    """``cluster`` plus, per planned group, ``to − from`` copies of its template named
    ``<template name>-<i>`` (i = 1, 2, …; ``kubernetes.io/hostname`` set) with the template's
    DaemonSet/mirror pods copied onto each (named ``<pod>-<node>``)."""
    nodes, pods = list(cluster.nodes), list(cluster.pods)
    by_name = {g.name: g for g in autoscaling.groups}
    for group_name, (before, after) in result.scale_up.plan.items():
        group = by_name[group_name]
        base = group.template["metadata"]["name"]
        for i in range(1, after - before + 1):
            name = f"{base}-{i}"
            nodes.append(_new_node(group.template, name))
            pods.extend(_new_pod(p, name) for p in group.template_pods)
    return dataclasses.replace(cluster, nodes=tuple(nodes), pods=tuple(pods))


def shrunk_cluster(cluster: Cluster, result: AutoscalerResult) -> Cluster:
    """``cluster`` without the removable nodes: their DaemonSet, mirror, terminal and
    long-terminating pods are dropped, every other pod on them is unbound (pending again)."""
    gone = set(result.scale_down.removable())
    nodes = [n for n in cluster.nodes if n["metadata"]["name"] not in gone]
    pods: list[Any] = []
    for pod in cluster.pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if node not in gone:
            pods.append(pod)
            continue
        phase = (pod.get("status") or {}).get("phase")
        if podutil.is_daemonset_pod(pod) or podutil.is_mirror_pod(pod):
            continue
        if phase in ("Succeeded", "Failed") or (pod.get("metadata") or {}).get("deletionTimestamp"):
            continue
        unbound: Obj = copy.deepcopy(pod)
        del unbound["spec"]["nodeName"]
        unbound["status"] = {"phase": "Pending"}
        pods.append(unbound)
    return dataclasses.replace(cluster, nodes=tuple(nodes), pods=tuple(pods))
