"""The autoscaler view: a cluster and its node groups shown to ``autoscaler.tla``.

Records are the scheduler view's (:mod:`.scheduler_view`, the API's shape) with the fields the
autoscaler's rules read added:

  POD   metadata: + annotations: fn,
                  deletionTime (Unix seconds of deletionTimestamp, 0 if none),
                  safeLocalVolumes: {string} (the ``safe-to-evict-local-volumes`` annotation split
                  on "," as CA splits it, untrimmed);
        spec:     + volumes: {[name, hostPath: BOOLEAN, emptyDir: BOOLEAN, medium]},
                  terminationGracePeriodSeconds (API default 30)
  NODE  metadata: + annotations: fn;  status: + capacity: fn (allocatable when absent)

Constants, besides the scheduler view's (``Pods``, ``Nodes``, ``PodsOn``, ``NamespaceLabels``,
``PDBs``, ``Now``):

- ``Groups``: one record per node group — ``name``, ``min``, ``max``, ``target``, ``nodes``
  (names), ``template`` (NODE), ``templatePods`` (its DaemonSet/mirror pods), ``copies`` (the
  template copies a scale-up may add, in creation order: ``<template name>-<i>`` with
  ``kubernetes.io/hostname`` set; as many as the group may grow, and never more than the pending
  pods plus one, which is all the estimator can use), ``priority``/``prioritized`` (the highest
  priority of the priority expander's ConfigMap whose regex matches the group's name anywhere, as
  Go's ``regexp.MatchString``; whether any does);
- ``Options``: the flags (``expendableCutoff``, ``maxNodesTotal``, ``coresMax`` (cores),
  ``memoryMax`` (bytes), ``maxNodesPerScaleUp``, ``threshold``/``gpuThreshold`` as
  ``[num, den]``, ``skipSystemPods``, ``skipLocalStorage``, ``skipCustomControllerPods``,
  ``expanders`` (a sequence), ``balance``, ``balancingIgnoreLabels``);
- ``Order``: ``[pods ↦ uid ↦ rank, nodes ↦ name ↦ rank, groups ↦ name ↦ rank]``, pods by
  namespace/name, nodes and groups by name (copies after every existing node, in creation
  order) — the orders the model fixes where upstream's is Go map order or an unstable sort;
- ``Clock``: CA's now, Unix seconds (:func:`schedspec.clock.ca_clock`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from schedspec.autoscaling import Autoscaling, NodeGroup
from schedspec.clock import ca_clock, seconds
from schedspec.cluster import Cluster, object_key
from schedspec.spec.kube import scheduler_view
from schedspec.spec.kube.scheduler_view import _Builder
from schedspec.spec.values import Fcn, Value, record

__all__ = ["ENUMS", "FIELDS", "AutoscalerWorld", "autoscaler_view", "copy_name"]

_Obj = Mapping[str, Any]
_HOSTNAME = "kubernetes.io/hostname"
_SAFE_LOCAL = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"

FIELDS: frozenset[str] = scheduler_view.FIELDS | frozenset(
    {
        "annotations", "ownerReferences", "kind", "controller", "deletionTime",
        "safeLocalVolumes", "volumes", "hostPath", "emptyDir", "medium",
        "terminationGracePeriodSeconds", "capacity",
        # Groups, Options, Order
        "min", "max", "target", "nodes", "template", "templatePods", "copies", "priority",
        "prioritized", "expendableCutoff", "maxNodesTotal", "coresMax", "memoryMax",
        "maxNodesPerScaleUp", "threshold", "gpuThreshold", "num", "den", "skipSystemPods",
        "skipLocalStorage", "skipCustomControllerPods", "expanders", "pods", "groups", "balance",
        "balancingIgnoreLabels",
        # the spec's own records
        "world", "placed", "left", "used", "open", "added", "ok", "to", "budget", "removable",
        "verdicts", "moves", "size", "minned", "outcome",
    }
)  # fmt: skip

ENUMS: Mapping[str, frozenset[str]] = scheduler_view.ENUMS


def copy_name(template_name: str, i: int) -> str:
    """The i-th (from 1) node a scale-up adds to a group (docs/autoscaler.md)."""
    return f"{template_name}-{i}"


@dataclass(frozen=True)
class AutoscalerWorld:
    objects: frozenset[Fcn]
    pods: Mapping[str, Fcn]
    nodes: Mapping[str, Fcn]
    pending: tuple[str, ...]
    constants: Mapping[str, Value]
    groups: Mapping[str, Fcn]


class _AutoscalerBuilder(_Builder):
    __slots__ = ()

    def pod(self, p: _Obj) -> Fcn:
        base = super().pod(p)
        meta, spec = p["metadata"], p.get("spec") or {}
        annotations = meta.get("annotations") or {}
        safe = annotations.get(_SAFE_LOCAL)
        extra_meta = {
            "annotations": self.map(annotations),
            "deletionTime": seconds(meta.get("deletionTimestamp")) or 0,
            "safeLocalVolumes": self.set(str(safe).split(",") if safe else ()),
        }
        extra_spec = {
            "volumes": self.set(_volume(v) for v in spec.get("volumes") or ()),
            "terminationGracePeriodSeconds": int(spec.get("terminationGracePeriodSeconds", 30)),
        }
        return record(
            metadata=Fcn({**base["metadata"], **extra_meta}),
            spec=self.intern(Fcn({**base["spec"], **extra_spec})),
            status=base["status"],
        )

    def node(self, n: _Obj) -> Fcn:
        base = super().node(n)
        status = n.get("status") or {}
        capacity = status.get("capacity") or status.get("allocatable")
        return record(
            metadata=Fcn(
                {**base["metadata"], "annotations": self.map(n["metadata"].get("annotations"))}
            ),
            spec=base["spec"],
            status=Fcn({**base["status"], "capacity": self.resources(capacity)}),
        )


def _volume(v: _Obj) -> Fcn:
    empty = v.get("emptyDir")
    return record(
        name=str(v.get("name", "")),
        hostPath="hostPath" in v,
        emptyDir=empty is not None,
        medium=str((empty or {}).get("medium", "")),
    )


def _copies(group: NodeGroup, count: int) -> list[dict[str, Any]]:
    out = []
    base = group.template["metadata"]["name"]
    for i in range(1, count + 1):
        node = copy.deepcopy(dict(group.template))
        name = copy_name(base, i)
        node["metadata"]["name"] = name
        node["metadata"].setdefault("labels", {})[_HOSTNAME] = name
        out.append(node)
    return out


def _priority(
    group: NodeGroup, priorities: Mapping[int, tuple[str, ...]] | None
) -> tuple[int, bool]:
    matching = [
        prio
        for prio, patterns in (priorities or {}).items()
        if any(re.search(rx, group.name) for rx in patterns)
    ]
    return (max(matching), True) if matching else (0, False)


def _options(a: Autoscaling) -> Fcn:
    o = a.options
    return record(
        expendableCutoff=o.expendable_pods_priority_cutoff,
        maxNodesTotal=o.max_nodes_total,
        coresMax=o.cores_total[1],
        memoryMax=o.memory_total[1] * 2**30,
        maxNodesPerScaleUp=getattr(o, "max_nodes_per_scale_up", 1000),
        threshold=record(
            num=o.scale_down_utilization_threshold.numerator,
            den=o.scale_down_utilization_threshold.denominator,
        ),
        gpuThreshold=record(
            num=o.scale_down_gpu_utilization_threshold.numerator,
            den=o.scale_down_gpu_utilization_threshold.denominator,
        ),
        skipSystemPods=o.skip_nodes_with_system_pods,
        skipLocalStorage=o.skip_nodes_with_local_storage,
        skipCustomControllerPods=o.skip_nodes_with_custom_controller_pods,
        expanders=tuple(o.expander),
        balance=o.balance_similar_node_groups,
        balancingIgnoreLabels=frozenset(o.balancing_ignore_labels),
    )


def _name(group: NodeGroup) -> str:
    return group.name


def autoscaler_view(cluster: Cluster, autoscaling: Autoscaling) -> AutoscalerWorld:
    """Show ``cluster`` and its node groups to ``autoscaler.tla`` (module docstring)."""
    build = _AutoscalerBuilder()
    base = scheduler_view.scheduler_world(cluster, build, configured=False)
    pending = len(base.pending)
    groups: dict[str, Fcn] = {}
    copy_names: list[str] = []
    room = sum(max(0, g.max_size - g.target_size) for g in autoscaling.groups)
    for g in autoscaling.groups:
        own = (
            room if autoscaling.options.balance_similar_node_groups else g.max_size - g.target_size
        )
        count = max(0, min(own, pending + 1))
        copies = _copies(g, count)
        copy_names += [c["metadata"]["name"] for c in copies]
        priority, prioritized = _priority(g, autoscaling.priorities)
        groups[g.name] = record(
            name=g.name,
            min=g.min_size,
            max=g.max_size,
            target=g.target_size,
            nodes=frozenset(g.nodes),
            template=build.node(g.template),
            templatePods=frozenset(build.pod(p) for p in g.template_pods),
            copies=tuple(build.node(c) for c in copies),
            priority=priority,
            prioritized=prioritized,
        )
    pods_by_key = sorted(
        cluster.pods, key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"])
    )
    node_names = sorted(base.nodes)
    order = record(
        pods=Fcn(
            {base.pods[object_key(p)]["metadata"]["uid"]: i for i, p in enumerate(pods_by_key)}
        ),
        nodes=Fcn({name: i for i, name in enumerate([*node_names, *copy_names])}),
        groups=Fcn({g.name: i for i, g in enumerate(sorted(autoscaling.groups, key=_name))}),
    )
    constants = {
        **base.constants,
        "Groups": frozenset(groups.values()),
        "Options": _options(autoscaling),
        "Order": order,
        "Clock": ca_clock(cluster, getattr(autoscaling.options, "now", None)),
    }
    return AutoscalerWorld(
        objects=base.objects,
        pods=base.pods,
        nodes=base.nodes,
        pending=base.pending,
        constants=MappingProxyType(constants),
        groups=MappingProxyType(groups),
    )
