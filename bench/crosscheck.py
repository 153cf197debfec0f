"""Checked states per second: 10-node × 10-pod clusters through every seam predicate.

    python3 bench/crosscheck.py [--examples 200] [--nodes 10] [--pods 10] [--seed 0] [--jobs 2]
                                [--baseline-tree /tmp/base]

Prints, for the same clusters in the same run: drawing them (Hypothesis), loading them
(``cluster.from_objects``), the spec side alone (view + every seam definition), the impl side
alone (sync + every plugin and the framework), and the full check — so the cost of each part is a
ratio against the others, not a number from another day. The spec side is also timed on the
closure backend (a quarter of the clusters, scaled), the one ``eval`` and ``explain`` run, against
the generated-source backend the checker runs. Last, whole campaigns through :func:`run_parallel`
with one job and with ``--jobs`` worker processes: the rate for ``--examples`` clusters, and the
steady rate (the marginal rate between that campaign and one three times as large), which leaves
out what a worker pays once — the rate a long campaign runs at.

With ``--baseline-tree`` (a checkout of another commit: ``git worktree add /tmp/base <commit>``)
the same bench runs first on that tree, in a child process that imports ``schedspec`` from it
(``trees.py``), on the same clusters; then here; then a table of both and their ratios, against
the goal of 500 clusters/s per core.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from trees import run_script_with

from schedspec.checker.campaign import run_parallel
from schedspec.checker.differential import Checker, ImplState, SpecState, _run_pod
from schedspec.checker.seam import SEAM
from schedspec.checker.strategies import cluster_objects
from schedspec.cluster import from_objects
from schedspec.spec.errors import EvalError

GOAL_PER_CORE = 500.0  # issue 27: clusters/s per core at 10 × 10, every seam predicate


def _rate(n: int, seconds: float) -> str:
    return f"{n / seconds:8.1f} /s  ({seconds * 1000 / n:6.2f} ms each)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=200)
    ap.add_argument("--nodes", type=int, default=10)
    ap.add_argument("--pods", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes for the last row")
    ap.add_argument("--baseline-tree", type=Path, help="run the bench on this checkout first")
    ap.add_argument("--summary", action="store_true", help=argparse.SUPPRESS)  # for the parent
    args = ap.parse_args()
    base: dict[str, float] | None = None
    if args.baseline_tree is not None:
        base = _baseline(args)
    figures: dict[str, float] = {}

    drawn: list[list[dict[str, Any]]] = []

    @hypothesis_seed(args.seed)
    @settings(
        max_examples=args.examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        cluster_objects(
            min_nodes=args.nodes, max_nodes=args.nodes, min_pods=args.pods, max_pods=args.pods
        )
    )
    def draw(objects: list[dict[str, Any]]) -> None:
        drawn.append(objects)

    t = time.perf_counter()
    draw()
    t_draw = time.perf_counter() - t
    n = len(drawn)
    t = time.perf_counter()
    clusters = [from_objects(o) for o in drawn]
    t_load = time.perf_counter() - t

    checker = Checker()
    names = [row.spec for row in SEAM if row.point in ("filter", "status", "feasible", "score")]
    t = time.perf_counter()
    for c in clusters:
        s = SpecState(checker.spec, c)
        for key in s.world.pending:
            p = s.world.pods[key]
            for node in s.world.nodes.values():
                for name in names:
                    s.call(name, p, node)
    t_spec = time.perf_counter() - t

    t = time.perf_counter()
    for c in clusters:
        i = ImplState(c)
        for pod in i.pending.values():
            fwk = i.framework(pod)
            if fwk is not None:
                _run_pod(fwk, i, pod)
    t_impl = time.perf_counter() - t

    comparisons = 0
    t = time.perf_counter()
    for c in clusters:
        comparisons += sum(checker.check(c).checked.values())
    t_check = time.perf_counter() - t

    pending = sum(len(c.pending_pods()) for c in clusters) / n
    print(f"{n} clusters of {args.nodes} nodes × {args.pods} pods ({pending:.1f} pending each)")
    print(f"  draw (Hypothesis)      {_rate(n, t_draw)}")
    print(f"  load (from_objects)    {_rate(n, t_load)}")
    print(f"  spec side alone        {_rate(n, t_spec)}")
    print(f"  impl side alone        {_rate(n, t_impl)}")
    print(
        f"  full check             {_rate(n, t_check)}   {comparisons / t_check:,.0f} comparisons/s"
    )
    total = t_draw + t_load + t_check
    print(f"  one process, draw+load+check {n / total:.1f} checked states/s")
    figures.update(
        draw_ms=t_draw * 1000 / n,
        load_ms=t_load * 1000 / n,
        spec_ms=t_spec * 1000 / n,
        impl_ms=t_impl * 1000 / n,
        check_ms=t_check * 1000 / n,
        one_process=n / total,
    )
    spec_program = checker.spec.program
    t = time.perf_counter()
    for c in clusters[: max(1, n // 4)]:
        world = checker.spec.view.build(c)
        spec_program.bind(world.constants)
        for key in world.pending:
            p = world.pods[key]
            for node in world.nodes.values():
                for name in names:
                    with contextlib.suppress(EvalError):  # SpecState.call keeps it as a value
                        spec_program.call(name, p, node)
    t_closures = (time.perf_counter() - t) / max(1, n // 4) * n
    print(
        f"  spec side, closure backend {_rate(n, t_closures)}   "
        f"(the source backend is {t_closures / t_spec:.1f}× faster)"
    )
    # A worker pays a fixed cost once (loading and compiling the specs); the marginal rate
    # between a campaign of n clusters and one of 3n is what a long campaign runs at.
    for jobs in sorted({1, args.jobs}):
        timed = []
        for size in (n, 3 * n):
            t = time.perf_counter()
            result = run_parallel(
                size,
                args.seed,
                jobs=jobs,
                nodes=(args.nodes,) * 2,
                pods=(args.pods,) * 2,
                shrink=False,
                shard_size=-(-size // args.jobs),  # one shard per worker: all of them busy
            )
            timed.append((result.examples, time.perf_counter() - t))
        (n1, s1), (n3, s3) = timed
        steady = (n3 - n1) / (s3 - s1)
        figures[f"steady_{jobs}"] = steady
        print(f"  run_parallel, {jobs} job(s)  {_rate(n1, s1)} for {n1};  steady {steady:6.1f} /s")
    if args.summary:
        print("SUMMARY " + json.dumps(figures))
    if base is not None:
        _compare(base, figures, args)


def _baseline(args: argparse.Namespace) -> dict[str, float]:
    """The bench's figures on ``args.baseline_tree``, its output shown as it ran."""
    argv = [a for a in sys.argv[1:] if a != "--summary"]
    i = argv.index("--baseline-tree")
    argv[i : i + 2] = []
    done = run_script_with(args.baseline_tree, Path(__file__), [*argv, "--summary"])
    if done.returncode != 0:
        sys.exit(f"the baseline run failed:\n{done.stderr[-3000:]}")
    lines = done.stdout.splitlines()
    print(f"baseline: {args.baseline_tree}")
    print("\n".join(line for line in lines if not line.startswith("SUMMARY ")))
    print("this checkout:")
    summary: dict[str, float] = json.loads(lines[-1].removeprefix("SUMMARY "))
    return summary


