"""The bounded cluster with node groups, shown to ``autoscaler.tla`` in the autoscaler view's shape.

Each of ``--groups`` node groups is a Cluster API ``MachineDeployment`` (``default/group-0``, …)
that CA scales from zero: no node of the cluster belongs to it, so its template is built from its
scale-from-zero annotations (``capacity.cluster-autoscaler.kubernetes.io/`` cpu, memory, maxPods,
labels, taints; ``schedspec.autoscaling_templates.from_annotations``). Free: the template's
capacity, labels and taints, the min/max size annotations and ``spec.replicas`` (the target size;
0 ≤ min ≤ max, 0 ≤ target ≤ max, 1 ≤ max ≤ :data:`GROUP_MAX_SIZE`), and each pod's controller
(none, a ReplicaSet or a DaemonSet). Fixed: CA's default flags, no DaemonSet objects (templates
carry no pods), no annotations or volumes on pods, no PDBs.

So scale-up is open to the solver and scale-down is not: every node of the bounded cluster is
outside every group, which CA reports as "not autoscaled" (:data:`SCALE_DOWN_NOTE`, printed by
``find`` when a query reads a scale-down definition).

The view's derived constants are computed here as the view computes them, symbolically: a group's
copies (``<template>-1``, …; as many as ``min(max - target, pending pods + 1)``), ``Order`` (pods by
namespace then name, nodes by name, then the copies in creation order) and ``Clock`` (the pods'
start time when there is a pod, else 0: ``schedspec.clock.ca_clock``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import z3

from schedspec.autoscaling import MAX_SIZE_ANNOTATION, MIN_SIZE_ANNOTATION, Autoscaling
from schedspec.autoscaling_templates import CAPACITY_PREFIX, template_name
from schedspec.spec.compile.z3 import SFun, SSeq, SSet, disj, srecord
from schedspec.spec.kube.autoscaler_view import _options, copy_name
from schedspec.spec.kube.symbolic.bounds import START_TIME, TAINT_KEYS
from schedspec.spec.kube.symbolic.objects import SymCluster, SymNode, SymPod
from schedspec.spec.kube.symbolic.scheduler_shape import _SchedulerShape
from schedspec.spec.values import Fcn

if TYPE_CHECKING:
    from schedspec.spec.kube.symbolic.back import _Back
    from schedspec.spec.kube.symbolic.builder import _Builder

__all__ = [
    "GROUP_MAX_SIZE",
    "SCALE_DOWN_DEFINITIONS",
    "SCALE_DOWN_NOTE",
    "SymGroup",
    "autoscaler_constants",
    "build_groups",
    "group_objects",
    "owner_references",
]

GROUP_MAX_SIZE = 3
OWNER_KINDS = ("", "ReplicaSet", "DaemonSet")
OWNER_API_VERSION = "apps/v1"  # both kinds' group/version
SCALE_DOWN_NOTE = (
    "the bounded cluster's node groups are scale-from-zero MachineDeployments: no node belongs "
    "to one, so every node is 'not autoscaled' and a scale-down answer says nothing about "
    "scale-down in general"
)
SCALE_DOWN_DEFINITIONS = frozenset(
    {
        "Ineligible", "Eligible", "Utilization", "NotUnderutilized", "Planner", "Removal",
        "ScaleDownReason", "ScaleDownBlocker", "ScaleDownMoves", "Simulated", "EmptyRemoval",
        "RemovalOrder", "CandidateSeq", "Empty", "GroupsOf",
    }
)  # fmt: skip
_HOSTNAME = "kubernetes.io/hostname"
_FIXED_LABELS = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}
_COPY_IDENT = 100_000


@dataclass
class SymGroup:
    index: int
    name: str
    """The group's id as ``schedspec.autoscaling`` names it: ``MachineDeployment/default/…``."""
    object_name: str
    template: SymNode
    min: Any
    max: Any
    target: Any
    copies: list[str]


