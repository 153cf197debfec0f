"""Preemption: the generic evaluator (``evaluator``) and PodDisruptionBudgets (``pdb``).

The policy lives in the DefaultPreemption plugin (``schedspec.impl.plugins.default_preemption``);
docs/preemption.md explains the whole mechanism.
"""

from schedspec.impl.preemption.evaluator import (
    Candidate,
    Evaluator,
    PreemptionPolicy,
    PreemptionRecord,
    pick_one_node_for_preemption,
)
from schedspec.impl.preemption.pdb import (
    PodDisruptionBudget,
    filter_pods_with_pdb_violation,
    pdb_from_dict,
)

__all__ = [
    "Candidate",
    "Evaluator",
    "PodDisruptionBudget",
    "PreemptionPolicy",
    "PreemptionRecord",
    "filter_pods_with_pdb_violation",
    "pdb_from_dict",
    "pick_one_node_for_preemption",
]
