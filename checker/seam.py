"""The seam: each spec definition paired with the operational scheduler's code of the same meaning.

One row per comparison the checker makes. ``spec`` names a definition of
``spec/kube/scheduler.tla``; ``plugin`` is the kube-scheduler plugin (impl and the real
scheduler use the same names); ``impl`` is the impl function the comparison calls, named so a
reader can open it. ``TEXTBOOK_SEAM`` pairs the seed spec's definitions with the same impl
sides. ``point`` says how the two sides are compared:

- ``filter``: the plugin's verdict for (pod, node) on the snapshot, no nominated pods — the pure
  ``fits`` function of ``impl/plugins/<plugin>.py`` (``fits_on``, made once per pod, for the two
  whose PreFilter state counts over every node) against the spec's ``…OK(p, n)``;
- ``status``: the framework's code for (pod, node) after PreFilter and the two-pass filter with
  nominated pods (``Framework.run_filter_plugins_with_nominated_pods``) against ``NodeStatus``;
- ``feasible``: the same run's success against ``Feasible``;
- ``score``: one Score plugin's normalised score on every feasible node
  (``Framework.run_score_plugin``) against the spec's ``…Score(p, n)``;
- ``scoring``: whether PreScore or Score failed the cycle on the feasible nodes
  (``Framework.run_pre_score_plugins``, ``run_score_plugins``) against ``ScoreError``;
- ``total``/``best``: the weighted sum (``Framework.run_score_plugins``) against ``Viability``, and
  its argmax set against ``Best``;
- ``preemption``: DefaultPreemption's policy functions on the same cycle's statuses, nothing
  evicted (:mod:`schedspec.checker.preemption`): eligibility, each Unschedulable node's victims
  and PDB violations, and the nodes preemption may nominate;
- ``decision``: judged on real scheduling runs by :mod:`schedspec.checker.properties`, not per node.

Plugins without a partner and spec definitions without a partner are listed with the reason, so a
test can fail when a plugin or definition is added without a row here.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["SEAM", "TEXTBOOK_SEAM", "UNPAIRED_DEFINITIONS", "UNPAIRED_PLUGINS", "Pair", "pair"]


@dataclass(frozen=True)
class Pair:
    spec: str
    plugin: str
    point: str
    impl: str


_P = "schedspec.impl.plugins."
_FW = "schedspec.impl.framework.runtime.Framework."
_DP = _P + "default_preemption.DefaultPreemption."
_EV = "schedspec.impl.preemption.evaluator.Evaluator."

SEAM: tuple[Pair, ...] = (
    # ---- one Filter plugin at a time, on the snapshot
    Pair("NodeUnschedulableOK", "NodeUnschedulable", "filter", _P + "node_unschedulable.fits"),
    Pair("NodeNameOK", "NodeName", "filter", _P + "node_name.fits"),
    Pair("TaintsOK", "TaintToleration", "filter", _P + "taint_toleration.fits"),
    Pair("NodeAffinityOK", "NodeAffinity", "filter", _P + "node_affinity.fits"),
    Pair("PortsOK", "NodePorts", "filter", _P + "node_ports.fits"),
    Pair("FitOK", "NodeResourcesFit", "filter", _P + "node_resources_fit.fits"),
    Pair("SpreadOK", "PodTopologySpread", "filter", _P + "pod_topology_spread.fits_on"),
    Pair("InterPodAffinityOK", "InterPodAffinity", "filter", _P + "inter_pod_affinity.fits_on"),
    # ---- the whole Filter phase, nominated pods included
    Pair("NodeStatus", "*", "status", _FW + "run_filter_plugins_with_nominated_pods"),
    Pair("Feasible", "*", "feasible", _FW + "run_filter_plugins_with_nominated_pods"),
    # ---- Score plugins, normalised over the feasible nodes
    Pair("TaintTolerationScore", "TaintToleration", "score", _FW + "run_score_plugin"),
    Pair("NodeAffinityScore", "NodeAffinity", "score", _FW + "run_score_plugin"),
    Pair("NodeResourcesFitScore", "NodeResourcesFit", "score", _FW + "run_score_plugin"),
    Pair("PodTopologySpreadScore", "PodTopologySpread", "score", _FW + "run_score_plugin"),
    Pair("InterPodAffinityScore", "InterPodAffinity", "score", _FW + "run_score_plugin"),
    Pair(
        "BalancedAllocationScore",
        "NodeResourcesBalancedAllocation",
        "score",
        _FW + "run_score_plugin",
    ),
    Pair("ImageLocalityScore", "ImageLocality", "score", _FW + "run_score_plugin"),
    Pair("ScoreError", "*", "scoring", _FW + "run_score_plugins"),
    Pair("Viability", "*", "total", _FW + "run_score_plugins"),
    Pair("Best", "*", "best", _FW + "run_score_plugins"),
    # ---- DefaultPreemption's dry run, per pod and node (checker/preemption.py)
    Pair(
        "EligibleToPreempt",
        "DefaultPreemption",
        "preemption",
        _DP + "pod_eligible_to_preempt_others",
    ),
    Pair("PreemptionCandidate", "DefaultPreemption", "preemption", _DP + "select_victims_on_node"),
    Pair("Victims", "DefaultPreemption", "preemption", _DP + "select_victims_on_node"),
    Pair("NumPDBViolations", "DefaultPreemption", "preemption", _DP + "select_victims_on_node"),
    Pair("PreemptionNodes", "DefaultPreemption", "preemption", _EV + "select_candidate"),
    # ---- preemption, judged on scheduling runs (checker/properties.py)
    Pair("ValidVictims", "DefaultPreemption", "decision", _P + "default_preemption"),
    Pair("MinimalVictims", "DefaultPreemption", "decision", _P + "default_preemption"),
)

TEXTBOOK_SEAM: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("FilterLifecycle",), ("NodeUnschedulableOK",)),
    (("Resources",), ("FitOK",)),
    (("FilterTaints",), ("TaintsOK",)),
    (("FilterNodeSelector", "FilterAffinity"), ("NodeAffinityOK", "InterPodAffinityOK")),
    (("Filter",), ("Feasible",)),
)
"""The seed spec (``textbook.tla``) against impl: textbook definitions, conjoined, paired with the
seam rows whose impl sides are conjoined the same way. The textbook splits the rules differently
(its ``FilterAffinity`` holds required node affinity *and* inter-pod affinity), so a pair is a
conjunction on each side; ``Filter`` is paired with the framework's feasibility."""

