"""Manifest objects checked as the API server would: types, names, labels, selectors, quantities.

``validate_object(doc, warnings, errors)`` checks one object and appends a ``ManifestError`` to
``errors`` for EVERY problem it finds, as the API server lists every invalid field of an object:
each names the place (``file:line``), the object and the field path. It checks in two passes:

1. **shape** (``schedspec.shapes``): every field schedspec reads has its type — string, integer,
   boolean, mapping, list, a resource quantity, an RFC 3339 time, an IP. A field of the wrong type
   is reported once and not looked into.
2. **rules**: required fields, names, labels, selectors, enums, ranges, cross-field rules. A rule
   that fails (``Ctx.fail``) stops the check of its own field only (``with _CHECKED:`` marks
   where the next check starts); a field gets one error, the first found.

Selector problems kube-scheduler has defined behaviour for are appended to ``warnings`` instead
(``Ctx.warn``). Nothing here changes the object: defaulting and priority admission live in
``schedspec.cluster``, whose docstring lists what is rejected and what is only warned about.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NoReturn

from schedspec.errors import ManifestError
from schedspec.manifest_yaml import Doc, Path, describe
from schedspec.quantity import parse_quantity
from schedspec.shapes import (
    SHAPES,
    conform,
    label_value_type_problem,
    quantity_problem,
    shown,
    type_problem,
)

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
    {
        "Pod",
        "PodDisruptionBudget",
        "DaemonSet",
        "ConfigMap",
        "MachineDeployment",
        "MachineSet",
        "Service",
        "ReplicationController",
        "ReplicaSet",
        "StatefulSet",
    }
)
BUILTIN_PRIORITY = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}

# ------------------------------------------------------------------------- validation primitives


class _Invalid(Exception):
    """Stops the check of one field; its problem is already in ``Ctx.errors``."""


_CHECKED = contextlib.suppress(_Invalid)
"""``with _CHECKED:`` around a check whose failure must not stop the checks after it."""


def _position(data: Any, path: Path) -> tuple[int, ...]:
    """Where the field at ``path`` is in ``data``, as the indices of its keys and items in
    order: sorting by it sorts fields as they are written (an absent field after its siblings)."""
    out = []
    for step in path:
        if isinstance(data, dict):
            keys = list(data)
            out.append(keys.index(step) if step in data else len(keys))
            data = data.get(step)
        elif isinstance(data, list) and isinstance(step, int) and 0 <= step < len(data):
            out.append(step)
            data = data[step]
        else:
            break
    return tuple(out)


class Ctx:
    """Where an object came from, how to name it, and where its errors and warnings go.

    Problems are kept per object until ``flush`` moves them to ``errors`` in line order."""

    def __init__(self, doc: Doc, kind: str, warnings: list[str], errors: list[ManifestError]):
        self.doc, self.kind, self.obj = doc, kind, kind
        self.warnings, self.errors = warnings, errors
        self._failed: set[Path] = set()
        self._found: list[tuple[tuple[int, ...], int, ManifestError]] = []

    @property
    def failed(self) -> bool:
        """Whether any problem of this object was reported."""
        return bool(self._failed)

    def report(self, path: Path, message: str) -> None:
        """Record the problem at ``path``, unless that field already has one."""
        if path in self._failed:
            return
        self._failed.add(path)
        where, rendered = self.doc.where(path), render_path(path)
        error = ManifestError(message, where=where, obj=self.obj, path=rendered)
        self._found.append((_position(self.doc.data, path), len(self._found), error))

    def flush(self) -> None:
        """Move the problems found so far to ``errors``, in the order of their fields in the
        object (as written, so in the order of their lines)."""
        self.errors.extend(error for _, _, error in sorted(self._found, key=lambda f: f[:2]))
        self._found.clear()

    def fail(self, path: Path, message: str) -> NoReturn:
        """Record the problem at ``path`` and stop checking that field."""
        self.report(path, message)
        raise _Invalid

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


_EXACT = {"string": str, "integer": int, "boolean": bool, "list": list, "mapping": dict}


def _typed(ctx: Ctx, data: Any, path: Path, type_name: str) -> Any:
    if type(data) is not _EXACT[type_name] and (problem := type_problem(data, type_name)):
        ctx.fail(path, problem)
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


_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"

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
        with _CHECKED:
            label_path = (*path, key, label)
            if problem := label_key_problem(label):
                ctx.fail(label_path, problem)
            if problem := label_value_type_problem(data):
                ctx.fail(label_path, problem)
            if problem := label_value_problem(data):
                ctx.fail(label_path, problem)


def _string_map(ctx: Ctx, parent: dict[str, Any], path: Path, key: str) -> None:
    """annotations: any keys to string values."""
    for name, data in (_opt(ctx, parent, path, key, "mapping") or {}).items():
        with _CHECKED:
            _typed(ctx, data, (*path, key, name), "string")


# -------------------------------------------------------------------------------- selectors

_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_REQUIRED_NODE = "kube-scheduler treats the term as matching no node"
_PREFERRED_NODE = "kube-scheduler's NodeAffinity PreScore fails with an error for this pod"
_POD_AFFINITY_THEN = (
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
    with _CHECKED:
        for label, data in (_opt(ctx, selector, path, "matchLabels", "mapping") or {}).items():
            with _CHECKED:
                label_path = (*path, "matchLabels", label)
                _typed(ctx, data, label_path, "string")
                problems = [p for p in (label_key_problem(label), label_value_problem(data)) if p]
                if problems:
                    ctx.warn(label_path, "; ".join(problems), then)
    for req, req_path in _items(ctx, selector, path, "matchExpressions"):
        with _CHECKED:
            problem = _requirement_problems(*_requirement(ctx, req, req_path), _LABEL_OPERATORS)
            if problem:
                ctx.warn(req_path, problem, then)


def _node_selector_term(ctx: Ctx, term: Any, path: Path, then: str) -> None:
    term = _typed(ctx, term, path, "mapping")
    with _CHECKED:
        for req, req_path in _items(ctx, term, path, "matchExpressions"):
            with _CHECKED:
                problem = _requirement_problems(*_requirement(ctx, req, req_path), _NODE_OPERATORS)
                if problem:
                    ctx.warn(req_path, problem, then)
    for req, req_path in _items(ctx, term, path, "matchFields"):
        with _CHECKED:
            _match_field(ctx, req, req_path, then)


def _match_field(ctx: Ctx, req: Any, path: Path, then: str) -> None:
    key, op, values = _requirement(ctx, req, path)
    if op not in ("In", "NotIn"):
        problem = f"unknown matchFields operator {json.dumps(op)} (supported: In, NotIn)"
        ctx.warn(path, problem, then)
    elif len(values) != 1:
        problem = f"matchFields operator {json.dumps(op)} needs exactly one value"
        ctx.warn(path, f"{problem}, got {json.dumps(values)}", then)
    elif key != "metadata.name":
        ctx.warn(path, f'matchFields key {json.dumps(key)} is not "metadata.name"', _FIELD_KEY)


# ---------------------------------------------------------------------- affinity and spreading


def _weighted(
    ctx: Ctx, parent: dict[str, Any], path: Path, term_key: str
) -> Iterator[tuple[Any, Path]]:
    """Each preferred term's inner ``term_key`` and its path, after checking the weight; a term
    whose weight or inner term is wrong is reported and skipped."""
    for pref, pref_path in _items(ctx, parent, path, _PREFERRED):
        term = None
        with _CHECKED:
            pref = _typed(ctx, pref, pref_path, "mapping")
            with _CHECKED:
                _req(ctx, pref, pref_path, "weight", "integer")
                _int_range(ctx, pref, pref_path, "weight", 1, 100)
            term = _req(ctx, pref, pref_path, term_key, "mapping")
        if isinstance(pref, dict) and isinstance(term, dict):
            yield term, (*pref_path, term_key)


def _affinity(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    affinity = _opt(ctx, spec, path, "affinity", "mapping")
    if affinity is None:
        return
    path = (*path, "affinity")
    with _CHECKED:
        node_affinity = _opt(ctx, affinity, path, "nodeAffinity", "mapping")
        if node_affinity is not None:
            _node_affinity(ctx, node_affinity, (*path, "nodeAffinity"))
    for key in ("podAffinity", "podAntiAffinity"):
        with _CHECKED:
            pod_affinity = _opt(ctx, affinity, path, key, "mapping")
            if pod_affinity is not None:
                _pod_affinity(ctx, pod_affinity, (*path, key))


def _node_affinity(ctx: Ctx, node_affinity: dict[str, Any], path: Path) -> None:
    with _CHECKED:
        required = _opt(ctx, node_affinity, path, _REQUIRED, "mapping")
        if required is not None:
            req_path = (*path, _REQUIRED)
            if not _req(ctx, required, req_path, "nodeSelectorTerms", "list"):
                ctx.fail((*req_path, "nodeSelectorTerms"), "must have at least one term")
            for term, term_path in _items(ctx, required, req_path, "nodeSelectorTerms"):
                with _CHECKED:
                    _node_selector_term(ctx, term, term_path, _REQUIRED_NODE)
    for term, term_path in _weighted(ctx, node_affinity, path, "preference"):
        with _CHECKED:
            _node_selector_term(ctx, term, term_path, _PREFERRED_NODE)


def _pod_affinity(ctx: Ctx, pod_affinity: dict[str, Any], path: Path) -> None:
    with _CHECKED:
        for term, term_path in _items(ctx, pod_affinity, path, _REQUIRED):
            with _CHECKED:
                _pod_affinity_term(ctx, term, term_path)
    for term, term_path in _weighted(ctx, pod_affinity, path, "podAffinityTerm"):
        with _CHECKED:
            _pod_affinity_term(ctx, term, term_path)


def _topology_key(ctx: Ctx, parent: dict[str, Any], path: Path) -> None:
    key = _req(ctx, parent, path, "topologyKey", "string")
    if not key:
        ctx.fail((*path, "topologyKey"), "must not be empty")
    if problem := label_key_problem(key):
        ctx.fail((*path, "topologyKey"), problem)


def _pod_affinity_term(ctx: Ctx, term: Any, path: Path) -> None:
    term = _typed(ctx, term, path, "mapping")
    with _CHECKED:
        _topology_key(ctx, term, path)
    for key in ("labelSelector", "namespaceSelector"):
        with _CHECKED:
            _label_selector(ctx, term, path, key, _POD_AFFINITY_THEN)
    for key in ("namespaces", "matchLabelKeys", "mismatchLabelKeys"):
        with _CHECKED:
            _string_list(ctx, term, path, key)


def _spread_constraints(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    seen: dict[tuple[str, str], Path] = {}
    for c, c_path in _items(ctx, spec, path, "topologySpreadConstraints"):
        with _CHECKED:
            _spread_constraint(ctx, _typed(ctx, c, c_path, "mapping"), c_path, seen)


def _spread_constraint(
    ctx: Ctx, c: dict[str, Any], path: Path, seen: dict[tuple[str, str], Path]
) -> None:
    with _CHECKED:
        _req(ctx, c, path, "maxSkew", "integer")
        _int_range(ctx, c, path, "maxSkew", 1)
        _int32(ctx, c, path, "maxSkew")
    with _CHECKED:  # not checked as a label key: the API server takes any (not so affinity's)
        if not _req(ctx, c, path, "topologyKey", "string"):
            ctx.fail((*path, "topologyKey"), "must not be empty")
    with _CHECKED:
        _req(ctx, c, path, "whenUnsatisfiable", "string")
        _enum(ctx, c, path, "whenUnsatisfiable", ("DoNotSchedule", "ScheduleAnyway"))
    when = c.get("whenUnsatisfiable")
    with _CHECKED:
        _int32(ctx, c, path, "minDomains")
        if _int_range(ctx, c, path, "minDomains", 1) is not None and when != "DoNotSchedule":
            ctx.fail((*path, "minDomains"), 'may only be set with "DoNotSchedule"')
    for key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        with _CHECKED:
            _enum(ctx, c, path, key, ("Honor", "Ignore"))
    with _CHECKED:
        _label_selector(ctx, c, path, "labelSelector", _SPREAD)
    with _CHECKED:
        _string_list(ctx, c, path, "matchLabelKeys")
    topology_key = c.get("topologyKey")
    if not (isinstance(topology_key, str) and topology_key and isinstance(when, str)):
        return
    pair = (topology_key, when)
    if pair in seen:
        ctx.fail(path, f"duplicate topologyKey and whenUnsatisfiable of {render_path(seen[pair])}")
    seen[pair] = path


# ------------------------------------------------------------------------------------------ Pod

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")


def _quantities(ctx: Ctx, parent: dict[str, Any], path: Path, key: str) -> dict[str, Fraction]:
    """The valid quantities of the resource list ``parent[key]``; the others are reported."""
    out = {}
    for name, data in (_opt(ctx, parent, path, key, "mapping") or {}).items():
        if problem := quantity_problem(data):
            ctx.report((*path, key, name), problem)
        else:
            out[name] = parse_quantity(data)
    return out


def _resources(ctx: Ctx, parent: dict[str, Any], path: Path) -> None:
    resources = _opt(ctx, parent, path, "resources", "mapping")
    if resources is None:
        return
    path = (*path, "resources")
    requests = _quantities(ctx, resources, path, "requests")
    limits = _quantities(ctx, resources, path, "limits")
    for name, request in requests.items():
        if name in limits and request > limits[name]:
            limit = shown(resources["limits"][name])
            message = f"{shown(resources['requests'][name])} must be less than or equal to"
            ctx.report((*path, "requests", name), f"{message} {name} limit of {limit}")


def _containers(ctx: Ctx, spec: dict[str, Any], spec_path: Path) -> None:
    with _CHECKED:
        if not _req(ctx, spec, spec_path, "containers", "list"):
            ctx.fail((*spec_path, "containers"), "must contain at least one container")
    names: dict[str, Path] = {}
    for key in ("containers", "initContainers"):
        with _CHECKED:
            for container, path in _items(ctx, spec, spec_path, key):
                with _CHECKED:
                    container = _typed(ctx, container, path, "mapping")
                    _container(ctx, container, path, names, init=key == "initContainers")


def _container(
    ctx: Ctx, container: dict[str, Any], path: Path, names: dict[str, Path], *, init: bool
) -> None:
    with _CHECKED:
        name = _req(ctx, container, path, "name", "string")
        if problem := _dns_label_problem(name):
            ctx.fail((*path, "name"), problem)
        if name in names:
            ctx.fail((*path, "name"), f"duplicate container name {json.dumps(name)}")
        names[name] = path
    with _CHECKED:
        _req(ctx, container, path, "image", "string")
    with _CHECKED:
        _resources(ctx, container, path)
    with _CHECKED:
        for port, port_path in _items(ctx, container, path, "ports"):
            with _CHECKED:
                _port(ctx, _typed(ctx, port, port_path, "mapping"), port_path)
    with _CHECKED:
        restart = _opt(ctx, container, path, "restartPolicy", "string")
        if restart is not None and not init:
            ctx.fail((*path, "restartPolicy"), "may only be set on initContainers")
        _enum(ctx, container, path, "restartPolicy", ("Always",))


def _port(ctx: Ctx, port: dict[str, Any], path: Path) -> None:
    with _CHECKED:
        _req(ctx, port, path, "containerPort", "integer")
        _int_range(ctx, port, path, "containerPort", 1, 65535)
    with _CHECKED:
        _int_range(ctx, port, path, "hostPort", 0, 65535)
    _enum(ctx, port, path, "protocol", ("TCP", "UDP", "SCTP"))


def _tolerations(ctx: Ctx, spec: dict[str, Any], spec_path: Path) -> None:
    for t, path in _items(ctx, spec, spec_path, "tolerations"):
        with _CHECKED:
            _toleration(ctx, _typed(ctx, t, path, "mapping"), path)


def _toleration(ctx: Ctx, t: dict[str, Any], path: Path) -> None:
    # types first: the rules below compare the values
    key = _opt(ctx, t, path, "key", "string") or ""
    op = _enum(ctx, t, path, "operator", ("", "Equal", "Exists")) or ""
    data = _opt(ctx, t, path, "value", "string") or ""
    effect = _enum(ctx, t, path, "effect", ("", *_EFFECTS)) or ""
    seconds = _opt(ctx, t, path, "tolerationSeconds", "integer")
    with _CHECKED:
        if key and (problem := label_key_problem(key)):
            ctx.fail((*path, "key"), problem)
    with _CHECKED:
        if not key and op != "Exists":
            ctx.fail((*path, "operator"), 'must be "Exists" when key is empty')
    with _CHECKED:
        if op == "Exists" and data:
            ctx.fail((*path, "value"), 'must be empty when operator is "Exists"')
        if op != "Exists" and (problem := label_value_problem(data)):
            ctx.fail((*path, "value"), problem)
    if seconds is not None and effect != "NoExecute":
        ctx.fail((*path, "effect"), 'must be "NoExecute" when tolerationSeconds is set')


def _validate_pod(ctx: Ctx, pod: dict[str, Any]) -> None:
    with _CHECKED:
        spec = _req(ctx, pod, (), "spec", "mapping")
        _validate_pod_spec(ctx, spec, ("spec",))
        _images(ctx, spec)
        if spec.get("nodeName") and spec.get("schedulingGates"):
            message = "cannot be set until all schedulingGates have been cleared"
            ctx.fail(("spec", "nodeName"), message)
    status = _opt(ctx, pod, (), "status", "mapping") or {}
    with _CHECKED:
        _enum(ctx, status, ("status",), "phase", _POD_PHASES)
    with _CHECKED:
        _node_name(ctx, status, ("status",), "nominatedNodeName")


def _images(ctx: Ctx, spec: dict[str, Any]) -> None:
    """A pod's images (a template's may be empty): set, without surrounding spaces."""
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        for i, container in enumerate(containers if isinstance(containers, list) else ()):
            image = container.get("image") if isinstance(container, dict) else None
            if isinstance(image, str) and (not image or image != image.strip()):
                problem = "must not have leading or trailing whitespace" if image else "is required"
                ctx.report(("spec", key, i, "image"), problem)


def _node_name(ctx: Ctx, parent: dict[str, Any], path: Path, key: str) -> None:
    name = _opt(ctx, parent, path, key, "string")
    if name and (problem := _dns_subdomain_problem(name)):
        ctx.fail((*path, key), problem)


def _host_ports(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    """Host ports as the API server checks them, after its defaulting (under hostNetwork an
    unset hostPort is the containerPort): a container's hostPort under hostNetwork must be its
    containerPort, and no protocol/hostIP/hostPort twice among the containers, nor within one
    init container."""
    host_network = spec.get("hostNetwork") is True
    groups: list[list[tuple[str, int, Any]]] = []
    for key in ("containers", "initContainers"):
        items = spec.get(key)
        found = [(key, i, c) for i, c in enumerate(items if isinstance(items, list) else ())]
        groups += [found] if key == "containers" else [[item] for item in found]
    for group in groups:
        seen: set[str] = set()
        for key, i, container in group:
            ports = container.get("ports") if isinstance(container, dict) else None
            for j, port in enumerate(ports if isinstance(ports, list) else ()):
                if not isinstance(port, dict):
                    continue
                host, target = port.get("hostPort"), port.get("containerPort")
                if not (isinstance(host, int) and host) and host_network:
                    host = target
                if isinstance(host, bool) or not isinstance(host, int) or not host:
                    continue
                port_path = (*path, key, i, "ports", j, "hostPort")
                if host_network and key == "containers" and host != target:
                    ctx.report(
                        port_path, f"{host} must match containerPort when hostNetwork is true"
                    )
                triple = f"{port.get('protocol') or 'TCP'}/{port.get('hostIP') or ''}/{host}"
                if triple in seen:
                    ctx.report(port_path, f"Duplicate value: {json.dumps(triple)}")
                seen.add(triple)


def _validate_pod_spec(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    """A PodSpec at ``path``: a Pod's ``spec`` or a DaemonSet's ``spec.template.spec``."""
    checks: tuple[Callable[[Ctx, dict[str, Any], Path], object], ...] = (
        _containers,
        _host_ports,
        lambda ctx, spec, path: _node_name(ctx, spec, path, "nodeName"),
        lambda ctx, spec, path: _label_map(ctx, spec, path, "nodeSelector"),
        lambda ctx, spec, path: _int32(ctx, spec, path, "priority"),
        lambda ctx, spec, path: _enum(ctx, spec, path, "preemptionPolicy", _PREEMPTION_POLICIES),
        lambda ctx, spec, path: _quantities(ctx, spec, path, "overhead"),
        _resources,
        _tolerations,
        _affinity,
        _spread_constraints,
        _scheduling_gates,
        _volumes,
        lambda ctx, spec, path: _int_range(ctx, spec, path, "terminationGracePeriodSeconds", 0),
    )
    for check in checks:
        with _CHECKED:
            check(ctx, spec, path)


def _scheduling_gates(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    names: set[str] = set()
    for gate, gate_path in _items(ctx, spec, path, "schedulingGates"):
        with _CHECKED:
            name = _req(ctx, _typed(ctx, gate, gate_path, "mapping"), gate_path, "name", "string")
            if problem := label_key_problem(name):  # a qualified name, as a label key is
                ctx.fail((*gate_path, "name"), problem.replace("label key", "gate name"))
            if name in names:
                ctx.fail((*gate_path, "name"), f"Duplicate value: {json.dumps(name)}")
            names.add(name)


def _volumes(ctx: Ctx, spec: dict[str, Any], path: Path) -> None:
    names: set[str] = set()
    for volume, volume_path in _items(ctx, spec, path, "volumes"):
        with _CHECKED:
            volume = _typed(ctx, volume, volume_path, "mapping")
            name = _req(ctx, volume, volume_path, "name", "string")
            if problem := _dns_label_problem(name):
                ctx.fail((*volume_path, "name"), problem)
            if name in names:
                ctx.fail((*volume_path, "name"), f"Duplicate value: {json.dumps(name)}")
            names.add(name)


# ------------------------------------------------------------------------- the other kinds


def _validate_node(ctx: Ctx, node: dict[str, Any]) -> None:
    spec = _opt(ctx, node, (), "spec", "mapping") or {}
    with _CHECKED:
        _opt(ctx, spec, ("spec",), "unschedulable", "boolean")
    seen: set[tuple[str, str]] = set()
    with _CHECKED:
        for taint, path in _items(ctx, spec, ("spec",), "taints"):
            with _CHECKED:
                _taint(ctx, _typed(ctx, taint, path, "mapping"), path, seen)
    status = _opt(ctx, node, (), "status", "mapping") or {}
    for key in ("capacity", "allocatable"):
        with _CHECKED:
            _quantities(ctx, status, ("status",), key)
    with _CHECKED:
        for image, path in _items(ctx, status, ("status",), "images"):
            with _CHECKED:
                image = _typed(ctx, image, path, "mapping")
                with _CHECKED:
                    _string_list(ctx, image, path, "names")
                _int_range(ctx, image, path, "sizeBytes", 0)


def _taint(ctx: Ctx, taint: dict[str, Any], path: Path, seen: set[tuple[str, str]]) -> None:
    with _CHECKED:
        if problem := label_key_problem(_req(ctx, taint, path, "key", "string")):
            ctx.fail((*path, "key"), problem)
    with _CHECKED:
        if problem := label_value_problem(_opt(ctx, taint, path, "value", "string") or ""):
            ctx.fail((*path, "value"), problem)
    _req(ctx, taint, path, "effect", "string")
    key, effect = taint.get("key"), _enum(ctx, taint, path, "effect", _EFFECTS)
    if not isinstance(key, str):
        return
    pair = (key, effect)
    if pair in seen:
        ctx.fail(path, f"duplicate taint with key {json.dumps(pair[0])} and effect {pair[1]}")
    seen.add(pair)


_PERCENT = re.compile(r"[0-9]+%")


def _validate_pdb(ctx: Ctx, pdb: dict[str, Any]) -> None:
    spec = _opt(ctx, pdb, (), "spec", "mapping") or {}
    with _CHECKED:
        _label_selector(ctx, spec, ("spec",), "selector", _PDB_SELECTOR)
    for key in ("minAvailable", "maxUnavailable"):
        with _CHECKED:
            _int_or_percent(ctx, spec, key)
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        ctx.report(("spec", "maxUnavailable"), "minAvailable and maxUnavailable cannot both be set")
    status = _opt(ctx, pdb, (), "status", "mapping") or {}
    for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        with _CHECKED:
            _int_range(ctx, status, ("status",), key, 0)
            _int32(ctx, status, ("status",), key)


def _int_or_percent(ctx: Ctx, spec: dict[str, Any], key: str) -> None:
    data = spec.get(key)
    if isinstance(data, str) and _PERCENT.fullmatch(data):
        if int(data[:-1]) > 100:
            ctx.fail(("spec", key), f"must not be greater than 100%, got {data}")
    elif data is not None and not isinstance(data, str):
        _int_range(ctx, spec, ("spec",), key, 0)
        _int32(ctx, spec, ("spec",), key)
    elif data is not None:
        ctx.fail(("spec", key), f'must be an integer or a percentage "N%", got {describe(data)}')


def _validate_priority_class(ctx: Ctx, pc: dict[str, Any]) -> None:
    with _CHECKED:
        _req(ctx, pc, (), "value", "integer")
        _int32(ctx, pc, (), "value")
        meta = pc.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        builtin = BUILTIN_PRIORITY.get(name) if isinstance(name, str) else None
        if builtin is not None and pc["value"] != builtin:
            ctx.fail(("value",), f"must be {builtin}, the value of this built-in PriorityClass")
    with _CHECKED:
        _opt(ctx, pc, (), "globalDefault", "boolean")
    with _CHECKED:
        _enum(ctx, pc, (), "preemptionPolicy", _PREEMPTION_POLICIES)
    _opt(ctx, pc, (), "description", "string")


def _validate_daemonset(ctx: Ctx, ds: dict[str, Any]) -> None:
    spec = _req(ctx, ds, (), "spec", "mapping")
    with _CHECKED:
        _opt(ctx, spec, ("spec",), "selector", "mapping")
    template = _req(ctx, spec, ("spec",), "template", "mapping")
    path: Path = ("spec", "template")
    with _CHECKED:
        meta = _opt(ctx, template, path, "metadata", "mapping") or {}
        with _CHECKED:
            _label_map(ctx, meta, (*path, "metadata"), "labels")
        _string_map(ctx, meta, (*path, "metadata"), "annotations")
    _validate_pod_spec(ctx, _req(ctx, template, path, "spec", "mapping"), (*path, "spec"))


_CONFIG_MAP_KEY = re.compile(r"[-._a-zA-Z0-9]+")


def _validate_config_map(ctx: Ctx, cm: dict[str, Any]) -> None:
    for key in ("data", "binaryData"):
        with _CHECKED:
            for name, data in (_opt(ctx, cm, (), key, "mapping") or {}).items():
                with _CHECKED:
                    if len(name) > 253 or not _CONFIG_MAP_KEY.fullmatch(name):
                        problem = "must consist of at most 253 alphanumerics, '-', '_' or '.'"
                        ctx.fail((key, name), f"invalid key {json.dumps(name)}: {problem}")
                    _typed(ctx, data, (key, name), "string")
    _opt(ctx, cm, (), "immutable", "boolean")


def _validate_machine_set(ctx: Ctx, obj: dict[str, Any]) -> None:
    """MachineDeployment and MachineSet: what the autoscaler reads (annotations are strings)."""
    spec = _opt(ctx, obj, (), "spec", "mapping") or {}
    with _CHECKED:
        _int_range(ctx, spec, ("spec",), "replicas", 0, 2**31 - 1)
    for key in ("clusterName", "selector", "template"):
        with _CHECKED:
            _opt(ctx, spec, ("spec",), key, "string" if key == "clusterName" else "mapping")


# ------------------------------- what selects a pod (PodTopologySpread's default constraints)
# pkg/apis/core/validation ValidateService / ValidateReplicationController, and
# pkg/apis/apps/validation ValidateReplicaSet / ValidateStatefulSet: the fields kube-scheduler's
# DefaultSelector reads.

_NOT_TEMPLATE = "`selector` does not match template `labels`"
_TEMPLATE_LABELS: Path = ("spec", "template", "metadata", "labels")


def _validate_service(ctx: Ctx, svc: dict[str, Any]) -> None:
    spec = _opt(ctx, svc, (), "spec", "mapping") or {}
    _label_map(ctx, spec, ("spec",), "selector")


def _template_labels(ctx: Ctx, spec: dict[str, Any]) -> dict[str, Any] | None:
    """``spec.template.metadata.labels`` (checked as labels), None without a template."""
    template = _opt(ctx, spec, ("spec",), "template", "mapping")
    if template is None:
        return None
    path: Path = ("spec", "template")
    meta = _opt(ctx, template, path, "metadata", "mapping") or {}
    _label_map(ctx, meta, (*path, "metadata"), "labels")
    labels: dict[str, Any] = meta.get("labels") or {}
    return labels


def _validate_replication_controller(ctx: Ctx, rc: dict[str, Any]) -> None:
    """An empty ``spec.selector`` is the template's labels (the API server's defaulting,
    ``SetDefaults_ReplicationController``; the loader fills it in)."""
    spec = _opt(ctx, rc, (), "spec", "mapping") or {}
    with _CHECKED:
        _int_range(ctx, spec, ("spec",), "replicas", 0, 2**31 - 1)
    _label_map(ctx, spec, ("spec",), "selector")
    labels = _template_labels(ctx, spec)
    selector: dict[str, Any] = spec.get("selector") or labels or {}
    if not selector:
        ctx.fail(("spec", "selector"), "Required value")
    if labels is not None and any(labels.get(k) != v for k, v in selector.items()):
        ctx.fail(
            ("spec", "template", "metadata", "labels"),
            "`selector` does not match template `labels`",
        )


def _validate_workload(ctx: Ctx, obj: dict[str, Any]) -> None:
    """apps/v1 ReplicaSet and StatefulSet: a required, non-empty label selector that selects the
    template's labels."""
    spec = _req(ctx, obj, (), "spec", "mapping")
    with _CHECKED:
        _int_range(ctx, spec, ("spec",), "replicas", 0, 2**31 - 1)
    selector = _req(ctx, spec, ("spec",), "selector", "mapping")
    path: Path = ("spec", "selector")
    labels_in = _opt(ctx, selector, path, "matchLabels", "mapping") or {}
    exprs = [_requirement(ctx, r, rp) for r, rp in _items(ctx, selector, path, "matchExpressions")]
    if not labels_in and not exprs:
        workload = "statefulset" if ctx.kind == "StatefulSet" else "deployment"
        ctx.fail(path, f"empty selector is invalid for {workload}")
    for label, data in labels_in.items():
        with _CHECKED:
            _typed(ctx, data, (*path, "matchLabels", label), "string")
            problems = [p for p in (label_key_problem(label), label_value_problem(data)) if p]
            if problems:
                ctx.fail((*path, "matchLabels", label), "; ".join(problems))
    for i, req in enumerate(exprs):
        if problem := _requirement_problems(*req, _LABEL_OPERATORS):
            ctx.fail((*path, "matchExpressions", i), problem)
    labels = _template_labels(ctx, spec)
    if labels is not None and not _selects(labels_in, exprs, labels):
        ctx.fail(
            ("spec", "template", "metadata", "labels"),
            "`selector` does not match template `labels`",
        )


