"""PodTopologySpread: DoNotSchedule constraints filter, ScheduleAnyway constraints score.

Mirrors ``pkg/scheduler/framework/plugins/podtopologyspread/`` (``common.go``,
``filtering.go``, ``scoring.go``; v1.34, NodeInclusionPolicy and matchLabelKeys on).

Filter, per hard constraint ``c`` (selector with matchLabelKeys merged): count, per topology
value, the pods in the pod's namespace, not terminating, matching the selector (an empty
selector counts nothing) on *eligible* nodes — nodes carrying every constraint's key and, per
``nodeAffinityPolicy: Honor`` (default) / ``nodeTaintsPolicy: Honor`` (default Ignore), matching
the pod's required node affinity / tolerating its NoSchedule taints. A node without the key fails
UnschedulableAndUnresolvable; otherwise ``count(value) + [pod matches] − min ≤ maxSkew`` where
``min`` is 0 when fewer than ``minDomains`` domains exist, else the least count; failure is
Unschedulable.

Score (ScheduleAnyway constraints): per filtered node ``Σ_c count·ln(#domains + 2) + maxSkew − 1``
(hostname: the node's own count and #filtered nodes), rounded; nodes missing a key are ignored
(score 0); then ``100·(max + min − s)/max``.

A pod without constraints of its own gets the profile's default constraints (``defaultingType``
System: hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway; List: ``defaultConstraints``) with
the selector deduced from the Services and the controller selecting it (:mod:`.spread_defaults`,
listed through the handle's API client), none when that selector is empty. Under the system
defaults, PreScore does not require nodes to carry every key: a node without the zone label is
still scored for hostname spreading. ``fits``/``fits_on`` read the pod's own constraints only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from schedspec.impl.api import Node, Pod
from schedspec.impl.api.selectors import Selector, compile_label_selector, label_selector_error
from schedspec.impl.api.types import TopologySpreadConstraint
from schedspec.impl.framework.args import check_fields, get_list, get_str
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.events import (
    NODE,
    POD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventObject,
    QueueingHint,
)
from schedspec.impl.framework.helpers import DO_NOT_SCHEDULE_EFFECTS, find_untolerated_taint, go_div
from schedspec.impl.framework.interface import Handle, implements
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import (
    MAX_NODE_SCORE,
    NodeInfo,
    NodeScore,
    PodInfo,
    PreFilterResult,
)
from schedspec.impl.plugins.node_affinity import RequiredNodeAffinity
from schedspec.impl.plugins.spread_defaults import default_constraints, default_selector
from schedspec.impl.plugins.spread_tally import ChangeLog, Share, Tallies

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PodTopologySpread",
    "fits",
    "fits_on",
]

NAME = "PodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
HOSTNAME = "kubernetes.io/hostname"


@dataclass(frozen=True, slots=True)
class _Constraint:
    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int
    honor_affinity: bool
    honor_taints: bool


def _constraint(c: TopologySpreadConstraint, selector: Selector) -> _Constraint:
    return _Constraint(
        c.max_skew,
        c.topology_key,
        selector,
        c.min_domains or 1,
        c.node_affinity_policy == "Honor",
        c.node_taints_policy == "Honor",
    )


def _constraints(pod: Pod, when: str) -> list[_Constraint]:
    """The pod's own constraints of action ``when`` (``filterTopologySpreadConstraints``)."""
    return [
        _constraint(c, compile_label_selector(c.label_selector))
        for c in pod.topology_spread_constraints
        if c.when_unsatisfiable == when
    ]


def _constraints_error(pod: Pod, when: str) -> str | None:
    """Why PreFilter (``when`` DoNotSchedule) or PreScore (ScheduleAnyway) cannot build the
    pod's constraints: a label selector ``LabelSelectorAsSelector`` refuses (plugin.go
    ``filterTopologySpreadConstraints``). The loader warns about such selectors; kube-scheduler
    answers the cycle with Error. The spec's twin is ``SpreadValid(p, action)``."""
    for i, c in enumerate(pod.topology_spread_constraints):
        if c.when_unsatisfiable == when:
            why = label_selector_error(c.label_selector)
            if why is not None:
                return f"topologySpreadConstraints[{i}].labelSelector: {why}"
    return None


def _has_all_keys(node: Node, constraints: Sequence[_Constraint]) -> bool:
    return all(c.topology_key in node.labels for c in constraints)