def build_groups(b: _Builder, count: int) -> None:
    """Add ``count`` node groups and a controller per pod to the cluster ``b`` is building."""
    sc = b.cluster
    empty = b.u.code("")
    for p in sc.pods:
        owner = b.string(f"{p.name}.owner", OWNER_KINDS)
        b.count("fields", owner.z != empty)
        sc.owners.append(owner)
    for kind in OWNER_KINDS:
        b.u.code(kind)
    taken = set(b.node_names)
    for i in range(count):
        obj = f"group-{i}"
        gid = f"MachineDeployment/default/{obj}"
        tname = template_name(gid, taken)
        taken.add(tname)
        node = b.node(i, tname)
        unschedulable_key = b.u.code(TAINT_KEYS[0])  # stripped from templates (SanitizeTaints)
        b.c.append(node.present)
        b.c.append(z3.Not(node.unschedulable))
        for t in node.taints:
            b.c.append(z3.Implies(t.present, t.key.z != unschedulable_key))
        for r, (g, v) in node.allocatable.items():
            b.c.append(g if r in ("cpu", "memory", "pods") else z3.Not(g))
            if r in ("cpu", "memory", "pods"):
                b.c.append(v >= 1)
        if _HOSTNAME in node.labels.entries:
            b.c.append(z3.Not(node.labels.entries[_HOSTNAME][0]))
        low = b.integer(f"{obj}.min", 0, GROUP_MAX_SIZE)
        high = b.integer(f"{obj}.max", 1, GROUP_MAX_SIZE)
        target = b.integer(f"{obj}.replicas", 0, GROUP_MAX_SIZE)
        b.c.append(low <= high)
        b.c.append(target <= high)
        copies = [copy_name(tname, k) for k in range(1, sc.bounds.pods + 2)]
        for s in (tname, *copies):
            b.u.code(s)
        sc.groups.append(SymGroup(i, gid, obj, node, low, high, target, copies))


def _add(record: SFun, **fields: Any) -> SFun:
    out = SFun({**record.entries, **{k: (True, v) for k, v in fields.items()}})
    out.ident = record.ident
    return out


def _lift(v: Any) -> Any:
    """A concrete value of the view as a symbolic one."""
    if isinstance(v, Fcn):
        return SFun({k: (True, _lift(x)) for k, x in v.items()})
    if isinstance(v, tuple):
        return SSeq([(True, _lift(x)) for x in v])
    if isinstance(v, frozenset):
        return SSet([(True, _lift(x)) for x in v], distinct=True)
    return v


def _count(guards: list[Any]) -> Any:
    return z3.Sum([z3.If(g, 1, 0) for g in guards]) if guards else z3.IntVal(0)


class _AutoscalerShape(_SchedulerShape):
    def pod(self, p: SymPod) -> SFun:
        base = super().pod(p)
        meta, spec = base.entries["metadata"][1], base.entries["spec"][1]
        owner = self.sc.owners[p.index]
        ref = srecord(apiVersion=OWNER_API_VERSION, kind=owner, name=f"{p.name}-owner",
                      controller=True)  # fmt: skip
        refs = SSet([(owner.z != self.code(""), ref)])
        return _add(
            base,
            metadata=_add(
                meta,
                annotations=SFun(),
                ownerReferences=refs,
                deletionTime=z3.If(p.terminating, START_TIME, 0),
                safeLocalVolumes=SSet([]),
            ),
            spec=_add(spec, volumes=SSet([]), terminationGracePeriodSeconds=30),
        )

    def node(self, n: SymNode) -> SFun:
        base = super().node(n)
        meta, status = base.entries["metadata"][1], base.entries["status"][1]
        return _add(
            base,
            metadata=_add(meta, annotations=SFun()),
            status=_add(status, capacity=status.entries["allocatable"][1]),
        )

    def copy(self, template: SFun, name: str, ident: int) -> SFun:
        meta = template.entries["metadata"][1]
        labels = meta.entries["labels"][1]
        out = _add(
            template,
            metadata=_add(
                meta, name=name, labels=SFun({**labels.entries, _HOSTNAME: (True, name)})
            ),
        )
        out.ident = ident
        return out

    def constants(self) -> dict[str, Any]:
        base = super().constants()
        sc = self.sc
        pending = _count(  # unbound and not terminal (Cluster.pending_pods)
            [
                z3.And(
                    p.present,
                    p.node_name.z == self.code(""),
                    p.phase.z != self.code("Succeeded"),
                    p.phase.z != self.code("Failed"),
                )
                for p in sc.pods
            ]
        )
        groups = []
        copy_counts = []
        for g in sc.groups:
            record = self.node(g.template)
            meta = record.entries["metadata"][1]
            labels = meta.entries["labels"][1]
            fixed = {**_FIXED_LABELS, _HOSTNAME: g.template.name}
            template = _add(
                record,
                metadata=_add(
                    meta,
                    labels=SFun({**labels.entries, **{k: (True, v) for k, v in fixed.items()}}),
                ),
            )
            template.ident = 10_000 + g.index
            room = g.max - g.target
            count = z3.If(room < pending + 1, room, pending + 1)
            copy_counts.append(count)
            copies = SSeq(
                [
                    (k <= count, self.copy(template, name, _COPY_IDENT + 1000 * g.index + k))
                    for k, name in enumerate(g.copies, start=1)
                ]
            )
            groups.append(
                srecord(
                    name=g.name,
                    min=g.min,
                    max=g.max,
                    target=g.target,
                    nodes=SSet([], distinct=True),
                    template=template,
                    templatePods=SSet([], distinct=True),
                    copies=copies,
                    priority=0,
                    prioritized=False,
                )
            )
        options = _lift(_options(Autoscaling(groups=())))
        return {
            **base,
            "Groups": SSet([(True, g) for g in groups], distinct=True),
            "Options": options,
            "Order": srecord(
                pods=self.pod_ranks(), nodes=self.node_ranks(copy_counts), groups=self.group_ranks()
            ),
            "Clock": z3.If(disj(*(p.present for p in sc.pods)), START_TIME, 0),
        }

    def pod_ranks(self) -> SFun:
        """Pods by namespace, then name (the view sorts the cluster's pods so)."""
        sc = self.sc
        order = sorted(sc.vocabulary.namespaces)

        def ns_rank(p: SymPod) -> Any:
            out: Any = z3.IntVal(len(order))
            for i in reversed(range(len(order))):
                out = z3.If(p.namespace.z == self.code(order[i]), i, out)
            return out

        by_name = {p.name: i for i, p in enumerate(sorted(sc.pods, key=lambda p: p.name))}
        entries = {}
        for p in sc.pods:
            before = []
            for q in sc.pods:
                if q is p:
                    continue
                earlier_name = by_name[q.name] < by_name[p.name]
                before.append(
                    z3.And(
                        q.present,
                        z3.Or(
                            ns_rank(q) < ns_rank(p),
                            z3.And(ns_rank(q) == ns_rank(p), z3.BoolVal(earlier_name)),
                        ),
                    )
                )
            entries[p.uid] = (p.present, _count(before))
        return SFun(entries)

    def node_ranks(self, copy_counts: list[Any]) -> SFun:
        """Nodes by name, then every group's copies in creation order (groups by name)."""
        sc = self.sc
        entries: dict[Any, tuple[Any, Any]] = {}
        ordered = sorted(sc.nodes, key=lambda n: n.name)
        for i, n in enumerate(ordered):
            entries[n.name] = (n.present, _count([m.present for m in ordered[:i]]))
        offset = _count([n.present for n in ordered])
        for g, count in sorted(zip(sc.groups, copy_counts, strict=True), key=lambda x: x[0].name):
            for k, name in enumerate(g.copies, start=1):
                entries[name] = (k <= count, offset + (k - 1))
            offset = offset + count
        return SFun(entries)

    def group_ranks(self) -> SFun:
        names = sorted(g.name for g in self.sc.groups)
        return SFun({name: (True, i) for i, name in enumerate(names)})


