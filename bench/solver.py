"""Benchmark: the Z3 backend (``schedspec find`` / ``schedspec diff``, spec/solve/).

    python3 bench/solver.py [--quick] [--only a|b|c|d] [--limit 60] [--max-n 70]

Prints:
(a) each textbook-vs-real ``diff`` at the default bounds, with and without ``--minimize``
    (target: < 1 s each without);
(b) two ``find`` queries on a 10-node × 10-pod symbolic cluster: a pending pod no node accepts,
    and a pending pod feasible on exactly one node (target: < 3 s), median of 3 runs each, beside
    the baseline: the same query with the small-clusters-first ladder off
    (spec/solve/small_first.py ``STAGED``), the whole cluster solved at once as before;
(d) two ``find`` queries over ``autoscaler.tla`` (node groups; spec/kube/symbolic/
    autoscaler_shape.py) on N nodes × N + 1 pods, one group, small slot bounds, N = 1 … 4:
    "a scale-up of two nodes" and "scaled up, pod still pending"; each beside its baseline, the
    same query with FoldLeft over a sorted set stepping through the slots' IF-chains instead of
    each candidate (how the backend folded before), cut at ``--limit``;
(c) unless ``--quick``: the largest N (nodes = pods = N, other bounds at their defaults) for which
    ``Feasible(p, n) /\\ p.spec.nodeName = ""`` is solved within ``--limit`` seconds, stepping
    N = 10, 20, 30, … up to ``--max-n`` and stopping at the first N over the limit. Build (Session
    construction + compiling the formula) and solve are timed separately. Beside each N, the
    baseline: the same query with the small-clusters-first ladder off (stopped after its first N
    over the limit). Each run is a child process, killed if it overruns, so a slow build cannot
    hang the benchmark.

Timings are wall-clock (``time.perf_counter``) and include, for (a) and (b), replaying each
witness through the executable backend, as the CLI does.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from schedspec.spec.compile.z3 import neg
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.solve import Session, diff, find, small_first

PAIRS = [
    ("FilterLifecycle", "NodeUnschedulableOK"),
    ("Resources", "FitOK"),
    ("FilterNodeSelector", "NodeSelectorOK"),
    ("FilterTaints", "TaintsOK"),
    ("FilterAffinity", "RequiredNodeAffinityOK"),
    ("FilterAffinity", "InterPodAffinityOK"),
    ("Filter", "Feasible"),
]

FINDS = [
    ("pending, no feasible node",
     'p.spec.nodeName = "" /\\ ~Terminal(p) /\\ \\A n \\in Nodes : ~Feasible(p, n)'),
    ("pending, feasible on exactly one node",
     'p.spec.nodeName = "" /\\ ~Terminal(p) /\\ Feasible(p, n) /\\ '
     "\\A m \\in Nodes : m = n \\/ ~Feasible(p, m)"),
]  # fmt: skip

UNSAT_DIFF = ("unsat: diff FilterNodeSelector, 6 × 6", ("FilterNodeSelector", "NodeSelectorOK"))
UNSAT_BOUNDS = Bounds(nodes=6, pods=6)

SCALE_QUERY = 'Feasible(p, n) /\\ p.spec.nodeName = ""'

AUTOSCALER_FINDS = [
    ("a scale-up of two nodes", "\\E g \\in Groups : PlannedNodes(g) = 2"),
    ("scaled up, pod still pending", "\\E g \\in Groups : PendingAfterScaleUp(p, g)"),
]


def _load() -> str:
    """The machine's load average (1, 5, 15 minutes): the benchmark is only as quiet as this."""
    try:
        with open("/proc/loadavg", encoding="utf-8") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def autoscaler_bounds(n: int) -> Bounds:
    return Bounds(nodes=n, pods=n + 1, keys=2, values=2, taints=1, tolerations=1,
                  init_containers=0, ports=0, term_values=1, groups=1)  # fmt: skip


def one_autoscaler(n: int, query: int, baseline: bool, limit: float) -> dict[str, Any]:
    """Find AUTOSCALER_FINDS[query] at N = n (run in a child process)."""
    from schedspec.spec.compile.z3 import builtins

    builtins.FOLD_BY_CANDIDATE = not baseline
    start = time.perf_counter()
    answer = find(AUTOSCALER_FINDS[query][1], "autoscaler", autoscaler_bounds(n), timeout=limit)
    return {"result": answer.result, "seconds": time.perf_counter() - start}


