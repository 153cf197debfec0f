"""An expansion option and what every expander is given (``expander/expander.go``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from schedspec.autoscaling import NodeGroup

__all__ = ["ExpanderFilter", "ExpansionContext", "Option"]


@dataclass(frozen=True)
class Option:
    """Scale ``group`` by ``node_count`` nodes for ``pods``; ``requests`` are each pod's
    regular containers' requests (cpu in millicores), what the expanders add up."""

    group: NodeGroup
    node_count: int
    pods: tuple[str, ...]
    requests: tuple[Mapping[str, int], ...]


@dataclass(frozen=True)
class ExpansionContext:
    """The priority expander's ConfigMap (priority ↦ regexes; None when absent) and the
    number of nodes in the cluster (the price expander's preferred node)."""

    priorities: Mapping[int, tuple[str, ...]] | None = None
    cluster_nodes: int = 0


class ExpanderFilter(Protocol):
    """Keep the best of ``options`` (``expander.Filter.BestOptions``)."""

    def __call__(self, options: list[Option], ctx: ExpansionContext) -> list[Option]: ...
