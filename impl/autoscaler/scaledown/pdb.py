"""The PodDisruptionBudgets scale-down may still spend (``core/scaledown/pdb/basic.go``,
``BasicRemainingPdbTracker``).

A budget matches a pod in its namespace whose labels its selector matches (nil selects nothing,
``{}`` everything, as ``LabelSelectorAsSelector``). Its budget is ``status.disruptionsAllowed``
(absent: 0). Draining a node checks each pod against the budgets as they are; once the node is
found removable each moved pod takes one disruption from every budget matching it (budgets may
go negative), so later nodes see less.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.api.convert import label_selector
from schedspec.impl.api.selectors import Selector, compile_label_selector

__all__ = ["RemainingPdbTracker"]


class RemainingPdbTracker:
    def __init__(self, pdbs: Iterable[Mapping[str, Any]] = ()) -> None:
        self._pdbs: list[tuple[str, Selector]] = []
        self.remaining: list[int] = []
        for obj in pdbs:
            meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
            selector = compile_label_selector(label_selector(spec.get("selector")))
            self._pdbs.append((meta.get("namespace") or "default", selector))
            self.remaining.append(int((obj.get("status") or {}).get("disruptionsAllowed") or 0))

    def matching(self, pod: Pod) -> list[int]:
        """Indices of the budgets matching ``pod``."""
        return [
            i
            for i, (ns, selector) in enumerate(self._pdbs)
            if ns == pod.namespace and selector.matches(pod.labels)
        ]

    def has_matching(self, pod: Pod) -> bool:
        return bool(self.matching(pod))

    def can_disrupt(self, pod: Pod) -> bool:
        """Every matching budget has at least one disruption left."""
        return all(self.remaining[i] >= 1 for i in self.matching(pod))

    def remove_pods(self, pods: Iterable[Pod]) -> None:
        for pod in pods:
            for i in self.matching(pod):
                self.remaining[i] -= 1