def _selects(
    match_labels: dict[str, Any], exprs: list[tuple[str, str, list[str]]], labels: dict[str, Any]
) -> bool:
    """A valid label selector (``metav1.LabelSelectorAsSelector``) on ``labels``."""
    if any(labels.get(k) != v for k, v in match_labels.items()):
        return False
    for key, op, values in exprs:
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if (op == "Exists") != present and op in ("Exists", "DoesNotExist"):
            return False
    return True


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
    "Service": _Kind(("v1",), _validate_service),
    "ReplicationController": _Kind(("v1",), _validate_replication_controller),
    "ReplicaSet": _Kind(("apps/v1",), _validate_workload),
    "StatefulSet": _Kind(("apps/v1",), _validate_workload),
}
_SUPPORTED = ", ".join(
    [*(f"{' or '.join(k.api_versions)} {name}" for name, k in KINDS.items()), "v1 List"]
)


# -------------------------------------------------------------------- apiVersion, kind and metadata


def _header(ctx: Ctx, data: dict[str, Any]) -> str:
    """The object's kind, after checking apiVersion and kind."""
    api_version = _req(ctx, data, (), "apiVersion", "string")
    kind: str = _req(ctx, data, (), "kind", "string")
    if kind not in KINDS:
        ctx.fail(("kind",), f"unsupported kind {json.dumps(kind)}; supported: {_SUPPORTED}")
    if api_version not in KINDS[kind].api_versions:
        expected = " or ".join(json.dumps(v) for v in KINDS[kind].api_versions)
        message = (
            f"unsupported apiVersion {json.dumps(api_version)} for {kind}; expected {expected}"
        )
        ctx.fail(("apiVersion",), message)
    return kind


