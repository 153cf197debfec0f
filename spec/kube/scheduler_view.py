"""The real-shape view: a cluster shown to ``scheduler.tla`` as the Kubernetes API spells it.

Records keep the API's field names and nesting (``p.spec.affinity.nodeAffinity…``,
``n.status.allocatable``), so a definition reads like the Go code it mirrors. Every optional field
is present with its API default, with one deliberate exception: where the API gives *nil* a meaning
of its own, different from the empty value, the field is left out of the record and the spec
tests ``"f" ∈ DOMAIN r`` —

- ``term.labelSelector`` and ``term.namespaceSelector`` of pod (anti-)affinity terms, the
  ``labelSelector`` of a topology spread constraint and the ``selector`` of a PDB (nil matches
  nothing, ``{}`` matches everything);
- ``nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`` (nil: no requirement; present:
  its terms are ORed, and an empty list matches no node).

Shapes (``[...]`` a record, ``{...}`` a set, ``<<...>>`` a sequence, *fn* a function keyed by
label or resource names)::

  POD   [metadata ↦ [name, namespace, uid, labels: fn, deletionTimestamp: "" if absent,
                     ownerReferences: {REF}],
         spec ↦ [nodeName "", schedulerName, priority (admission-resolved, 0 if absent),
                 preemptionPolicy, nodeSelector: fn, tolerations: {TOL}, affinity: AFF,
                 containers: <<CTR>>, initContainers: <<CTR>>, overhead: fn,
                 resources: [requests: fn] (pod-level), topologySpreadConstraints: <<TSC>>,
                 schedulingGates: {name}],
         status ↦ [phase, nominatedNodeName "", startTime (Unix seconds; Now if absent),
                   conditions: {[type, status, reason]}]]
  TOL   [key "", operator "" (as written: the spec reads "" as Equal), value "", effect ""]
  CTR   [name, image (normalised as ImageLocality does: ":latest" added when untagged),
         restartPolicy "", resources: [requests: fn], ports: {PORT},
         statusResources? ↦ [requests: fn, allocatedResources: fn]]   (from the container's
         status, present when it reports resources: in-place resize)
  PORT  [containerPort, hostPort 0, hostIP "" (as written: the spec reads "" as 0.0.0.0),
         protocol (API default "TCP")]
  AFF   [nodeAffinity ↦ [requiredDuringSchedulingIgnoredDuringExecution? ↦
                            [nodeSelectorTerms: <<TERM>>],
                          preferredDuringSchedulingIgnoredDuringExecution ↦
                            <<[weight, preference: TERM]>>],
         podAffinity ↦ PA, podAntiAffinity ↦ PA]
  TERM  [matchExpressions: {NSR}, matchFields: {NSR}]
  NSR   [key, operator, values: <<string>>]   (a sequence: Gt/Lt need exactly one value)
  PA    [requiredDuringSchedulingIgnoredDuringExecution: {PAT},
         preferredDuringSchedulingIgnoredDuringExecution: <<[weight, podAffinityTerm: PAT]>>]
  PAT   [topologyKey, namespaces: {string}, labelSelector? SEL, namespaceSelector? SEL,
         matchLabelKeys: {string}, mismatchLabelKeys: {string}]
  SEL   [matchLabels: fn, matchExpressions: {[key, operator, values: {string}]}]
  TSC   [maxSkew, topologyKey, whenUnsatisfiable, labelSelector? SEL, minDomains 1,
         nodeAffinityPolicy "Honor", nodeTaintsPolicy "Ignore", matchLabelKeys: {string}]
  NODE  [metadata ↦ [name, labels: fn], spec ↦ [unschedulable FALSE, taints: {TAINT}],
         status ↦ [allocatable: fn, images: {[names: {string}, sizeBytes]}]]
  TAINT [key, value "", effect]
  PDB   [metadata ↦ [name, namespace], spec ↦ [selector? SEL],
         status ↦ [disruptionsAllowed 0, disruptedPods: {pod name}]]
  REF   [apiVersion (as Go's schema.ParseGroupVersion reads it: "v1" for the core group, "" when
         it does not parse), kind, name, controller FALSE]
  SVC   [metadata ↦ [name, namespace], spec ↦ [selector? fn]]   (nil selects nothing)
  CTL   [apiVersion, kind, metadata ↦ [name, namespace], spec ↦ [selector: SEL]]
         (a ReplicationController's selector map as matchLabels)

Resource lists are integers as kube-scheduler's ``framework.Resource`` holds them: ``cpu`` in
millicores (``MilliValue``, rounded up), everything else in units (``Value``, rounded up).
Requests are converted per container, before the spec sums them; upstream sums exact quantities
first, so the two differ only for sub-millicore fractions.

Constants: ``Pods`` (every pod record), ``Nodes`` (every node record), ``PodsOn`` (node name ↦
the pods whose ``spec.nodeName`` is that name — an index, the spec decides which of them count),
``NamespaceLabels`` (namespace ↦ labels; every namespace carries ``kubernetes.io/metadata.name``
as the API server guarantees, and a namespace that pods use but the input does not declare is
assumed to exist with that label only), ``PDBs``, ``Services`` (every SVC), ``Controllers`` (every
ReplicationController, ReplicaSet and StatefulSet as a CTL: what PodTopologySpread's default
constraints deduce their selector from), ``Now`` (later than every start time: the
"missing startTime counts as now" of ``util.GetPodStartTime``), and ``Profiles`` (schedulerName ↦
the profile's enabled plugins, weights and plugin arguments, from the input's
KubeSchedulerConfiguration or the default one: :mod:`.profiles`).

Out of the view, declared: volumes and resource claims (volume plugins and DRA are out of scope).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any, TypeVar

from schedspec.cluster import SELECTING_KINDS, Cluster, milli_value, object_key, value
from schedspec.errors import ManifestError
from schedspec.spec.kube.profiles import profiles
from schedspec.spec.kube.records import RecordBuilder
from schedspec.spec.values import Fcn, Value, record

__all__ = [
    "ENUMS",
    "FIELDS",
    "NOW",
    "SchedulerWorld",
    "node_affinity_record",
    "node_record",
    "pod_record",
    "scheduler_view",
    "scheduler_world",
]

_Obj = Mapping[str, Any]
_V = TypeVar("_V", Fcn, frozenset[Any])

NOW = 2**62
"""``Now``: later than any real start time."""

CONTROLLER_KINDS = tuple(kind for kind in SELECTING_KINDS if kind != "Service")
"""The pod controllers PodTopologySpread's ``DefaultSelector`` reads (helper/spread.go)."""

