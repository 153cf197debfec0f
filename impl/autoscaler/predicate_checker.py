"""CA's predicate checker: the scheduler framework's PreFilter and Filter, run on a simulated
snapshot.

Mirrors ``simulator/clustersnapshot/predicate/plugin_runner.go`` (``SchedulerPluginRunner``):

- ``check(snapshot, pod, node)`` is ``RunFiltersOnNode``: PreFilter once, then the Filter
  plugins on that node. A PreFilter rejection (an invalid spread or affinity selector, conflicting
  node affinity terms) fails with no plugin and no reasons (upstream's ``Reasons()`` is nil
  then); a Filter failure names the first failing plugin and its reasons, in kube-scheduler's
  words. A node a PreFilter *result* leaves out (NodeAffinity's ``metadata.name`` matchFields) is
  filtered all the same, so NodeAffinity's Filter names it — upstream reports "PreFilter filtered
  the Node out" with no reasons there; docs/autoscaler.md counts only a PreFilter rejection as
  reasonless, and so does the spec (**declared**).
- ``first_fit(snapshot, pod, among, where)`` is ``RunFiltersUntilPassingNode``: PreFilter once,
  then the nodes in the snapshot's order, skipping ``spec.unschedulable`` nodes, nodes PreFilter
  left out and nodes the caller excludes; the first that passes wins. Upstream starts at a rotating
  index and searches in parallel: **declared**, name order, no rotation.

Shortcuts that change no answer (bench/autoscale.py: 5,000 nodes, 1,000 pods):

- ``first_fit`` skips, before running the Filter plugins on a node, a node on which one of them
  must fail: NodeResourcesFit's pod count, cpu or memory check (the pod's request as the plugin's
  PreFilter computed it) against what the node has left; or the verdict of the plugins that read
  only the pod's spec and the node object (NodeUnschedulable, NodeName, TaintToleration,
  NodeAffinity), cached per (pod's scheduling signature, node) for the checker's life — a node's
  labels, taints and flags do not change within a loop, and a node of the same name but another
  object is checked afresh. A node that passes them runs every Filter plugin as before; the first
  such node to pass still wins, in the same order. Over all the snapshot's nodes, the skips run
  as C loops: a flag per node for the cached verdicts (kept per signature while the snapshot's
  nodes stay the same), the caller's ``where`` flags and the snapshot's cpu-left index.
- PreFilter gets the snapshot's nodes, which only PodTopologySpread (when the pod has a
  DoNotSchedule constraint) and InterPodAffinity (to count the pods its required terms match)
  read. When the first does not run, InterPodAffinity is given the nodes holding pods of the
  namespaces its terms can match, in the same order: the pods it skips match no term, so its
  counts are the same.

Neither runs the nominated-pods pass of kube-scheduler's ``RunFilterPluginsWithNominatedPods``:
CA calls ``RunFilterPlugins``. The plugins are impl's default profile (CA builds its framework
from the default ``KubeSchedulerConfiguration``).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from schedspec.impl.api import Node, Pod
from schedspec.impl.apiserver import APIServer
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot
from schedspec.impl.framework.config import parse_config
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.runtime import FilterFn, Framework, FrameworkHandle
from schedspec.impl.framework.status import Code
from schedspec.impl.framework.types import NodeInfo, PodInfo, PreFilterResult
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins import (
    in_tree_registry,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    taint_toleration,
)

__all__ = ["PredicateChecker", "PredicateError"]


@dataclass(frozen=True, slots=True)
class PredicateError:
    """Why a pod does not fit a node: ``plugin`` None means PreFilter rejected it."""

    plugin: str | None
    reasons: tuple[str, ...]


_PRE_FILTER_REJECTED = PredicateError(None, ())

# Filter plugins whose verdict is a function of the pod's spec and the node object alone
_STATIC = frozenset(
    (node_unschedulable.NAME, node_name.NAME, taint_toleration.NAME, node_affinity.NAME)
)
# PreFilter plugins that read the node list only as the module docstring says
_KNOWN_PRE_FILTERS = frozenset(
    (
        node_affinity.NAME,
        node_ports.NAME,
        node_resources_fit.NAME,
        pod_topology_spread.NAME,
        inter_pod_affinity.NAME,
    )
)
_FIT_REQUEST_KEY = "PreFilter" + node_resources_fit.NAME

_Static = dict[str, tuple[Node, bool]]
_Signature = Hashable


class _DelegatingLister:
    """The framework's ``SharedLister``: whichever snapshot is being checked
    (upstream's ``DelegatingSchedulerSharedLister``)."""

    def __init__(self) -> None:
        self.delegate = ClusterSnapshot()

    def list(self) -> Sequence[NodeInfo]:
        return self.delegate.list()

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return self.delegate.have_pods_with_affinity_list()

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return self.delegate.have_pods_with_required_anti_affinity_list()

    def get(self, node_name: str) -> NodeInfo | None:
        return self.delegate.get(node_name)


class PredicateChecker:
    def __init__(self, namespaces: Mapping[str, Mapping[str, str]]) -> None:
        self._lister = _DelegatingLister()
        loop = EventLoop()
        handle = FrameworkHandle(self._lister, loop, APIServer(loop), lambda: namespaces)
        profile = parse_config(None).profiles[0]
        self.framework = Framework(profile, in_tree_registry(), handle)
        self._namespaces = namespaces
        self._prune = {p.name() for p in self.framework.pre_filter} <= _KNOWN_PRE_FILTERS
        self._static: dict[_Signature, _Static] = {}
        self._masks: dict[_Signature, tuple[object, list[bool]]] = {}

    def _pre_filter(
        self, snapshot: ClusterSnapshot, pod: Pod
    ) -> tuple[CycleState, PreFilterResult | None] | None:
        self._lister.delegate = snapshot
        state = CycleState()
        nodes = self._pre_filter_nodes(snapshot, pod)
        result, status, _ = self.framework.run_pre_filter_plugins(state, pod, nodes)
        if status is not None and not status.is_success():
            return None
        return state, result

    def _pre_filter_nodes(self, snapshot: ClusterSnapshot, pod: Pod) -> Sequence[NodeInfo]:
        """The nodes PreFilter needs to see (module docstring): all of them, or, when only
        InterPodAffinity's incoming terms read them, those holding pods the terms can match."""
        aff = pod.affinity
        if not self._prune or aff is None:
            return snapshot.list()
        if any(c.when_unsatisfiable == "DoNotSchedule" for c in pod.topology_spread_constraints):
            return snapshot.list()
        info = PodInfo(pod)
        terms = (*info.required_affinity_terms, *info.required_anti_affinity_terms)
        if not terms:
            return snapshot.list()
        namespaces: set[str] = set()
        for term in terms:
            # AffinityTerm.matches: the pod's namespace is in the term's, or the namespace
            # selector matches its labels (after InterPodAffinity resolves a non-empty selector
            # into names: the namespaces it selects; an empty one selects every namespace)
            if term.namespace_selector.matches({}):
                return snapshot.list()
            namespaces |= term.namespaces
            namespaces.update(
                ns
                for ns, labels in self._namespaces.items()
                if term.namespace_selector.matches(labels)
            )
        names: set[str] = set()
        for ns in namespaces:
            names.update(snapshot.nodes_with_pods_in(ns))
        return snapshot.in_order(names)

    def _filters(self, state: CycleState) -> list[tuple[str, FilterFn]]:
        return self.framework.active_filters(state)

    @staticmethod
    def _filter(
        filters: list[tuple[str, FilterFn]], state: CycleState, pod: Pod, info: NodeInfo
    ) -> PredicateError | None:
        """The first failing Filter plugin and its reasons (``RunFilterPlugins``); a plugin
        error counts as a failure with its message."""
        for name, fn in filters:
            status = fn(state, pod, info)
            if status is not None and status.code is not Code.SUCCESS:
                return PredicateError(name, status.reasons)
        return None

    def check(self, snapshot: ClusterSnapshot, pod: Pod, node_name: str) -> PredicateError | None:
        """None if ``pod`` passes PreFilter and Filter on ``node_name``."""
        info = snapshot.get(node_name)
        if info is None:
            raise KeyError(node_name)
        pre = self._pre_filter(snapshot, pod)
        if pre is None:
            return _PRE_FILTER_REJECTED
        state, _ = pre
        return self._filter(self._filters(state), state, pod, info)

    def _signature(self, pod: Pod, filters: list[tuple[str, FilterFn]]) -> _Signature:
        """What the static plugins among ``filters`` read of a pod (and which run)."""
        na = pod.affinity.node_affinity if pod.affinity else None
        selector = None if pod.node_selector is None else tuple(pod.node_selector.items())
        names = tuple(name for name, _ in filters if name in _STATIC)
        return (names, pod.node_name, pod.tolerations, selector, na)

    def _static_mask(
        self,
        snapshot: ClusterSnapshot,
        signature: _Signature,
        static: _Static,
        check: Callable[[NodeInfo], bool],
    ) -> list[bool]:
        """Per node of ``snapshot``, in its order: not ``spec.unschedulable`` and passed by the
        static plugins (kept while the snapshot's nodes stay the same)."""
        known = self._masks.get(signature)
        if known is not None and known[0] is snapshot.nodes_version:
            return known[1]
        mask = []
        for info in snapshot.list():
            node = info.node
            mask.append(
                node is not None
                and not node.unschedulable
                and self._static_ok(static, info, node, check)
            )
        self._masks[signature] = (snapshot.nodes_version, mask)
        return mask

    @staticmethod
    def _static_ok(
        static: _Static, info: NodeInfo, node: Node, check: Callable[[NodeInfo], bool]
    ) -> bool:
        known = static.get(info.name)
        if known is None or known[0] is not node:
            known = (node, check(info))
            static[info.name] = known
        return known[1]

    def first_fit(
        self,
        snapshot: ClusterSnapshot,
        pod: Pod,
        among: Collection[str] | None = None,
        where: Sequence[bool] | None = None,
    ) -> str | None:
        """The first node, in the snapshot's order, that ``pod`` fits; None if none does.
        ``among``: only these nodes; ``where`` (not with ``among``): a flag per node of the
        snapshot, in its order — only the flagged ones."""
        if where is not None and (among is not None or len(where) != len(snapshot)):
            raise ValueError("first_fit: `where` needs a flag per node, and no `among`")
        pre = self._pre_filter(snapshot, pod)
        if pre is None:
            return None
        state, result = pre
        allowed = None if result is None else result.node_names
        filters = self._filters(state)
        static_filters = [(name, fn) for name, fn in filters if name in _STATIC]
        signature = self._signature(pod, filters)
        static = self._static.setdefault(signature, {})

        def static_check(info: NodeInfo) -> bool:
            return self._filter(static_filters, state, pod, info) is None

        # NodeResourcesFit, as its PreFilter computed the request: the pod count always, cpu
        # and memory when requested (> 0)
        request = state.read_as(_FIT_REQUEST_KEY, node_resources_fit._Request)
        fit = request is not None and any(name == node_resources_fit.NAME for name, _ in filters)
        cpu = request.cpu if request is not None and fit else 0
        memory = request.memory if request is not None and fit else 0
        infos: Iterable[NodeInfo]
        if among is None:  # the nodes the static plugins pass and with the cpu (C loops)
            keep: Iterable[bool] = self._static_mask(snapshot, signature, static, static_check)
            if where is not None:
                keep = map(operator.and_, keep, where)
            if cpu > 0:
                keep = map(operator.and_, keep, map(cpu.__le__, snapshot.free_cpu()))
            infos = itertools.compress(snapshot.list(), keep)
        else:
            infos = snapshot.in_order(among)
        for info in infos:
            node = info.node
            if node is None or node.unschedulable:
                continue
            if fit:
                if len(info.pods) >= info.allowed_pod_number:
                    continue
                free, used = info.allocatable, info.requested
                if cpu > 0 and cpu > free.get("cpu", 0) - used.get("cpu", 0):
                    continue
                if memory > 0 and memory > free.get("memory", 0) - used.get("memory", 0):
                    continue
            if not self._static_ok(static, info, node, static_check):
                continue
            if allowed is not None and info.name not in allowed:
                continue
            if self._filter(filters, state, pod, info) is None:
                return info.name
        return None
