"""``schedspec optimal``: how fast the optimum is proven, how far greedy is from it, and which
solver earns its place.

Clusters come from ``schedspec.checker.optimal_clusters.gap_cluster(nodes, pods, seed)``: nodes
of three shapes in three zones, a third already running a pod or two, pending Deployments of
250m–3 CPUs with hostname anti-affinity, zone affinity to another Deployment or a DoNotSchedule
zone spread, asking 90–130 % of the free cpu. Four measurements, each printed beside its
baseline:

1. **solvers** — the same models (before any cut) solved to optimality by OR-Tools CP-SAT (one
   worker, the default) and by Z3 ``Optimize`` (soft constraints, MaxRes; with the
   symmetry-breaking constraints it needs), seconds per model, a cap per solve.
2. **time to optimality** — the whole command (greedy's run, the model, CP-SAT, the replay
   through impl's filters, cuts) per size, with a 60 s budget: median and worst seconds, how
   many proven.
3. **greedy's gap** — pods placed by the optimum minus by greedy (``schedspec schedule``'s run),
   mean and worst, and how often greedy loses; clusters where greedy preempted are counted
   apart (the optimum evicts no one, so there the comparison is not like for like).
4. **largest proven in 60 s** — growing sizes until a seed is not proven within 60 s.

    python3 bench/optimal.py            # about 15 minutes on one core
    python3 bench/optimal.py --quick    # smaller sizes and fewer seeds, about 3 minutes
"""

from __future__ import annotations

import argparse
import statistics
import time

from schedspec.checker import optimal as opt
from schedspec.checker.optimal_clusters import gap_cluster
from schedspec.checker.optimal_filters import Filters
from schedspec.checker.optimal_model import Problem, build
from schedspec.checker.optimal_solvers import CpSatBackend, Z3Backend
from schedspec.impl.autoscaler.context import namespace_labels
from schedspec.impl.simulate import simulate

BUDGET = 60.0


def _model(nodes: int, pods: int, seed: int, symmetry: bool) -> Problem:
    cluster = gap_cluster(nodes, pods, seed)
    node_objs, bound, pending, _ = opt._split(cluster)
    namespaces = namespace_labels(cluster)
    filters = Filters(node_objs, bound, namespaces)
    return build(pending, node_objs, bound, namespaces, "placed", filters, symmetry=symmetry)


def _sizes(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in (s.split("x") for s in text.split(","))]


def solvers(sizes: list[tuple[int, int]], seeds: int, cap: float) -> None:
    print(f"\n1. solvers on the same models (no cut), seconds to a proven optimum; cap {cap:g} s")
    print(f"{'nodes×pods':>11} {'CP-SAT med':>11} {'max':>6} {'proven':>7} "
          f"{'Z3 med':>8} {'max':>6} {'proven':>7}  Z3/CP-SAT (total)")  # fmt: skip
    for nodes, pods in sizes:
        cp_s, z3_s, cp_ok, z3_ok = [], [], 0, 0
        for seed in range(seeds):
            cp = CpSatBackend(_model(nodes, pods, seed, symmetry=False)).solve(cap)
            z3 = Z3Backend(_model(nodes, pods, seed, symmetry=True)).solve(cap)
            cp_s.append(cp.seconds)
            z3_s.append(z3.seconds)
            cp_ok += cp.status == "optimal"
            z3_ok += z3.status == "optimal"
        ratio = sum(z3_s) / max(sum(cp_s), 1e-3)  # total time over the seeds
        slower = f"{ratio:.0f}x" + ("+" if z3_ok < seeds else "")
        print(f"{nodes:>5}×{pods:<5} {statistics.median(cp_s):>11.2f} {max(cp_s):>6.2f} "
              f"{cp_ok:>4}/{seeds:<2} {statistics.median(z3_s):>8.2f} {max(z3_s):>6.2f} "
              f"{z3_ok:>4}/{seeds:<2}  {slower}", flush=True)  # fmt: skip
    print("   (+: Z3 hit the cap, so the ratio is a lower bound)")


def _run(nodes: int, pods: int, seed: int, budget: float) -> tuple[opt.Outcome, float]:
    cluster = gap_cluster(nodes, pods, seed)
    start = time.perf_counter()
    greedy = simulate(cluster, cluster.scheduler_config, 0)
    outcome = opt.optimal(cluster, "placed", budget, greedy=greedy)
    return outcome, time.perf_counter() - start


