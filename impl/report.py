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
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any, TextIO

from schedspec.cluster import Cluster, load
from schedspec.impl.errors import ConfigError
from schedspec.impl.itf_trace import run_trace
from schedspec.impl.simulate import ScheduleResult, simulate

__all__ = ["format_result", "run_schedule"]


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
    if result.unschedulable:
        print(f"\n{len(result.unschedulable)} pod(s) not scheduled:", file=out)
    for key, u in sorted(result.unschedulable.items()):
        plugins = f" [{', '.join(u.plugins)}]" if u.plugins else ""
        print(f"  {key}{plugins}: {u.message}", file=out)


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
) -> int:
    """The command: exit 0 whatever was scheduled; bad input raises ``SchedspecError``.
    ``trace`` names a file for the per-cycle trace (``schedspec.impl.trace``), ``itf_file`` one
    for the run as an ITF trace (``schedspec.impl.itf_trace``). ``clusters`` are manifest
    files, or a cluster already loaded (``schedspec.live``: read from an API server)."""
    cluster = clusters if isinstance(clusters, Cluster) else load(*clusters)
    chosen, source = _config(config, cluster)
    buffer = io.StringIO() if trace is not None or itf_file is not None else None
    try:
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
        json.dump(result.as_json(), out, indent=2, sort_keys=True)
        print(file=out)
    else:
        for warning in cluster.warnings:
            print(f"warning: {warning}", file=out)
        format_result(result, out)
    return 0
