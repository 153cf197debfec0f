"""Kubernetes manifests → validated, defaulted objects.

``load(*paths)`` / ``loads(text)`` read multi-document YAML, ``kind: List`` (and ``PodList``-style
``*List`` kinds, as ``kubectl get -o yaml`` prints them) or JSON (one value or a stream of them;
JSON that YAML cannot read, e.g. tab-indented, is read as JSON). They return a frozen ``Cluster``
of plain dicts in Kubernetes JSON shape (camelCase), deep-copied from the input; callers treat
them as read-only. Bad input raises ONE ``ManifestError`` naming the place (``file:line``), the
object (``Pod default/web-0``) and the field path (``spec.containers[1].resources.requests.cpu``);
nothing is half-loaded and no Python traceback escapes for any input.

Supported objects: v1 Node, v1 Pod, v1 Namespace, policy/v1 PodDisruptionBudget,
scheduling.k8s.io/v1 PriorityClass, kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration (at
most one, kept as a dict; only apiVersion/kind are checked) and v1 List. Empty documents are
skipped. Items of a typed list (``PodList``) may omit apiVersion/kind.

What load fills in (the API server's defaulting and admission; everything else absent stays
absent, consumers default it; ``null`` fields are dropped, as Go reads them as absent):

======================================  ========================================================
field                                   filled with
======================================  ========================================================
Pod/PDB ``metadata.namespace``          ``"default"`` (dropped on cluster-scoped kinds)
any ``metadata.uid``                    uuid5 of ``kind/namespace/name`` when absent
Pod ``spec.schedulerName``              ``"default-scheduler"``
Pod ``status.phase``                    ``"Pending"``
Pod ``…ports[].protocol``               ``"TCP"`` (containers and initContainers)
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
======================================  ========================================================

The built-in classes ``system-cluster-critical`` (2000000000) and ``system-node-critical``
(2000001000) always exist; they are not added to ``Cluster.priority_classes``. Keeping a pod's own
``priority``/``preemptionPolicy`` when it names no class is more lenient than the real admission
plugin, so clusters written by ``find`` need no PriorityClass objects.

What load rejects (a ``ManifestError``):

- input: unreadable file, invalid YAML/JSON (``file:line:col: invalid YAML: …``), non-string or
  duplicate mapping keys, a document that is not a mapping, an unknown kind or apiVersion;
- every object: ``metadata.name`` missing or not a DNS-1123 subdomain (Namespace: label), a
  namespace that is not a DNS-1123 label, a duplicate kind+namespace+name, ``labels`` whose keys
  are not label keys or whose values are not strings / not label values;
- Pod: ``spec.containers`` missing or empty; a container or initContainer without a DNS-label
  ``name`` (unique across both lists) or a string ``image``; an invalid or negative quantity in
  ``resources.requests/limits``, pod-level ``spec.resources`` or ``spec.overhead``; a request
  above its limit; ``containerPort`` outside 1..65535, ``hostPort`` outside 0..65535, a protocol
  other than TCP/UDP/SCTP; ``restartPolicy`` other than ``Always`` on an initContainer (or any on
  a container); ``nodeSelector`` as for labels; tolerations (operator ``""``/Equal/Exists, effect
  ``""``/NoSchedule/PreferNoSchedule/NoExecute, an empty key needs Exists, Exists needs an empty
  value, ``tolerationSeconds`` needs NoExecute); the STRUCTURE of affinity and topology spread
  (wrong types, missing or empty ``topologyKey``, empty ``nodeSelectorTerms``, weights outside
  1..100, ``whenUnsatisfiable``, ``maxSkew`` < 1, ``minDomains`` < 1 or with ScheduleAnyway,
  ``nodeAffinityPolicy``/``nodeTaintsPolicy`` not Honor/Ignore, duplicate constraints); a
  ``priorityClassName`` naming no class; a ``priority``/``preemptionPolicy`` that differs from the
  named class; ``status.phase`` not a pod phase;
- Node: ``spec.unschedulable`` not a bool; taints (key a label key, value a label value, effect
  required, no duplicate key+effect); ``status.capacity``/``allocatable`` quantities;
  ``status.images`` not a list of ``{names: [str], sizeBytes: int}``;
- PodDisruptionBudget: ``spec.selector`` structure; ``minAvailable``/``maxUnavailable`` not an
  int ≥ 0 or ``"N%"`` (N ≤ 100), or both set; ``status`` counters not ints ≥ 0;
- PriorityClass: ``value`` missing or not an int32; a second ``globalDefault: true``; a built-in
  name with a different value.

What load only WARNS about (``Cluster.warnings``; the object is kept): selector problems the API
server would reject but kube-scheduler has defined behaviour for — an unknown operator, In/NotIn
without values, Exists/DoesNotExist with values, Gt/Lt without exactly one integer value, invalid
label keys/values inside selectors, matchFields not ``metadata.name`` / In / NotIn with one value.
Each warning says what kube-scheduler then does.

Quantities are kept as written (string or number) and guaranteed valid: ``k8s.io/apimachinery``
``resource.Quantity`` syntax, see ``parse_quantity``. Deliberate differences from Go: a bare
suffix or sign (``Mi``, ``.``, ``-``), which Go reads as 0, is rejected as a typo; exponents
beyond ±1000 are rejected.
"""

