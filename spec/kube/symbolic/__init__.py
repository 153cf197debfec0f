"""A bounded symbolic cluster: Kubernetes objects whose fields are Z3 variables.

:class:`Bounds` fixes the shape — how many nodes and pods, and how many slots each list has
(taints, tolerations, containers, affinity terms, …); every slot has a presence bit, so a model
may leave it empty. Strings range over finite universes: the label keys and values of
:data:`LABEL_KEYS`/:data:`LABEL_VALUES` (the first ``keys``/``values`` of them), the namespaces,
the enumerations of the API (taint effects, operators, phases), and every string literal of the
specs being compiled. Integers are unbounded Z3 integers constrained to what the API admits.

The cluster is shown to a spec the way the concrete views show a real cluster:
:meth:`SymCluster.scheduler_constants` has the shape of :mod:`.scheduler_view`,
:meth:`SymCluster.textbook_constants` that of :mod:`.textbook_view`. :meth:`SymCluster.objects`
turns a Z3 model back into Kubernetes manifests that :func:`schedspec.cluster.load` accepts, and
:attr:`SymCluster.constraints` holds what makes them valid (the API server's validation rules
that matter here: a requirement's value count per operator, an empty toleration key only with
``Exists``, unique taints per key and effect, at least one node selector term, …).

What stays concrete (the same in every witness): names and uids, container names and images,
start times, preferred (scoring) terms, overhead, pod-level resources, scheduling gates, PDBs,
``matchLabelKeys``/``mismatchLabelKeys``, ``namespaceSelector`` and spread policies (their
defaults). A field left concrete is a field Z3 cannot vary; the bounds say which are free.
"""

from __future__ import annotations

from schedspec.spec.kube.symbolic.bounds import BOUND_HELP, LABEL_KEYS, LABEL_VALUES, Bounds
from schedspec.spec.kube.symbolic.objects import SymCluster, SymNode, SymPod

__all__ = ["BOUND_HELP", "LABEL_KEYS", "LABEL_VALUES", "Bounds", "SymCluster", "SymNode", "SymPod"]
