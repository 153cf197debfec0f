"""A placement world for questions in users' terms: the user's cluster as it is, the pods asked
about as they are, and one node Z3 may add.

``can-schedule`` (:mod:`.can_schedule`) and ``relate`` (:mod:`.relate`) ask ``scheduler.tla``'s
``Feasible(p, n)`` through the Z3 backend on a cluster that is partly concrete and partly
symbolic. The concrete part is the scheduler view of the user's objects
(``spec.view.build``, so every constant the view gives reaches the spec), lifted into symbolic
values whose leaves are Python constants; the symbolic part is one node built by the bounded
cluster's builder (:mod:`.kube.symbolic`), shown to the spec by the symbolic scheduler shape, and
joined to ``Nodes`` and ``PodsOn`` under its presence bit. Pinning a fully symbolic cluster's
fields to the user's values would have given the same formula with thousands of equalities
more; lifting gives Python constants the compiler folds.

**Strings.** The added node's label keys are the keys a filter could read from it: those the
objects' node selectors, node-affinity terms, topology spread constraints, pod (anti-)affinity
terms and tolerations name, and ``kubernetes.io/hostname``. Each label's value is one the
objects name for that purpose (selector values, the existing nodes' values of those keys,
toleration values; for ``Gt``/``Lt`` the integer and its neighbours) or ``schedspec-other``,
which no object names and so stands for every other value. ``kubernetes.io/hostname`` is the
node's name, as the kubelet sets it. Those are the bounds the answers state.

**Constraint items.** With ``guards``, each of a pod's own constraints is under a Z3 boolean (an
*item*): each ``nodeSelector`` entry, each node-affinity requirement (``matchExpressions`` and
``matchFields`` entries; a term whose every requirement is dropped matches every node, so the
required affinity goes with it), each required pod affinity and anti-affinity term, each
``DoNotSchedule`` spread constraint (dropped: read as ``ScheduleAnyway``, which Filter ignores)
and its ``minDomains`` (dropped: 1), each requested resource (dropped: not requested) and each
host port. The cluster's own NoSchedule/NoExecute taints and ``spec.unschedulable`` flags are
items too, so a core can say which taint stood in the way. Dropping an item never takes a node
away — except a pod affinity term that let the pod match its own terms — so a set of items
under which no node accepts the pod, each of which is needed, is a minimal explanation.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import z3

from schedspec.cluster import Cluster, from_objects, object_key
from schedspec.spec.compile.z3 import (
    STRING_BITS,
    Compiler,
    CompileTimeout,
    SFun,
    SSeq,
    SSet,
    SStr,
    Universe,
    as_z3bool,
    string_val,
)
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.kube.symbolic.builder import _Builder
from schedspec.spec.kube.symbolic.objects import SymNode
from schedspec.spec.kube.symbolic.scheduler_shape import _SchedulerShape
from schedspec.spec.kube.symbolic.vocabulary import Vocabulary
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.values import Fcn
from schedspec.validate import label_key_problem, label_value_problem

__all__ = ["HOSTNAME", "OTHER_VALUE", "Item", "PlaceWorld", "replay_feasible", "replay_feasibles"]

HOSTNAME = "kubernetes.io/hostname"
OTHER_VALUE = "schedspec-other"
"""A label value no object names: it stands for every value the objects do not name."""
NEW_NODE = "schedspec-new-node"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_FILTER_EFFECTS = ("NoSchedule", "NoExecute")


@dataclass(frozen=True)
class Item:
    """One constraint a core may name: ``obj``'s field ``path``, and what it says."""

    kind: str
    obj: str
    path: str
    label: str
    own: bool
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "object": self.obj,
            "path": self.path,
            "text": self.label,
            **dict(self.data),
        }


