"""PrioritySort: the default QueueSort plugin.

Mirrors ``pkg/scheduler/framework/plugins/queuesort/priority_sort.go``: higher
``spec.priority`` first, then the earlier queue timestamp.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schedspec.impl.framework.args import check_fields
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.types import QueuedPodInfo

__all__ = ["NAME", "PrioritySort", "less"]

NAME = "PrioritySort"


def less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    """``a`` pops before ``b``."""
    pa, pb = a.pod.priority, b.pod.priority
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


class PrioritySort:
    def name(self) -> str:
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return less(a, b)

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> PrioritySort:
        check_fields(args, "PrioritySortArgs", ())
        return PrioritySort()
