"""A Z3 model of the symbolic cluster turned back into Kubernetes manifests."""

from __future__ import annotations

from typing import Any

import z3

from schedspec.spec.compile.z3 import SStr
from schedspec.spec.kube.symbolic.bounds import DELETION_TIME, IMAGE
from schedspec.spec.kube.symbolic.objects import (
    SymCluster,
    SymNode,
    SymPod,
    SymService,
    _AffinityTerm,
    _Container,
    _Map,
    _Requirement,
    _Selector,
)
from schedspec.spec.kube.symbolic.scheduler_shape import _PREFERRED, _REQUIRED


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
        used |= {self.s(s.namespace) for s in self.sc.services if self.b(s.present)}
        for ns in self.sc.vocabulary.namespaces:
            if ns in used and ns != "default":
                out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        out += [self.node(n) for n in self.sc.nodes if self.b(n.present)]
        out += [self.pod(p) for p in self.sc.pods if self.b(p.present)]
        out += [self.service(s) for s in self.sc.services if self.b(s.present)]
        if self.sc.groups:
            from schedspec.spec.kube.symbolic.autoscaler_shape import group_objects

            out += group_objects(self)
        return out

    def service(self, s: SymService) -> dict[str, Any]:
        spec = {"selector": self.labels(s.selector)} if self.b(s.has_selector) else {}
        meta = {"name": s.name, "namespace": self.s(s.namespace)}
        return {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec}

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
            extended = {r: q for r, q in requests.items() if "/" in r}
            if extended:  # extended resources: limits must equal requests
                out["resources"]["limits"] = extended
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
            for (tp, exprs), f in zip(p.terms, p.term_fields, strict=True):
                if self.b(tp):
                    term: dict[str, Any] = {}
                    matched = [self.requirement(e) for e in exprs if self.b(e.present)]
                    if matched:
                        term["matchExpressions"] = matched
                    if self.b(f.present):
                        term["matchFields"] = [self.requirement(f)]
                    terms.append(term)
            affinity["nodeAffinity"] = {_REQUIRED: {"nodeSelectorTerms": terms}}
        kinds = (
            ("podAffinity", p.affinity, p.preferred_affinity),
            ("podAntiAffinity", p.anti_affinity, p.preferred_anti_affinity),
        )
        for key, pa_terms, weighted in kinds:
            required = [self.pa_term(t) for t in pa_terms if self.b(t.present)]
            preferred = [
                {"weight": self.i(w.weight), "podAffinityTerm": self.pa_term(w.term)}
                for w in weighted
                if self.b(w.present)
            ]
            out = {_REQUIRED: required, _PREFERRED: preferred}
            if required or preferred:
                affinity[key] = {k: v for k, v in out.items() if v}
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
        if self.sc.owners:
            from schedspec.spec.kube.symbolic.autoscaler_shape import owner_references

            if refs := owner_references(self, p):
                meta["ownerReferences"] = refs
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
