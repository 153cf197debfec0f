"""What the cluster autoscaler is given: node groups, their templates, and its flags.

cluster-autoscaler 1.34 learns its node groups from a cloud provider. schedspec reads them from
inputs people already have (``docs/autoscaler.md``):

- **a node label** (``--node-group-label eks.amazonaws.com/nodegroup``): every node carrying the
  label belongs to the group its value names; sizes come from CA's own ``--nodes MIN:MAX:NAME``
  flags (a labelled group without a ``--nodes`` flag is not autoscaled, as a cloud provider's
  group outside ``--nodes`` is not: it is listed in ``Autoscaling.unmanaged``);
- **Cluster API** ``MachineDeployment``/``MachineSet`` objects with the autoscaler's min/max size
  annotations (``cloudprovider/clusterapi``). The group is ``<Kind>/<namespace>/<name>``; a
  MachineSet owned by a MachineDeployment is not a group of its own. A node belongs to it through
  its ``cluster.x-k8s.io/owner-kind: MachineSet`` / ``owner-name`` / ``cluster-namespace``
  annotations (a MachineSet owned by a MachineDeployment standing for that MachineDeployment),
  else its ``cluster.x-k8s.io/deployment-name`` label. Its target size is ``spec.replicas``, or
  its number of nodes when absent. An object with no size annotation, or a max size of 0, is not
  a group (``unmanaged``);
- **optionally** the priority expander's ConfigMap ``cluster-autoscaler-priority-expander``
  (``data.priorities``, in CA's ``--namespace``) and a price per group (``--price NAME=PRICE``).

Templates follow CA's mixed node-infos processor (:mod:`schedspec.autoscaling_templates`): the
first of the group's nodes in name order that is Ready and schedulable; else, for a Cluster API
group, its scale-from-zero annotations; else any of its nodes. A group with no template is an
error, unless its max size is 0 (it can never grow: ``unmanaged``).

Where schedspec is stricter than CA: CA hides *every* Cluster API group when one object's size
annotation is bad, and silently cannot scale a group from zero when a capacity annotation is bad;
schedspec raises a ``ManifestError`` naming the object and the annotation. Field paths render as
elsewhere in schedspec: ``metadata.annotations[cluster.x-k8s.io/…-max-size]``.

Priorities (:mod:`schedspec.autoscaling_priorities`) are read only when ``--expander`` names
``priority``: YAML mapping int → list of Go (RE2) regexes, matched unanchored against the group
name. They are compiled with Python's ``re``; RE2 and Python differ (RE2 rejects backreferences
and lookarounds, which Python accepts), and those forms are rejected with a clear message.

:func:`node_groups` returns an :class:`Autoscaling`, :func:`parse_options` the flags; both raise
``ManifestError`` (object and field path) or ``UsageError`` (the flag and its value) for bad
input, with CA's own wording where CA has one. Both the spec's view
(``spec/kube/autoscaler_view.py``) and the operational model (``impl/autoscaler``) read this
module's types and nothing else of the input: what a group *is* is input, what CA *does* with it
is modelled twice.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NoReturn

from schedspec.autoscaling_priorities import PRIORITY_CONFIG_MAP, expander_priorities
from schedspec.autoscaling_templates import (
    CAPACITY_PREFIX,
    from_annotations,
    from_node,
    go_int,
    good_candidate,
    template_name,
    zero_template,
)
from schedspec.cluster import Cluster
from schedspec.errors import UsageError
from schedspec.validate import label_key_problem

__all__ = [
    "EXPANDERS",
    "MAX_SIZE_ANNOTATION",
    "MIN_SIZE_ANNOTATION",
    "PRIORITY_CONFIG_MAP",
    "Autoscaling",
    "AutoscalingOptions",
    "NodeGroup",
    "node_groups",
    "parse_options",
]

EXPANDERS = ("random", "most-pods", "least-waste", "price", "priority")
"""The expanders modelled (``--expander``); ``grpc`` needs a server and is declared out."""

MIN_SIZE_ANNOTATION = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
MAX_SIZE_ANNOTATION = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"


@dataclass(frozen=True)
class NodeGroup:
    """One node group. ``template`` is a Node object (the API's JSON shape, as
    :mod:`schedspec.cluster` returns nodes) for a new node of the group: name
    ``template-node-for-<group>``, ``kubernetes.io/hostname`` set to it, the autoscaler's own
    taints removed; ``template_pods`` are the DaemonSet/mirror pods that would run on it (Pod
    objects with ``spec.nodeName`` set to the template's name). ``template_node`` names the real
    node the template copies; None for a scale-from-zero template built from annotations."""

    name: str
    min_size: int
    max_size: int
    target_size: int
    nodes: tuple[str, ...]
    template: Mapping[str, Any]
    template_pods: tuple[Mapping[str, Any], ...] = ()
    price: Fraction | None = None  # per node and hour, in any currency (--price)
    template_node: str | None = None


@dataclass(frozen=True)
class AutoscalingOptions:
    """CA 1.34's flags, with their defaults (``config/flags/flags.go``)."""

    expander: tuple[str, ...] = ("least-waste",)
    expendable_pods_priority_cutoff: int = -10
    max_nodes_total: int = 0  # 0: no limit
    cores_total: tuple[int, int] = (0, 320000)
    memory_total: tuple[int, int] = (0, 6400000)  # GiB
    balance_similar_node_groups: bool = False
    scale_down_utilization_threshold: Fraction = Fraction(1, 2)
    scale_down_gpu_utilization_threshold: Fraction = Fraction(1, 2)
    scale_down_unneeded_time: int = 600  # seconds
    scale_down_delay_after_add: int = 600
    skip_nodes_with_system_pods: bool = True
    skip_nodes_with_local_storage: bool = True
    skip_nodes_with_custom_controller_pods: bool = True
    ignore_daemonsets_utilization: bool = False
    max_node_provision_time: int = 900
    namespace: str = "kube-system"  # --namespace: where the priority expander's ConfigMap lives
    # --balancing-ignore-label (repeatable): labels that may differ between similar groups, on top
    # of CA's basic list; a provider's own group label (eks.amazonaws.com/nodegroup, …) belongs
    # here, as CA's provider comparators ignore it — `schedspec autoscale` adds
    # --node-group-label's key.
    balancing_ignore_labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Autoscaling:
    """Node groups in name order, the flags, and the priority expander's priorities
    (priority ↦ regexes, as the ConfigMap's ``priorities`` key lists them, highest first; None
    when the priority expander is not selected). ``unmanaged`` names, sorted, the groups seen in
    the input that CA does not autoscale: labelled groups without a ``--nodes`` flag, Cluster API
    objects without size annotations or with max size 0, and ``--nodes`` groups with max size 0
    and no node."""

    groups: tuple[NodeGroup, ...]
    options: AutoscalingOptions = field(default_factory=AutoscalingOptions)
    priorities: Mapping[int, tuple[str, ...]] | None = None
    unmanaged: tuple[str, ...] = ()

    def group_of(self, node: str) -> NodeGroup | None:
        return next((g for g in self.groups if node in g.nodes), None)


def _usage(flag: str, value: object, message: str) -> NoReturn:
    raise UsageError(f"{flag} {json.dumps(str(value), ensure_ascii=False)}: {message}")


# ------------------------------------------------------------------------------------ flags


def parse_options(
    expander: str | None = None,
    max_nodes_total: int | str | None = None,
    cores_total: str | None = None,
    memory_total: str | None = None,
    balance_similar_node_groups: bool = False,
    scale_down_utilization_threshold: str | None = None,
    *,
    scale_down_gpu_utilization_threshold: str | None = None,
    expendable_pods_priority_cutoff: int | str | None = None,
    scale_down_unneeded_time: str | None = None,
    scale_down_delay_after_add: str | None = None,
    max_node_provision_time: str | None = None,
    skip_nodes_with_system_pods: bool = True,
    skip_nodes_with_local_storage: bool = True,
    skip_nodes_with_custom_controller_pods: bool = True,
    ignore_daemonsets_utilization: bool = False,
    namespace: str | None = None,
    balancing_ignore_labels: Sequence[str] = (),
) -> AutoscalingOptions:
    """CA's flags as given on the command line (None: the flag is absent, CA's default). Each
    parameter is the flag of the same name with ``-`` for ``_``; durations are Go durations
    (``10m``, ``1h30m``, ``90s``) of whole seconds; thresholds decimals in (0, 1]."""
    given: dict[str, Any] = {
        "balance_similar_node_groups": balance_similar_node_groups,
        "skip_nodes_with_system_pods": skip_nodes_with_system_pods,
        "skip_nodes_with_local_storage": skip_nodes_with_local_storage,
        "skip_nodes_with_custom_controller_pods": skip_nodes_with_custom_controller_pods,
        "ignore_daemonsets_utilization": ignore_daemonsets_utilization,
    }
    if expander is not None:
        given["expander"] = _expanders(expander)
    if max_nodes_total is not None:
        given["max_nodes_total"] = _int_flag("--max-nodes-total", max_nodes_total, minimum=0)
    if expendable_pods_priority_cutoff is not None:
        flag, cutoff = "--expendable-pods-priority-cutoff", expendable_pods_priority_cutoff
        given["expendable_pods_priority_cutoff"] = _int_flag(flag, cutoff)
    for name, text in (("cores_total", cores_total), ("memory_total", memory_total)):
        if text is not None:
            given[name] = _min_max_flag("--" + name.replace("_", "-"), text)
    thresholds = (
        ("scale_down_utilization_threshold", scale_down_utilization_threshold),
        ("scale_down_gpu_utilization_threshold", scale_down_gpu_utilization_threshold),
    )
    durations = (
        ("scale_down_unneeded_time", scale_down_unneeded_time),
        ("scale_down_delay_after_add", scale_down_delay_after_add),
        ("max_node_provision_time", max_node_provision_time),
    )
    for name, text in thresholds:
        if text is not None:
            given[name] = _threshold("--" + name.replace("_", "-"), text)
    for name, text in durations:
        if text is not None:
            given[name] = _duration("--" + name.replace("_", "-"), text)
    if namespace is not None:
        given["namespace"] = _namespace(namespace)
    given["balancing_ignore_labels"] = tuple(balancing_ignore_labels)
    return AutoscalingOptions(**given)


_NOT_MODELLED = {
    "grpc": "it asks a gRPC server outside the cluster (--grpc-expander-url)",
    "least-nodes": "CA 1.34 registers it but does not list it in --expander's help",
}


def _expanders(value: str) -> tuple[str, ...]:
    """``--expander``: names split on "," (nothing trimmed), checked as CA's factory does."""
    names: list[str] = []
    for name in value.split(","):
        if name in names:
            message = "each expander must not be specified more than once"
            _usage("--expander", value, f"Expander {name} was specified multiple times, {message}")
        if names and names[-1] == "random":
            message = (
                f"Expander {name} came after an expander random that will always return only "
                f"one result, this is not allowed since {name} will never be used"
            )
            _usage("--expander", value, message)
        if name in _NOT_MODELLED:
            _usage("--expander", value, f"Expander {name} is not modelled: {_NOT_MODELLED[name]}")
        if name not in EXPANDERS:
            hint = " (CA trims no spaces)" if name != name.strip() else ""
            known = ", ".join(EXPANDERS)
            _usage("--expander", value, f"Expander {name} not supported{hint} (modelled: {known})")
        names.append(name)
    return tuple(names)


def _int_flag(flag: str, value: int | str, *, minimum: int | None = None) -> int:
    if isinstance(value, bool):
        _usage(flag, value, "must be an integer")
    try:
        number = value if isinstance(value, int) else go_int(value)
    except ValueError as err:
        _usage(flag, value, f"must be an integer: {err}")
    if minimum is not None and number < minimum:
        _usage(flag, value, f"must be at least {minimum}")
    return number


def _min_max_flag(flag: str, value: str) -> tuple[int, int]:
    """``--cores-total``/``--memory-total`` ``MIN:MAX`` (CA's ``parseMinMaxFlag``, its words)."""
    parts = value.split(":", 1)
    if len(parts) != 2:
        _usage(flag, value, f"wrong nodes configuration: {value}")
    sizes = []
    for which, token in zip(("min", "max"), parts, strict=True):
        try:
            sizes.append(go_int(token, "ParseInt"))
        except ValueError as err:
            message = f"failed to set {which} size: {token}, expected integer, err: {err}"
            _usage(flag, value, message)
    if sizes[0] < 0:
        _usage(flag, value, "min size must be greater or equal to  0")
    if sizes[1] < sizes[0]:
        _usage(flag, value, "max size must be greater or equal to min size")
    return sizes[0], sizes[1]


_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?")


def _threshold(flag: str, value: str) -> Fraction:
    number = Fraction(value) if _DECIMAL.fullmatch(value) else None
    if number is None or not 0 < number <= 1:
        _usage(flag, value, "must be a decimal in (0, 1]")
    return number


_DURATION_PART = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)")
_US = Fraction(1, 10**6)
_UNITS = {"ns": _US / 1000, "us": _US, "µs": _US, "μs": _US, "ms": _US * 1000, "s": Fraction(1),
          "m": Fraction(60), "h": Fraction(3600)}  # fmt: skip


