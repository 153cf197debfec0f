"""Building a symbolic cluster: its leaves as Z3 variables, and their validity constraints."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import z3

from schedspec.spec.compile.z3 import SStr, Universe, string_val, string_var
from schedspec.spec.kube.symbolic.bounds import (
    DELETION_TIME,
    EFFECTS,
    HOST_IPS,
    NODE_OPERATORS,
    PHASES,
    PROTOCOLS,
    SELECTOR_OPERATORS,
    TAINT_KEYS,
    TOLERATION_OPERATORS,
    WHEN_UNSATISFIABLE,
    Bounds,
)
from schedspec.spec.kube.symbolic.objects import (
    SymCluster,
    SymNode,
    SymPod,
    SymService,
    _AffinityTerm,
    _Container,
    _Map,
    _Port,
    _Requirement,
    _Selector,
    _Spread,
    _Taint,
    _Toleration,
    _WeightedTerm,
)
from schedspec.spec.kube.symbolic.vocabulary import Vocabulary


class _Builder:
    def __init__(
        self,
        bounds: Bounds,
        universe: Universe,
        groups: int = 0,
        vocabulary: Vocabulary | None = None,
    ) -> None:
        self.b = bounds
        self.u = universe
        vocabulary = vocabulary or Vocabulary.of(bounds)
        self.keys = vocabulary.keys
        self.resources = vocabulary.resources
        self.values = vocabulary.values
        self.namespaces = vocabulary.namespaces
        self.node_names = tuple(f"node-{i}" for i in range(bounds.nodes))
        for s in (
            *self.keys,
            *self.values,
            *self.namespaces,
            *TAINT_KEYS,
            *EFFECTS,
            "",
            *NODE_OPERATORS,
            *TOLERATION_OPERATORS,
            *PHASES,
            *HOST_IPS,
            *PROTOCOLS,
            DELETION_TIME,
            *WHEN_UNSATISFIABLE,
            "Always",
            "metadata.name",
            *self.node_names,
        ):
            universe.code(s)
        self.cluster = SymCluster(bounds, universe, vocabulary)
        self.c = self.cluster.constraints
        for i in range(bounds.nodes):
            self.cluster.nodes.append(self.node(i))
        for j in range(bounds.pods):
            self.cluster.pods.append(self.pod(j))
        for k in range(bounds.services):
            self.cluster.services.append(self.service(k))
        # Objects are interchangeable: use the first ones (witnesses read node-0, pod-0, …).
        self.prefix([n.present for n in self.cluster.nodes])
        self.prefix([p.present for p in self.cluster.pods])
        self.prefix([s.present for s in self.cluster.services])
        if groups:
            from schedspec.spec.kube.symbolic.autoscaler_shape import build_groups

            build_groups(self, groups)

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
    def node(self, i: int, name: str | None = None) -> SymNode:
        name = name or self.node_names[i]
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
        for r in self.resources:
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
    def service(self, k: int) -> SymService:
        name = f"svc-{k}"
        present = self.boolean(name)
        self.count("objects", present)
        has_selector = self.boolean(f"{name}.selector", likely=True)
        return SymService(
            k,
            name,
            present,
            self.string(f"{name}.namespace", self.namespaces),
            has_selector,
            self.label_map(f"{name}.selector", "labels"),
        )

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
            op = self.string(f"{name}.tolerations[{t}].operator", TOLERATION_OPERATORS)
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
        term_fields = []
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
            term_fields.append(self.field_requirement(f"{name}.nodeSelectorTerms[{t}]", tp))
        self.prefix([tp for tp, _ in terms], required)
        if terms:
            self.c.append(z3.Implies(required, terms[0][0]))
        else:
            self.c.append(z3.Not(required))
        affinity = [self.affinity_term(f"{name}.podAffinity[{a}]") for a in range(self.b.affinity)]
        anti = [self.affinity_term(f"{name}.podAntiAffinity[{a}]") for a in range(self.b.affinity)]
        self.prefix([a.present for a in affinity])
        self.prefix([a.present for a in anti])
        preferred = [
            self.weighted_term(f"{name}.podAffinity.preferred[{a}]")
            for a in range(self.b.preferred)
        ]
        preferred_anti = [
            self.weighted_term(f"{name}.podAntiAffinity.preferred[{a}]")
            for a in range(self.b.preferred)
        ]
        self.prefix([w.present for w in preferred])
        self.prefix([w.present for w in preferred_anti])
        spread = []
        for s in range(self.b.spread):
            sp = self.boolean(f"{name}.topologySpreadConstraints[{s}]")
            self.count("terms", sp)
            skew = self.integer(f"{name}.topologySpreadConstraints[{s}].maxSkew", 1, 2**31 - 1)
            self.number(skew)
            spread.append(
                _Spread(
                    sp,
                    skew,
                    self.string(f"{name}.topologySpreadConstraints[{s}].topologyKey", self.keys),
                    self.string(
                        f"{name}.topologySpreadConstraints[{s}].whenUnsatisfiable",
                        WHEN_UNSATISFIABLE,
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
            term_fields=term_fields,
            preferred_affinity=preferred,
            preferred_anti_affinity=preferred_anti,
        )

    def container(self, name: str, cname: str, init: bool, always: bool) -> _Container:
        present: Any = True if always else self.boolean(name)
        if present is not True:
            self.count("containers", present)
        sidecar: Any = False
        if init:
            sidecar = self.boolean(f"{name}.sidecar")
        requests = {}
        for r in self.resources:
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

    def field_requirement(self, term: str, term_present: Any) -> _Requirement:
        """A term's ``matchFields`` entry: ``metadata.name`` In or NotIn exactly one node name
        (the only field, operators and count the API server accepts there)."""
        name = f"{term}.matchFields[0]"
        present = self.boolean(name)
        self.count("exprs", present)
        self.c.append(z3.Implies(present, term_present))
        op = self.string(f"{name}.operator", ("In", "NotIn"))
        value = self.string(f"{name}.values[0]", self.node_names)
        return _Requirement(present, SStr(string_val(self.u.code("metadata.name"))), op,
                            [(True, value)])  # fmt: skip

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

    def weighted_term(self, name: str) -> _WeightedTerm:
        """A preferred term: its weight is 1..100 (the API server's range for it)."""
        term = self.affinity_term(f"{name}.podAffinityTerm")
        weight = self.integer(f"{name}.weight", 1, 100)
        self.number(weight, term.present)
        return _WeightedTerm(term.present, weight, term)

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
