"""NodeResourcesFit: the pod's requests must fit in what the node has left; scoring by
LeastAllocated (default) or MostAllocated.

Mirrors ``pkg/scheduler/framework/plugins/noderesources/fit.go`` (v1.34): the pod count is
always checked ("Too many pods"); a pod with all-zero requests is checked for nothing else;
otherwise every positive cpu/memory/ephemeral-storage request and every non-zero scalar request
(unless ignored by ``ignoredResources``/``ignoredResourceGroups``; a resource the node does not
advertise has allocatable 0) must be ≤ allocatable − requested. All failures are reported;
the status is Unschedulable, or UnschedulableAndUnresolvable when some request exceeds the
allocatable itself (preemption cannot help).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from schedspec.impl.api import Node, Pod
from schedspec.impl.api.resources import is_extended_resource, is_scalar_resource
from schedspec.impl.errors import ConfigError
from schedspec.impl.framework.args import check_fields, get_list, get_mapping, get_str
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.equivalence import scores_kept
from schedspec.impl.framework.events import (
    NODE,
    POD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventObject,
    QueueingHint,
)
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import NodeInfo, PreFilterResult
from schedspec.impl.plugins.resource_allocation import (
    DEFAULT_RESOURCES,
    PlanScorer,
    ResourceSpec,
    ScoredResource,
    ShapePoint,
    least_allocated,
    least_allocated_nodes,
    least_allocated_of,
    most_allocated,
    most_allocated_of,
    parse_resources,
    parse_shape,
    pod_request_list,
    requested_to_capacity_ratio,
    scored_resources,
)

__all__ = [
    "NAME",
    "InsufficientResource",
    "NodeResourcesFit",
    "fits",
    "fits_on",
    "insufficient_resources",
    "score",
]

NAME = "NodeResourcesFit"
_STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    resource: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool


class _Request:
    """The pod's request vector, split for the Filter's hot path (``preFilterState``)."""

    __slots__ = ("all_zero", "checks", "cpu", "ephemeral", "memory", "scalars")

    def __init__(
        self, requests: Mapping[str, int], ignored: frozenset[str], groups: frozenset[str]
    ) -> None:
        self.cpu = requests.get("cpu", 0)
        self.memory = requests.get("memory", 0)
        self.ephemeral = requests.get("ephemeral-storage", 0)
        scalars = [(n, q) for n, q in requests.items() if is_scalar_resource(n)]
        self.all_zero = not (self.cpu or self.memory or self.ephemeral or scalars)
        self.scalars = tuple(
            (n, q) for n, q in scalars if q != 0 and not _ignored(n, ignored, groups)
        )
        # every (resource, request) that ``_insufficient`` compares with what is left
        positive = (
            ("cpu", self.cpu),
            ("memory", self.memory),
            ("ephemeral-storage", self.ephemeral),
        )
        self.checks = tuple((n, q) for n, q in positive if q > 0) + self.scalars

    def clone(self) -> _Request:
        return self


def _ignored(name: str, ignored: frozenset[str], groups: frozenset[str]) -> bool:
    if not is_extended_resource(name):
        return False
    return name in ignored or (bool(groups) and name.split("/")[0] in groups)


def _check(out: list[InsufficientResource], name: str, want: int, node_info: NodeInfo) -> None:
    alloc = node_info.allocatable.get(name, 0)
    used = node_info.requested.get(name, 0)
    if want > alloc - used:
        out.append(
            InsufficientResource(name, f"Insufficient {name}", want, used, alloc, want > alloc)
        )


def _room_for(req: _Request, node_info: NodeInfo) -> bool:
    """Whether ``_insufficient`` finds nothing, answered without building its list: Filter's
    common case (a node that fits) costs a few lookups; a node that does not fit goes through
    ``_insufficient`` for its reasons."""
    if len(node_info.pods) + 1 > node_info.allowed_pod_number:
        return False
    if req.all_zero:
        return True
    alloc, used = node_info.allocatable, node_info.requested
    for name, want in req.checks:  # noqa: SIM110 — a generator for all() costs more per node
        if want > alloc.get(name, 0) - used.get(name, 0):
            return False
    return True


def _insufficient(req: _Request, node_info: NodeInfo) -> list[InsufficientResource]:
    out: list[InsufficientResource] = []
    pods, allowed = len(node_info.pods), node_info.allowed_pod_number
    if pods + 1 > allowed:
        out.append(InsufficientResource("pods", "Too many pods", 1, pods, allowed, False))
    if req.all_zero:
        return out
    if req.cpu > 0:
        _check(out, "cpu", req.cpu, node_info)
    if req.memory > 0:
        _check(out, "memory", req.memory, node_info)
    if req.ephemeral > 0:
        _check(out, "ephemeral-storage", req.ephemeral, node_info)
    for name, want in req.scalars:
        _check(out, name, want, node_info)
    return out


def insufficient_resources(
    pod: Pod,
    node_info: NodeInfo,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_resource_groups: frozenset[str] = frozenset(),
) -> list[InsufficientResource]:
    """Every resource ``pod`` lacks on the node (``fitsRequest``), pods first."""
    return _insufficient(
        _Request(pod.requests, ignored_resources, ignored_resource_groups), node_info
    )


def fits(
    pod: Pod,
    node_info: NodeInfo,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_resource_groups: frozenset[str] = frozenset(),
) -> bool:
    return fits_on(pod, ignored_resources, ignored_resource_groups)(node_info)


def fits_on(
    pod: Pod,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_resource_groups: frozenset[str] = frozenset(),
) -> Callable[[NodeInfo], bool]:
    """:func:`fits` for ``pod`` on each node in turn, its request vector made once."""
    req = _Request(pod.requests, ignored_resources, ignored_resource_groups)
    return lambda node_info: not _insufficient(req, node_info)


def score(
    pod: Pod,
    node_info: NodeInfo,
    resources: Sequence[ResourceSpec] = DEFAULT_RESOURCES,
    strategy: str = "LeastAllocated",
) -> int:
    """LeastAllocated (or MostAllocated) over the non-zero requests, 0..100."""
    requests = pod_request_list(pod, resources, use_requested=False)
    scorer = most_allocated if strategy == "MostAllocated" else least_allocated
    return scorer(node_info, requests, resources)


def _requested_resource_increased(pod: Pod, old: Node, new: Node) -> bool:
    """``haveAnyRequestedResourcesIncreased``."""
    before, after = old.allocatable, new.allocatable
    if after.get("pods", 0) > before.get("pods", 0):
        return True
    return any(
        want and after.get(name, 0) > before.get(name, 0)
        for name, want in pod.requests.items()
        if name in ("cpu", "memory", "ephemeral-storage") or is_scalar_resource(name)
    )


_PRE_FILTER_KEY = "PreFilter" + NAME
_PRE_SCORE_KEY = "PreScore" + NAME


class _PreScoreState:
    """The pod's ``scored_resources`` (non-zero cpu/memory requests), made once per cycle."""

    __slots__ = ("plan",)

    def __init__(self, plan: tuple[ScoredResource, ...]) -> None:
        self.plan = plan

    def clone(self) -> _PreScoreState:
        return self


