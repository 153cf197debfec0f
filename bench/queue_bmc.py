"""How fast ``schedspec bmc`` proves spec/kube/queue.tla's invariants, per number of steps k.

The universe is issue 25's: 3 pods, 2 nodes, 2 plugins (NodeResourcesFit, NodeAffinity), the
clock advancing by 1, 2, 11 or 301 s a tick. For each k the figure is one query covering every
behaviour of at most k steps (``bmc``'s default), with the five invariants; the target is
k ≤ 8 within 60 s. Two baselines are measured in the same run:

- depth by depth (``--incremental``): one incremental solver, one query per depth; the time
  printed is the cumulative time to prove every depth up to k;
- explicit-state search (as TLC does) on the executable backend: every reachable state to depth
  k, each invariant evaluated on each, until ``--explicit-budget`` seconds are spent.

A mutant invariant (backoff capped at 1 s instead of 10 s) must be found at k = 8.

    python3 bench/queue_bmc.py [--steps 8] [--explicit-budget 60]
"""

from __future__ import annotations

import argparse
import time
from importlib import resources

from schedspec.spec.compile.actions import StateMachine
from schedspec.spec.compile.z3.bmc import bmc
from schedspec.spec.kube.queue_view import queue_constants
from schedspec.spec.parse import parse

MUTANT = '\\A p \\in Pods : where[p] = "backoffQ" => backoffExpiry[p] - timestamp[p] <= 1'


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--explicit-budget", type=float, default=60.0)
    args = ap.parse_args()
    text = (resources.files("schedspec.spec.kube") / "queue.tla").read_text(encoding="utf-8")
    module = parse(text, "spec/kube/queue.tla")
    invariants = [d.name for d in module.definitions if d.name.endswith("Inv")]
    constants = queue_constants(3, 2, 2)

    cumulative: list[float] = []
    started = time.monotonic()
    bmc(
        module,
        constants,
        invariants,
        args.steps,
        timeout=600,
        incremental=True,
        on_depth=lambda k, s: cumulative.append(time.monotonic() - started),
    )
    machine = StateMachine(module, constants)
    explicit = _explicit(machine, invariants, args.steps, args.explicit_budget)

    print(f"{'k':>2}  {'bmc (one query)':>16}  {'depth by depth':>15}  {'explicit search':>22}")
    for k in range(args.steps + 1):
        t0 = time.monotonic()
        result = bmc(module, constants, invariants, k, timeout=600)
        took = time.monotonic() - t0
        inc = f"{cumulative[k]:.2f} s" if k < len(cumulative) else "—"
        exp = f"{explicit[k][1]:.2f} s, {explicit[k][0]} states" if k in explicit else "over budget"
        print(f"{k:>2}  {took:>10.2f} s {result.verdict[:5]:>5}  {inc:>15}  {exp:>22}")
    t0 = time.monotonic()
    found = bmc(module, constants, [MUTANT], args.steps, timeout=600)
    print(
        f"mutant (backoff cap 1 s) at k ≤ {args.steps}: {found.verdict} after "
        f"{found.steps} steps in {time.monotonic() - t0:.2f} s"
    )


def _explicit(
    sm: StateMachine, invariants: list[str], steps: int, budget: float
) -> dict[int, tuple[int, float]]:
    """Depth → (distinct states reachable within it, cumulative seconds), within ``budget``."""
    started = time.monotonic()
    seen: set[tuple[object, ...]] = set()
    frontier = sm.initial_states()
    out: dict[int, tuple[int, float]] = {}
    for depth in range(steps + 1):
        fresh = []
        for s in frontier:
            key = tuple(s.items())
            if key in seen:
                continue
            seen.add(key)
            fresh.append(s)
            assert all(sm.holds(i, s) for i in invariants), s
            if time.monotonic() - started > budget:
                return out
        out[depth] = (len(seen), time.monotonic() - started)
        frontier = [n.state for s in fresh for n in sm.successors(s)]
    return out


if __name__ == "__main__":
    main()
