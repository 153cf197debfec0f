"""Typed Kubernetes API objects for the operational scheduler.

``types`` holds the frozen dataclasses, ``convert`` builds them from ``schedspec.cluster``'s
dicts, ``resources`` computes effective pod requests, ``selectors`` compiles label and node
selectors.
"""

from schedspec.impl.api.convert import (
    namespace_from_dict,
    node_from_dict,
    pod_from_dict,
)
from schedspec.impl.api.types import (
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PreferredSchedulingTerm,
    ResourceList,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)

__all__ = [
    "Affinity",
    "Container",
    "ContainerImage",
    "ContainerPort",
    "LabelSelector",
    "LabelSelectorRequirement",
    "Namespace",
    "Node",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PreferredSchedulingTerm",
    "ResourceList",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "WeightedPodAffinityTerm",
    "namespace_from_dict",
    "node_from_dict",
    "pod_from_dict",
]
