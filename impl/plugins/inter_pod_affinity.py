"""InterPodAffinity: required pod (anti-)affinity filters, preferred terms (and existing pods'
terms) score.

Mirrors ``pkg/scheduler/framework/plugins/interpodaffinity/`` (``filtering.go``,
``scoring.go``, ``plugin.go``; v1.34) and the ``AffinityTerm`` of kube-scheduler
``framework/types.go``. Terms default their namespaces to the owner's; the incoming pod's
``namespaceSelector`` is resolved against the Namespace objects at PreFilter/PreScore.

Filter = (1) ∧ (2) ∧ (3), on topology pair counts computed at PreFilter:

1. affinity: the node carries every term's topology key, and for every term the node's domain
   holds a pod matching *all* the terms — or no such pod exists anywhere and the pod matches its
   own terms (the first pod of a self-affine group); else UnschedulableAndUnresolvable;
2. anti-affinity: no term's domain (on the node) holds a pod matching that term; Unschedulable;
3. existing pods' required anti-affinity terms that match the pod repel it from their domains;
   Unschedulable.

Score: for each existing pod (all pods when the pod has preferred terms, else only pods with
affinity) add ±weight of the pod's preferred (anti-)affinity terms the existing pod matches,
``hardPodAffinityWeight`` for its required affinity terms the pod matches and ±weight of its
preferred terms the pod matches, into ``topologyScore[key][value of its node]``; a node scores
the sum over its labels; min-max normalized.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from schedspec.impl.api import Node, Pod
from schedspec.impl.api.selectors import NOTHING, label_selector_error
from schedspec.impl.framework.args import check_fields, get_bool, get_int
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
from schedspec.impl.framework.interface import Handle, implements
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import (
    MAX_NODE_SCORE,
    AffinityTerm,
    NodeInfo,
    NodeScore,
    PodInfo,
    PreFilterResult,
    WeightedAffinityTerm,
)
from schedspec.impl.plugins.affinity_sums import (
    ChangeLog,
    NodeSums,
    filter_share,
    score_share,
    term_key,
)

__all__ = [
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "NAME",
    "InterPodAffinity",
    "fits",
    "fits_on",
]

NAME = "InterPodAffinity"
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = (
    "node(s) didn't satisfy existing pods anti-affinity rules"
)
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

_Pair = tuple[str, str]
_Namespaces = Mapping[str, Mapping[str, str]]


def _merge_namespaces(term: AffinityTerm, namespaces: _Namespaces) -> AffinityTerm:
    """Resolve a non-empty namespaceSelector into the namespace list
    (``mergeAffinityTermNamespacesIfNotEmpty``); an empty (all) selector stays."""
    if term.namespace_selector.empty:
        return term
    selected = {n for n, labels in namespaces.items() if term.namespace_selector.matches(labels)}
    return replace(term, namespaces=term.namespaces | selected, namespace_selector=NOTHING)


def parse_error(pod: Pod) -> str | None:
    """Why upstream's ``framework.NewPodInfo`` fails on ``pod`` (None: it parses): a label or
    namespace selector of any of its pod (anti-)affinity terms, required or preferred, that
    ``metav1.LabelSelectorAsSelector`` refuses. Named as ``PodInfo.Update`` names them. The
    spec's twin is ``AffinityTermsValid``."""
    aff = pod.affinity
    if aff is None:
        return None
    lists = (
        ("requiredAffinityTerms", aff.pod_affinity, False),
        ("requiredAntiAffinityTerms", aff.pod_anti_affinity, False),
        ("preferredAffinityTerms", aff.pod_affinity, True),
        ("preferredAntiAffinityTerms", aff.pod_anti_affinity, True),
    )
    for name, kind, preferred in lists:
        if kind is None:
            continue
        terms = [w.term for w in kind.preferred] if preferred else list(kind.required)
        for t in terms:
            why = label_selector_error(t.label_selector) or label_selector_error(
                t.namespace_selector
            )
            if why is not None:
                return f"{name}: {why}"
    return None


