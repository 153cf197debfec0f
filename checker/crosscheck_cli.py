"""``schedspec crosscheck``: a differential campaign from the command line.

Prints a progress bar on a terminal (stderr), a table per predicate (comparisons made,
undeclared and declared disagreements, clusters failing), and each undeclared disagreement as a
minimal cluster with both verdicts. ``--json`` prints ``{"examples", "disagreements",
"by_predicate", …}``. Exit 0 when every disagreement is declared, 1 otherwise, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO

from schedspec.errors import UsageError

if TYPE_CHECKING:
    from schedspec.checker.campaign import CampaignResult, Counterexample
    from schedspec.checker.corpus import Seed
    from schedspec.live import Source

__all__ = ["add_parser", "run_crosscheck"]


# The generators crosscheck --strategy offers, with the sizes of the two that ignore --nodes/--pods.
_STRATEGY_SIZES = {
    "default": "",
    "preemption": "1–4 nodes, 1–15 pods",
    "scoring": "2–6 nodes, 1–21 pods",
    "profiles": "the default or scoring clusters, with a drawn KubeSchedulerConfiguration",
}


def _sizes(text: str) -> tuple[int, int]:
    low, _, high = text.partition(":")
    try:
        sizes = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want N or MIN:MAX") from None
    if sizes[0] < 0 or sizes[0] > sizes[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: want 0 ≤ MIN ≤ MAX")
    return sizes


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cc = sub.add_parser(
        "crosscheck", help="differential campaign: spec vs the operational scheduler"
    )
    cc.add_argument("--examples", type=int, default=200, metavar="N", help="clusters (default 200)")
    cc.add_argument("--seed", type=int, default=0, metavar="S", help="Hypothesis seed (default 0)")
    cc.add_argument("--spec", default="scheduler",
                    help="kube|scheduler|textbook or a .tla path (default scheduler)")  # fmt: skip
    cc.add_argument("--nodes", type=_sizes, default=(1, 10), metavar="MIN:MAX",
                    help="nodes per cluster (default 1:10)")  # fmt: skip
    cc.add_argument("--pods", type=_sizes, default=(1, 10), metavar="MIN:MAX",
                    help="pods per cluster (default 1:10)")  # fmt: skip
    cc.add_argument("--out", metavar="DIR", help="write each counterexample as DIR/<rule>-K.yaml")
    cc.add_argument("--write-regressions", action="store_true",
                    help="also write a pytest file per counterexample (needs --out)")  # fmt: skip
    cc.add_argument("--no-shrink", action="store_true",
                    help="report each rule's first failing cluster as drawn")  # fmt: skip
    cc.add_argument("--oracle", choices=["kube"],
                    help="also ask the real kube-scheduler v1.34.2 (oracle/)")  # fmt: skip
    cc.add_argument("--textbook", default="textbook", metavar="SPEC",
                    help="with --oracle: the seed spec also judged against the real scheduler "
                    "(default textbook; a .tla path for a repaired one)")  # fmt: skip
    cc.add_argument("--jobs", type=int, default=1, metavar="J",
                    help="worker processes (with --engine dask and no address: the local Dask "
                    "cluster's workers); the clusters do not depend on it")  # fmt: skip
    cc.add_argument("--shard-size", type=int, default=None, metavar="N",
                    help="clusters per shard (default 1000): shard k of K draws under seed "
                    "S*K+k")  # fmt: skip
    cc.add_argument("--engine", choices=["local", "dask"], default="local",
                    help="run the shards in local processes or on a Dask cluster")  # fmt: skip
    cc.add_argument("--scheduler-address", metavar="tcp://HOST:PORT",
                    help="with --engine dask: a running Dask scheduler (default: start one on "
                    "loopback with --jobs workers)")  # fmt: skip
    cc.add_argument("--corpus", action="append", default=[], metavar="PATH",
                    help="also check these clusters first: a manifest or scenario file, or a "
                    "directory of them (repeatable)")  # fmt: skip
    from schedspec.live import add_source_flags

    add_source_flags(cc)  # --kubeconfig: the live cluster joins the corpus
    cc.add_argument("--z3-states", action="store_true",
                    help="also check first a Z3 witness cluster per CASE arm and conjunct of the "
                    "spec's Filter path (solved once, then cached)")  # fmt: skip
    cc.add_argument("--strategy", choices=list(_STRATEGY_SIZES), default="default",
                    help="cluster generator: default (--nodes/--pods), preemption (1-4 full "
                    "nodes, more important pending pods, PDBs over the victims) or scoring "
                    "(2-6 roomy nodes, pods with soft spread and preferred affinity)")  # fmt: skip
    cc.add_argument("--seam", choices=["scheduler", "autoscaler", "queue"], default="scheduler",
                    help="autoscaler: autoscaler.tla against impl/autoscaler on clusters with "
                    "node groups (uses --examples, --seed, --jobs, --json, and the upper "
                    "bounds of --nodes/--pods); queue: queue.tla's trace validation of impl's "
                    "queue, and with --oracle kube the real scheduler's (--examples, --seed, "
                    "--json)")  # fmt: skip
    cc.add_argument(
        "--accept-vacuous",
        action="append",
        default=[],
        metavar="NAME",
        help="do not fail when predicate NAME took one value on every pair "
        "(repeatable; 'all' for every predicate)",
    )
    cc.add_argument("--json", action="store_true", help="machine-readable output")


def run_crosscheck(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.live import source_from_args

    source = source_from_args(args)  # --context/--namespace without --kubeconfig: usage error
    if args.seam == "autoscaler":
        if source is not None:
            raise UsageError("--kubeconfig goes with the scheduler seam (--seam scheduler)")
        return _run_autoscaler(args, out)
    if args.seam == "queue":
        from schedspec.checker.queue_seam import run_queue_seam

        return run_queue_seam(args, out)
    from schedspec.checker.campaign import run_parallel, write_counterexamples
    from schedspec.checker.corpus import manifest_seeds, z3_seeds

    live = source is not None
    if args.examples < 0 or (args.examples == 0 and not (args.corpus or args.z3_states or live)):
        raise UsageError(
            "--examples must be at least 1 (or 0 with --corpus/--z3-states/--kubeconfig)"
        )
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.shard_size is not None and args.shard_size < 1:
        raise UsageError("--shard-size must be at least 1")
    if args.scheduler_address and args.engine != "dask":
        raise UsageError("--scheduler-address needs --engine dask")
    if args.write_regressions and not args.out:
        raise UsageError("--write-regressions needs --out DIR")
    spec = "scheduler" if args.spec == "kube" else args.spec
    if args.oracle and spec == "textbook":
        raise UsageError("--oracle kube judges the scheduler spec, not the textbook")
    corpus = manifest_seeds(args.corpus)  # a bad file stops here, before any cluster is checked
    corpus += _live_seeds(source)
    if args.z3_states:
        corpus += z3_seeds(spec)
    if args.oracle:
        from schedspec.checker.oracle import ensure_binary

        ensure_binary()  # once, before the workers start their own kube-schedulers
    from schedspec.progress import bar

    total = args.examples + len(corpus)
    _warn_idle_jobs(args)
    with bar("crosscheck", total, label="differ", enabled=not args.json) as shown:

        def progress(done: int, total: int, failing: int) -> None:
            shown.update(done, total, count=failing)

        def found(c: Counterexample, shard: int) -> None:
            shown.note(f"shard {shard} found a counterexample:\n{c.describe()}")

        result = run_parallel(
            args.examples,
            args.seed,
            spec,
            jobs=args.jobs,
            nodes=args.nodes,
            pods=args.pods,
            shrink=not args.no_shrink,
            oracle=bool(args.oracle),
            textbook=args.textbook,
            progress=progress,
            corpus=corpus,
            strategy=args.strategy,
            shard_size=args.shard_size,
            engine=args.engine,
            address=args.scheduler_address,
            found=found,
        )
    if args.out:
        write_counterexamples(
            result.counterexamples, args.out, regressions=args.write_regressions, spec=spec
        )
    from schedspec.checker.question import judge_vacuity

    vacuity = judge_vacuity(result.totals.vacuous(), result.strategy, args.accept_vacuous)
    failed = [v for v in vacuity if v[3] == "vacuous"]
    if args.json:
        data = result.as_json()
        data["vacuous"] = {p: {"value": v, "pairs": n, "verdict": w} for p, v, n, w in vacuity}
        json.dump(data, out, indent=2)
        out.write("\n")
    else:
        _print(result, out)
        _print_vacuity(vacuity, out)
    return 1 if result.undeclared or failed else 0


def _live_seeds(source: Source | None) -> list[Seed]:
    """The cluster ``--kubeconfig`` names, read and validated as ``snapshot`` reads it, as one
    corpus seed (none without the flag)."""
    from schedspec.checker.corpus import Seed
    from schedspec.cluster import from_docs
    from schedspec.live import read_objects
    from schedspec.manifest_yaml import Doc

    if source is None:
        return []
    objects, where = read_objects(source)
    from_docs([Doc(obj, where, {}) for obj in objects])  # refused here, naming object and field
    return [Seed(where, objects)]


def _warn_idle_jobs(args: argparse.Namespace) -> None:
    """The shards are fixed by --examples and --shard-size: more jobs than shards sit idle."""
    from schedspec.checker.shards import SHARD_SIZE

    size = args.shard_size or SHARD_SIZE
    shards = max(1, -(-args.examples // size))
    if args.engine == "local" and args.jobs > shards:
        sys.stderr.write(f"crosscheck: {shards} shard(s) of up to {size} clusters keep "
                         f"{shards} of {args.jobs} jobs busy; --shard-size "
                         f"{max(1, -(-args.examples // args.jobs))} would use them all (and "
                         "draw other clusters)\n")  # fmt: skip


def _print_vacuity(vacuity: list[tuple[str, str, int, str]], out: TextIO) -> None:
    """Predicates the campaign never saw both ways: a comparison of one value asked nothing."""
    if not vacuity:
        out.write("every predicate took both values\n")
        return
    for predicate, value, n, verdict in vacuity:
        why = "" if verdict == "vacuous" else f" ({verdict})"
        out.write(f"vacuous: {predicate} was {value} on all {n:,} pairs{why}\n")
    if any(v[3] == "vacuous" for v in vacuity):
        out.write(
            "a predicate that never took both values was never really compared: draw clusters "
            "that make it (--strategy, --corpus, --z3-states) or --accept-vacuous NAME\n"
        )


def _print(result: CampaignResult, out: TextIO) -> None:
    rate = (result.examples + result.corpus) / result.seconds if result.seconds else 0.0
    sizes = f"{result.nodes[0]}–{result.nodes[1]} nodes, {result.pods[0]}–{result.pods[1]} pods"
    if result.strategy != "default":
        sizes = f"{result.strategy} strategy: {_STRATEGY_SIZES[result.strategy]}"
    corpus = f"{result.corpus} corpus clusters, " if result.corpus else ""
    jobs = f", {result.jobs} jobs" if result.jobs > 1 else ""
    if result.engine != "local":
        jobs = f", {result.shards} shards on {result.engine}"
    elif result.shards > 1:
        jobs += f", {result.shards} shards"
    out.write(
        f"crosscheck {result.spec}: {result.examples} clusters ({sizes}), {corpus}"
        f"seed {result.seed}{jobs}, {result.seconds:.1f} s ({rate:.0f} clusters/s)\n\n"
    )
    rows = result.by_predicate()
    width = max([len(p) for p in rows] + [9])
    out.write(f"{'predicate':<{width}}  {'checked':>9}  {'differ':>7}  {'declared':>8}  clusters\n")
    for predicate, row in rows.items():
        out.write(
            f"{predicate:<{width}}  {row['checked']:>9}  {row['disagreements']:>7}  "
            f"{row['declared']:>8}  {row['clusters']:>8}\n"
        )
    table = result.totals.agreement.table()
    if len(table) > 1:  # the real scheduler answered: agreement per pair of witnesses
        _print_agreement(table, out)
    undeclared = len(result.undeclared)
    declared = len(result.disagreements) - undeclared
    out.write(f"\n{undeclared} undeclared disagreement(s), {declared} declared\n")
    for c in result.counterexamples:
        out.write("\n" + c.describe())


def _print_agreement(table: dict[str, dict[str, tuple[int, int]]], out: TextIO) -> None:
    """Agreement per predicate: spec, impl and the real scheduler pairwise, then the seed spec's
    rules against the real scheduler's (its own table: its rules split differently)."""
    three = [pair for pair in table if pair != "textbook↔real"]
    _agreement_table(table, three, "agreement", out)
    if "textbook↔real" in table:
        _agreement_table(table, ["textbook↔real"], "the seed spec against the real scheduler", out)


