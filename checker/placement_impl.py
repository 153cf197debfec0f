"""The second witness of ``can-schedule`` and ``relate``: impl's framework on the answer.

The spec's answer (a node that accepts the pod, or one that breaks a relation) is replayed on
impl's operational scheduler: the cluster, with the node, is loaded and synced as
``checker/differential.py`` loads it (no scheduling cycle), the pod is pending in it, and the
framework runs PreFilter and then Filter with nominated pods on that node
(``RunFilterPluginsWithNominatedPods``), as a scheduling cycle would. Its verdict is printed
beside the spec's; a difference is reported, never smoothed over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from schedspec.checker.differential import ImplState
from schedspec.cluster import Cluster, from_objects, object_key
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.status import is_success, message_of

__all__ = ["ImplVerdict", "impl_feasible", "impl_verdicts", "with_node"]


@dataclass(frozen=True)
class ImplVerdict:
    feasible: bool
    message: str

    def as_json(self) -> dict[str, Any]:
        return {"feasible": self.feasible, "message": self.message}


def with_node(cluster: Cluster, node: Mapping[str, Any]) -> Cluster:
    """``cluster`` with ``node`` (a manifest; loaded, so defaulted and validated) added."""
    loaded = from_objects([node], source="the added node").nodes[0]
    return replace(cluster, nodes=(*cluster.nodes, loaded))


def impl_feasible(cluster: Cluster, pod: Mapping[str, Any], node: str) -> ImplVerdict:
    """Whether impl's framework lets ``pod``, pending in ``cluster``, on ``node``."""
    return impl_verdicts(cluster, pod, [node])[node]


def impl_verdicts(
    cluster: Cluster, pod: Mapping[str, Any], nodes: Sequence[str]
) -> dict[str, ImplVerdict]:
    """:func:`impl_feasible` on each of ``nodes``: one sync, one PreFilter, Filter per node."""
    key = object_key(pod)
    others = tuple(q for q in cluster.pods if object_key(q) != key)  # judged without itself
    state = ImplState(replace(cluster, pods=(*others, dict(pod))))
    p = state.pending.get(key)
    if p is None:
        return dict.fromkeys(nodes, ImplVerdict(False, "impl did not queue the pod"))
    fwk = state.framework(p)
    if fwk is None:
        return dict.fromkeys(nodes, ImplVerdict(False, f"no profile {p.scheduler_name!r}"))
    cycle = CycleState()
    result, status, _ = fwk.run_pre_filter_plugins(cycle, p, state.nodes)
    if status is not None:
        return dict.fromkeys(nodes, ImplVerdict(False, f"PreFilter: {message_of(status)}"))
    out = {}
    for node in nodes:
        if result is not None and result.node_names is not None and node not in result.node_names:
            out[node] = ImplVerdict(False, "PreFilter left the node out")
            continue
        st = fwk.run_filter_plugins_with_nominated_pods(cycle, p, state.by_name[node])
        out[node] = ImplVerdict(is_success(st), "" if st is None else str(st))
    return out
