"""A scheduling run as an ITF trace (``schedspec schedule --itf FILE``): one state per event of
the per-cycle trace (:mod:`.trace`) — a queue move, a scheduling cycle, a binding — each with the
whole run's state after it: which queue every pending pod is in, where every pod is bound, the
virtual time in milliseconds, and the event itself. The first state is the cluster as loaded.
Readable by ``itf-py`` and by Apalache/Quint tooling."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from schedspec import itf
from schedspec.cluster import Cluster, object_key

__all__ = ["run_trace"]

VARIABLES = ("time_ms", "event", "queues", "bindings")


def _event(record: Mapping[str, Any]) -> dict[str, Any]:
    kind = str(record.get("type", ""))
    pod = str(record.get("pod", ""))
    if kind == "queue":
        detail = f"{record.get('from') or '-'} → {record.get('to')} ({record.get('event')})"
    elif kind == "cycle":
        decision = record.get("decision") or {}
        if "node" in decision:
            detail = f"cycle {record.get('cycle')}: assumed on {decision['node']}"
        else:
            message = (decision.get("unschedulable") or {}).get("message", "")
            detail = f"cycle {record.get('cycle')}: unschedulable: {message}"
    elif kind == "bind":
        detail = f"{record.get('result')} on {record.get('node')} {record.get('message') or ''}"
    elif kind == "delete":
        detail = f"deleted from {record.get('node')}"
    else:
        detail = json.dumps(record, sort_keys=True)
    return {"type": kind, "pod": pod, "detail": detail.strip()}


def run_trace(cluster: Cluster, records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The ITF document of a run of ``cluster`` whose trace records are ``records``."""
    queues: dict[str, str] = {}
    bindings = {object_key(p): str(p["spec"]["nodeName"]) for p in cluster.bound_pods()}

    def state(time_ms: int, event: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "time_ms": time_ms,
            "event": itf.value(event),
            "queues": itf.mapping(sorted(queues.items())),
            "bindings": itf.mapping(sorted(bindings.items())),
        }

    states = [state(0, {"type": "start", "pod": "", "detail": "the cluster as loaded"})]
    for record in records:
        pod = str(record.get("pod", ""))
        if record.get("type") == "queue":
            target = str(record.get("to") or "")
            if target:
                queues[pod] = target
            else:
                queues.pop(pod, None)
        elif record.get("type") == "bind" and record.get("result") == "bound":
            bindings[pod] = str(record.get("node"))
            queues.pop(pod, None)
        elif record.get("type") == "delete":
            bindings.pop(pod, None)
        states.append(state(round(float(record.get("t", 0.0)) * 1000), _event(record)))
    meta = {"source": "schedspec schedule", "description": "a scheduling run, event by event"}
    return itf.document(VARIABLES, states, meta)