class _Lift:
    """A view's concrete value as a symbolic one, with some members, entries or leaves replaced
    by guarded ones (``members``/``entries``: a path's set member or function key ↦ its guard;
    ``values``: a path ↦ the value there). Paths are field names and sequence indices; a set's
    members share the step ``"*"``."""

    def __init__(self) -> None:
        self.members: dict[tuple[Any, ...], dict[Any, Any]] = {}
        self.entries: dict[tuple[Any, ...], dict[Any, Any]] = {}
        self.values: dict[tuple[Any, ...], Any] = {}

    def __call__(self, v: Any, path: tuple[Any, ...] = ()) -> Any:
        if path in self.values:
            return self.values[path]
        if isinstance(v, Fcn):
            gs = self.entries.get(path, {})
            return SFun({k: (gs.get(k, True), self(x, (*path, k))) for k, x in v.items()})
        if isinstance(v, tuple):
            return SSeq([(True, self(x, (*path, i))) for i, x in enumerate(v)])
        if isinstance(v, frozenset):
            gs = self.members.get(path, {})
            return SSet([(gs.get(x, True), self(x, (*path, "*"))) for x in v], distinct=True)
        return v


def _plain(v: Any) -> Any:
    if isinstance(v, Fcn):
        return SFun({k: (True, _plain(x)) for k, x in v.items()})
    if isinstance(v, tuple):
        return SSeq([(True, _plain(x)) for x in v])
    if isinstance(v, frozenset):
        return SSet([(True, _plain(x)) for x in v], distinct=True)
    return v


# ---- the strings the added node may hold --------------------------------------------------------