def _included(c: _Constraint, pod: Pod, node: Node, required: RequiredNodeAffinity) -> bool:
    """``matchNodeInclusionPolicies``."""
    if c.honor_affinity and not required.matches(node):
        return False
    return not (
        c.honor_taints
        and find_untolerated_taint(node.taints, pod.tolerations, DO_NOT_SCHEDULE_EFFECTS)
        is not None
    )


def count_pods_match_selector(pods: Sequence[PodInfo], selector: Selector, namespace: str) -> int:
    """Pods of ``namespace``, not terminating, matching ``selector`` (empty selector → 0)."""
    if selector.empty:
        return 0
    return sum(
        1
        for p in pods
        if p.pod.deletion_timestamp is None
        and p.pod.namespace == namespace
        and selector.matches(p.pod.labels)
    )


_DERIVED_LIMIT = 64  # selectors remembered per node before it starts afresh


def _count_on(ni: NodeInfo, selector: Selector, namespace: str) -> int:
    """``count_pods_match_selector`` over ``ni``'s pods, remembered on ``ni`` until its pods
    change (``NodeInfo.derived``): a cycle recounts only the nodes whose pods changed since
    the last cycle that asked the same question, not every pod of the cluster."""
    derived = ni.derived
    key = (NAME, selector.key, namespace)
    n: int | None = derived.get(key)
    if n is None:
        if len(derived) >= _DERIVED_LIMIT:
            derived.clear()
        n = derived[key] = count_pods_match_selector(ni.pods, selector, namespace)
    return n


# ------------------------------------------------------------------------------ filtering


class _PreFilterState:
    __slots__ = ("constraints", "counts", "self_match")

    def __init__(
        self, constraints: list[_Constraint], counts: list[dict[str, int]], self_match: list[int]
    ) -> None:
        self.constraints, self.counts, self.self_match = constraints, counts, self_match

    def clone(self) -> _PreFilterState:
        return _PreFilterState(self.constraints, [dict(c) for c in self.counts], self.self_match)

    def min_match(self, i: int) -> int:
        counts = self.counts[i]
        if len(counts) < self.constraints[i].min_domains:
            return 0
        return min(counts.values(), default=0)


def _pre_filter_state(
    pod: Pod, nodes: Sequence[NodeInfo], constraints: list[_Constraint]
) -> _PreFilterState:
    counts: list[dict[str, int]] = [{} for _ in constraints]
    required = RequiredNodeAffinity(pod)
    for ni in nodes:
        node = ni.node
        if node is None or not _has_all_keys(node, constraints):
            continue
        for i, c in enumerate(constraints):
            if not _included(c, pod, node, required):
                continue
            value = node.labels[c.topology_key]
            n = _count_on(ni, c.selector, pod.namespace)
            counts[i][value] = counts[i].get(value, 0) + n
    self_match = [int(c.selector.matches(pod.labels)) for c in constraints]
    return _PreFilterState(constraints, counts, self_match)


def _pod_independent(pod: Pod, constraints: Sequence[_Constraint]) -> bool:
    """Whether which nodes count is the same for every pod: no policy to honour depends on
    ``pod`` (its required node affinity matches every node; no taints policy)."""
    if any(c.honor_taints for c in constraints):
        return False
    return not any(c.honor_affinity for c in constraints) or RequiredNodeAffinity(pod).matches_all


def _share_of(
    constraints: Sequence[_Constraint], namespace: str
) -> Callable[[NodeInfo], Share | None]:
    """What one node adds to ``_pre_filter_state``'s counts when inclusion is pod-independent."""

    def share(ni: NodeInfo) -> Share | None:
        node = ni.node
        if node is None or not _has_all_keys(node, constraints):
            return None
        labels = node.labels
        return tuple(
            (labels[c.topology_key], _count_on(ni, c.selector, namespace)) for c in constraints
        )

    return share


def _filter(s: _PreFilterState, node: Node) -> Status | None:
    for i, c in enumerate(s.constraints):
        value = node.labels.get(c.topology_key)
        if value is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NODE_LABEL_NOT_MATCH,))
        skew = s.counts[i].get(value, 0) + s.self_match[i] - s.min_match(i)
        if skew > c.max_skew:
            return Status(Code.UNSCHEDULABLE, (ERR_REASON_CONSTRAINTS_NOT_MATCH,))
    return None


