"""The solver model behind ``schedspec optimal``: a RELAXATION of "these pending pods can be
bound, one at a time, each passing every Filter plugin of kube-scheduler v1.34's default profile".

Every valid placement satisfies the model; a solution of the model need not be valid, so each is
replayed through impl's filters (:func:`schedspec.checker.optimal_filters.find_order`) and an
invalid one is cut off (:mod:`schedspec.checker.optimal`). A validated optimum of the relaxation
is therefore an optimum of the real problem. What each rule becomes:

- **node-local rules** (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity/nodeSelector,
  and NodeResourcesFit, NodePorts and InterPodAffinity's anti-affinity against the pods already
  bound — rules that, failing on the initial state, fail on every later one): impl's own Filter
  plugins decide them, on the initial state, for the pod with its required pod affinity and
  DoNotSchedule spread constraints taken off (those are not monotone). A placement variable
  ``x[p, n]`` exists only where they pass. A node lacking a DoNotSchedule constraint's
  topology key or a required affinity term's is out too (``podtopologyspread/filtering.go``,
  ``interpodaffinity/filtering.go`` reject it whatever else holds).
- **NodeResourcesFit** (``noderesources/fit.go``): per node and resource, the requests (> 0) of
  the pods placed there ≤ allocatable − requested by the bound pods; the pod count ≤ the
  ``pods`` allocatable − bound pods. Exact: the last pod bound there checks the total.
- **NodePorts**: two pods whose host ports conflict never share a node. Exact.
- **InterPodAffinity, required anti-affinity** (either pod's term matching the other): two such
  pods never share a topology domain of the term's key. Exact, in either order (the incoming
  pod's terms and the existing pods' terms reject alike).
- **InterPodAffinity, required affinity**: a pod is placed in a domain holding, for each term,
  a pod matching all its terms (bound, or placed by this solution) — unless it matches its own
  terms and no bound pod matches them (the first pod of a group). Necessary, not sufficient:
  the order decides the rest.
- **PodTopologySpread, DoNotSchedule**: pods with the same constraint, namespace and eligible
  nodes form a group; in each domain holding any of them, (bound matching pods there) + (the
  group's pods there, if they match the selector) − (the minimum over the eligible domains of
  the final count, 0 below ``minDomains``) ≤ ``maxSkew``: what the last of them bound there
  saw, at best. Necessary, not sufficient.

The model is solver-neutral (linear constraints over 0/1 variables and a few bounded integers,
implications, a weighted objective to maximise); :mod:`schedspec.checker.optimal_solvers` turns
it into Z3's.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from schedspec.checker.optimal_filters import Filters, Rejection
from schedspec.impl.api import Node, Pod, TopologySpreadConstraint
from schedspec.impl.api.resources import is_scalar_resource
from schedspec.impl.framework.types import AffinityTerm, NodeInfo, PodInfo
from schedspec.impl.plugins import node_ports
from schedspec.impl.plugins.inter_pod_affinity import ERR_REASON_AFFINITY_RULES_NOT_MATCH
from schedspec.impl.plugins.node_affinity import RequiredNodeAffinity
from schedspec.impl.plugins.pod_topology_spread import (
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    _Constraint,
    _constraints,
    _has_all_keys,
    _included,
    count_pods_match_selector,
)

__all__ = ["OBJECTIVES", "Implies", "Lin", "Problem", "build", "busy_nodes"]

OBJECTIVES = ("placed", "priority", "nodes")
HOSTNAME = "kubernetes.io/hostname"
_CHECKED = ("cpu", "memory", "ephemeral-storage")  # fit.go: checked when > 0; scalars when ≠ 0

Var = int
_NO_SPREAD_KEY = Rejection("PodTopologySpread", (ERR_REASON_NODE_LABEL_NOT_MATCH,))
_NO_AFFINITY_KEY = Rejection("InterPodAffinity", (ERR_REASON_AFFINITY_RULES_NOT_MATCH,))


@dataclass(frozen=True, slots=True)
class Lin:
    """Σ coef·var ≤ rhs, only where ``when`` (a 0/1 variable) is 1 when given."""

    terms: tuple[tuple[int, Var], ...]
    rhs: int
    when: Var | None = None


@dataclass(frozen=True, slots=True)
class Implies:
    """``when`` = 1 ⇒ one of ``any_of`` is 1 (none: ``when`` is 0)."""

    when: Var
    any_of: tuple[Var, ...]


@dataclass
class Problem:
    """``pods`` (pending, considered) × ``nodes``; ``x[(i, j)]`` is pod i on node j."""

    pods: list[Pod]
    nodes: list[Node]
    objective_name: str
    x: dict[tuple[int, int], Var] = field(default_factory=dict)
    n_vars: int = 0
    ints: dict[Var, tuple[int, int]] = field(default_factory=dict)
    constraints: list[Lin | Implies] = field(default_factory=list)
    objective: list[tuple[int, Var]] = field(default_factory=list)
    static: dict[int, dict[str, Rejection | None]] = field(default_factory=dict)
    exact: bool = True  # no rule the model relaxes applies: every solution is valid

    def new_bool(self) -> Var:
        self.n_vars += 1
        return self.n_vars - 1

    def new_int(self, lo: int, hi: int) -> Var:
        v = self.new_bool()
        self.ints[v] = (lo, hi)
        return v

    def on(self, i: int) -> list[tuple[int, Var]]:
        """(node index, variable) of pod i's placements."""
        return [(j, v) for (pi, j), v in self.x.items() if pi == i]


