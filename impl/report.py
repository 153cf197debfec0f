"""``schedspec schedule``: load the cluster (and a KubeSchedulerConfiguration), run the
operational scheduler, print bindings and the unschedulable pods with kube-scheduler's message.

JSON (``--json``)::

    {"bindings": {"ns/name": "node"},
     "unschedulable": {"ns/name": {"plugins": [...], "message": "0/5 nodes are available: ..."}},
     "preempted": [], "nominations": {}}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from schedspec.cluster import load
from schedspec.impl.errors import ConfigError
from schedspec.impl.simulate import ScheduleResult, simulate

__all__ = ["format_result", "run_schedule"]


def _config(path: str | None, cluster_config: dict[str, Any] | None) -> dict[str, Any] | None:
    if path is None:
        return cluster_config
    config = load(path).scheduler_config
    if config is None:
        raise ConfigError(f"{path} holds no KubeSchedulerConfiguration")
    return config


def format_result(result: ScheduleResult, out: TextIO) -> None:
    """The human-readable report."""
    if result.bindings:
        width = max(len(k) for k in result.bindings)
        print(f"bound {len(result.bindings)} pod(s):", file=out)
        for key, node in sorted(result.bindings.items()):
            print(f"  {key:<{width}}  -> {node}", file=out)
    else:
        print("bound no pods", file=out)
    if result.unschedulable:
        print(f"\n{len(result.unschedulable)} pod(s) not scheduled:", file=out)
    for key, u in sorted(result.unschedulable.items()):
        plugins = f" [{', '.join(u.plugins)}]" if u.plugins else ""
        print(f"  {key}{plugins}: {u.message}", file=out)


def run_schedule(
    clusters: Sequence[str], config: str | None, seed: int, as_json: bool, out: TextIO
) -> int:
    """The command: exit 0 whatever was scheduled; bad input raises ``SchedspecError``."""
    cluster = load(*clusters)
    result = simulate(cluster, _config(config, cluster.scheduler_config), seed)
    if as_json:
        json.dump(result.as_json(), out, indent=2, sort_keys=True)
        print(file=out)
    else:
        for warning in cluster.warnings:
            print(f"warning: {warning}", file=out)
        format_result(result, out)
    return 0