from __future__ import annotations

import json
import math
import os
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path as FsPath
from typing import Any, NoReturn

import yaml

from schedspec.errors import ManifestError

__all__ = [
    "Cluster",
    "load",
    "loads",
    "milli_value",
    "object_key",
    "parse_quantity",
    "value",
]

Path = tuple[str | int, ...]

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


def _terminal(pod: dict[str, Any]) -> bool:
    return pod.get("status", {}).get("phase") in ("Succeeded", "Failed")


_NAMESPACED = frozenset({"Pod", "PodDisruptionBudget"})


def object_key(obj: dict[str, Any]) -> str:
    """``"ns/name"`` for namespaced kinds (Pod, PodDisruptionBudget), ``"name"`` otherwise."""
    meta = obj.get("metadata") or {}
    name = str(meta.get("name", ""))
    if obj.get("kind") in _NAMESPACED or ("kind" not in obj and meta.get("namespace")):
        return f"{meta.get('namespace') or 'default'}/{name}"
    return name


# ------------------------------------------------------------------------------------ quantities

_QUANTITY = re.compile(
    r"(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?"
    r"(?:(?P<bin>Ki|Mi|Gi|Ti|Pi|Ei)|[eE](?P<exp>[+-]?[0-9]+)|(?P<dec>[numkMGTPE]?))"
)
_BINARY_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_NANO = 10**9


def parse_quantity(q: str | int | float) -> Fraction:
    """The exact value of a ``resource.Quantity``; ValueError if ``q`` is not one.

    Syntax: optional sign, digits with optional fraction (``.5``, ``1.``), then a binary suffix
    (Ki Mi Gi Ti Pi Ei), a decimal suffix (n u m "" k M G T P E) or an exponent (``1e3``,
    ``5E-3``). Numbers count as written. Like Go, a non-zero magnitude below 1n rounds up to 1n.
    """
    if isinstance(q, bool) or not isinstance(q, str | int | float):
        raise ValueError(f"invalid quantity {q!r}")
    if isinstance(q, float) and not math.isfinite(q):
        raise ValueError(f"invalid quantity {q!r}")
    text = q if isinstance(q, str) else repr(q)
    m = _QUANTITY.fullmatch(text)
    if m is None or not (m["int"] or m["frac"]):
        raise ValueError(f"invalid quantity {text!r}")
    number = Fraction(f"{m['int'] or '0'}.{m['frac'] or '0'}") * _suffix_factor(m)
    nanos = math.ceil(number * _NANO)
    return Fraction(-nanos if m["sign"] == "-" else nanos, _NANO)


def _suffix_factor(m: re.Match[str]) -> Fraction:
    if m["bin"]:
        return Fraction(2 ** _BINARY_SUFFIX[m["bin"]])
    exponent = int(m["exp"]) if m["exp"] else _DECIMAL_SUFFIX[m["dec"]]
    if abs(exponent) > 1000:
        raise ValueError(f"quantity exponent out of range: {exponent}")
    return Fraction(10) ** exponent


def milli_value(q: str | int | float) -> int:
    """``ceil(q * 1000)``: Go's ``Quantity.MilliValue`` (rounds up)."""
    return math.ceil(parse_quantity(q) * 1000)


def value(q: str | int | float) -> int:
    """``ceil(q)``: Go's ``Quantity.Value`` (rounds up)."""
    return math.ceil(parse_quantity(q))


# --------------------------------------------------------------------------- documents and lines


@dataclass(frozen=True)
class _Doc:
    """One object (or document) with the line of every field path in its document."""

    data: Any
    source: str
    lines: Mapping[Path, int]
    prefix: Path = ()

    def where(self, path: Path = ()) -> str:
        full = self.prefix + path
        for end in range(len(full), -1, -1):
            line = self.lines.get(full[:end])
            if line is not None:
                return f"{self.source}:{line}"
        return self.source

    def child(self, data: Any, *steps: str | int) -> _Doc:
        return _Doc(data, self.source, self.lines, self.prefix + steps)


_MERGE_TAG = "tag:yaml.org,2002:merge"
_MAX_NODES = 1_000_000