def _relaxed(pod: Pod) -> Pod:
    """``pod`` without what is not monotone: required pod affinity, DoNotSchedule spread."""
    aff = pod.affinity
    if aff is not None and aff.pod_affinity is not None:
        aff = dataclasses.replace(aff, pod_affinity=None)
    spread = tuple(c for c in pod.topology_spread_constraints if not _hard(c))
    return dataclasses.replace(pod, affinity=aff, topology_spread_constraints=spread)


def _hard(c: TopologySpreadConstraint) -> bool:
    return c.when_unsatisfiable == "DoNotSchedule"


def _ns_labels(namespaces: Mapping[str, Mapping[str, str]], pod: Pod) -> Mapping[str, str]:
    return namespaces.get(pod.namespace, {})


class _Builder:
    def __init__(
        self,
        problem: Problem,
        filters: Filters,
        bound: Sequence[Pod],
        namespaces: Mapping[str, Mapping[str, str]],
    ) -> None:
        self.p = problem
        self.filters = filters
        self.bound = bound
        self.namespaces = namespaces
        self.infos = [PodInfo(pod) for pod in problem.pods]
        self.node_index = {n.name: j for j, n in enumerate(problem.nodes)}

    # ---- placement variables

    def placements(self) -> None:
        p, nodes = self.p, self.p.nodes
        names = [n.name for n in nodes]
        for i, pod in enumerate(p.pods):
            rejected = self.filters.pre_filter_rejection(pod)
            if rejected is not None:
                verdicts: dict[str, Rejection | None] = dict.fromkeys(names, rejected)
            else:
                verdicts = self.filters.verdicts(_relaxed(pod), names)
            keys = {c.topology_key for c in _constraints(pod, "DoNotSchedule")}
            aff_keys = {t.topology_key for t in self.infos[i].required_affinity_terms}
            for j, node in enumerate(nodes):
                if verdicts[node.name] is not None:
                    continue
                if not keys <= node.labels.keys():
                    verdicts[node.name] = _NO_SPREAD_KEY
                elif not aff_keys <= node.labels.keys():
                    verdicts[node.name] = _NO_AFFINITY_KEY
                else:
                    p.x[(i, j)] = p.new_bool()
            p.static[i] = verdicts
            on = [(1, v) for _, v in p.on(i)]
            if len(on) > 1:
                p.constraints.append(Lin(tuple(on), 1))

    def by_node(self) -> dict[int, list[tuple[int, Var]]]:
        out: dict[int, list[tuple[int, Var]]] = defaultdict(list)
        for (i, j), v in self.p.x.items():
            out[j].append((i, v))
        return out

    # ---- identical pods (a Deployment's replicas) are interchangeable

    def symmetry(self) -> None:
        """Among pods alike in all but name, an earlier one is placed if a later one is, and
        on a node of no greater index: any placement has such a twin (renaming replicas
        changes no filter's verdict), so the optimum is kept and the solver is spared
        proving it again for each permutation."""
        p = self.p
        alike: dict[str, list[int]] = defaultdict(list)
        for i, pod in enumerate(p.pods):
            if p.on(i):
                alike[repr(dataclasses.replace(pod, name="", uid=""))].append(i)
        top = len(p.nodes)
        for members in alike.values():
            for a, b in itertools.pairwise(members):
                on_a, on_b = p.on(a), p.on(b)
                placed = [(1, v) for _, v in on_b] + [(-1, v) for _, v in on_a]
                p.constraints.append(Lin(tuple(placed), 0))
                order = [(j, v) for j, v in on_a] + [(top - j, v) for j, v in on_b]
                p.constraints.append(Lin(tuple(order), top))

    def node_symmetry(self) -> None:
        """Among nodes alike in all but name — labels other than the hostname, taints,
        allocatable, the bound pods' specs, and which pending pods they admit — an earlier
        one holds no fewer pending pods: swapping two such nodes' pods changes no verdict,
        and the replicas' order above survives it (renaming replicas moves no count)."""
        p = self.p
        columns: dict[int, list[int]] = defaultdict(list)
        for i, j in p.x:
            columns[j].append(i)
        alike: dict[tuple[object, ...], list[int]] = defaultdict(list)
        for j, node in enumerate(p.nodes):
            info = self.filters.snapshot.get(node.name)
            if info is None or j not in columns:
                continue
            labels = tuple(sorted((k, v) for k, v in node.labels.items() if k != HOSTNAME))
            pods = sorted(
                repr(dataclasses.replace(pi.pod, name="", uid="", node_name="")) for pi in info.pods
            )
            shape = (labels, node.taints, tuple(sorted(node.allocatable.items())),
                     node.unschedulable, tuple(pods), tuple(columns[j]))  # fmt: skip
            alike[shape].append(j)
        for members in alike.values():
            for a, b in itertools.pairwise(members):
                terms = [(1, p.x[(i, b)]) for i in columns[b]]
                terms += [(-1, p.x[(i, a)]) for i in columns[a]]
                p.constraints.append(Lin(tuple(terms), 0))

    # ---- NodeResourcesFit and NodePorts

    def resources(self) -> None:
        p = self.p
        for j, placed in self.by_node().items():
            info = self.filters.snapshot.get(p.nodes[j].name)
            assert info is not None
            slots = max(info.allowed_pod_number - len(info.pods), 0)
            if len(placed) > slots:
                p.constraints.append(Lin(tuple((1, v) for _, v in placed), slots))
            wanted: dict[str, list[tuple[int, Var]]] = defaultdict(list)
            for i, v in placed:
                for name, amount in p.pods[i].requests.items():
                    if (amount > 0 and name in _CHECKED) or (amount and is_scalar_resource(name)):
                        wanted[name].append((amount, v))
            for name, terms in wanted.items():
                free = max(info.allocatable.get(name, 0) - info.requested.get(name, 0), 0)
                if sum(c for c, _ in terms) <= free:
                    continue
                g = math.gcd(*(c for c, _ in terms))
                p.constraints.append(Lin(tuple((c // g, v) for c, v in terms), free // g))

    def ports(self) -> None:
        p = self.p
        with_ports = [i for i, info in enumerate(self.infos) if info.host_ports]
        for a, i in enumerate(with_ports):
            for k in with_ports[a + 1 :]:
                for j, node in enumerate(p.nodes):
                    vi, vk = p.x.get((i, j)), p.x.get((k, j))
                    if vi is None or vk is None:
                        continue
                    alone = NodeInfo(node, [p.pods[k].assigned_to(node.name)])
                    if not node_ports.fits(p.pods[i], alone):
                        p.constraints.append(Lin(((1, vi), (1, vk)), 1))

    # ---- InterPodAffinity: required anti-affinity

    def _anti_groups(self) -> list[list[int]]:
        groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
        for i, pod in enumerate(self.p.pods):
            anti = pod.affinity.pod_anti_affinity if pod.affinity else None
            terms = repr(anti.required) if anti is not None else ""
            groups[(pod.namespace, tuple(sorted(pod.labels.items())), terms)].append(i)
        return list(groups.values())

    def _anti_keys(self, a: int, b: int) -> set[str]:
        """Topology keys on which pod a and pod b may not share a domain."""
        pa, pb = self.p.pods[a], self.p.pods[b]
        keys = {
            t.topology_key
            for t in self.infos[a].required_anti_affinity_terms
            if t.matches(pb, _ns_labels(self.namespaces, pb))
        }
        keys |= {
            t.topology_key
            for t in self.infos[b].required_anti_affinity_terms
            if t.matches(pa, _ns_labels(self.namespaces, pa))
        }
        return keys

    def _domains(self, key: str, pods: Sequence[int]) -> dict[str, list[tuple[int, Var]]]:
        """Domain value of ``key`` → (node, variable) of the placements of ``pods`` there."""
        out: dict[str, list[tuple[int, Var]]] = defaultdict(list)
        for i in pods:
            for j, v in self.p.on(i):
                value = self.p.nodes[j].labels.get(key)
                if value is not None:
                    out[value].append((j, v))
        return out

    def anti_affinity(self) -> None:
        p = self.p
        groups = [g for g in self._anti_groups() if any(p.on(i) for i in g)]
        for a, ga in enumerate(groups):
            for gb in groups[a:]:
                same = ga is gb
                if same and len(ga) < 2:
                    continue
                keys = self._anti_keys(ga[0], ga[1] if same else gb[0])
                for key in sorted(keys):
                    if same:
                        for placed in self._domains(key, ga).values():
                            if len(placed) > 1:
                                p.constraints.append(Lin(tuple((1, v) for _, v in placed), 1))
                        continue
                    in_a, in_b = self._domains(key, ga), self._domains(key, gb)
                    for value in in_a.keys() & in_b.keys():
                        there = p.new_bool()
                        for _, v in in_a[value]:
                            p.constraints.append(Implies(v, (there,)))
                        terms = tuple((1, v) for _, v in in_b[value])
                        p.constraints.append(Lin(terms, 0, when=there))

    # ---- InterPodAffinity: required affinity (relaxed)

    @staticmethod
    def keys(terms: Sequence[AffinityTerm]) -> set[str]:
        return {t.topology_key for t in terms}

    def affinity(self) -> None:
        p = self.p
        present: dict[tuple[frozenset[int], str, str], Var] = {}
        for i, info in enumerate(self.infos):
            terms = info.required_affinity_terms
            if not terms or not p.on(i):
                continue
            p.exact = False

            def matches_all(pod: Pod, terms: Sequence[AffinityTerm] = terms) -> bool:
                ns = _ns_labels(self.namespaces, pod)
                return all(t.matches(pod, ns) for t in terms)

            bound_pairs: set[tuple[str, str]] = set()
            for pod in self.bound:
                labels = self.p.nodes[self.node_index[pod.node_name]].labels
                if matches_all(pod):
                    bound_pairs |= {(k, labels[k]) for k in self.keys(terms) if k in labels}
            if matches_all(p.pods[i]) and not any(matches_all(pod) for pod in self.bound):
                continue  # the first pod of its group may go anywhere its keys are
            group = frozenset(k for k, pod in enumerate(p.pods) if k != i and matches_all(pod))
            for j, v in p.on(i):
                for t in terms:
                    value = p.nodes[j].labels[t.topology_key]
                    if (t.topology_key, value) in bound_pairs:
                        continue
                    key = (group, t.topology_key, value)
                    if key not in present:
                        present[key] = p.new_bool()
                        there = self._domains(t.topology_key, sorted(group)).get(value, [])
                        p.constraints.append(Implies(present[key], tuple(w for _, w in there)))
                    p.constraints.append(Implies(v, (present[key],)))

    # ---- PodTopologySpread: DoNotSchedule (relaxed)

    def spread(self) -> None:
        p = self.p
        groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
        specs: dict[tuple[object, ...], tuple[_Constraint, frozenset[int], bool]] = {}
        for i, pod in enumerate(p.pods):
            constraints = _constraints(pod, "DoNotSchedule")
            if not constraints or not p.on(i):
                continue
            p.exact = False
            api = [c for c in pod.topology_spread_constraints if _hard(c)]
            required = RequiredNodeAffinity(pod)
            for c, raw in zip(constraints, api, strict=True):
                eligible = frozenset(
                    j
                    for j, node in enumerate(p.nodes)
                    if _has_all_keys(node, constraints) and _included(c, pod, node, required)
                )
                self_match = c.selector.matches(pod.labels)
                key = (pod.namespace, repr(raw), eligible, self_match)
                groups[key].append(i)
                specs[key] = (c, eligible, self_match)
        for key, members in groups.items():
            c, eligible, self_match = specs[key]
            self._spread_group(members, str(key[0]), c, eligible, self_match)

    def _spread_group(
        self,
        members: list[int],
        ns: str,
        c: _Constraint,
        eligible: frozenset[int],
        self_match: bool,
    ) -> None:
        p = self.p
        topology_key, selector = c.topology_key, c.selector
        bound_count: dict[str, int] = defaultdict(int)
        for j in eligible:
            node = p.nodes[j]
            info = self.filters.snapshot.get(node.name)
            assert info is not None
            value = node.labels[topology_key]
            bound_count[value] += count_pods_match_selector(info.pods, selector, ns)
        matching = [
            k
            for k, pod in enumerate(p.pods)
            if pod.namespace == ns and not selector.empty and selector.matches(pod.labels)
            and pod.deletion_timestamp is None
        ]  # fmt: skip
        counted = self._domains(topology_key, matching)
        domains = sorted(bound_count)
        floor: Var | None = None
        if len(domains) >= c.min_domains:
            floor = p.new_int(0, len(p.pods) + max(bound_count.values(), default=0))
            for value in domains:
                terms = [(-1, v) for j, v in counted.get(value, []) if j in eligible]
                p.constraints.append(Lin(((1, floor), *terms), bound_count[value]))
        skew = c.max_skew
        for value, placed in self._domains(topology_key, members).items():
            used = p.new_bool()
            for _, v in placed:
                p.constraints.append(Implies(v, (used,)))
            if value in bound_count:
                terms = [(1, v) for _, v in placed] if self_match else []
                base = bound_count[value]
            else:  # no eligible node there: counts.get(value, 0)
                terms, base = [], int(self_match)
            if floor is not None:
                terms.append((-1, floor))
            p.constraints.append(Lin(tuple(terms), skew - base, when=used))

    # ---- the objective

    def objective(self) -> None:
        p = self.p
        n = len(p.pods) + 1
        if p.objective_name == "placed":
            p.objective = [(1, v) for v in p.x.values()]
        elif p.objective_name == "priority":
            p.objective = [(p.pods[i].priority * n + 1, v) for (i, _), v in p.x.items()]
        else:
            busy = busy_nodes(p.nodes, self.bound)
            free = [j for j, node in enumerate(p.nodes) if node.name not in busy]
            weight = len(free) + 1
            p.objective = [(weight, v) for v in p.x.values()]
            for j in free:
                placed = [v for (_, jj), v in p.x.items() if jj == j]
                if placed:
                    used = p.new_bool()
                    p.objective.append((-1, used))
                    for v in placed:
                        p.constraints.append(Implies(v, (used,)))


def busy_nodes(nodes: Sequence[Node], pods: Sequence[Pod]) -> set[str]:
    """Nodes holding a pod that is not a DaemonSet's (those run everywhere, and move nothing)."""
    names = {n.name for n in nodes}
    return {p.node_name for p in pods if p.node_name in names and "DaemonSet" not in p.owner_kinds}


def build(
    pods: Sequence[Pod],
    nodes: Sequence[Node],
    bound: Sequence[Pod],
    namespaces: Mapping[str, Mapping[str, str]],
    objective: str,
    filters: Filters,
    symmetry: bool = False,
) -> Problem:
    """The model of placing ``pods`` on ``nodes`` beside ``bound`` (``filters`` holds them).
    ``symmetry``: add the symmetry-breaking constraints (alike replicas, alike nodes) — Z3
    needs them; CP-SAT finds the symmetries itself and was measured slower with them
    (docs/optimal.md)."""
    if objective not in OBJECTIVES:
        raise ValueError(objective)
    problem = Problem(list(pods), list(nodes), objective)
    b = _Builder(problem, filters, bound, namespaces)
    b.placements()
    if symmetry:
        b.symmetry()
        b.node_symmetry()
    b.resources()
    b.ports()
    b.anti_affinity()
    b.affinity()
    b.spread()
    b.objective()
    return problem
