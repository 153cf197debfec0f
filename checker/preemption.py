"""DefaultPreemption's dry run, per pod and node, as the checker compares it with the spec.

The spec states preemption as predicates (``scheduler.tla``: ``EligibleToPreempt``,
``PreemptionCandidate``, ``Victims``, ``NumPDBViolations``, ``PreemptionNodes``). This module asks
the operational scheduler the same questions through the plugin's own policy functions — the
functions ``Evaluator.dry_run_preemption`` calls — without evicting anything:

- eligibility: ``DefaultPreemption.pod_eligible_to_preempt_others`` with the nominated node's
  Filter status from the cycle;
- the candidates: ``Evaluator.find_candidates`` on the cycle's statuses, as ``preempt`` calls
  it — the nodes whose Filter status was ``Unschedulable``, ``select_victims_on_node`` on a copy
  of each and of the cycle state (with at most a few hundred nodes every one is tried);
- where preemption would nominate: ``Evaluator.select_candidate`` picks the first of the best
  candidates; kube-scheduler visits nodes from a random offset, so every candidate that some
  offset lets win is a possible answer. The candidates are rotated through every start and each
  pick collected — the set ``PreemptionNodes(p)`` names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from schedspec.impl.api.types import Pod
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.runtime import Framework
from schedspec.impl.framework.status import Status
from schedspec.impl.framework.types import Diagnosis, NodeInfo
from schedspec.impl.plugins.default_preemption import DefaultPreemption

__all__ = ["ImplPreemption", "dry_run"]


@dataclass
class ImplPreemption:
    eligible: bool
    # node → (victim keys, PDB violations) for every candidate node
    candidates: dict[str, tuple[frozenset[str], int]] = field(default_factory=dict)
    nodes: frozenset[str] = frozenset()  # where preemption may nominate the pod


def _plugin(fwk: Framework) -> DefaultPreemption | None:
    for pl in fwk.post_filter:
        if isinstance(pl, DefaultPreemption):
            return pl
    return None


def dry_run(
    fwk: Framework,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    statuses: Mapping[str, Status | None],
) -> ImplPreemption | None:
    """What DefaultPreemption would decide for ``pod`` after a cycle that left ``statuses``
    (node → Filter status, None for success); None when the profile has no DefaultPreemption."""
    plugin = _plugin(fwk)
    if plugin is None:
        return None
    # the nominated node's own status, Success included (preempt() would see UnschedulableAnd-
    # Unresolvable for a node missing from a diagnosis, but then no node was feasible)
    eligible, _ = plugin.pod_eligible_to_preempt_others(pod, statuses.get(pod.nominated_node_name))
    out = ImplPreemption(eligible)
    if not eligible:
        return out
    diagnosis = Diagnosis({name: st for name, st in statuses.items() if st is not None})
    found, _, _ = plugin.evaluator.find_candidates(state, pod, diagnosis, nodes)
    out.candidates = {
        c.node: (frozenset(v.key for v in c.victims), c.num_pdb_violations) for c in found
    }
    picks = set()
    for start in range(len(found)):
        best = plugin.evaluator.select_candidate(found[start:] + found[:start])
        if best is not None:
            picks.add(best.node)
    out.nodes = frozenset(picks)
    return out