def fits(pod: Pod, node_info: NodeInfo, all_nodes: Sequence[NodeInfo]) -> bool:
    """The DoNotSchedule constraints of ``pod`` hold on ``node_info`` given ``all_nodes``
    (never when one of their selectors is invalid: PreFilter errors)."""
    return fits_on(pod, all_nodes)(node_info)


def fits_on(pod: Pod, all_nodes: Sequence[NodeInfo]) -> Callable[[NodeInfo], bool]:
    """:func:`fits` for ``pod`` on each node in turn: the counts per domain depend on the pod
    and ``all_nodes`` only, so they are made once (PreFilter) and each call filters one node."""
    return _fits_on(pod, all_nodes, _constraints(pod, "DoNotSchedule"))


def _fits_on(
    pod: Pod, all_nodes: Sequence[NodeInfo], constraints: list[_Constraint]
) -> Callable[[NodeInfo], bool]:
    if _constraints_error(pod, "DoNotSchedule") is not None:
        return lambda node_info: False
    s = _pre_filter_state(pod, all_nodes, constraints)
    return lambda node_info: node_info.node is not None and _filter(s, node_info.node) is None


# ------------------------------------------------------------------------------ scoring


class _PreScoreState:
    __slots__ = ("constraints", "ignored", "require_all", "topology_counts", "weights")

    def __init__(self, constraints: list[_Constraint], require_all: bool) -> None:
        self.constraints = constraints
        self.require_all = require_all
        self.ignored: set[str] = set()
        self.topology_counts: list[dict[str, int]] = []
        self.weights: list[float] = []

    def clone(self) -> _PreScoreState:
        return self


def _init_pre_score(s: _PreScoreState, filtered: Sequence[NodeInfo]) -> None:
    """Without ``require_all`` (system defaults) a node missing a key is scored, and counts
    toward the domain "" of that key."""
    s.topology_counts = [{} for _ in s.constraints]
    sizes = [0] * len(s.constraints)
    for ni in filtered:
        node = ni.node
        if node is None or (s.require_all and not _has_all_keys(node, s.constraints)):
            s.ignored.add(ni.name)
            continue
        for i, c in enumerate(s.constraints):
            if c.topology_key == HOSTNAME:
                continue
            value = node.labels.get(c.topology_key, "")
            if value not in s.topology_counts[i]:
                s.topology_counts[i][value] = 0
                sizes[i] += 1
    for i, c in enumerate(s.constraints):
        size = len(filtered) - len(s.ignored) if c.topology_key == HOSTNAME else sizes[i]
        s.weights.append(math.log(size + 2))


def _count_all_nodes(s: _PreScoreState, pod: Pod, nodes: Sequence[NodeInfo]) -> None:
    required = RequiredNodeAffinity(pod)
    for ni in nodes:
        node = ni.node
        if node is None or (s.require_all and not _has_all_keys(node, s.constraints)):
            continue
        for i, c in enumerate(s.constraints):
            if not _included(c, pod, node, required):
                continue
            value = node.labels.get(c.topology_key, "")
            counts = s.topology_counts[i]
            if value in counts:
                counts[value] += _count_on(ni, c.selector, pod.namespace)


def _raw_score(s: _PreScoreState, pod: Pod, ni: NodeInfo) -> int:
    node = ni.node
    if node is None or ni.name in s.ignored:
        return 0
    total = 0.0
    for i, c in enumerate(s.constraints):
        value = node.labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == HOSTNAME:
            count = _count_on(ni, c.selector, pod.namespace)
        else:
            count = s.topology_counts[i].get(value, 0)
        total += count * s.weights[i] + (c.max_skew - 1)
    return _round_half_away(total)


