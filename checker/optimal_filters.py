"""impl's Filter plugins as ``schedspec optimal`` asks them: per pod and node on a fixed state,
and along a sequence of bindings.

:class:`Filters` holds a ``ClusterSnapshot`` (the nodes and the pods bound so far) and impl's
framework built from the default profile of kube-scheduler v1.34
(``pkg/scheduler/apis/config/v1/default_plugins.go``), with the snapshot as its shared lister —
the same arrangement cluster-autoscaler uses to embed the scheduler
(:mod:`schedspec.impl.autoscaler.predicate_checker`). ``verdicts(pod)`` runs PreFilter once and
every Filter plugin on every node, as ``findNodesThatPassFilters`` does
(``pkg/scheduler/schedule_one.go``) without the nominated-pods pass (the optimum nominates no
one). Nothing here re-implements a rule: every answer is a plugin's.

:func:`find_order` is the replay that validates a placement: it binds the pods one at a time,
each only where every Filter plugin passes it given the pods bound before it, searching the
orders depth first (required pod affinity's first-pod-of-a-group rule and topology spread's
skew depend on what is already bound). It returns an order, or None when no order exists, or
raises :class:`OrderBudgetExceeded` when it gave up looking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from schedspec.impl.api import Node, Pod
from schedspec.impl.apiserver import APIServer
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot
from schedspec.impl.framework.config import parse_config
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.runtime import Framework, FrameworkHandle
from schedspec.impl.framework.status import Code
from schedspec.impl.framework.types import NodeInfo
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins import in_tree_registry

__all__ = [
    "Filters",
    "OrderBudgetExceeded",
    "Rejection",
    "find_order",
    "replays_in_order",
    "what_passes",
]


@dataclass(frozen=True, slots=True)
class Rejection:
    """The first Filter plugin that rejects (None: PreFilter rejected the pod) and its reasons."""

    plugin: str | None
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        where = self.plugin or "PreFilter"
        return f"{where}: {', '.join(self.reasons)}" if self.reasons else where


class OrderBudgetExceeded(Exception):
    """:func:`find_order` tried as many filter runs as it was allowed without an answer."""


class Filters:
    """The default profile's PreFilter and Filter plugins over a snapshot that can grow."""

    def __init__(
        self,
        nodes: Sequence[Node],
        bound: Sequence[Pod],
        namespaces: Mapping[str, Mapping[str, str]],
    ) -> None:
        self.snapshot = ClusterSnapshot()
        for node in nodes:
            self.snapshot.add_node(node)
        for pod in bound:
            if pod.node_name in self.snapshot:
                self.snapshot.add_pod(pod, pod.node_name)
        loop = EventLoop()
        handle = FrameworkHandle(self, loop, APIServer(loop), lambda: namespaces)
        self.framework = Framework(parse_config(None).profiles[0], in_tree_registry(), handle)
        self.runs = 0

    # the framework's SharedLister: whatever the snapshot holds now
    def list(self) -> Sequence[NodeInfo]:
        return self.snapshot.list()

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return self.snapshot.have_pods_with_affinity_list()

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return self.snapshot.have_pods_with_required_anti_affinity_list()

    def get(self, node_name: str) -> NodeInfo | None:
        return self.snapshot.get(node_name)

    def verdicts(self, pod: Pod, only: Sequence[str] | None = None) -> dict[str, Rejection | None]:
        """Per node (``only`` these, default all): None if ``pod`` passes PreFilter and every
        Filter plugin there on the current snapshot, else the first rejection."""
        self.runs += 1
        names = list(only) if only is not None else list(self.snapshot.node_names())
        state = CycleState()
        result, status, _ = self.framework.run_pre_filter_plugins(state, pod, self.list())
        if status is not None and not status.is_success():
            rejected = Rejection(None, tuple(status.reasons))
            return dict.fromkeys(names, rejected)
        allowed = None if result is None else result.node_names
        filters = self.framework.active_filters(state)
        out: dict[str, Rejection | None] = {}
        for name in names:
            info = self.snapshot.get(name)
            if info is None or info.node is None:
                raise KeyError(name)
            if allowed is not None and name not in allowed:
                out[name] = Rejection(None, ("PreFilter filtered the node out",))
                continue
            out[name] = None
            for plugin, fn in filters:
                status = fn(state, pod, info)
                if status is not None and status.code is not Code.SUCCESS:
                    out[name] = Rejection(plugin, tuple(status.reasons))
                    break
        return out

    def pre_filter_rejection(self, pod: Pod) -> Rejection | None:
        """The rejection when a PreFilter plugin turns ``pod`` away (its own spec is at fault:
        a selector that does not parse, conflicting node affinity), else None."""
        _, status, _ = self.framework.run_pre_filter_plugins(CycleState(), pod, self.list())
        if status is not None and not status.is_success():
            return Rejection(None, tuple(status.reasons))
        return None

    def passes(self, pod: Pod, node: str) -> bool:
        return self.verdicts(pod, (node,))[node] is None

    def bind(self, pod: Pod, node: str) -> None:
        self.snapshot.add_pod(pod, node)

    def unbind(self, pod: Pod, node: str) -> None:
        self.snapshot.remove_pod(pod, node)


