"""impl's side of the differential check: a cluster loaded into the operational scheduler, synced
and not scheduled (``ImplState``), each Filter plugin's own verdict per pod and node (``_FILTERS``,
prepared once per pod by ``_filter_for``), and the framework's Filter and Score phases for one pod
as the scheduling cycle runs them (``_run_pod``). impl's ``Pod``s are kept from one cluster to the
next (``PodCache``): a checker's clusters share most of their pods."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schedspec.cluster import Cluster
from schedspec.impl.api.convert import pod_from_dict
from schedspec.impl.api.types import Pod
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.runtime import Framework
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import NodeInfo
from schedspec.impl.plugins import (
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    taint_toleration,
)
from schedspec.impl.scheduler import Scheduler
from schedspec.impl.simulate import build

__all__ = ["ImplState", "PodCache"]


class _Raised:
    """A side that raised instead of answering (an EvalError in the spec, an exception in impl)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Raised)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"error: {self.text}"


class PodCache:
    """impl's ``Pod`` of each Pod object, made once and found again by the object's pickle
    (which tells ``1`` from ``True``, unlike equality): the clusters a checker loads share most
    of their pods, and a ``Pod`` is immutable. Emptied past ``limit`` pods."""

    def __init__(self, limit: int = 2000) -> None:
        self.limit = limit
        self._pods: dict[bytes, Pod] = {}

    def __call__(self, obj: Mapping[str, Any]) -> Pod:
        try:
            key = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
        except Exception:  # not plain data
            return pod_from_dict(obj)
        pod = self._pods.get(key)
        if pod is None:
            if len(self._pods) >= self.limit:
                self._pods.clear()
            pod = self._pods[key] = pod_from_dict(obj)
        return pod


class ImplState:
    """``cluster`` loaded into the operational scheduler, synced, nothing scheduled; ``pods``
    converts its Pod objects (``pod_from_dict`` unless given)."""

    def __init__(self, cluster: Cluster, seed: int = 0, pods: PodCache | None = None) -> None:
        self.scheduler: Scheduler = build(cluster, seed=seed, convert_pod=pods)
        self.scheduler.sync()
        self.nodes: Sequence[NodeInfo] = self.scheduler.snapshot.list()
        self.by_name = {ni.name: ni for ni in self.nodes}
        self.pending = {p.key: p for p in self.scheduler.pending_pods()}
        self.namespaces = dict(self.scheduler.handle.namespaces())
        self._prepared: dict[tuple[object, str], Callable[[NodeInfo], bool]] = {}
        self._bare: dict[str, NodeInfo] = {}

    def framework(self, pod: Pod) -> Framework | None:
        return self.scheduler.profiles.get(pod.scheduler_name)

    def bare(self, ni: NodeInfo) -> NodeInfo:
        """A NodeInfo of ``ni``'s node alone (no pods), made once per node: what a Filter that
        reads only the node is given (no plugin writes to it)."""
        bare = self._bare.get(ni.name)
        if bare is None:
            bare = self._bare[ni.name] = NodeInfo(_node_of(ni))
        return bare

    def prepared(
        self, make: Callable[[ImplState, Pod], Callable[[NodeInfo], bool]], pod: Pod
    ) -> Callable[[NodeInfo], bool]:
        """``make(self, pod)``, once per pod: a plugin's ``fits_on``, whose PreFilter state
        serves every node (one that raises is asked again, and raises again, per node)."""
        key = (make, pod.key)
        fits = self._prepared.get(key)
        if fits is None:
            fits = self._prepared[key] = make(self, pod)
        return fits


def _node_of(ni: NodeInfo) -> Any:
    assert ni.node is not None
    return ni.node


def _filters() -> dict[str, Callable[[ImplState, Pod, NodeInfo], bool]]:
    return {
        "NodeUnschedulableOK": lambda s, p, ni: node_unschedulable.fits(p, _node_of(ni)),
        "NodeNameOK": lambda s, p, ni: node_name.fits(p, _node_of(ni)),
        "TaintsOK": lambda s, p, ni: taint_toleration.fits(p, _node_of(ni)),
        "NodeAffinityOK": lambda s, p, ni: _node_affinity_fits(s, p, _node_of(ni)),
        "PortsOK": lambda s, p, ni: node_ports.fits(p, ni),
        "FitOK": lambda s, p, ni: node_resources_fit.fits(p, ni, *_fit_args(s, p)),
        "SpreadOK": lambda s, p, ni: s.prepared(_spread_on, p)(ni),
        "InterPodAffinityOK": lambda s, p, ni: s.prepared(_inter_pod_affinity_on, p)(ni),
    }


def _node_affinity_fits(s: ImplState, pod: Pod, node: Any) -> bool:
    """The pod's profile's NodeAffinity Filter: its ``addedAffinity`` and the pod's own."""
    fwk = s.framework(pod)
    plugin = fwk.plugins.get("NodeAffinity") if fwk is not None else None
    if isinstance(plugin, node_affinity.NodeAffinity):  # no PreFilter state: it reads the pod
        return plugin.filter(CycleState(), pod, NodeInfo(node)) is None
    return node_affinity.fits(pod, node)


