"""``schedspec monitor --kubeconfig PATH [--context NAME] [--duration S] [--config KSC] [--json]``:
judge a live kube-scheduler's decisions against ``scheduler.tla`` as they happen
(``checker.monitor``; the stream: ``checker.monitor_watch``).

Each violation is printed when found — the rule the decision broke, the pod, the node, the
spec's verdict and reason — with a minimal cluster that shows the same verdict to ``schedspec
explain`` (written to ``--out DIR`` as ``violation-K.yaml``, else printed). At the end (the
duration elapsed, or Ctrl-C) a summary: decisions judged per kind, violations, and what was not
judged and why. Exit 0 without violations, 1 with some, 2 on bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from schedspec.checker.monitor import WINDOW, Monitor, Summary, Violation
from schedspec.checker.monitor_watch import Watcher
from schedspec.errors import UsageError
from schedspec.live import add_source_flags, source_from_args

__all__ = ["add_parser", "load_config", "run_monitor", "watch_and_judge"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mo = sub.add_parser("monitor", help="judge a live scheduler's decisions against the spec")
    add_source_flags(mo)
    mo.add_argument(
        "--duration", type=float, metavar="S", help="stop after S seconds (else Ctrl-C)"
    )
    mo.add_argument(
        "--config", metavar="KSC", help="the KubeSchedulerConfiguration the scheduler runs"
    )
    mo.add_argument(
        "--window",
        type=int,
        default=WINDOW,
        metavar="K",
        help="allow the scheduler's cache K changes behind the API server, or K later bindings "
        f"assumed (default {WINDOW})",
    )
    mo.add_argument("--out", metavar="DIR", help="write each violation's cluster to DIR")
    mo.add_argument(
        "--minimise-steps",
        type=int,
        default=300,
        metavar="N",
        help="spec evaluations spent minimising a witness (0: the whole state)",
    )
    mo.add_argument("--json", action="store_true", help="machine-readable output")


def load_config(path: str | None) -> dict[str, Any] | None:
    """The KubeSchedulerConfiguration of the file ``path`` (validated by the loader)."""
    if path is None:
        return None
    from schedspec.cluster import load

    config = load(path).scheduler_config
    if config is None:
        raise UsageError(f"{path}: no KubeSchedulerConfiguration in the file")
    return config


def run_monitor(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.spec.load import load_spec

    source = source_from_args(args)
    if source is None:
        raise UsageError("monitor watches a live cluster: give --kubeconfig PATH")
    if args.duration is not None and args.duration <= 0:
        raise UsageError(f"--duration {args.duration}: must be more than 0 seconds")
    if args.window < 0:
        raise UsageError(f"--window {args.window}: must be at least 0")
    monitor = Monitor(
        load_spec("scheduler"),
        load_config(args.config),
        window=args.window,
        minimise_steps=args.minimise_steps,
    )
    watcher = Watcher(source)
    reporter = _Reporter(args, out)
    started = time.monotonic()
    deadline = started + args.duration if args.duration is not None else None

    def greet() -> None:  # on standard error with --json: a script may wait for it
        count = len(monitor.history.objects)
        where = sys.stderr if args.json else out
        print(f"monitoring {watcher.where}: {count} object(s)", file=where, flush=True)

    with contextlib.suppress(KeyboardInterrupt):  # watch_and_judge judges what waits
        watch_and_judge(watcher, monitor, reporter.report, deadline=deadline, started=greet)
    reporter.summary(monitor.summary, time.monotonic() - started, watcher.relists)
    return 1 if monitor.summary.violations else 0


def watch_and_judge(
    watcher: Watcher,
    monitor: Monitor,
    report: Callable[[list[Violation]], None],
    *,
    deadline: float | None = None,
    stop: threading.Event | None = None,
    started: Callable[[], None] | None = None,
) -> None:
    """Feeds ``monitor`` the initial lists, then the watch, until ``deadline`` (monotonic
    seconds) or ``stop`` is set; then judges what waits (``flush``). ``report`` gets each
    batch of violations as found."""
    for kind, obj, deleted in watcher.initial():
        monitor.feed(kind, obj, deleted)
    watcher.start()
    if started is not None:
        started()
    try:
        while (deadline is None or time.monotonic() < deadline) and not (stop and stop.is_set()):
            wait = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
            item = watcher.get(wait)
            report(monitor.tick() if item is None else monitor.feed(*item))
    finally:
        watcher.stop()
        report(monitor.flush())


class _Reporter:
    def __init__(self, args: argparse.Namespace, out: TextIO) -> None:
        self.json, self.out, self.dir = args.json, out, Path(args.out) if args.out else None
        self.count = 0
        self.files: list[str] = []

    def report(self, found: list[Violation]) -> None:
        for v in found:
            self.count += 1
            path = self._write(v)
            if self.json:
                continue
            where = f" on {v.node}" if v.node else ""
            print(
                f"\nVIOLATION {self.count}: {v.kind} of {v.pod}{where}: {v.rule} is {v.verdict}",
                file=self.out,
            )
            print(f"  {v.reason}", file=self.out)
            if v.victims:
                print(f"  victims: {', '.join(v.victims)}", file=self.out)
            if path is not None:
                print(f"  witness: {path} (schedspec explain {path} --pod {v.pod})", file=self.out)
            else:
                print(_witness_text(v), file=self.out)
            self.out.flush()

    def _write(self, v: Violation) -> str | None:
        if self.dir is None:
            return None
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / f"violation-{self.count}.yaml"
        path.write_text(_witness_text(v), encoding="utf-8")
        self.files.append(str(path))
        return str(path)

    def summary(self, s: Summary, seconds: float, relists: int) -> None:
        if self.json:
            document = {
                **s.as_json(),
                "seconds": round(seconds, 1),
                "relists": relists,
                "witness_files": self.files,
            }
            json.dump(document, self.out, indent=2, sort_keys=True)
            print(file=self.out)
            return
        judged = ", ".join(f"{n} {k}(s)" for k, n in sorted(s.judged.items())) or "none"
        print(
            f"\n{seconds:.0f} s: judged {judged}; {len(s.violations)} violation(s)", file=self.out
        )
        for label, n in sorted(s.explained_by_window.items()):
            print(f"  explained by a state around the decision: {n} {label}", file=self.out)
        for label, n in sorted(s.not_judged.items()):
            print(f"  not judged: {n} × {label}", file=self.out)
        events = ", ".join(f"{k} {n}" for k, n in sorted(s.events.items()))
        print(f"  events seen: {events or 'none'}; watches re-listed: {relists}", file=self.out)


def _witness_text(v: Violation) -> str:
    from schedspec.checker.minimise import to_yaml

    where = f" on {v.node}" if v.node else ""
    header = [
        f"# schedspec monitor: {v.kind} of {v.pod}{where}: {v.rule} is {v.verdict}",
        f"# {v.reason}",
        f"# reproduce: schedspec explain THIS_FILE --pod {v.pod}",
    ]
    return "\n".join(header) + "\n" + to_yaml(list(v.objects))