def autoscaler_constants(sc: SymCluster) -> dict[str, Any]:
    return _AutoscalerShape(sc).constants()


def group_objects(back: _Back) -> list[dict[str, Any]]:
    """The witness's node groups as Cluster API MachineDeployments."""
    out = []
    for g in back.sc.groups:
        t = g.template
        annotations = {
            MIN_SIZE_ANNOTATION: str(back.i(g.min)),
            MAX_SIZE_ANNOTATION: str(back.i(g.max)),
        }
        alloc = {r: back.i(v) for r, (p, v) in t.allocatable.items() if back.b(p)}
        cpu = alloc["cpu"]
        annotations[CAPACITY_PREFIX + "cpu"] = f"{cpu}m" if cpu % 1000 else str(cpu // 1000)
        annotations[CAPACITY_PREFIX + "memory"] = str(alloc["memory"])
        annotations[CAPACITY_PREFIX + "maxPods"] = str(alloc["pods"])
        if labels := back.labels(t.labels):
            annotations[CAPACITY_PREFIX + "labels"] = ",".join(
                f"{k}={v}" for k, v in labels.items()
            )
        taints = []
        for x in t.taints:
            if back.b(x.present):
                value = back.s(x.value)
                key = f"{back.s(x.key)}={value}" if value else back.s(x.key)
                taints.append(f"{key}:{back.s(x.effect)}")
        if taints:
            annotations[CAPACITY_PREFIX + "taints"] = ",".join(taints)
        out.append(
            {
                "apiVersion": "cluster.x-k8s.io/v1beta1",
                "kind": "MachineDeployment",
                "metadata": {
                    "name": g.object_name,
                    "namespace": "default",
                    "annotations": annotations,
                },
                "spec": {"replicas": back.i(g.target)},
            }
        )
    return out


def owner_references(back: _Back, p: SymPod) -> list[dict[str, Any]]:
    """The witness pod's controller, if it has one."""
    if not back.sc.owners:
        return []
    kind = back.s(back.sc.owners[p.index])
    if not kind:
        return []
    api = OWNER_API_VERSION
    name = f"{p.name}-owner"
    return [
        {"apiVersion": api, "kind": kind, "name": name, "uid": f"{p.uid}-owner", "controller": True}
    ]