_NS_NAME_LABEL = "kubernetes.io/metadata.name"
_DEFAULT_SCHEDULER = "default-scheduler"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"

FIELDS: frozenset[str] = frozenset(
    {
        "metadata", "spec", "status", "name", "namespace", "uid", "labels", "deletionTimestamp",
        "nodeName", "schedulerName", "priority", "preemptionPolicy", "nodeSelector",
        "tolerations", "affinity", "containers", "initContainers", "overhead", "resources",
        "topologySpreadConstraints", "schedulingGates", "phase", "nominatedNodeName",
        "startTime", "conditions", "type", "reason",
        "key", "operator", "value", "effect",
        "image", "restartPolicy", "requests", "ports", "statusResources", "allocatedResources",
        "containerPort", "hostPort", "hostIP", "protocol",
        "nodeAffinity", "podAffinity", "podAntiAffinity", _REQUIRED, _PREFERRED,
        "nodeSelectorTerms", "weight", "preference", "matchExpressions", "matchFields", "values",
        "podAffinityTerm", "topologyKey", "namespaces", "labelSelector", "namespaceSelector",
        "matchLabelKeys", "mismatchLabelKeys", "matchLabels",
        "maxSkew", "whenUnsatisfiable", "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy",
        "unschedulable", "taints", "allocatable", "images", "names", "sizeBytes",
        "selector", "disruptionsAllowed", "disruptedPods",
        "ownerReferences", "apiVersion", "kind", "controller",
        # Profiles (spec/kube/profiles.py)
        "preFilters", "filters", "postFilters", "preScores", "scores", "fitStrategy",
        "fitResources", "fitShape", "utilization", "score", "ignoredResources",
        "ignoredResourceGroups", "addedAffinity", "hardPodAffinityWeight",
        "ignorePreferredTermsOfExistingPods", "spreadDefaults", "spreadSystemDefaulted",
        "defaulted",
    }
)  # fmt: skip

