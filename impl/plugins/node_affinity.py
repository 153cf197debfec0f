"""NodeAffinity: ``nodeSelector`` ∧ required node affinity ∧ the ``addedAffinity`` arg; preferred
terms score.

Mirrors ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`` (v1.34) and
component-helpers v0.34.0 ``nodeaffinity`` (``GetRequiredNodeAffinity``,
``PreferredSchedulingTerms``). Filter fails UnschedulableAndUnresolvable. PreFilter skips pods
with neither nodeSelector nor required affinity (and no addedAffinity), and narrows the nodes to
``⋃_term ⋂ metadata.name In`` values when every term names nodes ("pod affinity terms conflict"
when that is empty). Score sums the weights of matching preferred terms (weight 0 and empty
terms ignored; a term that fails to parse is an Error at PreScore, as upstream), max-normalized.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedspec.impl.api import (
    Node,
    NodeSelector,
    Pod,
    PreferredSchedulingTerm,
)
from schedspec.impl.api.convert import node_selector_term
from schedspec.impl.api.selectors import (
    CompiledNodeSelector,
    CompiledTerm,
    compile_node_selector,
    compile_term,
)
from schedspec.impl.errors import ConfigError
from schedspec.impl.framework.args import check_fields, get_list, get_mapping
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.events import (
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventObject,
    QueueingHint,
)
from schedspec.impl.framework.helpers import default_normalize_score
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import MAX_NODE_SCORE, NodeInfo, NodeScore, PreFilterResult

__all__ = [
    "ERR_REASON_CONFLICT",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_POD",
    "NAME",
    "NodeAffinity",
    "PreferredTerms",
    "RequiredNodeAffinity",
    "fits",
    "score",
]

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


class RequiredNodeAffinity:
    """``nodeSelector`` and required node affinity of a pod (``GetRequiredNodeAffinity``)."""

    __slots__ = ("_node_selector", "_required")

    def __init__(self, pod: Pod) -> None:
        self._node_selector = tuple((pod.node_selector or {}).items())
        na = pod.affinity.node_affinity if pod.affinity else None
        required = na.required if na else None
        self._required = compile_node_selector(required) if required is not None else None

    @property
    def matches_all(self) -> bool:
        """No node selector and no required node affinity: every node matches."""
        return not self._node_selector and self._required is None

    def matches(self, node: Node) -> bool:
        labels = node.labels
        for key, want in self._node_selector:
            if labels.get(key) != want:
                return False
        return self._required is None or self._required.matches(labels, node.name)


class PreferredTerms:
    """Weighted preferred terms; ``error`` names the first term that fails to parse."""

    __slots__ = ("error", "terms")

    def __init__(self, terms: Sequence[PreferredSchedulingTerm], path: str) -> None:
        self.terms: list[tuple[int, CompiledTerm]] = []
        self.error = ""
        for i, t in enumerate(terms):
            compiled = compile_term(t.preference)
            if t.weight == 0 or not (t.preference.match_expressions or t.preference.match_fields):
                continue
            if not compiled.valid:
                self.error = self.error or f"{path}[{i}]: invalid node selector term"
                continue
            self.terms.append((t.weight, compiled))

    def score(self, node: Node) -> int:
        return sum(w for w, t in self.terms if t.matches(node.labels, node.name))


def _preferred(pod: Pod) -> tuple[PreferredSchedulingTerm, ...]:
    na = pod.affinity.node_affinity if pod.affinity else None
    return na.preferred if na else ()


def fits(pod: Pod, node: Node, added_affinity: NodeSelector | None = None) -> bool:
    """nodeSelector ∧ required node affinity ∧ ``added_affinity`` (the plugin arg)."""
    if added_affinity is not None and not compile_node_selector(added_affinity).matches(
        node.labels, node.name
    ):
        return False
    return RequiredNodeAffinity(pod).matches(node)


def score(pod: Pod, node: Node, added_preferred: Sequence[PreferredSchedulingTerm] = ()) -> int:
    """The raw score: the summed weights of the preferred terms ``node`` matches."""
    terms = PreferredTerms(_preferred(pod), "preferredSchedulingTerms")
    total = terms.score(node)
    if added_preferred:
        total += PreferredTerms(added_preferred, "addedAffinity").score(node)
    return total


def _node_names(pod: Pod) -> frozenset[str] | None:
    """The union over terms of the ``metadata.name In`` intersection; None if any term names
    no node (then all nodes are candidates)."""
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is None or na.required is None or not na.required.terms:
        return None
    names: set[str] = set()
    for term in na.required.terms:
        term_names: set[str] | None = None
        for r in term.match_fields:
            if r.key == "metadata.name" and r.operator == "In":
                term_names = set(r.values) if term_names is None else term_names & set(r.values)
        if term_names is None:
            return None
        names |= term_names
    return frozenset(names)


class _PreFilterState:
    __slots__ = ("required",)

    def __init__(self, required: RequiredNodeAffinity) -> None:
        self.required = required

    def clone(self) -> _PreFilterState:
        return self


class _PreScoreState:
    __slots__ = ("preferred",)

    def __init__(self, preferred: PreferredTerms) -> None:
        self.preferred = preferred

    def clone(self) -> _PreScoreState:
        return self


_PRE_FILTER_KEY = "PreFilter" + NAME
_PRE_SCORE_KEY = "PreScore" + NAME
_REJECT_POD = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_POD,))
_REJECT_ENFORCED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_ENFORCED,))


class NodeAffinity:
    def __init__(
        self,
        added_required: NodeSelector | None,
        added_preferred: Sequence[PreferredSchedulingTerm],
    ) -> None:
        self._added: CompiledNodeSelector | None = (
            compile_node_selector(added_required) if added_required is not None else None
        )
        self._added_preferred = (
            PreferredTerms(added_preferred, "addedAffinity") if added_preferred else None
        )

    def name(self) -> str:
        return NAME

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        na = pod.affinity.node_affinity if pod.affinity else None
        no_required = na is None or na.required is None
        if no_required and self._added is None and pod.node_selector is None:
            return None, Status(Code.SKIP)
        state.write(_PRE_FILTER_KEY, _PreFilterState(RequiredNodeAffinity(pod)))
        names = _node_names(pod)
        if names is None:
            return None, None
        if not names:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,))
        return PreFilterResult(names), None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return None
        if self._added is not None and not self._added.matches(node.labels, node.name):
            return _REJECT_ENFORCED
        s = state.read_as(_PRE_FILTER_KEY, _PreFilterState)
        required = s.required if s else RequiredNodeAffinity(pod)
        return None if required.matches(node) else _REJECT_POD

    def fits_on(self, pod: Pod) -> Callable[[NodeInfo], bool]:
        """Whether ``filter`` passes ``pod`` on each node in turn, no PreFilter having run: the
        pod's required affinity, which ``filter`` would make at each call, is made once."""
        state = CycleState()
        state.write(_PRE_FILTER_KEY, _PreFilterState(RequiredNodeAffinity(pod)))
        return lambda node_info: self.filter(state, pod, node_info) is None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        preferred = _preferred(pod)
        if not preferred and self._added_preferred is None:
            return Status(Code.SKIP)
        terms = PreferredTerms(preferred, "preferredSchedulingTerms")
        if terms.error:
            return Status(Code.ERROR, (terms.error,))
        state.write(_PRE_SCORE_KEY, _PreScoreState(terms))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        node = node_info.node
        if node is None:
            return 0, None
        total = self._added_preferred.score(node) if self._added_preferred else 0
        s = state.read_as(_PRE_SCORE_KEY, _PreScoreState)
        preferred = s.preferred if s else PreferredTerms(_preferred(pod), "")
        return total + preferred.score(node), None

    def score_extensions(self) -> NodeAffinity:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None

    # ---- QueueingHints (node_affinity.go EventsToRegister, isSchedulableAfterNodeChange)

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        action = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not queueing_hints:
            action |= ActionType.UPDATE_NODE_TAINT
        return [
            ClusterEventWithHint(ClusterEvent(NODE, action), self.is_schedulable_after_node_change)
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Queue when the node now matches the pod's required affinity (and the enforced
        ``addedAffinity``) and did not before (or is new)."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE
        if self._added is not None and not self._added.matches(new.labels, new.name):
            return QueueingHint.QUEUE_SKIP
        required = RequiredNodeAffinity(pod)
        if not required.matches(new):
            return QueueingHint.QUEUE_SKIP
        if old is None or not required.matches(old):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> NodeAffinity:
        check_fields(args, "NodeAffinityArgs", ("addedAffinity",))
        added = get_mapping(args, "addedAffinity") or {}
        for key in added:
            if key not in (
                "requiredDuringSchedulingIgnoredDuringExecution",
                "preferredDuringSchedulingIgnoredDuringExecution",
            ):
                raise ConfigError(f'unknown field "{key}"', f"addedAffinity.{key}")
        required = None
        raw_required = get_mapping(added, "requiredDuringSchedulingIgnoredDuringExecution")
        if raw_required is not None:
            terms = get_list(raw_required, "nodeSelectorTerms")
            required = NodeSelector(tuple(node_selector_term(t) for t in terms))
        preferred = tuple(
            PreferredSchedulingTerm(
                p.get("weight", 0), node_selector_term(p.get("preference") or {})
            )
            for p in get_list(added, "preferredDuringSchedulingIgnoredDuringExecution")
        )
        return NodeAffinity(required, preferred)
