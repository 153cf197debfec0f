"""Manifest objects checked as the API server would: types, names, labels, selectors, quantities.

``validate_object(doc, warnings)`` checks one object (apiVersion and kind, metadata, then the
fields of its kind) and raises ONE ``ManifestError`` naming the place, the object and the field
path (``Ctx.fail``); selector problems kube-scheduler has defined behaviour for are appended to
``warnings`` instead (``Ctx.warn``). Nothing here changes the object: defaulting and priority
admission live in ``schedspec.cluster``, whose docstring lists what is rejected and what is only
warned about.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NoReturn

from schedspec.errors import ManifestError
from schedspec.manifest_yaml import Doc, Path, describe
from schedspec.quantity import parse_quantity

__all__ = [
    "BUILTIN_PRIORITY",
    "KINDS",
    "NAMESPACED",
    "Ctx",
    "label_key_problem",
    "label_value_problem",
    "render_path",
    "validate_object",
]

NAMESPACED = frozenset(
    {"Pod", "PodDisruptionBudget", "DaemonSet", "ConfigMap", "MachineDeployment", "MachineSet"}
)
BUILTIN_PRIORITY = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}

# ------------------------------------------------------------------------- validation primitives


class Ctx:
    """Where an object came from, how to name it, and where its warnings go."""

    def __init__(self, doc: Doc, kind: str, warnings: list[str]) -> None:
        self.doc, self.kind, self.obj, self.warnings = doc, kind, kind, warnings

    def fail(self, path: Path, message: str) -> NoReturn:
        raise ManifestError(
            message, where=self.doc.where(path), obj=self.obj, path=render_path(path)
        )

    def warn(self, path: Path, problem: str, consequence: str) -> None:
        noun = "pod" if self.kind == "Pod" else self.kind
        text = f"{problem}; the API server would reject this {noun}, and {consequence}"
        where, rendered = self.doc.where(path), render_path(path)
        self.warnings.append(ManifestError(text, where=where, obj=self.obj, path=rendered).render())


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def render_path(path: Path) -> str:
    """``spec.containers[1].resources``: identifiers after dots, anything else in brackets."""
    out = ""
    for step in path:
        if isinstance(step, int) or not _IDENTIFIER.fullmatch(step):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else step
    return out


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "list": (list,),
    "mapping": (dict,),
}


def _typed(ctx: Ctx, data: Any, path: Path, type_name: str) -> Any:
    wrong_int = type_name == "integer" and isinstance(data, bool)
    if wrong_int or not isinstance(data, _TYPES[type_name]):
        article = "an" if type_name[0] in "aeiou" else "a"
        ctx.fail(path, f"must be {article} {type_name}, got {describe(data)}")
    return data


def _opt(ctx: Ctx, parent: dict[str, Any], path: Path, key: str, type_name: str) -> Any:
    """``parent[key]`` checked against ``type_name``; None when absent or null."""
    data = parent.get(key)
    return None if data is None else _typed(ctx, data, (*path, key), type_name)


def _req(ctx: Ctx, parent: dict[str, Any], path: Path, key: str, type_name: str) -> Any:
    if parent.get(key) is None:
        ctx.fail((*path, key), "is required")
    return _opt(ctx, parent, path, key, type_name)


def _items(ctx: Ctx, parent: dict[str, Any], path: Path, key: str) -> Iterator[tuple[Any, Path]]:
    """Each element of the optional list ``parent[key]`` with its path."""
    for i, item in enumerate(_opt(ctx, parent, path, key, "list") or []):
        yield item, (*path, key, i)


def _enum(ctx: Ctx, parent: dict[str, Any], path: Path, key: str, allowed: tuple[str, ...]) -> Any:
    data = _opt(ctx, parent, path, key, "string")
    if data is not None and data not in allowed:
        shown = ", ".join(json.dumps(a) for a in allowed if a)
        ctx.fail((*path, key), f"unsupported value {json.dumps(data)}: supported values: {shown}")
    return data


def _int_range(
    ctx: Ctx, parent: dict[str, Any], path: Path, key: str, lo: int, hi: int | None = None
) -> int | None:
    data: int | None = _opt(ctx, parent, path, key, "integer")
    if data is not None and (data < lo or (hi is not None and data > hi)):
        bounds = f"at least {lo}" if hi is None else f"between {lo} and {hi}, inclusive"
        ctx.fail((*path, key), f"must be {bounds}, got {data}")
    return data


def _int32(ctx: Ctx, parent: dict[str, Any], path: Path, key: str) -> int | None:
    return _int_range(ctx, parent, path, key, -(2**31), 2**31 - 1)


def _string_list(ctx: Ctx, parent: dict[str, Any], path: Path, key: str) -> list[str]:
    for item, item_path in _items(ctx, parent, path, key):
        _typed(ctx, item, item_path, "string")
    return parent.get(key) or []


# -------------------------------------------------------------------------- names and labels

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_LABEL_RULE = "alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric"


def _dns_label_problem(name: str) -> str | None:
    if len(name) <= 63 and _DNS_LABEL.fullmatch(name):
        return None
    return (
        f"{json.dumps(name)} is not a lowercase RFC 1123 label (at most 63 lowercase "
        "alphanumerics or '-', starting and ending with an alphanumeric)"
    )


def _dns_subdomain_problem(name: str) -> str | None:
    if len(name) <= 253 and _DNS_SUBDOMAIN.fullmatch(name):
        return None
    return (
        f"{json.dumps(name)} is not a lowercase RFC 1123 subdomain (at most 253 lowercase "
        "alphanumerics, '-' or '.', starting and ending with an alphanumeric)"
    )


def label_key_problem(key: str) -> str | None:
    parts = key.split("/")
    name = parts[-1]
    if len(parts) > 2 or (len(parts) == 2 and not parts[0]):
        return f"invalid label key {json.dumps(key)}: at most one '/' after a non-empty prefix"
    if len(parts) == 2 and _dns_subdomain_problem(parts[0]):
        return f"invalid label key {json.dumps(key)}: the prefix must be a DNS subdomain"
    if not name or len(name) > 63 or not _LABEL_NAME.fullmatch(name):
        return f"invalid label key {json.dumps(key)}: the name must be 1-63 {_LABEL_RULE}"
    return None


def label_value_problem(data: str) -> str | None:
    if not data or (len(data) <= 63 and _LABEL_NAME.fullmatch(data)):
        return None
    return f"invalid label value {json.dumps(data)}: must be empty or 1-63 {_LABEL_RULE}"


def _label_map(ctx: Ctx, parent: dict[str, Any], path: Path, key: str) -> None:
    """labels / nodeSelector: label keys to string label values."""
    for label, data in (_opt(ctx, parent, path, key, "mapping") or {}).items():
        label_path = (*path, key, label)
        if problem := label_key_problem(label):
            ctx.fail(label_path, problem)
        if not isinstance(data, str):
            scalar = isinstance(data, bool | int | float)
            hint = f"; quote it: {json.dumps(json.dumps(data))}" if scalar else ""
            ctx.fail(label_path, f"must be a string, got {describe(data)}{hint}")
        if problem := label_value_problem(data):
            ctx.fail(label_path, problem)


# -------------------------------------------------------------------------------- selectors

_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_REQUIRED_NODE = "kube-scheduler treats the term as matching no node"
_PREFERRED_NODE = "kube-scheduler's NodeAffinity PreScore fails with an error for this pod"
_POD_AFFINITY = (
    "kube-scheduler cannot parse the pod's affinity terms: InterPodAffinity's PreFilter rejects "
    'it on every node (UnschedulableAndUnresolvable, "parsing pod"), and once bound its terms '
    "of this list are ignored"
)
_SPREAD = (
    "kube-scheduler's PodTopologySpread fails with an error for this pod "
    "(PreFilter for DoNotSchedule, PreScore for ScheduleAnyway)"
)
_PDB_SELECTOR = "kube-scheduler's preemption treats the budget as matching no pod"
_FIELD_KEY = 'kube-scheduler reads that node field as "" (In matches no node, NotIn every node)'


def _requirement(ctx: Ctx, req: Any, path: Path) -> tuple[str, str, list[str]]:
    """The (key, operator, values) of a selector requirement; types checked, semantics not."""
    req = _typed(ctx, req, path, "mapping")
    key = _opt(ctx, req, path, "key", "string") or ""
    operator = _opt(ctx, req, path, "operator", "string") or ""
    return key, operator, _string_list(ctx, req, path, "values")


def _requirement_problems(key: str, op: str, values: list[str], operators: tuple[str, ...]) -> str:
    """What ``labels.NewRequirement`` would reject, joined by "; " ("" when nothing)."""
    if op not in operators:
        return f"unknown operator {json.dumps(op)} (supported: {', '.join(operators)})"
    problems = [label_key_problem(key)]
    shown = json.dumps(values)
    if op in ("In", "NotIn") and not values:
        problems.append(f"operator {json.dumps(op)} needs at least one value")
    if op in ("Exists", "DoesNotExist") and values:
        problems.append(f"operator {json.dumps(op)} takes no values, got {shown}")
    if op in ("Gt", "Lt") and (len(values) != 1 or not _is_int64(values[0])):
        problems.append(f"operator {json.dumps(op)} needs exactly one integer value, got {shown}")
    problems += [label_value_problem(v) for v in values]
    return "; ".join(p for p in problems if p)


def _is_int64(text: str) -> bool:
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None and -(2**63) <= int(text) < 2**63


def _label_selector(ctx: Ctx, parent: dict[str, Any], path: Path, key: str, then: str) -> None:
    selector = _opt(ctx, parent, path, key, "mapping")
    if selector is None:
        return
    path = (*path, key)
    for label, data in (_opt(ctx, selector, path, "matchLabels", "mapping") or {}).items():
        label_path = (*path, "matchLabels", label)
        _typed(ctx, data, label_path, "string")
        problems = [p for p in (label_key_problem(label), label_value_problem(data)) if p]
        if problems:
            ctx.warn(label_path, "; ".join(problems), then)
    for req, req_path in _items(ctx, selector, path, "matchExpressions"):
        if problem := _requirement_problems(*_requirement(ctx, req, req_path), _LABEL_OPERATORS):
            ctx.warn(req_path, problem, then)


def _node_selector_term(ctx: Ctx, term: Any, path: Path, then: str) -> None:
    term = _typed(ctx, term, path, "mapping")
    for req, req_path in _items(ctx, term, path, "matchExpressions"):
        if problem := _requirement_problems(*_requirement(ctx, req, req_path), _NODE_OPERATORS):
            ctx.warn(req_path, problem, then)
    for req, req_path in _items(ctx, term, path, "matchFields"):
        key, op, values = _requirement(ctx, req, req_path)
        if op not in ("In", "NotIn"):
            problem = f"unknown matchFields operator {json.dumps(op)} (supported: In, NotIn)"
            ctx.warn(req_path, problem, then)
        elif len(values) != 1:
            problem = f"matchFields operator {json.dumps(op)} needs exactly one value"
            ctx.warn(req_path, f"{problem}, got {json.dumps(values)}", then)
        elif key != "metadata.name":
            ctx.warn(
                req_path, f'matchFields key {json.dumps(key)} is not "metadata.name"', _FIELD_KEY
            )


# ---------------------------------------------------------------------- affinity and spreading

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _weighted(
    ctx: Ctx, parent: dict[str, Any], path: Path, term_key: str
) -> Iterator[tuple[Any, Path]]:
    """Each preferred term's inner ``term_key`` and its path, after checking the weight."""
    for pref, pref_path in _items(ctx, parent, path, _PREFERRED):
        pref = _typed(ctx, pref, pref_path, "mapping")
        _req(ctx, pref, pref_path, "weight", "integer")
        _int_range(ctx, pref, pref_path, "weight", 1, 100)
        yield _req(ctx, pref, pref_path, term_key, "mapping"), (*pref_path, term_key)


