"""CA's clock: when the snapshot was taken.

The autoscaler's time rules (a ``ToBeDeletedByClusterAutoscaler`` taint younger than 5 minutes means
the node is being deleted; a pod terminating past its grace period plus 30 s is skipped by the
drain) need "now". A manifest carries no "now", so the model takes the latest time the cluster
records — the newest creation, start or deletion timestamp, or CA taint value — which is when a
``kubectl get`` of it could have been taken at the earliest. Both the spec's view and impl read it
from here; it is input, not a rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from schedspec.cluster import Cluster

__all__ = ["ca_clock", "seconds"]

_CA_TAINTS = ("ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler")


def seconds(text: Any) -> int | None:
    """Unix seconds of an RFC 3339 time, None if absent or unreadable."""
    if not text:
        return None
    try:
        return int(datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp())
    except ValueError:
        return None


def _times(cluster: Cluster) -> Iterator[int]:
    objects: list[Mapping[str, Any]] = [*cluster.nodes, *cluster.pods]
    for obj in objects:
        meta = obj.get("metadata") or {}
        for text in (meta.get("creationTimestamp"), meta.get("deletionTimestamp")):
            if (t := seconds(text)) is not None:
                yield t
    for pod in cluster.pods:
        if (t := seconds((pod.get("status") or {}).get("startTime"))) is not None:
            yield t
    for node in cluster.nodes:
        for taint in (node.get("spec") or {}).get("taints") or ():
            value = str(taint.get("value", ""))
            if taint.get("key") in _CA_TAINTS and value.isdigit():
                yield int(value)


def ca_clock(cluster: Cluster, now: int | None = None) -> int:
    """``now`` when given, else the latest time in ``cluster`` (0 if it records none)."""
    if now is not None:
        return now
    return max(_times(cluster), default=0)