class _Builder:
    """Plain data from a composed YAML node tree, recording each path's line (1-based)."""

    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader, self.source = loader, source
        self.active: set[int] = set()
        self.count = 0

    def fail(self, node: yaml.Node, message: str) -> NoReturn:
        raise ManifestError(message, where=f"{self.source}:{node.start_mark.line + 1}")

    def build(self, node: yaml.Node, path: Path, lines: dict[Path, int]) -> Any:
        lines.setdefault(path, node.start_mark.line + 1)
        self.count += 1
        if self.count > _MAX_NODES:
            self.fail(node, "document too large (alias expansion?)")
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if id(node) in self.active:
            self.fail(node, "recursive YAML alias")
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(n, (*path, i), lines) for i, n in enumerate(node.value)]
            assert isinstance(node, yaml.MappingNode)
            return self.mapping(node, path, lines)
        finally:
            self.active.discard(id(node))

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag == "tag:yaml.org,2002:timestamp":
            return node.value  # JSON has no timestamps; Go's YAML→JSON keeps the text
        data = self.loader.construct_object(node, deep=True)
        if data is not None and not isinstance(data, str | int | float):
            self.fail(node, f"unsupported YAML value of type {type(data).__name__}")
        return data

    def mapping(self, node: yaml.MappingNode, path: Path, lines: dict[Path, int]) -> Any:
        own = {id(k) for k, _ in node.value if k.tag != _MERGE_TAG}
        self.loader.flatten_mapping(node)
        out: dict[str, Any] = {}
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = self.key(key_node)
            if id(key_node) in own:
                if key in seen:
                    self.fail(key_node, f"duplicate mapping key {json.dumps(key)}")
                seen.add(key)
            lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = self.build(value_node, (*path, key), lines)
        return out

    def key(self, node: yaml.Node) -> str:
        data = self.scalar(node) if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(data, str):
            shown = json.dumps(data) if isinstance(node, yaml.ScalarNode) else "a collection"
            self.fail(node, f"mapping keys must be strings, got {shown}; quote it")
        return data


def _parse(text: str, source: str) -> list[_Doc]:
    try:
        return _parse_yaml(text, source)
    except yaml.YAMLError as err:
        if source.endswith(".json") or text.lstrip("\ufeff \t\r\n").startswith("{"):
            return _parse_json(text, source)
        raise _yaml_error(err, source) from None
    except RecursionError:
        raise ManifestError("invalid YAML: nesting too deep", where=source) from None


def _parse_yaml(text: str, source: str) -> list[_Doc]:
    loader = yaml.SafeLoader(text)
    try:
        docs = []
        while loader.check_node():
            node = loader.get_node()
            assert node is not None  # check_node() said there is one
            lines: dict[Path, int] = {}
            data = _Builder(loader, source).build(node, (), lines)
            docs.append(_Doc(data, source, lines))
        return docs
    finally:
        loader.dispose()


def _yaml_error(err: yaml.YAMLError, source: str) -> ManifestError:
    if isinstance(err, yaml.reader.ReaderError):
        return ManifestError(f"invalid YAML: {err.reason} #x{err.character:04x}", where=source)
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
    return ManifestError(f"invalid YAML: {problem}", where=where)


def _parse_json(text: str, source: str) -> list[_Doc]:
    """One JSON value, or several in a row (a JSON stream, as kubectl accepts)."""
    decoder = json.JSONDecoder(object_pairs_hook=_json_object)
    docs, pos, text = [], 0, text.removeprefix("\ufeff")
    try:
        while (pos := _skip_whitespace(text, pos)) < len(text):
            data, pos = decoder.raw_decode(text, pos)
            docs.append(_Doc(data, source, {}))
    except json.JSONDecodeError as err:
        where = f"{source}:{err.lineno}:{err.colno}"
        raise ManifestError(f"invalid JSON: {err.msg}", where=where) from None
    except (ValueError, RecursionError) as err:
        raise ManifestError(f"invalid JSON: {err}", where=source) from None
    return docs


def _skip_whitespace(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in pairs:
        if key in out:
            raise ValueError(f"duplicate key {json.dumps(key)}")
        out[key] = item
    return out


def _expand(doc: _Doc) -> Iterator[_Doc]:
    """The objects of one document: itself, or the items of a (typed) List."""
    data = doc.data
    if data is None:
        return
    if not isinstance(data, dict):
        raise ManifestError(
            f"a manifest must be a mapping, got {_describe(data)}", where=doc.where()
        )
    kind = data.get("kind")
    if not (isinstance(kind, str) and kind.endswith("List")):
        yield doc
        return
    items = data.get("items") or []
    if not isinstance(items, list):
        where = doc.where(("items",))
        raise ManifestError(f"must be a list, got {_describe(items)}", where=where, path="items")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            where, path = doc.where(("items", i)), f"items[{i}]"
            raise ManifestError(f"must be a mapping, got {_describe(item)}", where=where, path=path)
        if kind != "List" and "kind" not in item:
            item = {"apiVersion": data.get("apiVersion"), "kind": kind[:-4], **item}
        yield from _expand(doc.child(item, "items", i))


# ------------------------------------------------------------------------- validation primitives


class _Ctx:
    """Where an object came from, how to name it, and where its warnings go."""

    def __init__(self, doc: _Doc, kind: str, warnings: list[str]) -> None:
        self.doc, self.kind, self.obj, self.warnings = doc, kind, kind, warnings

    def fail(self, path: Path, message: str) -> NoReturn:
        raise ManifestError(message, where=self.doc.where(path), obj=self.obj, path=_render(path))

    def warn(self, path: Path, problem: str, consequence: str) -> None:
        noun = "pod" if self.kind == "Pod" else self.kind
        text = f"{problem}; the API server would reject this {noun}, and {consequence}"
        where, rendered = self.doc.where(path), _render(path)
        self.warnings.append(ManifestError(text, where=where, obj=self.obj, path=rendered).render())


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _render(path: Path) -> str:
    out = ""
    for step in path:
        if isinstance(step, int) or not _IDENTIFIER.fullmatch(step):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else step
    return out


def _describe(data: Any) -> str:
    if isinstance(data, dict):
        return "a mapping"
    if isinstance(data, list):
        return "a list"
    return json.dumps(data, ensure_ascii=False)


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "list": (list,),
    "mapping": (dict,),
}


