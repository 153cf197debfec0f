"""Kubernetes manifests → validated, defaulted objects.

``load(*paths)`` / ``loads(text)`` read multi-document YAML, ``kind: List`` (and ``PodList``-style
``*List`` kinds, as ``kubectl get -o yaml`` prints them) or JSON (one value or a stream of them;
JSON that YAML cannot read, e.g. tab-indented, is read as JSON). They return a frozen ``Cluster``
of plain dicts in Kubernetes JSON shape (camelCase), deep-copied from the input; callers treat
them as read-only. Bad input raises a ``ManifestError`` listing EVERY problem of every object, as
the API server lists every invalid field (``ManifestError.errors``; one line each), each naming the
place (``file:line``), the object (``Pod default/web-0``) and the field path
(``spec.containers[1].resources.requests.cpu``); nothing is half-loaded and no Python traceback
escapes for any input. (Unreadable text — invalid YAML or JSON — stops at its first error.)

Supported objects: v1 Node, v1 Pod, v1 Namespace, policy/v1 PodDisruptionBudget,
scheduling.k8s.io/v1 PriorityClass, kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration (at
most one, kept as a dict; only apiVersion/kind are checked) and v1 List. For PodTopologySpread's
default constraints, whose selector kube-scheduler takes from what selects the pod
(``SELECTING_KINDS``): v1 Service and ReplicationController, apps/v1 ReplicaSet and StatefulSet.
For the cluster autoscaler (``schedspec.autoscaling``), also apps/v1 DaemonSet, v1 ConfigMap and
Cluster API (``cluster.x-k8s.io/v1beta1`` or ``v1beta2``) MachineDeployment and MachineSet. These
are kept in ``Cluster.others`` in input order with where each came from
(``Cluster.object_error``). Empty
documents are skipped. Items of a typed list (``PodList``) may omit apiVersion/kind.

What load fills in (the API server's defaulting and admission; everything else absent stays
absent, consumers default it; ``null`` fields are dropped, as Go reads them as absent):

======================================  ========================================================
field                                   filled with
======================================  ========================================================
``metadata.namespace`` of namespaced    ``"default"`` (dropped on cluster-scoped kinds)
kinds
any ``metadata.uid``                    uuid5 of ``kind/namespace/name`` when absent
an owner reference's ``uid``            the same uuid5 of the owner it names (the uid that
                                        owner gets when it is loaded without one)
Pod ``spec.schedulerName``              ``"default-scheduler"``
Pod ``status.phase``                    ``"Pending"``
Pod ``…ports[].protocol``               ``"TCP"`` (containers and initContainers)
Pod ``…ports[].hostPort`` under         the port's ``containerPort`` when unset or 0
``spec.hostNetwork``                    (containers and initContainers)
Pod ``…resources.requests``             each resource in ``limits`` but not in ``requests``
                                        gets the limit (containers, initContainers, and the
                                        pod-level ``spec.resources``)
Pod ``spec.priority``                   from ``spec.priorityClassName``; else kept if the pod
                                        sets it; else from the ``globalDefault`` class (whose
                                        name then fills ``priorityClassName``); else 0
Pod ``spec.preemptionPolicy``           from the class; else kept; else
                                        ``"PreemptLowerPriority"``
Node ``status.allocatable``             ``status.capacity`` when absent
PriorityClass ``globalDefault``         ``false``
PriorityClass ``preemptionPolicy``      ``"PreemptLowerPriority"``
ReplicationController ``spec.selector``  the template's labels when empty
======================================  ========================================================

The built-in classes ``system-cluster-critical`` (2000000000) and ``system-node-critical``
(2000001000) always exist; they are not added to ``Cluster.priority_classes``. Keeping a pod's own
``priority``/``preemptionPolicy`` when it names no class is more lenient than the real admission
plugin, so clusters written by ``find`` need no PriorityClass objects.

What load rejects (a ``ManifestError``):

- input: unreadable file, invalid YAML/JSON (``file:line:col: invalid YAML: …``), non-string or
  duplicate mapping keys, a document that is not a mapping, an unknown kind or apiVersion;
- every field schedspec reads (``schedspec.shapes.SHAPES``, ``status`` and ``metadata``
  included) of the wrong type: ``status.conditions: must be a list, got "Ready"``; quantities
  that are invalid or negative (``Invalid value: "12xyz": must be a quantity``), times that are
  not RFC 3339 (``startTime``, ``deletionTimestamp``, ``creationTimestamp``, condition times,
  a PDB's ``disruptedPods``), a ``hostIP`` that is not an IP, an integer beyond 64 bits (beyond
  32 where Go's field is an int32: ``maxSkew``, ``minDomains``, a PDB's counts);
- every object: ``metadata.name`` missing or not a DNS-1123 subdomain (Namespace: label), a
  namespace that is not a DNS-1123 label, a duplicate kind+namespace+name or ``metadata.uid``
  (the API server gives each object its own), ``labels`` whose keys
  are not label keys or whose values are not strings / not label values;
- Pod: ``spec.containers`` missing or empty; a container or initContainer without a DNS-label
  ``name`` (unique across both lists) or a string ``image``; an invalid or negative quantity in
  ``resources.requests/limits``, pod-level ``spec.resources`` or ``spec.overhead``; a request
  above its limit; ``containerPort`` outside 1..65535, ``hostPort`` outside 0..65535, a protocol
  other than TCP/UDP/SCTP; ``restartPolicy`` other than ``Always`` on an initContainer (or any on
  a container); an ``image`` that is empty or has surrounding spaces; a ``hostPort`` other than
  the ``containerPort`` under ``hostNetwork``, and one protocol/hostIP/hostPort twice among the
  containers (or within one initContainer); ``nodeName`` or ``status.nominatedNodeName`` that is
  not a DNS-1123 subdomain, and ``nodeName`` together with ``schedulingGates``; a scheduling
  gate name that is not a qualified name, or twice;
  ``nodeSelector`` as for labels; tolerations (operator ``""``/Equal/Exists, effect
  ``""``/NoSchedule/PreferNoSchedule/NoExecute, an empty key needs Exists, Exists needs an empty
  value, ``tolerationSeconds`` needs NoExecute); the STRUCTURE of affinity and topology spread
  (wrong types, a ``topologyKey`` missing or empty — or, in an affinity term, not a label key —,
  empty ``nodeSelectorTerms``, weights outside 1..100, ``whenUnsatisfiable``, ``maxSkew`` < 1,
  ``minDomains`` < 1 or with ScheduleAnyway, ``nodeAffinityPolicy``/``nodeTaintsPolicy`` not
  Honor/Ignore, duplicate constraints); a ``priorityClassName`` naming no class; a
  ``priority``/``preemptionPolicy`` that differs from the named class; ``status.phase`` not a
  pod phase; ``terminationGracePeriodSeconds`` < 0; a volume without a DNS-label ``name``, or a
  duplicate one; an owner reference without ``kind``/``name``
  (``apiVersion``, which the API server requires too, may be left out; a missing ``uid`` is
  filled in), or a second
  one with ``controller: true``;
- Node: ``spec.unschedulable`` not a bool; taints (key a label key, value a label value, effect
  required, no duplicate key+effect); ``status.capacity``/``allocatable`` quantities;
  ``status.images`` not a list of ``{names: [str], sizeBytes: int}``;
- PodDisruptionBudget: ``spec.selector`` structure; ``minAvailable``/``maxUnavailable`` not an
  int ≥ 0 or ``"N%"`` (N ≤ 100), or both set; ``status`` counters not ints ≥ 0;
- PriorityClass: ``value`` missing or not an int32; a second ``globalDefault: true``; a built-in
  name with a different value;
- DaemonSet: ``spec.template.spec`` missing, or failing any of the Pod ``spec`` checks above (the
  paths say ``spec.template.spec…``); ``spec.template.metadata.labels`` as for labels;
- ConfigMap: ``data``/``binaryData`` keys that are not ``[-._a-zA-Z0-9]+`` or values that are not
  strings;
- Service: ``spec.selector`` as for labels; ReplicationController: the same, empty (after
  defaulting from the template), or not matching the template's labels; ReplicaSet/StatefulSet:
  ``spec.selector`` missing, empty, or invalid (as the API server checks it), or not selecting
  ``spec.template.metadata.labels``; ``spec.replicas`` not an int32 ≥ 0;
- MachineDeployment/MachineSet: ``spec.replicas`` not an int32 ≥ 0; and, for every kind,
  ``metadata.annotations`` values that are not strings.

What load only WARNS about (``Cluster.warnings``; the object is kept): selector problems the API
server would reject but kube-scheduler has defined behaviour for — an unknown operator, In/NotIn
without values, Exists/DoesNotExist with values, Gt/Lt without exactly one integer value, invalid
label keys/values inside selectors, matchFields not ``metadata.name`` / In / NotIn with one value.
Each warning says what kube-scheduler then does.

Quantities are kept as written (string or number) and guaranteed valid: ``k8s.io/apimachinery``
``resource.Quantity`` syntax, see ``parse_quantity``; ``schedspec.quantity`` (re-exported here)
lists the deliberate differences from Go.

Modules: ``schedspec.manifest_yaml`` reads YAML/JSON with the line of every field path,
``schedspec.validate`` checks objects, ``schedspec.quantity`` parses quantities; this module
defaults, admits priorities and assembles the ``Cluster``.
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from schedspec.errors import ManifestError
from schedspec.manifest_yaml import Doc, Path, expand, parse
from schedspec.quantity import milli_value, parse_quantity, value
from schedspec.validate import (
    BUILTIN_PRIORITY,
    KINDS,
    NAMESPACED,
    Ctx,
    render_path,
    validate_object,
)

__all__ = [
    "Cluster",
    "from_docs",
    "from_objects",
    "load",
    "loads",
    "milli_value",
    "object_key",
    "parse_quantity",
    "read_docs",
    "value",
]


# --------------------------------------------------------------------------------------- Cluster


@dataclass(frozen=True)
class Cluster:
    """Validated, defaulted objects in input order; ``warnings`` are rendered messages."""

    nodes: tuple[dict[str, Any], ...]
    pods: tuple[dict[str, Any], ...]
    pdbs: tuple[dict[str, Any], ...]
    priority_classes: tuple[dict[str, Any], ...]
    namespaces: tuple[dict[str, Any], ...]
    scheduler_config: dict[str, Any] | None
    warnings: tuple[str, ...]
    others: tuple[dict[str, Any], ...] = ()
    """DaemonSets, ConfigMaps, MachineDeployments, MachineSets, Services, ReplicationControllers,
    ReplicaSets and StatefulSets, in input order."""
    origins: Mapping[tuple[str, str], Doc] = field(default_factory=dict, compare=False, repr=False)
    """Where each of ``others`` came from, by (kind, ``object_key``): see ``object_error``; and
    the KubeSchedulerConfiguration, by (kind, ""): see ``config_where``."""

    def object_error(self, obj: Mapping[str, Any], path: Path, message: str) -> ManifestError:
        """The ``ManifestError`` about ``obj`` (one of this cluster's objects) at the field
        ``path``, with ``file:line`` when ``obj`` is one of ``others`` loaded from text."""
        kind, key = str(obj.get("kind", "")), object_key(obj)
        doc = self.origins.get((kind, key))
        where = doc.where(path) if doc is not None else ""
        return ManifestError(message, where=where, obj=f"{kind} {key}", path=render_path(path))

    def config_where(self, path: str) -> str:
        """``file:line`` of the field ``path`` (``profiles[0].plugins.score``) of this cluster's
        KubeSchedulerConfiguration, as far as the text gives it ("" when loaded from objects)."""
        doc = self.origins.get(("KubeSchedulerConfiguration", ""))
        if doc is None:
            return ""
        steps: Path = tuple(
            int(index) if index else name for name, index in _PATH_STEP.findall(path)
        )
        return doc.where(steps)

    def of_kind(self, kind: str) -> tuple[dict[str, Any], ...]:
        """The objects of ``others`` of ``kind``, in input order."""
        return tuple(o for o in self.others if o["kind"] == kind)

    def find_pod(self, key: str) -> dict[str, Any] | None:
        """The pod with ``object_key`` ``key`` (``"ns/name"``), or None."""
        return next((p for p in self.pods if object_key(p) == key), None)

    def find_node(self, name: str) -> dict[str, Any] | None:
        return next((n for n in self.nodes if n["metadata"]["name"] == name), None)

    def pending_pods(self) -> tuple[dict[str, Any], ...]:
        """Pods without ``spec.nodeName`` that are not terminal (Succeeded/Failed)."""
        return tuple(p for p in self.pods if not p["spec"].get("nodeName") and not _terminal(p))

    def bound_pods(self) -> tuple[dict[str, Any], ...]:
        """Pods with ``spec.nodeName`` that are not terminal (the scheduler ignores those)."""
        return tuple(p for p in self.pods if p["spec"].get("nodeName") and not _terminal(p))


_PATH_STEP = re.compile(r"([^.\[\]]+)|\[([0-9]+)\]")


def _terminal(pod: dict[str, Any]) -> bool:
    return pod.get("status", {}).get("phase") in ("Succeeded", "Failed")


def object_key(obj: Mapping[str, Any]) -> str:
    """``"ns/name"`` for namespaced kinds (Pod, PodDisruptionBudget, DaemonSet, ConfigMap,
    MachineDeployment, MachineSet), ``"name"`` otherwise."""
    meta = obj.get("metadata") or {}
    name = str(meta.get("name", ""))
    if obj.get("kind") in NAMESPACED or ("kind" not in obj and meta.get("namespace")):
        return f"{meta.get('namespace') or 'default'}/{name}"
    return name


# ------------------------------------------------------------------------------------ defaulting


def _default_pod(pod: dict[str, Any]) -> None:
    spec = pod["spec"]
    spec["schedulerName"] = spec.get("schedulerName") or "default-scheduler"
    pod.setdefault("status", {}).setdefault("phase", "Pending")
    for container in [*spec["containers"], *spec.get("initContainers", [])]:
        for port in container.get("ports", []):
            port.setdefault("protocol", "TCP")
            if spec.get("hostNetwork") and not port.get("hostPort"):
                port["hostPort"] = port["containerPort"]
        _default_requests(container)
    _default_requests(spec)


def _default_requests(parent: dict[str, Any]) -> None:
    resources = parent.get("resources", {})
    for name, limit in resources.get("limits", {}).items():
        resources.setdefault("requests", {}).setdefault(name, limit)


def _default_node(node: dict[str, Any]) -> None:
    status = node.get("status", {})
    if "capacity" in status and "allocatable" not in status:
        status["allocatable"] = dict(status["capacity"])


def _default_priority_class(pc: dict[str, Any]) -> None:
    pc.setdefault("globalDefault", False)
    pc.setdefault("preemptionPolicy", "PreemptLowerPriority")


def _default_replication_controller(rc: dict[str, Any]) -> None:
    spec = rc.setdefault("spec", {})
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if not spec.get("selector"):
        spec["selector"] = dict(labels)


_DEFAULTS: dict[str, Callable[[dict[str, Any]], None]] = {
    "Node": _default_node,
    "Pod": _default_pod,
    "PriorityClass": _default_priority_class,
    "ReplicationController": _default_replication_controller,
}


# ------------------------------------------------------------------------ objects, end to end


_UID_NAMESPACE = uuid.UUID("6f1a4a62-4a1c-5b8e-9d0e-5c6865647370")


def _default_metadata(obj: dict[str, Any]) -> None:
    meta, kind = obj["metadata"], obj["kind"]
    if kind in NAMESPACED:
        meta["namespace"] = meta.get("namespace") or "default"
    else:
        meta.pop("namespace", None)
    if not meta.get("uid"):
        meta["uid"] = _default_uid(f"{kind}/{meta.get('namespace', '')}/{meta['name']}")
    for ref in meta.get("ownerReferences") or ():
        if not ref.get("uid"):
            # the uid the owner gets when it is loaded without one (owners share the namespace)
            ref["uid"] = _default_uid(f"{ref['kind']}/{meta.get('namespace', '')}/{ref['name']}")


@functools.lru_cache(maxsize=4096)
def _default_uid(seed: str) -> str:
    # a function of the object's identity: generated clusters repeat names, so cached
    return str(uuid.uuid5(_UID_NAMESPACE, seed))


_NESTED = (dict, list)


def _without_nulls(data: Any) -> Any:
    """A deep copy with null mapping entries dropped (Go reads them as absent). Scalars are
    taken as they are, without a call each: loading spends its time here."""
    if isinstance(data, dict):
        return {
            k: _without_nulls(v) if isinstance(v, _NESTED) else v
            for k, v in data.items()
            if v is not None
        }
    if isinstance(data, list):
        return [_without_nulls(v) if isinstance(v, _NESTED) else v for v in data]
    return data


def _defaulted(kind: str, doc: Doc) -> dict[str, Any]:
    obj: dict[str, Any] = _without_nulls(doc.data)
    if kind != "KubeSchedulerConfiguration":
        _default_metadata(obj)
    if default := _DEFAULTS.get(kind):
        default(obj)
    return obj


_Loaded = list[tuple[dict[str, Any], Ctx]]


# kept in ``Cluster.others``: every namespaced kind but the two with fields of their own
_OTHER_KINDS = NAMESPACED - {"Pod", "PodDisruptionBudget"}
SELECTING_KINDS = ("Service", "ReplicationController", "ReplicaSet", "StatefulSet")
"""The kinds whose selectors make PodTopologySpread's default constraints (in ``others``)."""


_VALID: dict[bytes, tuple[str, str]] = {}
"""Objects found valid with no warning (their pickle, which tells ``1`` from ``True``) → their
kind and name: a campaign draws the same pods and nodes over and over (four objects in five
recur in a 10 × 10 campaign, mostly from the clusters just before), and checking one again
would find what it found. The oldest entry goes first once ``_VALID_AT_MOST`` are kept, so a
long-running caller that never repeats an object (``monitor`` loads each pod version once,
≈ 2 kB pickled) keeps at most ≈ 16 MB. At 8,192 entries a 3,000-cluster 10 × 10 campaign loads
a cluster in ≈ 0.8 ms, as with no bound (1.8 ms validating every object)."""
_VALID_AT_MOST = 8192


def _validate(doc: Doc, warnings: list[str], errors: list[ManifestError]) -> Ctx:
    """``validate_object``, answered from ``_VALID`` for an object already found valid."""
    try:
        key = pickle.dumps(doc.data, pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return validate_object(doc, warnings, errors)
    known = _VALID.get(key)
    if known is not None:
        ctx = Ctx(doc, known[0], warnings, errors)
        ctx.obj = known[1]
        return ctx
    warned = len(warnings)
    ctx = validate_object(doc, warnings, errors)
    if not ctx.failed and len(warnings) == warned:
        if len(_VALID) >= _VALID_AT_MOST:
            del _VALID[next(iter(_VALID))]
        _VALID[key] = (ctx.kind, ctx.obj)
    return ctx


def _build(docs: list[Doc]) -> Cluster:
    """The cluster of ``docs``; every problem of every object raises together, as one
    ``ManifestError`` (``ManifestError.errors``), and then nothing is loaded."""
    warnings: list[str] = []
    errors: list[ManifestError] = []
    loaded: dict[str, _Loaded] = {kind: [] for kind in KINDS}
    invalid: set[str] = set()  # kinds with an invalid object
    seen: dict[tuple[str, str], str] = {}
    uids: dict[str, str] = {}  # metadata.uid → the object that has it
    others: list[dict[str, Any]] = []
    origins: dict[tuple[str, str], Doc] = {}
    for doc in (obj for d in docs for obj in expand(d)):
        ctx = _validate(doc, warnings, errors)
        if ctx.failed:
            invalid.add(ctx.kind)
            continue
        kind, obj = ctx.kind, _defaulted(ctx.kind, doc)
        identity = (kind, "" if kind == "KubeSchedulerConfiguration" else object_key(obj))
        if identity in seen:
            what = "a second KubeSchedulerConfiguration" if not identity[1] else "duplicate object"
            ctx.report((), f"{what}; the first is at {seen[identity]}")
            ctx.flush()
            continue
        seen[identity] = doc.where()
        uid = (obj.get("metadata") or {}).get("uid")
        if uid is not None and uid in uids:
            # the API server gives every object its own; impl's cache knows a pod by its UID
            ctx.report(("metadata", "uid"), f"Duplicate value: {json.dumps(uid)}: the UID of "
                       f"{uids[uid]}")  # fmt: skip
            ctx.flush()
            continue
        if uid is not None:
            uids[uid] = f"{kind} {identity[1]} ({doc.where()})"
        loaded[kind].append((obj, ctx))
        if kind in _OTHER_KINDS:
            others.append(obj)
        if kind in _OTHER_KINDS or kind == "KubeSchedulerConfiguration":
            origins[identity] = doc
    if "PriorityClass" not in invalid:  # else pods naming it would be reported too
        _admit_priorities(loaded["Pod"], loaded["PriorityClass"])
    if errors:
        raise ManifestError.every(errors)
    config = loaded["KubeSchedulerConfiguration"]
    return Cluster(
        nodes=tuple(obj for obj, _ in loaded["Node"]),
        pods=tuple(obj for obj, _ in loaded["Pod"]),
        pdbs=tuple(obj for obj, _ in loaded["PodDisruptionBudget"]),
        priority_classes=tuple(obj for obj, _ in loaded["PriorityClass"]),
        namespaces=tuple(obj for obj, _ in loaded["Namespace"]),
        scheduler_config=config[0][0] if config else None,
        warnings=tuple(warnings),
        others=tuple(others),
        origins=origins,
    )


def _admit_priorities(pods: _Loaded, classes: _Loaded) -> None:
    """Priority admission: ``spec.priority`` and ``spec.preemptionPolicy`` for every pod."""
    plp = "PreemptLowerPriority"
    by_name = {name: (v, plp) for name, v in BUILTIN_PRIORITY.items()}
    default: tuple[str, int, str] | None = None
    for pc, ctx in classes:
        name = pc["metadata"]["name"]
        by_name[name] = (pc["value"], pc["preemptionPolicy"])
        if pc["globalDefault"] and default is not None:
            ctx.report(("globalDefault",), f"PriorityClass {default[0]} is already the default")
            ctx.flush()
        if pc["globalDefault"]:
            default = (name, pc["value"], pc["preemptionPolicy"])
    for pod, ctx in pods:
        _admit_priority(ctx, pod["spec"], by_name, default)
        ctx.flush()


def _admit_priority(
    ctx: Ctx,
    spec: dict[str, Any],
    classes: dict[str, tuple[int, str]],
    default: tuple[str, int, str] | None,
) -> None:
    name = spec.get("priorityClassName", "")
    if not name:  # lenient: a pod's own priority and preemptionPolicy stand
        if "priority" not in spec and default is not None:
            spec["priorityClassName"], spec["priority"], policy = default
            spec.setdefault("preemptionPolicy", policy)
        spec.setdefault("priority", 0)
        spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
        return
    if name not in classes:
        message = f"no PriorityClass with name {json.dumps(name)} was found"
        ctx.report(("spec", "priorityClassName"), message)
        return
    priority, policy = classes[name]
    if spec.setdefault("priority", priority) != priority:
        ctx.report(
            ("spec", "priority"),
            f"the integer value of priority ({spec['priority']}) must not be provided in pod "
            f"spec; priority admission controller computed {priority} from the given "
            "PriorityClass name",
        )
    if spec.setdefault("preemptionPolicy", policy) != policy:
        message = f"must be {json.dumps(policy)} (from PriorityClass {name}) or absent"
        ctx.report(("spec", "preemptionPolicy"), message)


# -------------------------------------------------------------------------------- front door


def loads(text: str, *, source: str = "<string>") -> Cluster:
    """The cluster in ``text`` (YAML, multi-document YAML, a List, or JSON)."""
    return _build(parse(text, source))


def from_objects(objects: Iterable[Mapping[str, Any]], *, source: str = "<objects>") -> Cluster:
    """The cluster of already-parsed manifests (dicts), validated and defaulted like ``loads``.
    The caller's dicts stay as they were: validation only reads them, and each object is copied
    (``_without_nulls``) before anything is defaulted into it."""
    docs = [Doc(dict(obj), f"{source}[{i}]", {}) for i, obj in enumerate(objects)]
    return _build(docs)


def load(*paths: str | os.PathLike[str]) -> Cluster:
    """The cluster in the files ``paths`` (``.yaml``, ``.yml`` or ``.json``), as one."""
    return _build(read_docs(*paths))


def from_docs(docs: list[Doc]) -> Cluster:
    """The cluster of parsed documents (:func:`read_docs`, maybe edited), validated as
    :func:`load` validates; errors keep the documents' file:line."""
    return _build(docs)


def read_docs(*paths: str | os.PathLike[str]) -> list[Doc]:
    """The documents of the files ``paths``, parsed with their positions, not yet validated."""
    docs: list[Doc] = []
    for path in paths:
        source = os.fspath(path)
        try:
            text = FsPath(source).read_text(encoding="utf-8")
        except OSError as err:
            raise ManifestError(f"cannot read: {err.strerror or err}", where=source) from None
        except UnicodeDecodeError:
            raise ManifestError("cannot read: not UTF-8 text", where=source) from None
        docs.extend(parse(text, source))
    return docs
