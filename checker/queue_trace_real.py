"""Trace validation of the real kube-scheduler's queue against ``spec/kube/queue.tla``.

The third witness of ``queue.tla`` (after the spec's own model checking and impl's traces,
:mod:`.queue_trace`): the oracle's ``schedule`` with ``recordQueue`` (``oracle/cmd/
schedspec-oracle/queue_record.go``) runs real ``Scheduler.ScheduleOne`` cycles of
k8s.io/kubernetes v1.34.2 on a fake clock, with its ``SchedulingQueue`` wrapped, and returns an
observation after every call into the queue (each ``Add``, ``Pop``, ``Done``,
``AddUnschedulableIfNotPresent``, ``Update``, ``Delete``, ``MoveAllToActiveOrBackoffQueue``,
``Activate``, each of the two flushes) and after every scheduling cycle: every known pod's place
and the ``QueuedPodInfo`` fields the queue keeps, and the moves the call made (a pod's place
before and after, labelled with the call's cluster event or queue cause), plus the cluster
events recorded while a pod was in flight.

Each observation becomes a :class:`~.queue_trace.Observation` exactly as impl's recorder builds
one, and the same validator checks it (:func:`~.queue_trace.validate`: the same mapping to
``queue.tla``'s variables, action planning from the records, reordering search, declared
differences). What differs is only where a value comes from:

- ``where``: the real queue's lists (``PodsInActiveQ``, ``PodsInBackoffQ``,
  ``UnschedulablePods``, ``InFlightPods``), then its cache: assumed → ``binding``, bound →
  ``bound``, gone from the cache after being bound → ``deleted``. A pod the queue still counts in
  flight while its binding runs is ``binding``/``bound`` (the spec's places), as for impl.
- ``attempts``, ``unschedulableCount``, ``errorCount``, ``timestamp``, ``rejecting``,
  ``pending``: the ``QueuedPodInfo``'s ``Attempts``, ``UnschedulableCount``,
  ``ConsecutiveErrorsCount``, ``Timestamp`` (⌊virtual s⌋), ``UnschedulablePlugins``,
  ``PendingPlugins``; while the pod is in flight, as they were at ``Pop`` (the scheduling cycle
  writes the failure's plugins into the struct before handing it back to the queue).
- ``backoffExpiry``: the queue's own ``BackoffExpiration`` when it has computed it (it does so
  lazily: when it orders backoffQ or asks whether a pod is backing off; upstream
  ``backoff_queue.go`` ``getBackoffTime``); before that, ``⌊timestamp⌋ + min(1 s · 2^(count−1),
  10 s)`` here (:func:`_expiry`). A wrong formula here shows as the queue's value disagreeing
  with it on the next step.
"""

from __future__ import annotations

import argparse
import copy
import functools
import math
import sys
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any, TextIO

from schedspec.checker.oracle import Oracle, OracleRequestError, cluster_json
from schedspec.checker.queue_hints import Delivery
from schedspec.checker.queue_trace import (
    LATE_NODE,
    Observation,
    RunReport,
    _heal_node,
    _late_node,
    validate,
)
from schedspec.checker.queue_trace_campaign import Campaign, render, run_simulate
from schedspec.cluster import Cluster

__all__ = [
    "main",
    "observations",
    "real_simulate",
    "record_real_run",
    "replayed_nominations",
    "validate_real_cluster",
]

REFUSED = "the real API server would refuse an object of the cluster (the oracle's validation)"
# the declared differences of queue_trace.DECLARED, as the real scheduler makes them
REAL_DECLARED = {
    "nomination": "the real scheduler sends AssignedPodDelete (with the LE-priority pre-check) "
    "when a pending pod's status.nominatedNodeName is cleared or changed (eventhandlers.go "
    "updatePodInSchedulingQueue, hasNominatedNodeNameChanged; deletePodFromSchedulingQueue): a "
    "pod update, which queue.tla does not model; its only AssignedPodDelete is a bound pod's "
    "deletion",
    "pod-update": "a pending pod's update moved it (UnschedulablePodUpdate): queue.tla does not "
    "model pod updates",
}
# the recorder's place names → queue.tla's
_WHERE = {"unschedulablePods": "unschedulable"}
INITIAL_BACKOFF, MAX_BACKOFF = 1, 10  # the defaults: kube-scheduler's and queue.tla's


