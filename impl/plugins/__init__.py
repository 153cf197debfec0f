"""The in-tree plugins, one module each, and their registry.

Each module holds ``NAME``, its reasons, a pure function (``fits``/``score``) the checker pairs
with the spec definition of the same meaning, and a thin plugin class. ``in_tree_registry()``
maps every name to its factory; ``NodeNumber`` (the seed's example) and ``Coscheduling``
(gang scheduling, out-of-tree upstream) are registered but not in the default profile.
"""

from __future__ import annotations

from schedspec.impl.framework.registry import Registry
from schedspec.impl.plugins import (
    balanced_allocation,
    coscheduling,
    default_binder,
    default_preemption,
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_number,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    priority_sort,
    scheduling_gates,
    taint_toleration,
)

__all__ = ["in_tree_registry"]


def in_tree_registry() -> Registry:
    """Plugin name → factory for every plugin shipped with schedspec."""
    return {
        scheduling_gates.NAME: scheduling_gates.SchedulingGates.new,
        priority_sort.NAME: priority_sort.PrioritySort.new,
        node_unschedulable.NAME: node_unschedulable.NodeUnschedulable.new,
        node_name.NAME: node_name.NodeName.new,
        taint_toleration.NAME: taint_toleration.TaintToleration.new,
        node_affinity.NAME: node_affinity.NodeAffinity.new,
        node_ports.NAME: node_ports.NodePorts.new,
        node_resources_fit.NAME: node_resources_fit.NodeResourcesFit.new,
        pod_topology_spread.NAME: pod_topology_spread.PodTopologySpread.new,
        inter_pod_affinity.NAME: inter_pod_affinity.InterPodAffinity.new,
        default_preemption.NAME: default_preemption.DefaultPreemption.new,
        balanced_allocation.NAME: balanced_allocation.BalancedAllocation.new,
        image_locality.NAME: image_locality.ImageLocality.new,
        default_binder.NAME: default_binder.DefaultBinder.new,
        node_number.NAME: node_number.NodeNumber.new,
        coscheduling.NAME: coscheduling.Coscheduling.new,
    }
