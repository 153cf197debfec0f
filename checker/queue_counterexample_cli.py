"""``python3 -m schedspec.checker.queue_counterexample``: search for a queue counterexample and
write it (:mod:`.queue_counterexample`), or replay a written one.

::

    … find --kind simulate|machine [--runs N] [--steps K] [--seed S] [--mutant NAME] --out DIR
    … replay DIR

``--mutant`` breaks impl on purpose for the search, as docs/queue.md's "Teeth" do, so the
machinery can be seen to work (and pictured) while impl itself has no counterexample:

``backoff-cap-5s``
    ``backoff_duration`` capped at 5 s instead of ``podMaxBackoffSeconds`` (10 s);
``every-event-requeues``
    ``isPodWorthRequeuing`` answers Queue to every event, registered or not.

Exit codes: ``find`` 0 when nothing was found, 1 when a counterexample was written;
``replay`` 1 while the directory's run still has the unexplained step, else 0; 2 bad usage.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from schedspec.checker import queue_counterexample as qc
from schedspec.impl.queue import backoff_queue
from schedspec.impl.queue.scheduling_queue import QueueingStrategy, SchedulingQueue

__all__ = ["MUTANTS", "main"]


@contextlib.contextmanager
def _backoff_cap_5s() -> Iterator[None]:
    real = backoff_queue.backoff_duration

    def capped(count: int, initial: float, maximum: float) -> float:
        return real(count, initial, min(maximum, 5.0))

    backoff_queue.backoff_duration = capped
    try:
        yield
    finally:
        backoff_queue.backoff_duration = real


@contextlib.contextmanager
def _every_event_requeues() -> Iterator[None]:
    real = SchedulingQueue.is_pod_worth_requeuing
    SchedulingQueue.is_pod_worth_requeuing = (  # type: ignore[method-assign]
        lambda self, qpi, event, old, new: QueueingStrategy.AFTER_BACKOFF
    )
    try:
        yield
    finally:
        SchedulingQueue.is_pod_worth_requeuing = real  # type: ignore[method-assign]


MUTANTS: dict[str, Callable[[], contextlib.AbstractContextManager[None]]] = {
    "backoff-cap-5s": _backoff_cap_5s,
    "every-event-requeues": _every_event_requeues,
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m schedspec.checker.queue_counterexample")
    sub = p.add_subparsers(dest="command", required=True)
    fd = sub.add_parser("find", help="search, shrink and write a counterexample")
    fd.add_argument("--kind", choices=("simulate", "machine"), default="machine")
    fd.add_argument("--runs", type=int, default=200, help="drawn runs before shrinking")
    fd.add_argument("--steps", type=int, default=12, help="rules per machine run")
    fd.add_argument("--seed", type=int, default=0, help="0: Hypothesis derandomized")
    fd.add_argument("--mutant", choices=sorted(MUTANTS), help="break impl on purpose")
    fd.add_argument("--out", required=True, metavar="DIR")
    rp = sub.add_parser("replay", help="validate a written counterexample's run again")
    rp.add_argument("dir", metavar="DIR")
    return p


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = _parser().parse_args(argv)
    if args.command == "replay":
        _, report = qc.replay_dir(Path(args.dir))
        if not report.unexplained:
            print("every step is explained (the run no longer shows the counterexample)", file=out)
            return 0
        print(qc.render_step(report.unexplained[0]), file=out)
        return 1
    broken = MUTANTS[args.mutant]() if args.mutant else contextlib.nullcontext()
    with broken:
        found = qc.find(args.kind, args.runs, args.seed, args.steps)
        if found is None:
            print(f"no unexplained step in {args.runs} {args.kind} run(s)", file=out)
            return 0
        qc.write(found, Path(args.out))
    print(f"written to {args.out}/: in it, {qc.command(found.until)}", file=out)
    print(qc.render_step(found.step), file=out)
    return 1


if __name__ == "__main__":
    sys.exit(main())
