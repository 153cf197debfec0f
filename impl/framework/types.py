"""The framework's data: ``PodInfo``, ``NodeInfo`` and what a scheduling cycle reports.

Mirrors ``pkg/scheduler/framework/types.go`` and ``k8s.io/kube-scheduler/framework/types.go``
(v1.34): ``NodeInfo`` aggregates the pods on a node (bound and assumed, never terminal) with
their summed requests (``requested``, for Filter), their requests with cpu/memory defaults
(``non_zero_requested``, for scoring), the host ports in use and the images present.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from schedspec.impl.api import Node, Pod, PodAffinityTerm, WeightedPodAffinityTerm
from schedspec.impl.api.resources import is_scalar_resource
from schedspec.impl.api.selectors import Selector, compile_label_selector
from schedspec.impl.framework.events import ClusterEvent
from schedspec.impl.framework.status import Code, Status

__all__ = [
    "MAX_NODE_SCORE",
    "AffinityTerm",
    "Diagnosis",
    "FitError",
    "HostPortInfo",
    "ImageStateSummary",
    "NodeInfo",
    "NodeScore",
    "PodInfo",
    "PreFilterResult",
    "QueuedPodInfo",
    "WeightedAffinityTerm",
    "host_ports",
]

MAX_NODE_SCORE = 100
_ALL_IPS = "0.0.0.0"
_ACCOUNTED = ("cpu", "memory", "ephemeral-storage")


# ------------------------------------------------------------------------------ pod info


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A pod (anti-)affinity term compiled for its owner (``fwk.AffinityTerm``).

    ``namespaces`` is the term's list, or the owner's namespace when the list is empty and
    ``namespaceSelector`` is nil; ``namespace_selector`` is nil → nothing, ``{}`` → all.
    """

    namespaces: frozenset[str]
    selector: Selector
    namespace_selector: Selector
    topology_key: str

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """``pod`` is in the term's namespaces and its labels match (``AffinityTerm.Matches``)."""
        if pod.namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod.labels)
        return False

    @staticmethod
    def of(owner: Pod, term: PodAffinityTerm) -> AffinityTerm:
        namespaces = frozenset(term.namespaces)
        if not term.namespaces and term.namespace_selector is None:
            namespaces = frozenset((owner.namespace,))
        return AffinityTerm(
            namespaces,
            compile_label_selector(term.label_selector),
            compile_label_selector(term.namespace_selector),
            term.topology_key,
        )


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


def host_ports(pod: Pod) -> tuple[tuple[str, str, int], ...]:
    """(hostIP, protocol, hostPort) of containers and sidecars with a host port
    (``util.GetHostPorts``)."""
    out: list[tuple[str, str, int]] = []
    for c in (*(i for i in pod.init_containers if i.is_sidecar), *pod.containers):
        for p in c.ports:
            if p.host_port > 0:
                out.append((p.host_ip or _ALL_IPS, p.protocol or "TCP", p.host_port))
    return tuple(out)


class PodInfo:
    """A pod with its compiled affinity terms, host ports and accounted requests."""

    __slots__ = (
        "accounted",
        "host_ports",
        "pod",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "required_affinity_terms",
        "required_anti_affinity_terms",
    )

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        aff = pod.affinity
        pa = aff.pod_affinity if aff else None
        paa = aff.pod_anti_affinity if aff else None
        self.required_affinity_terms = [AffinityTerm.of(pod, t) for t in pa.required] if pa else []
        self.required_anti_affinity_terms = (
            [AffinityTerm.of(pod, t) for t in paa.required] if paa else []
        )
        self.preferred_affinity_terms = _weighted(pod, pa.preferred) if pa else []
        self.preferred_anti_affinity_terms = _weighted(pod, paa.preferred) if paa else []
        self.host_ports = host_ports(pod)
        self.accounted = {
            name: amount
            for name, amount in pod.requests.items()
            if name in _ACCOUNTED or is_scalar_resource(name)
        }

    @property
    def has_affinity(self) -> bool:
        """Any pod affinity or anti-affinity, required or preferred (``podWithAffinity``)."""
        aff = self.pod.affinity
        return aff is not None and (
            aff.pod_affinity is not None or aff.pod_anti_affinity is not None
        )

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.key})"