def to_optimality(sizes: list[tuple[int, int]], seeds: int) -> None:
    print(f"\n2. schedspec optimal, whole command (greedy run, model, CP-SAT, replay), "
          f"budget {BUDGET:g} s")  # fmt: skip
    print(f"{'nodes×pods':>11} {'median s':>9} {'max s':>7} {'proven':>7} {'cuts':>5} "
          f"{'placed opt/greedy (sum)':>24}")  # fmt: skip
    for nodes, pods in sizes:
        times, proven, cuts, best, greedy = [], 0, 0, 0, 0
        for seed in range(seeds):
            outcome, seconds = _run(nodes, pods, seed, BUDGET)
            times.append(seconds)
            proven += outcome.result == "optimal"
            cuts += outcome.cuts
            best += outcome.best.placed
            greedy += outcome.greedy_figures.placed
        print(f"{nodes:>5}×{pods:<5} {statistics.median(times):>9.2f} {max(times):>7.2f} "
              f"{proven:>4}/{seeds:<2} {cuts:>5} {best:>15} / {greedy:<6}", flush=True)  # fmt: skip


def gap(sizes: list[tuple[int, int]], seeds: int) -> None:
    print("\n3. greedy's gap in pods placed (optimum − greedy), generated clusters")
    print(f"{'nodes×pods':>11} {'clusters':>9} {'greedy loses':>13} {'mean gap':>9} "
          f"{'worst':>6} {'mean % of pending':>18}   "
          "preempting runs apart: n, mean gap")  # fmt: skip
    for nodes, pods in sizes:
        gaps, pre_gaps, unknown = [], [], 0
        for seed in range(seeds):
            outcome, _ = _run(nodes, pods, seed, BUDGET)
            if outcome.result != "optimal":
                unknown += 1
                continue
            g = outcome.gap().placed
            (pre_gaps if outcome.greedy.preempted else gaps).append(g)
        loses = sum(g > 0 for g in gaps)
        mean = statistics.mean(gaps) if gaps else 0.0
        share = 100 * mean / pods
        pre = f"{len(pre_gaps)}, {statistics.mean(pre_gaps):+.2f}" if pre_gaps else "0"
        note = f"  ({unknown} not proven, left out)" if unknown else ""
        rate = 100 * loses / max(len(gaps), 1)
        print(f"{nodes:>5}×{pods:<5} {len(gaps):>9} {loses:>7} ({rate:>3.0f}%) {mean:>9.2f} "
              f"{max(gaps, default=0):>6} {share:>17.1f}%   {pre}{note}", flush=True)  # fmt: skip


def largest(sizes: list[tuple[int, int]], seeds: int) -> None:
    print(f"\n4. largest size whose {seeds} seeds are all proven optimal within {BUDGET:g} s")
    last = None
    for nodes, pods in sizes:
        results = [_run(nodes, pods, seed, BUDGET) for seed in range(seeds)]
        worst = max(s for _, s in results)
        proven = sum(o.result == "optimal" for o, _ in results)
        print(f"   {nodes}×{pods}: {proven}/{seeds} proven, slowest {worst:.1f} s", flush=True)
        if proven < seeds:
            break
        last = (nodes, pods)
    print(f"   largest: {'none' if last is None else f'{last[0]} nodes × {last[1]} pods'}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer seeds")
    parser.add_argument("--only", choices=("solvers", "optimality", "gap", "largest"))
    args = parser.parse_args()
    quick = args.quick
    print("schedspec optimal on gap_cluster(nodes, pods, seed); one core, CP-SAT one worker")
    if args.only in (None, "solvers"):
        sizes = "5x10,10x20,20x40" if quick else "5x10,10x20,20x40,40x80"
        solvers(_sizes(sizes), 3, 10.0 if quick else 30.0)
    if args.only in (None, "optimality"):
        sizes = "5x10,10x20,20x40" if quick else "5x10,10x20,20x40,40x80,80x160"
        to_optimality(_sizes(sizes), 3)
    if args.only in (None, "gap"):
        gap(_sizes("5x10,10x20" if quick else "5x10,10x20,20x40"), 10 if quick else 30)
    if args.only in (None, "largest"):
        sizes = "20x40,40x80" if quick else "40x80,60x120,80x160,120x240"
        largest(_sizes(sizes), 2 if quick else 3)


if __name__ == "__main__":
    main()