def _expiry(count: int, timestamp: int) -> int:
    """``getBackoffTime`` before the queue has computed it: 0 before any failure."""
    if count == 0:
        return 0
    duration: int = min(INITIAL_BACKOFF * 2 ** (count - 1), MAX_BACKOFF)
    return timestamp + duration


def _pod(raw: Mapping[str, Any]) -> dict[str, Any]:
    """One pod of an observation, as :class:`~.queue_trace.Recorder` builds impl's."""
    if raw.get("prebound"):
        return {
            "where": raw["place"], "nodeOf": raw["node"], "attempts": 1,
            "unschedulableCount": 0, "errorCount": 0, "timestamp": math.floor(raw["seen"]),
            "backoffExpiry": 0, "rejecting": frozenset(), "pending": frozenset(),
        }  # fmt: skip
    timestamp = math.floor(raw["timestamp"])
    errors, unschedulable = raw["errorCount"], raw["unschedulableCount"]
    cached = raw.get("backoffExpiration")
    expiry = (
        math.floor(cached) if cached is not None else _expiry(errors or unschedulable, timestamp)
    )
    return {
        "where": _WHERE.get(raw["place"], raw["place"]),
        "nodeOf": raw["node"],
        "attempts": raw["attempts"],
        "unschedulableCount": unschedulable,
        "errorCount": errors,
        "timestamp": timestamp,
        "backoffExpiry": expiry,
        "rejecting": frozenset(raw["rejecting"] or ()),
        "pending": frozenset(raw["pending"] or ()),
    }


def _record(raw: Sequence[Any]) -> tuple[Any, ...]:
    """A record; a ``deliver`` one carries the event's :class:`~.queue_hints.Delivery` (its
    objects and the pending pods as the real queue held them), for the hints to be pinned."""
    if raw[0] != "deliver":
        return tuple(raw)
    label, d = raw[1], raw[2]
    pods = {k: _manifest(v) for k, v in (d["pods"] or {}).items()}
    delivery = Delivery(label, _manifest(d["old"]), _manifest(d["new"]), pods, d["prechecked"])
    return ("deliver", label, delivery)