def _typed(ctx: _Ctx, data: Any, path: Path, type_name: str) -> Any:
    wrong_int = type_name == "integer" and isinstance(data, bool)
    if wrong_int or not isinstance(data, _TYPES[type_name]):
        article = "an" if type_name[0] in "aeiou" else "a"
        ctx.fail(path, f"must be {article} {type_name}, got {_describe(data)}")
    return data


def _opt(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str, type_name: str) -> Any:
    """``parent[key]`` checked against ``type_name``; None when absent or null."""
    data = parent.get(key)
    return None if data is None else _typed(ctx, data, (*path, key), type_name)


def _req(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str, type_name: str) -> Any:
    if parent.get(key) is None:
        ctx.fail((*path, key), "is required")
    return _opt(ctx, parent, path, key, type_name)


def _items(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str) -> Iterator[tuple[Any, Path]]:
    """Each element of the optional list ``parent[key]`` with its path."""
    for i, item in enumerate(_opt(ctx, parent, path, key, "list") or []):
        yield item, (*path, key, i)


def _enum(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str, allowed: tuple[str, ...]) -> Any:
    data = _opt(ctx, parent, path, key, "string")
    if data is not None and data not in allowed:
        shown = ", ".join(json.dumps(a) for a in allowed if a)
        ctx.fail((*path, key), f"unsupported value {json.dumps(data)}: supported values: {shown}")
    return data


def _int_range(
    ctx: _Ctx, parent: dict[str, Any], path: Path, key: str, lo: int, hi: int | None = None
) -> int | None:
    data: int | None = _opt(ctx, parent, path, key, "integer")
    if data is not None and (data < lo or (hi is not None and data > hi)):
        bounds = f"at least {lo}" if hi is None else f"between {lo} and {hi}, inclusive"
        ctx.fail((*path, key), f"must be {bounds}, got {data}")
    return data


def _int32(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str) -> int | None:
    return _int_range(ctx, parent, path, key, -(2**31), 2**31 - 1)


def _string_list(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str) -> list[str]:
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


def _label_key_problem(key: str) -> str | None:
    parts = key.split("/")
    name = parts[-1]
    if len(parts) > 2 or (len(parts) == 2 and not parts[0]):
        return f"invalid label key {json.dumps(key)}: at most one '/' after a non-empty prefix"
    if len(parts) == 2 and _dns_subdomain_problem(parts[0]):
        return f"invalid label key {json.dumps(key)}: the prefix must be a DNS subdomain"
    if not name or len(name) > 63 or not _LABEL_NAME.fullmatch(name):
        return f"invalid label key {json.dumps(key)}: the name must be 1-63 {_LABEL_RULE}"
    return None


def _label_value_problem(data: str) -> str | None:
    if not data or (len(data) <= 63 and _LABEL_NAME.fullmatch(data)):
        return None
    return f"invalid label value {json.dumps(data)}: must be empty or 1-63 {_LABEL_RULE}"


def _label_map(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str) -> None:
    """labels / nodeSelector: label keys to string label values."""
    for label, data in (_opt(ctx, parent, path, key, "mapping") or {}).items():
        label_path = (*path, key, label)
        if problem := _label_key_problem(label):
            ctx.fail(label_path, problem)
        if not isinstance(data, str):
            scalar = isinstance(data, bool | int | float)
            hint = f"; quote it: {json.dumps(json.dumps(data))}" if scalar else ""
            ctx.fail(label_path, f"must be a string, got {_describe(data)}{hint}")
        if problem := _label_value_problem(data):
            ctx.fail(label_path, problem)


# -------------------------------------------------------------------------------- selectors

_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_REQUIRED_NODE = "kube-scheduler treats the term as matching no node"
_PREFERRED_NODE = "kube-scheduler's NodeAffinity PreScore fails with an error for this pod"
_POD_AFFINITY = (
    "kube-scheduler cannot parse the pod's affinity terms: its scheduling attempts fail with an "
    "error (InterPodAffinity PreFilter), and once bound its terms of this list are ignored"
)
_SPREAD = (
    "kube-scheduler's PodTopologySpread fails with an error for this pod "
    "(PreFilter for DoNotSchedule, PreScore for ScheduleAnyway)"
)
_PDB_SELECTOR = "kube-scheduler's preemption treats the budget as matching no pod"
_FIELD_KEY = 'kube-scheduler reads that node field as "" (In matches no node, NotIn every node)'