def _duration(flag: str, value: str) -> int:
    """A Go duration (``time.ParseDuration``) of whole seconds, not negative."""
    total, pos = Fraction(0), 0
    while value != "0" and pos < len(value):
        part = _DURATION_PART.match(value, pos)
        if part is None:
            _usage(flag, value, 'invalid duration: expected a Go duration such as "1h30m"')
        total, pos = total + Fraction(part[1]) * _UNITS[part[2]], part.end()
    if not value or total.denominator != 1:
        _usage(flag, value, "must be a whole number of seconds")
    return int(total)


def _namespace(value: str) -> str:
    if not re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", value) or len(value) > 63:
        _usage("--namespace", value, "not a namespace name (a lowercase RFC 1123 label)")
    return value


@dataclass(frozen=True)
class _Sizes:
    min_size: int
    max_size: int
    origin: str  # how to name the sizes in a message: the flag, or the object


def _nodes_flag(value: str) -> tuple[str, _Sizes]:
    """``--nodes MIN:MAX:NAME`` (CA's ``dynamic.SpecFromString``, scale to zero allowed)."""
    parts = value.split(":", 2)
    if len(parts) != 3:
        _usage("--nodes", value, f"wrong nodes configuration: {value}")
    sizes = []
    for which, token in zip(("min", "max"), parts[:2], strict=True):
        try:
            sizes.append(go_int(token))
        except ValueError:
            _usage("--nodes", value, f"failed to set {which} size: {token}, expected integer")
    if sizes[0] < 0:
        _usage("--nodes", value, "invalid node group spec: min size must be >= 0")
    if sizes[1] < sizes[0]:
        message = "max size must be greater or equal to min size"
        _usage("--nodes", value, f"invalid node group spec: {message}")
    if not parts[2]:
        _usage("--nodes", value, "invalid node group spec: name must not be blank")
    return parts[2], _Sizes(sizes[0], sizes[1], f"--nodes {value}")


