"""``schedspec optimal``: how far the scheduler's one-pod-at-a-time run is from the best
placement of the cluster's pending pods.

Prints the optimum (proven, or the best found when time ran out: ``unknown``, never called
optimal) and its placement, greedy's result (``schedspec schedule``'s run) and the gap; when
greedy loses, the optimum as bindings in an order in which each pod passes every Filter plugin
given the ones before it. Exit 0 when the optimum is proven, 3 when it is unknown, 2 on bad input.

``--json``: ``{"result": "optimal|unknown", "objective", "optimum": {"placed", "priority",
"nodes", "placement", "order"}, "greedy": {"placed", "priority", "nodes", "bindings",
"preempted", "unschedulable"}, "gap": {...}, "considered", "left_out", "never_fit", "solver",
"notes"}``.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # the parser is built for every command: load the solver only when asked
    from schedspec.checker.optimal import Outcome

__all__ = ["add_parser", "run_optimal"]

EXIT_OK, EXIT_UNKNOWN = 0, 3


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    op = sub.add_parser(
        "optimal", help="the best placement of the pending pods vs the scheduler's greedy run"
    )
    op.add_argument("cluster", nargs="+", metavar="CLUSTER", help="manifest files (YAML/JSON)")
    op.add_argument(
        "--objective",
        choices=("placed", "priority", "nodes"),
        default="placed",
        help="most pods placed (default), greatest total priority placed, or most pods "
        "placed on the fewest nodes",
    )
    op.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds (default 60)")
    op.add_argument("--seed", type=int, default=0, help="seed of greedy's tie-breaking RNG")
    op.add_argument(
        "--solver",
        choices=("cpsat", "z3"),
        default="cpsat",
        help="OR-Tools CP-SAT (default) or Z3 Optimize: the same model (docs/optimal.md)",
    )
    op.add_argument("--json", action="store_true", help="machine-readable output")


def run_optimal(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.checker.optimal import as_json, optimal
    from schedspec.cluster import load
    from schedspec.errors import UsageError

    if not args.timeout > 0:
        raise UsageError(f"--timeout {args.timeout:g}: want a positive number of seconds")
    cluster = load(*args.cluster)
    outcome = optimal(cluster, args.objective, args.timeout, args.seed, solver=args.solver)
    if args.json:
        json.dump(as_json(outcome), out, indent=2, sort_keys=True)
        print(file=out)
    else:
        for warning in cluster.warnings:
            print(f"warning: {warning}", file=out)
        _print(outcome, out)
    return EXIT_OK if outcome.result == "optimal" else EXIT_UNKNOWN


_WHAT = {
    "placed": "most pods placed",
    "priority": "greatest total priority placed (then most pods)",
    "nodes": "most pods placed, on the fewest nodes",
}


def _print(o: Outcome, out: TextIO) -> None:
    g, b, gap = o.greedy_figures, o.best, o.gap()
    total = len(o.considered)
    print(f"objective: {_WHAT[o.objective]}; {total} pending pod(s) considered", file=out)
    if o.result == "optimal":
        head = "optimum (proven)"
    else:
        head = f"best found in {o.seconds:.1f}s (unknown: not proven optimal)"
    print(f"{head}: {_figures(b.placed, b.priority, b.nodes, total)}", file=out)
    if o.result != "optimal" and o.upper_bound is not None:
        print(f"  no placement places more than {o.upper_bound} (the solver's bound on a "
              "relaxation of the rules)", file=out)  # fmt: skip
    greedy = _figures(g.placed, g.priority, g.nodes, total)
    print(f"greedy (schedspec schedule): {greedy}", file=out)
    preempted = o.greedy.preempted
    if preempted:
        print(f"  greedy evicted {len(preempted)} bound pod(s) to get there "
              f"(the optimum evicts none): {', '.join(preempted)}", file=out)  # fmt: skip
    print(f"gap: {_gap(gap.placed, 'pod(s) placed')}, {_gap(gap.priority, 'priority')}, "
          f"{_gap(gap.nodes, 'node(s) fewer')}", file=out)  # fmt: skip
    _print_placement(o, out)
    if o.never:
        print(f"\nno node admits {len(o.never)} pod(s) even alone:", file=out)
        for key, why in sorted(o.never.items()):
            print(f"  {key}: {why}", file=out)
    if o.left_out:
        print(f"\nleft out ({len(o.left_out)}, the scheduler does not take them):", file=out)
        for key, why in sorted(o.left_out.items()):
            print(f"  {key}: {why}", file=out)
    stats = f"{o.solves} solve(s), {o.cuts} cut(s)"
    if o.inexact_cuts:
        stats += f", {o.inexact_cuts} placement(s) whose order search gave up"
    print(f"\nsolver: {o.solver}, {o.seconds:.2f}s, {stats}; validated by impl's filters", file=out)
    for note in o.notes:
        print(f"note: {note}", file=out)


def _figures(placed: int, priority: int, nodes: int, total: int) -> str:
    return f"{placed}/{total} placed, total priority {priority}, {nodes} node(s) in use"


def _gap(value: int, what: str) -> str:
    return f"{value:+d} {what}"


def _print_placement(o: Outcome, out: TextIO) -> None:
    greedy = o.greedy.bindings
    better = o.best.placed > o.greedy_figures.placed or (
        o.objective == "priority" and o.best.priority > o.greedy_figures.priority
    ) or (o.objective == "nodes" and o.gap().nodes > 0)  # fmt: skip
    if not o.order:
        print("\nthe best placement places no pod", file=out)
        return
    width = max(len(k) for k, _ in o.order)
    if better:
        print("\nwitness: bind in this order; each pod passes every Filter plugin given the "
              "ones before it:", file=out)  # fmt: skip
    else:
        print("\nthe best placement (greedy's is as good):", file=out)
    for step, (key, node) in enumerate(o.order, 1):
        was = greedy.get(key)
        if was is None:
            mark = "greedy left it pending"
        elif was != node:
            mark = f"greedy: {was}"
        else:
            mark = ""
        print(f"  {step:>3}. {key:<{width}}  -> {node}{'   (' + mark + ')' if mark else ''}",
              file=out)  # fmt: skip
    moved = sum(1 for k, n in o.order if greedy.get(k) not in (None, n))
    added = sum(1 for k, _ in o.order if k not in greedy)
    dropped = [k for k in greedy if k in o.considered and k not in o.placement]
    if better:
        print(f"  against greedy: {moved} pod(s) on another node, {added} placed that greedy "
              f"left pending, {len(dropped)} greedy placed left pending", file=out)  # fmt: skip
    pending = [k for k in o.considered if k not in o.placement and k not in o.never]
    if pending:
        print(f"  left pending by the optimum: {', '.join(pending)}", file=out)