def _incoming(pod: Pod, namespaces: _Namespaces) -> PodInfo:
    info = PodInfo(pod)
    info.required_affinity_terms = [
        _merge_namespaces(t, namespaces) for t in info.required_affinity_terms
    ]
    info.required_anti_affinity_terms = [
        _merge_namespaces(t, namespaces) for t in info.required_anti_affinity_terms
    ]
    info.preferred_affinity_terms = [
        WeightedAffinityTerm(_merge_namespaces(w.term, namespaces), w.weight)
        for w in info.preferred_affinity_terms
    ]
    info.preferred_anti_affinity_terms = [
        WeightedAffinityTerm(_merge_namespaces(w.term, namespaces), w.weight)
        for w in info.preferred_anti_affinity_terms
    ]
    return info


def _matches_all(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    return bool(terms) and all(t.matches(pod, None) for t in terms)


def _bump(counts: dict[_Pair, int], node: Node, key: str, delta: int) -> None:
    value = node.labels.get(key)
    if value is not None:
        pair = (key, value)
        counts[pair] = counts.get(pair, 0) + delta
        if counts[pair] == 0:
            del counts[pair]


# ------------------------------------------------------------------------------ filtering


class _PreFilterState:
    __slots__ = (
        "affinity_counts",
        "anti_affinity_counts",
        "existing_anti_affinity_counts",
        "ns_labels",
        "pod_info",
    )

    def __init__(self, pod_info: PodInfo, ns_labels: Mapping[str, str]) -> None:
        self.pod_info = pod_info
        self.ns_labels = ns_labels
        self.existing_anti_affinity_counts: dict[_Pair, int] = {}
        self.affinity_counts: dict[_Pair, int] = {}
        self.anti_affinity_counts: dict[_Pair, int] = {}

    def clone(self) -> _PreFilterState:
        copy = _PreFilterState(self.pod_info, self.ns_labels)
        copy.existing_anti_affinity_counts = dict(self.existing_anti_affinity_counts)
        copy.affinity_counts = dict(self.affinity_counts)
        copy.anti_affinity_counts = dict(self.anti_affinity_counts)
        return copy

    def update_with_pod(self, other: PodInfo, node: Node, delta: int) -> None:
        pod = self.pod_info.pod
        for term in other.required_anti_affinity_terms:
            if term.matches(pod, self.ns_labels):
                _bump(self.existing_anti_affinity_counts, node, term.topology_key, delta)
        self._count_incoming(other.pod, node, delta)

    def _count_incoming(self, existing: Pod, node: Node, delta: int) -> None:
        info = self.pod_info
        if _matches_all(info.required_affinity_terms, existing):
            for term in info.required_affinity_terms:
                _bump(self.affinity_counts, node, term.topology_key, delta)
        for term in info.required_anti_affinity_terms:
            if term.matches(existing, None):
                _bump(self.anti_affinity_counts, node, term.topology_key, delta)


def _pre_filter_state(
    pod: Pod, nodes: Sequence[NodeInfo], with_anti: Iterable[NodeInfo], namespaces: _Namespaces
) -> _PreFilterState:
    info = _incoming(pod, namespaces)
    s = _PreFilterState(info, namespaces.get(pod.namespace, {}))
    for ni in with_anti:
        if ni.node is None:
            continue
        for existing in ni.pods_with_required_anti_affinity:
            for term in existing.required_anti_affinity_terms:
                if term.matches(pod, s.ns_labels):
                    _bump(s.existing_anti_affinity_counts, ni.node, term.topology_key, 1)
    if info.required_affinity_terms or info.required_anti_affinity_terms:
        for ni in nodes:
            if ni.node is not None:
                for existing in ni.pods:
                    s._count_incoming(existing.pod, ni.node, 1)
    return s


def _satisfies_affinity(s: _PreFilterState, node: Node) -> bool:
    pods_exist = True
    for term in s.pod_info.required_affinity_terms:
        value = node.labels.get(term.topology_key)
        if value is None:
            return False
        if s.affinity_counts.get((term.topology_key, value), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    return not s.affinity_counts and _matches_all(
        s.pod_info.required_affinity_terms, s.pod_info.pod
    )


def _satisfies_anti_affinity(s: _PreFilterState, node: Node) -> bool:
    if not s.anti_affinity_counts:
        return True
    for term in s.pod_info.required_anti_affinity_terms:
        value = node.labels.get(term.topology_key)
        if value is not None and s.anti_affinity_counts.get((term.topology_key, value), 0) > 0:
            return False
    return True


def _satisfies_existing_anti_affinity(s: _PreFilterState, node: Node) -> bool:
    counts = s.existing_anti_affinity_counts
    return not counts or not any(counts.get(pair, 0) > 0 for pair in node.labels.items())


_REJECT_AFFINITY = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_AFFINITY_RULES_NOT_MATCH,)
)
_REJECT_ANTI = Status(Code.UNSCHEDULABLE, (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,))
_REJECT_EXISTING = Status(Code.UNSCHEDULABLE, (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,))


