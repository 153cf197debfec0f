"""The symbolic cluster shown to a spec with the shape of the scheduler view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from schedspec.spec.compile.z3 import SFun, SSeq, SSet, SStr, conj, lift, srecord, string_val
from schedspec.spec.kube.profiles import profiles
from schedspec.spec.kube.scheduler_view import NOW, node_affinity_record
from schedspec.spec.kube.symbolic.bounds import DELETION_TIME, IMAGE, START_TIME
from schedspec.spec.kube.symbolic.objects import (
    SymCluster,
    SymNode,
    SymPod,
    _AffinityTerm,
    _Container,
    _Map,
    _Selector,
    _WeightedTerm,
)
from schedspec.spec.values import Fcn

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


def default_profiles() -> Fcn:
    """``Profiles`` of the default KubeSchedulerConfiguration."""
    return profiles(None, node_affinity_record)


class _SchedulerShape:
    def __init__(self, sc: SymCluster, configured: Fcn | None = None) -> None:
        self.sc = sc
        self.profiles = configured if configured is not None else default_profiles()

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
            for ns in sc.vocabulary.namespaces
        }
        self.records = {"pods": pods, "nodes": nodes}
        return {
            "Pods": SSet([(p.present, r) for p, r in pods], distinct=True),
            "Nodes": SSet([(n.present, r) for n, r in nodes], distinct=True),
            "PodsOn": SFun(on),
            "NamespaceLabels": SFun(ns_labels),
            "PDBs": SSet([]),
            "Services": SSet(
                [
                    (
                        s.present,
                        srecord(
                            metadata=srecord(name=s.name, namespace=s.namespace),
                            spec=SFun({"selector": (s.has_selector, _fmap(s.selector))}),
                        ),
                    )
                    for s in sc.services
                ],
                distinct=True,
            ),
            "Controllers": SSet([]),
            "Now": NOW,
            "Profiles": lift(self.profiles),
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

    def pod_affinity(self, terms: list[_AffinityTerm], preferred: list[_WeightedTerm]) -> SFun:
        weighted = [
            (w.present, srecord(weight=w.weight, podAffinityTerm=self.pa_term(w.term)))
            for w in preferred
        ]
        return SFun(
            {
                _REQUIRED: (True, _set_of([(t.present, self.pa_term(t)) for t in terms])),
                _PREFERRED: (True, SSeq(weighted)),
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
                        matchFields=_set_of(
                            [
                                (
                                    f.present,
                                    srecord(key=f.key, operator=f.operator, values=SSeq(f.values)),
                                )
                            ]
                        ),
                    ),
                )
                for (tp, exprs), f in zip(p.terms, p.term_fields, strict=True)
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
                    ownerReferences=SSet([]),
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
                        podAffinity=self.pod_affinity(p.affinity, p.preferred_affinity),
                        podAntiAffinity=self.pod_affinity(
                            p.anti_affinity, p.preferred_anti_affinity
                        ),
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
