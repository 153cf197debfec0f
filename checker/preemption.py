"""DefaultPreemption's dry run, per pod and node, as the checker compares it with the spec.

The spec states preemption as predicates (``scheduler.tla``: ``EligibleToPreempt``,
``PreemptionCandidate``, ``Victims``, ``NumPDBViolations``, ``PreemptionNodes``). This module asks
the operational scheduler the same questions through the plugin's own policy functions — the
functions ``Evaluator.dry_run_preemption`` calls — without evicting anything:

- eligibility: ``DefaultPreemption.pod_eligible_to_preempt_others`` with the nominated node's
  Filter status from the cycle;
- per node whose Filter status was ``Unschedulable`` (upstream's potential nodes):
  ``select_victims_on_node`` on a copy of the node and of the cycle state, a candidate when it
  returns victims and no status;
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
from schedspec.impl.framework.types import NodeInfo
from schedspec.impl.plugins.default_preemption import DefaultPreemption
from schedspec.impl.preemption.evaluator import Candidate
from schedspec.impl.preemption.pdb import pdb_from_dict

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
    eligible, _ = plugin.pod_eligible_to_preempt_others(pod, statuses.get(pod.nominated_node_name))
    out = ImplPreemption(eligible)
    if not eligible:
        return out
    pdbs = [pdb_from_dict(o) for o in fwk.handle.client().list("PodDisruptionBudget")]
    found: list[Candidate] = []
    for ni in nodes:
        status = statuses.get(ni.name)
        if status is None or status.code_name != "Unschedulable":
            continue
        victims, violations, refused = plugin.select_victims_on_node(
            state.clone(), pod, ni.clone(), pdbs
        )
        if refused is None and victims:
            found.append(Candidate(ni.name, tuple(victims), violations))
            out.candidates[ni.name] = (frozenset(v.key for v in victims), violations)
    picks = set()
    for start in range(len(found)):
        best = plugin.evaluator.select_candidate(found[start:] + found[:start])
        if best is not None:
            picks.add(best.node)
    out.nodes = frozenset(picks)
    return out