def _terms(pod: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    na = ((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}
    out = list(((na.get(REQUIRED) or {}).get("nodeSelectorTerms")) or ())
    out += [w.get("preference") or {} for w in na.get(f"preferred{REQUIRED[8:]}") or ()]
    return out


def _pod_terms(pod: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    aff = (pod.get("spec") or {}).get("affinity") or {}
    out: list[Mapping[str, Any]] = []
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = aff.get(kind) or {}
        out += list(pa.get(REQUIRED) or ())
        out += [w.get("podAffinityTerm") or {} for w in pa.get(f"preferred{REQUIRED[8:]}") or ()]
    return out


def strings(
    cluster: Cluster, pods: Sequence[Mapping[str, Any]], node_name: str
) -> tuple[list[str], list[str], list[str]]:
    """The keys and values the added node's labels and taints may hold (see the module
    docstring), and which of the keys a selector, spread constraint or term reads."""
    keys: dict[str, None] = {HOSTNAME: None}
    taint_keys: dict[str, None] = {}
    values: dict[str, None] = {}
    ordered = False  # a Gt/Lt requirement compares label values as integers
    for pod in (*pods, *cluster.pods):
        spec = pod.get("spec") or {}
        for k, v in (spec.get("nodeSelector") or {}).items():
            keys[k] = None
            values[str(v)] = None
        for term in _terms(pod):
            for r in term.get("matchExpressions") or ():
                keys[str(r.get("key", ""))] = None
                ordered = ordered or r.get("operator") in ("Gt", "Lt")
                for v in r.get("values") or ():
                    values[str(v)] = None
        for c in spec.get("topologySpreadConstraints") or ():
            keys[str(c.get("topologyKey", ""))] = None
        for t in _pod_terms(pod):
            keys[str(t.get("topologyKey", ""))] = None
        for t in spec.get("tolerations") or ():
            if t.get("key"):
                taint_keys[str(t["key"])] = None
            if t.get("value"):
                values[str(t["value"])] = None
    for n in cluster.nodes:
        for k, v in (n["metadata"].get("labels") or {}).items():
            if k in keys and k != HOSTNAME:
                values[str(v)] = None
    if ordered:  # an integer in each interval the named integers cut: each, and its neighbours
        for i in {int(v) for v in values if v.isdigit()}:
            for j in (i - 1, i + 1):
                if j >= 0:
                    values[str(j)] = None
    values[OTHER_VALUE] = None
    values[node_name] = None
    ks = [k for k in keys if k and label_key_problem(k) is None]
    vs = [v for v in values if label_value_problem(v) is None]
    ts = [k for k in taint_keys if k not in keys and label_key_problem(k) is None]
    return [*ks, *ts], vs, ks


# ---- the world -----------------------------------------------------------------------------------


@dataclass
class _Judged:
    key: str
    pod: dict[str, Any]
    record: SFun


class PlaceWorld:
    """The cluster (concrete), the pods asked about (concrete; their constraints under guards
    when ``guards``), and with ``new_node`` one node Z3 may add (present when its bit is)."""

    def __init__(
        self,
        cluster: Cluster,
        pods: Sequence[dict[str, Any]],
        *,
        new_node: bool,
        guards: bool,
        timeout: float = 60.0,
        taints: int = 2,
        owners: Sequence[tuple[str, str]] = (),
    ) -> None:
        """``owners``: per pod, the object its items are said of and their path prefix (a
        workload's template: ``Deployment shop/web``, ``spec.template.``)."""
        self.spec: LoadedSpec = _scheduler()
        self._owners = list(owners)
        self.cluster = cluster
        self.universe = Universe()
        self.compiler = Compiler(self.spec.module, self.universe)
        self.compiler.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.items: list[Item] = []
        self.guards: list[Any] = []
        self._guarded = guards
        taken = {n["metadata"]["name"] for n in cluster.nodes}
        self.node_name = _node_name(pods, taken)
        self.named_nodes = named_nodes(pods, taken)
        self.keys, self.values, self.label_keys = strings(cluster, pods, self.node_name)
        self.dropped = self._fit_values(cluster, pods) if new_node else 0
        for s in ("DoNotSchedule", "ScheduleAnyway", self.node_name):
            self.universe.code(s)
        base = _with_namespaces(cluster, pods)
        world = self.spec.view.build(base)
        constants = dict(world.constants)
        # the cluster's nodes, each with its taints and unschedulable flag as items
        nodes: dict[str, SFun] = {}
        manifests = {n["metadata"]["name"]: n for n in cluster.nodes}
        for ident, (name, rec) in enumerate(world.nodes.items(), start=1):
            lift = _Lift()
            if guards:
                self._node_items(name, manifests.get(name, {}), rec, lift)
            nodes[name] = lift(rec)
            nodes[name].ident = ident
        pods_lifted: dict[int, SFun] = {}
        bound = {object_key(q): q for q in cluster.pods if q["spec"].get("nodeName")}
        for j, (key, rec) in enumerate(world.pods.items()):
            lift = _Lift()
            q = bound.get(key)
            if guards and q is not None:
                self._existing_anti_affinity(q, lift)
            lifted = lift(rec)
            lifted.ident = 1_000_000 + j
            pods_lifted[id(rec)] = lifted
        self.symbolic: SymNode | None = None
        self.constraints: list[Any] = []
        node_items: list[tuple[Any, SFun]] = [(True, nodes[n]) for n in nodes]
        on = {
            name: (True, SSet([(True, pods_lifted[id(q)]) for q in qs], distinct=True))
            for name, qs in world.constants["PodsOn"].items()
        }
        if new_node:
            self.symbolic, record = self._new_node(pods, taints)
            node_items.append((self.symbolic.present, record))
            on[self.node_name] = (self.symbolic.present, SSet([], distinct=True))
            self.new_record: SFun | None = record
        else:
            self.new_record = None
        for name, value in constants.items():
            if name == "Nodes":
                constants[name] = SSet(node_items, distinct=True)
            elif name == "PodsOn":
                constants[name] = SFun(on)
            elif name == "Pods":
                constants[name] = SSet([(True, pods_lifted[id(q)]) for q in value], distinct=True)
            else:
                constants[name] = _plain(value)
        self.compiler.bind(constants)
        self.nodes = nodes
        self.judged: list[_Judged] = []
        for j, pod in enumerate(pods):
            self.judged.append(self._judged(pod, 2_000_000 + j))

    # -- building ---------------------------------------------------------------------------------
    def _fit_values(self, cluster: Cluster, pods: Sequence[Mapping[str, Any]]) -> int:
        """Keep the added node's label values within the string universe: the values the pods
        name first, then as many of the cluster's nodes' values as fit; how many were left."""
        room = (1 << STRING_BITS) - len(self.universe) - len(self.keys) - _SPARE_STRINGS
        if len(self.values) <= room:
            return 0
        named = set(strings(replace(cluster, nodes=()), pods, self.node_name)[1])
        kept = [v for v in self.values if v in named]
        kept += [v for v in self.values if v not in named][: max(0, room - len(kept))]
        dropped = len(self.values) - len(kept)
        self.values = kept
        return dropped

    def guard(self, item: Item) -> Any:
        g = z3.Bool(f"item{len(self.items)}:{item.path}")
        self.items.append(item)
        self.guards.append(g)
        return g

    def _node_items(self, name: str, node: Mapping[str, Any], rec: Fcn, lift: _Lift) -> None:
        obj = f"Node {name}"
        members = rec["spec"]["taints"]
        for i, t in enumerate((node.get("spec") or {}).get("taints") or ()):
            if t.get("effect") not in _FILTER_EFFECTS:
                continue
            key, value, effect = t.get("key", ""), t.get("value", ""), t.get("effect", "")
            m = next(
                (x for x in members if (x["key"], x["value"], x["effect"]) == (key, value, effect)),
                None,
            )
            if m is None:
                continue
            text = f"{key}={value}:{effect}" if value else f"{key}:{effect}"
            g = self.guard(
                Item("taint", obj, f"spec.taints[{i}]", f"taint {text} of node {name}", False,
                     {"node": name, "key": key, "value": value, "effect": effect})
            )  # fmt: skip
            lift.members.setdefault(("spec", "taints"), {})[m] = g
        if (node.get("spec") or {}).get("unschedulable"):
            g = self.guard(
                Item("unschedulable", obj, "spec.unschedulable",
                     f"node {name} is unschedulable (spec.unschedulable: true)", False,
                     {"node": name})
            )  # fmt: skip
            lift.values[("spec", "unschedulable")] = g

    def _existing_anti_affinity(self, q: Mapping[str, Any], lift: _Lift) -> None:
        """A bound pod's required anti-affinity terms, as items: InterPodAffinity keeps a pod
        out of every domain such a term of another pod matches it in."""
        terms = ((q["spec"].get("affinity") or {}).get("podAntiAffinity") or {}).get(REQUIRED)
        for i, term in enumerate(terms or ()):
            m = self.term_record(q, "podAntiAffinity", term)
            path = f"spec.affinity.podAntiAffinity.{REQUIRED}[{i}]"
            label = (
                f"Pod {object_key(q)} on {q['spec']['nodeName']}: {path} (topologyKey "
                f"{term.get('topologyKey', '')}, {_selector_text(term.get('labelSelector'))})"
            )
            item = Item("existingAntiAffinity", f"Pod {object_key(q)}", path, label, False,
                        {"node": q["spec"]["nodeName"],
                         "topologyKey": term.get("topologyKey", "")})  # fmt: skip
            slot = lift.members.setdefault(("spec", "affinity", "podAntiAffinity", REQUIRED), {})
            g = self.guard(item)
            slot[m] = z3.Or(slot[m], g) if m in slot else g

    def term_record(self, pod: Mapping[str, Any], kind: str, term: Mapping[str, Any]) -> Fcn:
        """The view's record of one required pod (anti-)affinity term of ``pod``."""
        variant = copy.deepcopy(dict(pod))
        variant["spec"]["affinity"][kind][REQUIRED] = [term]
        variant["spec"].pop("nodeName", None)
        (m,) = tuple(self._record(variant)["spec"]["affinity"][kind][REQUIRED])
        return m  # type: ignore[no-any-return]

    def _new_node(self, pods: Sequence[Mapping[str, Any]], taints: int) -> tuple[SymNode, SFun]:
        vocab = Vocabulary(tuple(self.keys), tuple(self.values), ("default",))
        b = _Builder(Bounds(nodes=0, pods=0, taints=taints), self.universe, 0, vocab)
        sn = b.node(0, self.node_name)
        code = self.universe.code
        if HOSTNAME in sn.labels.entries:
            g, v = sn.labels.entries[HOSTNAME]
            b.c += [g, v.z == code(self.node_name)]
        wanted = sorted(
            {r for pod in pods for r in _requested(pod)} - set(sn.allocatable) - {"pods"}
        )
        for r in wanted:
            g = b.boolean(f"{self.node_name}.allocatable[{r}]")
            sn.allocatable[r] = (g, b.integer(f"{self.node_name}.allocatable[{r}]"))
        self.constraints = list(b.c)
        record = _SchedulerShape(b.cluster).node(sn)
        return sn, record

    def _judged(self, pod: dict[str, Any], ident: int) -> _Judged:
        key = object_key(pod)
        record = self._record(pod)
        lift = _Lift()
        if self._guarded:
            j = len(self.judged)
            owner = self._owners[j] if j < len(self._owners) else None
            _PodItems(self, pod, record, lift, owner).all()
        lifted = lift(record)
        lifted.ident = ident
        return _Judged(key, pod, lifted)

    def _record(self, pod: Mapping[str, Any]) -> Fcn:
        """The view's record of ``pod`` alone. ``pod`` is loaded already: loading it again would
        admit it twice (a globalDefault class's name, filled in, then binds its policy)."""
        alone = replace(_EMPTY, pods=(dict(pod),))
        rec: Fcn = self.spec.view.build(alone).pods[object_key(pod)]
        return rec

    # -- asking -----------------------------------------------------------------------------------
    def feasible(self, j: int, node: SFun) -> Any:
        """``Feasible(p, n)`` for the ``j``-th pod asked about, defined (no evaluation error)."""
        res = self.compiler.call("Feasible", self.judged[j].record, node)
        value = as_z3bool(res.value)
        return z3.And(value, z3.Not(as_z3bool(res.error))) if res.errors else value

    def without_new(self, f: Any) -> Any:
        """``f`` in the cluster as it is (the added node absent)."""
        if self.symbolic is None:
            return f
        return z3.simplify(z3.substitute(f, (self.symbolic.present, z3.BoolVal(False))))

    def solver(self) -> z3.Solver:
        s = z3.Solver()
        left = max(1.0, self.compiler.deadline - time.monotonic()) if self.compiler.deadline else 60
        s.set("timeout", int(left * 1000))
        s.add(*self.constraints)
        return s

    def node_manifest(self, model: z3.ModelRef) -> dict[str, Any]:
        from schedspec.spec.kube.symbolic.back import _Back
        from schedspec.spec.kube.symbolic.objects import SymCluster

        assert self.symbolic is not None
        sc = SymCluster(Bounds(nodes=0, pods=0), self.universe, Vocabulary((), (), ()))
        node: dict[str, Any] = _Back(sc, model).node(self.symbolic)
        status = node["status"]
        status["allocatable"] = {r: _binary(q) for r, q in status["allocatable"].items()}
        status["capacity"] = dict(status["allocatable"])
        return node

    def simplest(self, s: z3.Solver, assumptions: Sequence[Any]) -> z3.ModelRef:
        """A model of ``s`` whose added node is plain: no taint, label or extended resource it
        does not need, schedulable, and round capacities where they do."""
        sn = self.symbolic
        assert sn is not None
        prefs: list[Any] = [z3.Not(sn.unschedulable)]
        prefs += [z3.Not(t.present) for t in sn.taints]
        prefs += [z3.Not(g) for k, (g, _) in sn.labels.entries.items() if k != HOSTNAME]
        for r, (g, v) in sn.allocatable.items():
            if g is not True:
                prefs.append(z3.Not(g))
            for want in _ROUND.get(r, ()):
                prefs.append(v == want)
        for p in prefs:
            s.push()
            s.add(p)
            if s.check(*assumptions) != z3.sat:
                s.pop()
        if s.check(*assumptions) != z3.sat:  # pragma: no cover - kept constraints were sat
            raise CompileTimeout("the solver gave up while simplifying the node")
        return s.model()


@functools.cache
def _scheduler() -> LoadedSpec:
    """``scheduler.tla``, parsed and checked once a process (it is bundled: it cannot change)."""
    return load_spec("scheduler")


_EMPTY = from_objects([])

_SPARE_STRINGS = 64
"""Codes left for the builder's fixed strings (operators, effects, phases, …) and the ones the
compiler meets."""

_ROUND = {
    "cpu": (4000, 8000, 16000, 32000, 64000),
    "memory": tuple(g << 30 for g in (16, 32, 64, 128, 256)),
    "pods": (110, 250),
}
"""Capacities a real node has (millicores, bytes, pods), tried in turn for the added node."""


def _binary(q: Any) -> Any:
    """A byte count as a binary quantity (``16Gi``) where it is a whole one."""
    if isinstance(q, int) and q >= 1 << 20:
        for suffix, shift in (("Ti", 40), ("Gi", 30), ("Mi", 20)):
            if q % (1 << shift) == 0:
                return f"{q >> shift}{suffix}"
    return q


def named_nodes(pods: Sequence[Mapping[str, Any]], taken: set[str]) -> list[str]:
    """Node names the pods' ``matchFields`` name that no node of the cluster has."""
    out: dict[str, None] = {}
    for pod in pods:
        for term in _terms(pod):
            for r in term.get("matchFields") or ():
                if r.get("key") == "metadata.name":
                    out.update((str(v), None) for v in r.get("values") or () if v not in taken)
    return list(out)


def _node_name(pods: Sequence[Mapping[str, Any]], taken: set[str]) -> str:
    """The added node's name: the first one the pods' ``matchFields`` name that no node has
    (In or NotIn: either way the name decides), else a fresh one."""
    named = named_nodes(pods, taken)
    if named:
        return named[0]
    name, k = NEW_NODE, 1
    while name in taken:
        k += 1
        name = f"{NEW_NODE}-{k}"
    return name


def _with_namespaces(cluster: Cluster, pods: Sequence[Mapping[str, Any]]) -> Cluster:
    """``cluster`` with each asked pod's namespace, as the view assumes one a pod uses."""
    have = {ns["metadata"]["name"] for ns in cluster.namespaces}
    have |= {p["metadata"].get("namespace", "default") for p in cluster.pods}
    extra = []
    for pod in pods:
        ns = pod["metadata"].get("namespace", "default")
        if ns not in have:
            have.add(ns)
            extra.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    return replace(cluster, namespaces=(*cluster.namespaces, *extra)) if extra else cluster


def _containers(pod: Mapping[str, Any]) -> list[tuple[str, int, Mapping[str, Any]]]:
    spec = pod.get("spec") or {}
    return [
        (group, i, c)
        for group in ("containers", "initContainers")
        for i, c in enumerate(spec.get(group) or ())
    ]


def _requested(
    pod: Mapping[str, Any], prefix: str = ""
) -> dict[str, list[tuple[tuple[Any, ...], str, Any]]]:
    """Resource ↦ [(view path of the requests map, field path, quantity)] where it is asked."""
    out: dict[str, list[tuple[tuple[Any, ...], str, Any]]] = {}
    for group, i, c in _containers(pod):
        for r, q in ((c.get("resources") or {}).get("requests") or {}).items():
            out.setdefault(r, []).append(
                (("spec", group, i, "resources", "requests"),
                 f"{prefix}spec.{group}[{i}].resources.requests[{r}]", q)
            )  # fmt: skip
    spec = pod.get("spec") or {}
    for r, q in ((spec.get("resources") or {}).get("requests") or {}).items():
        out.setdefault(r, []).append(
            (("spec", "resources", "requests"), f"{prefix}spec.resources.requests[{r}]", q)
        )
    for r, q in (spec.get("overhead") or {}).items():
        out.setdefault(r, []).append((("spec", "overhead"), f"{prefix}spec.overhead[{r}]", q))
    return out


def _requirement_text(r: Mapping[str, Any]) -> str:
    values = ", ".join(str(v) for v in r.get("values") or ())
    op = r.get("operator", "")
    return (
        f"{r.get('key', '')} {op} [{values}]"
        if op not in ("Exists", "DoesNotExist")
        else (f"{r.get('key', '')} {op}")
    )


def _selector_text(s: Mapping[str, Any] | None) -> str:
    if s is None:
        return "no labelSelector"
    parts = [f"{k}={v}" for k, v in (s.get("matchLabels") or {}).items()]
    parts += [_requirement_text(r) for r in s.get("matchExpressions") or ()]
    return ", ".join(parts) or "{}"


class _PodItems:
    """The guarded constraint items of one pod asked about (see the module docstring)."""

    def __init__(
        self,
        world: PlaceWorld,
        pod: dict[str, Any],
        record: Fcn,
        lift: _Lift,
        owner: tuple[str, str] | None = None,
    ) -> None:
        self.w, self.pod, self.rec, self.lift = world, pod, record, lift
        self.spec = pod.get("spec") or {}
        self.obj, self.p = owner or (f"Pod {object_key(pod)}", "")

    def item(self, kind: str, path: str, label: str, **data: Any) -> Any:
        return self.w.guard(Item(kind, self.obj, path, label, True, data))

    def all(self) -> None:
        self.node_selector()
        self.node_affinity()
        self.pod_affinity()
        self.spread()
        self.requests()
        self.host_ports()

    def node_selector(self) -> None:
        for k, v in (self.spec.get("nodeSelector") or {}).items():
            g = self.item("nodeSelector", f"{self.p}spec.nodeSelector[{k}]",
                          f"{self.p}spec.nodeSelector[{k}]={v}", key=k, value=v)  # fmt: skip
            self.lift.entries.setdefault(("spec", "nodeSelector"), {})[k] = g

    def node_affinity(self) -> None:
        na = (self.spec.get("affinity") or {}).get("nodeAffinity") or {}
        if na.get(REQUIRED) is None:
            return
        terms = (na.get(REQUIRED) or {}).get("nodeSelectorTerms") or ()
        rec_terms = self.rec["spec"]["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]
        base = f"{self.p}spec.affinity.nodeAffinity.{REQUIRED}.nodeSelectorTerms"
        per_term = []
        for t, term in enumerate(terms):
            gs = []
            for fld in ("matchExpressions", "matchFields"):
                members = rec_terms[t][fld]
                for e, r in enumerate(term.get(fld) or ()):
                    want = (r.get("key", ""), r.get("operator", ""),
                            tuple(str(v) for v in r.get("values") or ()))  # fmt: skip
                    m = next(
                        (x for x in members if (x["key"], x["operator"], x["values"]) == want),
                        None,
                    )
                    if m is None:
                        continue
                    path = f"{base}[{t}].{fld}[{e}]"
                    g = self.item("nodeAffinity", path, f"{path} ({_requirement_text(r)})",
                                  term=t, key=r.get("key", ""), operator=r.get("operator", ""),
                                  values=[str(v) for v in r.get("values") or ()])  # fmt: skip
                    where = ("spec", "affinity", "nodeAffinity", REQUIRED, "nodeSelectorTerms")
                    slot = self.lift.members.setdefault((*where, t, fld), {})
                    slot[m] = z3.Or(slot[m], g) if m in slot else g
                    gs.append(g)
            if gs:
                per_term.append(z3.Or(*gs))
        if per_term:
            self.lift.entries[("spec", "affinity", "nodeAffinity")] = {REQUIRED: z3.And(*per_term)}

    def pod_affinity(self) -> None:
        aff = self.spec.get("affinity") or {}
        for kind in ("podAffinity", "podAntiAffinity"):
            terms = (aff.get(kind) or {}).get(REQUIRED) or ()
            for i, term in enumerate(terms):
                m = self.w.term_record(self.pod, kind, term)
                path = f"{self.p}spec.affinity.{kind}.{REQUIRED}[{i}]"
                label = (
                    f"{path} (topologyKey {term.get('topologyKey', '')}, "
                    f"{_selector_text(term.get('labelSelector'))})"
                )
                g = self.item(kind, path, label, topologyKey=term.get("topologyKey", ""))
                slot = self.lift.members.setdefault(("spec", "affinity", kind, REQUIRED), {})
                slot[m] = z3.Or(slot[m], g) if m in slot else g

    def spread(self) -> None:
        code = self.w.universe.code
        for i, c in enumerate(self.spec.get("topologySpreadConstraints") or ()):
            if c.get("whenUnsatisfiable", "DoNotSchedule") != "DoNotSchedule":
                continue
            path = f"{self.p}spec.topologySpreadConstraints[{i}]"
            desc = (
                f"maxSkew {c.get('maxSkew', 1)}, topologyKey {c.get('topologyKey', '')}, "
                f"{_selector_text(c.get('labelSelector'))}"
            )
            md = int(c.get("minDomains") or 1)
            if md > 1:
                g = self.item("minDomains", f"{path}.minDomains",
                              f"{path}.minDomains={md} ({desc})", index=i, minDomains=md,
                              topologyKey=c.get("topologyKey", ""),
                              maxSkew=c.get("maxSkew", 1))  # fmt: skip
                self.lift.values[("spec", "topologySpreadConstraints", i, "minDomains")] = z3.If(
                    g, md, 1
                )
            g = self.item("spread", path, f"{path} ({desc})", index=i,
                          topologyKey=c.get("topologyKey", ""))  # fmt: skip
            when = z3.If(g, string_val(code("DoNotSchedule")), string_val(code("ScheduleAnyway")))
            self.lift.values[("spec", "topologySpreadConstraints", i, "whenUnsatisfiable")] = SStr(
                when
            )

    def requests(self) -> None:
        for r, places in _requested(self.pod, self.p).items():
            if all(str(q) in ("0", "0m") for _, _, q in places):
                continue
            shown = ", ".join(f"{p}={q}" for _, p, q in places)
            g = self.item("requests", places[0][1], shown, resource=r)
            for view_path, _, _ in places:
                self.lift.entries.setdefault(view_path, {})[r] = g

    def host_ports(self) -> None:
        for group, ci, c in _containers(self.pod):
            members = self.rec["spec"][group][ci]["ports"]
            for k, p in enumerate(c.get("ports") or ()):
                hp = int(p.get("hostPort") or 0)
                if hp <= 0:
                    continue
                want = (int(p.get("containerPort") or 0), hp, p.get("protocol") or "TCP")
                m = next(
                    (x for x in members
                     if (x["containerPort"], x["hostPort"], x["protocol"]) == want), None
                )  # fmt: skip
                if m is None:
                    continue
                path = f"{self.p}spec.{group}[{ci}].ports[{k}].hostPort"
                g = self.item("hostPort", path, f"{path}={hp}/{want[2]}", port=hp)
                slot = self.lift.members.setdefault(("spec", group, ci, "ports"), {})
                slot[m] = z3.Or(slot[m], g) if m in slot else g


# ---- replaying an answer on the executable backend ----------------------------------------------


def replay_feasible(spec: LoadedSpec, cluster: Cluster, pod: Mapping[str, Any], node: str) -> bool:
    """``Feasible(p, n)`` on the executable backend, ``pod`` pending in ``cluster``."""
    return replay_feasibles(spec, cluster, pod, [node])[node]


def replay_feasibles(
    spec: LoadedSpec, cluster: Cluster, pod: Mapping[str, Any], nodes: Sequence[str]
) -> dict[str, bool]:
    """:func:`replay_feasible` on each of ``nodes``, the cluster shown to the spec once."""
    key = object_key(pod)
    others = tuple(q for q in cluster.pods if object_key(q) != key)  # judged without itself
    world = spec.view.build(replace(cluster, pods=(*others, dict(pod))))
    program = spec.runner.bind(world.constants)
    p = world.pods[key]
    return {n: bool(program.call("Feasible", p, world.nodes[n])) for n in nodes}
