"""Template nodes: what a new node of a node group looks like, and the pods it starts with.

cluster-autoscaler 1.34 simulates a scale-up on *template* nodes. Its mixed node-infos processor
(``processors/nodeinfosprovider``) takes a group's template from one of its real nodes when it can,
and asks the cloud provider otherwise; ``simulator/node_info_utils.go`` then sanitizes the copy.
schedspec builds the same two kinds of template, deterministically (CA appends a random number to
every name; schedspec does not):

- :func:`from_node` — a copy of a real node, renamed ``template-node-for-<group>``
  (:func:`template_name`), ``kubernetes.io/hostname`` set to that name, ``spec.unschedulable``
  dropped and the taints CA strips (:func:`sanitized_taints`) removed; everything else, status
  (``capacity``, ``allocatable``, ``images``, conditions) and annotations included, is kept, as CA
  keeps it (a copy of a node annotated ``scale-down-disabled`` carries that annotation). Its pods
  are copies of the DaemonSet pods (a controller ownerReference of kind DaemonSet) and mirror pods
  (annotation ``kubernetes.io/config.mirror``) bound to that node and not being deleted, with the
  same names, new uids and ``spec.nodeName`` set to the template.
- :func:`from_annotations` — a Cluster API group with no node: the scale-from-zero annotations
  (``capacity.cluster-autoscaler.kubernetes.io/…``, :func:`zero_template`) give capacity =
  allocatable, labels and taints. Its pods are those of the input's DaemonSets that would run on
  it (:func:`daemon_pods`), as CA forces DaemonSet pods onto a template from a node group.

Declared differences from CA: CA's Cluster API template also carries one made-up ``kube-proxy``
pod (``cloudprovider.BuildKubeProxy``), which schedspec leaves out (a kube-proxy DaemonSet in the
input is counted instead); a real-node template gets no extra pods for DaemonSets missing from the
example node (CA adds system-node-critical ones); infrastructure machine templates'
``status.capacity`` is not read (only the annotations); ``--startup-taint``/``--status-taint`` are
not modelled (their prefixes are).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from schedspec.cluster import Cluster, from_objects, object_key
from schedspec.errors import ManifestError
from schedspec.quantity import parse_quantity
from schedspec.validate import label_key_problem, label_value_problem

__all__ = [
    "CAPACITY_PREFIX",
    "ZeroTemplate",
    "add_daemon_tolerations",
    "daemon_pods",
    "from_annotations",
    "from_node",
    "go_int",
    "good_candidate",
    "sanitized_taints",
    "should_run",
    "template_name",
    "zero_template",
]

HOSTNAME = "kubernetes.io/hostname"
CAPACITY_PREFIX = "capacity.cluster-autoscaler.kubernetes.io/"
DEFAULT_MAX_PODS = 110
TO_BE_DELETED = "ToBeDeletedByClusterAutoscaler"

# utils/taints: CA's own taints, node-condition taints and the startup/status/ignore prefixes
_STRIPPED_TAINTS = frozenset(
    {
        TO_BE_DELETED,
        "DeletionCandidateOfClusterAutoscaler",
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
        "node.kubernetes.io/unschedulable",
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/disk-pressure",
        "node.kubernetes.io/network-unavailable",
        "node.kubernetes.io/pid-pressure",
        "node.cloudprovider.kubernetes.io/uninitialized",
        "node.cloudprovider.kubernetes.io/shutdown",
        "cloud.google.com/impending-node-termination",
        "NodeWithImpairedVolumes",
    }
)
_STRIPPED_PREFIXES = (
    "ignore-taint.cluster-autoscaler.kubernetes.io/",
    "startup-taint.cluster-autoscaler.kubernetes.io/",
    "status-taint.cluster-autoscaler.kubernetes.io/",
)
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

# ------------------------------------------------------------------------------------ names


def template_name(group: str, taken: Iterable[str] = ()) -> str:
    """``template-node-for-<group>``, DNS-1123-safe: lowercase, every character other than
    ``[a-z0-9-]`` (``/`` of a Cluster API id included) becomes ``-``. A name longer than 63 (the
    ``kubernetes.io/hostname`` label must hold it) or already ``taken`` is cut and ends in a hash
    of ``group`` instead."""
    safe = re.sub(r"[^a-z0-9-]", "-", group.lower())
    name = f"template-node-for-{safe}".rstrip("-")
    if len(name) > 63 or name in set(taken):
        digest = hashlib.sha256(group.encode()).hexdigest()[:8]
        name = f"{name[:54]}-{digest}"
    return name


def _uid(*parts: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "schedspec-template:" + "/".join(parts)))


# --------------------------------------------------------------------------- from a real node


def good_candidate(node: Mapping[str, Any]) -> bool:
    """A node CA copies first: Ready (condition ``Ready=True``, or no conditions at all), not
    ``spec.unschedulable`` and not being deleted by CA (``ToBeDeletedByClusterAutoscaler``)."""
    status = node.get("status") or {}
    conditions = status.get("conditions") or []
    ready = not conditions or any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in conditions
    )
    spec = node.get("spec") or {}
    deleting = any(t.get("key") == TO_BE_DELETED for t in spec.get("taints") or [])
    return ready and not spec.get("unschedulable") and not deleting


def sanitized_taints(taints: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``taints`` without those CA strips from a template (``utils/taints.SanitizeTaints``):
    its own ToBeDeleted/DeletionCandidate taints, node-condition taints, and keys under the
    ``ignore-taint.``/``startup-taint.``/``status-taint.cluster-autoscaler.kubernetes.io/``
    prefixes."""
    return [
        dict(t)
        for t in taints
        if t["key"] not in _STRIPPED_TAINTS and not t["key"].startswith(_STRIPPED_PREFIXES)
    ]