ENUMS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "operator": frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equal", ""}),
        "effect": frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute", ""}),
        "phase": frozenset({"Pending", "Running", "Succeeded", "Failed", "Unknown"}),
        "whenUnsatisfiable": frozenset({"DoNotSchedule", "ScheduleAnyway"}),
        "nodeAffinityPolicy": frozenset({"Honor", "Ignore"}),
        "nodeTaintsPolicy": frozenset({"Honor", "Ignore"}),
        "preemptionPolicy": frozenset({"PreemptLowerPriority", "Never"}),
        "restartPolicy": frozenset({"Always", ""}),
        "protocol": frozenset({"TCP", "UDP", "SCTP"}),
        "fitStrategy": frozenset({"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"}),
    }
)


@dataclass(frozen=True)
class SchedulerWorld:
    """A cluster as ``scheduler.tla`` sees it: records keyed ``"ns/name"`` (pods) and by name
    (nodes), the keys of pending pods in input order, and the constants of the module docstring."""

    objects: frozenset[Fcn]
    pods: Mapping[str, Fcn]
    nodes: Mapping[str, Fcn]
    pending: tuple[str, ...]
    constants: Mapping[str, Value]


def node_affinity_record(na: _Obj) -> Fcn:
    """A nodeAffinity object as the view shows a pod's (``Profiles``' addedAffinity)."""
    return _Builder().node_affinity(na)


def pod_record(pod: _Obj) -> Fcn:
    """One Pod manifest as the view shows it (QueueingHints' objects, ``hints.tla``)."""
    return _Builder().pod(pod)


def node_record(node: _Obj) -> Fcn:
    """One Node manifest as the view shows it."""
    return _Builder().node(node)


def scheduler_view(cluster: Cluster) -> SchedulerWorld:
    """Show ``cluster`` in the API's shape (see the module docstring). Linear in its size."""
    return scheduler_world(cluster, _shared())


# One builder for every cluster shown, so that equal values of successive clusters are one
# object: a campaign's clusters share most of their pods and nodes (three in four at 10 × 10),
# and often their configuration, Services and controllers. A spec then keeps the memos of the
# definitions whose constants are bound to the same objects as before (``View.shares_values``,
# ``SourceProgram.bind``), and finds a pod or node of an earlier cluster there by identity. A new
# builder once it holds ``_SHARED_LIMIT`` values.
_SHARED: list[_SharedBuilder] = []
_SHARED_LIMIT = 20_000


def _shared() -> _SharedBuilder:
    if not _SHARED or len(_SHARED[0]) > _SHARED_LIMIT:
        _SHARED[:] = [_SharedBuilder()]
    return _SHARED[0]