def _fit_args(s: ImplState, pod: Pod) -> tuple[frozenset[str], frozenset[str]]:
    """The pod's profile's NodeResourcesFit ``ignoredResources`` and ``ignoredResourceGroups``."""
    fwk = s.framework(pod)
    plugin = fwk.plugins.get("NodeResourcesFit") if fwk is not None else None
    if isinstance(plugin, node_resources_fit.NodeResourcesFit):
        return plugin.ignored, plugin.groups
    return frozenset(), frozenset()


def _spread_on(s: ImplState, pod: Pod) -> Callable[[NodeInfo], bool]:
    """The pod's profile's PodTopologySpread Filter: its default constraints and the pod's own."""
    fwk = s.framework(pod)
    plugin = fwk.plugins.get("PodTopologySpread") if fwk is not None else None
    if isinstance(plugin, pod_topology_spread.PodTopologySpread):
        return plugin.fits_on(pod, s.nodes)
    return pod_topology_spread.fits_on(pod, s.nodes)


def _inter_pod_affinity_on(s: ImplState, pod: Pod) -> Callable[[NodeInfo], bool]:
    return inter_pod_affinity.fits_on(pod, s.nodes, s.namespaces)


_FILTERS = _filters()

# What a row's filter reads of the pod alone, made once for all nodes: each returns the row's
# verdict per node (the same function as ``_FILTERS``' row, less its per-call preparation).
_PER_POD: dict[str, Callable[[ImplState, Pod], Callable[[NodeInfo], bool]]] = {
    "FitOK": lambda s, p: node_resources_fit.fits_on(p, *_fit_args(s, p)),
    "NodeAffinityOK": lambda s, p: _node_affinity_on(s, p),
    "SpreadOK": lambda s, p: s.prepared(_spread_on, p),
    "InterPodAffinityOK": lambda s, p: s.prepared(_inter_pod_affinity_on, p),
}


def _filter_for(row: str, s: ImplState, pod: Pod) -> Callable[[ImplState, Pod, NodeInfo], bool]:
    """``_FILTERS[row]`` for ``pod``'s nodes, prepared once for them; when preparing raises, the
    row's own function, which raises on every node as before."""
    make = _PER_POD.get(row)
    if make is None:
        return _FILTERS[row]
    try:
        fits = make(s, pod)
    except Exception:
        return _FILTERS[row]
    return lambda s, p, ni: fits(ni)


def _node_affinity_on(s: ImplState, pod: Pod) -> Callable[[NodeInfo], bool]:
    """``_node_affinity_fits`` on each node in turn, the plugin and the pod's affinity once."""
    fwk = s.framework(pod)
    plugin = fwk.plugins.get("NodeAffinity") if fwk is not None else None
    if isinstance(plugin, node_affinity.NodeAffinity):
        fits = plugin.fits_on(pod)
        return lambda ni: fits(s.bare(ni))
    return lambda ni: node_affinity.fits(pod, _node_of(ni))


@dataclass
class _PodRun:
    """The framework's Filter and Score phases for one pod, as the scheduling cycle runs them."""

    codes: dict[str, str]
    feasible: list[NodeInfo]
    plugin_scores: dict[str, list[int] | _Raised]
    totals: list[int] | _Raised
    state: CycleState  # after PreFilter, as PostFilter gets it
    statuses: dict[str, Status | None]  # node → Filter status (None: success)


def _status_code(status: Status | None) -> str:
    return "Success" if status is None else status.code_name


def _run_pod(fwk: Framework, state_: ImplState, pod: Pod) -> _PodRun:
    state = CycleState()
    nodes = state_.nodes
    result, status, _ = fwk.run_pre_filter_plugins(state, pod, nodes)
    statuses: dict[str, Status | None] = {}
    if status is not None:
        statuses = dict.fromkeys((ni.name for ni in nodes), status)
    else:
        allowed = None if result is None or result.node_names is None else result.node_names
        for ni in nodes:
            if allowed is not None and ni.name not in allowed:
                statuses[ni.name] = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
                continue
            statuses[ni.name] = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
    codes = {name: _status_code(st) for name, st in statuses.items()}
    feasible = [ni for ni in nodes if codes[ni.name] == "Success"]
    scores: dict[str, list[int] | _Raised] = {}
    totals: list[int] | _Raised = []
    if feasible:
        pre = fwk.run_pre_score_plugins(state, pod, feasible)
        if pre is not None:
            totals = _Raised(pre.message())
        else:
            for pl in fwk.score:
                got, err = fwk.run_score_plugin(pl.name(), state, pod, feasible)
                scores[pl.name()] = _Raised(err.message()) if err is not None else got
            sums, err = fwk.run_score_plugins(state, pod, feasible)
            totals = _Raised(err.message()) if err is not None else sums
    return _PodRun(codes, feasible, scores, totals, state, statuses)