def from_node(
    cluster: Cluster, node: Mapping[str, Any], name: str
) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    """The template copied from the real ``node`` under ``name``, and its pods."""
    template = copy.deepcopy(dict(node))
    meta = template["metadata"]
    meta["name"], meta["uid"] = name, _uid("Node", name)
    meta["labels"] = {**(meta.get("labels") or {}), HOSTNAME: name}
    spec = template.setdefault("spec", {})
    spec.pop("unschedulable", None)
    taints = sanitized_taints(spec.pop("taints", []))
    if taints:
        spec["taints"] = taints
    pods = tuple(
        _moved(pod, name)
        for pod in cluster.bound_pods()
        if pod["spec"]["nodeName"] == node["metadata"]["name"]
        and "deletionTimestamp" not in pod["metadata"]
        and (_is_daemonset_pod(pod) or _is_mirror_pod(pod))
    )
    return template, pods


def _is_daemonset_pod(pod: Mapping[str, Any]) -> bool:
    refs = pod["metadata"].get("ownerReferences") or []
    return any(r.get("kind") == "DaemonSet" and r.get("controller") is True for r in refs)


def _is_mirror_pod(pod: Mapping[str, Any]) -> bool:
    return "kubernetes.io/config.mirror" in (pod["metadata"].get("annotations") or {})


def _moved(pod: Mapping[str, Any], node: str) -> dict[str, Any]:
    """A copy of ``pod`` bound to the template ``node``: same name, a new uid."""
    out = copy.deepcopy(dict(pod))
    out["metadata"]["uid"] = _uid("Pod", object_key(pod), node)
    out["spec"]["nodeName"] = node
    return out


# ------------------------------------------------------------- scale-from-zero annotations


@dataclass(frozen=True)
class ZeroTemplate:
    """What a Cluster API object's scale-from-zero annotations say a new node has. ``capacity``
    is empty unless both cpu and memory are given (CA's ``CanScaleFromZero``)."""

    capacity: Mapping[str, str]
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, str], ...]


_Fail = Callable[[str, str], NoReturn]  # (annotation suffix, message)


