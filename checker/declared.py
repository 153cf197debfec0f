"""Declared differences: where impl (or the real scheduler) legitimately differs from the spec.

Each entry says which comparisons it covers, when it applies to a disagreement, and why the
difference is right — written once, here, and read by the checker (DESIGN.md, "Declared
differences"). A disagreement no entry covers fails a campaign; nothing is hidden by loosening a
comparison. The reasons of impl's own declarations (``impl/framework/declared.py``) are cited,
not restated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schedspec.cluster import Cluster
from schedspec.impl.api import pod_from_dict
from schedspec.impl.framework.types import host_ports

if TYPE_CHECKING:
    from schedspec.checker.differential import Disagreement

__all__ = ["DECLARED", "Context", "Declared", "covering"]


@dataclass(frozen=True)
class Context:
    """What an entry may look at to decide whether it applies."""

    cluster: Cluster

    def pod(self, key: str) -> dict[str, Any] | None:
        return self.cluster.find_pod(key)

    def node(self, name: str | None) -> dict[str, Any] | None:
        return None if name is None else self.cluster.find_node(name)


@dataclass(frozen=True)
class Declared:
    id: str
    predicates: frozenset[str]
    reason: str
    applies: Callable[[Context, Disagreement], bool]


_RESOURCE_VERDICTS = frozenset(
    {
        "FitOK",
        "NodeStatus",
        "Feasible",
        "NodeResourcesFitScore",
        "BalancedAllocationScore",
        "Viability",
        "Best",
        "Schedulable",
        "Decision",
        "ScoreError",  # whether a score phase runs at all depends on which nodes are feasible
        "EligibleToPreempt",
        "PreemptionCandidate",
        "Victims",
        "NumPDBViolations",
        "PreemptionNodes",
        "ValidVictims",
        "MinimalVictims",
    }
)


def _has_status_resources(pod: dict[str, Any]) -> bool:
    status = pod.get("status") or {}
    entries = (status.get("containerStatuses") or []) + (status.get("initContainerStatuses") or [])
    return any(e.get("resources") or e.get("allocatedResources") for e in entries)


def _resized_pod_counted(context: Context, d: Disagreement) -> bool:
    """Some assigned pod (on the node, or anywhere for a per-pod verdict) reports status
    resources, which the spec reads and impl does not."""
    return any(
        _has_status_resources(q) and (d.node is None or q["spec"].get("nodeName") == d.node)
        for q in context.cluster.bound_pods()
    )


def _image_sizes_differ(context: Context, d: Disagreement) -> bool:
    """One of the pod's images is reported by two nodes with different sizes (multi-arch
    nodes do), and, for a per-node verdict, the disagreement's node is one of them."""
    pod = context.pod(d.pod) or {}
    spec = pod.get("spec") or {}
    wanted = {c.get("image") for c in (spec.get("containers") or [])}
    wanted |= {c.get("image") for c in (spec.get("initContainers") or [])}
    sizes: dict[str, dict[str, int]] = {}
    for node in context.cluster.nodes:
        for image in (node.get("status") or {}).get("images") or []:
            for name in image.get("names") or []:
                sizes.setdefault(name, {})[node["metadata"]["name"]] = image.get("sizeBytes", 0)
    return any(
        len(set(by_node.values())) > 1 and (d.node is None or d.node in by_node)
        for name, by_node in sizes.items()
        if name in wanted or name.removesuffix(":latest") in wanted
    )


def _tied_potential_victims(context: Context, d: Disagreement) -> bool:
    """Two of the pods the preemptor may evict from the node (any node, for a per-pod verdict)
    tie in importance: the same priority and the same start time (or none)."""
    preemptor = context.pod(d.pod)
    if preemptor is None:
        return False
    priority = preemptor["spec"].get("priority", 0)
    seen: set[tuple[str, int, str | None]] = set()
    for q in context.cluster.bound_pods():
        node = q["spec"].get("nodeName")
        if d.node is not None and node != d.node:
            continue
        if q["spec"].get("priority", 0) >= priority:
            continue
        rank = (node, q["spec"].get("priority", 0), (q.get("status") or {}).get("startTime"))
        if rank in seen:
            return True
        seen.add(rank)
    return False


