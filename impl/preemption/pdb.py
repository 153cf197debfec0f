"""PodDisruptionBudgets as preemption reads them, and the PDB split of potential victims.

Mirrors ``filterPodsWithPDBViolation`` in
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` (v1.34). Only
``status.disruptionsAllowed``, ``status.disruptedPods`` and ``spec.selector`` matter to the
scheduler; ``minAvailable``/``maxUnavailable`` are the disruption controller's business.

A budget selects a pod when it is in the pod's namespace, its selector is neither nil nor empty
(both select nothing here, unlike everywhere else) and matches the pod's labels; a pod without
labels is never protected. A selector the API server would reject (``schedspec.cluster.load``
warns about it) selects nothing, as upstream skips a budget whose selector fails to parse.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedspec.impl.api.convert import label_selector
from schedspec.impl.api.selectors import Selector, compile_label_selector
from schedspec.impl.framework.types import PodInfo

__all__ = ["PodDisruptionBudget", "filter_pods_with_pdb_violation", "pdb_from_dict"]


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: Selector
    disruptions_allowed: int = 0
    disrupted_pods: frozenset[str] = field(default_factory=frozenset)  # pod names

    def selects(self, namespace: str, labels: Mapping[str, str]) -> bool:
        if namespace != self.namespace or not labels:
            return False
        return not self.selector.empty and self.selector.matches(labels)


def pdb_from_dict(obj: Mapping[str, Any]) -> PodDisruptionBudget:
    meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
    return PodDisruptionBudget(
        namespace=meta.get("namespace") or "default",
        name=meta.get("name", ""),
        selector=compile_label_selector(label_selector(spec.get("selector"))),
        disruptions_allowed=int(status.get("disruptionsAllowed") or 0),
        disrupted_pods=frozenset(status.get("disruptedPods") or {}),
    )


def filter_pods_with_pdb_violation(
    pods: Iterable[PodInfo], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """(violating, non-violating), order kept: walking ``pods`` in order, each pod uses up one
    disruption of every budget selecting it (unless already listed in ``disruptedPods``); the
    pod violates if some budget then has fewer than zero left."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    fine: list[PodInfo] = []
    for info in pods:
        pod = info.pod
        violated = False
        for i, pdb in enumerate(pdbs):
            if not pdb.selects(pod.namespace, pod.labels) or pod.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            violated |= allowed[i] < 0
        (violating if violated else fine).append(info)
    return violating, fine