def zero_template(cluster: Cluster, obj: Mapping[str, Any]) -> ZeroTemplate:
    """The scale-from-zero annotations of ``obj`` (``cloudprovider/clusterapi``), checked: a bad
    quantity or integer, a label entry that is not ``key=value`` with a valid label key and value,
    a taint that is not ``key[=value]:Effect``, or a GPU count without a type (or the reverse)
    is a ``ManifestError`` naming the annotation and the value (CA would silently be unable to
    scale the group from zero). Empty and zero values count as absent, as in CA."""
    annotations: Mapping[str, str] = obj["metadata"].get("annotations") or {}

    def fail(suffix: str, message: str) -> NoReturn:
        path = ("metadata", "annotations", CAPACITY_PREFIX + suffix)
        raise cluster.object_error(obj, path, message)

    def text(suffix: str) -> str:
        return annotations.get(CAPACITY_PREFIX + suffix, "")

    capacity = {
        resource: amount
        for suffix, resource in (
            ("cpu", "cpu"),
            ("memory", "memory"),
            ("ephemeral-disk", "ephemeral-storage"),
        )
        if (amount := _quantity(text(suffix), suffix, fail))
    }
    if {"cpu", "memory"} - capacity.keys():
        capacity = {}
    else:
        capacity["pods"] = str(_count(text("maxPods"), "maxPods", fail) or DEFAULT_MAX_PODS)
        capacity.update(_gpu(text("gpu-type"), text("gpu-count"), fail))
    labels = _labels(text("labels"), fail)
    return ZeroTemplate(capacity, labels, _taints(text("taints"), fail))


def _quantity(data: str, suffix: str, fail: _Fail) -> str:
    if not data:
        return ""
    try:
        amount = parse_quantity(data)
    except ValueError:
        fail(suffix, f"invalid quantity {json.dumps(data)}")
    if amount < 0:
        fail(suffix, f"must be greater than or equal to 0, got {data}")
    return data if amount else ""


def _count(data: str, suffix: str, fail: _Fail) -> int:
    if not data:
        return 0
    try:
        number = go_int(data, "ParseInt")
    except ValueError as err:
        fail(suffix, f"value {json.dumps(data)} expected to be an integer: {err}")
    if number < 0:
        fail(suffix, f"must be greater than or equal to 0, got {number}")
    return number


def _gpu(gpu_type: str, gpu_count: str, fail: _Fail) -> dict[str, str]:
    count = _count(gpu_count, "gpu-count", fail)
    if count and not gpu_type:
        fail("gpu-count", f"needs {CAPACITY_PREFIX}gpu-type: CA adds no GPU without it")
    if gpu_type and not count:
        fail("gpu-type", f"needs {CAPACITY_PREFIX}gpu-count: CA adds no GPU without it")
    if gpu_type and (problem := label_key_problem(gpu_type)):
        fail("gpu-type", problem.replace("label key", "resource name"))
    return {gpu_type: str(count)} if count else {}


def _labels(data: str, fail: _Fail) -> dict[str, str]:
    """``key1=value1,key2=value2``; CA splits on ``,`` then the first ``=``, trims nothing."""
    out: dict[str, str] = {}
    for entry in data.split(",") if data else []:
        key, sep, value = entry.partition("=")
        if not sep:
            fail("labels", f"invalid label {json.dumps(entry)}: expected key=value")
        if problem := label_key_problem(key) or label_value_problem(value):
            hint = " (spaces around ',' and '=' are not trimmed)" if entry != entry.strip() else ""
            fail("labels", f"{problem}{hint}")
        out[key] = value
    return out


def _taints(data: str, fail: _Fail) -> tuple[Mapping[str, str], ...]:
    """``key=value:Effect`` or ``key:Effect``, comma-separated (kubectl's taint syntax)."""
    out: list[dict[str, str]] = []
    for entry in data.split(",") if data else []:
        taint = _taint(entry)
        if isinstance(taint, str):
            fail("taints", f"invalid taint spec: {json.dumps(entry)}: {taint}")
        if any((t["key"], t["effect"]) == (taint["key"], taint["effect"]) for t in out):
            key = json.dumps(taint["key"])
            fail("taints", f"duplicate taint with key {key} and effect {taint['effect']}")
        out.append(taint)
    return tuple(out)