def scheduler_world(
    cluster: Cluster, build: _Builder, *, configured: bool = True
) -> SchedulerWorld:
    """:func:`scheduler_view` with the records ``build`` makes (a view that adds fields).
    ``configured``: ``Profiles`` from the cluster's KubeSchedulerConfiguration, else the default
    profile (the cluster autoscaler builds its framework from the default configuration)."""
    pods = {object_key(p): build.pod_of(p) for p in cluster.pods}
    nodes = {n["metadata"]["name"]: build.node_of(n) for n in cluster.nodes}
    on: dict[str, set[Fcn]] = {name: set() for name in nodes}
    for pod in pods.values():
        if pod["spec"]["nodeName"]:
            on.setdefault(pod["spec"]["nodeName"], set()).add(pod)
    constants = {
        "Pods": frozenset(pods.values()),
        "Nodes": frozenset(nodes.values()),
        "PodsOn": Fcn({name: frozenset(ps) for name, ps in on.items()}),
        "NamespaceLabels": _namespace_labels(cluster, build),
        "PDBs": build.shared(frozenset(build.pdb(d) for d in cluster.pdbs)),
        "Services": build.shared(frozenset(build.service(d) for d in cluster.of_kind("Service"))),
        "Controllers": build.shared(
            frozenset(
                build.controller(d) for kind in CONTROLLER_KINDS for d in cluster.of_kind(kind)
            )
        ),
        "Now": NOW,
    }
    configured_profiles = build.profiles_of(cluster.scheduler_config if configured else None)
    constants["Profiles"] = configured_profiles
    names = set(configured_profiles) if configured else None
    return SchedulerWorld(
        objects=frozenset((*pods.values(), *nodes.values())),
        pods=MappingProxyType(pods),
        nodes=MappingProxyType(nodes),
        # a pod no profile names is another scheduler's: kube-scheduler leaves it alone
        pending=tuple(
            object_key(p)
            for p in cluster.pending_pods()
            if names is None or p["spec"].get("schedulerName", _DEFAULT_SCHEDULER) in names
        ),
        constants=MappingProxyType(constants),
    )


def _namespace_labels(cluster: Cluster, build: _Builder) -> Fcn:
    labels: dict[str, dict[str, str]] = {}
    for ns in cluster.namespaces:
        name = ns["metadata"]["name"]
        labels[name] = {**(ns["metadata"].get("labels") or {}), _NS_NAME_LABEL: name}
    for pod in cluster.pods:
        name = pod["metadata"].get("namespace", "default")
        labels.setdefault(name, {_NS_NAME_LABEL: name})
    return build.shared(Fcn({name: build.map(ls) for name, ls in labels.items()}))


def group_version(api_version: str) -> str:
    """``schema.ParseGroupVersion`` then ``GroupVersion.String()``: "v1" for the core group,
    "apps/v1"; "" when it does not parse (more than one "/")."""
    if api_version in ("", "/") or api_version.count("/") > 1:
        return ""
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}" if group else version


def _resource(name: str) -> tuple[str, Any]:
    return name, milli_value if name == "cpu" else value


def normalized_image(name: str) -> str:
    """ImageLocality's ``normalizedImageName``: ``:latest`` appended to an untagged image."""
    return name if name.rfind(":") > name.rfind("/") else name + ":latest"


def _start_time(status: _Obj, pod: _Obj) -> int:
    text = status.get("startTime")
    if not text:
        return NOW
    try:
        return int(datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp())
    except ValueError:
        raise ManifestError(
            f"not an RFC 3339 time: {text!r}",
            obj=f"Pod {object_key(dict(pod))}",
            path="status.startTime",
        ) from None


def _container_statuses(status: _Obj) -> dict[str, _Obj]:
    apps, inits = status.get("containerStatuses"), status.get("initContainerStatuses")
    return {s.get("name", ""): s for s in (*(apps or ()), *(inits or ()))}


