"""A bounded symbolic cluster: Kubernetes objects whose fields are Z3 variables.

:class:`Bounds` fixes the shape — how many nodes and pods, and how many slots each list has
(taints, tolerations, containers, affinity terms, …); every slot has a presence bit, so a model
may leave it empty. Strings range over finite universes: the label keys and values of
:data:`LABEL_KEYS`/:data:`LABEL_VALUES` (the first ``keys``/``values`` of them), the namespaces,
the enumerations of the API (taint effects, operators, phases), and every string literal of the
specs being compiled. Integers are unbounded Z3 integers constrained to what the API admits.

The cluster is shown to a spec the way the concrete views show a real cluster:
:meth:`SymCluster.scheduler_constants` has the shape of :mod:`.scheduler_view`,
:meth:`SymCluster.textbook_constants` that of :mod:`.textbook_view`. :meth:`SymCluster.objects`
turns a Z3 model back into Kubernetes manifests that :func:`schedspec.cluster.load` accepts, and
:attr:`SymCluster.constraints` holds what makes them valid (the API server's validation rules
that matter here: a requirement's value count per operator, an empty toleration key only with
``Exists``, unique taints per key and effect, at least one node selector term, …).

What stays concrete (the same in every witness): names and uids, container names and images,
start times, preferred (scoring) terms, overhead, pod-level resources, scheduling gates, PDBs,
``matchLabelKeys``/``mismatchLabelKeys``, ``namespaceSelector`` and spread policies (their
defaults). A field left concrete is a field Z3 cannot vary; the bounds say which are free.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import z3

from schedspec.spec.compile.z3 import (
    SFun,
    SSeq,
    SSet,
    SStr,
    Universe,
    conj,
    srecord,
    string_val,
    string_var,
)
from schedspec.spec.kube.scheduler_view import NOW

__all__ = ["BOUND_HELP", "LABEL_KEYS", "LABEL_VALUES", "Bounds", "SymCluster"]

LABEL_KEYS = (
    "topology.kubernetes.io/zone",
    "app",
    "kubernetes.io/hostname",
    "tier",
    "disktype",
    "example.com/rack",
)
LABEL_VALUES = ("a", "b", "1", "2", "3", "c")
NAMESPACES = ("default", "team-a", "team-b")
TAINT_KEYS = ("node.kubernetes.io/unschedulable", "nvidia.com/gpu")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
RESOURCES = ("cpu", "memory", "example.com/gpu")
PHASES = ("Pending", "Running", "Succeeded", "Failed")
HOST_IPS = ("", "0.0.0.0", "127.0.0.1")
PROTOCOLS = ("TCP", "UDP")
DELETION_TIME = "2026-01-01T00:00:00Z"
START_TIME = 1767225600  # 2026-01-01T00:00:00Z, every pod's startTime
IMAGE = "registry.k8s.io/pause:3.10"


@dataclass(frozen=True)
class Bounds:
    """How big the symbolic cluster is. Every field has a CLI flag of the same name."""

    nodes: int = 3
    pods: int = 3
    keys: int = 3
    values: int = 3
    namespaces: int = 2
    taints: int = 2
    tolerations: int = 2
    containers: int = 1
    init_containers: int = 1
    ports: int = 1
    terms: int = 1
    exprs: int = 1
    term_values: int = 2
    affinity: int = 1
    spread: int = 1

    def __post_init__(self) -> None:
        limits = {
            "keys": len(LABEL_KEYS),
            "values": len(LABEL_VALUES),
            "namespaces": len(NAMESPACES),
        }
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"--{f.name.replace('_', '-')} must be a non-negative integer")
            if f.name in limits and v > limits[f.name]:
                raise ValueError(f"--{f.name} is at most {limits[f.name]}")
        if self.containers < 1:
            raise ValueError("--containers must be at least 1 (a pod has a container)")
        if self.namespaces < 1:
            raise ValueError("--namespaces must be at least 1")


BOUND_HELP = {
    "nodes": "nodes in the cluster",
    "pods": "pods in the cluster (bound or pending)",
    "keys": f"label keys in use (the first N of {', '.join(LABEL_KEYS)})",
    "values": f"label values in use (the first N of {', '.join(LABEL_VALUES)})",
    "namespaces": f"namespaces (the first N of {', '.join(NAMESPACES)})",
    "taints": "taints per node",
    "tolerations": "tolerations per pod",
    "containers": "app containers per pod",
    "init_containers": "init containers per pod (restartPolicy Always makes a sidecar)",
    "ports": "container ports per container",
    "terms": "required node-affinity terms per pod",
    "exprs": "match expressions per node term or label selector",
    "term_values": "values per match expression",
    "affinity": "required pod affinity terms per pod, and as many anti-affinity terms",
    "spread": "topology spread constraints per pod",
}


# ---- the objects ------------------------------------------------------------------------------


@dataclass
class _Map:
    """A string map with fixed candidate keys: key ↦ (present, value)."""

    entries: dict[str, tuple[Any, Any]]


@dataclass
class _Requirement:
    present: Any
    key: SStr
    operator: SStr
    values: list[tuple[Any, SStr]]


@dataclass
class _Selector:
    present: Any
    match_labels: _Map
    exprs: list[_Requirement]


@dataclass
class _AffinityTerm:
    present: Any
    topology_key: SStr
    selector: _Selector
    namespaces: dict[str, Any]


@dataclass
class _Spread:
    present: Any
    max_skew: Any
    topology_key: SStr
    when: SStr
    selector: _Selector


@dataclass
class _Port:
    present: Any
    host_port: Any
    host_ip: SStr
    protocol: SStr


@dataclass
class _Container:
    present: Any
    name: str
    sidecar: Any
    requests: dict[str, tuple[Any, Any]]
    ports: list[_Port]


@dataclass
class _Toleration:
    present: Any
    key: SStr
    operator: SStr
    value: SStr
    effect: SStr


@dataclass
class _Taint:
    present: Any
    key: SStr
    value: SStr
    effect: SStr


@dataclass
class SymNode:
    index: int
    name: str
    present: Any
    labels: _Map
    unschedulable: Any
    taints: list[_Taint]
    allocatable: dict[str, tuple[Any, Any]]


@dataclass
class SymPod:
    index: int
    name: str
    uid: str
    present: Any
    namespace: SStr
    labels: _Map
    node_name: SStr
    nominated: SStr
    phase: SStr
    priority: Any
    terminating: Any
    node_selector: _Map
    tolerations: list[_Toleration]
    containers: list[_Container]
    init_containers: list[_Container]
    required_present: Any
    terms: list[tuple[Any, list[_Requirement]]]
    affinity: list[_AffinityTerm]
    anti_affinity: list[_AffinityTerm]
    spread: list[_Spread]


@dataclass
class SymCluster:
    """The symbolic objects, their validity constraints, and the string universe."""

    bounds: Bounds
    universe: Universe
    nodes: list[SymNode] = field(default_factory=list)
    pods: list[SymPod] = field(default_factory=list)
    constraints: list[Any] = field(default_factory=list)
    size_terms: list[tuple[str, Any]] = field(default_factory=list)
    number_terms: list[Any] = field(default_factory=list)
    candidates: list[tuple[Any, tuple[Any, ...]]] = field(default_factory=list)
    """Every leaf with a few values worth trying (generators draw from these)."""

    @classmethod
    def build(cls, bounds: Bounds, universe: Universe | None = None) -> SymCluster:
        return _Builder(bounds, universe or Universe()).cluster

    # -- shown to the specs ----------------------------------------------------------------------
    def scheduler_constants(self) -> dict[str, Any]:
        return _SchedulerShape(self).constants()

    def textbook_constants(self) -> dict[str, Any]:
        return _TextbookShape(self).constants()

    # -- back to Kubernetes ----------------------------------------------------------------------
    def objects(self, model: z3.ModelRef) -> list[dict[str, Any]]:
        return _Back(self, model).objects()


class _Builder:
    def __init__(self, bounds: Bounds, universe: Universe) -> None:
        self.b = bounds
        self.u = universe
        self.keys = LABEL_KEYS[: bounds.keys]
        self.values = LABEL_VALUES[: bounds.values]
        self.namespaces = NAMESPACES[: bounds.namespaces]
        self.node_names = tuple(f"node-{i}" for i in range(bounds.nodes))
        for s in (
            *self.keys,
            *self.values,
            *self.namespaces,
            *TAINT_KEYS,
            *EFFECTS,
            "",
            *NODE_OPERATORS,
            "Equal",
            *PHASES,
            *HOST_IPS,
            *PROTOCOLS,
            DELETION_TIME,
            "DoNotSchedule",
            "ScheduleAnyway",
            "Always",
            *self.node_names,
        ):
            universe.code(s)
        self.cluster = SymCluster(bounds, universe)
        self.c = self.cluster.constraints
        for i in range(bounds.nodes):
            self.cluster.nodes.append(self.node(i))
        for j in range(bounds.pods):
            self.cluster.pods.append(self.pod(j))
        # Objects are interchangeable: use the first ones (witnesses read node-0, pod-0, …).
        self.prefix([n.present for n in self.cluster.nodes])
        self.prefix([p.present for p in self.cluster.pods])

    # leaves
    def boolean(self, name: str, likely: bool = False) -> Any:
        v = z3.Bool(name)
        self.cluster.candidates.append((v, (True, True, True, False) if likely else (True, False)))
        return v

    def integer(self, name: str, lo: int | None = 0, hi: int | None = None) -> Any:
        v = z3.Int(name)
        interesting = (0, 1, 2, 3, 100, 1000, -1, 10, 500, 4000)
        self.cluster.candidates.append(
            (
                v,
                tuple(
                    i for i in interesting if (lo is None or i >= lo) and (hi is None or i <= hi)
                ),
            )
        )
        if lo is not None:
            self.c.append(v >= lo)
        if hi is not None:
            self.c.append(v <= hi)
        return v

    def string(self, name: str, domain: Sequence[str]) -> SStr:
        v = string_var(name)
        self.cluster.candidates.append((v, tuple(self.u.code(s) for s in domain)))
        self.c.append(z3.Or(*(v == self.u.code(s) for s in domain)))
        return SStr(v)

    def count(self, what: str, present: Any) -> None:
        self.cluster.size_terms.append((what, z3.If(present, 1, 0)))

    def number(self, v: Any, when: Any = True) -> None:
        size = z3.If(v >= 0, v, -v)
        self.cluster.number_terms.append(size if when is True else z3.If(when, size, 0))

    def prefix(self, slots: Sequence[Any], parent: Any = True) -> None:
        for i, g in enumerate(slots):
            self.c.append(z3.Implies(g, parent if i == 0 else slots[i - 1]))

    def label_map(self, name: str, what: str) -> _Map:
        entries = {}
        for k in self.keys:
            present = self.boolean(f"{name}[{k}]")
            self.count(what, present)
            entries[k] = (present, self.string(f"{name}[{k}].value", self.values))
        return _Map(entries)

    # nodes
    def node(self, i: int) -> SymNode:
        name = self.node_names[i]
        present = self.boolean(f"{name}", likely=True)
        self.count("objects", present)
        taints = []
        for t in range(self.b.taints):
            tp = self.boolean(f"{name}.taints[{t}]")
            self.count("taints", tp)
            taints.append(
                _Taint(
                    tp,
                    self.string(f"{name}.taints[{t}].key", (*self.keys, *TAINT_KEYS)),
                    self.string(f"{name}.taints[{t}].value", ("", *self.values)),
                    self.string(f"{name}.taints[{t}].effect", EFFECTS),
                )
            )
        self.prefix([t.present for t in taints])
        for a, b in itertools.combinations(taints, 2):
            self.c.append(
                z3.Not(z3.And(a.present, b.present, a.key.z == b.key.z, a.effect.z == b.effect.z))
            )
        allocatable = {}
        for r in RESOURCES:
            ap = self.boolean(f"{name}.allocatable[{r}]") if r not in ("cpu", "memory") else True
            v = self.integer(f"{name}.allocatable[{r}]")
            self.number(v)
            allocatable[r] = (ap, v)
        pods_ap, pods_v = True, self.integer(f"{name}.allocatable[pods]")
        self.number(pods_v)
        allocatable["pods"] = (pods_ap, pods_v)
        unschedulable = self.boolean(f"{name}.unschedulable")
        self.count("fields", unschedulable)
        return SymNode(
            i,
            name,
            present,
            self.label_map(f"{name}.labels", "labels"),
            unschedulable,
            taints,
            allocatable,
        )

    # pods
    def pod(self, j: int) -> SymPod:
        name = f"pod-{j}"
        present = self.boolean(name, likely=True)
        self.count("objects", present)
        node_name = self.string(f"{name}.nodeName", ("", *self.node_names))
        nominated = self.string(f"{name}.nominatedNodeName", ("", *self.node_names))
        for i, n in enumerate(self.node_names):
            code = self.u.code(n)
            node_present = self.cluster.nodes[i].present
            self.c.append(z3.Implies(z3.And(present, node_name.z == code), node_present))
            self.c.append(z3.Implies(z3.And(present, nominated.z == code), node_present))
        self.count("fields", nominated.z != self.u.code(""))
        phase = self.string(f"{name}.phase", PHASES)
        # Only the kubelet of a node runs a pod: an unbound pod is not Running.
        self.c.append(z3.Implies(node_name.z == self.u.code(""), phase.z != self.u.code("Running")))
        priority = self.integer(f"{name}.priority", -(10**9), 10**9)
        self.number(priority)
        terminating = self.boolean(f"{name}.terminating")
        self.count("fields", terminating)
        tolerations = []
        for t in range(self.b.tolerations):
            tp = self.boolean(f"{name}.tolerations[{t}]")
            self.count("tolerations", tp)
            key = self.string(f"{name}.tolerations[{t}].key", ("", *self.keys, *TAINT_KEYS))
            op = self.string(f"{name}.tolerations[{t}].operator", ("", "Equal", "Exists"))
            value = self.string(f"{name}.tolerations[{t}].value", ("", *self.values))
            effect = self.string(f"{name}.tolerations[{t}].effect", ("", *EFFECTS))
            exists = op.z == self.u.code("Exists")
            self.c.append(z3.Implies(key.z == self.u.code(""), exists))
            self.c.append(z3.Implies(exists, value.z == self.u.code("")))
            tolerations.append(_Toleration(tp, key, op, value, effect))
        self.prefix([t.present for t in tolerations])
        containers = [
            self.container(f"{name}.containers[{k}]", f"app-{k}", False, k == 0)
            for k in range(self.b.containers)
        ]
        self.prefix([c.present for c in containers])
        inits = [
            self.container(f"{name}.initContainers[{k}]", f"init-{k}", True, False)
            for k in range(self.b.init_containers)
        ]
        self.prefix([c.present for c in inits])
        self.unique_ports(containers + inits)
        required = self.boolean(f"{name}.requiredNodeAffinity")
        terms = []
        for t in range(self.b.terms):
            tp = self.boolean(f"{name}.nodeSelectorTerms[{t}]")
            self.count("terms", tp)
            exprs = [
                self.requirement(
                    f"{name}.nodeSelectorTerms[{t}].matchExpressions[{e}]", NODE_OPERATORS
                )
                for e in range(self.b.exprs)
            ]
            self.prefix([e.present for e in exprs], tp)
            terms.append((tp, exprs))
        self.prefix([tp for tp, _ in terms], required)
        if terms:
            self.c.append(z3.Implies(required, terms[0][0]))
        else:
            self.c.append(z3.Not(required))
        affinity = [self.affinity_term(f"{name}.podAffinity[{a}]") for a in range(self.b.affinity)]
        anti = [self.affinity_term(f"{name}.podAntiAffinity[{a}]") for a in range(self.b.affinity)]
        self.prefix([a.present for a in affinity])
        self.prefix([a.present for a in anti])
        spread = []
        for s in range(self.b.spread):
            sp = self.boolean(f"{name}.topologySpreadConstraints[{s}]")
            self.count("terms", sp)
            skew = self.integer(f"{name}.topologySpreadConstraints[{s}].maxSkew", 1)
            self.number(skew)
            spread.append(
                _Spread(
                    sp,
                    skew,
                    self.string(f"{name}.topologySpreadConstraints[{s}].topologyKey", self.keys),
                    self.string(
                        f"{name}.topologySpreadConstraints[{s}].whenUnsatisfiable",
                        ("DoNotSchedule", "ScheduleAnyway"),
                    ),
                    self.selector(f"{name}.topologySpreadConstraints[{s}].labelSelector", sp),
                )
            )
        self.prefix([s.present for s in spread])
        namespace = self.string(f"{name}.namespace", self.namespaces)
        self.count("fields", namespace.z != self.u.code("default"))
        return SymPod(
            index=j,
            name=name,
            uid=f"00000000-0000-4000-8000-{j:012d}",
            present=present,
            namespace=namespace,
            labels=self.label_map(f"{name}.labels", "labels"),
            node_name=node_name,
            nominated=nominated,
            phase=phase,
            priority=priority,
            terminating=terminating,
            node_selector=self.label_map(f"{name}.nodeSelector", "labels"),
            tolerations=tolerations,
            containers=containers,
            init_containers=inits,
            required_present=required,
            terms=terms,
            affinity=affinity,
            anti_affinity=anti,
            spread=spread,
        )

    def container(self, name: str, cname: str, init: bool, always: bool) -> _Container:
        present: Any = True if always else self.boolean(name)
        if present is not True:
            self.count("containers", present)
        sidecar: Any = False
        if init:
            sidecar = self.boolean(f"{name}.sidecar")
        requests = {}
        for r in RESOURCES:
            rp = self.boolean(f"{name}.requests[{r}]")
            self.count("requests", rp)
            v = self.integer(f"{name}.requests[{r}]")
            self.number(v, rp)
            requests[r] = (rp, v)
        ports = []
        for k in range(self.b.ports):
            pp = self.boolean(f"{name}.ports[{k}]")
            self.count("ports", pp)
            hp = self.integer(f"{name}.ports[{k}].hostPort", 0, 65535)
            ports.append(
                _Port(
                    pp,
                    hp,
                    self.string(f"{name}.ports[{k}].hostIP", HOST_IPS),
                    self.string(f"{name}.ports[{k}].protocol", PROTOCOLS),
                )
            )
            self.c.append(z3.Implies(hp == 0, ports[-1].host_ip.z == self.u.code("")))
        self.prefix([p.present for p in ports], present)
        return _Container(present, cname, sidecar, requests, ports)

    def unique_ports(self, containers: list[_Container]) -> None:
        ports = [(c.present, p) for c in containers for p in c.ports]
        for (ca, a), (cb, b) in itertools.combinations(ports, 2):
            self.c.append(
                z3.Not(
                    z3.And(
                        ca,
                        cb,
                        a.present,
                        b.present,
                        a.host_port > 0,
                        a.host_port == b.host_port,
                        a.protocol.z == b.protocol.z,
                    )
                )
            )

    def requirement(self, name: str, operators: Sequence[str]) -> _Requirement:
        present = self.boolean(name)
        self.count("exprs", present)
        op = self.string(f"{name}.operator", operators)
        values = []
        for v in range(self.b.term_values):
            vp = self.boolean(f"{name}.values[{v}]")
            self.count("values", vp)
            values.append((vp, self.string(f"{name}.values[{v}].value", self.values)))
        self.prefix([vp for vp, _ in values], present)
        n = z3.Sum(*(z3.If(vp, 1, 0) for vp, _ in values)) if values else z3.IntVal(0)
        code = self.u.code
        self.c.append(z3.Implies(z3.Or(op.z == code("In"), op.z == code("NotIn")), n >= 1))
        self.c.append(
            z3.Implies(z3.Or(op.z == code("Exists"), op.z == code("DoesNotExist")), n == 0)
        )
        if "Gt" in operators:
            ints = [code(s) for s in self.values if s.isdigit()]
            numeric = z3.And(
                *(
                    z3.Or(*(s.z == i for i in ints)) if ints else z3.BoolVal(False)
                    for vp, s in values[:1]
                )
            )
            self.c.append(
                z3.Implies(z3.Or(op.z == code("Gt"), op.z == code("Lt")), z3.And(n == 1, numeric))
            )
        return _Requirement(present, self.string(f"{name}.key", self.keys), op, values)

    def selector(self, name: str, parent: Any) -> _Selector:
        present = self.boolean(name)
        self.c.append(z3.Implies(present, parent))
        labels = self.label_map(f"{name}.matchLabels", "exprs")
        exprs = [
            self.requirement(f"{name}.matchExpressions[{e}]", SELECTOR_OPERATORS)
            for e in range(self.b.exprs)
        ]
        self.prefix([e.present for e in exprs], present)
        for p, _ in labels.entries.values():
            self.c.append(z3.Implies(p, present))
        return _Selector(present, labels, exprs)

    def affinity_term(self, name: str) -> _AffinityTerm:
        present = self.boolean(name)
        self.count("terms", present)
        namespaces = {}
        for ns in self.namespaces:
            g = self.boolean(f"{name}.namespaces[{ns}]")
            self.c.append(z3.Implies(g, present))
            self.count("values", g)
            namespaces[ns] = g
        return _AffinityTerm(
            present,
            self.string(f"{name}.topologyKey", self.keys),
            self.selector(f"{name}.labelSelector", present),
            namespaces,
        )


# ---- the scheduler view's shape ---------------------------------------------------------------

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _fmap(m: _Map) -> SFun:
    return SFun({k: (g, v) for k, (g, v) in m.entries.items()})


def _set_of(items: Sequence[tuple[Any, Any]], distinct: bool = False) -> SSet:
    return SSet([(g, e) for g, e in items], distinct)


def _empty_fun() -> SFun:
    return SFun()


def _identified(ident: int, record: SFun) -> SFun:
    record.ident = ident
    return record


class _SchedulerShape:
    def __init__(self, sc: SymCluster) -> None:
        self.sc = sc

    def constants(self) -> dict[str, Any]:
        sc = self.sc
        nodes = [(n, self.node(n)) for n in sc.nodes]
        pods = [(p, self.pod(p)) for p in sc.pods]
        on = {}
        for n, _ in nodes:
            code = sc.universe.code(n.name)
            on[n.name] = (
                n.present,
                SSet([(conj(p.present, p.node_name.z == code), r) for p, r in pods], distinct=True),
            )
        ns_labels = {
            ns: (True, SFun({"kubernetes.io/metadata.name": (True, ns)}))
            for ns in NAMESPACES[: sc.bounds.namespaces]
        }
        self.records = {"pods": pods, "nodes": nodes}
        return {
            "Pods": SSet([(p.present, r) for p, r in pods], distinct=True),
            "Nodes": SSet([(n.present, r) for n, r in nodes], distinct=True),
            "PodsOn": SFun(on),
            "NamespaceLabels": SFun(ns_labels),
            "PDBs": SSet([]),
            "Now": NOW,
        }

    def node(self, n: SymNode) -> SFun:
        return _identified(
            n.index,
            srecord(
                metadata=srecord(name=n.name, labels=_fmap(n.labels)),
                spec=srecord(
                    unschedulable=n.unschedulable,
                    taints=_set_of(
                        [
                            (t.present, srecord(key=t.key, value=t.value, effect=t.effect))
                            for t in n.taints
                        ]
                    ),
                ),
                status=srecord(
                    allocatable=SFun(dict(n.allocatable)),
                    images=SSet([]),
                ),
            ),
        )

    def selector(self, s: _Selector) -> SFun:
        return srecord(
            matchLabels=_fmap(s.match_labels),
            matchExpressions=_set_of(
                [
                    (e.present, srecord(key=e.key, operator=e.operator, values=_set_of(e.values)))
                    for e in s.exprs
                ]
            ),
        )

    def pa_term(self, t: _AffinityTerm) -> SFun:
        return SFun(
            {
                "topologyKey": (True, t.topology_key),
                "namespaces": (True, SSet([(g, ns) for ns, g in t.namespaces.items()], True)),
                "matchLabelKeys": (True, SSet([])),
                "mismatchLabelKeys": (True, SSet([])),
                "labelSelector": (t.selector.present, self.selector(t.selector)),
            }
        )

    def pod_affinity(self, terms: list[_AffinityTerm]) -> SFun:
        return SFun(
            {
                _REQUIRED: (True, _set_of([(t.present, self.pa_term(t)) for t in terms])),
                _PREFERRED: (True, SSeq([])),
            }
        )

    def container(self, c: _Container, init: bool) -> SFun:
        return srecord(
            name=c.name,
            image=IMAGE,
            restartPolicy=SStr(z3.If(c.sidecar, self.code("Always"), self.code("")))
            if init
            else "",
            resources=srecord(requests=SFun(dict(c.requests))),
            ports=_set_of(
                [
                    (
                        p.present,
                        srecord(
                            containerPort=8080 + i,
                            hostPort=p.host_port,
                            hostIP=p.host_ip,
                            protocol=p.protocol,
                        ),
                    )
                    for i, p in enumerate(c.ports)
                ]
            ),
        )

    def code(self, s: str) -> Any:
        return string_val(self.sc.universe.code(s))

    def pod(self, p: SymPod) -> SFun:
        terms = SSeq(
            [
                (
                    tp,
                    srecord(
                        matchExpressions=_set_of(
                            [
                                (
                                    e.present,
                                    srecord(key=e.key, operator=e.operator, values=SSeq(e.values)),
                                )
                                for e in exprs
                            ]
                        ),
                        matchFields=SSet([]),
                    ),
                )
                for tp, exprs in p.terms
            ]
        )
        node_affinity = SFun(
            {
                _PREFERRED: (True, SSeq([])),
                _REQUIRED: (p.required_present, srecord(nodeSelectorTerms=terms)),
            }
        )
        spread = SSeq(
            [
                (
                    s.present,
                    SFun(
                        {
                            "maxSkew": (True, s.max_skew),
                            "topologyKey": (True, s.topology_key),
                            "whenUnsatisfiable": (True, s.when),
                            "minDomains": (True, 1),
                            "nodeAffinityPolicy": (True, "Honor"),
                            "nodeTaintsPolicy": (True, "Ignore"),
                            "matchLabelKeys": (True, SSet([])),
                            "labelSelector": (s.selector.present, self.selector(s.selector)),
                        }
                    ),
                )
                for s in p.spread
            ]
        )
        deletion = SStr(z3.If(p.terminating, self.code(DELETION_TIME), self.code("")))
        return _identified(
            1000 + p.index,
            srecord(
                metadata=srecord(
                    name=p.name,
                    namespace=p.namespace,
                    uid=p.uid,
                    labels=_fmap(p.labels),
                    deletionTimestamp=deletion,
                ),
                spec=srecord(
                    nodeName=p.node_name,
                    schedulerName="default-scheduler",
                    priority=p.priority,
                    preemptionPolicy="PreemptLowerPriority",
                    nodeSelector=_fmap(p.node_selector),
                    tolerations=_set_of(
                        [
                            (
                                t.present,
                                srecord(
                                    key=t.key, operator=t.operator, value=t.value, effect=t.effect
                                ),
                            )
                            for t in p.tolerations
                        ]
                    ),
                    affinity=srecord(
                        nodeAffinity=node_affinity,
                        podAffinity=self.pod_affinity(p.affinity),
                        podAntiAffinity=self.pod_affinity(p.anti_affinity),
                    ),
                    containers=SSeq([(c.present, self.container(c, False)) for c in p.containers]),
                    initContainers=SSeq(
                        [(c.present, self.container(c, True)) for c in p.init_containers]
                    ),
                    overhead=_empty_fun(),
                    resources=srecord(requests=_empty_fun()),
                    topologySpreadConstraints=spread,
                    schedulingGates=SSet([]),
                ),
                status=srecord(
                    phase=p.phase,
                    nominatedNodeName=p.nominated,
                    startTime=START_TIME,
                    conditions=SSet([]),
                ),
            ),
        )


# ---- the textbook view's shape ----------------------------------------------------------------


class _TextbookShape:
    def __init__(self, sc: SymCluster) -> None:
        self.sc = sc

    def constants(self) -> dict[str, Any]:
        items = [(n.present, self.node(n)) for n in self.sc.nodes]
        items += [(p.present, self.pod(p)) for p in self.sc.pods]
        return {"Objects": SSet(items, distinct=True)}

    def resources(self, rs: dict[str, tuple[Any, Any]]) -> SFun:
        return SFun({("mem" if r == "memory" else r): gv for r, gv in rs.items()})

    def node(self, n: SymNode) -> SFun:
        return _identified(
            n.index,
            srecord(
                Kind="Node",
                Name=n.name,
                Labels=_fmap(n.labels),
                Spec=srecord(
                    Unschedulable=n.unschedulable,
                    Taints=_set_of(
                        [
                            (t.present, srecord(key=t.key, value=t.value, Effect=t.effect))
                            for t in n.taints
                        ]
                    ),
                ),
                Status=srecord(Phase="", Allocatable=self.resources(n.allocatable)),
            ),
        )

    def selector(self, s: _Selector) -> SFun:
        # A nil selector shows as an empty one (the seed cannot tell them apart).
        return srecord(
            MatchLabels=SFun(
                {k: (conj(s.present, g), v) for k, (g, v) in s.match_labels.entries.items()}
            ),
            MatchExpression=_set_of(
                [
                    (
                        conj(s.present, e.present),
                        srecord(Key=e.key, Operator=e.operator, Values=_set_of(e.values)),
                    )
                    for e in s.exprs
                ]
            ),
        )

    def pa_terms(self, terms: list[_AffinityTerm]) -> SSet:
        return _set_of(
            [
                (
                    t.present,
                    srecord(
                        TopologyKey=t.topology_key,
                        Namespaces=SSet([(g, ns) for ns, g in t.namespaces.items()], True),
                        LabelSelector=self.selector(t.selector),
                    ),
                )
                for t in terms
            ]
        )

    def container(self, c: _Container) -> SFun:
        return srecord(Name=c.name, Resources=srecord(Required=self.resources(c.requests)))

    def pod(self, p: SymPod) -> SFun:
        terms = _set_of(
            [
                (
                    conj(p.required_present, tp),
                    srecord(
                        MatchExpressions=_set_of(
                            [
                                (
                                    e.present,
                                    srecord(
                                        Key=e.key, Operator=e.operator, Value=_set_of(e.values)
                                    ),
                                )
                                for e in exprs
                            ]
                        ),
                        MatchFields=SSet([]),
                    ),
                )
                for tp, exprs in p.terms
            ]
        )
        return _identified(
            1000 + p.index,
            srecord(
                Kind="Pod",
                Name=p.name,
                Namespace=p.namespace,
                Labels=_fmap(p.labels),
                Spec=srecord(
                    NodeName=p.node_name,
                    NodeSelector=_fmap(p.node_selector),
                    Tolerations=_set_of(
                        [
                            (
                                t.present,
                                srecord(
                                    key=t.key, Operator=t.operator, value=t.value, Effect=t.effect
                                ),
                            )
                            for t in p.tolerations
                        ]
                    ),
                    Container=SSeq([(c.present, self.container(c)) for c in p.containers]),
                    InitContainer=SSeq([(c.present, self.container(c)) for c in p.init_containers]),
                    Affinity=srecord(
                        NodeAffinity=srecord(
                            Required=srecord(NodeSelectorTerms=terms),
                            Preferred=srecord(NodeSelectorTerms=SSet([])),
                        ),
                        PodAffinity=srecord(Required=self.pa_terms(p.affinity), Preferred=SSet([])),
                        AntiPodAffinity=srecord(
                            Required=self.pa_terms(p.anti_affinity), Preferred=SSet([])
                        ),
                    ),
                ),
                Status=srecord(Phase=p.phase),
            ),
        )


# ---- a model back to manifests ----------------------------------------------------------------


def _quantity(resource: str, n: int) -> str | int:
    if resource == "cpu":
        return f"{n}m" if n % 1000 else str(n // 1000)
    return n


class _Back:
    def __init__(self, sc: SymCluster, model: z3.ModelRef) -> None:
        self.sc, self.m = sc, model

    def b(self, v: Any) -> bool:
        if v is True or v is False:
            return v
        return bool(z3.is_true(self.m.eval(v, model_completion=True)))

    def i(self, v: Any) -> int:
        if isinstance(v, int):
            return v
        return self.m.eval(v, model_completion=True).as_long()  # type: ignore[no-any-return]

    def s(self, v: SStr | str) -> str:
        if isinstance(v, str):
            return v
        return self.sc.universe.strings[self.i(v.z)]

    def labels(self, m: _Map) -> dict[str, str]:
        return {k: self.s(v) for k, (g, v) in m.entries.items() if self.b(g)}

    def objects(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        used = {self.s(p.namespace) for p in self.sc.pods if self.b(p.present)}
        for ns in NAMESPACES[: self.sc.bounds.namespaces]:
            if ns in used and ns != "default":
                out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        out += [self.node(n) for n in self.sc.nodes if self.b(n.present)]
        out += [self.pod(p) for p in self.sc.pods if self.b(p.present)]
        return out

    def node(self, n: SymNode) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": n.name}
        if labels := self.labels(n.labels):
            meta["labels"] = labels
        spec: dict[str, Any] = {}
        if self.b(n.unschedulable):
            spec["unschedulable"] = True
        taints = []
        for t in n.taints:
            if self.b(t.present):
                taint = {"key": self.s(t.key), "effect": self.s(t.effect)}
                if value := self.s(t.value):
                    taint["value"] = value
                taints.append(taint)
        if taints:
            spec["taints"] = taints
        alloc = {r: _quantity(r, self.i(v)) for r, (g, v) in n.allocatable.items() if self.b(g)}
        obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": meta}
        if spec:
            obj["spec"] = spec
        obj["status"] = {"capacity": dict(alloc), "allocatable": alloc}
        return obj

    def requirement(self, e: _Requirement) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.s(e.key), "operator": self.s(e.operator)}
        values = [self.s(v) for g, v in e.values if self.b(g)]
        if values:
            out["values"] = values
        return out

    def selector(self, s: _Selector) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if labels := self.labels(s.match_labels):
            out["matchLabels"] = labels
        exprs = [self.requirement(e) for e in s.exprs if self.b(e.present)]
        if exprs:
            out["matchExpressions"] = exprs
        return out

    def pa_term(self, t: _AffinityTerm) -> dict[str, Any]:
        out: dict[str, Any] = {"topologyKey": self.s(t.topology_key)}
        if self.b(t.selector.present):
            out["labelSelector"] = self.selector(t.selector)
        namespaces = [ns for ns, g in t.namespaces.items() if self.b(g)]
        if namespaces:
            out["namespaces"] = namespaces
        return out

    def container(self, c: _Container, init: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"name": c.name, "image": IMAGE}
        if init and self.b(c.sidecar):
            out["restartPolicy"] = "Always"
        requests = {r: _quantity(r, self.i(v)) for r, (g, v) in c.requests.items() if self.b(g)}
        if requests:
            out["resources"] = {"requests": requests}
            if "example.com/gpu" in requests:  # extended resources: limits must equal requests
                out["resources"]["limits"] = {"example.com/gpu": requests["example.com/gpu"]}
        ports = []
        for k, p in enumerate(c.ports):
            if not self.b(p.present):
                continue
            port: dict[str, Any] = {"containerPort": 8080 + k, "protocol": self.s(p.protocol)}
            if hp := self.i(p.host_port):
                port["hostPort"] = hp
            if ip := self.s(p.host_ip):
                port["hostIP"] = ip
            ports.append(port)
        if ports:
            out["ports"] = ports
        return out

    def pod(self, p: SymPod) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": p.name, "namespace": self.s(p.namespace), "uid": p.uid}
        if labels := self.labels(p.labels):
            meta["labels"] = labels
        if self.b(p.terminating):
            meta["deletionTimestamp"] = DELETION_TIME
        spec: dict[str, Any] = {}
        if node := self.s(p.node_name):
            spec["nodeName"] = node
        if priority := self.i(p.priority):
            spec["priority"] = priority
        if selector := self.labels(p.node_selector):
            spec["nodeSelector"] = selector
        tolerations = []
        for t in p.tolerations:
            if not self.b(t.present):
                continue
            tol = {f: self.s(getattr(t, f)) for f in ("key", "operator", "value", "effect")}
            tolerations.append({k: v for k, v in tol.items() if v})
        if tolerations:
            spec["tolerations"] = tolerations
        affinity: dict[str, Any] = {}
        if self.b(p.required_present):
            terms = []
            for tp, exprs in p.terms:
                if self.b(tp):
                    term = [self.requirement(e) for e in exprs if self.b(e.present)]
                    terms.append({"matchExpressions": term} if term else {})
            affinity["nodeAffinity"] = {_REQUIRED: {"nodeSelectorTerms": terms}}
        for key, pa_terms in (("podAffinity", p.affinity), ("podAntiAffinity", p.anti_affinity)):
            required = [self.pa_term(t) for t in pa_terms if self.b(t.present)]
            if required:
                affinity[key] = {_REQUIRED: required}
        if affinity:
            spec["affinity"] = affinity
        spec["containers"] = [self.container(c, False) for c in p.containers if self.b(c.present)]
        inits = [self.container(c, True) for c in p.init_containers if self.b(c.present)]
        if inits:
            spec["initContainers"] = inits
        spread = []
        for s in p.spread:
            if not self.b(s.present):
                continue
            c: dict[str, Any] = {
                "maxSkew": self.i(s.max_skew),
                "topologyKey": self.s(s.topology_key),
                "whenUnsatisfiable": self.s(s.when),
            }
            if self.b(s.selector.present):
                c["labelSelector"] = self.selector(s.selector)
            spread.append(c)
        if spread:
            spec["topologySpreadConstraints"] = spread
        status: dict[str, Any] = {"phase": self.s(p.phase), "startTime": DELETION_TIME}
        if nominated := self.s(p.nominated):
            status["nominatedNodeName"] = nominated
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