def _taint(entry: str) -> dict[str, str] | str:
    """The taint ``entry`` spells, or what is wrong with it."""
    key_value, _, effect = entry.partition(":")
    if ":" in effect:
        return "expected key=value:Effect"
    key, _, value = key_value.partition("=")
    if "=" in value:
        return "expected key=value:Effect"
    if problem := label_key_problem(key) or label_value_problem(value):
        return problem
    if effect not in _EFFECTS:
        shown = f"effect {json.dumps(effect)}" if effect else "no effect"
        return f"{shown}; a taint needs NoSchedule, PreferNoSchedule or NoExecute"
    taint = {"key": key, "value": value, "effect": effect}
    return taint if value else {"key": key, "effect": effect}


def from_annotations(
    cluster: Cluster, zero: ZeroTemplate, name: str
) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    """The scale-from-zero template ``name`` and its DaemonSet pods. Labels: ``kubernetes.io/arch``
    ``amd64``, ``kubernetes.io/os`` ``linux``, ``kubernetes.io/hostname``, then the labels
    annotation (which wins, as CA merges it last)."""
    labels = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", HOSTNAME: name}
    taints = sanitized_taints(zero.taints)
    template: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": _uid("Node", name), "labels": {**labels, **zero.labels}},
        "spec": {"taints": taints} if taints else {},
        "status": {
            "capacity": dict(zero.capacity),
            "allocatable": dict(zero.capacity),
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }
    return template, daemon_pods(cluster, template)


# --------------------------------------------------------------------------- DaemonSet pods

# what the DaemonSet controller adds to its pods (daemon/util.AddOrUpdateDaemonPodTolerations)
_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)


