"""The ``schedspec`` command line.

Exit codes (a stable contract): 0 ok, 1 a negative answer (disagreement, not found), 2 bad input or
usage — always a message naming the file:line:col or object and field, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import TextIO

from schedspec import __version__
from schedspec.errors import SchedspecError
from schedspec.live import add_snapshot_parser, add_source_flags, cluster_from_args, run_snapshot
from schedspec.spec.check import check
from schedspec.spec.errors import Diagnostic, Severity, SpecSyntaxError, render_all
from schedspec.spec.evaluate import Evaluation, PodResult, evaluate, reason
from schedspec.spec.kube.views import VIEWS
from schedspec.spec.kube.why import explain_pod
from schedspec.spec.kube.why import lines as why_lines
from schedspec.spec.load import BUNDLED, load_spec, read_spec, view_for, with_extended
from schedspec.spec.parse import parse

__all__ = ["main"]

EXIT_OK, EXIT_NEGATIVE, EXIT_BAD_INPUT = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schedspec",
        description="Formal-spec-driven verification of the Kubernetes scheduler (v1.34).",
    )
    parser.add_argument("--version", action="version", version=f"schedspec {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    chk = sub.add_parser("check", help="parse and check spec files")
    chk.add_argument("specs", nargs="+", metavar="SPEC", help=f"a .tla file or {'|'.join(BUNDLED)}")
    chk.add_argument("--view", choices=sorted(VIEWS), help="the view whose fields the spec reads")
    chk.add_argument("--json", action="store_true", help="machine-readable output")

    ev = sub.add_parser("eval", help="evaluate a spec on a cluster: verdict per pending pod × node")
    ev.add_argument("cluster", nargs="*", metavar="CLUSTER", help="manifest files (YAML/JSON)")
    add_source_flags(ev)
    ev.add_argument("--spec", default="scheduler", help="bundled spec name or .tla path")
    ev.add_argument("--view", choices=sorted(VIEWS), help="view for a spec file")
    ev.add_argument("--pod", metavar="NS/NAME", help="only this pod")
    ev.add_argument("--json", action="store_true", help="machine-readable output")

    ex = sub.add_parser("explain", help="why is a pod pending: every node's rejecting rules")
    ex.add_argument("cluster", nargs="*", metavar="CLUSTER", help="manifest files (YAML/JSON)")
    add_source_flags(ex)
    ex.add_argument("--pod", metavar="NS/NAME", required=True, help="the pod to explain")
    ex.add_argument("--spec", default="scheduler", help="bundled spec name or .tla path")
    ex.add_argument("--json", action="store_true", help="machine-readable output")

    sc = sub.add_parser("schedule", help="run the operational scheduler to quiescence")
    sc.add_argument("cluster", nargs="*", metavar="CLUSTER", help="manifest files (YAML/JSON)")
    add_source_flags(sc)
    sc.add_argument("--config", metavar="KSC", help="a KubeSchedulerConfiguration file")
    sc.add_argument("--seed", type=int, default=0, help="seed of the tie-breaking RNG")
    sc.add_argument("--json", action="store_true", help="machine-readable output")
    sc.add_argument("--trace", metavar="FILE", help="write a per-cycle trace (JSON lines)")
    sc.add_argument(
        "--itf", metavar="FILE", help="write the run as an ITF trace (one state an event)"
    )
    sc.add_argument("--events", metavar="FILE", help="an event script: timed cluster changes")
    sc.add_argument("--until", metavar="DURATION", help="run to this virtual time (30s, 6m)")
    add_snapshot_parser(sub)
    _solver_parsers(sub)
    _oracle_parsers(sub)
    from schedspec.spec.bmc_cli import add_parser as bmc_parser

    bmc_parser(sub)
    from schedspec.checker.autoscale_cli import add_parser as autoscale_parser

    autoscale_parser(sub)
    from schedspec.checker.optimal_cli import add_parser as optimal_parser

    optimal_parser(sub)
    from schedspec.checker.crosscheck_cli import add_parser as crosscheck_parser

    crosscheck_parser(sub)
    from schedspec.checker.coverage_cli import add_parser as coverage_parser

    coverage_parser(sub)
    from schedspec.checker.fuzz import add_parser as fuzz_parser

    fuzz_parser(sub)
    from schedspec.checker.can_schedule_cli import add_parser as can_schedule_parser
    from schedspec.checker.relate_cli import add_parser as relate_parser

    can_schedule_parser(sub)
    relate_parser(sub)
    from schedspec.checker.compare_config_cli import add_parser as compare_config_parser

    compare_config_parser(sub)
    from schedspec.checker.monitor_cli import add_parser as monitor_parser

    monitor_parser(sub)
    return parser


def _oracle_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    orc = sub.add_parser("oracle", help="ask the real kube-scheduler v1.34 (Go bridge, oracle/)")
    questions = orc.add_subparsers(dest="oracle_command", required=True, metavar="QUESTION")
    ver = questions.add_parser("version", help="kube-scheduler version and feature gates")
    ver.add_argument("--json", action="store_true", help="machine-readable output")
    fil = questions.add_parser("filter", help="every Filter plugin's verdict per node")
    fil.add_argument("cluster", nargs="+", metavar="CLUSTER", help="manifest files (YAML/JSON)")
    fil.add_argument("--pod", metavar="NS/NAME", required=True, help="the pod to filter")
    fil.add_argument("--json", action="store_true", help="machine-readable output")


def _solver_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--minimize", action="store_true", help="the smallest witness")
    p.add_argument("--all", type=int, default=1, metavar="N", help="up to N distinct witnesses")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds (default 60)")
    p.add_argument("--out", metavar="DIR", help="write witness-K.yaml and witness-K.itf.json")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    from schedspec.spec.kube.symbolic.bounds import bounds_flags

    bounds_flags(p)


def _solver_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fd = sub.add_parser("find", help="ask Z3 for a cluster satisfying a formula")
    fd.add_argument("formula", metavar="FORMULA",
                    help="an expression over the spec's definitions; free p, q… are pods, "
                         "n, m… nodes")  # fmt: skip
    fd.add_argument("--spec", default="scheduler", help="bundled spec name or .tla path")
    fd.add_argument(
        "--core",
        action="store_true",
        help="when unsat, the formula's conjuncts that cannot hold together",
    )
    _solver_flags(fd)
    df = sub.add_parser("diff", help="a cluster where two specs' definitions disagree")
    df.add_argument("spec_a", metavar="SPEC_A")
    df.add_argument("spec_b", metavar="SPEC_B")
    df.add_argument("--predicate", required=True, metavar="NAME[=NAME_B]",
                    help="the definition (of a pod p and a node n) to compare; NAME=NAME_B "
                         "when the two specs name it differently")  # fmt: skip
    df.add_argument("--implies", action="store_true", help="look for A ∧ ¬B only (A ⇒ B?)")
    df.add_argument(
        "--where",
        metavar="FORMULA",
        help="only clusters where FORMULA (over p and n, in SPEC_B's terms) holds",
    )
    _solver_flags(df)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check(args, sys.stdout)
        if args.command == "explain":
            return _explain(args, sys.stdout)
        if args.command == "schedule":
            return _schedule(args, sys.stdout)
        if args.command == "snapshot":
            return run_snapshot(args, sys.stdout)
        if args.command == "bmc":
            from schedspec.spec.bmc_cli import run_bmc

            return run_bmc(args, sys.stdout)
        if args.command == "oracle":
            from schedspec.checker.oracle import run_oracle_command

            return run_oracle_command(args, sys.stdout)
        if args.command == "autoscale":
            from schedspec.checker.autoscale_cli import run_autoscale

            return run_autoscale(args, sys.stdout)
        if args.command == "compare-config":
            from schedspec.checker.compare_config_cli import run_compare_config

            return run_compare_config(args, sys.stdout)
        if args.command == "optimal":
            from schedspec.checker.optimal_cli import run_optimal

            return run_optimal(args, sys.stdout)
        if args.command == "crosscheck":
            from schedspec.checker.crosscheck_cli import run_crosscheck

            return run_crosscheck(args, sys.stdout)
        if args.command == "coverage":
            from schedspec.checker.coverage_cli import run_coverage

            return run_coverage(args, sys.stdout)
        if args.command == "fuzz":
            from schedspec.checker.fuzz import run_fuzz

            return run_fuzz(args, sys.stdout, main)
        if args.command == "can-schedule":
            from schedspec.checker.can_schedule_cli import run_can_schedule

            return run_can_schedule(args, sys.stdout)
        if args.command == "relate":
            from schedspec.checker.relate_cli import run_relate

            return run_relate(args, sys.stdout)
        if args.command == "monitor":
            from schedspec.checker.monitor_cli import run_monitor

            return run_monitor(args, sys.stdout)
        if args.command in ("find", "diff"):
            from schedspec.progress import bar
            from schedspec.spec.solve_cli import run_solver_command

            # --all N: Z3 tells nothing until the last witness, so the bar pulses with the time
            many = args.all > 1 and not args.json
            with bar(f"{args.command} --all {args.all}", None, unit="witnesses", enabled=many):
                return run_solver_command(args, sys.stdout)
        return _eval(args, sys.stdout)
    except SchedspecError as err:
        # a manifest's or a configuration's every problem (``errors``), one line each
        problems = getattr(err, "errors", (err,))
        lines = [p.render() for p in problems] if len(problems) > 1 else [str(err)]
        for line in lines:
            print(f"schedspec {args.command}: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `schedspec eval … | head`: the reader left, nothing to report
        sys.stderr.close()
        return EXIT_OK


# ---- check --------------------------------------------------------------------------------


def _check_one(spec: str, view: str | None) -> tuple[list[Diagnostic], str]:
    """The diagnostics of one spec (syntax, or the checker's) and its text."""
    file, text = read_spec(spec)
    try:
        module = with_extended(parse(text, file))
    except SpecSyntaxError as err:
        return list(err.diagnostics), text
    chosen = view_for(module, view)
    # An extended module is checked where it is bundled; here, what this file adds.
    diags = check(module, chosen.schema if chosen else None).diagnostics
    return [d for d in diags if d.span.file == file], text


def _check(args: argparse.Namespace, out: TextIO) -> int:
    all_diags, failed = [], False
    for spec in args.specs:
        diags, text = _check_one(spec, args.view)
        failed |= any(d.severity is Severity.ERROR for d in diags)
        all_diags.extend(diags)
        if not args.json:
            if diags:
                print(render_all(diags, text), file=out)
            errors = sum(d.severity is Severity.ERROR for d in diags)
            print(f"{spec}: {errors} error(s), {len(diags) - errors} warning(s)", file=out)
    if args.json:
        json.dump({"diagnostics": [d.as_json() for d in all_diags]}, out, indent=2)
        print(file=out)
    return EXIT_BAD_INPUT if failed else EXIT_OK


# ---- eval ---------------------------------------------------------------------------------


def _eval(args: argparse.Namespace, out: TextIO) -> int:
    spec = load_spec(args.spec, args.view)
    cluster = cluster_from_args(args)
    result = evaluate(spec, cluster, pod=args.pod)
    if args.json:
        json.dump(result.as_json(), out, indent=2, sort_keys=True)
        print(file=out)
        return EXIT_OK
    errors = len(spec.checked.errors)
    print(f"spec {spec.name} ({spec.file}): {result.filter} decides feasibility", end="", file=out)
    print(f", {result.score} scores" if result.score else "", file=out)
    if errors:
        print(
            f"note: the spec has {errors} check error(s) (schedspec check {spec.file}); "
            "evaluation goes on and they surface below where it reaches them",
            file=out,
        )
    for warning in cluster.warnings:
        print(f"warning: {warning}", file=out)
    if not result.pods:
        print("no pending pods", file=out)
    for pod in result.pods:
        _print_pod(pod, result, out)
    return EXIT_OK


def _print_pod(pod: PodResult, result: Evaluation, out: TextIO) -> None:
    total = len(pod.pairs)
    print(f"\n{pod.key}: feasible on {len(pod.feasible)}/{total} node(s)", file=out)
    width = max([len("NODE"), *(len(p.node) for p in pod.pairs)])
    score_head = (result.score or "SCORE").upper()
    print(f"  {'NODE':<{width}}  {'FILTER':<6}  {score_head:>9}  FAILING CONJUNCTS", file=out)
    for p in pod.pairs:
        score = str(p.score) if p.score is not None else ("error" if p.score_error else "-")
        failures = ", ".join(p.failures) or "-"
        print(f"  {p.node:<{width}}  {p.verdict:<6}  {score:>9}  {failures}", file=out)
    reasons: dict[str, list[str]] = defaultdict(list)
    for p in pod.pairs:
        for c in p.conjuncts:
            if c.failed:
                reasons[f"{c.label()}: {reason(c)}" if c.definition else reason(c)].append(p.node)
    if reasons:
        print("  why:", file=out)
    for text, nodes in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"    {len(nodes)} node(s) [{_nodes(nodes)}]: {text}", file=out)


# ---- explain ------------------------------------------------------------------------------


def _explain(args: argparse.Namespace, out: TextIO) -> int:
    spec = load_spec(args.spec)
    cluster = cluster_from_args(args)
    why = explain_pod(spec, cluster, args.pod)
    if args.json:
        json.dump(why.as_json(), out, indent=2, sort_keys=True)
        print(file=out)
        return EXIT_OK
    for warning in cluster.warnings:
        print(f"warning: {warning}", file=out)
    for line in why_lines(why):
        print(line, file=out)
    return EXIT_OK


def _nodes(nodes: list[str]) -> str:
    return ", ".join(nodes) if len(nodes) <= 4 else ", ".join(nodes[:3]) + f", … +{len(nodes) - 3}"


# ---- schedule -----------------------------------------------------------------------------


def _schedule(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.errors import UsageError
    from schedspec.events import parse_duration
    from schedspec.impl.report import run_schedule

    try:
        until = parse_duration(args.until) if args.until is not None else None
    except ValueError as err:
        raise UsageError(f"--until: {err}") from None
    cluster = cluster_from_args(args)
    return run_schedule(
        cluster, args.config, args.seed, args.json, out, args.trace, args.itf, args.events, until
    )


if __name__ == "__main__":
    sys.exit(main())