def _requirement(ctx: _Ctx, req: Any, path: Path) -> tuple[str, str, list[str]]:
    """The (key, operator, values) of a selector requirement; types checked, semantics not."""
    req = _typed(ctx, req, path, "mapping")
    key = _opt(ctx, req, path, "key", "string") or ""
    operator = _opt(ctx, req, path, "operator", "string") or ""
    return key, operator, _string_list(ctx, req, path, "values")


def _requirement_problems(key: str, op: str, values: list[str], operators: tuple[str, ...]) -> str:
    """What ``labels.NewRequirement`` would reject, joined by "; " ("" when nothing)."""
    if op not in operators:
        return f"unknown operator {json.dumps(op)} (supported: {', '.join(operators)})"
    problems = [_label_key_problem(key)]
    shown = json.dumps(values)
    if op in ("In", "NotIn") and not values:
        problems.append(f"operator {json.dumps(op)} needs at least one value")
    if op in ("Exists", "DoesNotExist") and values:
        problems.append(f"operator {json.dumps(op)} takes no values, got {shown}")
    if op in ("Gt", "Lt") and (len(values) != 1 or not _is_int64(values[0])):
        problems.append(f"operator {json.dumps(op)} needs exactly one integer value, got {shown}")
    problems += [_label_value_problem(v) for v in values]
    return "; ".join(p for p in problems if p)


def _is_int64(text: str) -> bool:
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None and -(2**63) <= int(text) < 2**63


def _label_selector(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str, then: str) -> None:
    selector = _opt(ctx, parent, path, key, "mapping")
    if selector is None:
        return
    path = (*path, key)
    for label, data in (_opt(ctx, selector, path, "matchLabels", "mapping") or {}).items():
        label_path = (*path, "matchLabels", label)
        _typed(ctx, data, label_path, "string")
        problems = [p for p in (_label_key_problem(label), _label_value_problem(data)) if p]
        if problems:
            ctx.warn(label_path, "; ".join(problems), then)
    for req, req_path in _items(ctx, selector, path, "matchExpressions"):
        if problem := _requirement_problems(*_requirement(ctx, req, req_path), _LABEL_OPERATORS):
            ctx.warn(req_path, problem, then)


def _node_selector_term(ctx: _Ctx, term: Any, path: Path, then: str) -> None:
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
    ctx: _Ctx, parent: dict[str, Any], path: Path, term_key: str
) -> Iterator[tuple[Any, Path]]:
    """Each preferred term's inner ``term_key`` and its path, after checking the weight."""
    for pref, pref_path in _items(ctx, parent, path, _PREFERRED):
        pref = _typed(ctx, pref, pref_path, "mapping")
        _req(ctx, pref, pref_path, "weight", "integer")
        _int_range(ctx, pref, pref_path, "weight", 1, 100)
        yield _req(ctx, pref, pref_path, term_key, "mapping"), (*pref_path, term_key)


def _affinity(ctx: _Ctx, spec: dict[str, Any], path: Path) -> None:
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


def _node_affinity(ctx: _Ctx, node_affinity: dict[str, Any], path: Path) -> None:
    required = _opt(ctx, node_affinity, path, _REQUIRED, "mapping")
    if required is not None:
        req_path = (*path, _REQUIRED)
        if not _req(ctx, required, req_path, "nodeSelectorTerms", "list"):
            ctx.fail((*req_path, "nodeSelectorTerms"), "must have at least one term")
        for term, term_path in _items(ctx, required, req_path, "nodeSelectorTerms"):
            _node_selector_term(ctx, term, term_path, _REQUIRED_NODE)
    for term, term_path in _weighted(ctx, node_affinity, path, "preference"):
        _node_selector_term(ctx, term, term_path, _PREFERRED_NODE)


def _pod_affinity(ctx: _Ctx, pod_affinity: dict[str, Any], path: Path) -> None:
    for term, term_path in _items(ctx, pod_affinity, path, _REQUIRED):
        _pod_affinity_term(ctx, term, term_path)
    for term, term_path in _weighted(ctx, pod_affinity, path, "podAffinityTerm"):
        _pod_affinity_term(ctx, term, term_path)


def _pod_affinity_term(ctx: _Ctx, term: Any, path: Path) -> None:
    term = _typed(ctx, term, path, "mapping")
    if not _req(ctx, term, path, "topologyKey", "string"):
        ctx.fail((*path, "topologyKey"), "must not be empty")
    _label_selector(ctx, term, path, "labelSelector", _POD_AFFINITY)
    _label_selector(ctx, term, path, "namespaceSelector", _POD_AFFINITY)
    for key in ("namespaces", "matchLabelKeys", "mismatchLabelKeys"):
        _string_list(ctx, term, path, key)


def _spread_constraints(ctx: _Ctx, spec: dict[str, Any], path: Path) -> None:
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
                c_path, f"duplicate topologyKey and whenUnsatisfiable of {_render(seen[pair])}"
            )
        seen[pair] = c_path


