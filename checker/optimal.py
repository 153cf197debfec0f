"""The optimality gap: the best simultaneous placement of a cluster's pending pods, beside what
the scheduler's greedy run (one pod at a time, :func:`schedspec.impl.simulate.simulate`) does.

``optimal(cluster, objective)`` builds the relaxation of :mod:`~schedspec.checker.optimal_model`
(the pod×node compatibility decided by impl's own Filter plugins, resources, pod count, host
ports and anti-affinity exactly, required affinity and DoNotSchedule spread as necessary
conditions), asks Z3 for its optimum, and replays that placement through impl's framework
(:func:`~schedspec.checker.optimal_filters.find_order`): each pod bound in turn, passing every
Filter plugin of the default profile given the ones before it. A placement no order validates
is cut off and the model solved again (counterexample-guided). The first validated optimum is
the answer, ``optimal``: the model admits every valid placement, so nothing valid beats it.
``unknown`` is said when the time ran out (the best validated placement found is shown, never
called optimal) or when the order search gave up on a placement it then cut (that placement
might have been valid).

Objectives: ``placed`` (most pods placed), ``priority`` (greatest total ``spec.priority`` of the
placed pods, then most pods), ``nodes`` (most pods placed, then fewest nodes holding a pod that
is not a DaemonSet's). The optimum binds pending pods only and evicts no one; greedy's run may
preempt, and the evicted pods are reported beside its figures.

Pods the scheduler would not take are left out and listed: scheduling-gated, of another
scheduler (``spec.schedulerName``), being deleted.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedspec.checker.optimal_filters import (
    Filters,
    OrderBudgetExceeded,
    Rejection,
    find_order,
    replays_in_order,
    what_passes,
)
from schedspec.checker.optimal_model import OBJECTIVES, Problem, build, busy_nodes
from schedspec.checker.optimal_solvers import SOLVERS, backend
from schedspec.cluster import Cluster
from schedspec.impl.api import Node, Pod, node_from_dict, pod_from_dict
from schedspec.impl.autoscaler.context import namespace_labels
from schedspec.impl.simulate import ScheduleResult, simulate

__all__ = ["OBJECTIVES", "SOLVERS", "Figures", "Outcome", "as_json", "optimal"]

DEFAULT_SCHEDULER = "default-scheduler"


@dataclass(frozen=True, slots=True)
class Figures:
    """A placement's measures: pods placed, their total priority, nodes in use after it."""

    placed: int
    priority: int
    nodes: int

    def as_json(self) -> dict[str, int]:
        return {"placed": self.placed, "priority": self.priority, "nodes": self.nodes}


@dataclass
class Outcome:
    result: str  # optimal | unknown
    objective: str
    placement: dict[str, str]  # the best validated placement: pod key → node
    order: list[tuple[str, str]]  # the same, as bindings in an order every filter passes
    best: Figures
    greedy: ScheduleResult
    greedy_figures: Figures
    considered: list[str]  # the pending pods in play, in queue order
    left_out: dict[str, str]  # pending pods the scheduler would not take, and why
    never: dict[str, str]  # considered pods no node admits even alone: the first reason
    seconds: float = 0.0
    solves: int = 0
    cuts: int = 0
    inexact_cuts: int = 0
    model_exact: bool = True
    solver: str = "cpsat"
    upper_bound: int | None = None  # placed objective: no placement places more (relaxation)
    notes: list[str] = field(default_factory=list)

    def gap(self) -> Figures:
        b, g = self.best, self.greedy_figures
        return Figures(b.placed - g.placed, b.priority - g.priority, g.nodes - b.nodes)


def _split(cluster: Cluster) -> tuple[list[Node], list[Pod], list[Pod], dict[str, str]]:
    nodes = [node_from_dict(n) for n in cluster.nodes]
    names = {n.name for n in nodes}
    bound = [pod_from_dict(p) for p in cluster.bound_pods()]
    bound = [p for p in bound if p.node_name in names]
    pending: list[Pod] = []
    left_out: dict[str, str] = {}
    for obj in cluster.pending_pods():
        pod = pod_from_dict(obj)
        if pod.scheduling_gates:
            left_out[pod.key] = f"scheduling gates {', '.join(pod.scheduling_gates)}"
        elif pod.scheduler_name != DEFAULT_SCHEDULER:
            left_out[pod.key] = f"spec.schedulerName {pod.scheduler_name}"
        elif pod.deletion_timestamp is not None:
            left_out[pod.key] = "being deleted"
        else:
            pending.append(pod)
    # the scheduling queue's order: higher priority first, then first come (PrioritySort)
    order = {p.uid: i for i, p in enumerate(pending)}
    pending.sort(key=lambda p: (-p.priority, order[p.uid]))
    return nodes, bound, pending, left_out


