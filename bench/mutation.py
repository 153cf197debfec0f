"""Mutation score of the checker: AST mutants of impl/plugins and preemption, each run through the
short campaign in a forked child (``schedspec.checker.mutants``; docs/mutation.md).

    python3 bench/mutation.py                                  # whole scope, campaign + properties
    python3 bench/mutation.py --only taint_toleration --examples 50
    python3 bench/mutation.py --limit 40 --jobs 2 --json /tmp/mutation.json
    python3 bench/mutation.py --killer pytest                  # the impl unit tests instead
    python3 bench/mutation.py --list                           # enumerate only
    python3 bench/mutation.py --hints --jobs 2 --examples 30   # the queueing-hint mutants
    python3 bench/mutation.py --examples 300 --survivors-of a.json --json b.json
    python3 bench/mutation.py --combine a.json b.json          # one report, b overriding a

Prints the mutants generated (in reach / out of reach, by reason), killed (and by timeout),
survived, errors (mutant did not apply), the score (killed + timeouts) / (run - errors), the
seconds per mutant, two unmutated control runs in forked children, and every
survivor as ``file:line:col operator: 'orig' -> 'mutated'``. ``--limit K`` takes K mutants evenly
spaced over the (filtered) in-reach list, so a sample covers every file. Exit 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections import Counter
from typing import Any

from schedspec.checker.mutants import (
    KillerChain,
    Mutant,
    Outcome,
    enumerate_mutants,
    load_killer,
    run_in_child,
    run_mutants,
)
from schedspec.progress import bar

HINTS = "queueing hint"
"""The reach of the hint mutants: no seam of the checker calls them; queue trace validation
(``--hints``, the ``queue-trace`` killer) judges them against spec/kube/hints.tla."""


def _default_killers() -> list[str]:
    have = importlib.util.find_spec
    if have("schedspec.checker.campaign") and have("schedspec.checker.strategies"):
        killers = ["campaign"]
        if have("schedspec.checker.corpus"):
            killers.append("corpus")
        mutants = importlib.import_module("schedspec.checker.mutants")
        if hasattr(mutants, "preemption_killer"):
            killers.append("preemption@60")
        if hasattr(mutants, "scoring_killer"):
            killers.append("scoring@100")
        if have("schedspec.checker.properties"):
            killers.append("properties@30")
        return killers
    return ["pytest"]


def _sample(mutants: list[Mutant], limit: int | None) -> list[Mutant]:
    if limit is None or limit >= len(mutants):
        return mutants
    return [mutants[i * len(mutants) // limit] for i in range(limit)]


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=30, help="clusters per campaign (30)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", action="append", default=[], help="file substring (repeatable)")
    ap.add_argument("--limit", type=int, help="run K mutants, evenly spaced")
    ap.add_argument("--jobs", type=int, default=1, choices=(1, 2))
    ap.add_argument("--json", help="write every outcome to this file")
    ap.add_argument(
        "--killer",
        action="append",
        help="campaign | corpus | preemption | properties | pytest | scoring | module:function; "
        "repeat to chain (default: campaign, corpus, preemption@60, scoring@100, properties@30 "
        "when present, else pytest)",
    )
    ap.add_argument("--timeout", type=float, help="seconds per mutant (default 10x baseline + 30)")
    ap.add_argument(
        "--survivors-of", metavar="JSON", help="run only the survivors of an earlier --json report"
    )
    ap.add_argument(
        "--combine",
        nargs="+",
        metavar="JSON",
        help="no run: one report from earlier --json reports, later ones overriding earlier "
        "outcomes of the same mutant (a survivors re-run with more examples)",
    )
    ap.add_argument(
        "--hints",
        action="store_true",
        help="the queueing-hint mutants (out of the other killers' reach) instead, killed by "
        "queue trace validation (default killer: queue-trace)",
    )
    ap.add_argument("--list", action="store_true", help="print the mutants and stop")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per mutant as it ends")
    args = ap.parse_args(argv)
    if args.examples < 1:
        ap.error(f"--examples={args.examples}: must be at least 1")
    if args.limit is not None and args.limit < 1:
        ap.error(f"--limit={args.limit}: must be at least 1")
    return args


def _report(
    everything: list[Mutant], run: list[Outcome], seconds: float, killers: list[str]
) -> dict[str, Any]:
    reach = Counter(m.reach or "in reach" for m in everything)
    status = Counter(o.status for o in run)
    killed = status["killed"] + status["timeout"]
    judged = len(run) - status["error"]  # a mutant that did not apply has no verdict
    score = killed / judged if judged else 0.0
    print(f"killers: {' then '.join(killers)}")
    out_of_reach = ", ".join(f"{n} {r}" for r, n in sorted(reach.items()) if r != "in reach")
    print(
        f"mutants generated: {len(everything)} ({reach['in reach']} in reach; out of reach: "
        f"{out_of_reach or 'none'})"
    )
    print(f"mutants run: {len(run)}")
    print(
        f"killed: {status['killed']}  timeouts: {status['timeout']}  survived: "
        f"{status['survived']}  errors: {status['error']}"
    )
    print(f"score: killed/(run - errors) = {killed}/{judged} = {100 * score:.1f} %")
    if run:
        print(
            f"time: {seconds:.1f} s, {seconds / len(run):.2f} s per mutant (wall), "
            f"{sum(o.seconds for o in run) / len(run):.2f} s per child"
        )
    by_file = Counter(o.mutant.file for o in run)
    by_file_killed = Counter(o.mutant.file for o in run if o.status in ("killed", "timeout"))
    for file in sorted(by_file):
        print(f"  {file}: {by_file_killed[file]}/{by_file[file]}")
    survivors = sorted((o for o in run if o.status == "survived"), key=lambda o: o.mutant.site_key)
    if survivors:
        print(f"survivors ({len(survivors)}):")
        for o in survivors:
            print(f"  {o.mutant.describe()}")
    for o in run:
        if o.status == "error":
            print(f"error: {o.mutant.describe()}\n{o.detail}", file=sys.stderr)
    return {
        "killers": killers,
        "generated": len(everything),
        "reach": dict(reach),
        "run": len(run),
        "status": dict(status),
        "score": score,
        "seconds": seconds,
        "outcomes": [o.to_json() for o in sorted(run, key=lambda o: o.mutant.site_key)],
    }


def _control(chain: KillerChain, args: argparse.Namespace, timeout: float, when: str) -> list[str]:
    """The killers, unmutated, in a forked child: must report nothing new."""
    problems = run_in_child(None, lambda: chain(args.examples, args.seed), timeout)
    assert isinstance(problems, list)
    print(f"control {when} (unmutated child): {'clean' if not problems else problems[0]}")
    return [str(p) for p in problems]


def _combine(paths: list[str], everything: list[Mutant], out: str | None) -> int:
    reach = {m.id: m for m in everything if m.in_reach}
    latest: dict[str, Outcome] = {}
    killers: list[str] = []
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        killers.append(f"{' then '.join(report['killers'])} ({report['examples']} examples)")
        for o in report["outcomes"]:
            if o["mutant"]["id"] in reach:
                m = reach[o["mutant"]["id"]]
                latest[m.id] = Outcome(m, o["status"], o["detail"], o["seconds"])
    seconds = sum(o.seconds for o in latest.values()) / 2
    report = _report(everything, list(latest.values()), seconds, [" / ".join(killers)])
    if out:
        with open(out, "w") as f:
            json.dump(report, f, indent=1)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    everything = enumerate_mutants()
    if args.combine:
        return _combine(args.combine, everything, args.json)
    chosen = [m for m in everything if (m.reach == HINTS if args.hints else m.in_reach)]
    if args.only:
        chosen = [m for m in chosen if any(s in m.file for s in args.only)]
    if args.survivors_of:
        with open(args.survivors_of) as f:
            earlier = json.load(f)["outcomes"]
        wanted = {o["mutant"]["id"] for o in earlier if o["status"] == "survived"}
        chosen = [m for m in chosen if m.id in wanted]
    chosen = _sample(chosen, args.limit)
    if args.list:
        for m in chosen:
            print(f"{m.describe()}   [{m.function or 'module level'}]")
        return 0
    names = args.killer or (["queue-trace"] if args.hints else _default_killers())
    chain = KillerChain([(name, load_killer(name)) for name in names])
    warm = chain.warm_up(args.examples, args.seed)
    for name, secs in warm.items():
        dirty = (
            f", {len(chain.baselines[name])} problem(s) already" if chain.baselines[name] else ""
        )
        print(f"baseline {name}: {secs:.1f} s on the unmutated code{dirty}")
    timeout = args.timeout or 10 * sum(warm.values()) + 30
    drift = _control(chain, args, timeout, "before")
    start = time.perf_counter()
    outcomes = []
    # a bar on stderr when it is a terminal (mutants/s, survivors so far, ETA); never in --json
    with bar("mutants", len(chosen), unit="mutants", label="survived") as shown:
        for n, outcome in enumerate(
            run_mutants(
                chosen,
                chain,
                examples=args.examples,
                seed=args.seed,
                timeout=timeout,
                parallel=args.jobs,
            ),
            1,
        ):
            outcomes.append(outcome)
            shown.update(n, count=sum(o.status == "survived" for o in outcomes))
            if args.verbose:  # rich draws a print to stdout above its bar
                print(
                    f"[{n}/{len(chosen)}] {outcome.status:8} {outcome.seconds:5.1f}s "
                    f"{outcome.mutant.describe()}  {outcome.detail[:120]}",
                    flush=True,
                )
    seconds = time.perf_counter() - start
    drift += _control(chain, args, timeout, "after")
    report = _report(everything, outcomes, seconds, names)
    if drift:
        print(f"WARNING: an unmutated control run disagreed with the baseline: {drift[0]}")
        print("  (something outside the mutant changed the verdicts; the kill figures are unsafe)")
    report["control"] = drift
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**report, "examples": args.examples, "seed": args.seed}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
