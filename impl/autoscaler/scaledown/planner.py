"""The scale-down planner: which nodes could be removed, simulated cumulatively.

Mirrors ``core/scaledown/planner/planner.go`` (``categorizeNodes``), ``simulator/cluster.go``
(``SimulateNodeRemoval``, ``findPlaceFor``) and ``core/scaledown/unneeded/nodes.go``
(``RemovableAt``); docs/autoscaler.md, "Scale-down", steps 1–5:

1. eligibility (``eligibility``), on the pods of the snapshot but the long-terminating ones
   (``utilization.Calculate`` skips them);
2. candidates (eligible nodes): those that will need no pod moved first, then by name
   (upstream's sort is unstable: **declared**);
3. each candidate's pods through the drain rules (``drainability``), against the PDB budgets
   left so far;
4. the pods to move, in order, each first-fit on the other nodes, leaving out the nodes already
   found removable; the node itself stays in the world with what is not moved. The first pod
   with no place makes the node ``NoPlaceToMovePods``. On success the moves are kept for the
   nodes after it and each moved pod takes one disruption from every PDB matching it;
5. removable: the nodes that passed, empty ones first, then the rest; each lowers its group's
   size, and a node whose group is already down to its min is ``NodeGroupMinSizeReached``.

The deletion itself waits ``--scale-down-unneeded-time`` of being unneeded and not within
``--scale-down-delay-after-add`` of a scale-up: the verdict is reported, not the wait.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from schedspec.impl.api import Pod
from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.context import AutoscalingContext
from schedspec.impl.autoscaler.results import NodeScaleDown, ScaleDownResult
from schedspec.impl.autoscaler.scaledown import eligibility
from schedspec.impl.autoscaler.scaledown.drainability import DrainResult, get_pods_to_move
from schedspec.impl.autoscaler.scaledown.pdb import RemainingPdbTracker
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot

__all__ = ["BLOCKED_BY_POD", "NO_PLACE_TO_MOVE_PODS", "scale_down"]

BLOCKED_BY_POD = "BlockedByPod"
NO_PLACE_TO_MOVE_PODS = "NoPlaceToMovePods"


@dataclass(frozen=True)
class _Moved:
    """A node whose pods found places: what moved where."""

    pods: tuple[Pod, ...]
    destinations: dict[str, str]


def _drain(
    ctx: AutoscalingContext, world: ClusterSnapshot, name: str, pdbs: RemainingPdbTracker
) -> DrainResult:
    def raw_of(pod: Pod) -> podutil.Obj:
        return world.raw_of(pod)

    return get_pods_to_move(world.pods_on(name), raw_of, ctx.options, pdbs, ctx.now)


class _Destinations:
    """The nodes pods may move to: all but those found removable (a flag per node of the
    world, in its order, for ``first_fit``'s ``where``; the world's nodes stay the same)."""

    def __init__(self, world: ClusterSnapshot) -> None:
        self._spot = {n: i for i, n in enumerate(world.node_names())}
        self._open = [True] * len(self._spot)

    def close(self, name: str) -> None:
        self._open[self._spot[name]] = False

    def but(self, name: str) -> list[bool]:
        """The open nodes other than ``name``."""
        flags = list(self._open)
        flags[self._spot[name]] = False
        return flags


def _find_places(
    ctx: AutoscalingContext,
    world: ClusterSnapshot,
    name: str,
    pods: tuple[Pod, ...],
    open_nodes: _Destinations,
) -> tuple[ClusterSnapshot, dict[str, str], Pod | None]:
    """A fork with ``pods`` moved off ``name``; the destinations (not ``name``, not a node
    already found removable); the first pod with no place."""
    sim = world.fork()
    for pod in pods:
        sim.remove_pod(pod, name)
    destinations: dict[str, str] = {}
    where = open_nodes.but(name)
    for pod in pods:
        target = ctx.checker.first_fit(sim, pod.assigned_to(""), where=where)
        if target is None:
            return sim, destinations, pod
        sim.add_pod(pod, target)
        destinations[pod.key] = target
    return sim, destinations, None


def scale_down(ctx: AutoscalingContext, world: ClusterSnapshot) -> ScaleDownResult:
    """Every node's verdict; ``world`` is the snapshot after the pod list processors (with the
    pending pods they placed), as upstream's planner shares it; it is left as it is."""
    verdicts: dict[str, NodeScaleDown] = {}
    utils: dict[str, eligibility.Utilization] = {}
    for name, node in ctx.nodes.items():
        group = ctx.autoscaling.group_of(name)
        pods = [p for p in world.pods_on(name) if not _long_terminating(ctx, world, p)]
        elig = eligibility.check_node(
            ctx.node_objs[name], node, pods, group, ctx.options, ctx.now, _is_ds(world)
        )
        if elig.utilization is not None:
            utils[name] = elig.utilization
        if elig.reason:
            verdicts[name] = _unremovable(elig.utilization, elig.reason, elig.message)
    candidates = [n for n in ctx.nodes if n not in verdicts]
    no_budgets = RemainingPdbTracker()
    empty = {
        n
        for n in candidates
        if not (d := _drain(ctx, world, n, no_budgets)).pods_to_move and d.blocking is None
    }
    order = sorted(candidates, key=lambda n: (n not in empty, n))
    pdbs = RemainingPdbTracker(ctx.cluster.pdbs)
    open_nodes = _Destinations(world)
    moved: dict[str, _Moved] = {}
    for name in order:
        util = utils.get(name)
        drain = _drain(ctx, world, name, pdbs)
        if drain.blocking is not None:
            blocking = (drain.blocking.pod, drain.blocking.reason)
            verdicts[name] = _unremovable(util, BLOCKED_BY_POD, drain.blocking.message, blocking)
            continue
        sim, destinations, stuck = _find_places(ctx, world, name, drain.pods_to_move, open_nodes)
        if stuck is not None:
            total = len(drain.pods_to_move)
            message = (
                f"can reschedule only {len(destinations)} out of {total} pods "
                f"(no place for {stuck.key})"
            )
            keys = tuple(p.key for p in drain.pods_to_move)
            verdicts[name] = _unremovable(util, NO_PLACE_TO_MOVE_PODS, message, pods=keys)
            continue
        world = sim  # commit: later nodes see the moved pods
        open_nodes.close(name)
        pdbs.remove_pods(drain.pods_to_move)
        moved[name] = _Moved(drain.pods_to_move, destinations)
    _removable_at(ctx, order, moved, utils, verdicts)
    return ScaleDownResult({n: verdicts[n] for n in ctx.nodes}, tuple(order))