def _child(args: list[str], limit: float) -> dict[str, Any] | None:
    cmd = [sys.executable, __file__, *args, "--limit", str(limit)]
    try:  # the solver obeys its timeout; the build only checks it now and then
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=2 * limit + 30)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        return {"result": "failed: " + " ".join(out.stderr.strip().splitlines()[-1:]), "seconds": 0}
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def bench_autoscaler(limit: float) -> None:
    print(f"\n(d) find over autoscaler.tla, N nodes × N + 1 pods, 1 group; limit {limit:.0f} s")
    print(f"    {'query':<30} {'N':>2} {'result':<8} {'seconds':>8}   baseline (fold by slot)")
    for q, (label, _) in enumerate(AUTOSCALER_FINDS):
        for n in range(1, 5):
            row = []
            for baseline in (False, True):
                r = _child(["--autoscaler", f"{n}:{q}:{int(baseline)}"], limit)
                if r is None:
                    row.append(f"{'killed':<8} {'>' + str(int(2 * limit + 30)):>8}")
                else:
                    row.append(f"{r['result']:<8} {r['seconds']:>8.2f}")
            print(f"    {label:<30} {n:>2} {row[0]}   {row[1]}")


def bench_diffs(timeout: float) -> None:
    print("(a) diff textbook scheduler --predicate A=B, default bounds "
          f"({Bounds().nodes} nodes, {Bounds().pods} pods)")  # fmt: skip
    print(f"    {'pair':<42} {'result':<8} {'plain s':>8} {'result':<8} {'--minimize s':>12}")
    for a, b in PAIRS:
        row = [f"{a}={b}"]
        for minimize in (False, True):
            start = time.perf_counter()
            answer = diff("textbook", "scheduler", a, b, minimize=minimize, timeout=timeout)
            row += [answer.result, f"{time.perf_counter() - start:.2f}"]
        print(f"    {row[0]:<42} {row[1]:<8} {row[2]:>8} {row[3]:<8} {row[4]:>12}")


def one_find(query: int, staged: bool, limit: float) -> dict[str, Any]:
    """Find FINDS[query] on 10 nodes × 10 pods (run in a child process: a fresh interpreter for
    each run, so no run reuses another's parsed spec)."""
    small_first.STAGED = staged
    start = time.perf_counter()
    if query == len(FINDS):  # the unsat row: what the stages cost when none holds a witness
        answer = diff("textbook", "scheduler", *UNSAT_DIFF[1], bounds=UNSAT_BOUNDS, timeout=limit)
    else:
        answer = find(FINDS[query][1], bounds=Bounds(nodes=10, pods=10), timeout=limit)
    return {"result": answer.result, "seconds": time.perf_counter() - start, "cpu": _cpu()}