# ------------------------------------------------------------------------------------------ Pod

_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")


def _quantities(ctx: _Ctx, parent: dict[str, Any], path: Path, key: str) -> dict[str, Fraction]:
    out = {}
    for name, data in (_opt(ctx, parent, path, key, "mapping") or {}).items():
        try:
            amount = parse_quantity(data)
        except ValueError:
            ctx.fail((*path, key, name), f"invalid quantity {_describe(data)}")
        if amount < 0:
            ctx.fail((*path, key, name), f"must be greater than or equal to 0, got {_shown(data)}")
        out[name] = amount
    return out


def _shown(q: Any) -> str:
    return q if isinstance(q, str) else json.dumps(q)


def _resources(ctx: _Ctx, parent: dict[str, Any], path: Path) -> None:
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


def _containers(ctx: _Ctx, spec: dict[str, Any]) -> None:
    if not _req(ctx, spec, ("spec",), "containers", "list"):
        ctx.fail(("spec", "containers"), "must contain at least one container")
    names: dict[str, Path] = {}
    for key in ("containers", "initContainers"):
        for container, path in _items(ctx, spec, ("spec",), key):
            _container(ctx, container, path, names, init=key == "initContainers")


def _container(
    ctx: _Ctx, container: Any, path: Path, names: dict[str, Path], *, init: bool
) -> None:
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


def _tolerations(ctx: _Ctx, spec: dict[str, Any]) -> None:
    for t, path in _items(ctx, spec, ("spec",), "tolerations"):
        t = _typed(ctx, t, path, "mapping")
        key = _opt(ctx, t, path, "key", "string") or ""
        op = _enum(ctx, t, path, "operator", ("", "Equal", "Exists")) or ""
        data = _opt(ctx, t, path, "value", "string") or ""
        effect = _enum(ctx, t, path, "effect", ("", *_EFFECTS)) or ""
        if key and (problem := _label_key_problem(key)):
            ctx.fail((*path, "key"), problem)
        if not key and op != "Exists":
            ctx.fail((*path, "operator"), 'must be "Exists" when key is empty')
        if op == "Exists" and data:
            ctx.fail((*path, "value"), 'must be empty when operator is "Exists"')
        if op != "Exists" and (problem := _label_value_problem(data)):
            ctx.fail((*path, "value"), problem)
        if _opt(ctx, t, path, "tolerationSeconds", "integer") is not None and effect != "NoExecute":
            ctx.fail((*path, "effect"), 'must be "NoExecute" when tolerationSeconds is set')


def _validate_pod(ctx: _Ctx, pod: dict[str, Any]) -> None:
    spec = _req(ctx, pod, (), "spec", "mapping")
    path: Path = ("spec",)
    _containers(ctx, spec)
    _label_map(ctx, spec, path, "nodeSelector")
    for key in ("nodeName", "schedulerName", "priorityClassName"):
        _opt(ctx, spec, path, key, "string")
    _int32(ctx, spec, path, "priority")
    _enum(ctx, spec, path, "preemptionPolicy", _PREEMPTION_POLICIES)
    _quantities(ctx, spec, path, "overhead")
    _resources(ctx, spec, path)
    _tolerations(ctx, spec)
    _affinity(ctx, spec, path)
    _spread_constraints(ctx, spec, path)
    for gate, gate_path in _items(ctx, spec, path, "schedulingGates"):
        _req(ctx, _typed(ctx, gate, gate_path, "mapping"), gate_path, "name", "string")
    status = _opt(ctx, pod, (), "status", "mapping") or {}
    _enum(ctx, status, ("status",), "phase", _POD_PHASES)
    _opt(ctx, status, ("status",), "nominatedNodeName", "string")


def _default_pod(pod: dict[str, Any]) -> None:
    spec = pod["spec"]
    spec["schedulerName"] = spec.get("schedulerName") or "default-scheduler"
    pod.setdefault("status", {}).setdefault("phase", "Pending")
    for container in [*spec["containers"], *spec.get("initContainers", [])]:
        for port in container.get("ports", []):
            port.setdefault("protocol", "TCP")
        _default_requests(container)
    _default_requests(spec)


def _default_requests(parent: dict[str, Any]) -> None:
    resources = parent.get("resources", {})
    for name, limit in resources.get("limits", {}).items():
        resources.setdefault("requests", {}).setdefault(name, limit)


# ------------------------------------------------------------------------- the other kinds


def _validate_node(ctx: _Ctx, node: dict[str, Any]) -> None:
    spec = _opt(ctx, node, (), "spec", "mapping") or {}
    _opt(ctx, spec, ("spec",), "unschedulable", "boolean")
    seen: set[tuple[str, str]] = set()
    for taint, path in _items(ctx, spec, ("spec",), "taints"):
        taint = _typed(ctx, taint, path, "mapping")
        if problem := _label_key_problem(_req(ctx, taint, path, "key", "string")):
            ctx.fail((*path, "key"), problem)
        if problem := _label_value_problem(_opt(ctx, taint, path, "value", "string") or ""):
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