def _compare(base: dict[str, float], now: dict[str, float], args: argparse.Namespace) -> None:
    print(f"\n| {args.nodes} nodes × {args.pods} pods | baseline | this checkout | ratio |")
    print("|---|---|---|---|")
    for key, label, per_ms in [
        ("draw_ms", "draw (ms)", True),
        ("load_ms", "load (ms)", True),
        ("spec_ms", "spec side (ms)", True),
        ("impl_ms", "impl side (ms)", True),
        ("check_ms", "full check (ms)", True),
        ("steady_1", "one job, steady (clusters/s: per core)", False),
        (f"steady_{args.jobs}", f"{args.jobs} jobs, steady (clusters/s)", False),
    ]:
        if key in base and key in now:
            ratio = base[key] / now[key] if per_ms else now[key] / base[key]
            print(f"| {label} | {base[key]:.2f} | {now[key]:.2f} | {ratio:.2f}× |")
    per_core = now["steady_1"]
    print(
        f"\nper core: {per_core:.1f} clusters/s against the goal of {GOAL_PER_CORE:.0f} "
        f"({per_core / GOAL_PER_CORE:.0%}); drawing and loading alone cost "
        f"{now['draw_ms'] + now['load_ms']:.2f} ms a cluster, at most "
        f"{1000 / (now['draw_ms'] + now['load_ms']):.0f} clusters/s with a check that cost nothing"
    )


if __name__ == "__main__":
    main()