def _affinity(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    affinity = _opt(ctx, spec, path, "affinity", "mapping")
    if affinity is None:
        return
    path = (*path, "affinity")
    node_affinity = _opt(ctx, affinity, path, "nodeAffinity", "mapping")
    if node_affinity is not None:
        _node_affinity(ctx, node_affinity, (*path, "nodeAffinity"))
    for key in ("podAffinity", "podAntiAffinity"):
        pod_affinity = _opt(ctx, affinity, path, key, "mapping")
        if pod_affinity is not None:
            _pod_affinity(ctx, pod_affinity, (*path, key))


def _node_affinity(ctx: Ctx, node_affinity: dict[str, Any], path: Path) -> None:
    required = _opt(ctx, node_affinity, path, _REQUIRED, "mapping")
    if required is not None:
        req_path = (*path, _REQUIRED)
        if not _req(ctx, required, req_path, "nodeSelectorTerms", "list"):
            ctx.fail((*req_path, "nodeSelectorTerms"), "must have at least one term")
        for term, term_path in _items(ctx, required, req_path, "nodeSelectorTerms"):
            _node_selector_term(ctx, term, term_path, _REQUIRED_NODE)
    for term, term_path in _weighted(ctx, node_affinity, path, "preference"):
        _node_selector_term(ctx, term, term_path, _PREFERRED_NODE)


def _pod_affinity(ctx: Ctx, pod_affinity: dict[str, Any], path: Path) -> None:
    for term, term_path in _items(ctx, pod_affinity, path, _REQUIRED):
        _pod_affinity_term(ctx, term, term_path)
    for term, term_path in _weighted(ctx, pod_affinity, path, "podAffinityTerm"):
        _pod_affinity_term(ctx, term, term_path)


def _pod_affinity_term(ctx: Ctx, term: Any, path: Path) -> None:
    term = _typed(ctx, term, path, "mapping")
    if not _req(ctx, term, path, "topologyKey", "string"):
        ctx.fail((*path, "topologyKey"), "must not be empty")
    _label_selector(ctx, term, path, "labelSelector", _POD_AFFINITY)
    _label_selector(ctx, term, path, "namespaceSelector", _POD_AFFINITY)
    for key in ("namespaces", "matchLabelKeys", "mismatchLabelKeys"):
        _string_list(ctx, term, path, key)


def _spread_constraints(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    seen: dict[tuple[str, str], Path] = {}
    for c, c_path in _items(ctx, spec, path, "topologySpreadConstraints"):
        c = _typed(ctx, c, c_path, "mapping")
        _req(ctx, c, c_path, "maxSkew", "integer")
        _int_range(ctx, c, c_path, "maxSkew", 1)
        if not _req(ctx, c, c_path, "topologyKey", "string"):
            ctx.fail((*c_path, "topologyKey"), "must not be empty")
        _req(ctx, c, c_path, "whenUnsatisfiable", "string")
        when = _enum(ctx, c, c_path, "whenUnsatisfiable", ("DoNotSchedule", "ScheduleAnyway"))
        if _int_range(ctx, c, c_path, "minDomains", 1) is not None and when != "DoNotSchedule":
            ctx.fail((*c_path, "minDomains"), 'may only be set with "DoNotSchedule"')
        for key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            _enum(ctx, c, c_path, key, ("Honor", "Ignore"))
        _label_selector(ctx, c, c_path, "labelSelector", _SPREAD)
        _string_list(ctx, c, c_path, "matchLabelKeys")
        pair = (c["topologyKey"], when)
        if pair in seen:
            ctx.fail(
                c_path, f"duplicate topologyKey and whenUnsatisfiable of {render_path(seen[pair])}"
            )
        seen[pair] = c_path


# ------------------------------------------------------------------------------------------ Pod

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")


def _quantities(ctx: Ctx, parent: dict[str, Any], path: Path, key: str) -> dict[str, Fraction]:
    out = {}
    for name, data in (_opt(ctx, parent, path, key, "mapping") or {}).items():
        try:
            amount = parse_quantity(data)
        except ValueError:
            ctx.fail((*path, key, name), f"invalid quantity {describe(data)}")
        if amount < 0:
            ctx.fail((*path, key, name), f"must be greater than or equal to 0, got {_shown(data)}")
        out[name] = amount
    return out


def _shown(q: Any) -> str:
    return q if isinstance(q, str) else json.dumps(q)


def _resources(ctx: Ctx, parent: dict[str, Any], path: Path) -> None:
    resources = _opt(ctx, parent, path, "resources", "mapping")
    if resources is None:
        return
    path = (*path, "resources")
    requests = _quantities(ctx, resources, path, "requests")
    limits = _quantities(ctx, resources, path, "limits")
    for name, request in requests.items():
        if name in limits and request > limits[name]:
            limit = _shown(resources["limits"][name])
            message = f"{_shown(resources['requests'][name])} must be less than or equal to"
            ctx.fail((*path, "requests", name), f"{message} {name} limit of {limit}")


def _containers(ctx: Ctx, spec: dict[str, Any], spec_path: Path) -> None:
    if not _req(ctx, spec, spec_path, "containers", "list"):
        ctx.fail((*spec_path, "containers"), "must contain at least one container")
    names: dict[str, Path] = {}
    for key in ("containers", "initContainers"):
        for container, path in _items(ctx, spec, spec_path, key):
            _container(ctx, container, path, names, init=key == "initContainers")


def _container(ctx: Ctx, container: Any, path: Path, names: dict[str, Path], *, init: bool) -> None:
    container = _typed(ctx, container, path, "mapping")
    name = _req(ctx, container, path, "name", "string")
    if problem := _dns_label_problem(name):
        ctx.fail((*path, "name"), problem)
    if name in names:
        ctx.fail((*path, "name"), f"duplicate container name {json.dumps(name)}")
    names[name] = path
    _req(ctx, container, path, "image", "string")
    _resources(ctx, container, path)
    for port, port_path in _items(ctx, container, path, "ports"):
        port = _typed(ctx, port, port_path, "mapping")
        _req(ctx, port, port_path, "containerPort", "integer")
        _int_range(ctx, port, port_path, "containerPort", 1, 65535)
        _int_range(ctx, port, port_path, "hostPort", 0, 65535)
        _enum(ctx, port, port_path, "protocol", ("TCP", "UDP", "SCTP"))
    restart = _opt(ctx, container, path, "restartPolicy", "string")
    if restart is not None and not init:
        ctx.fail((*path, "restartPolicy"), "may only be set on initContainers")
    _enum(ctx, container, path, "restartPolicy", ("Always",))


def _tolerations(ctx: Ctx, spec: dict[str, Any], spec_path: Path) -> None:
    for t, path in _items(ctx, spec, spec_path, "tolerations"):
        t = _typed(ctx, t, path, "mapping")
        key = _opt(ctx, t, path, "key", "string") or ""
        op = _enum(ctx, t, path, "operator", ("", "Equal", "Exists")) or ""
        data = _opt(ctx, t, path, "value", "string") or ""
        effect = _enum(ctx, t, path, "effect", ("", *_EFFECTS)) or ""
        if key and (problem := label_key_problem(key)):
            ctx.fail((*path, "key"), problem)
        if not key and op != "Exists":
            ctx.fail((*path, "operator"), 'must be "Exists" when key is empty')
        if op == "Exists" and data:
            ctx.fail((*path, "value"), 'must be empty when operator is "Exists"')
        if op != "Exists" and (problem := label_value_problem(data)):
            ctx.fail((*path, "value"), problem)
        if _opt(ctx, t, path, "tolerationSeconds", "integer") is not None and effect != "NoExecute":
            ctx.fail((*path, "effect"), 'must be "NoExecute" when tolerationSeconds is set')


def _validate_pod(ctx: Ctx, pod: dict[str, Any]) -> None:
    _validate_pod_spec(ctx, _req(ctx, pod, (), "spec", "mapping"), ("spec",))
    status = _opt(ctx, pod, (), "status", "mapping") or {}
    _enum(ctx, status, ("status",), "phase", _POD_PHASES)
    _opt(ctx, status, ("status",), "nominatedNodeName", "string")


def _validate_pod_spec(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    """A PodSpec at ``path``: a Pod's ``spec`` or a DaemonSet's ``spec.template.spec``."""
    _containers(ctx, spec, path)
    _label_map(ctx, spec, path, "nodeSelector")
    for key in ("nodeName", "schedulerName", "priorityClassName"):
        _opt(ctx, spec, path, key, "string")
    _int32(ctx, spec, path, "priority")
    _enum(ctx, spec, path, "preemptionPolicy", _PREEMPTION_POLICIES)
    _quantities(ctx, spec, path, "overhead")
    _resources(ctx, spec, path)
    _tolerations(ctx, spec, path)
    _affinity(ctx, spec, path)
    _spread_constraints(ctx, spec, path)
    for gate, gate_path in _items(ctx, spec, path, "schedulingGates"):
        _req(ctx, _typed(ctx, gate, gate_path, "mapping"), gate_path, "name", "string")


# ------------------------------------------------------------------------- the other kinds


def _validate_node(ctx: Ctx, node: dict[str, Any]) -> None:
    spec = _opt(ctx, node, (), "spec", "mapping") or {}
    _opt(ctx, spec, ("spec",), "unschedulable", "boolean")
    seen: set[tuple[str, str]] = set()
    for taint, path in _items(ctx, spec, ("spec",), "taints"):
        taint = _typed(ctx, taint, path, "mapping")
        if problem := label_key_problem(_req(ctx, taint, path, "key", "string")):
            ctx.fail((*path, "key"), problem)
        if problem := label_value_problem(_opt(ctx, taint, path, "value", "string") or ""):
            ctx.fail((*path, "value"), problem)
        _req(ctx, taint, path, "effect", "string")
        pair = (taint["key"], _enum(ctx, taint, path, "effect", _EFFECTS))
        if pair in seen:
            ctx.fail(path, f"duplicate taint with key {json.dumps(pair[0])} and effect {pair[1]}")
        seen.add(pair)
    status = _opt(ctx, node, (), "status", "mapping") or {}
    _quantities(ctx, status, ("status",), "capacity")
    _quantities(ctx, status, ("status",), "allocatable")
    for image, path in _items(ctx, status, ("status",), "images"):
        image = _typed(ctx, image, path, "mapping")
        _string_list(ctx, image, path, "names")
        _int_range(ctx, image, path, "sizeBytes", 0)


_PERCENT = re.compile(r"[0-9]+%")


def _validate_pdb(ctx: Ctx, pdb: dict[str, Any]) -> None:
    spec = _opt(ctx, pdb, (), "spec", "mapping") or {}
    _label_selector(ctx, spec, ("spec",), "selector", _PDB_SELECTOR)
    for key in ("minAvailable", "maxUnavailable"):
        data = spec.get(key)
        if isinstance(data, str) and _PERCENT.fullmatch(data):
            if int(data[:-1]) > 100:
                ctx.fail(("spec", key), f"must not be greater than 100%, got {data}")
        elif data is not None and not isinstance(data, str):
            _int_range(ctx, spec, ("spec",), key, 0)
        elif data is not None:
            ctx.fail(
                ("spec", key), f'must be an integer or a percentage "N%", got {describe(data)}'
            )
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        ctx.fail(("spec", "maxUnavailable"), "minAvailable and maxUnavailable cannot both be set")
    status = _opt(ctx, pdb, (), "status", "mapping") or {}
    for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        _int_range(ctx, status, ("status",), key, 0)


def _validate_priority_class(ctx: Ctx, pc: dict[str, Any]) -> None:
    _req(ctx, pc, (), "value", "integer")
    _int32(ctx, pc, (), "value")
    _opt(ctx, pc, (), "globalDefault", "boolean")
    _enum(ctx, pc, (), "preemptionPolicy", _PREEMPTION_POLICIES)
    _opt(ctx, pc, (), "description", "string")
    builtin = BUILTIN_PRIORITY.get(pc["metadata"]["name"])
    if builtin is not None and pc["value"] != builtin:
        ctx.fail(("value",), f"must be {builtin}, the value of this built-in PriorityClass")


def _validate_daemonset(ctx: Ctx, ds: dict[str, Any]) -> None:
    spec = _req(ctx, ds, (), "spec", "mapping")
    _opt(ctx, spec, ("spec",), "selector", "mapping")
    template = _req(ctx, spec, ("spec",), "template", "mapping")
    path: Path = ("spec", "template")
    meta = _opt(ctx, template, path, "metadata", "mapping") or {}
    _label_map(ctx, meta, (*path, "metadata"), "labels")
    for key, data in (_opt(ctx, meta, (*path, "metadata"), "annotations", "mapping") or {}).items():
        _typed(ctx, data, (*path, "metadata", "annotations", key), "string")
    _validate_pod_spec(ctx, _req(ctx, template, path, "spec", "mapping"), (*path, "spec"))


_CONFIG_MAP_KEY = re.compile(r"[-._a-zA-Z0-9]+")


def _validate_config_map(ctx: Ctx, cm: dict[str, Any]) -> None:
    for key in ("data", "binaryData"):
        for name, data in (_opt(ctx, cm, (), key, "mapping") or {}).items():
            if len(name) > 253 or not _CONFIG_MAP_KEY.fullmatch(name):
                problem = "must consist of at most 253 alphanumerics, '-', '_' or '.'"
                ctx.fail((key, name), f"invalid key {json.dumps(name)}: {problem}")
            _typed(ctx, data, (key, name), "string")
    _opt(ctx, cm, (), "immutable", "boolean")


def _validate_machine_set(ctx: Ctx, obj: dict[str, Any]) -> None:
    """MachineDeployment and MachineSet: what the autoscaler reads (annotations are strings)."""
    spec = _opt(ctx, obj, (), "spec", "mapping") or {}
    _int_range(ctx, spec, ("spec",), "replicas", 0, 2**31 - 1)
    _opt(ctx, spec, ("spec",), "clusterName", "string")
    _opt(ctx, spec, ("spec",), "selector", "mapping")
    _opt(ctx, spec, ("spec",), "template", "mapping")


def _nothing(ctx: Ctx, obj: dict[str, Any]) -> None:
    pass


@dataclass(frozen=True)
class _Kind:
    api_versions: tuple[str, ...]
    validate: Callable[[Ctx, dict[str, Any]], None]


_CAPI = ("cluster.x-k8s.io/v1beta1", "cluster.x-k8s.io/v1beta2")
KINDS = {
    "Node": _Kind(("v1",), _validate_node),
    "Pod": _Kind(("v1",), _validate_pod),
    "Namespace": _Kind(("v1",), _nothing),
    "PodDisruptionBudget": _Kind(("policy/v1",), _validate_pdb),
    "PriorityClass": _Kind(("scheduling.k8s.io/v1",), _validate_priority_class),
    "KubeSchedulerConfiguration": _Kind(("kubescheduler.config.k8s.io/v1",), _nothing),
    "DaemonSet": _Kind(("apps/v1",), _validate_daemonset),
    "ConfigMap": _Kind(("v1",), _validate_config_map),
    "MachineDeployment": _Kind(_CAPI, _validate_machine_set),
    "MachineSet": _Kind(_CAPI, _validate_machine_set),
}
_SUPPORTED = ", ".join(
    [*(f"{' or '.join(k.api_versions)} {name}" for name, k in KINDS.items()), "v1 List"]
)


# -------------------------------------------------------------------- apiVersion, kind and metadata


def _header(doc: Doc) -> str:
    """The object's kind, after checking apiVersion and kind."""
    ctx = Ctx(doc, "", [])
    api_version = _req(ctx, doc.data, (), "apiVersion", "string")
    kind: str = _req(ctx, doc.data, (), "kind", "string")
    if kind not in KINDS:
        ctx.fail(("kind",), f"unsupported kind {json.dumps(kind)}; supported: {_SUPPORTED}")
    if api_version not in KINDS[kind].api_versions:
        expected = " or ".join(json.dumps(v) for v in KINDS[kind].api_versions)
        message = (
            f"unsupported apiVersion {json.dumps(api_version)} for {kind}; expected {expected}"
        )
        ctx.fail(("apiVersion",), message)
    return kind


def _metadata(ctx: Ctx, obj: dict[str, Any]) -> None:
    """Check metadata and name the object in ``ctx`` (``Pod default/web-0``)."""
    meta = _req(ctx, obj, (), "metadata", "mapping")
    path: Path = ("metadata",)
    name = _req(ctx, meta, path, "name", "string")
    checker = _dns_label_problem if ctx.kind == "Namespace" else _dns_subdomain_problem
    if problem := checker(name):
        ctx.fail((*path, "name"), problem)
    namespace = _opt(ctx, meta, path, "namespace", "string") or "default"
    if ctx.kind in NAMESPACED and (problem := _dns_label_problem(namespace)):
        ctx.fail((*path, "namespace"), problem)
    ctx.obj = f"{ctx.kind} {namespace}/{name}" if ctx.kind in NAMESPACED else f"{ctx.kind} {name}"
    _label_map(ctx, meta, path, "labels")
    for key, data in (_opt(ctx, meta, path, "annotations", "mapping") or {}).items():
        _typed(ctx, data, (*path, "annotations", key), "string")
    _opt(ctx, meta, path, "uid", "string")
    for ref, ref_path in _items(ctx, meta, path, "ownerReferences"):
        ref = _typed(ctx, ref, ref_path, "mapping")
        _req(ctx, ref, ref_path, "kind", "string")
        _req(ctx, ref, ref_path, "name", "string")
        _opt(ctx, ref, ref_path, "controller", "boolean")


def validate_object(doc: Doc, warnings: list[str]) -> tuple[str, Ctx]:
    """The kind of the object ``doc`` and its context, after checking every field."""
    kind = _header(doc)
    ctx = Ctx(doc, kind, warnings)
    if kind != "KubeSchedulerConfiguration":
        _metadata(ctx, doc.data)
    KINDS[kind].validate(ctx, doc.data)
    return kind, ctx
