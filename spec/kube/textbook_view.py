"""The textbook view: a cluster shown to ``textbook.tla`` in the seed's own shape.

Seed 001 (the Tornow "textbook" predicates) reads Kubernetes objects through field names of its
own (``Pod.Spec.NodeName``, ``Node.Status.Allocatable["mem"]``, ``Toleration.key``, ...). This
module maps validated Kubernetes objects (:mod:`schedspec.cluster`) to TLA values
(:mod:`schedspec.spec.values`) spelled exactly as the seed spells them, inconsistencies included:
``key``/``value`` lowercase in tolerations and taints, ``Value`` in node-selector requirements but
``Values`` in label-selector requirements, ``MatchExpression`` singular in label selectors,
``AntiPodAffinity``, ``"mem"``. Nothing is "fixed" here: where the seed is wrong, the view lets it
be wrong, so the spec's verdict on a real cluster is the seed's verdict.

Field by field (``[...]`` a record, ``{...}`` a set, ``<<...>>`` a sequence; a "function" maps
arbitrary label or resource names, it is not a record)::

  textbook field                   ← Kubernetes field                conversion
  -------------------------------- --------------------------------- ----------------------------
  Pod.Kind                         —                                 "Pod"
  Pod.Name                         metadata.name
  Pod.Namespace                    metadata.namespace                ("default" when absent)
  Pod.Labels                       metadata.labels                   function; empty when absent
  Pod.Spec.NodeName                spec.nodeName                     "" when absent
  Pod.Spec.NodeSelector            spec.nodeSelector                 function; empty when absent
  Pod.Spec.Tolerations             spec.tolerations                  set of TOLERATION
    TOLERATION.key                   .key                            "" when absent
    TOLERATION.Operator              .operator                       "" when absent (not "Equal")
    TOLERATION.value                 .value                          "" when absent
    TOLERATION.Effect                .effect                         "" when absent
  Pod.Spec.Container               spec.containers                   <<CONTAINER>>, in order
  Pod.Spec.InitContainer           spec.initContainers               <<CONTAINER>>, in order
    CONTAINER.Name                   .name
    CONTAINER.Resources.Required     .resources.requests             function, see RESOURCES
  Pod.Spec.Affinity                spec.affinity                     always there; {} when absent
    .NodeAffinity.Required           .nodeAffinity.required…         [NodeSelectorTerms ↦ {TERM}]
    .NodeAffinity.Preferred          .nodeAffinity.preferred…        [NodeSelectorTerms ↦ {WTERM}]
    .PodAffinity.Required            .podAffinity.required…          {PATERM}
    .PodAffinity.Preferred           .podAffinity.preferred…         {WPATERM}
    .AntiPodAffinity.Required        .podAntiAffinity.required…      {PATERM}
    .AntiPodAffinity.Preferred       .podAntiAffinity.preferred…     {WPATERM}
  TERM.MatchExpressions            nodeSelectorTerm.matchExpressions {NSR}
  TERM.MatchFields                 nodeSelectorTerm.matchFields      {NSR}
  WTERM                            preferredSchedulingTerm           TERM of .preference + Weight
  NSR.Key, NSR.Operator            .key, .operator
  NSR.Value (singular)             .values                           set of strings
  PATERM.TopologyKey               podAffinityTerm.topologyKey
  PATERM.Namespaces                podAffinityTerm.namespaces        set as written (no default)
  PATERM.LabelSelector             podAffinityTerm.labelSelector     empty selector when absent
    .MatchLabels                     .matchLabels                    function; empty when absent
    .MatchExpression (singular)      .matchExpressions               {LSR}
  WPATERM                          weightedPodAffinityTerm           PATERM of .podAffinityTerm
                                                                     + Weight
  LSR.Key, LSR.Operator            .key, .operator
  LSR.Values (plural)              .values                           set of strings
  Pod.Status.Phase                 status.phase                      ("Pending" when absent)

  Node.Kind                        —                                 "Node"
  Node.Name                        metadata.name
  Node.Labels                      metadata.labels                   function; empty when absent
  Node.Spec.Unschedulable          spec.unschedulable                FALSE when absent
  Node.Spec.Taints                 spec.taints                       set of TAINT
    TAINT.key, TAINT.value           .key, .value                    value "" when absent
    TAINT.Effect                     .effect
  Node.Status.Phase                status.phase                      "" when absent (always)
  Node.Status.Allocatable          status.allocatable                function, see RESOURCES

  RESOURCES  "cpu" ← cpu in millicores, ⌈q·1000⌉;  "mem" ← memory in bytes, ⌈q⌉;  every other
             resource (pods, ephemeral-storage, nvidia.com/gpu, ...) under its own name, ⌈q⌉.
             Requests absent → the empty function. Allocatable "cpu", "mem", "pods": 0 if absent.

Every absent list is the empty set (containers: ``<<>>``). The defaults in parentheses are
:mod:`schedspec.cluster`'s (it also defaults requests from limits and allocatable from capacity);
the rest are this view's.

Choices the seed leaves open, and what this view does:

- **Units.** ``Required["cpu"]`` and ``Allocatable["cpu"]`` are millicores, memory is bytes, both
  rounded up as the API's ``MilliValue``/``Value`` do; integers only, never quantities.
- **Absent is empty, not missing**: ``""``, the empty function, the empty set, ``FALSE``, so the
  seed never dereferences a missing field. Except ``Required``: a container without a ``cpu``
  request has no ``"cpu"`` key, and ``Required["cpu"]`` is undefined there, as the seed wrote it.
- **Allocatable cpu/mem/pods default to 0** (what the real scheduler's ``NodeInfo`` holds when a
  node reports nothing), so ``Resources`` always has something to compare with.
- **Lists become sets**, as the seed quantifies over them with ``∈``. Equal entries collapse: two
  identical preferred terms of the same weight count once in ``Rating`` (real: each counts).
- **Weighted terms are flattened**: the seed applies ``.Weight`` and ``Match_NS`` to the same item,
  so a preferred node term is its ``preference``'s fields plus ``Weight``, and a weighted pod
  affinity term its ``podAffinityTerm``'s fields plus ``Weight``.
- **Namespaces are not defaulted** to the owner's namespace (reference divergence 27);
  ``namespaceSelector``, ``matchLabelKeys`` and ``mismatchLabelKeys`` are dropped.
- **A nil labelSelector shows as an empty selector** (divergence 28: the seed cannot tell).
- **Node ``Status.Phase`` is ``""``** unless the manifest sets it (divergence 9); never "Running".
- **Label and requirement values stay strings**; ``Gt``/``Lt`` need the spec's ``IsInt``/``ToInt``.
- **Sidecars** (init containers with ``restartPolicy: Always``) are plain ``InitContainer`` items.
- **Dropped**, as the seed has no field for them: priority, overhead, pod-level resources, limits,
  ports, topology spread, scheduling gates, ``tolerationSeconds``, taint ``timeAdded``, deletion
  timestamps, nominated nodes.
- **Objects** holds every Pod and Node record (the seed's ``Snapshot``); PDBs, PriorityClasses and
  Namespaces are not objects of the seed. ``pending`` is :meth:`Cluster.pending_pods`: no
  ``spec.nodeName`` and not terminal (Succeeded/Failed), in input order.
- **ENUMS** describes valid input. A selector operator the loader only warns about (``"Exits"``)
  passes through as written.

The seed also spells names the view does not produce (``Pod.kind``, lowercase ``objects``,
``LabelSelectorRequirement.key``); those are the spec checker's to report, not the view's to alias.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from schedspec.cluster import Cluster, milli_value, object_key, value
from schedspec.spec.kube.records import RecordBuilder
from schedspec.spec.values import Fcn, Value, record

__all__ = ["ENUMS", "FIELDS", "TextbookWorld", "textbook_view"]

_Obj = Mapping[str, Any]

FIELDS: frozenset[str] = frozenset(
    {
        # Pod and Node
        "Kind", "Name", "Namespace", "Labels", "Spec", "Status", "Phase",
        # Pod.Spec
        "NodeName", "NodeSelector", "Tolerations", "Container", "InitContainer", "Affinity",
        # tolerations and taints
        "key", "Operator", "value", "Effect",
        # containers
        "Resources", "Required",
        # affinity
        "NodeAffinity", "PodAffinity", "AntiPodAffinity", "Preferred", "NodeSelectorTerms",
        "MatchExpressions", "MatchFields", "Key", "Value", "Weight",
        "TopologyKey", "Namespaces", "LabelSelector", "MatchLabels", "MatchExpression", "Values",
        # Node
        "Unschedulable", "Taints", "Allocatable",
    }
)  # fmt: skip

_POD_PHASES = frozenset({"Pending", "Running", "Succeeded", "Failed", "Unknown"})
_NODE_PHASES = frozenset({"Pending", "Running", "Terminated", ""})

ENUMS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "Kind": frozenset({"Pod", "Node"}),
        "Operator": frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equal", ""}),
        "Effect": frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute", ""}),
        "Phase": _POD_PHASES | _NODE_PHASES,
    }
)

# Kubernetes resource name -> (textbook key, conversion); anything else keeps its name, value().
_RESOURCES: Mapping[str, tuple[str, Callable[[Any], int]]] = {
    "cpu": ("cpu", milli_value),
    "memory": ("mem", value),
}
_ALLOCATABLE_DEFAULTS = {"cpu": 0, "mem": 0, "pods": 0}


def _resource_key(name: str) -> tuple[str, Callable[[Any], int]]:
    return _RESOURCES.get(name, (name, value))


@dataclass(frozen=True)
class TextbookWorld:
    """A cluster as ``textbook.tla`` sees it.

    ``objects`` is the seed's ``Snapshot``/``Objects``: every Pod and Node record. ``pods`` is
    keyed ``"ns/name"`` and holds all pods, bound or not; ``nodes`` is keyed by name; ``pending``
    lists the keys of pods without ``spec.nodeName`` that are not terminal, in input order;
    ``constants`` binds the names a spec may use free (``Objects``).
    """

    objects: frozenset[Fcn]
    pods: Mapping[str, Fcn]
    nodes: Mapping[str, Fcn]
    pending: tuple[str, ...]
    constants: Mapping[str, Value]


def textbook_view(cluster: Cluster) -> TextbookWorld:
    """Show ``cluster`` in the seed's shape (see the module docstring for the field table).

    Linear in the size of the cluster; equal sub-records (labels, tolerations, resource maps,
    affinities) are built once and shared.
    """
    build = _Builder()
    pods = {object_key(p): build.pod(p) for p in cluster.pods}
    nodes = {n["metadata"]["name"]: build.node(n) for n in cluster.nodes}
    objects = frozenset((*pods.values(), *nodes.values()))
    pending = tuple(object_key(p) for p in cluster.pending_pods())
    return TextbookWorld(
        objects=objects,
        pods=MappingProxyType(pods),
        nodes=MappingProxyType(nodes),
        pending=pending,
        constants=MappingProxyType({"Objects": objects}),
    )


class _Builder(RecordBuilder):
    """Builds the seed's records, sharing equal sub-values (:class:`~.records.RecordBuilder`)."""

    __slots__ = ()

    def _resources(self, quantities: Mapping[str, Any]) -> Fcn:
        return self.intern(Fcn(self._converted(quantities)))

    def _converted(self, quantities: Mapping[str, Any]) -> dict[str, int]:
        return self.converted(quantities, _resource_key)

    # -- Pod -------------------------------------------------------------------------------------

    def pod(self, p: _Obj) -> Fcn:
        meta, spec = p["metadata"], p.get("spec", {})
        return record(
            Kind="Pod",
            Name=meta["name"],
            Namespace=meta.get("namespace", "default"),
            Labels=self.map(meta.get("labels")),
            Spec=self.intern(
                record(
                    NodeName=spec.get("nodeName") or "",
                    NodeSelector=self.map(spec.get("nodeSelector")),
                    Tolerations=self.set(
                        self._toleration(t) for t in spec.get("tolerations") or ()
                    ),
                    Container=self._containers(spec.get("containers")),
                    InitContainer=self._containers(spec.get("initContainers")),
                    Affinity=self._affinity(spec.get("affinity") or {}),
                )
            ),
            Status=self.intern(record(Phase=p.get("status", {}).get("phase", "Pending"))),
        )

    def _toleration(self, t: _Obj) -> Fcn:
        return self.intern(
            record(
                key=t.get("key", ""),
                Operator=t.get("operator", ""),
                value=t.get("value", ""),
                Effect=t.get("effect", ""),
            )
        )

    def _containers(self, cs: Iterable[_Obj] | None) -> tuple[Fcn, ...]:
        return self.seq(self._container(c) for c in cs or ())

    def _container(self, c: _Obj) -> Fcn:
        requests = (c.get("resources") or {}).get("requests") or {}
        resources = self.intern(record(Required=self._resources(requests)))
        return self.intern(record(Name=c["name"], Resources=resources))

    # -- Affinity --------------------------------------------------------------------------------

    def _affinity(self, a: _Obj) -> Fcn:
        return self.intern(
            record(
                NodeAffinity=self._node_affinity(a.get("nodeAffinity") or {}),
                PodAffinity=self._pod_affinity(a.get("podAffinity") or {}),
                AntiPodAffinity=self._pod_affinity(a.get("podAntiAffinity") or {}),
            )
        )

    def _node_affinity(self, na: _Obj) -> Fcn:
        required = na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
        preferred = na.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        terms = self.set(self._term(t) for t in required.get("nodeSelectorTerms") or ())
        weighted = self.set(
            self._term(w.get("preference") or {}, weight=w["weight"]) for w in preferred
        )
        return self.intern(
            record(
                Required=self.intern(record(NodeSelectorTerms=terms)),
                Preferred=self.intern(record(NodeSelectorTerms=weighted)),
            )
        )

    def _term(self, t: _Obj, weight: int | None = None) -> Fcn:
        fields: dict[str, Value] = {
            "MatchExpressions": self.set(self._nsr(r) for r in t.get("matchExpressions") or ()),
            "MatchFields": self.set(self._nsr(r) for r in t.get("matchFields") or ()),
        }
        if weight is not None:
            fields["Weight"] = weight
        return self.intern(Fcn(fields))

    def _nsr(self, r: _Obj) -> Fcn:
        values = self.set(r.get("values") or ())
        return self.intern(
            record(Key=r.get("key", ""), Operator=r.get("operator", ""), Value=values)
        )

    def _pod_affinity(self, pa: _Obj) -> Fcn:
        required = pa.get("requiredDuringSchedulingIgnoredDuringExecution") or ()
        preferred = pa.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        return self.intern(
            record(
                Required=self.set(self._pa_term(t) for t in required),
                Preferred=self.set(
                    self._pa_term(w.get("podAffinityTerm") or {}, weight=w["weight"])
                    for w in preferred
                ),
            )
        )

    def _pa_term(self, t: _Obj, weight: int | None = None) -> Fcn:
        fields: dict[str, Value] = {
            "TopologyKey": t.get("topologyKey", ""),
            "Namespaces": self.set(t.get("namespaces") or ()),
            "LabelSelector": self._label_selector(t.get("labelSelector") or {}),
        }
        if weight is not None:
            fields["Weight"] = weight
        return self.intern(Fcn(fields))

    def _label_selector(self, s: _Obj) -> Fcn:
        requirements = self.set(self._lsr(r) for r in s.get("matchExpressions") or ())
        return self.intern(
            record(MatchLabels=self.map(s.get("matchLabels")), MatchExpression=requirements)
        )

    def _lsr(self, r: _Obj) -> Fcn:
        values = self.set(r.get("values") or ())
        return self.intern(
            record(Key=r.get("key", ""), Operator=r.get("operator", ""), Values=values)
        )

    # -- Node ------------------------------------------------------------------------------------

    def node(self, n: _Obj) -> Fcn:
        meta, spec, status = n["metadata"], n.get("spec", {}), n.get("status", {})
        converted = self._converted(status.get("allocatable") or {})
        allocatable = self.intern(Fcn({**_ALLOCATABLE_DEFAULTS, **converted}))
        return record(
            Kind="Node",
            Name=meta["name"],
            Labels=self.map(meta.get("labels")),
            Spec=self.intern(
                record(
                    Unschedulable=bool(spec.get("unschedulable", False)),
                    Taints=self.set(self._taint(t) for t in spec.get("taints") or ()),
                )
            ),
            Status=self.intern(record(Phase=status.get("phase", ""), Allocatable=allocatable)),
        )

    def _taint(self, t: _Obj) -> Fcn:
        return self.intern(record(key=t["key"], value=t.get("value", ""), Effect=t["effect"]))