UNPAIRED_PLUGINS = MappingProxyType(
    {
        "PrioritySort": "QueueSort orders the queue; the spec judges one pod at a time",
        "SchedulingGates": "PreEnqueue keeps gated pods out of the queue; the spec has no queue",
        "DefaultBinder": "binding is an API call, not a rule",
        "NodeNumber": "the example out-of-tree plugin (docs/writing-a-plugin.md); not in the "
        "default profile",
        "Coscheduling": "gang scheduling at Permit (scheduler-plugins); not in the default profile",
    }
)
"""Registered impl plugins with no spec partner, and why."""

UNPAIRED_DEFINITIONS = MappingProxyType(
    {
        "NodeSelectorOK": "one of NodeAffinity's conditions; the plugin answers once",
        "RequiredNodeAffinityOK": "one of NodeAffinity's conditions",
        "PodNodeAffinityOK": "the pod's own node affinity, one of NodeAffinity's conditions",
        "AddedAffinityOK": "the profile's addedAffinity, one of NodeAffinity's conditions",
        "NodeAffinityPreFilterOK": "NodeAffinity's PreFilter node names; inside Feasible and "
        "NodeStatus, which are paired",
        "PreFilterOK": "the PreFilter verdicts inside FiltersAt; Feasible is paired",
        "PluginScore": "a Score plugin's score by name; each plugin's score is paired",
        "FitResourceScore": "one resource of NodeResourcesFitScore, which is paired",
        "PortsOKIn": "helper; PortsOK is paired",
        "FitOKIn": "helper; FitOK is paired",
        "SpreadOKIn": "helper; SpreadOK is paired",
        "InterPodAffinityOKIn": "helper; InterPodAffinityOK is paired",
        "PodAffinityOK": "one of the three InterPodAffinity conditions; the plugin answers once",
        "PodAntiAffinityOK": "one of the three InterPodAffinity conditions",
        "ExistingAntiAffinityOK": "one of the three InterPodAffinity conditions",
        "FiltersIn": "one pass of the two-pass filter; Feasible is paired",
        "FeasibleIn": "helper; Feasible is paired",
        "FilterStatusIn": "one pass of NodeStatus; NodeStatus is paired",
        "NodeStatusIn": "helper; NodeStatus is paired",
        "SelectVictims": "inside Victims",
        "HighestVictimPriority": "a PreemptionNodes tie-break",
        "VictimPrioritySum": "a PreemptionNodes tie-break",
        "EarliestStartOfHighest": "a PreemptionNodes tie-break",
    }
)
"""Definitions of scheduler.tla that look like rules over (pod, node) but are parts of paired
ones; every other (p, n) definition must be on the seam (``tests/checker/test_seam.py``)."""


def pair(spec: str) -> Pair:
    """The seam row of definition ``spec``."""
    for row in SEAM:
        if row.spec == spec:
            return row
    raise KeyError(spec)