def _round_half_away(x: float) -> int:
    """Go's ``math.Round`` (half away from zero), unlike Python's banker's rounding."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


# ------------------------------------------------------------------------------ the plugin

_PRE_FILTER_KEY = "PreFilter" + NAME
_PRE_SCORE_KEY = "PreScore" + NAME


def _involved(other: Pod, pod: Pod) -> bool:
    """``involvedInTopologySpreading``: the pod itself, or an assigned pod of its namespace."""
    return other.uid == pod.uid or (bool(other.node_name) and other.namespace == pod.namespace)


class PodTopologySpread:
    def __init__(
        self,
        handle: Handle,
        defaults: tuple[TopologySpreadConstraint, ...] = (),
        system_defaulted: bool = False,
    ) -> None:
        self._handle = handle
        self._defaults, self._system_defaulted = defaults, system_defaulted
        self._tallies = Tallies()

    def _constraints(self, pod: Pod, when: str) -> list[_Constraint]:
        """``getConstraints`` / the constraints of ``initPreScoreState``: the pod's own; for a
        pod with none, the profile's defaults of action ``when`` with the selector deduced from
        what selects the pod (``buildDefaultConstraints``), none when that selector is empty."""
        if pod.topology_spread_constraints:
            return _constraints(pod, when)
        chosen = [c for c in self._defaults if c.when_unsatisfiable == when]
        if not chosen:
            return []
        selector = default_selector(pod, self._handle.client())
        return [] if selector.empty else [_constraint(c, selector) for c in chosen]

    def _hard_constraints(self, pod: Pod) -> list[_Constraint]:
        """``getConstraints``: the DoNotSchedule constraints (the only ones that reject)."""
        return self._constraints(pod, "DoNotSchedule")

    def fits_on(self, pod: Pod, all_nodes: Sequence[NodeInfo]) -> Callable[[NodeInfo], bool]:
        """The module's :func:`fits_on` with this profile's default constraints."""
        return _fits_on(pod, all_nodes, self._hard_constraints(pod))

    def name(self) -> str:
        return NAME

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        why = _constraints_error(pod, "DoNotSchedule")
        if why is not None:
            return None, Status(Code.ERROR, (f"get constraints from pod: {why}",))
        constraints = self._hard_constraints(pod)
        if not constraints:
            return None, Status(Code.SKIP)
        state.write(_PRE_FILTER_KEY, self._pre_filter_state(pod, nodes, constraints))
        return None, None

    def _pre_filter_state(
        self, pod: Pod, nodes: Sequence[NodeInfo], constraints: list[_Constraint]
    ) -> _PreFilterState:
        """``_pre_filter_state``, from the counts kept since the last cycle (:mod:`.spread_tally`)
        when ``nodes`` is the snapshot's list and which nodes count does not depend on the pod."""
        handle = self._handle  # None in some unit tests, which give the nodes directly
        lister = handle.snapshot_shared_lister() if handle is not None else None
        # per lister type: a Protocol check costs microseconds
        snapshot = cast(ChangeLog, lister) if implements(lister, ChangeLog) else None
        if (
            snapshot is None
            or nodes is not snapshot.list()
            or not _pod_independent(pod, constraints)
        ):
            return _pre_filter_state(pod, nodes, constraints)
        question = (tuple((c.topology_key, c.selector.key) for c in constraints), pod.namespace)
        share = _share_of(constraints, pod.namespace)
        counts = self._tallies.counts(question, len(constraints), snapshot, share)
        self_match = [int(c.selector.matches(pod.labels)) for c in constraints]
        return _PreFilterState(constraints, counts, self_match)

    def pre_filter_extensions(self) -> PodTopologySpread:
        return self

    def _update(
        self, state: CycleState, pod: Pod, other: PodInfo, node_info: NodeInfo, delta: int
    ) -> None:
        s = state.read_as(_PRE_FILTER_KEY, _PreFilterState)
        node = node_info.node
        if s is None or node is None or other.pod.namespace != pod.namespace:
            return
        if not _has_all_keys(node, s.constraints):
            return
        required = RequiredNodeAffinity(pod)
        for i, c in enumerate(s.constraints):
            if c.selector.matches(other.pod.labels) and _included(c, pod, node, required):
                value = node.labels[c.topology_key]
                s.counts[i][value] = s.counts[i].get(value, 0) + delta

    def add_pod(
        self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        self._update(state, pod, to_add, node_info, 1)
        return None

    def remove_pod(
        self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        self._update(state, pod, to_remove, node_info, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return None
        s = state.read_as(_PRE_FILTER_KEY, _PreFilterState)
        if s is None:
            nodes = self._handle.snapshot_shared_lister().list()
            s = _pre_filter_state(pod, nodes, self._hard_constraints(pod))
        return _filter(s, node)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        all_nodes = self._handle.snapshot_shared_lister().list()
        if not nodes or not all_nodes:
            return Status(Code.SKIP)
        why = _constraints_error(pod, "ScheduleAnyway")
        if why is not None:
            return Status(Code.ERROR, (f"calculating preScoreState: {why}",))
        # "Only require that nodes have all the topology labels if using non-system-default
        # spreading rules" (scoring.go PreScore)
        require_all = bool(pod.topology_spread_constraints) or not self._system_defaulted
        s = _PreScoreState(self._constraints(pod, "ScheduleAnyway"), require_all)
        _init_pre_score(s, nodes)
        if not s.constraints:
            return Status(Code.SKIP)
        _count_all_nodes(s, pod, all_nodes)
        state.write(_PRE_SCORE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.read_as(_PRE_SCORE_KEY, _PreScoreState)
        if s is None:
            return 0, Status(Code.ERROR, ("reading PreScorePodTopologySpread from cycleState",))
        return _raw_score(s, pod, node_info), None

    def score_extensions(self) -> PodTopologySpread:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        s = state.read_as(_PRE_SCORE_KEY, _PreScoreState)
        if s is None:
            return None
        kept = [x.score for x in scores if x.name not in s.ignored]
        low, high = min(kept, default=0), max(kept, default=0)
        for x in scores:
            if x.name in s.ignored:
                x.score = 0
            elif high == 0:
                x.score = MAX_NODE_SCORE
            else:
                x.score = go_div(MAX_NODE_SCORE * (high + low - x.score), high)
        return None

    # ---- QueueingHints (podtopologyspread/plugin.go EventsToRegister, isSchedulableAfter*)

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        pod_action = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
        if queueing_hints:
            pod_action |= ActionType.UPDATE_POD_TOLERATION
        node_action = (
            ActionType.ADD
            | ActionType.DELETE
            | ActionType.UPDATE_NODE_LABEL
            | ActionType.UPDATE_NODE_TAINT
        )
        return [
            ClusterEventWithHint(
                ClusterEvent(POD, pod_action), self.is_schedulable_after_pod_change
            ),
            ClusterEventWithHint(
                ClusterEvent(NODE, node_action), self.is_schedulable_after_node_change
            ),
        ]

    def is_schedulable_after_pod_change(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Queue when a pod of the same namespace on a node (or the pod itself) is added,
        deleted or relabelled in a way a constraint's selector sees."""
        if (old is not None and not isinstance(old, Pod)) or (
            new is not None and not isinstance(new, Pod)
        ):
            return QueueingHint.QUEUE
        if (new is not None and not _involved(new, pod)) or (
            old is not None and not _involved(old, pod)
        ):
            return QueueingHint.QUEUE_SKIP
        constraints = self._hard_constraints(pod)
        if new is not None and old is not None:
            if (
                new.uid == pod.uid
                and new.tolerations != old.tolerations
                and any(c.honor_taints for c in constraints)
            ):
                return QueueingHint.QUEUE
            if dict(new.labels) == dict(old.labels):
                return QueueingHint.QUEUE_SKIP
            changed = any(
                c.selector.matches(old.labels) != c.selector.matches(new.labels)
                for c in constraints
            )
            return QueueingHint.QUEUE if changed else QueueingHint.QUEUE_SKIP
        changed_pod = new if new is not None else old
        assert changed_pod is not None
        if any(c.selector.matches(changed_pod.labels) for c in constraints):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Queue when a node carrying every constraint's topology key appears or goes, gains
        or loses one of them, or changes a key's value or its taints."""
        if (old is not None and not isinstance(old, Node)) or (
            new is not None and not isinstance(new, Node)
        ):
            return QueueingHint.QUEUE
        constraints = self._hard_constraints(pod)
        was = old is not None and _has_all_keys(old, constraints)
        now = new is not None and _has_all_keys(new, constraints)
        if old is not None and new is not None:
            if was != now:
                return QueueingHint.QUEUE
            key_changed = any(
                old.labels.get(c.topology_key) != new.labels.get(c.topology_key)
                for c in constraints
            )
            if now and (key_changed or old.taints != new.taints):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if (now or was) else QueueingHint.QUEUE_SKIP

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> PodTopologySpread:
        check_fields(args, "PodTopologySpreadArgs", ("defaultConstraints", "defaultingType"))
        get_str(args, "defaultingType", "System", ("System", "List"))
        get_list(args, "defaultConstraints")
        defaults, system = default_constraints(args)
        return PodTopologySpread(handle, defaults, system)