def _default_node(node: dict[str, Any]) -> None:
    status = node.get("status", {})
    if "capacity" in status and "allocatable" not in status:
        status["allocatable"] = dict(status["capacity"])


_PERCENT = re.compile(r"[0-9]+%")


def _validate_pdb(ctx: _Ctx, pdb: dict[str, Any]) -> None:
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
                ("spec", key), f'must be an integer or a percentage "N%", got {_describe(data)}'
            )
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        ctx.fail(("spec", "maxUnavailable"), "minAvailable and maxUnavailable cannot both be set")
    status = _opt(ctx, pdb, (), "status", "mapping") or {}
    for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        _int_range(ctx, status, ("status",), key, 0)


def _validate_priority_class(ctx: _Ctx, pc: dict[str, Any]) -> None:
    _req(ctx, pc, (), "value", "integer")
    _int32(ctx, pc, (), "value")
    _opt(ctx, pc, (), "globalDefault", "boolean")
    _enum(ctx, pc, (), "preemptionPolicy", _PREEMPTION_POLICIES)
    _opt(ctx, pc, (), "description", "string")
    builtin = _BUILTIN_PRIORITY.get(pc["metadata"]["name"])
    if builtin is not None and pc["value"] != builtin:
        ctx.fail(("value",), f"must be {builtin}, the value of this built-in PriorityClass")


def _default_priority_class(pc: dict[str, Any]) -> None:
    pc.setdefault("globalDefault", False)
    pc.setdefault("preemptionPolicy", "PreemptLowerPriority")


def _nothing(ctx: _Ctx, obj: dict[str, Any]) -> None:
    pass


def _no_default(obj: dict[str, Any]) -> None:
    pass


@dataclass(frozen=True)
class _Kind:
    api_version: str
    validate: Callable[[_Ctx, dict[str, Any]], None]
    default: Callable[[dict[str, Any]], None]


_KINDS = {
    "Node": _Kind("v1", _validate_node, _default_node),
    "Pod": _Kind("v1", _validate_pod, _default_pod),
    "Namespace": _Kind("v1", _nothing, _no_default),
    "PodDisruptionBudget": _Kind("policy/v1", _validate_pdb, _no_default),
    "PriorityClass": _Kind(
        "scheduling.k8s.io/v1", _validate_priority_class, _default_priority_class
    ),
    "KubeSchedulerConfiguration": _Kind("kubescheduler.config.k8s.io/v1", _nothing, _no_default),
}
_SUPPORTED = ", ".join([*(f"{k.api_version} {name}" for name, k in _KINDS.items()), "v1 List"])


# ------------------------------------------------------------------------ objects, end to end


def _header(doc: _Doc) -> str:
    """The object's kind, after checking apiVersion and kind."""
    ctx = _Ctx(doc, "", [])
    api_version = _req(ctx, doc.data, (), "apiVersion", "string")
    kind: str = _req(ctx, doc.data, (), "kind", "string")
    if kind not in _KINDS:
        ctx.fail(("kind",), f"unsupported kind {json.dumps(kind)}; supported: {_SUPPORTED}")
    if api_version != _KINDS[kind].api_version:
        expected = json.dumps(_KINDS[kind].api_version)
        message = (
            f"unsupported apiVersion {json.dumps(api_version)} for {kind}; expected {expected}"
        )
        ctx.fail(("apiVersion",), message)
    return kind


def _metadata(ctx: _Ctx, obj: dict[str, Any]) -> None:
    """Check metadata and name the object in ``ctx`` (``Pod default/web-0``)."""
    meta = _req(ctx, obj, (), "metadata", "mapping")
    path: Path = ("metadata",)
    name = _req(ctx, meta, path, "name", "string")
    checker = _dns_label_problem if ctx.kind == "Namespace" else _dns_subdomain_problem
    if problem := checker(name):
        ctx.fail((*path, "name"), problem)
    namespace = _opt(ctx, meta, path, "namespace", "string") or "default"
    if ctx.kind in _NAMESPACED and (problem := _dns_label_problem(namespace)):
        ctx.fail((*path, "namespace"), problem)
    ctx.obj = f"{ctx.kind} {namespace}/{name}" if ctx.kind in _NAMESPACED else f"{ctx.kind} {name}"
    _label_map(ctx, meta, path, "labels")
    for key, data in (_opt(ctx, meta, path, "annotations", "mapping") or {}).items():
        _typed(ctx, data, (*path, "annotations", key), "string")
    _opt(ctx, meta, path, "uid", "string")
    for ref, ref_path in _items(ctx, meta, path, "ownerReferences"):
        ref = _typed(ctx, ref, ref_path, "mapping")
        _req(ctx, ref, ref_path, "kind", "string")
        _req(ctx, ref, ref_path, "name", "string")
        _opt(ctx, ref, ref_path, "controller", "boolean")


_UID_NAMESPACE = uuid.UUID("6f1a4a62-4a1c-5b8e-9d0e-5c6865647370")