def _shared_host_port(context: Context, d: Disagreement) -> bool:
    """Two running pods of one node (the disagreement's, or any for a per-pod verdict) hold the
    same host port."""
    held: set[tuple[str, str, str, int]] = set()
    for q in context.cluster.bound_pods():
        node = q["spec"].get("nodeName")
        if (d.node is not None and node != d.node) or (q.get("status") or {}).get("phase") in (
            "Succeeded",
            "Failed",
        ):
            continue
        for ip, protocol, port in host_ports(pod_from_dict(q)):
            if (node, ip, protocol, port) in held:
                return True
            held.add((node, ip, protocol, port))
    return False


def _refused_by_api_validation(context: Context, d: Disagreement) -> bool:
    return isinstance(d.oracle, str) and (
        "Invalid value" in d.oracle
        or "Required value" in d.oracle
        or "Unsupported" in d.oracle
        or "Forbidden" in d.oracle
    )


DECLARED: tuple[Declared, ...] = (
    Declared(
        "NodeResourcesFit.statusResources",
        _RESOURCE_VERDICTS,
        "impl accounts assigned pods with their spec requests; InPlacePodVerticalScaling's "
        "status resources (containerStatuses[].resources/allocatedResources), which v1.34 "
        "counts and scheduler.tla reads, are not modelled in impl "
        "(impl/framework/declared.py, same id)",
        _resized_pod_counted,
    ),
    Declared(
        "ImageLocality.firstReportedSize",
        frozenset({"ImageLocalityScore", "Viability", "Best", "Decision"}),
        "kube-scheduler's cache keeps one size per image name, the sizeBytes of the first node "
        "that reported it (pkg/scheduler/backend/cache/cache.go addNodeImageStates), and every "
        "node's ImageLocality score uses that size; impl does the same. scheduler.tla, over a "
        "set of nodes with no arrival order, scores each node with its own reported size. They "
        "differ only when nodes report one image name with different sizes (multi-arch nodes)",
        _image_sizes_differ,
    ),
    Declared(
        "DefaultPreemption.tiedVictimOrder",
        frozenset({"Victims", "NumPDBViolations", "PreemptionNodes"}),
        "SelectVictimsOnNode sorts the potential victims by importance (priority, then start "
        "time) with sort.Slice, so pods that tie keep the order of the node's pod list in the "
        "scheduler cache — the order they reached it — and the reprieve walk, which puts pods "
        "back most important first, may keep either of them (default_preemption.go, "
        "util.MoreImportantPod). impl keeps its cache's order too; scheduler.tla, over sets, "
        "orders ties by value (SortSet). They differ only when two potential victims on a node "
        "tie in priority and start time",
        _tied_potential_victims,
    ),
    Declared(
        "NodePorts.sharedHostPortRemoval",
        frozenset({"PreemptionCandidate", "Victims", "NumPDBViolations", "PreemptionNodes"}),
        "a NodeInfo's UsedPorts is a set (k8s.io/kube-scheduler framework/types.go HostPortInfo): "
        "removing a pod deletes its host ports even when another pod of the node holds the same "
        "one, so preemption's dry run, which removes the lower-priority pods, may find a port "
        "free that a higher-priority pod still holds; impl's used-port set does the same. "
        "scheduler.tla reads the ports of the pods left. Only two running pods of one node "
        "holding one (hostIP, protocol, port) can tell them apart, a state the kubelet's own "
        "admission refuses and that only pods bound by nodeName reach",
        _shared_host_port,
    ),
    Declared(
        "Admitted.lenientValidation",
        frozenset({"Admitted"}),
        "schedspec's loader accepts, with a warning, a few shapes the API server's "
        "ValidatePodCreate refuses (Gt/Lt with other than one value, an unknown selector "
        'operator such as the seed\'s "Exits", In/NotIn without values, values beside Exists, '
        "keys or values that are not label syntax, a matchFields key other than metadata.name) "
        "so that what the scheduler would do with them can be studied — spec and impl agree on "
        "them; the real scheduler is only ever shown validated objects, so the oracle refuses them",
        _refused_by_api_validation,
    ),
)
"""Every declared difference; ``docs/checker.md`` lists them with their reasons."""


def covering(context: Context, d: Disagreement) -> str | None:
    """The id of the first declared difference covering ``d``, or None."""
    for entry in DECLARED:
        if d.predicate in entry.predicates and entry.applies(context, d):
            return entry.id
    return None