def _filter(s: _PreFilterState, node: Node) -> Status | None:
    if not _satisfies_affinity(s, node):
        return _REJECT_AFFINITY
    if not _satisfies_anti_affinity(s, node):
        return _REJECT_ANTI
    if not _satisfies_existing_anti_affinity(s, node):
        return _REJECT_EXISTING
    return None


def fits(
    pod: Pod,
    node_info: NodeInfo,
    all_nodes: Sequence[NodeInfo],
    namespaces: _Namespaces | None = None,
) -> bool:
    """(1) ∧ (2) ∧ (3) for ``pod`` on ``node_info``; ``namespaces`` maps name → labels."""
    return fits_on(pod, all_nodes, namespaces)(node_info)


def fits_on(
    pod: Pod, all_nodes: Sequence[NodeInfo], namespaces: _Namespaces | None = None
) -> Callable[[NodeInfo], bool]:
    """:func:`fits` for ``pod`` on each node in turn: the term counts per topology pair depend on
    the pod and ``all_nodes`` only, so they are made once (PreFilter) and each call filters one
    node. A pod whose terms do not parse fits nowhere (PreFilter rejects it)."""
    if parse_error(pod) is not None:
        return lambda node_info: False
    with_anti = [n for n in all_nodes if n.pods_with_required_anti_affinity]
    s = _pre_filter_state(pod, all_nodes, with_anti, namespaces or {})
    return lambda node_info: node_info.node is not None and _filter(s, node_info.node) is None


# ------------------------------------------------------------------------------ scoring


class _PreScoreState:
    __slots__ = ("topology_score",)

    def __init__(self, topology_score: dict[str, dict[str, int]]) -> None:
        self.topology_score = topology_score

    def clone(self) -> _PreScoreState:
        return self


def _add(
    score: dict[str, dict[str, int]],
    term: AffinityTerm,
    weight: int,
    pod: Pod,
    ns_labels: Mapping[str, str] | None,
    node: Node,
) -> None:
    if term.matches(pod, ns_labels):
        value = node.labels.get(term.topology_key)
        if value is not None:
            by_value = score.setdefault(term.topology_key, {})
            by_value[value] = by_value.get(value, 0) + weight


def _process_existing(
    score: dict[str, dict[str, int]],
    incoming: PodInfo,
    existing: PodInfo,
    node: Node,
    ns_labels: Mapping[str, str],
    hard_weight: int,
) -> None:
    if not node.labels:
        return
    pod = incoming.pod
    for w in incoming.preferred_affinity_terms:
        _add(score, w.term, w.weight, existing.pod, None, node)
    for w in incoming.preferred_anti_affinity_terms:
        _add(score, w.term, -w.weight, existing.pod, None, node)
    if hard_weight > 0:
        for t in existing.required_affinity_terms:
            _add(score, t, hard_weight, pod, ns_labels, node)
    for w in existing.preferred_affinity_terms:
        _add(score, w.term, w.weight, pod, ns_labels, node)
    for w in existing.preferred_anti_affinity_terms:
        _add(score, w.term, -w.weight, pod, ns_labels, node)


def _normalize(scores: list[NodeScore]) -> None:
    if not scores:
        return
    low, high = min(s.score for s in scores), max(s.score for s in scores)
    diff = high - low
    for s in scores:
        s.score = int(MAX_NODE_SCORE * ((s.score - low) / diff)) if diff > 0 else 0


# ------------------------------------------------------------------------------ the plugin