def _removable_at(
    ctx: AutoscalingContext,
    order: list[str],
    moved: dict[str, _Moved],
    utils: dict[str, eligibility.Utilization],
    verdicts: dict[str, NodeScaleDown],
) -> None:
    """Empty nodes first, then the others; each lowers its group's size; a node whose group is
    already at its min (or below) is ``NodeGroupMinSizeReached``."""
    sizes = {g.name: g.target_size for g in ctx.groups}
    passed = [n for n in order if n in moved]
    for name in sorted(passed, key=lambda n: bool(moved[n].pods)):  # stable: keeps order
        group = ctx.autoscaling.group_of(name)
        assert group is not None  # eligibility let only autoscaled nodes through
        keys = tuple(p.key for p in moved[name].pods)
        util = utils.get(name)
        if sizes[group.name] <= group.min_size:
            message = (
                f"node group min size reached (current: {sizes[group.name]}, min: {group.min_size})"
            )
            verdicts[name] = _unremovable(
                util, eligibility.NODE_GROUP_MIN_SIZE_REACHED, message, pods=keys,
                destinations=moved[name].destinations,
            )  # fmt: skip
            continue
        sizes[group.name] -= 1
        message = "node may be removed" + ("" if keys else " (empty)")
        verdicts[name] = NodeScaleDown(
            _value(util), _resource(util), True, "", None, message, keys, moved[name].destinations
        )


def _unremovable(
    util: eligibility.Utilization | None,
    reason: str,
    message: str,
    blocking: tuple[str, str] | None = None,
    pods: tuple[str, ...] = (),
    destinations: dict[str, str] | None = None,
) -> NodeScaleDown:
    return NodeScaleDown(
        _value(util), _resource(util), False, reason, blocking, message, pods, destinations or {}
    )


def _value(util: eligibility.Utilization | None) -> Fraction | None:
    return None if util is None else util.value


def _resource(util: eligibility.Utilization | None) -> str:
    return "" if util is None else util.resource


def _long_terminating(ctx: AutoscalingContext, world: ClusterSnapshot, pod: Pod) -> bool:
    return podutil.is_long_terminating(world.raw_of(pod), ctx.now)


def _is_ds(world: ClusterSnapshot) -> Callable[[Pod], bool]:
    return lambda pod: podutil.is_daemonset_pod(world.raw_of(pod))