def _identity(ctx: Ctx, obj: dict[str, Any]) -> None:
    """Check metadata's name and namespace and name the object in ``ctx`` (``Pod default/web-0``)
    when both are valid."""
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


def _metadata(ctx: Ctx, meta: dict[str, Any]) -> None:
    path: Path = ("metadata",)
    with _CHECKED:
        _label_map(ctx, meta, path, "labels")
    with _CHECKED:
        _string_map(ctx, meta, path, "annotations")
    controllers = 0
    for ref, ref_path in _items(ctx, meta, path, "ownerReferences"):
        with _CHECKED:
            ref = _typed(ctx, ref, ref_path, "mapping")
            for key in ("kind", "name"):
                with _CHECKED:
                    _req(ctx, ref, ref_path, key, "string")
            if ref.get("controller") is True:
                controllers += 1
                if controllers > 1:
                    ctx.fail(
                        (*ref_path, "controller"),
                        "Only one reference can have Controller set to true",
                    )


def validate_object(doc: Doc, warnings: list[str], errors: list[ManifestError]) -> Ctx:
    """The context of the object ``doc`` (``Ctx.kind`` is "" when apiVersion or kind is wrong),
    after appending every problem of it to ``errors`` and its warnings to ``warnings``."""
    ctx = Ctx(doc, "", warnings, errors)
    with _CHECKED:
        ctx.kind = ctx.obj = _header(ctx, doc.data)
    if not ctx.kind:
        ctx.flush()
        return ctx
    data = doc.data
    if ctx.kind != "KubeSchedulerConfiguration":
        with _CHECKED:
            _identity(ctx, data)
    conform(data, SHAPES[ctx.kind], (), ctx.report)
    with _CHECKED:
        if ctx.kind != "KubeSchedulerConfiguration":
            _metadata(ctx, _typed(ctx, data.get("metadata"), ("metadata",), "mapping"))
    with _CHECKED:
        KINDS[ctx.kind].validate(ctx, data)
    ctx.flush()
    return ctx