_PRE_FILTER_KEY = "PreFilter" + NAME
_PRE_SCORE_KEY = "PreScore" + NAME


class InterPodAffinity:
    def __init__(
        self, handle: Handle, hard_weight: int = 1, ignore_existing_preferred: bool = False
    ) -> None:
        self._handle = handle
        self.hard_pod_affinity_weight = hard_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_existing_preferred
        self._sums = NodeSums()

    def name(self) -> str:
        return NAME

    def _namespaces(self) -> dict[str, Mapping[str, str]]:
        return dict(self._handle.namespaces())

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        why = parse_error(pod)
        if why is not None:  # NewPodInfo, before any Skip (filtering.go PreFilter)
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"parsing pod: {why}",))
        lister = self._handle.snapshot_shared_lister()
        with_anti = lister.have_pods_with_required_anti_affinity_list()
        aff = pod.affinity
        has_terms = aff is not None and (
            (aff.pod_affinity is not None and bool(aff.pod_affinity.required))
            or (aff.pod_anti_affinity is not None and bool(aff.pod_anti_affinity.required))
        )
        if not has_terms and not with_anti:
            return None, Status(Code.SKIP)
        s = self._pre_filter_state(pod, nodes, with_anti, lister)
        info = s.pod_info
        if (
            not s.existing_anti_affinity_counts
            and not info.required_affinity_terms
            and not info.required_anti_affinity_terms
        ):
            return None, Status(Code.SKIP)
        state.write(_PRE_FILTER_KEY, s)
        return None, None

    def _pre_filter_state(
        self, pod: Pod, nodes: Sequence[NodeInfo], with_anti: Iterable[NodeInfo], lister: object
    ) -> _PreFilterState:
        """``_pre_filter_state``, from the sums kept since the last cycle (:mod:`.affinity_sums`)
        when ``nodes`` is the snapshot's list."""
        namespaces = self._namespaces()
        if not implements(lister, ChangeLog) or nodes is not cast(ChangeLog, lister).list():
            return _pre_filter_state(pod, nodes, with_anti, namespaces)
        info = _incoming(pod, namespaces)
        s = _PreFilterState(info, namespaces.get(pod.namespace, {}))
        question = (
            "filter",
            pod.namespace,
            frozenset(pod.labels.items()),
            frozenset(s.ns_labels.items()),
            tuple(term_key(t) for t in info.required_affinity_terms),
            tuple(term_key(t) for t in info.required_anti_affinity_terms),
        )
        totals = cast(
            dict[str, dict[_Pair, int]],
            self._sums.totals(question, cast(ChangeLog, lister), filter_share(info, s.ns_labels)),
        )
        s.existing_anti_affinity_counts = dict(totals.get("x", {}))
        s.affinity_counts = dict(totals.get("a", {}))
        s.anti_affinity_counts = dict(totals.get("n", {}))
        return s

    def pre_filter_extensions(self) -> InterPodAffinity:
        return self

    def add_pod(
        self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        s = state.read_as(_PRE_FILTER_KEY, _PreFilterState)
        if s is not None and node_info.node is not None:
            s.update_with_pod(to_add, node_info.node, 1)
        return None

    def remove_pod(
        self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        s = state.read_as(_PRE_FILTER_KEY, _PreFilterState)
        if s is not None and node_info.node is not None:
            s.update_with_pod(to_remove, node_info.node, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return None
        s = state.read_as(_PRE_FILTER_KEY, _PreFilterState)
        if s is None:
            return Status(Code.ERROR, (f"reading {_PRE_FILTER_KEY!r} from cycleState: not found",))
        return _filter(s, node)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if not nodes:
            return None
        aff = pod.affinity
        has_preferred = aff is not None and (
            (aff.pod_affinity is not None and bool(aff.pod_affinity.preferred))
            or (aff.pod_anti_affinity is not None and bool(aff.pod_anti_affinity.preferred))
        )
        if self.ignore_preferred_terms_of_existing_pods and not has_preferred:
            return Status(Code.SKIP)
        lister = self._handle.snapshot_shared_lister()
        all_nodes = lister.list() if has_preferred else lister.have_pods_with_affinity_list()
        if not all_nodes:
            return Status(Code.SKIP)
        namespaces = self._namespaces()
        incoming = _incoming(pod, namespaces)
        ns_labels = namespaces.get(pod.namespace, {})
        topology_score: dict[str, dict[str, int]] = {}
        if implements(lister, ChangeLog):  # the sums kept since the last cycle
            question = (
                "score",
                has_preferred,
                pod.namespace,
                frozenset(pod.labels.items()),
                frozenset(ns_labels.items()),
                self.hard_pod_affinity_weight,
                tuple((term_key(w.term), w.weight) for w in incoming.preferred_affinity_terms),
                tuple((term_key(w.term), w.weight) for w in incoming.preferred_anti_affinity_terms),
            )
            share = score_share(incoming, ns_labels, self.hard_pod_affinity_weight, has_preferred)
            totals = cast(
                dict[str, dict[str, int]],
                self._sums.totals(question, cast(ChangeLog, lister), share),
            )
            topology_score = {key: dict(by_value) for key, by_value in totals.items()}
            all_nodes = ()
        for ni in all_nodes:
            if ni.node is None:
                continue
            for existing in ni.pods if has_preferred else ni.pods_with_affinity:
                _process_existing(
                    topology_score,
                    incoming,
                    existing,
                    ni.node,
                    ns_labels,
                    self.hard_pod_affinity_weight,
                )
        if not topology_score:
            return Status(Code.SKIP)
        state.write(_PRE_SCORE_KEY, _PreScoreState(topology_score))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.read_as(_PRE_SCORE_KEY, _PreScoreState)
        node = node_info.node
        if s is None or node is None:
            return 0, None
        total = 0
        for key, by_value in s.topology_score.items():
            value = node.labels.get(key)
            if value is not None:
                total += by_value.get(value, 0)
        return total, None

    def score_extensions(self) -> InterPodAffinity:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        s = state.read_as(_PRE_SCORE_KEY, _PreScoreState)
        if s is not None and s.topology_score:
            _normalize(scores)
        return None

    # ---- QueueingHints (interpodaffinity/plugin.go EventsToRegister, isSchedulableAfter*)

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        node_action = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not queueing_hints:
            node_action |= ActionType.UPDATE_NODE_TAINT
        pod_action = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
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
        """Only assigned pods count: Queue when one now matches all the pod's affinity terms
        (added, or relabelled into them) or no longer matches all its anti-affinity terms
        (deleted, or relabelled out of them)."""
        if (old is not None and not isinstance(old, Pod)) or (
            new is not None and not isinstance(new, Pod)
        ):
            return QueueingHint.QUEUE
        if (new is not None and not new.node_name) or (old is not None and not old.node_name):
            return QueueingHint.QUEUE_SKIP
        info = PodInfo(pod)
        terms, anti = info.required_affinity_terms, info.required_anti_affinity_terms
        if new is not None and old is not None:
            if not _matches_all(terms, old) and _matches_all(terms, new):
                return QueueingHint.QUEUE
            if _matches_all(anti, old) and not _matches_all(anti, new):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new is not None:
            return QueueingHint.QUEUE if _matches_all(terms, new) else QueueingHint.QUEUE_SKIP
        assert old is not None
        return QueueingHint.QUEUE if _matches_all(anti, old) else QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Queue when an affinity term's topology key appears or changes value, or an
        anti-affinity term's key disappears or changes value (any new node, for anti)."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE
        info = PodInfo(pod)
        for term in info.required_affinity_terms:
            key = term.topology_key
            if old is None:
                if key in new.labels:
                    return QueueingHint.QUEUE
                continue
            if key in new.labels and old.labels.get(key) != new.labels[key]:
                return QueueingHint.QUEUE
        for term in info.required_anti_affinity_terms:
            if old is None:
                return QueueingHint.QUEUE
            key = term.topology_key
            if key in old.labels and old.labels[key] != new.labels.get(key):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> InterPodAffinity:
        check_fields(
            args,
            "InterPodAffinityArgs",
            ("hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"),
        )
        weight = get_int(args, "hardPodAffinityWeight", 1, 0, 100)
        ignore = get_bool(args, "ignorePreferredTermsOfExistingPods", False)
        return InterPodAffinity(handle, weight, ignore)
