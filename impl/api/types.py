"""Typed, immutable Kubernetes objects as the scheduler reads them (k8s.io/api core/v1 v0.34).

Every class is a frozen, slotted dataclass holding only what scheduling needs, with the API
defaults applied (``convert`` builds them from the plain dicts of ``schedspec.cluster``). Nil and
empty stay distinguishable where Kubernetes tells them apart: a ``LabelSelector`` field is
``None`` when absent (nil: selects nothing) and a ``LabelSelector()`` with no requirements when
``{}`` (empty: selects everything); ``Pod.node_selector`` is ``None`` when absent.

Resource lists are ``dict[str, int]``: ``cpu`` in millicores (``Quantity.MilliValue``), every
other resource in units (``Quantity.Value``). ``Pod`` carries its effective requests, computed
once on construction (``resources.pod_requests``).
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Mapping
from dataclasses import dataclass, field

from schedspec.impl.api import resources as _resources

__all__ = [
    "Affinity",
    "Container",
    "ContainerImage",
    "ContainerPort",
    "LabelSelector",
    "LabelSelectorRequirement",
    "Namespace",
    "Node",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "OwnerRef",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PreferredSchedulingTerm",
    "ResourceList",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "WeightedPodAffinityTerm",
]

ResourceList = dict[str, int]
"""Resource name → amount: ``cpu`` in millicores, everything else in units."""

_EMPTY: Mapping[str, str] = {}


# ------------------------------------------------------------------------------ selectors


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist (anything else: the selector is invalid)
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A ``metav1.LabelSelector``; ``LabelSelector()`` is the empty selector (everything)."""

    match_labels: Mapping[str, str] = field(default_factory=dict)
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelector:
    terms: tuple[NodeSelectorTerm, ...]


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


# ------------------------------------------------------------------------------ affinity


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    required: NodeSelector | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """``label_selector``/``namespace_selector`` None = nil; matchLabelKeys are merged already."""

    topology_key: str
    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinity:
    """Either ``podAffinity`` or ``podAntiAffinity`` (the two have the same shape)."""

    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


# ------------------------------------------------------------------------------ taints


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    effect: str  # NoSchedule, PreferNoSchedule, NoExecute
    value: str = ""


@dataclass(frozen=True, slots=True)
class Toleration:
    """An empty ``key`` with ``Exists`` tolerates every key; an empty ``effect`` every effect."""

    key: str = ""
    operator: str = "Equal"  # "" is read as Equal
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    """``label_selector`` has ``matchLabelKeys`` merged in (the pod's values, ``In``)."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule, ScheduleAnyway
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"
    match_label_keys: tuple[str, ...] = ()


# ------------------------------------------------------------------------------ pods


@dataclass(frozen=True, slots=True)
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = "0.0.0.0"


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    image: str = ""
    requests: ResourceList = field(default_factory=dict)
    ports: tuple[ContainerPort, ...] = ()
    restart_policy: str | None = None  # "Always" on an init container makes it a sidecar

    @property
    def is_sidecar(self) -> bool:
        return self.restart_policy == "Always"


@dataclass(frozen=True, slots=True)
class OwnerRef:
    api_version: str
    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Pod:
    """A pod; ``requests`` and ``non_zero_requests`` are derived on construction."""

    name: str
    namespace: str = "default"
    uid: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    node_name: str = ""
    scheduler_name: str = "default-scheduler"
    priority: int = 0
    preemption_policy: str = "PreemptLowerPriority"
    node_selector: Mapping[str, str] | None = None
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    overhead: ResourceList = field(default_factory=dict)
    pod_requests: ResourceList | None = None  # pod-level spec.resources.requests
    scheduling_gates: tuple[str, ...] = ()
    phase: str = "Pending"
    deletion_timestamp: str | None = None
    nominated_node_name: str = ""
    start_time: str | None = None  # status.startTime (RFC 3339)
    disruption_target_reason: str = ""  # reason of a DisruptionTarget=True condition
    owner_kinds: tuple[str, ...] = ()
    controller: OwnerRef | None = None  # the ownerReference with controller: true
    requests: ResourceList = field(init=False, compare=False, repr=False)
    non_zero_requests: ResourceList = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "requests", _resources.pod_requests(self))
        object.__setattr__(self, "non_zero_requests", _resources.non_zero_requests(self))

    @property
    def key(self) -> str:
        """``namespace/name``, as kube-scheduler logs and the CLI print it."""
        return f"{self.namespace}/{self.name}"

    @property
    def is_terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    def assigned_to(self, node_name: str) -> Pod:
        """A copy with ``node_name`` set (derived requests are kept, not recomputed)."""
        copy = _copy.copy(self)
        object.__setattr__(copy, "node_name", node_name)
        return copy


# ------------------------------------------------------------------------------ nodes


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int = 0


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    uid: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    unschedulable: bool = False
    taints: tuple[Taint, ...] = ()
    allocatable: ResourceList = field(default_factory=dict)
    images: tuple[ContainerImage, ...] = ()


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
