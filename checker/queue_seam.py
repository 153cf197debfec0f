"""``schedspec crosscheck --seam queue [--oracle kube]``: the queue's trace-validation campaigns
in the crosscheck style.

``queue.tla`` against impl's queue (:func:`~.queue_trace_campaign.run_simulate`) and, with
``--oracle kube``, against the real kube-scheduler's (:func:`~.queue_trace_real.real_simulate`):
the same generated clusters (``--examples``, ``--seed``), a roomy node added at 40 s, runs past
the 5-minute flush. One row per witness: runs, validated, steps checked, spec steps, declared
differences, unexplained steps; then the declared differences with their reasons and every
unexplained step (its run and before/after). Exit 1 when a step is unexplained.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from schedspec.checker.queue_trace import DECLARED, SKIP_REASONS
from schedspec.checker.queue_trace_campaign import Campaign, render, run_simulate
from schedspec.checker.queue_trace_real import REAL_DECLARED, real_simulate
from schedspec.errors import UsageError

__all__ = ["run_queue_seam"]


def run_queue_seam(args: argparse.Namespace, out: TextIO) -> int:
    if args.examples < 1:
        raise UsageError("--seam queue: --examples must be at least 1")
    if args.jobs != 1:
        print("--seam queue runs in one process; --jobs ignored", file=sys.stderr)
    campaigns = [("impl", run_simulate(args.examples, args.seed))]
    if args.oracle:
        campaigns.append(("real", real_simulate(args.examples, args.seed)))
    failed = any(c.unexplained for _, c in campaigns)
    if args.json:
        json.dump({name: _json(c) for name, c in campaigns}, out, indent=2)
        out.write("\n")
        return 1 if failed else 0
    seconds = sum(c.seconds for _, c in campaigns)
    out.write(
        f"crosscheck queue: queue.tla against {' and '.join(n for n, _ in campaigns)}, "
        f"{args.examples} generated clusters, seed {args.seed}, {seconds:.1f} s\n\n"
    )
    head = ("witness", "runs", "validated", "steps", "spec steps", "declared", "unexplained")
    out.write(f"{head[0]:<8}" + "".join(f"{h:>12}" for h in head[1:]) + "\n")
    for name, c in campaigns:
        row = (c.runs, c.validated, c.steps, c.spec_steps, sum(c.declared.values()))
        out.write(f"{name:<8}" + "".join(f"{v:>12}" for v in (*row, len(c.unexplained))) + "\n")
    out.write("\n")
    for name, c in campaigns:
        words = REAL_DECLARED if name == "real" else DECLARED
        render(name, c, out, words, name)
    return 1 if failed else 0


def _json(c: Campaign) -> dict[str, object]:
    return {
        "runs": c.runs,
        "validated": c.validated,
        "steps": c.steps,
        "spec_steps": c.spec_steps,
        "synthesized": c.synthesized,
        "skipped": {SKIP_REASONS.get(k, k): n for k, n in c.skipped.items()},
        "declared": dict(c.declared),
        "actions": dict(c.actions),
        "unexplained": [
            {"run": run, "steps": [u.render() for u in r.unexplained]} for run, r in c.unexplained
        ],
        "seconds": round(c.seconds, 1),
    }