def _prices(
    values: Sequence[str], groups: Mapping[str, object], unmanaged: set[str]
) -> dict[str, Fraction]:
    """``--price NAME=PRICE``: a decimal ≥ 0 per autoscaled group, at most once each."""
    out: dict[str, Fraction] = {}
    for value in values:
        name, sep, price = value.rpartition("=")
        if not sep or not re.fullmatch(r"[0-9]+\.?[0-9]*|\.[0-9]+", price):
            _usage("--price", value, "expected NAME=PRICE, PRICE a decimal ≥ 0 (node and hour)")
        if name in unmanaged:
            _usage("--price", value, f"node group {name} is not autoscaled (no --nodes flag)")
        if name not in groups:
            known = ", ".join(sorted(groups)) or "none"
            _usage("--price", value, f"no node group named {name} (groups: {known})")
        if name in out:
            _usage("--price", value, f"a second price for node group {name}")
        out[name] = Fraction(price)
    return out


# ------------------------------------------------------------------------------ Cluster API


@dataclass(frozen=True)
class _CapiIndex:
    """The Cluster API objects of a cluster: groups by id, MachineSets by ``ns/name`` with the
    MachineDeployment owning each (None for a MachineSet of its own), the ids not autoscaled."""

    groups: Mapping[str, tuple[Mapping[str, Any], _Sizes]]
    machine_sets: Mapping[str, str | None]
    unmanaged: tuple[str, ...]