def _agreement_table(
    table: dict[str, dict[str, tuple[int, int]]], pairs: list[str], title: str, out: TextIO
) -> None:
    predicates = sorted({p for pair in pairs for p in table[pair]})
    width = max([len(p) for p in predicates] + [9])
    out.write(f"\n{title}\n{'predicate':<{width}}" + "".join(f"  {p:>15}" for p in pairs))
    out.write("\n")
    for predicate in predicates:
        cells = []
        for pair in pairs:
            agreed, n = table[pair].get(predicate, (0, 0))
            cells.append(f"{100 * agreed / n:>14.3f}%" if n else f"{'–':>15}")
        out.write(f"{predicate:<{width}}" + "".join(f"  {c}" for c in cells) + "\n")


def _run_autoscaler(args: argparse.Namespace, out: TextIO) -> int:
    """The autoscaler seam's campaign: per row, comparisons and disagreements; the rules no
    cluster exercised; each disagreeing row's shrunk case (its flags and both values)."""
    from schedspec.checker.autoscaler_campaign import (
        case_flags,
        case_yaml,
        run_autoscaler_campaign,
        run_parallel,
    )

    if args.examples < 1 or args.jobs < 1:
        raise UsageError("--examples and --jobs must be at least 1")
    sizes = {"max_nodes": args.nodes[1], "max_pods": args.pods[1]}
    if args.oracle:
        from schedspec.checker.oracle import Oracle

        if args.jobs != 1:
            raise UsageError("--seam autoscaler --oracle kube runs in one process (--jobs 1)")
        with Oracle() as oracle:
            result = run_autoscaler_campaign(
                args.examples, args.seed, shrink=False, oracle=oracle, **sizes
            )
    elif args.jobs == 1:
        result = run_autoscaler_campaign(
            args.examples, args.seed, shrink=not args.no_shrink, **sizes
        )
    else:
        result = run_parallel(args.examples, args.seed, args.jobs, **sizes)
    failed = bool(result.disagreeing) or result.bugs > 0
    if args.json:
        json.dump(result.as_json(), out, indent=2)
        out.write("\n")
        return 1 if failed else 0
    rate = result.examples / result.seconds if result.seconds else 0.0
    out.write(f"crosscheck autoscaler: {result.examples} clusters with node groups "
              f"({result.invalid} invalid draws skipped), seed {result.seed}, "
              f"{result.seconds:.1f} s ({rate:.0f} clusters/s)\n\n")  # fmt: skip
    width = max([len(r) for r in result.compared] + [3])
    out.write(f"{'row':<{width}}  {'compared':>9}  {'differ':>7}\n")
    for row, n in sorted(result.compared.items()):
        out.write(f"{row:<{width}}  {n:>9}  {result.disagreeing[row]:>7}\n")
    missing = result.not_exercised
    out.write(f"\nrules exercised: {len(result.covered)}; not exercised: "
              f"{', '.join(missing) if missing else 'none'}\n")  # fmt: skip
    out.write(f"{sum(result.disagreeing.values())} disagreement(s)\n")
    if result.property_cases:
        out.write("\ndecision properties (impl's scheduler run after the loop; a finding is CA's "
                  "own behaviour, a bug breaks CA's rules):\n")  # fmt: skip
    for prop, (case, what) in sorted(result.property_cases.items()):
        kind = "bug" if prop in ("group above max", "group below min") else "finding"
        out.write(f"  {kind}: {prop} — {result.properties[prop]} cluster(s); first: {what}\n")
        out.write(f"    schedspec autoscale cluster.yaml {' '.join(case_flags(case))}\n")
    for row, (case, d) in sorted(result.first.items()):
        out.write(f"\n{row}: {d}\nschedspec autoscale cluster.yaml {' '.join(case_flags(case))}\n")
        out.write(case_yaml(case))
    return 1 if failed else 0
