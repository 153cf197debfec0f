"""Impl against impl: this checkout's operational scheduler against another checkout's, on the
race's workloads (``bench/race.py``: upstream scheduler_perf's templates and sizes).

Each run is a fresh Python process that imports ``schedspec`` from one checkout (a temporary
package of symlinks to its ``schedspec/``, ``impl/``, ``spec/`` and ``checker/``, first on
``sys.path``, so the editable install's finder never answers) and builds the workload with *this*
checkout's ``race.workload``: both sides meet the same objects. A run is timed as
``race.run_impl`` times it — the initial watch events delivered first, then ``Scheduler.run()``
whole — and prints its bindings. Per workload the baseline and this checkout alternate
``--repeat`` times; the table shows each side's best rate and their ratio, per second of wall
time and per CPU second of the process (impl is one thread: on a shared, loaded machine the CPU
figure moves less), and whether the two sides' decisions (every pod's node, the preempted pods,
the pods left pending) are identical.

    git worktree add /tmp/impl-base <commit>
    python3 bench/impl_speed.py --baseline-tree /tmp/impl-base --nodes 500 5000
    python3 bench/impl_speed.py --baseline-tree /tmp/impl-base --only SchedulingBasic --repeat 3
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from trees import package_of

HERE = Path(__file__).resolve().parent


def _race() -> Any:
    spec = importlib.util.spec_from_file_location("race", HERE / "race.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["race"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def child(tree: Path, name: str, nodes: int, pods: int | None) -> None:
    """One timed run of ``tree``'s impl; one JSON line on stdout."""
    with tempfile.TemporaryDirectory(prefix="impl-speed-") as tmp:
        package_of(tree, Path(tmp))
        sys.path.insert(0, tmp)
        race = _race()
        import schedspec.impl
        from schedspec.cluster import from_objects
        from schedspec.impl.simulate import build, result_of

        load = race.workload(name, nodes, pods)
        scheduler = build(from_objects(load.objects))
        while scheduler.loop.pending() and not scheduler.queue.pending():
            scheduler.loop.run_one()
        start, cpu_start = time.perf_counter(), time.process_time()
        scheduler.run()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        result = result_of(scheduler)
        decisions = {
            "bindings": dict(sorted(result.bindings.items())),
            "preempted": sorted(result.preempted),
            "pending": sorted(result.unschedulable),
        }
        bound = sum(1 for key in result.bindings if key in load.measured)
        print(json.dumps({
            "impl": str(Path(schedspec.impl.__file__).resolve().parent),
            "bound": bound,
            "seconds": elapsed,
            "cpu": cpu,
            "decisions": decisions,
        }))  # fmt: skip


def _run(tree: Path, name: str, nodes: int, pods: int | None) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child", str(tree), "--only", name, "--nodes", str(nodes)]
    if pods is not None:
        argv += ["--pods", str(pods)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd="/", check=False)
    if done.returncode != 0:
        sys.exit(f"the run of {tree} on {name} failed:\n{done.stderr[-3000:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def _digest(decisions: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(decisions, sort_keys=True).encode()).hexdigest()[:12]


def _differences(a: dict[str, Any], b: dict[str, Any]) -> str:
    ba, bb = a["bindings"], b["bindings"]
    moved = sorted(k for k in ba.keys() | bb.keys() if ba.get(k) != bb.get(k))
    shown = ", ".join(f"{k}: {ba.get(k)} vs {bb.get(k)}" for k in moved[:5])
    return f"{len(moved)} pods differ ({shown}); preempted same: {a['preempted'] == b['preempted']}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline-tree", type=Path, help="the checkout to compare with")
    parser.add_argument("--nodes", type=int, nargs="+", default=[500], help="node counts")
    parser.add_argument("--pods", type=int, default=None, help="at most this many measured pods")
    workloads = ["SchedulingBasic", "SchedulingPodAntiAffinity", "SchedulingPodAffinity",
                 "TopologySpreading", "PreemptionBasic"]  # fmt: skip
    parser.add_argument("--only", nargs="+", choices=workloads, default=workloads)
    parser.add_argument("--repeat", type=int, default=1, help="runs per side (best is shown)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.only[0], args.nodes[0], args.pods)
        return
    if args.baseline_tree is None or not (args.baseline_tree / "impl").is_dir():
        parser.error(f"--baseline-tree={args.baseline_tree}: not a schedspec checkout")
    now, before = HERE.parent, args.baseline_tree.resolve()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    print(f"impl-now: {now}   impl-before: {before}", flush=True)
    rows = []
    for nodes in args.nodes:
        for name in args.only:
            wall: dict[str, float] = {"now": 0.0, "before": 0.0}
            cpu: dict[str, float] = {"now": 0.0, "before": 0.0}
            digests: dict[str, dict[str, Any]] = {}
            for _ in range(args.repeat):
                for side, tree in (("before", before), ("now", now)):
                    run = _run(tree, name, nodes, args.pods)
                    rate = run["bound"] / run["seconds"] if run["seconds"] else 0.0
                    cpu_rate = run["bound"] / run["cpu"] if run["cpu"] else 0.0
                    wall[side], cpu[side] = max(wall[side], rate), max(cpu[side], cpu_rate)
                    digests[side] = run["decisions"]
                    print(f"  {name} nodes={nodes} impl-{side:<6} bound {run['bound']} in "
                          f"{run['seconds']:.2f} s ({run['cpu']:.2f} s CPU)  {rate:.1f} pods/s "
                          f"({cpu_rate:.1f} per CPU second)  decisions "
                          f"{_digest(run['decisions'])}  ({run['impl']})", flush=True)  # fmt: skip
            same = digests["now"] == digests["before"]
            if not same:
                print(f"  DECISIONS DIFFER: {_differences(digests['before'], digests['now'])}")
            rows.append((name, nodes, wall, cpu, same))
    print(f"\nload average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("pods/s of wall time, and (in brackets) per CPU second of the process: on a loaded")
    print("machine the second is the steadier figure, impl being one thread")
    print("| workload | nodes | impl-before pods/s | impl-now pods/s | now/before | decisions |")
    print("|---|---|---|---|---|---|")
    for name, nodes, w, c, same in rows:
        verdict = "identical" if same else "DIFFER"
        ratio = w["now"] / w["before"] if w["before"] else float("nan")
        cpu_ratio = c["now"] / c["before"] if c["before"] else float("nan")
        was, became = f"{w['before']:.0f} ({c['before']:.0f})", f"{w['now']:.0f} ({c['now']:.0f})"
        print(
            f"| {name} | {nodes} | {was} | {became} | {ratio:.2f} ({cpu_ratio:.2f}) | {verdict} |"
        )


if __name__ == "__main__":
    main()