def _weighted(pod: Pod, terms: Iterable[WeightedPodAffinityTerm]) -> list[WeightedAffinityTerm]:
    return [WeightedAffinityTerm(AffinityTerm.of(pod, t.term), t.weight) for t in terms]


# ------------------------------------------------------------------------------ node info


class HostPortInfo:
    """hostIP → {(protocol, port)} in use (``HostPortInfo``)."""

    __slots__ = ("_by_ip",)

    def __init__(self) -> None:
        self._by_ip: dict[str, set[tuple[str, int]]] = {}

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port > 0:
            self._by_ip.setdefault(ip or _ALL_IPS, set()).add((protocol or "TCP", port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        ports = self._by_ip.get(ip or _ALL_IPS)
        if port > 0 and ports is not None:
            ports.discard((protocol or "TCP", port))
            if not ports:
                del self._by_ip[ip or _ALL_IPS]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """0.0.0.0 conflicts with the pair on any IP; another IP with itself or 0.0.0.0."""
        if port <= 0:
            return False
        ip, pair = ip or _ALL_IPS, (protocol or "TCP", port)
        if ip == _ALL_IPS:
            return any(pair in ports for ports in self._by_ip.values())
        return any(pair in self._by_ip.get(key, ()) for key in (_ALL_IPS, ip))

    def __len__(self) -> int:
        return sum(len(p) for p in self._by_ip.values())

    def clone(self) -> HostPortInfo:
        copy = HostPortInfo()
        copy._by_ip = {ip: set(ports) for ip, ports in self._by_ip.items()}
        return copy


@dataclass(slots=True)
class ImageStateSummary:
    """An image's size and on how many nodes it is present (shared by the cache's NodeInfos)."""

    size: int
    num_nodes: int


class NodeInfo:
    """A node and what the scheduler accounts on it. ``node`` is None for a node that pods
    name but the cache has not seen (such a NodeInfo is never offered to plugins)."""

    __slots__ = (
        "allocatable",
        "allowed_pod_number",
        "derived",
        "generation",
        "image_states",
        "name",
        "node",
        "non_zero_requested",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "requested",
        "used_ports",
    )

    def __init__(self, node: Node | None = None, pods: Iterable[Pod] = ()) -> None:
        self.node: Node | None = None
        self.name = ""
        self.allocatable: Mapping[str, int] = {}
        self.allowed_pod_number = 0
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.requested: dict[str, int] = {}
        self.non_zero_requested: dict[str, int] = {"cpu": 0, "memory": 0}
        self.used_ports = HostPortInfo()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.generation = 0
        # What plugins derive from this NodeInfo alone (e.g. how many pods match a selector,
        # a Filter verdict: ``framework/equivalence.py``), kept while it stays the same:
        # emptied whenever a pod comes or goes or the Node object changes, and not cloned.
        # The snapshot re-clones only the NodeInfos that changed, so a value derived in one
        # cycle is reused by the next for every other node.
        self.derived: dict[Hashable, Any] = {}
        if node is not None:
            self.set_node(node)
        for pod in pods:
            self.add_pod(PodInfo(pod))

    def set_node(self, node: Node) -> None:
        self.derived = {}
        self.node = node
        self.name = node.name
        self.allocatable = node.allocatable
        self.allowed_pod_number = node.allocatable.get("pods", 0)

    def add_pod(self, info: PodInfo) -> None:
        self.derived = {}
        self.pods.append(info)
        if info.has_affinity:
            self.pods_with_affinity.append(info)
        if info.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity.append(info)
        self._account(info, 1)

    def remove_pod(self, pod: Pod) -> bool:
        """Remove the pod with ``pod``'s uid; False if it is not here."""
        for i, info in enumerate(self.pods):
            if info.pod.uid == pod.uid:
                self.derived = {}
                del self.pods[i]
                self.pods_with_affinity = [p for p in self.pods_with_affinity if p is not info]
                self.pods_with_required_anti_affinity = [
                    p for p in self.pods_with_required_anti_affinity if p is not info
                ]
                self._account(info, -1)
                return True
        return False

    def _account(self, info: PodInfo, sign: int) -> None:
        requested = self.requested
        for name, amount in info.accounted.items():
            requested[name] = requested.get(name, 0) + sign * amount
        nz = info.pod.non_zero_requests
        self.non_zero_requested["cpu"] += sign * nz.get("cpu", 0)
        self.non_zero_requested["memory"] += sign * nz.get("memory", 0)
        ports = self.used_ports
        for ip, proto, port in info.host_ports:
            (ports.add if sign > 0 else ports.remove)(ip, proto, port)

    def clone(self) -> NodeInfo:
        copy = NodeInfo()
        copy.node, copy.name = self.node, self.name
        copy.allocatable, copy.allowed_pod_number = self.allocatable, self.allowed_pod_number
        copy.pods = list(self.pods)
        copy.pods_with_affinity = list(self.pods_with_affinity)
        copy.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        copy.requested = dict(self.requested)
        copy.non_zero_requested = dict(self.non_zero_requested)
        copy.used_ports = self.used_ports.clone()
        copy.image_states = self.image_states
        copy.generation = self.generation
        return copy

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={len(self.pods)})"


# ------------------------------------------------------------------------------ cycle results


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """Nodes a PreFilter plugin narrows the search to; None means all nodes."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(slots=True)
class NodeScore:
    name: str
    score: int


@dataclass(slots=True)
class QueuedPodInfo:
    """A pod in the scheduling queue with its attempt bookkeeping."""

    pod_info: PodInfo
    timestamp: float = 0.0
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    consecutive_errors: int = 0
    unschedulable_count: int = 0
    backoff_expiration: float | None = None  # cached; reset when the counts or timestamp change
    gating_plugin: str = ""  # the PreEnqueue plugin keeping the pod out of activeQ
    gating_plugin_events: tuple[ClusterEvent, ...] = ()

    @property
    def pod(self) -> Pod:
        return self.pod_info.pod

    @property
    def gated(self) -> bool:
        return bool(self.gating_plugin)


@dataclass(slots=True)
class Diagnosis:
    """Why a pod fits nowhere: per-node statuses and the plugins that rejected it."""

    node_to_status: dict[str, Status] = field(default_factory=dict)
    absent_nodes_status: Status | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, status: Status) -> None:
        if not status.plugin:
            return
        if status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)
        if status.code is Code.PENDING:
            self.pending_plugins.add(status.plugin)


class FitError(Exception):
    """No node fits; ``str()`` is kube-scheduler's ``FitError.Error()`` without the
    preemption suffix (preemption is a later issue)."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__(pod.key)
        self.pod, self.num_all_nodes, self.diagnosis = pod, num_all_nodes, diagnosis

    def __str__(self) -> str:
        d = self.diagnosis
        msg = f"0/{self.num_all_nodes} nodes are available:"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            histogram: dict[str, int] = {}
            for status in d.node_to_status.values():
                for reason in status.reasons:
                    histogram[reason] = histogram.get(reason, 0) + 1
            absent = self.num_all_nodes - len(d.node_to_status)
            if absent > 0 and d.absent_nodes_status is not None:
                for reason in d.absent_nodes_status.reasons:
                    histogram[reason] = histogram.get(reason, 0) + absent
            parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
            if parts:
                msg += f" {', '.join(parts)}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg
