"""The constants of ``queue.tla``: a small universe of pods, nodes and plugins.

``queue.tla`` is a state machine over pods' places in the scheduling queue; its CONSTANTS are the
universe bounded model checking runs in (:mod:`schedspec.spec.compile.z3.bmc`) and the
executable backend simulates. Plugins are taken in the order of :data:`PLUGINS`, each with the
cluster events its ``EventsToRegister`` lists in v1.34 with QueueingHints on (the events are
named by kube-scheduler's labels; ``AssignedPodDelete`` is also what a preemption's deleted
victims produce):

- NodeResourcesFit (``framework/plugins/noderesources/fit.go``): an assigned pod deleted, a node
  added or its allocatable changed;
- NodeAffinity (``framework/plugins/nodeaffinity/node_affinity.go``): a node added or its labels
  changed;
- TaintToleration (``framework/plugins/tainttoleration/taint_toleration.go``): a node added or
  its taints changed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence

from schedspec.spec.values import Fcn, Value

__all__ = ["DELAYS", "PLUGINS", "REGISTERED", "queue_constants"]

PLUGINS: Mapping[str, tuple[str, ...]] = {
    "NodeResourcesFit": ("AssignedPodDelete", "NodeAdd", "NodeAllocatableUpdate"),
    "NodeAffinity": ("NodeAdd", "NodeLabelUpdate"),
    "TaintToleration": ("NodeAdd", "NodeTaintUpdate"),
}

REGISTERED: Mapping[str, tuple[str, ...]] = {
    **PLUGINS,
    # the UpdateNodeTaint buildQueueingHintMap (pkg/scheduler/scheduler.go) adds, with an
    # always-Queue hint, for a plugin registering Node/Add but not UpdateNodeTaint
    # (kubernetes#109437); left out of PLUGINS, which bounds the model checker's universe
    "NodeResourcesFit": (*PLUGINS["NodeResourcesFit"], "NodeTaintUpdate"),
    "NodeAffinity": (*PLUGINS["NodeAffinity"], "NodeTaintUpdate"),
    # nodeunschedulable/node_unschedulable.go: Node Add | UpdateNodeTaint (an unschedulable
    # flip is a taint update); nodeports/node_ports.go: Pod Delete, Node Add (+ the above)
    "NodeUnschedulable": ("NodeAdd", "NodeTaintUpdate"),
    "NodePorts": ("AssignedPodDelete", "NodeAdd", "NodeTaintUpdate"),
    # interpodaffinity/plugin.go: Pod Add | UpdatePodLabel | Delete, Node Add | UpdateNodeLabel;
    # podtopologyspread/plugin.go: Pod Add | UpdatePodLabel | UpdatePodToleration | Delete,
    # Node Add | Delete | UpdateNodeLabel | UpdateNodeTaint
    "InterPodAffinity": (
        "AssignedPodAdd",
        "AssignedPodDelete",
        "NodeAdd",
        "NodeLabelUpdate",
        "NodeTaintUpdate",
    ),
    "PodTopologySpread": (
        "AssignedPodAdd",
        "AssignedPodDelete",
        "NodeAdd",
        "NodeDelete",
        "NodeLabelUpdate",
        "NodeTaintUpdate",
    ),
}
"""Every plugin whose QueueingHints ``spec/kube/hints.tla`` states, with the events it gets in
v1.34 (QueueingHints on), the catch-all UpdateNodeTaint included: the universe of trace
validation (``checker/queue_trace.py``). Pod updates are not listed (queue.tla has none)."""

DELAYS: tuple[int, ...] = (1, 2, 11, 301)
"""How far one Tick may advance the clock, in seconds: a second, past a first backoff, past the
10 s cap, past the 5-minute flush."""


def queue_constants(
    pods: int = 3,
    nodes: int = 2,
    plugins: int = 2,
    *,
    pop_from_backoff: bool = True,
    delays: Sequence[int] = DELAYS,
) -> dict[str, Value]:
    """The CONSTANTS of ``queue.tla`` for ``pods`` pods (p1, p2, …), ``nodes`` nodes and the
    first ``plugins`` plugins of :data:`PLUGINS`."""
    if not 1 <= plugins <= len(PLUGINS):
        raise ValueError(f"plugins={plugins}: between 1 and {len(PLUGINS)}")
    if pods < 1 or nodes < 1:
        raise ValueError(f"pods={pods}, nodes={nodes}: at least one of each")
    chosen = list(PLUGINS)[:plugins]
    pod_names = [f"p{i}" for i in range(1, pods + 1)]
    plugin_sets = _functions(chosen, (False, True))
    return {
        "Pods": frozenset(pod_names),
        "Plugins": frozenset(chosen),
        "Nodes": frozenset(f"n{i}" for i in range(1, nodes + 1)),
        "Events": frozenset(e for pl in chosen for e in PLUGINS[pl]),
        "Registered": Fcn({pl: frozenset(PLUGINS[pl]) for pl in chosen}),
        "PluginSets": frozenset(plugin_sets),
        "Verdicts": frozenset(_functions(pod_names, plugin_sets)),
        "Delays": frozenset(delays),
        "PopFromBackoffQ": pop_from_backoff,
    }


def _functions(domain: Sequence[str], values: Iterable[Value]) -> list[Fcn]:
    """Every function from ``domain`` to ``values``."""
    pool = list(values)
    combos = itertools.product(pool, repeat=len(domain))
    return [Fcn(zip(domain, combo, strict=True)) for combo in combos]
