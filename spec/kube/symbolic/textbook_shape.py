"""The symbolic cluster shown to a spec with the shape of the textbook view."""

from __future__ import annotations

from typing import Any

from schedspec.spec.compile.z3 import SFun, SSeq, SSet, conj, srecord
from schedspec.spec.kube.symbolic.objects import (
    SymCluster,
    SymNode,
    SymPod,
    _AffinityTerm,
    _Container,
    _Selector,
    _WeightedTerm,
)
from schedspec.spec.kube.symbolic.scheduler_shape import _fmap, _identified, _set_of


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
        return _set_of([(t.present, self.pa_term(t)) for t in terms])

    def weighted_terms(self, terms: list[_WeightedTerm]) -> SSet:
        """The textbook's preferred terms: each term's record with its ``Weight`` beside."""
        return _set_of([(w.present, self.pa_term(w.term, w.weight)) for w in terms])

    def pa_term(self, t: _AffinityTerm, weight: Any = None) -> SFun:
        fields: dict[str, Any] = {
            "TopologyKey": t.topology_key,
            "Namespaces": SSet([(g, ns) for ns, g in t.namespaces.items()], True),
            "LabelSelector": self.selector(t.selector),
        }
        if weight is not None:
            fields["Weight"] = weight
        return srecord(**fields)

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
                        MatchFields=_set_of(
                            [
                                (
                                    f.present,
                                    srecord(
                                        Key=f.key, Operator=f.operator, Value=_set_of(f.values)
                                    ),
                                )
                            ]
                        ),
                    ),
                )
                for (tp, exprs), f in zip(p.terms, p.term_fields, strict=True)
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
                        PodAffinity=srecord(
                            Required=self.pa_terms(p.affinity),
                            Preferred=self.weighted_terms(p.preferred_affinity),
                        ),
                        AntiPodAffinity=srecord(
                            Required=self.pa_terms(p.anti_affinity),
                            Preferred=self.weighted_terms(p.preferred_anti_affinity),
                        ),
                    ),
                ),
                Status=srecord(Phase=p.phase),
            ),
        )