def _capi_index(cluster: Cluster) -> _CapiIndex:
    groups: dict[str, tuple[Mapping[str, Any], _Sizes]] = {}
    machine_sets: dict[str, str | None] = {}
    unmanaged: list[str] = []
    for obj in cluster.others:
        kind, meta = obj["kind"], obj["metadata"]
        if kind not in ("MachineDeployment", "MachineSet"):
            continue
        key = f"{meta['namespace']}/{meta['name']}"
        owner = _deployment_owner(meta) if kind == "MachineSet" else None
        if kind == "MachineSet":
            machine_sets[key] = owner
        if owner is not None:  # its MachineDeployment is the group (CA skips the MachineSet)
            continue
        sizes = _capi_sizes(cluster, obj)
        if sizes is None or sizes.max_size == 0:
            unmanaged.append(f"{kind}/{key}")
        else:
            zero_template(cluster, obj)  # the annotations are checked even while nodes exist
            groups[f"{kind}/{key}"] = (obj, sizes)
    return _CapiIndex(groups, machine_sets, tuple(unmanaged))


def _deployment_owner(meta: Mapping[str, Any]) -> str | None:
    refs = meta.get("ownerReferences") or []
    owner = next((r["name"] for r in refs if r["kind"] == "MachineDeployment" and r["name"]), None)
    return None if owner is None else f"{meta['namespace']}/{owner}"