class NodeResourcesFit:
    def __init__(
        self,
        ignored: frozenset[str] = frozenset(),
        groups: frozenset[str] = frozenset(),
        strategy: str = "LeastAllocated",
        resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES,
        shape: tuple[ShapePoint, ...] = (),
    ) -> None:
        self.ignored, self.groups = ignored, groups
        self.strategy, self.resources = strategy, resources
        self._scorer: PlanScorer = (
            most_allocated_of
            if strategy == "MostAllocated"
            else requested_to_capacity_ratio(shape)
            if strategy == "RequestedToCapacityRatio"
            else least_allocated_of
        )

    def name(self) -> str:
        return NAME

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        state.write(_PRE_FILTER_KEY, _Request(pod.requests, self.ignored, self.groups))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def _request(self, state: CycleState, pod: Pod) -> _Request:
        req = state.read_as(_PRE_FILTER_KEY, _Request)
        return _Request(pod.requests, self.ignored, self.groups) if req is None else req

    def filter_signature(self, state: CycleState, pod: Pod) -> tuple[bool, tuple[Any, ...]]:
        """Filter reads the request's resources to check (``_room_for``, ``_insufficient``)
        and the node alone (``NodeLocalFilter``)."""
        req = self._request(state, pod)
        return req.all_zero, req.checks

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        req = self._request(state, pod)
        if _room_for(req, node_info):
            return None
        out = _insufficient(req, node_info)
        if not out:
            return None
        code = Code.UNSCHEDULABLE
        if any(r.unresolvable for r in out):
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return Status(code, tuple(r.reason for r in out))

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(_PRE_SCORE_KEY, _PreScoreState(self._plan(pod)))
        return None

    def _plan(self, pod: Pod) -> tuple[ScoredResource, ...]:
        requests = pod_request_list(pod, self.resources, False)
        return scored_resources(requests, self.resources, False)

    def _state_plan(self, state: CycleState, pod: Pod) -> tuple[ScoredResource, ...]:
        s = state.read_as(_PRE_SCORE_KEY, _PreScoreState)
        return s.plan if s else self._plan(pod)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return self._scorer(node_info, self._state_plan(state, pod)), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """``score`` on each of ``nodes``, the cycle state read once (``BatchScorer``); a
        node's score, a function of the plan and its NodeInfo, is kept on it for the next pod
        with the same plan (``scores_kept``)."""
        plan, scorer = self._state_plan(state, pod), self._scorer
        if scorer is least_allocated_of:
            return scores_kept(nodes, (self, plan), partial(least_allocated_nodes, plan=plan)), None
        return scores_kept(
            nodes, (self, plan), lambda batch: [scorer(ni, plan) for ni in batch]
        ), None

    def score_extensions(self) -> None:
        return None

    # ---- QueueingHints (fit.go EventsToRegister, isSchedulableAfter*)

    def events_to_register(self, queueing_hints: bool = True) -> list[ClusterEventWithHint]:
        # InPlacePodVerticalScaling is on in v1.34: a scale-down frees room too
        pod_action = ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN
        node_action = ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
        if not queueing_hints:
            node_action |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [
            ClusterEventWithHint(
                ClusterEvent(POD, pod_action), self.is_schedulable_after_pod_event
            ),
            ClusterEventWithHint(
                ClusterEvent(NODE, node_action), self.is_schedulable_after_node_change
            ),
        ]

    def is_schedulable_after_pod_event(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """A deleted pod frees room only if it was bound or nominated; a scale-down only if it
        lowers a resource the pod requests (or is the pod itself)."""
        if not isinstance(old, Pod):
            return QueueingHint.QUEUE
        if new is None:
            if not old.node_name and not old.nominated_node_name:
                return QueueingHint.QUEUE_SKIP
            return QueueingHint.QUEUE
        if not isinstance(new, Pod):
            return QueueingHint.QUEUE
        if new.uid == pod.uid:
            return QueueingHint.QUEUE
        if not new.node_name:
            return QueueingHint.QUEUE_SKIP
        for name, want in pod.requests.items():
            if want and old.requests.get(name, 0) > new.requests.get(name, 0):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(
        self, pod: Pod, old: EventObject, new: EventObject
    ) -> QueueingHint:
        """Queue only if the pod fits the (empty) new node and, for an update, some resource
        it requests (or the pod count) grew. The fit ignores no resource: upstream's isFit
        calls ``Fits``, which passes no ignored resources or groups (noderesources/fit.go)."""
        if not isinstance(new, Node) or (old is not None and not isinstance(old, Node)):
            return QueueingHint.QUEUE
        if insufficient_resources(pod, NodeInfo(new)):
            return QueueingHint.QUEUE_SKIP
        if old is None or _requested_resource_increased(pod, old, new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> NodeResourcesFit:
        check_fields(
            args,
            "NodeResourcesFitArgs",
            ("ignoredResources", "ignoredResourceGroups", "scoringStrategy"),
        )
        ignored = frozenset(str(r) for r in get_list(args, "ignoredResources"))
        groups = frozenset(str(g) for g in get_list(args, "ignoredResourceGroups"))
        for i, group in enumerate(sorted(groups)):
            if "/" in group:
                raise ConfigError(
                    f'"{group}" is invalid: a resource group name can\'t contain "/"',
                    f"ignoredResourceGroups[{i}]",
                )
        strategy = get_mapping(args, "scoringStrategy") or {}
        kind = get_str(strategy, "type", "LeastAllocated", _STRATEGIES)
        shape: tuple[ShapePoint, ...] = ()
        if kind == "RequestedToCapacityRatio":
            # fit.go reads the shape unguarded: without one kube-scheduler would not start
            ratio = get_mapping(strategy, "requestedToCapacityRatio") or {}
            shape = parse_shape(
                get_list(ratio, "shape"), "scoringStrategy.requestedToCapacityRatio.shape"
            )
        # v1 defaults.go: an empty or missing list is cpu and memory
        raw = get_list(strategy, "resources")
        resources = parse_resources(raw, "scoringStrategy.resources") if raw else DEFAULT_RESOURCES
        return NodeResourcesFit(ignored, groups, kind, resources, shape)