def find_order(
    filters: Filters, placement: Sequence[tuple[Pod, str]], budget: int = 20000
) -> list[tuple[Pod, str]] | None:
    """An order of ``placement`` in which each pod passes every filter on its node given the
    ones before it (``filters``' snapshot is left as it was). None: no order exists. Raises
    :class:`OrderBudgetExceeded` after ``budget`` filter runs without an answer.

    First in passes: each pod that passes now is bound, the others wait for the next pass,
    until all are bound or a pass binds none — binding a pod that passes never makes another
    fail on resources, pod count, host ports or anti-affinity (the final state decides those),
    so this settles most placements in a few passes. If it stalls, a depth-first search over
    the orders decides: at each step the first pod (in the order given) that passes now is
    bound, and a set of bound pods from which no order was found is not tried twice (required
    affinity's first-pod rule and topology spread's skew are what make an order matter)."""
    start = filters.runs
    order: list[int] = []
    try:
        left = list(range(len(placement)))
        while left:
            waiting = []
            for i in left:
                if filters.runs - start >= budget:
                    raise OrderBudgetExceeded
                pod, node = placement[i]
                if filters.passes(pod, node):
                    filters.bind(pod, node)
                    order.append(i)
                else:
                    waiting.append(i)
            if len(waiting) == len(left):
                break
            left = waiting
        if len(order) < len(placement):
            _unbind(filters, placement, order)
            order = []
            if not _search(filters, placement, order, start, budget):
                return None
        found = [placement[i] for i in order]
    finally:
        _unbind(filters, placement, order)
    return found


def replays_in_order(filters: Filters, placement: Sequence[tuple[Pod, str]]) -> bool:
    """Each binding of ``placement``, in this order, passes given the ones before it."""
    order: list[int] = []
    try:
        return all(
            _bind_if_passes(filters, binding, order, i) for i, binding in enumerate(placement)
        )
    finally:
        _unbind(filters, placement, order)


def what_passes(filters: Filters, placement: Sequence[tuple[Pod, str]]) -> list[tuple[Pod, str]]:
    """The bindings of ``placement`` that pass, taken in order and in passes until a pass adds
    none: a valid placement (each passed given the ones before it), maybe not all of it."""
    order: list[int] = []
    try:
        left = list(range(len(placement)))
        while left:
            waiting = [i for i in left if not _bind_if_passes(filters, placement[i], order, i)]
            if len(waiting) == len(left):
                break
            left = waiting
        return [placement[i] for i in order]
    finally:
        _unbind(filters, placement, order)


def _bind_if_passes(filters: Filters, binding: tuple[Pod, str], order: list[int], i: int) -> bool:
    pod, node = binding
    if not filters.passes(pod, node):
        return False
    filters.bind(pod, node)
    order.append(i)
    return True


def _unbind(filters: Filters, placement: Sequence[tuple[Pod, str]], order: list[int]) -> None:
    for i in reversed(order):
        pod, node = placement[i]
        filters.unbind(pod, node)


def _search(
    filters: Filters,
    placement: Sequence[tuple[Pod, str]],
    order: list[int],
    start: int,
    budget: int,
) -> bool:
    dead: set[frozenset[int]] = set()
    bound: set[int] = set()

    def search() -> bool:
        if len(order) == len(placement):
            return True
        key = frozenset(bound)
        if key in dead:
            return False
        for i, (pod, node) in enumerate(placement):
            if i in bound:
                continue
            if filters.runs - start >= budget:
                raise OrderBudgetExceeded
            if not filters.passes(pod, node):
                continue
            filters.bind(pod, node)
            order.append(i)
            bound.add(i)
            if search():
                return True
            filters.unbind(pod, node)
            order.pop()
            bound.discard(i)
        dead.add(key)
        return False

    return search()