def figures(
    placement: Mapping[str, str], pods: Sequence[Pod], bound: Sequence[Pod], nodes: Sequence[Node]
) -> Figures:
    by_key = {p.key: p for p in pods}
    placed = [by_key[k].assigned_to(n) for k, n in placement.items() if k in by_key]
    return Figures(
        len(placed),
        sum(p.priority for p in placed),
        len(busy_nodes(nodes, [*bound, *placed])),
    )


def _greedy_figures(
    result: ScheduleResult, pods: Sequence[Pod], bound: Sequence[Pod], nodes: Sequence[Node]
) -> Figures:
    gone = set(result.preempted)
    remaining = [p for p in bound if p.key not in gone]
    return figures(result.bindings, pods, remaining, nodes)


def _why_nowhere(verdicts: Iterable[Rejection | None]) -> str:
    """kube-scheduler's summary: ``0/5 nodes are available: 3 Insufficient cpu, …``."""
    counts: Counter[str] = Counter()
    total = 0
    for r in verdicts:
        total += 1
        for reason in (r.reasons or (str(r),)) if r is not None else ():
            counts[reason] += 1
    parts = ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items()))
    return f"0/{total} nodes are available: {parts}."


def _placement(problem: Problem, true: frozenset[int]) -> list[tuple[Pod, str]]:
    chosen = [(i, j) for (i, j), v in problem.x.items() if v in true]
    return [(problem.pods[i], problem.nodes[j].name) for i, j in sorted(chosen)]


def optimal(
    cluster: Cluster,
    objective: str = "placed",
    timeout: float = 60.0,
    seed: int = 0,
    order_budget: int = 20000,
    greedy: ScheduleResult | None = None,
    solver: str = "cpsat",
) -> Outcome:
    """The optimum and greedy's run, compared (see the module docstring)."""
    start = time.perf_counter()
    deadline = start + timeout
    nodes, bound, pods, left_out = _split(cluster)
    namespaces = namespace_labels(cluster)
    if greedy is None:
        greedy = simulate(cluster, cluster.scheduler_config, seed)
    filters = Filters(nodes, bound, namespaces)
    problem = build(pods, nodes, bound, namespaces, objective, filters, symmetry=solver == "z3")
    considered = {p.key for p in pods}
    outcome = Outcome(
        result="unknown",
        objective=objective,
        placement={},
        order=[],
        best=Figures(0, 0, len(busy_nodes(nodes, bound))),
        greedy=greedy,
        greedy_figures=_greedy_figures(greedy, pods, bound, nodes),
        considered=[p.key for p in pods],
        left_out=left_out,
        never={
            p.key: _why_nowhere(problem.static[i].values())
            for i, p in enumerate(pods)
            if not problem.on(i) and problem.static[i]
        },
        model_exact=problem.exact,
    )
    if cluster.scheduler_config is not None:
        outcome.notes.append(
            "the cluster's KubeSchedulerConfiguration applies to greedy's run; the optimum "
            "is under the default profile's Filter plugins"
        )
    _start_from_greedy(outcome, filters, (pods, bound, nodes), order_budget)
    outcome.solver = solver
    engine = backend(solver, problem)
    index = {(p.key, n.name): (i, j) for i, p in enumerate(pods) for j, n in enumerate(nodes)}
    start_at = [index[item] for item in outcome.placement.items()]
    engine.hint(problem.x[ij] for ij in start_at if ij in problem.x)
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            break
        solution = engine.solve(left)
        outcome.solves += 1
        if objective == "placed" and solution.bound is not None and not outcome.inexact_cuts:
            outcome.upper_bound = int(solution.bound + 1e-6)
        if solution.status in ("infeasible", "unknown"):
            break  # infeasible: every placement was cut (an empty one never is)
        placement = _placement(problem, solution.true)
        try:
            order = find_order(filters, placement, order_budget)
        except OrderBudgetExceeded:
            order, outcome.inexact_cuts = None, outcome.inexact_cuts + 1
        if order is not None:
            order = _like_greedy(filters, order, greedy.bindings, pods)
            _keep(outcome, order, pods, bound, nodes)
            if solution.status == "optimal" and not outcome.inexact_cuts:
                outcome.result = "optimal"
            break
        if problem.exact and not outcome.inexact_cuts:
            outcome.notes.append(
                "the model admitted a placement impl's filters refuse in every order: a "
                "model defect, cut and solved again"
            )
        if solution.status != "optimal":
            break  # out of time with an invalid placement: keep the best validated one
        engine.cut(solution.true)
        outcome.cuts += 1
    outcome.seconds = time.perf_counter() - start
    assert considered >= set(outcome.placement)
    return outcome