def daemon_pods(cluster: Cluster, node: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    """A pod of each DaemonSet of the input (in input order) that would run on ``node``: its
    template's ``nodeSelector`` matches the node's labels, its required node affinity (if any)
    has a matching term (``matchExpressions`` on labels, ``matchFields`` on ``metadata.name``),
    and its tolerations, with those the DaemonSet controller adds, tolerate every NoSchedule and
    NoExecute taint of the node (``NodeShouldRunDaemonPod``). Resources are not checked here.
    The pods are validated and defaulted as the loader does (priority from the class)."""
    pairs = [
        (ds, _daemon_pod(ds, node))
        for ds in cluster.others
        if ds["kind"] == "DaemonSet" and should_run(ds["spec"]["template"]["spec"], node)
    ]
    if not pairs:
        return ()
    try:
        loaded = from_objects([*cluster.priority_classes, *(pod for _, pod in pairs)])
    except ManifestError as err:  # priority admission: the pod spec itself was validated
        ds = next((ds for ds, pod in pairs if err.obj == f"Pod {object_key(pod)}"), None)
        if ds is None:
            raise
        path = ("spec", "template", *err.path.split("."))
        raise cluster.object_error(ds, path, err.message) from None
    return loaded.pods


def add_daemon_tolerations(spec: dict[str, Any]) -> None:
    """The tolerations the DaemonSet controller adds to a pod spec it creates, those it already
    has kept (with ``hostNetwork``, also network-unavailable)."""
    tolerations = list(spec.get("tolerations") or [])
    wanted = list(_DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(("node.kubernetes.io/network-unavailable", "NoSchedule"))
    for key, effect in wanted:
        if not any((t.get("key"), t.get("effect")) == (key, effect) for t in tolerations):
            tolerations.append({"key": key, "operator": "Exists", "effect": effect})
    spec["tolerations"] = tolerations


def _daemon_pod(ds: Mapping[str, Any], node: Mapping[str, Any]) -> dict[str, Any]:
    meta, template = ds["metadata"], ds["spec"]["template"]
    spec = copy.deepcopy(template["spec"])
    spec["nodeName"] = node["metadata"]["name"]
    add_daemon_tolerations(spec)
    owner = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": meta["name"], "uid": meta["uid"]}
    pod_meta = {
        "name": f"{meta['name']}-pod-{node['metadata']['name']}"[:253].rstrip("-."),
        "namespace": meta["namespace"],
        "labels": dict((template.get("metadata") or {}).get("labels") or {}),
        "ownerReferences": [{**owner, "controller": True, "blockOwnerDeletion": True}],
    }
    if annotations := (template.get("metadata") or {}).get("annotations"):
        pod_meta["annotations"] = dict(annotations)
    status = {"phase": "Running"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec, "status": status}


def should_run(spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """Whether a DaemonSet whose pod template has ``spec`` runs a pod on ``node``."""
    labels: Mapping[str, str] = node["metadata"].get("labels") or {}
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = (required or {}).get("nodeSelectorTerms") or []
    if required is not None and not any(_term_matches(t, node) for t in terms):
        return False
    tolerations = [
        *(spec.get("tolerations") or []),
        *({"key": k, "operator": "Exists", "effect": e} for k, e in _DAEMON_TOLERATIONS),
    ]
    taints = (node.get("spec") or {}).get("taints") or []
    return all(
        any(_tolerates(t, taint) for t in tolerations)
        for taint in taints
        if taint["effect"] in ("NoSchedule", "NoExecute")
    )


def _term_matches(term: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """A node selector term: every requirement holds; an empty term matches no node."""
    labels: Mapping[str, str] = node["metadata"].get("labels") or {}
    fields = {"metadata.name": node["metadata"]["name"]}
    expressions = term.get("matchExpressions") or []
    match_fields = term.get("matchFields") or []
    if not expressions and not match_fields:
        return False
    return all(_requirement(r, labels) for r in expressions) and all(
        _requirement(r, fields) for r in match_fields
    )


def _requirement(req: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, op, values = req.get("key", ""), req.get("operator", ""), req.get("values") or []
    present, value = key in labels, labels.get(key)
    if op in ("Gt", "Lt"):
        try:
            actual, bound = int(value or ""), int(values[0])
        except (ValueError, IndexError):
            return False
        return actual > bound if op == "Gt" else actual < bound
    matches: dict[str, bool] = {
        "In": present and value in values,
        "NotIn": not present or value not in values,
        "Exists": present,
        "DoesNotExist": not present,
    }
    return matches.get(op, False)


def _tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """``Toleration.ToleratesTaint``: effect (empty: any), key (empty with Exists: any), value."""
    if toleration.get("effect") and toleration["effect"] != taint["effect"]:
        return False
    key, op = toleration.get("key", ""), toleration.get("operator") or "Equal"
    if not key and op == "Exists":
        return True
    if key != taint["key"]:
        return False
    return op == "Exists" or toleration.get("value", "") == taint.get("value", "")


# ------------------------------------------------------------------------------- Go integers

_GO_INT = re.compile(r"[+-]?[0-9]+")


def go_int(text: str, func: str = "Atoi") -> int:
    """``strconv.Atoi`` / ``strconv.ParseInt(text, 10, 64)``: an optional sign and ASCII digits,
    nothing else (``"+3"`` is 3; ``"3.0"``, ``" 3"`` and ``"1_000"`` are not integers); a
    ValueError with Go's message (``strconv.Atoi: parsing "x": invalid syntax``) otherwise."""
    quoted = json.dumps(text, ensure_ascii=False)
    if not _GO_INT.fullmatch(text):
        raise ValueError(f"strconv.{func}: parsing {quoted}: invalid syntax")
    number = int(text) if len(text.lstrip("+-0")) <= 19 else 2**63  # past int64 either way
    if not -(2**63) <= number < 2**63:
        raise ValueError(f"strconv.{func}: parsing {quoted}: value out of range")
    return number
