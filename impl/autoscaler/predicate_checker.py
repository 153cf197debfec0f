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
- ``first_fit(snapshot, pod, accept)`` is ``RunFiltersUntilPassingNode``: PreFilter once, then
  the nodes in the snapshot's order, skipping ``spec.unschedulable`` nodes, nodes PreFilter left
  out and nodes ``accept`` refuses; the first that passes wins. Upstream starts at a rotating
  index and searches in parallel: **declared**, name order, no rotation.

Neither runs the nominated-pods pass of kube-scheduler's ``RunFilterPluginsWithNominatedPods``:
CA calls ``RunFilterPlugins``. The plugins are impl's default profile (CA builds its framework
from the default ``KubeSchedulerConfiguration``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from schedspec.impl.api import Pod
from schedspec.impl.apiserver import APIServer
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot
from schedspec.impl.framework.config import parse_config
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.runtime import FilterFn, Framework, FrameworkHandle
from schedspec.impl.framework.status import Code
from schedspec.impl.framework.types import NodeInfo, PreFilterResult
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins import in_tree_registry

__all__ = ["PredicateChecker", "PredicateError"]


@dataclass(frozen=True, slots=True)
class PredicateError:
    """Why a pod does not fit a node: ``plugin`` None means PreFilter rejected it."""

    plugin: str | None
    reasons: tuple[str, ...]


_PRE_FILTER_REJECTED = PredicateError(None, ())


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

    def _pre_filter(
        self, snapshot: ClusterSnapshot, pod: Pod
    ) -> tuple[CycleState, PreFilterResult | None] | None:
        self._lister.delegate = snapshot
        state = CycleState()
        result, status, _ = self.framework.run_pre_filter_plugins(state, pod, snapshot.list())
        if status is not None and not status.is_success():
            return None
        return state, result

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

    def first_fit(
        self,
        snapshot: ClusterSnapshot,
        pod: Pod,
        accept: Callable[[str], bool] = lambda _: True,
    ) -> str | None:
        """The first node, in the snapshot's order, that ``pod`` fits; None if none does."""
        pre = self._pre_filter(snapshot, pod)
        if pre is None:
            return None
        state, result = pre
        allowed = None if result is None else result.node_names
        filters = self._filters(state)
        for info in snapshot.list():
            node = info.node
            if node is None or node.unschedulable or not accept(info.name):
                continue
            if allowed is not None and info.name not in allowed:
                continue
            if self._filter(filters, state, pod, info) is None:
                return info.name
        return None
