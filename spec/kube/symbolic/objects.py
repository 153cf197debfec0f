"""The symbolic Kubernetes objects (nodes, pods and their parts) and the cluster holding them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import z3

from schedspec.spec.compile.z3 import SStr, Universe
from schedspec.spec.kube.symbolic.bounds import Bounds

if TYPE_CHECKING:
    from schedspec.spec.kube.symbolic.autoscaler_shape import SymGroup
    from schedspec.spec.kube.symbolic.vocabulary import Vocabulary


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
class _WeightedTerm:
    """A preferred pod (anti-)affinity term: a weight in 1..100 and the term it weighs."""

    present: Any
    weight: Any
    term: _AffinityTerm


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
    term_fields: list[_Requirement] = field(default_factory=list)
    """Each node selector term's ``matchFields`` requirement (``metadata.name`` In/NotIn one
    node name), parallel to ``terms``."""
    preferred_affinity: list[_WeightedTerm] = field(default_factory=list)
    preferred_anti_affinity: list[_WeightedTerm] = field(default_factory=list)


@dataclass
class SymService:
    """A v1 Service: what PodTopologySpread's default constraints read (its namespace and its
    selector, nil when ``has_selector`` is false)."""

    index: int
    name: str
    present: Any
    namespace: SStr
    has_selector: Any
    selector: _Map


@dataclass
class SymCluster:
    """The symbolic objects, their validity constraints, and the string universe."""

    bounds: Bounds
    universe: Universe
    vocabulary: Vocabulary
    nodes: list[SymNode] = field(default_factory=list)
    pods: list[SymPod] = field(default_factory=list)
    services: list[SymService] = field(default_factory=list)
    constraints: list[Any] = field(default_factory=list)
    size_terms: list[tuple[str, Any]] = field(default_factory=list)
    number_terms: list[Any] = field(default_factory=list)
    candidates: list[tuple[Any, tuple[Any, ...]]] = field(default_factory=list)
    """Every leaf with a few values worth trying (generators draw from these)."""
    groups: list[SymGroup] = field(default_factory=list)
    """Node groups, built for the autoscaler view only (:mod:`.autoscaler_shape`)."""
    owners: list[SStr] = field(default_factory=list)
    """Each pod's controller kind ("" for none), with the node groups."""

    @classmethod
    def build(
        cls,
        bounds: Bounds,
        universe: Universe | None = None,
        *,
        groups: bool = False,
        vocabulary: Vocabulary | None = None,
    ) -> SymCluster:
        """The cluster; with ``groups``, also ``bounds.groups`` node groups and pod controllers;
        its strings from ``vocabulary`` (default: the bounds')."""
        from schedspec.spec.kube.symbolic.builder import _Builder

        count = bounds.groups if groups else 0
        return _Builder(bounds, universe or Universe(), count, vocabulary).cluster

    # -- shown to the specs ----------------------------------------------------------------------
    def scheduler_constants(self, profiles: Any = None) -> dict[str, Any]:
        """The scheduler view's constants; ``Profiles`` is ``profiles`` (a concrete
        :mod:`~schedspec.spec.kube.profiles` value) or the default profile."""
        from schedspec.spec.kube.symbolic.scheduler_shape import _SchedulerShape

        return _SchedulerShape(self, profiles).constants()

    def autoscaler_constants(self) -> dict[str, Any]:
        from schedspec.spec.kube.symbolic.autoscaler_shape import autoscaler_constants

        return autoscaler_constants(self)

    def textbook_constants(self) -> dict[str, Any]:
        from schedspec.spec.kube.symbolic.textbook_shape import _TextbookShape

        return _TextbookShape(self).constants()

    # -- back to Kubernetes ----------------------------------------------------------------------
    def objects(self, model: z3.ModelRef) -> list[dict[str, Any]]:
        from schedspec.spec.kube.symbolic.back import _Back

        return _Back(self, model).objects()