def _manifest(obj: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A Go-encoded object as a manifest (namespace defaulted, as the loader does)."""
    if obj is None:
        return None
    out = dict(obj)
    meta = dict(out.get("metadata") or {})
    if "spec" in out and "containers" in (out["spec"] or {}):
        meta.setdefault("namespace", "default")
    out["metadata"] = meta
    return out


def observations(trace: Sequence[Mapping[str, Any]]) -> list[Observation]:
    """The oracle's ``queue.trace`` as :class:`~.queue_trace.Observation`\\ s."""
    out = []
    for obs in trace:
        pods = {k: _pod(v) for k, v in sorted(obs["pods"].items())}
        records = tuple(_record(r) for r in obs["records"] or ())
        out.append(Observation(float(obs["t"]), pods, records))
    return out


def replayed_nominations(observed: Sequence[Observation]) -> set[int]:
    """The observations where a failed pod left flight for backoffQ/activeQ after an
    AssignedPodDelete with no bound pod gone (a nomination's: DECLARED "nomination") reached it
    in flight: the queue replays it at the failure (DECLARED "nomination-in-flight")."""
    out: set[int] = set()
    flying: dict[str, bool] = {}  # pod in flight → an orphan AssignedPodDelete reached it
    before: Mapping[str, Mapping[str, Any]] = {}
    for k, obs in enumerate(observed):
        gone = any(
            p.get("where") == "bound" and obs.pods.get(key, {}).get("where") == "deleted"
            for key, p in before.items()
        )
        for rec in obs.records:
            if rec[0] == "event" and rec[1] == "AssignedPodDelete" and not gone:
                flying = dict.fromkeys(flying, True)
            elif rec[0] == "move" and rec[3] == "inFlight":
                flying[rec[1]] = False
            elif rec[0] == "move" and rec[2] == "inFlight":
                released = rec[4] == "ScheduleAttemptFailure" and rec[3] in ("activeQ", "backoffQ")
                if flying.pop(rec[1], False) and released:
                    out.add(k)
        before = obs.pods
    return out


class _Capture:
    """An API server holding one node, keeping what is written back (for ``_heal_node``)."""

    def __init__(self, node: Mapping[str, Any]) -> None:
        self.node = node
        self.updated: dict[str, Any] | None = None

    def get(self, kind: str, name: str) -> dict[str, Any]:
        return copy.deepcopy(dict(self.node))

    def update(self, kind: str, obj: dict[str, Any]) -> None:
        self.updated = obj


def _healed(node: Mapping[str, Any]) -> dict[str, Any] | None:
    """The update impl's campaign makes to ``node`` at 20 s (queue_trace ``_heal_node``)."""
    api = _Capture(node)
    _heal_node(SimpleNamespace(apiserver=api), node["metadata"]["name"])  # type: ignore[arg-type]
    return api.updated


def _outside(cluster: Cluster) -> str | None:
    """``backoff`` when the cluster's configuration changes the backoff queue.tla fixes."""
    cfg = cluster.scheduler_config or {}
    initial = cfg.get("podInitialBackoffSeconds", INITIAL_BACKOFF)
    maximum = cfg.get("podMaxBackoffSeconds", MAX_BACKOFF)
    return None if (initial, maximum) == (INITIAL_BACKOFF, MAX_BACKOFF) else "backoff"


def record_real_run(
    oracle: Oracle,
    cluster: Cluster,
    seed: int = 0,
    idle_timeout: float = 60.0,
    late_node_at: float | None = None,
    update_node_at: float | None = None,
) -> tuple[list[Observation], dict[str, Any]]:
    """The real scheduler's run of ``cluster`` (``late_node_at``: a roomy node named
    :data:`~.queue_trace.LATE_NODE` created then; ``update_node_at``: the cluster's first node
    updated then as impl's campaign does), observed: the observations and the oracle's whole
    answer (bindings, ``queue.virtualSeconds``, ...)."""
    request: dict[str, Any] = {"idle": idle_timeout, "later": []}
    if update_node_at is not None and cluster.nodes:
        healed = _healed(cluster.nodes[0])
        request["later"].append({"at": update_node_at, "node": healed, "update": True})
    if late_node_at is not None:
        request["later"].append({"at": late_node_at, "node": _late_node()})
    answer = oracle.schedule(cluster_json(cluster), seed, ties=False, record_queue=request)
    return observations(answer["queue"]["trace"]), answer


def validate_real_cluster(
    oracle: Oracle,
    cluster: Cluster,
    seed: int = 0,
    *,
    max_pods: int = 4,
    idle_timeout: float = 60.0,
    late_node_at: float | None = None,
    update_node_at: float | None = None,
) -> RunReport:
    """Record ``cluster``'s real run and validate it (skipped when outside the universe)."""
    if len(cluster.pods) > max_pods:
        return RunReport(skipped="pods")
    if (why := _outside(cluster)) is not None:
        return RunReport(skipped=why)
    try:
        observed, _ = record_real_run(
            oracle, cluster, seed, idle_timeout, late_node_at, update_node_at
        )
    except OracleRequestError:
        return RunReport(skipped=REFUSED)
    nodes = [n["metadata"]["name"] for n in cluster.nodes]
    if late_node_at is not None:
        nodes.append(LATE_NODE)
    replayed = replayed_nominations(observed)
    return validate(
        observed,
        nodes,
        max_pods=max_pods,
        declared=lambda k: "nomination-in-flight" if k in replayed else None,
    )


def real_simulate(runs: int, seed: int = 0, oracle: Oracle | None = None) -> Campaign:
    """The ``simulate`` campaign of :mod:`.queue_trace_campaign` (generated clusters, a roomy
    node at 40 s, 400 s idle) on the real scheduler."""
    if oracle is None:
        with Oracle() as own:
            return real_simulate(runs, seed, own)
    return run_simulate(runs, seed, functools.partial(validate_real_cluster, oracle))


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    p = argparse.ArgumentParser(prog="python3 -m schedspec.checker.queue_trace_real")
    p.add_argument(
        "--runs", type=int, default=200, help="generated clusters, on the real scheduler"
    )
    p.add_argument("--seed", type=int, default=0, help="0: Hypothesis derandomized")
    args = p.parse_args(argv)
    campaign = real_simulate(args.runs, args.seed)
    render("real simulate", campaign, out, REAL_DECLARED, "real")
    return 1 if campaign.unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
