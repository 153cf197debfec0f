"""How many one-token bugs in impl/autoscaler the autoscaler seam catches.

AST mutants (``schedspec.checker.mutants``: comparison flips, boundary shifts, boolean and
arithmetic swaps, dropped conditions…) of impl/autoscaler's rule modules, each run in a forked
child through the seam campaign (``crosscheck --seam autoscaler``: autoscaler.tla against the
mutated impl, plus the decision properties' bugs). A mutant is killed when the campaign reports a
disagreement (or the mutant raises, or hangs). Survivors are printed for reading: some are
equivalent (a mutation that cannot change a verdict), some are gaps.

    python3 bench/mutation_autoscaler.py --limit 80 --jobs 2 --examples 200
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from schedspec.checker.mutants import enumerate_mutants, load_killer, run_in_child, run_mutants

MODULES = (
    "schedspec.impl.autoscaler.podlistprocessor",
    "schedspec.impl.autoscaler.orchestrator",
    "schedspec.impl.autoscaler.estimator.binpacking",
    "schedspec.impl.autoscaler.estimator.limiter",
    "schedspec.impl.autoscaler.estimator.decreasing_pod_orderer",
    "schedspec.impl.autoscaler.expander.waste",
    "schedspec.impl.autoscaler.expander.most_pods",
    "schedspec.impl.autoscaler.expander.priority",
    "schedspec.impl.autoscaler.expander.chain",
    "schedspec.impl.autoscaler.scaledown.eligibility",
    "schedspec.impl.autoscaler.scaledown.drainability",
    "schedspec.impl.autoscaler.scaledown.planner",
)
KILLER = "schedspec.checker.autoscaler_campaign:mutation_killer"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--examples", type=int, default=200, help="clusters per campaign (200)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, help="run K mutants, evenly spaced over the list")
    ap.add_argument("--jobs", type=int, default=1, choices=(1, 2))
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant")
    args = ap.parse_args()
    killer = load_killer(KILLER)
    control = run_in_child(None, lambda: killer(args.examples, args.seed), timeout=args.timeout)
    print(f"control run (unmutated): {len(control)} problem(s)")  # type: ignore[arg-type]
    mutants = [m for m in enumerate_mutants(MODULES) if m.in_reach]
    if args.limit and args.limit < len(mutants):
        step = len(mutants) / args.limit
        mutants = [mutants[int(i * step)] for i in range(args.limit)]
    start = time.perf_counter()
    counts: Counter[str] = Counter()
    survivors = []
    for outcome in run_mutants(mutants, killer, examples=args.examples, seed=args.seed,
                               timeout=args.timeout, parallel=args.jobs):  # fmt: skip
        counts[outcome.status] += 1
        if outcome.status == "survived":
            survivors.append(outcome.mutant)
    seconds = time.perf_counter() - start
    run = sum(counts.values()) - counts["error"]
    killed = counts["killed"] + counts["timeout"]
    print(f"mutants run: {sum(counts.values())} of impl/autoscaler ({len(MODULES)} modules), "
          f"{args.examples} clusters each, {seconds:.0f} s")  # fmt: skip
    print(f"killed {counts['killed']}, timeouts {counts['timeout']}, survived "
          f"{counts['survived']}, errors {counts['error']}: score {killed}/{run} = "
          f"{100 * killed / max(run, 1):.1f} %")  # fmt: skip
    for m in survivors:
        print(f"  survived {m.file}:{m.line}:{m.col} {m.operator}: {m.original!r} -> {m.mutated!r}")


if __name__ == "__main__":
    main()