def _capi_sizes(cluster: Cluster, obj: Mapping[str, Any]) -> _Sizes | None:
    """The min/max size annotations (``strconv.Atoi``; absent: 0); None when neither is set."""
    annotations: Mapping[str, str] = obj["metadata"].get("annotations") or {}
    if MIN_SIZE_ANNOTATION not in annotations and MAX_SIZE_ANNOTATION not in annotations:
        return None
    sizes = {}
    for which, key in (("min", MIN_SIZE_ANNOTATION), ("max", MAX_SIZE_ANNOTATION)):
        try:
            sizes[which] = go_int(annotations.get(key, "0"))
        except ValueError as err:
            path = ("metadata", "annotations", key)
            raise cluster.object_error(obj, path, f"invalid {which} annotation: {err}") from None
    low, high = sizes["min"], sizes["max"]
    problem = None
    if low < 0:
        problem = ("min", MIN_SIZE_ANNOTATION, f"min ({low}) < 0")
    elif high < low:
        absent = "" if MAX_SIZE_ANNOTATION in annotations else ", the annotation is absent"
        problem = ("max", MAX_SIZE_ANNOTATION, f"max ({high}{absent}) < min ({low})")
    if problem is not None:
        which, key, detail = problem
        path = ("metadata", "annotations", key)
        raise cluster.object_error(obj, path, f"invalid {which} annotation: {detail}")
    name = f"{obj['kind']} {obj['metadata']['namespace']}/{obj['metadata']['name']}"
    return _Sizes(low, high, name)


def _capi_group_of(node: Mapping[str, Any], index: _CapiIndex) -> str | None:
    """The Cluster API group of ``node``: its owner MachineSet (or that MachineSet's
    MachineDeployment), else its ``cluster.x-k8s.io/deployment-name`` label; None if that is no
    autoscaled group."""
    annotations = node["metadata"].get("annotations") or {}
    labels = node["metadata"].get("labels") or {}
    ns = annotations.get("cluster.x-k8s.io/cluster-namespace") or "default"
    candidates = []
    if annotations.get("cluster.x-k8s.io/owner-kind") == "MachineSet":
        ms = f"{ns}/{annotations.get('cluster.x-k8s.io/owner-name', '')}"
        if ms in index.machine_sets:
            owner = index.machine_sets[ms]
            candidates.append(f"MachineDeployment/{owner}" if owner else f"MachineSet/{ms}")
    if deployment := labels.get("cluster.x-k8s.io/deployment-name"):
        candidates.append(f"MachineDeployment/{ns}/{deployment}")
    return next((c for c in candidates if c in index.groups), None)


# ------------------------------------------------------------------------------- node_groups


@dataclass(frozen=True)
class _Draft:
    """A group before its template: sizes, members, and the Cluster API object if any."""

    sizes: _Sizes
    members: tuple[Mapping[str, Any], ...]
    obj: Mapping[str, Any] | None = None


def node_groups(
    cluster: Cluster,
    *,
    nodes: Sequence[str] = (),
    node_group_label: str | None = None,
    prices: Sequence[str] = (),
    options: AutoscalingOptions | None = None,
) -> Autoscaling:
    """The node groups of ``cluster`` under CA's flags: ``nodes`` are the ``--nodes`` values,
    ``node_group_label`` the label naming a node's group, ``prices`` the ``--price`` values,
    ``options`` the other flags (:func:`parse_options`; default: CA's defaults)."""
    options = options or AutoscalingOptions()
    flags = _flag_groups(nodes)
    index = _capi_index(cluster)
    drafts, unmanaged = _label_drafts(cluster, node_group_label, flags, index)
    for gid, (obj, sizes) in index.groups.items():
        members = tuple(n for n in cluster.nodes if _capi_group_of(n, index) == gid)
        drafts[gid] = _Draft(sizes, members, obj)
    unmanaged |= set(index.unmanaged)
    priced = _prices(prices, drafts, unmanaged)
    groups, taken = [], {n["metadata"]["name"] for n in cluster.nodes}
    for name in sorted(drafts):
        group = _group(cluster, name, drafts[name], node_group_label, taken)
        groups.append(_with_price(group, priced.get(name), options))
        taken.add(group.template["metadata"]["name"])
    wants_priorities = "priority" in options.expander
    priorities = expander_priorities(cluster, options.namespace) if wants_priorities else None
    return Autoscaling(tuple(groups), options, priorities, tuple(sorted(unmanaged)))