def _default_metadata(obj: dict[str, Any]) -> None:
    meta, kind = obj["metadata"], obj["kind"]
    if kind in _NAMESPACED:
        meta["namespace"] = meta.get("namespace") or "default"
    else:
        meta.pop("namespace", None)
    seed = f"{kind}/{meta.get('namespace', '')}/{meta['name']}"
    meta["uid"] = meta.get("uid") or str(uuid.uuid5(_UID_NAMESPACE, seed))


def _without_nulls(data: Any) -> Any:
    """A deep copy with null mapping entries dropped (Go reads them as absent)."""
    if isinstance(data, dict):
        return {k: _without_nulls(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [_without_nulls(v) for v in data]
    return data


def _load_object(doc: _Doc, warnings: list[str]) -> tuple[str, dict[str, Any], _Ctx]:
    kind = _header(doc)
    ctx = _Ctx(doc, kind, warnings)
    if kind != "KubeSchedulerConfiguration":
        _metadata(ctx, doc.data)
    _KINDS[kind].validate(ctx, doc.data)
    obj = _without_nulls(doc.data)
    if kind != "KubeSchedulerConfiguration":
        _default_metadata(obj)
    _KINDS[kind].default(obj)
    return kind, obj, ctx


_BUILTIN_PRIORITY = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}
_Loaded = list[tuple[dict[str, Any], _Ctx]]


def _build(docs: list[_Doc]) -> Cluster:
    warnings: list[str] = []
    loaded: dict[str, _Loaded] = {kind: [] for kind in _KINDS}
    seen: dict[tuple[str, str], str] = {}
    for doc in (obj for d in docs for obj in _expand(d)):
        kind, obj, ctx = _load_object(doc, warnings)
        identity = (kind, "" if kind == "KubeSchedulerConfiguration" else object_key(obj))
        if identity in seen:
            what = "a second KubeSchedulerConfiguration" if not identity[1] else "duplicate object"
            ctx.fail((), f"{what}; the first is at {seen[identity]}")
        seen[identity] = doc.where()
        loaded[kind].append((obj, ctx))
    _admit_priorities(loaded["Pod"], loaded["PriorityClass"])
    config = loaded["KubeSchedulerConfiguration"]
    return Cluster(
        nodes=tuple(obj for obj, _ in loaded["Node"]),
        pods=tuple(obj for obj, _ in loaded["Pod"]),
        pdbs=tuple(obj for obj, _ in loaded["PodDisruptionBudget"]),
        priority_classes=tuple(obj for obj, _ in loaded["PriorityClass"]),
        namespaces=tuple(obj for obj, _ in loaded["Namespace"]),
        scheduler_config=config[0][0] if config else None,
        warnings=tuple(warnings),
    )


def _admit_priorities(pods: _Loaded, classes: _Loaded) -> None:
    """Priority admission: ``spec.priority`` and ``spec.preemptionPolicy`` for every pod."""
    plp = "PreemptLowerPriority"
    by_name = {name: (v, plp) for name, v in _BUILTIN_PRIORITY.items()}
    default: tuple[str, int, str] | None = None
    for pc, ctx in classes:
        name = pc["metadata"]["name"]
        by_name[name] = (pc["value"], pc["preemptionPolicy"])
        if pc["globalDefault"] and default is not None:
            ctx.fail(("globalDefault",), f"PriorityClass {default[0]} is already the default")
        if pc["globalDefault"]:
            default = (name, pc["value"], pc["preemptionPolicy"])
    for pod, ctx in pods:
        _admit_priority(ctx, pod["spec"], by_name, default)


def _admit_priority(
    ctx: _Ctx,
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
        ctx.fail(("spec", "priorityClassName"), message)
    priority, policy = classes[name]
    if spec.setdefault("priority", priority) != priority:
        ctx.fail(
            ("spec", "priority"),
            f"the integer value of priority ({spec['priority']}) must not be provided in pod "
            f"spec; priority admission controller computed {priority} from the given "
            "PriorityClass name",
        )
    if spec.setdefault("preemptionPolicy", policy) != policy:
        message = f"must be {json.dumps(policy)} (from PriorityClass {name}) or absent"
        ctx.fail(("spec", "preemptionPolicy"), message)


# -------------------------------------------------------------------------------- front door


def loads(text: str, *, source: str = "<string>") -> Cluster:
    """The cluster in ``text`` (YAML, multi-document YAML, a List, or JSON)."""
    return _build(_parse(text, source))


def load(*paths: str | os.PathLike[str]) -> Cluster:
    """The cluster in the files ``paths`` (``.yaml``, ``.yml`` or ``.json``), as one."""
    docs: list[_Doc] = []
    for path in paths:
        source = os.fspath(path)
        try:
            text = FsPath(source).read_text(encoding="utf-8")
        except OSError as err:
            raise ManifestError(f"cannot read: {err.strerror or err}", where=source) from None
        except UnicodeDecodeError:
            raise ManifestError("cannot read: not UTF-8 text", where=source) from None
        docs.extend(_parse(text, source))
    return _build(docs)
