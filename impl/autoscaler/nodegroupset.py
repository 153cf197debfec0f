"""Similar node groups, and how a scale-up is split between them.

Mirrors ``processors/nodegroupset/compare_nodegroups.go`` (``IsCloudProviderNodeInfoSimilar``
with ``BasicIgnoredLabels``) and ``balancing_processor.go`` (``BalanceScaleUpBetweenGroups``).

Two templates are similar when: every capacity resource is on both, memory within 1.5 % and
every other capacity exactly equal; every allocatable resource is on both and within 5 %; the
free room (allocatable − the template pods' requests) within 5 % for each resource on both; and
the labels, less the ignored ones, are identical. Taints are not compared. "Within r" is
``larger − smaller ≤ larger · r`` (exact rationals here; upstream float64 of milli-values).

Balancing: groups at their max are dropped, the request is capped at the room left (the excess
is dropped), then nodes go one at a time to the smallest group (water-filling), each up to its
max. Upstream sorts by current size unstably: **declared**, stable, the chosen group first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.api.resources import resource_list

__all__ = [
    "BASIC_IGNORED_LABELS",
    "ScaleUpInfo",
    "balance_scale_up_between_groups",
    "is_similar",
]

BASIC_IGNORED_LABELS = frozenset(
    {
        "kubernetes.io/hostname",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "beta.kubernetes.io/fluentd-ds-ready",
        "kops.k8s.io/instancegroup",
    }
)
MEMORY_DIFFERENCE_RATIO = Fraction(15, 1000)  # --memory-difference-ratio
MAX_ALLOCATABLE_DIFFERENCE_RATIO = Fraction(5, 100)  # --max-allocatable-difference-ratio
MAX_FREE_DIFFERENCE_RATIO = Fraction(5, 100)  # --max-free-difference-ratio
_ALWAYS_REQUESTED = ("cpu", "memory", "ephemeral-storage")


def _within(a: int, b: int, ratio: Fraction) -> bool:
    larger, smaller = max(a, b), min(a, b)
    return larger - smaller <= larger * ratio


def _status_list(node: Mapping[str, Any], field: str) -> dict[str, int]:
    status = node.get("status") or {}
    raw = status.get(field)
    if raw is None:  # allocatable defaults to capacity in the loader; capacity to allocatable
        raw = status.get("allocatable" if field == "capacity" else "capacity")
    return resource_list(raw)


def _free(node: Mapping[str, Any], pods: Sequence[Pod]) -> dict[str, int]:
    allocatable = _status_list(node, "allocatable")
    requested: dict[str, int] = dict.fromkeys(_ALWAYS_REQUESTED, 0)
    for pod in pods:
        for name, amount in pod.requests.items():
            requested[name] = requested.get(name, 0) + amount
    return {name: allocatable.get(name, 0) - amount for name, amount in requested.items()}


def is_similar(
    a: Mapping[str, Any],
    a_pods: Sequence[Pod],
    b: Mapping[str, Any],
    b_pods: Sequence[Pod],
    ignored_labels: frozenset[str] = BASIC_IGNORED_LABELS,
) -> bool:
    """Do templates ``a`` and ``b`` (with their DaemonSet/mirror pods) compare similar?"""
    cap_a, cap_b = _status_list(a, "capacity"), _status_list(b, "capacity")
    if cap_a.keys() != cap_b.keys():
        return False
    for name, qty in cap_a.items():
        if name == "memory":
            if not _within(qty, cap_b[name], MEMORY_DIFFERENCE_RATIO):
                return False
        elif qty != cap_b[name]:
            return False
    alloc_a, alloc_b = _status_list(a, "allocatable"), _status_list(b, "allocatable")
    if alloc_a.keys() != alloc_b.keys():
        return False
    if any(
        not _within(q, alloc_b[n], MAX_ALLOCATABLE_DIFFERENCE_RATIO) for n, q in alloc_a.items()
    ):
        return False
    free_a, free_b = _free(a, a_pods), _free(b, b_pods)
    for name in free_a.keys() & free_b.keys():
        if not _within(free_a[name], free_b[name], MAX_FREE_DIFFERENCE_RATIO):
            return False
    return _labels(a, ignored_labels) == _labels(b, ignored_labels)


def _labels(node: Mapping[str, Any], ignored: frozenset[str]) -> dict[str, str]:
    labels = (node.get("metadata") or {}).get("labels") or {}
    return {k: v for k, v in labels.items() if k not in ignored}


@dataclass(frozen=True)
class ScaleUpInfo:
    """``{group current->new (max: max)}``, as the TriggeredScaleUp event prints it."""

    group: str
    current: int
    new: int
    max: int

    def __str__(self) -> str:
        return f"{{{self.group} {self.current}->{self.new} (max: {self.max})}}"


def balance_scale_up_between_groups(
    groups: Sequence[tuple[str, int, int]], new_nodes: int
) -> list[ScaleUpInfo]:
    """Split ``new_nodes`` over ``groups`` ((name, current, max), the chosen group first);
    only the groups that grow are returned, in upstream's final array order."""
    infos = [ScaleUpInfo(n, cur, cur, mx) for n, cur, mx in groups if cur < mx]
    room = sum(i.max - i.current for i in infos)
    new_nodes = min(new_nodes, room)
    infos.sort(key=lambda i: i.current)  # stable
    sizes = [i.current for i in infos]
    start = current = 0
    while new_nodes > 0:
        if sizes[current] < infos[current].max:
            sizes[current] += 1
            new_nodes -= 1
        else:  # full: swap it out to the front of the array and move the start past it
            infos[current], infos[start] = infos[start], infos[current]
            sizes[current], sizes[start] = sizes[start], sizes[current]
            start += 1
        if current < len(infos) - 1 and sizes[current] > sizes[current + 1]:
            current += 1
        else:
            current = start
    return [
        ScaleUpInfo(i.group, i.current, size, i.max)
        for i, size in zip(infos, sizes, strict=True)
        if size != i.current
    ]
