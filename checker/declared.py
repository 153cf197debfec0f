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
)
"""Every declared difference; ``docs/checker.md`` lists them with their reasons."""


def covering(context: Context, d: Disagreement) -> str | None:
    """The id of the first declared difference covering ``d``, or None."""
    for entry in DECLARED:
        if d.predicate in entry.predicates and entry.applies(context, d):
            return entry.id
    return None