def _keep(
    outcome: Outcome,
    order: Sequence[tuple[Pod, str]],
    pods: Sequence[Pod],
    bound: Sequence[Pod],
    nodes: Sequence[Node],
) -> None:
    """Keep ``order`` as the best validated placement if it scores better."""
    placement = {pod.key: node for pod, node in order}
    found = figures(placement, pods, bound, nodes)
    if outcome.placement and _score(found, outcome.objective) < _score(
        outcome.best, outcome.objective
    ):
        return
    outcome.placement = placement
    outcome.order = [(pod.key, node) for pod, node in order]
    outcome.best = found


def _like_greedy(
    filters: Filters,
    order: Sequence[tuple[Pod, str]],
    greedy: Mapping[str, str],
    pods: Sequence[Pod],
) -> list[tuple[Pod, str]]:
    """``order`` with replicas alike in all but name renamed after greedy's choices: the one
    greedy bound to a node takes the optimum's place on that node, then those greedy bound
    elsewhere, then the rest. Renaming such pods changes no verdict (checked: the renamed
    order is replayed, and ``order`` is kept if it fails), and the witness then marks only
    real differences from greedy."""
    alike = {p.key: repr(dataclasses.replace(p, name="", uid="")) for p in pods}
    members: dict[str, list[Pod]] = defaultdict(list)
    for p in pods:
        members[alike[p.key]].append(p)
    slots: dict[str, list[int]] = defaultdict(list)
    for idx, (p, _) in enumerate(order):
        slots[alike[p.key]].append(idx)
    renamed = list(order)
    for group, idxs in slots.items():
        free = list(members[group])
        chosen: dict[int, Pod] = {}
        for idx in idxs:
            pick = next((p for p in free if greedy.get(p.key) == order[idx][1]), None)
            if pick is not None:
                chosen[idx] = pick
                free.remove(pick)
        free.sort(key=lambda p: p.key not in greedy)  # stable: greedy's own first
        for idx in idxs:
            if idx not in chosen:
                chosen[idx] = free.pop(0)
        for idx, p in chosen.items():
            renamed[idx] = (p, order[idx][1])
    return renamed if replays_in_order(filters, renamed) else list(order)


def _score(f: Figures, objective: str) -> tuple[int, ...]:
    if objective == "priority":
        return (f.priority, f.placed)
    if objective == "nodes":
        return (f.placed, -f.nodes)
    return (f.placed,)


def _start_from_greedy(
    outcome: Outcome,
    filters: Filters,
    world: tuple[Sequence[Pod], Sequence[Pod], Sequence[Node]],
    budget: int,
) -> None:
    """Greedy's bindings, when its run preempted no one, are a valid placement (when it did,
    those of them that pass without the evictions): the best known until the solver finds
    better, its starting point, and what a timeout falls back to."""
    pods, bound, nodes = world
    by_key = {p.key: p for p in pods}
    placement = [(by_key[k], n) for k, n in outcome.greedy.bindings.items() if k in by_key]
    order: list[tuple[Pod, str]] | None = None
    if not outcome.greedy.preempted:
        try:
            order = find_order(filters, placement, budget)
        except OrderBudgetExceeded:
            order = None
    if order is None:
        order = what_passes(filters, placement)
    _keep(outcome, order, pods, bound, nodes)


def as_json(outcome: Outcome) -> dict[str, Any]:
    g = outcome.greedy
    return {
        "result": outcome.result,
        "objective": outcome.objective,
        "optimum": {
            **outcome.best.as_json(),
            "placement": dict(sorted(outcome.placement.items())),
            "order": [{"pod": k, "node": n} for k, n in outcome.order],
        },
        "greedy": {
            **outcome.greedy_figures.as_json(),
            "bindings": dict(sorted((k, v) for k, v in g.bindings.items())),
            "preempted": list(g.preempted),
            "unschedulable": sorted(g.unschedulable),
        },
        "gap": outcome.gap().as_json(),
        "considered": outcome.considered,
        "left_out": dict(sorted(outcome.left_out.items())),
        "never_fit": dict(sorted(outcome.never.items())),
        "solver": {
            "name": outcome.solver,
            "seconds": round(outcome.seconds, 3),
            "solves": outcome.solves,
            "cuts": outcome.cuts,
            "inexact_cuts": outcome.inexact_cuts,
            "model_exact": outcome.model_exact,
            "upper_bound": outcome.upper_bound,
        },
        "notes": outcome.notes,
    }