def _flag_groups(values: Sequence[str]) -> dict[str, _Sizes]:
    out: dict[str, _Sizes] = {}
    for value in values:
        name, sizes = _nodes_flag(value)
        if name in out:
            _usage("--nodes", value, f"node group {name} is already given ({out[name].origin})")
        if name.startswith(("MachineDeployment/", "MachineSet/")):
            message = f"{name} is a Cluster API group: its sizes come from its annotations"
            _usage("--nodes", value, f"{message} {MIN_SIZE_ANNOTATION} and {MAX_SIZE_ANNOTATION}")
        out[name] = sizes
    return out


def _label_drafts(
    cluster: Cluster, label: str | None, flags: Mapping[str, _Sizes], index: _CapiIndex
) -> tuple[dict[str, _Draft], set[str]]:
    """The ``--nodes`` groups with their labelled nodes, and the labelled groups without one."""
    if label is not None and (problem := label_key_problem(label)):
        _usage("--node-group-label", label, problem)
    members: dict[str, list[Mapping[str, Any]]] = {}
    for node in sorted(cluster.nodes, key=lambda n: str(n["metadata"]["name"])):
        value = (node["metadata"].get("labels") or {}).get(label) if label else None
        if value is None:
            continue
        if value in flags and (capi := _capi_group_of(node, index)):
            groups = f"{value} (label {label}) and {capi} (Cluster API)"
            raise UsageError(
                f"node {node['metadata']['name']} belongs to two node groups: {groups}"
            )
        members.setdefault(value, []).append(node)
    drafts = {name: _Draft(sizes, tuple(members.get(name, ()))) for name, sizes in flags.items()}
    unmanaged = set(members) - set(flags)
    for name, draft in list(drafts.items()):
        if not draft.members and draft.sizes.max_size == 0:
            del drafts[name]
            unmanaged.add(name)
    return drafts, unmanaged


def _group(
    cluster: Cluster, name: str, draft: _Draft, label: str | None, taken: set[str]
) -> NodeGroup:
    members = sorted(draft.members, key=lambda n: str(n["metadata"]["name"]))
    tname = template_name(name, taken)
    good = next((n for n in members if good_candidate(n)), None)
    zero = zero_template(cluster, draft.obj) if draft.obj is not None else None
    example = good or (None if zero and zero.capacity else next(iter(members), None))
    if example is not None:
        template, pods = from_node(cluster, example, tname)
    elif zero is not None and zero.capacity:
        template, pods = from_annotations(cluster, zero, tname)
    else:
        _no_template(cluster, name, draft, label)
    replicas = (draft.obj or {}).get("spec", {}).get("replicas")
    return NodeGroup(
        name=name,
        min_size=draft.sizes.min_size,
        max_size=draft.sizes.max_size,
        target_size=len(members) if replicas is None else replicas,
        nodes=tuple(n["metadata"]["name"] for n in members),
        template=template,
        template_pods=pods,
        template_node=None if example is None else example["metadata"]["name"],
    )


def _no_template(cluster: Cluster, name: str, draft: _Draft, label: str | None) -> NoReturn:
    if draft.obj is not None:
        message = (
            f"no node belongs to this group and it has no {CAPACITY_PREFIX}cpu and memory "
            "annotations; cannot build a scale-from-zero template (CA would skip the group; "
            "schedspec does not read infrastructure machine templates)"
        )
        raise cluster.object_error(draft.obj, ("metadata", "annotations"), message)
    where = f"no node carries label {label}={name}" if label else "no --node-group-label"
    raise UsageError(
        f"node group {name} ({draft.sizes.origin}): {where} and no scale-from-zero template; "
        "cannot build a template"
    )


def _with_price(group: NodeGroup, price: Fraction | None, options: AutoscalingOptions) -> NodeGroup:
    if price is None and "price" in options.expander:
        raise UsageError(
            f"--expander {','.join(options.expander)}: node group {group.name} has no price; "
            f"give one with --price {group.name}=PRICE"
        )
    return group if price is None else dataclasses.replace(group, price=price)