class _Builder(RecordBuilder):
    __slots__ = ()

    # A world's pods, nodes and ``Profiles``, and the constants ``shared`` is given: as made,
    # or, from the builder clusters share, as an earlier cluster had them.
    def pod_of(self, p: _Obj) -> Fcn:
        return self.pod(p)

    def node_of(self, n: _Obj) -> Fcn:
        return self.node(n)

    def profiles_of(self, config: _Obj | None) -> Fcn:
        """``Profiles`` from a KubeSchedulerConfiguration (the default one for None)."""
        return profiles(config, self.node_affinity)

    def shared(self, v: _V) -> _V:
        return v

    def resources(self, quantities: Mapping[str, Any] | None) -> Fcn:
        return self.intern(Fcn(self.converted(quantities or {}, _resource)))

    # -- Pod -------------------------------------------------------------------------------------

    def pod(self, p: _Obj) -> Fcn:
        meta, spec, status = p["metadata"], p.get("spec") or {}, p.get("status") or {}
        labels = self.map(meta.get("labels"))
        return record(
            metadata=record(
                name=meta["name"],
                namespace=meta.get("namespace", "default"),
                uid=meta.get("uid", object_key(dict(p))),
                labels=labels,
                deletionTimestamp=str(meta.get("deletionTimestamp") or ""),
                ownerReferences=self.set(self.owner(r) for r in meta.get("ownerReferences") or ()),
            ),
            spec=self.intern(self.pod_spec(spec, _container_statuses(status))),
            status=record(
                phase=status.get("phase", "Pending"),
                nominatedNodeName=status.get("nominatedNodeName") or "",
                startTime=_start_time(status, p),
                conditions=self.set(
                    record(type=c.get("type", ""), status=c.get("status", ""),
                           reason=c.get("reason", ""))
                    for c in status.get("conditions") or ()
                ),
            ),
        )  # fmt: skip

    def pod_spec(self, spec: _Obj, statuses: Mapping[str, _Obj]) -> Fcn:
        return record(
            nodeName=spec.get("nodeName") or "",
            schedulerName=spec.get("schedulerName", "default-scheduler"),
            priority=int(spec.get("priority") or 0),
            preemptionPolicy=spec.get("preemptionPolicy") or "PreemptLowerPriority",
            nodeSelector=self.map(spec.get("nodeSelector")),
            tolerations=self.set(self.toleration(t) for t in spec.get("tolerations") or ()),
            affinity=self.affinity(spec.get("affinity") or {}),
            containers=self.containers(spec.get("containers"), statuses),
            initContainers=self.containers(spec.get("initContainers"), statuses),
            overhead=self.resources(spec.get("overhead")),
            resources=self.intern(
                record(requests=self.resources((spec.get("resources") or {}).get("requests")))
            ),
            topologySpreadConstraints=self.seq(
                self.spread(c) for c in spec.get("topologySpreadConstraints") or ()
            ),
            schedulingGates=self.set(g.get("name", "") for g in spec.get("schedulingGates") or ()),
        )

    def toleration(self, t: _Obj) -> Fcn:
        return self.intern(
            record(
                key=t.get("key", ""),
                operator=t.get("operator", ""),
                value=t.get("value", ""),
                effect=t.get("effect", ""),
            )
        )

    def containers(
        self, cs: Iterable[_Obj] | None, statuses: Mapping[str, _Obj]
    ) -> tuple[Fcn, ...]:
        return self.seq(self.container(c, statuses.get(c.get("name", ""))) for c in cs or ())

    def container(self, c: _Obj, status: _Obj | None) -> Fcn:
        requests = (c.get("resources") or {}).get("requests")
        fields: dict[str, Value] = {
            "name": c.get("name", ""),
            "image": normalized_image(str(c.get("image") or "")),
            "restartPolicy": c.get("restartPolicy") or "",
            "resources": self.intern(record(requests=self.resources(requests))),
            "ports": self.set(self.port(p) for p in c.get("ports") or ()),
        }
        if status is not None and status.get("resources") is not None:
            fields["statusResources"] = self.intern(
                record(
                    requests=self.resources((status.get("resources") or {}).get("requests")),
                    allocatedResources=self.resources(status.get("allocatedResources")),
                )
            )
        return self.intern(Fcn(fields))

    def port(self, p: _Obj) -> Fcn:
        return self.intern(
            record(
                containerPort=int(p.get("containerPort") or 0),
                hostPort=int(p.get("hostPort") or 0),
                hostIP=p.get("hostIP") or "",
                protocol=p.get("protocol") or "TCP",
            )
        )

    # -- Affinity and selectors ------------------------------------------------------------------

    def affinity(self, a: _Obj) -> Fcn:
        return self.intern(
            record(
                nodeAffinity=self.node_affinity(a.get("nodeAffinity") or {}),
                podAffinity=self.pod_affinity(a.get("podAffinity") or {}),
                podAntiAffinity=self.pod_affinity(a.get("podAntiAffinity") or {}),
            )
        )

    def node_affinity(self, na: _Obj) -> Fcn:
        node_affinity: dict[str, Value] = {
            _PREFERRED: self.seq(
                self.intern(record(weight=int(w.get("weight", 0)),
                                   preference=self.term(w.get("preference") or {})))
                for w in na.get(_PREFERRED) or ()
            )
        }  # fmt: skip
        if na.get(_REQUIRED) is not None:
            terms = (na[_REQUIRED] or {}).get("nodeSelectorTerms") or ()
            node_affinity[_REQUIRED] = self.intern(
                record(nodeSelectorTerms=self.seq(self.term(t) for t in terms))
            )
        return self.intern(Fcn(node_affinity))

    def term(self, t: _Obj) -> Fcn:
        return self.intern(
            record(
                matchExpressions=self.set(self.nsr(r) for r in t.get("matchExpressions") or ()),
                matchFields=self.set(self.nsr(r) for r in t.get("matchFields") or ()),
            )
        )

    def nsr(self, r: _Obj) -> Fcn:
        return self.intern(
            record(
                key=r.get("key", ""),
                operator=r.get("operator", ""),
                values=self.seq(str(v) for v in r.get("values") or ()),
            )
        )

    def pod_affinity(self, pa: _Obj) -> Fcn:
        return self.intern(
            record(
                requiredDuringSchedulingIgnoredDuringExecution=self.set(
                    self.pa_term(t) for t in pa.get(_REQUIRED) or ()
                ),
                preferredDuringSchedulingIgnoredDuringExecution=self.seq(
                    self.weighted_pa_term(w) for w in pa.get(_PREFERRED) or ()
                ),
            )
        )  # fmt: skip

    def weighted_pa_term(self, w: _Obj) -> Fcn:
        term = self.pa_term(w.get("podAffinityTerm") or {})
        return self.intern(record(weight=int(w.get("weight", 0)), podAffinityTerm=term))

    def pa_term(self, t: _Obj) -> Fcn:
        fields: dict[str, Value] = {
            "topologyKey": t.get("topologyKey", ""),
            "namespaces": self.set(t.get("namespaces") or ()),
            "matchLabelKeys": self.set(t.get("matchLabelKeys") or ()),
            "mismatchLabelKeys": self.set(t.get("mismatchLabelKeys") or ()),
        }
        for name in ("labelSelector", "namespaceSelector"):
            if t.get(name) is not None:
                fields[name] = self.selector(t[name])
        return self.intern(Fcn(fields))

    def selector(self, s: _Obj) -> Fcn:
        return self.intern(
            record(
                matchLabels=self.map(s.get("matchLabels")),
                matchExpressions=self.set(
                    self.intern(record(key=r.get("key", ""), operator=r.get("operator", ""),
                                       values=self.set(str(v) for v in r.get("values") or ())))
                    for r in s.get("matchExpressions") or ()
                ),
            )
        )  # fmt: skip

    def spread(self, c: _Obj) -> Fcn:
        fields: dict[str, Value] = {
            "maxSkew": int(c.get("maxSkew", 1)),
            "topologyKey": c.get("topologyKey", ""),
            "whenUnsatisfiable": c.get("whenUnsatisfiable", "DoNotSchedule"),
            "minDomains": int(c.get("minDomains") or 1),
            "nodeAffinityPolicy": c.get("nodeAffinityPolicy") or "Honor",
            "nodeTaintsPolicy": c.get("nodeTaintsPolicy") or "Ignore",
            "matchLabelKeys": self.set(c.get("matchLabelKeys") or ()),
        }
        if c.get("labelSelector") is not None:
            fields["labelSelector"] = self.selector(c["labelSelector"])
        return self.intern(Fcn(fields))

    # -- Node and PDB ----------------------------------------------------------------------------

    def node(self, n: _Obj) -> Fcn:
        meta, spec, status = n["metadata"], n.get("spec") or {}, n.get("status") or {}
        return record(
            metadata=record(name=meta["name"], labels=self.map(meta.get("labels"))),
            spec=self.intern(
                record(
                    unschedulable=bool(spec.get("unschedulable", False)),
                    taints=self.set(
                        self.intern(record(key=t.get("key", ""), value=t.get("value", ""),
                                           effect=t.get("effect", "")))
                        for t in spec.get("taints") or ()
                    ),
                )
            ),
            status=record(
                allocatable=self.resources(status.get("allocatable")),
                images=self.set(
                    self.intern(record(names=self.set(i.get("names") or ()),
                                       sizeBytes=int(i.get("sizeBytes") or 0)))
                    for i in status.get("images") or ()
                ),
            ),
        )  # fmt: skip

    def owner(self, r: _Obj) -> Fcn:
        return self.intern(
            record(
                apiVersion=group_version(str(r.get("apiVersion") or "")),
                kind=r.get("kind", ""),
                name=r.get("name", ""),
                controller=r.get("controller") is True,
            )
        )

    def service(self, d: _Obj) -> Fcn:
        meta, spec = d["metadata"], d.get("spec") or {}
        spec_fields: dict[str, Value] = {}
        if spec.get("selector") is not None:
            spec_fields["selector"] = self.map(spec["selector"])
        return record(
            metadata=record(name=meta["name"], namespace=meta.get("namespace", "default")),
            spec=Fcn(spec_fields),
        )

    def controller(self, d: _Obj) -> Fcn:
        meta, spec = d["metadata"], d.get("spec") or {}
        selector = spec.get("selector") or {}
        if d["kind"] == "ReplicationController":
            selector = {"matchLabels": selector}
        return record(
            apiVersion=d["apiVersion"],
            kind=d["kind"],
            metadata=record(name=meta["name"], namespace=meta.get("namespace", "default")),
            spec=record(selector=self.selector(selector)),
        )

    def pdb(self, d: _Obj) -> Fcn:
        meta, spec, status = d["metadata"], d.get("spec") or {}, d.get("status") or {}
        spec_fields: dict[str, Value] = {}
        if spec.get("selector") is not None:
            spec_fields["selector"] = self.selector(spec["selector"])
        return record(
            metadata=record(name=meta["name"], namespace=meta.get("namespace", "default")),
            spec=Fcn(spec_fields),
            status=record(
                disruptionsAllowed=int(status.get("disruptionsAllowed") or 0),
                disruptedPods=self.set((status.get("disruptedPods") or {}).keys()),
            ),
        )


class _SharedBuilder(_Builder):
    """The builder clusters share (``_shared``): the record of a pod, a node or a configuration's
    ``Profiles`` is made once per object, found again by the object's pickle (which tells ``1``
    from ``True`` and ``"1"``, unlike equality), so one seen in an earlier cluster costs its
    pickling."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[tuple[str, bytes], Fcn] = {}

    def __len__(self) -> int:
        return super().__len__() + len(self._made)

    def _record(self, kind: str, obj: _Obj | None, make: Callable[[Any], Fcn]) -> Fcn:
        try:
            key = kind, pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
        except Exception:  # not plain data: made each time
            return make(obj)
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = make(obj)
        return made

    def pod_of(self, p: _Obj) -> Fcn:
        return self._record("Pod", p, lambda p: self.intern(self.pod(p)))

    def node_of(self, n: _Obj) -> Fcn:
        return self._record("Node", n, lambda n: self.intern(self.node(n)))

    def profiles_of(self, config: _Obj | None) -> Fcn:
        made = super().profiles_of
        return self._record("Profiles", config, lambda c: self.intern(made(c)))

    def shared(self, v: _V) -> _V:
        return self.intern(v)
