"""Hypothesis strategies of Kubernetes clusters, biased towards the scheduler's edges.

Public, so plugin authors can test their own code on the same clusters the checker uses::

    from hypothesis import given
    from schedspec.checker.strategies import clusters

    @given(clusters(max_nodes=4, max_pods=6))
    def test_my_filter_never_crashes(cluster): ...

Six strategies, each drawing plain manifest dicts in the shape ``schedspec.cluster.from_objects``
(and ``kubectl apply``) accepts:

- ``nodes(name=...)``: one Node; ``pods(name=..., node_names=..., ...)``: one Pod;
- ``cluster_objects(min_nodes=..., max_nodes=..., min_pods=..., max_pods=..., ...)``: a list of
  PriorityClasses, Namespaces, Nodes, Pods and PodDisruptionBudgets that always loads;
- ``clusters(...)``: the same, loaded (``cluster_objects(...).map(from_objects)``);
- ``preemption_cluster_objects(...)``: small full nodes, more important pending pods and PDBs
  over the bound ones — DefaultPreemption's inputs, which the others draw rarely;
- ``scoring_cluster_objects(...)``: roomy nodes most pending pods fit, and what the Score
  plugins rank them by (soft spread, preferred affinity, images, PreferNoSchedule taints).

Size arguments are validated when the strategy is built, as Hypothesis's own are: a negative,
non-integer or inverted bound raises ``hypothesis.errors.InvalidArgument``.

**The bias.** Uniform random manifests almost never land on a rule's edge, so every choice comes
from a small shared pool (the constants of ``pools``, re-exported here): few label keys and values,
so selectors, node selectors and affinity terms often match and often just miss; the real topology
keys (``kubernetes.io/hostname`` is the node's name; zones share regions); tolerations built from
the taints' own keys and values with another value, effect or operator; host ports from two
numbers, two protocols and host IPs ``""``/``0.0.0.0``/a specific one; priorities from three values
and PriorityClasses that tie. In ``cluster_objects`` a pending pod's request is often exactly a
node's free capacity (allocatable minus the requests of its bound, non-terminal pods), one unit
above or one unit below it; a node's ``pods`` allocatable is often its pod count or one more. Bound
pods are bound to existing nodes; some are terminal (Succeeded/Failed) or terminating (with a
``deletionTimestamp`` and sometimes the preemption's ``DisruptionTarget`` condition); some pending
pods carry ``status.nominatedNodeName``. Every field ``spec/kube/scheduler.tla`` reads is
exercised, including start times that tie, init containers and sidecars, pod-level resources and
overhead, scheduling gates, node images at ImageLocality's size thresholds, PDB budgets and
``disruptedPods``, and (``in_place_resize=True``) container statuses of an in-place resize.

Every choice shrinks towards "feature absent", so Hypothesis's shrinking already removes most of
what does not matter; ``schedspec.checker.minimise`` does the rest.

Field semantics mirror k8s.io/api core/v1 types.go and the API server's validation
(pkg/apis/core/validation/validation.go: host ports unique per pod by protocol/hostIP/port,
``matchLabelKeys`` only beside a ``labelSelector`` and never on one of its keys).
"""

from __future__ import annotations

from schedspec.checker.strategies.front import cluster_objects, clusters, nodes, pods
from schedspec.checker.strategies.pools import (
    CPU_ALLOCATABLE,
    CPU_REQUESTS,
    EXTENDED_RESOURCES,
    HOST_IPS,
    HOST_PORTS,
    HOSTNAME,
    IMAGE_SIZES,
    IMAGES,
    LABEL_KEYS,
    LABEL_VALUES,
    MEMORY_ALLOCATABLE,
    MEMORY_REQUESTS,
    NAMESPACE_LABELS,
    NAMESPACES,
    NUMERIC_LABEL_KEY,
    NUMERIC_LABEL_VALUES,
    PODS_ALLOCATABLE,
    PRIORITIES,
    PRIORITY_CLASSES,
    REGION,
    START_TIMES,
    TAINT_EFFECTS,
    TAINT_KEYS,
    TAINT_VALUES,
    TOPOLOGY_KEYS,
    ZONE,
    ZONES,
)
from schedspec.checker.strategies.preemption import preemption_cluster_objects
from schedspec.checker.strategies.primitives import _BYTES as _BYTES
from schedspec.checker.strategies.primitives import _Choices as _Choices
from schedspec.checker.strategies.quantities import request_vector, spell_quantity
from schedspec.checker.strategies.scoring import scoring_cluster_objects

__all__ = [
    "CPU_ALLOCATABLE",
    "CPU_REQUESTS",
    "EXTENDED_RESOURCES",
    "HOSTNAME",
    "HOST_IPS",
    "HOST_PORTS",
    "IMAGES",
    "IMAGE_SIZES",
    "LABEL_KEYS",
    "LABEL_VALUES",
    "MEMORY_ALLOCATABLE",
    "MEMORY_REQUESTS",
    "NAMESPACES",
    "NAMESPACE_LABELS",
    "NUMERIC_LABEL_KEY",
    "NUMERIC_LABEL_VALUES",
    "PODS_ALLOCATABLE",
    "PRIORITIES",
    "PRIORITY_CLASSES",
    "REGION",
    "START_TIMES",
    "TAINT_EFFECTS",
    "TAINT_KEYS",
    "TAINT_VALUES",
    "TOPOLOGY_KEYS",
    "ZONE",
    "ZONES",
    "cluster_objects",
    "clusters",
    "nodes",
    "pods",
    "preemption_cluster_objects",
    "request_vector",
    "scoring_cluster_objects",
    "spell_quantity",
]
