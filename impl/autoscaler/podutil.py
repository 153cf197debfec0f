"""What cluster-autoscaler reads off raw Pod and Node objects that the scheduler's typed objects
do not carry: owners, annotations, volumes, timestamps, node capacity.

Mirrors ``utils/pod/pod.go`` (``IsDaemonSetPod``, ``IsMirrorPod``), ``utils/drain/drain.go``
(``IsPodLongTerminating``, ``HasBlockingLocalStorage``), ``core/utils`` (``GetNodeCoresAndMemory``)
and apimachinery's ``metav1.GetControllerOf``. Objects are the loader's dicts
(``schedspec.cluster``), read-only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from schedspec.impl.api.resources import resource_list

__all__ = [
    "CONTAINER_CPU_MEMORY",
    "GIB",
    "MIRROR_ANNOTATION",
    "SAFE_TO_EVICT",
    "SAFE_TO_EVICT_LOCAL_VOLUMES",
    "annotations_of",
    "capacity",
    "container_requests",
    "controller_ref",
    "is_daemonset_pod",
    "is_long_terminating",
    "is_mirror_pod",
    "node_cores_and_memory",
    "parse_time",
    "pod_key",
    "priority",
]

Obj = Mapping[str, Any]

GIB = 1 << 30
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
SAFE_TO_EVICT_LOCAL_VOLUMES = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
POD_LONG_TERMINATING_EXTRA_SECONDS = 30
DEFAULT_GRACE_SECONDS = 30
CONTAINER_CPU_MEMORY = ("cpu", "memory")


def pod_key(obj: Obj) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def annotations_of(obj: Obj) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("annotations") or {}


def priority(obj: Obj) -> int:
    return int((obj.get("spec") or {}).get("priority") or 0)


def controller_ref(obj: Obj) -> Mapping[str, Any] | None:
    """The ownerReference with ``controller: true`` (``metav1.GetControllerOf``)."""
    refs = (obj.get("metadata") or {}).get("ownerReferences") or ()
    return next((r for r in refs if r.get("controller") is True), None)


def is_daemonset_pod(obj: Obj) -> bool:
    ref = controller_ref(obj)
    return ref is not None and ref.get("kind") == "DaemonSet"


def is_mirror_pod(obj: Obj) -> bool:
    return MIRROR_ANNOTATION in annotations_of(obj)


def parse_time(text: object) -> float | None:
    """RFC 3339 → Unix seconds; None when absent or unreadable."""
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def is_long_terminating(obj: Obj, now: float) -> bool:
    """``deletionTimestamp + grace + 30 s`` strictly before ``now`` (grace defaults to 30 s)."""
    deleted = parse_time((obj.get("metadata") or {}).get("deletionTimestamp"))
    if deleted is None:
        return False
    grace = (obj.get("spec") or {}).get("terminationGracePeriodSeconds")
    grace_s = DEFAULT_GRACE_SECONDS if grace is None else int(grace)
    return deleted + grace_s + POD_LONG_TERMINATING_EXTRA_SECONDS < now


def container_requests(obj: Obj) -> dict[str, int]:
    """Σ of the regular containers' requests (cpu in millicores): what the estimator's pod
    orderer, the least-waste and the price expanders add up (no init containers, no overhead)."""
    total: dict[str, int] = {}
    for c in (obj.get("spec") or {}).get("containers") or ():
        for name, amount in resource_list((c.get("resources") or {}).get("requests")).items():
            total[name] = total.get(name, 0) + amount
    return total


def capacity(node: Obj) -> dict[str, int]:
    """``status.capacity`` (cpu in millicores); a node manifest without any falls back to its
    allocatable (a real node always has both; declared in docs/autoscaler.md's impl notes)."""
    status = node.get("status") or {}
    raw = status.get("capacity")
    return resource_list(raw if raw is not None else status.get("allocatable"))


def node_cores_and_memory(node: Obj) -> tuple[int, int]:
    """Capacity in whole cores (rounded up) and bytes (``GetNodeCoresAndMemory``)."""
    cap = capacity(node)
    return math.ceil(cap.get("cpu", 0) / 1000), cap.get("memory", 0)