def _cpu() -> float:
    """This process's CPU seconds (Z3 runs inside it): less at the mercy of the machine's load
    than the wall clock, though caches and memory bandwidth are still shared."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def bench_finds(limit: float, runs: int = 3) -> None:
    print(
        f"\n(b) find on 10 nodes × 10 pods (scheduler.tla), median of {runs} fresh processes; "
        "last, an unsat diff (agree) on 6 × 6: what the stages add when none holds a witness"
    )
    print(f"    {'query':<40} {'result':<8} {'wall s':>8} {'cpu s':>6}   "
          "baseline (whole cluster at once)")  # fmt: skip
    for q, label in enumerate([*(label for label, _ in FINDS), UNSAT_DIFF[0]]):
        row = []
        for staged in (True, False):
            rs = [_child(["--find", f"{q}:{int(staged)}"], limit) for _ in range(runs)]
            if any(r is None for r in rs):
                row.append(f"{'killed':<8} {'':>8} {'':>6}")
                continue
            results = sorted({r["result"] for r in rs if r is not None})
            median = statistics.median(r["seconds"] for r in rs if r is not None)
            cpu = statistics.median(r.get("cpu", 0.0) for r in rs if r is not None)
            row.append(f"{'/'.join(results):<8} {median:>8.2f} {cpu:>6.2f}")
        print(f"    {label:<40} {row[0]}   {row[1]}")


def one_scale(n: int, staged: bool, limit: float) -> dict[str, Any]:
    """Build and solve SCALE_QUERY at nodes = pods = n (run in a child process): through
    ``find`` with its stages (the time includes replaying the witness), or, for the baseline, on
    the whole cluster with build and solve timed apart."""
    small_first.STAGED = staged
    start = time.perf_counter()
    if staged:
        answer = find(SCALE_QUERY, bounds=Bounds(nodes=n, pods=n), timeout=limit)
        return {"n": n, "total": time.perf_counter() - start, "result": answer.result}
    session = Session(Bounds(nodes=n, pods=n), ["scheduler"], timeout=limit)
    constructed = time.perf_counter()
    _, _, result = session.formula("scheduler", SCALE_QUERY)
    defined = neg(result.error) if result.errors else True
    built = time.perf_counter()
    status, _, _, _ = session.solve([result.value], minimize=False, count=1, defined=defined)
    solved = time.perf_counter()
    return {"n": n, "session": constructed - start, "compile": built - constructed,
            "solve": solved - built, "result": status}  # fmt: skip


def _scale_run(n: int, staged: bool, limit: float) -> tuple[str, bool]:
    """One N of (c): the printed cells, and whether it answered within the limit."""
    cmd = [sys.executable, __file__, "--one", f"{n}:{int(staged)}", "--limit", str(limit)]
    try:  # the solver obeys its timeout; the build does not, hence the hard stop
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=3 * limit + 30)
    except subprocess.TimeoutExpired:
        return f"{'killed after ' + str(int(3 * limit + 30)) + ' s':<42}", False
    if out.returncode != 0:
        return f"failed: {out.stderr.strip().splitlines()[-1:]}", False
    r = json.loads(out.stdout.strip().splitlines()[-1])
    if "total" in r:  # through find: stages and the whole cluster are not apart
        ok = r["result"] == "sat" and r["total"] <= limit
        return f"{'—':>8} {'—':>8} {r['total']:>8.2f} {r['result']:<7}", ok
    build = r["session"] + r["compile"]
    ok = r["result"] == "sat" and build + r["solve"] <= limit
    return f"{build:>8.2f} {r['solve']:>8.2f} {build + r['solve']:>8.2f} {r['result']:<7}", ok


def bench_scale(limit: float, max_n: int) -> None:
    print(f"\n(c) {SCALE_QUERY!r}, nodes = pods = N, other bounds default; limit {limit:.0f} s")
    print(f"    {'':>4} {'small clusters first':<35}   baseline (whole cluster at once)")
    head = f"{'build s':>8} {'solve s':>8} {'total s':>8} {'result':<7}"
    print(f"    {'N':>4} {head}   {head}")
    largest: dict[bool, int | None] = {True: None, False: None}
    going = {True: True, False: True}
    for n in range(10, max_n + 1, 10):
        cells = []
        for staged in (True, False):
            if not going[staged]:
                cells.append(f"{'(over the limit at a smaller N)':<35}")
                continue
            cell, ok = _scale_run(n, staged, limit)
            cells.append(cell)
            going[staged] = ok
            if ok:
                largest[staged] = n
        print(f"    {n:>4} {cells[0]}   {cells[1]}", flush=True)
        if not going[True]:
            break
    print(f"    largest N solved within {limit:.0f} s: {largest[True]} "
          f"(baseline, whole cluster at once: {largest[False]})")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only (a) and (b)")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per query in (c)")
    ap.add_argument("--max-n", type=int, default=70, help="largest N tried in (c)")
    ap.add_argument("--only", choices=("a", "b", "c", "d"), help="run one part")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--find", help=argparse.SUPPRESS)
    ap.add_argument("--autoscaler", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one is not None:
        n, staged = (int(x) for x in args.one.split(":"))
        print(json.dumps(one_scale(n, bool(staged), args.limit)))
        return
    if args.find is not None:
        q, staged = (int(x) for x in args.find.split(":"))
        print(json.dumps(one_find(q, bool(staged), args.limit)))
        return
    if args.autoscaler is not None:
        n, q, baseline = (int(x) for x in args.autoscaler.split(":"))
        print(json.dumps(one_autoscaler(n, q, bool(baseline), args.limit)))
        return
    print(f"load average before: {_load()} (2 cores shared; compare each figure with its "
          "baseline, measured in the same run)")  # fmt: skip
    if args.only in (None, "a"):
        bench_diffs(timeout=60.0)
    if args.only in (None, "b"):
        bench_finds(limit=60.0)
    if args.only in (None, "d"):
        bench_autoscaler(args.limit)
    if args.only == "c" or (args.only is None and not args.quick):
        bench_scale(args.limit, args.max_n)
    print(f"\nload average after: {_load()}")


if __name__ == "__main__":
    main()
