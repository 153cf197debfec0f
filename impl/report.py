"""``schedspec schedule``: load the cluster (and a KubeSchedulerConfiguration), run the
operational scheduler, print bindings and the unschedulable pods with kube-scheduler's message.
``--trace FILE`` also writes the per-cycle trace (record shapes: ``schedspec.impl.trace``).

JSON (``--json``)::

    {"bindings": {"ns/name": "node"},
     "unschedulable": {"ns/name": {"plugins": [...], "message": "0/5 nodes are available: ..."}},
     "preempted": ["ns/name"], "nominations": {"ns/name": "node"}}

``preempted``: the pods preemption evicted, in eviction order; ``nominations``: each pod that
preempted, with the node it was nominated to. The human report says who was preempted by whom
on which node.

With an event script (``--events FILE``, :mod:`schedspec.events`) or ``--until D`` the run is
:func:`~schedspec.impl.scripted.run_scripted`'s, and the report says what happened when: each
entry with the queue moves its watch events made, each binding with its virtual time, and the
time the run ended. JSON adds::

    {"events": [{"index": 0, "at": 30.0, "did": "create Node late", "skipped": "",
                 "released": [{"pod", "from", "to", "event"}]}],
     "bound_at": {"ns/name": 30.0}, "end": 90.0}
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any, TextIO

from schedspec.cluster import Cluster, load
from schedspec.events import EventScript, format_duration, load_events, until_after
from schedspec.impl.errors import ConfigError
from schedspec.impl.itf_trace import run_trace
from schedspec.impl.scripted import EventOutcome, ScriptedRun, run_scripted
from schedspec.impl.simulate import ScheduleResult, simulate

__all__ = ["format_result", "format_scripted", "run_schedule", "scripted_json"]


def _config(path: str | None, cluster: Cluster) -> tuple[dict[str, Any] | None, Cluster]:
    """The configuration to use and the cluster it came from (for its ``config_where``)."""
    if path is None:
        return cluster.scheduler_config, cluster
    source = load(path)
    if source.scheduler_config is None:
        raise ConfigError(f"{path} holds no KubeSchedulerConfiguration")
    return source.scheduler_config, source


def format_result(result: ScheduleResult, out: TextIO) -> None:
    """The human-readable report."""
    if result.bindings:
        width = max(len(k) for k in result.bindings)
        print(f"bound {len(result.bindings)} pod(s):", file=out)
        for key, node in sorted(result.bindings.items()):
            print(f"  {key:<{width}}  -> {node}", file=out)
    else:
        print("bound no pods", file=out)
    _format_preemptions(result, out)
    _format_unschedulable(result, "not scheduled", out)


def _format_unschedulable(result: ScheduleResult, what: str, out: TextIO) -> None:
    if result.unschedulable:
        print(f"\n{len(result.unschedulable)} pod(s) {what}:", file=out)
    for key, u in sorted(result.unschedulable.items()):
        plugins = f" [{', '.join(u.plugins)}]" if u.plugins else ""
        print(f"  {key}{plugins}: {u.message}", file=out)


def format_scripted(run: ScriptedRun, out: TextIO) -> None:
    """The human-readable report of a run with scripted time: what happened when."""
    if run.outcomes:
        print("scripted events:", file=out)
    for o in run.outcomes:
        print(f"  at {format_duration(o.t):<7} {o.event.describe()}: {_what_it_did(o)}", file=out)
        for m in o.released:
            print(f"    {m.pod}: {m.src or '(new)'} -> {m.dst} ({m.event})", file=out)
    result = run.result
    if result.bindings:
        width = max(len(k) for k in result.bindings)
        nodes = max(len(n) for n in result.bindings.values())
        print(f"bound {len(result.bindings)} pod(s):", file=out)
        for key, node in sorted(result.bindings.items(), key=lambda kv: _bound_order(run, kv)):
            at = run.bound_at.get(key)
            when = f"  at {format_duration(at)}" if at is not None else ""
            print(f"  {key:<{width}}  -> {node:<{nodes}}{when}", file=out)
    else:
        print("bound no pods", file=out)
    _format_preemptions(result, out)
    _format_unschedulable(result, "pending at the end", out)
    print(f"\nthe run ended at {format_duration(run.end)} (virtual time)", file=out)


def _what_it_did(o: EventOutcome) -> str:
    if o.skipped:
        return f"skipped: {o.skipped}"
    if o.event.action in ("fail-binds", "conflict-status-patches"):
        return "armed"
    moved = len({m.pod for m in o.released})
    return f"moved {moved} pod(s)" if moved else "moved no pod"


def _bound_order(run: ScriptedRun, item: tuple[str, str]) -> tuple[float, str]:
    return (run.bound_at.get(item[0], 0.0), item[0])


def scripted_json(run: ScriptedRun) -> dict[str, Any]:
    """``ScheduleResult.as_json`` and the timeline (see the module docstring)."""
    events = [
        {
            "index": o.event.index,
            "at": o.t,
            "did": o.event.describe(),
            "skipped": o.skipped,
            "released": [m.as_json() for m in o.released],
        }
        for o in run.outcomes
    ]
    bound_at = {k: run.bound_at[k] for k in sorted(run.result.bindings) if k in run.bound_at}
    return {**run.result.as_json(), "events": events, "bound_at": bound_at, "end": run.end}


def _format_preemptions(result: ScheduleResult, out: TextIO) -> None:
    if not result.preemptions:
        return
    print(f"\npreempted {len(result.preempted)} pod(s):", file=out)
    width = max(len(v) for r in result.preemptions for v in r.victims)
    for r in result.preemptions:
        for victim in r.victims:
            print(f"  {victim:<{width}}  by {r.preemptor} on {r.node}", file=out)
    pending = [k for k in result.nominations if k in result.unschedulable]
    for key in pending:
        print(f"  {key} is nominated to {result.nominations[key]}", file=out)


def _write(path: str, text: str, what: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as sink:
            sink.write(text)
    except OSError as err:
        raise ConfigError(f"cannot write the {what} to {path}: {err.strerror}") from None


def run_schedule(
    clusters: Sequence[str] | Cluster,
    config: str | None,
    seed: int,
    as_json: bool,
    out: TextIO,
    trace: str | None = None,
    itf_file: str | None = None,
    events: str | None = None,
    until: float | None = None,
) -> int:
    """The command: exit 0 whatever was scheduled; bad input raises ``SchedspecError``.
    ``trace`` names a file for the per-cycle trace (``schedspec.impl.trace``), ``itf_file`` one
    for the run as an ITF trace (``schedspec.impl.itf_trace``). ``clusters`` are manifest
    files, or a cluster already loaded (``schedspec.live``: read from an API server).
    ``events`` names an event script and ``until`` the virtual seconds to run to (see the
    module docstring); both are checked before anything runs."""
    cluster = clusters if isinstance(clusters, Cluster) else load(*clusters)
    chosen, source = _config(config, cluster)
    script = load_events(events, cluster) if events is not None else None
    buffer = io.StringIO() if trace is not None or itf_file is not None else None
    scripted: ScriptedRun | None = None
    try:
        if script is not None or until is not None:
            script = script or EventScript("", ())
            until_after(script, until)
            scripted = run_scripted(cluster, script, chosen, seed, until=until, trace=buffer)
            result = scripted.result
        else:
            result = simulate(cluster, chosen, seed, trace=buffer)
    except ConfigError as err:
        if err.path:  # a field of the configuration: name its file and line
            raise err.at(source.config_where) from None
        raise
    if buffer is not None:
        text = buffer.getvalue()
        if trace is not None:
            _write(trace, text, "trace")
        if itf_file is not None:
            records = [json.loads(line) for line in text.splitlines() if line]
            _write(itf_file, json.dumps(run_trace(cluster, records), indent=1), "ITF trace")
    if as_json:
        shown = scripted_json(scripted) if scripted is not None else result.as_json()
        json.dump(shown, out, indent=2, sort_keys=True)
        print(file=out)
        return 0
    for warning in cluster.warnings:
        print(f"warning: {warning}", file=out)
    if scripted is not None:
        format_scripted(scripted, out)
    else:
        format_result(result, out)
    return 0
