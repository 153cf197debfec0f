"""Small manifests for the autoscaler's tests: nodes, pods, PDBs as the loader reads them, and
node groups built directly (the loader is tested on its own)."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

from schedspec.autoscaling import Autoscaling, AutoscalingOptions, NodeGroup
from schedspec.cluster import Cluster, from_objects
from schedspec.impl.autoscaler import AutoscalerResult, run_once

Obj = dict[str, Any]
HOSTNAME = "kubernetes.io/hostname"


def node(
    name: str,
    cpu: str = "2",
    mem: str = "4Gi",
    *,
    labels: dict[str, str] | None = None,
    taints: list[Obj] | None = None,
    annotations: dict[str, str] | None = None,
    extra: dict[str, str] | None = None,
    unschedulable: bool = False,
) -> Obj:
    resources = {"cpu": cpu, "memory": mem, "pods": "110", **(extra or {})}
    meta: Obj = {"name": name, "labels": {HOSTNAME: name, **(labels or {})}}
    if annotations:
        meta["annotations"] = annotations
    spec: Obj = {"taints": taints or []}
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta,
        "spec": spec,
        "status": {"capacity": resources, "allocatable": dict(resources)},
    }


def pod(
    name: str,
    cpu: str | None = None,
    mem: str | None = None,
    *,
    on: str | None = None,
    ns: str = "default",
    owner: str | None = "ReplicaSet",
    priority: int | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    spec: Obj | None = None,
    status: Obj | None = None,
    meta: Obj | None = None,
) -> Obj:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v is not None}
    container: Obj = {"name": "c", "image": "img"}
    if requests:
        container["resources"] = {"requests": requests}
    metadata: Obj = {"name": name, "namespace": ns, "labels": labels or {}, **(meta or {})}
    if owner is not None:
        ref = {"apiVersion": "apps/v1", "kind": owner, "name": "o", "uid": "u", "controller": True}
        metadata["ownerReferences"] = [ref]
    if annotations:
        metadata["annotations"] = annotations
    body: Obj = {"containers": [container], **(spec or {})}
    if on is not None:
        body["nodeName"] = on
    if priority is not None:
        body["priority"] = priority
    obj: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": body}
    if status is not None:
        obj["status"] = status
    return obj


def pdb(name: str, labels: dict[str, str], allowed: int, ns: str = "default") -> Obj:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"selector": {"matchLabels": labels}, "maxUnavailable": 1},
        "status": {"disruptionsAllowed": allowed},
    }


def template(group: str, cpu: str = "2", mem: str = "4Gi", **kw: Any) -> Obj:
    """A group's template node, named and labelled as the loader names it."""
    return node(f"template-node-for-{group}", cpu, mem, **kw)


def group(
    name: str,
    *,
    nodes: tuple[str, ...] = (),
    min_size: int = 0,
    max_size: int = 10,
    target: int | None = None,
    tmpl: Obj | None = None,
    price: Fraction | None = None,
    template_pods: tuple[Obj, ...] = (),
) -> NodeGroup:
    t = tmpl if tmpl is not None else template(name)
    t_name = t["metadata"]["name"]
    pods = tuple(
        {**copy.deepcopy(p), "spec": {**p["spec"], "nodeName": t_name}} for p in template_pods
    )
    size = len(nodes) if target is None else target
    return NodeGroup(name, min_size, max_size, size, nodes, t, pods, price)


def cluster(*objects: Obj) -> Cluster:
    return from_objects(objects)


def autoscaling(*groups: NodeGroup, **options: Any) -> Autoscaling:
    priorities = options.pop("priorities", None)
    ordered = tuple(sorted(groups, key=lambda g: g.name))
    return Autoscaling(ordered, AutoscalingOptions(**options), priorities)


def run(objects: list[Obj], *groups: NodeGroup, seed: int = 0, **options: Any) -> AutoscalerResult:
    return run_once(cluster(*objects), autoscaling(*groups, **options), seed=seed)
