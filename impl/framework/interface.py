"""One ``Protocol`` per extension point (``k8s.io/kube-scheduler/framework/interface.go``).

A plugin is any object with a ``name()`` that implements one or more of these; the framework
sorts plugins into extension points with ``isinstance`` (the protocols are runtime-checkable).
Status results follow Go: ``None`` is success. The scheduling cycle runs QueueSort → PreFilter →
Filter → (PostFilter on failure) → PreScore → Score/NormalizeScore → Reserve → Permit; the
binding cycle runs PreBind → Bind → PostBind (Unreserve on any failure after Reserve).

``Handle`` is what the framework gives plugins: the snapshot, waiting pods, the virtual clock,
the API client, namespace labels, the nominator, the seeded RNG and the profile's runners that
preemption needs (two-pass filter, PreFilter ``add_pod``/``remove_pod``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from random import Random
from typing import Any, Protocol, runtime_checkable

from schedspec.impl.api import Pod
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.nominator import Nominator
from schedspec.impl.framework.status import Status
from schedspec.impl.framework.types import (
    Diagnosis,
    NodeInfo,
    NodeScore,
    PodInfo,
    PreFilterResult,
    QueuedPodInfo,
)

__all__ = [
    "APIClient",
    "BatchScorer",
    "BindPlugin",
    "Clock",
    "FilterPlugin",
    "Handle",
    "NodeLocalFilter",
    "PermitPlugin",
    "Plugin",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreScorePlugin",
    "QueueSortPlugin",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
    "SharedLister",
    "WaitingPod",
    "implements",
]


@runtime_checkable
class Plugin(Protocol):
    def name(self) -> str: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    def pre_enqueue(self, pod: Pod) -> Status | None: ...


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Incremental updates of PreFilter state when a pod is added to / removed from a node
    (nominated pods, preemption dry runs)."""

    def add_pod(
        self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None: ...

    def remove_pod(
        self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None: ...


@runtime_checkable
class NodeLocalFilter(Protocol):
    """Optional beside ``FilterPlugin``: the plugin's Filter verdict on a node is a function
    of ``filter_signature(state, pod)`` (hashable: everything of the pod and of this cycle's
    state its Filter reads) and of that node's NodeInfo alone. The scheduler then keeps each
    node's verdict for the next pod with the same signature while the node does not change
    (``impl/framework/equivalence.py``: impl's own, not upstream's)."""

    def filter_signature(self, state: CycleState, pod: Pod) -> Hashable: ...


class PostFilterResult:
    """What PostFilter asks for the pod's nomination: ``nominated_node_name`` set (or ``""`` to
    clear it). No result (None) leaves the nomination as it is (upstream's ``ModeNoop``)."""

    __slots__ = ("nominated_node_name",)

    def __init__(self, nominated_node_name: str = "") -> None:
        self.nominated_node_name = nominated_node_name


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    def post_filter(
        self, state: CycleState, pod: Pod, diagnosis: Diagnosis
    ) -> tuple[PostFilterResult | None, Status | None]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    def pre_score(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Status | None: ...


@runtime_checkable
class ScoreExtensions(Protocol):
    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[int, Status | None]: ...

    def score_extensions(self) -> ScoreExtensions | None: ...


@runtime_checkable
class BatchScorer(Protocol):
    """Optional beside ``ScorePlugin``: Score on every node of the cycle in one call, the same
    values ``score`` gives node by node (the framework then calls this instead). Upstream has no
    such point — its framework calls Score per node on 16 goroutines; here a plugin whose score
    is a few arithmetic operations reads its cycle state once instead of once per node."""

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    def permit(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[Status | None, float]: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    """Returns Skip to let the next Bind plugin bind the pod."""

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


# ------------------------------------------------------------------------------ the handle


class SharedLister(Protocol):
    """The cycle's snapshot (``SharedLister``/``NodeInfoLister``)."""

    def list(self) -> Sequence[NodeInfo]: ...

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]: ...

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]: ...

    def get(self, node_name: str) -> NodeInfo | None: ...


class WaitingPod(Protocol):
    """A pod held at Permit; a plugin may ``allow`` or ``reject`` it."""

    @property
    def pod(self) -> Pod: ...

    def pending_plugins(self) -> list[str]: ...

    def allow(self, plugin: str) -> None: ...

    def reject(self, plugin: str, message: str) -> None: ...


class Clock(Protocol):
    """Virtual time: ``now()`` in seconds and ``after(delay, fn)`` to run ``fn`` later."""

    def now(self) -> float: ...

    def after(self, delay: float, fn: Callable[[], None]) -> None: ...


class APIClient(Protocol):
    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        """The ``pods/binding`` subresource; raises ``APIError`` on failure."""
        ...

    def get(self, kind: str, key: str) -> Mapping[str, Any] | None:
        """The stored object of ``kind`` at ``key`` (``ns/name``, or ``name``)."""
        ...

    def list(self, kind: str) -> list[Mapping[str, Any]]: ...

    def update(self, kind: str, obj: Mapping[str, Any]) -> None:
        """Replace the stored object; raises ``APIError`` (NotFound) when it is gone."""
        ...

    def delete(self, kind: str, key: str) -> None:
        """Remove the object; raises ``APIError`` (NotFound) when it is gone."""
        ...


class Handle(Protocol):
    def snapshot_shared_lister(self) -> SharedLister: ...

    def get_waiting_pod(self, uid: str) -> WaitingPod | None: ...

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None: ...

    def reject_waiting_pod(self, uid: str) -> bool: ...

    def clock(self) -> Clock: ...

    def client(self) -> APIClient: ...

    def namespace_labels(self, namespace: str) -> Mapping[str, str] | None: ...

    def namespaces(self) -> Iterable[tuple[str, Mapping[str, str]]]: ...

    def nominator(self) -> Nominator: ...

    def rng(self) -> Random: ...

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None: ...

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None: ...

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None: ...


_IMPLEMENTS: dict[tuple[type[Any], type[Any]], bool] = {}


def implements(plugin: object, proto: type[Any]) -> bool:
    """``isinstance(plugin, proto)``, once per plugin type: an extension point is a method of the
    plugin's type (as a Go type satisfies an interface), and a runtime-checkable Protocol check
    costs microseconds per member — thousands per cluster when a checker builds a scheduler per
    cluster."""
    key = (type(plugin), proto)
    known = _IMPLEMENTS.get(key)
    if known is None:
        known = _IMPLEMENTS[key] = isinstance(plugin, proto)
    return known
