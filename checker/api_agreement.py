"""The loader against the API server: does ``schedspec.cluster`` accept exactly the objects the
real API server (k8s.io/kubernetes v1.34.2, through the oracle's ``validate`` request) accepts?

1. **Bases.** Every Pod and Node (``kinds``) of the manifests under ``paths`` — the bundled
   examples, the scenario files' ``objects:`` and the golden manifests — each with the
   PriorityClasses of its file (so ``priorityClassName`` resolves as it did there). Identical
   objects are taken once. A base both sides accept is mutated; one both reject is left out;
   one they disagree on is reported as a *base disagreement*.
2. **Mutate.** ``mutations`` mutated objects, round robin over the bases, each ONE structure-aware
   mutation of a fresh copy (:func:`mutate`): drop a field, retype it, an edge value for its type
   (int32/int64 bounds, quantities, label-ish strings, enum near-misses), rename a map key,
   duplicate or empty a list, add an unknown field, or graft a field from another base of the same
   kind (so fields a base lacks are reached) and mutate inside it. Field paths are drawn per
   *pattern* (``spec.containers[*].ports[*].hostPort``), so a node's hundred image names weigh as
   one field. (The idea of ``tests/mutations.py`` — any value at any field path — made seeded
   and type-aware for a campaign; ``tests/`` is not part of the package.)
3. **Ask both.** The loader: :func:`schedspec.cluster.from_objects` of the object with its file's
   PriorityClasses (accepted, with or without a warning, or rejected). The API server: the
   oracle's ``validate`` (decode with ``fieldValidation=Strict``, defaulting, the create
   strategy, the status-subresource update for a given status). Tallied into agree-accept,
   agree-reject, loader-accepts-server-rejects and loader-rejects-server-accepts.
4. **Classify.** Each disagreement gets a *signature* — the direction, then the field path
   pattern and reason of the side that rejected (the API server's first error type, or the
   loader's first message with values elided) — and is matched against :data:`DECLARED`, the
   classes with the reason each is accepted as a difference. What matches none is *undeclared*.

    with Oracle() as oracle:
        result = run(oracle, mutations=10_000, seed=0)
    print("\\n".join(result.report()))

``bench/api_validation.py`` is the command line; ``docs/reliability.md`` has the figures.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedspec.checker.oracle import Oracle
from schedspec.cluster import from_objects
from schedspec.errors import ManifestError
from schedspec.manifest_yaml import expand, parse
from schedspec.shapes import validated_paths

__all__ = [
    "DECLARED",
    "Base",
    "Declared",
    "Disagreement",
    "Mutation",
    "Outcome",
    "Result",
    "base_objects",
    "mutate",
    "run",
]

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = (
    "examples",
    "tests/spec/scenarios",
    "tests/autoscaler_scenarios",
    "tests/golden/manifests",
)
Obj = dict[str, Any]
FieldPath = tuple[str | int, ...]
# What the oracle's validate takes (another apiVersion of a kind is not served by v1.34).
API_VERSIONS = {
    "Pod": "v1",
    "Node": "v1",
    "Namespace": "v1",
    "PodDisruptionBudget": "policy/v1",
    "PriorityClass": "scheduling.k8s.io/v1",
}

# ------------------------------------------------------------------------------------ bases


@dataclass(frozen=True)
class Base:
    """One object to mutate: where it came from, itself, and its file's PriorityClasses."""

    source: str
    obj: Obj
    context: tuple[Obj, ...]

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind"))


def _file_objects(path: Path) -> list[Obj]:
    """The objects of a manifest or scenario file (``[]`` if it does not parse)."""
    try:
        text = path.read_text(encoding="utf-8")
        docs = parse(text, str(path))
        if len(docs) == 1 and isinstance(docs[0].data, dict):
            inner = docs[0].data
            if "kind" not in inner and isinstance(inner.get("objects"), str):
                docs = parse(inner["objects"], str(path))
        return [d.data for doc in docs for d in expand(doc) if isinstance(d.data, dict)]
    except (ManifestError, OSError, UnicodeDecodeError):
        return []


def base_objects(
    paths: Iterable[str | Path] = DEFAULT_PATHS,
    *,
    kinds: Sequence[str] = ("Pod", "Node"),
    root: Path = ROOT,
) -> list[Base]:
    """Every object of ``kinds`` in the manifests under ``paths`` (relative to ``root``), once
    (in the apiVersion the API server serves: :data:`API_VERSIONS`)."""
    files: list[Path] = []
    for p in paths:
        full = root / p
        if full.is_dir():
            files += sorted(f for f in full.rglob("*") if f.suffix in (".yaml", ".yml", ".json"))
        elif full.is_file():
            files.append(full)
    seen: set[str] = set()
    out: list[Base] = []
    for f in files:
        objects = _file_objects(f)
        classes = [o for o in objects if o.get("kind") == "PriorityClass"]
        for obj in objects:
            kind = obj.get("kind")
            if kind not in kinds or obj.get("apiVersion") != API_VERSIONS.get(str(kind)):
                continue
            key = json.dumps(obj, sort_keys=True, default=str)
            if key in seen:
                continue
            seen.add(key)
            context = tuple(_plain(c) for c in classes if c is not obj)
            out.append(Base(str(f.relative_to(root)), _plain(obj), context))
    return out


def _plain(data: Any) -> Any:
    """A JSON copy (YAML timestamps kept as text by the reader; anything else stringified)."""
    return json.loads(json.dumps(data, default=str))


# ---------------------------------------------------------------------------------- mutation

MAPS = frozenset(
    {
        "labels",
        "annotations",
        "nodeSelector",
        "requests",
        "limits",
        "capacity",
        "allocatable",
        "overhead",
        "allocatedResources",
        "matchLabels",
        "data",
    }
)
_QUANTITY_MAPS = frozenset(
    {"requests", "limits", "capacity", "allocatable", "overhead", "allocatedResources"}
)

_QUANTITIES: tuple[Any, ...] = (
    "-1", "0", "-0", "1e100", "0.0001", "1m", "0.5m", "1.5Gi", "1e-3", "12xyz", "1Ki", "1ki",
    "9223372036854775807", "9223372036854775808", "1E", "+1", ".5", "1.", "0x10", " 1", "",
    "1Gi ", 1.5, -1, 0, 10**20, "100Mi", "2", "1000m",
)  # fmt: skip
_STRINGS: tuple[Any, ...] = (
    "", " ", "x y", "UPPER", "a" * 63, "a" * 64, "a" * 253, "a" * 254, "ü", "-x", "x-", "x.",
    "x/y", "a/b/c", "example.com/" + "a" * 64, "Example.com/x", "1", "-1", "1.5", "true",
    "x_y", "x..y", "*", "\t", "kubernetes.io/hostname", "default", "null",
)  # fmt: skip
_ENUMS: tuple[str, ...] = (
    "Exists", "Equal", "exists", "NoSchedule", "PreferNoSchedule", "NoExecute", "noschedule",
    "In", "NotIn", "DoesNotExist", "Gt", "Lt", "in", "DoNotSchedule", "ScheduleAnyway",
    "Honor", "Ignore", "honor", "TCP", "UDP", "SCTP", "tcp", "HTTP", "Always", "OnFailure",
    "Never", "always", "PreemptLowerPriority", "Never", "Pending", "Running", "Succeeded",
    "Failed", "Unknown", "running", "True", "False", "true", "Ready", "PodScheduled",
    "DisruptionTarget", "Memory", "Guaranteed", "BestEffort", "Burstable",
)  # fmt: skip
_INTS: tuple[int | float | str, ...] = (
    0, -1, 1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**53, 2**63, -(2**63) - 1, 65535,
    65536, 101, 100, 1.5, 1.0, "1",
)  # fmt: skip
_RETYPES: tuple[Any, ...] = ("x", 1, -1, 1.5, True, False, None, [], {}, ["x"], {"a": "b"})
_MAP_KEYS: tuple[str, ...] = (
    "", "x y", "-x", "x-", "a/b/c", "example.com/" + "a" * 64, "a" * 64, "Example.com/x",
    "/x", "x/", "kubernetes.io/" + "a" * 63, "ü", "cpu", "example.com/gpu", "hugepages-2Mi",
    "x_y", "requests.cpu",
)  # fmt: skip


@dataclass(frozen=True)
class Mutation:
    """One mutated object: what was done (``op``), where (``path``), the value put there."""

    op: str
    path: FieldPath
    value: Any
    obj: Obj

    @property
    def where(self) -> str:
        return render_path(self.path)

    def describe(self) -> str:
        shown = json.dumps(self.value, ensure_ascii=False)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return f"{self.op} {self.where} = {shown}" if self.op != "drop" else f"drop {self.where}"


def render_path(path: FieldPath) -> str:
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", step):
            out += ("." if out else "") + step
        else:
            out += f"[{json.dumps(step)}]"
    return out


def pattern(path: FieldPath) -> str:
    """The field of a path: indices and map keys as ``*``."""
    parts: list[str] = []
    previous: str | int | None = None
    for step in path:
        if isinstance(step, int):
            parts.append("[*]")
        elif previous in MAPS:
            parts.append(".*")
        else:
            parts.append(("." if parts else "") + step)
        previous = step
    return "".join(parts)


def _paths(data: Any, prefix: FieldPath = ()) -> list[FieldPath]:
    out = [prefix]
    if isinstance(data, dict):
        for key, item in data.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            out += _paths(item, (*prefix, i))
    return out


def _get(doc: Any, path: FieldPath) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _mutable_paths(obj: Obj) -> list[FieldPath]:
    return [p for p in _paths(obj) if p and p not in (("apiVersion",), ("kind",))]


def _by_pattern(paths: list[FieldPath]) -> dict[str, list[FieldPath]]:
    groups: dict[str, list[FieldPath]] = {}
    for p in paths:
        groups.setdefault(pattern(p), []).append(p)
    return groups


def _values_for(path: FieldPath, value: Any, rng: random.Random) -> tuple[str, Any]:
    """An edge value for the field at ``path`` holding ``value``: (op, new value)."""
    parent = path[-2] if len(path) > 1 else None
    if parent in _QUANTITY_MAPS or (isinstance(value, str) and path[-1] in ("cpu", "memory")):
        return "quantity", rng.choice(_QUANTITIES)
    if isinstance(value, bool):
        return "edge", rng.choice([not value, "true", 0, 1, None])
    if isinstance(value, int | float):
        return "edge", rng.choice([*_INTS, value + 1, -value, value * 1000, str(value)])
    if isinstance(value, str):
        if value in _ENUMS or (value[:1].isupper() and value.isalpha()):
            choices = [*_ENUMS, value.lower(), value.upper(), value + "s"]
            return "enum", rng.choice(choices)
        tweaks = [value.upper(), value + "!", value + "-", "-" + value, value * 5, value + " "]
        return "string", rng.choice([*_STRINGS, *tweaks])
    if isinstance(value, list):
        options: list[tuple[str, Any]] = [("empty", []), ("retype", rng.choice(_RETYPES))]
        if value:
            options.append(("duplicate", [*value, value[0]]))
            options.append(("retype-item", [rng.choice(_RETYPES), *value[1:]]))
        return rng.choice(options)
    if isinstance(value, dict):
        options = [("empty", {}), ("retype", rng.choice(_RETYPES))]
        options.append(("unknown-field", {**value, "bogusField": rng.choice(_RETYPES)}))
        if path[-1] in MAPS:
            options.append(("add-key", {**value, rng.choice(_MAP_KEYS): rng.choice(_STRINGS)}))
        return rng.choice(options)
    return "retype", rng.choice(_RETYPES)


def mutate(
    obj: Obj, rng: random.Random, donors: Sequence[Obj] = (), *, graft: float = 0.25
) -> Mutation:
    """One mutation of a copy of ``obj`` (``donors``: objects of its kind to graft fields from)."""
    out = _plain(obj)
    if donors and rng.random() < graft:
        grafted = _graft(out, rng, donors)
        if grafted is not None:
            return grafted
    groups = _by_pattern(_mutable_paths(out))
    path = rng.choice(groups[rng.choice(sorted(groups))])
    return _mutate_at(out, path, rng, "")


def _mutate_at(out: Obj, path: FieldPath, rng: random.Random, prefix: str) -> Mutation:
    parent = _get(out, path[:-1])
    value = parent[path[-1]]
    roll = rng.random()
    if roll < 0.12:
        del parent[path[-1]]
        return Mutation(prefix + "drop", path, None, out)
    if roll < 0.22:
        new: Any = rng.choice([v for v in _RETYPES if type(v) is not type(value)])
        op = "retype"
    elif roll < 0.3 and len(path) > 1 and path[-2] in MAPS and isinstance(parent, dict):
        key = rng.choice(_MAP_KEYS)
        parent[key] = parent.pop(path[-1])
        return Mutation(prefix + "rename-key", (*path[:-1], key), parent[key], out)
    else:
        op, new = _values_for(path, value, rng)
    parent[path[-1]] = new
    return Mutation(prefix + op, path, new, out)


def _graft(out: Obj, rng: random.Random, donors: Sequence[Obj]) -> Mutation | None:
    """A field of a donor the object lacks, copied in, then one mutation inside it (or none)."""
    donor = rng.choice(donors)
    missing = [
        p
        for p in _mutable_paths(donor)
        if len(p) >= 2 and not isinstance(p[-1], int) and _has(out, p[:-1]) and not _has(out, p)
    ]
    if not missing:
        return None
    path = rng.choice(missing)
    _get(out, path[:-1])[path[-1]] = _plain(_get(donor, path))
    inside = [p for p in _paths(_get(out, path), path) if p != path]
    if not inside or rng.random() < 0.3:
        return Mutation("graft", path, _get(out, path), out)
    return _mutate_at(out, rng.choice(inside), rng, "graft+")


def _has(doc: Any, path: FieldPath) -> bool:
    for step in path:
        if isinstance(step, int):
            if not isinstance(doc, list) or step >= len(doc):
                return False
        elif not isinstance(doc, dict) or step not in doc:
            return False
        doc = doc[step]
    return True


# -------------------------------------------------------------------------------- verdicts

AGREE_ACCEPT = "agree-accept"
AGREE_REJECT = "agree-reject"
LOADER_ONLY = "loader-accepts-server-rejects"
SERVER_ONLY = "loader-rejects-server-accepts"
_STRICT = frozenset({"UnknownField", "DuplicateField"})


@dataclass(frozen=True)
class Outcome:
    """Both verdicts on one object."""

    loader_ok: bool
    loader_warned: bool
    loader_errors: tuple[tuple[str, str], ...]  # (field path, message) of each loader error
    server_ok: bool
    server_errors: tuple[dict[str, Any], ...]  # the oracle's: field, type, detail, phase, error

    @property
    def verdict(self) -> str:
        if self.loader_ok == self.server_ok:
            return AGREE_ACCEPT if self.loader_ok else AGREE_REJECT
        return LOADER_ONLY if self.loader_ok else SERVER_ONLY


def ask(oracle: Oracle, obj: Obj, context: Sequence[Obj]) -> Outcome:
    loader_ok, warned = True, False
    errors: tuple[tuple[str, str], ...] = ()
    try:
        cluster = from_objects([*context, obj], source="mutated")
        warned = bool(cluster.warnings)
    except ManifestError as err:
        loader_ok = False
        errors = tuple((e.path, e.message) for e in err.errors)
    answer = oracle.validate(obj)
    return Outcome(loader_ok, warned, errors, bool(answer["valid"]), tuple(answer["errors"]))


_INDEX = re.compile(r"\[(\d+|\"[^\"]*\"|[^\]]*)\]")
_MAP_KEY = re.compile(r"\b(" + "|".join(sorted(MAPS)) + r")\.[^\s:]*")


def field_pattern(path: str) -> str:
    """A loader or API-server field path with indices and map keys as ``*``."""
    path = _INDEX.sub("[*]", path)
    return _MAP_KEY.sub(r"\1.*", path)


def _elide(message: str) -> str:
    message = re.sub(r'"(?:[^"\\]|\\.)*"', '"…"', message)
    message = re.sub(r"-?\b\d+(\.\d+)?\b", "N", message)
    return message[:90]


@functools.cache
def _read_fields(kind: str) -> frozenset[str]:
    """The fields of ``kind`` the rules read (``SHAPES``), as ``a.b.c`` with no list marks."""
    return frozenset(p.replace("[]", "") for p in validated_paths(kind))


def is_read(kind: str, path: str) -> bool:
    """Whether the rules read the field at ``path`` (an API-server or loader field path)."""
    bare = field_pattern(path).replace("[*]", "")
    return bare in _read_fields(kind)


@dataclass(frozen=True)
class Disagreement:
    """One object the two sides disagree on, reduced to what classifies it."""

    kind: str
    verdict: str
    field: str  # the rejecting side's principal field path, as a pattern
    reason: str  # its reason: the API server's error type, or the loader's message (elided)
    detail: str  # the whole message
    warned: bool  # the loader accepted with a warning
    strict_only: bool  # every API-server error is an unknown or duplicated field
    value: Any  # the mutated value (None for an unmutated base)

    @property
    def signature(self) -> str:
        warned = " (loader warned)" if self.warned else ""
        return f"{self.kind} {self.verdict}: {self.field}: {self.reason}{warned}"


def disagreement(kind: str, outcome: Outcome, mutation: Mutation | None) -> Disagreement:
    """The disagreement ``outcome`` (not an agreement) on an object of ``kind``: the principal
    error is the API server's first on a field the rules read (else its first), or the loader's
    first."""
    where = field_pattern(mutation.where) if mutation is not None else ""
    value = mutation.value if mutation is not None else None
    if outcome.verdict == LOADER_ONLY:
        errors = outcome.server_errors
        strict_only = all(e["type"] in _STRICT for e in errors)
        if not strict_only:
            errors = tuple(e for e in errors if e["type"] not in _STRICT)
        read = [e for e in errors if e["field"] and is_read(kind, e["field"])]
        first = (read or list(errors))[0]
        at = field_pattern(first["field"]) if first["field"] else where
        return Disagreement(
            kind, LOADER_ONLY, at, first["type"], first["error"], outcome.loader_warned,
            strict_only, value,
        )  # fmt: skip
    path, message = outcome.loader_errors[0]
    return Disagreement(
        kind, SERVER_ONLY, field_pattern(path) or where, _elide(message), f"{path}: {message}",
        False, False, value,
    )  # fmt: skip


# --------------------------------------------------------------------------------- classes


@dataclass(frozen=True)
class Declared:
    """A disagreement class accepted as a difference, with why."""

    name: str
    verdict: str
    why: str
    matches: Callable[[Disagreement], bool]


def _at(pattern_: str) -> Callable[[Disagreement], bool]:
    regex = re.compile(pattern_)
    return lambda d: regex.search(d.field) is not None


_SELECTOR = re.compile(
    r"(matchExpressions|matchFields|matchLabels|labelSelector|namespaceSelector|LabelKeys|"
    r"podAffinityTerm\.namespace$|\]\.namespace$)"
)
_RESOURCES = re.compile(
    r"(resources($|\.(requests|limits))|\.overhead|status\.(allocatable|capacity))"
)

DECLARED: tuple[Declared, ...] = (
    Declared(
        "unknown fields",
        LOADER_ONLY,
        "kubectl's default field validation (Strict) rejects a field the schema lacks or a "
        "duplicated one; the loader ignores fields the rules do not read, as kube-scheduler "
        "(which never sees them: the API server dropped or refused them) would",
        lambda d: d.strict_only,
    ),
    Declared(
        "fields the rules never read",
        LOADER_ONLY,
        "a wrong type or value in a field no reader reads (not in schedspec.shapes.SHAPES, "
        "which tests/test_validated_paths.py keeps complete): the API server's business, not "
        "the rules'; the loader checks every field the rules read",
        lambda d: not is_read(d.kind, d.field),
    ),
    Declared(
        "label selectors and names that select nothing",
        LOADER_ONLY,
        "selector requirements the API server refuses but kube-scheduler has defined behaviour "
        "for (unknown operator, In without values, keys or values that are not label syntax): "
        "the loader warns with what kube-scheduler then does (Cluster.warnings); a matchFields "
        "value, an affinity namespace or a matchLabelKeys key that is no valid name matches "
        "(or merges) nothing, as it would upstream",
        lambda d: _SELECTOR.search(d.field) is not None or "matchLabelKeys" in d.detail,
    ),
    Declared(
        "resource names and per-resource quantity rules",
        LOADER_ONLY,
        "the loader checks every quantity's syntax and sign; the API server also checks the "
        "resource NAME (standard or domain-qualified), that pods and extended resources are "
        "whole numbers, that extended resources and hugepages have limits equal to requests "
        "(and hugepages come with cpu or memory), "
        "and pod-level resources against the containers' sum — kube-scheduler takes requests "
        "as given (scalar resources rounded up, unknown names not accounted), so the rules "
        "have an answer for each",
        lambda d: _RESOURCES.search(d.field) is not None,
    ),
    Declared(
        "ownerReferences beyond kind, name and controller",
        LOADER_ONLY,
        "documented leniency: apiVersion and uid may be left out, and the name is not checked "
        "as a path segment; the readers (the autoscaler's drain rules, preemption) read kind, "
        "name and controller only",
        _at(r"^metadata\.ownerReferences"),
    ),
    Declared(
        "names the rules only carry",
        LOADER_ONLY,
        "annotation keys and sizes, generateName and container port names: the rules read "
        "annotation values at fixed keys and copy the rest, so an invalid key or name (or a "
        "duplicated port name) changes no verdict",
        _at(r"^metadata\.(annotations|generateName)|ports\[\*\]\.name$"),
    ),
    Declared(
        "pod condition types",
        LOADER_ONLY,
        "a custom condition type must be a qualified name; the rules look for fixed types "
        "(PodScheduled, DisruptionTarget, Ready), so another type is only 'not one of them'",
        _at(r"^status\.conditions\[\*\]\.Type$"),
    ),
    Declared(
        "priority admission",
        SERVER_ONLY,
        "the API server rejects these too — in its Priority admission plugin (a class that does "
        "not exist; a priority or preemptionPolicy that differs from the class; a second "
        "globalDefault class), which the oracle's validate (validation only) does not run",
        _at(r"^(spec\.(priorityClassName|priority|preemptionPolicy)|globalDefault)$"),
    ),
    Declared(
        "pod phase",
        SERVER_ONLY,
        "the API server stores any status.phase; the rules branch on it (terminal pods free "
        "their resources), so the loader takes only the five phases",
        _at(r"^status\.phase$"),
    ),
    Declared(
        "null map values and list items",
        SERVER_ONLY,
        'Go decodes a null map value or list item to the zero value ("", 0, an empty '
        "object): a label with an empty value, a zero quantity; the loader refuses the null "
        "rather than guess which was meant",
        lambda d: d.reason.endswith("got null"),
    ),
    Declared(
        "quantities with surrounding spaces",
        SERVER_ONLY,
        "resource.Quantity's JSON decoding trims spaces; the loader keeps quantities as written "
        'and every reader parses them, so it refuses "1Gi " rather than store what it cannot '
        "read back",
        lambda d: (
            "must be a quantity" in d.reason
            and isinstance(d.value, str)
            and d.value != d.value.strip()
        ),
    ),
    Declared(
        "quantities beyond int64",
        SERVER_ONLY,
        "Go caps a binary-suffixed quantity at 2^63-1 and lets a larger decimal one overflow "
        "int64 in kube-scheduler's arithmetic; the loader refuses both rather than compute "
        "with a value kube-scheduler cannot hold",
        lambda d: "must be at most 2^63-1" in d.detail,
    ),
    Declared(
        "container restartPolicy the API server drops",
        SERVER_ONLY,
        "with ContainerRestartRules off (alpha in v1.34) the API server silently drops a "
        "container's restartPolicy, or an init container's other than Always; the loader "
        "refuses it rather than silently turn a sidecar into a plain init container",
        _at(r"Containers?\[\*\]\.restartPolicy$|containers\[\*\]\.restartPolicy$"),
    ),
    Declared(
        "stricter than the API server where the rules read",
        SERVER_ONLY,
        "a container port's hostIP that is not an IP, a negative terminationGracePeriodSeconds, "
        "image size or resource in a container's status (a resized one's), a preferred "
        "node-affinity term without its preference: the API server stores them, the loader "
        "asks for the value the rules were written for",
        _at(
            r"(ports\[\*\]\.hostIP|^spec\.terminationGracePeriodSeconds|\.preference"
            r"|^status\.images\[\*\]\.sizeBytes"
            r"|ontainerStatuses\[\*\]\.(allocatedResources|resources\.(requests|limits))\.\*)$"
        ),
    ),
)


DECLARED += (
    Declared(
        "the other kinds: PriorityClass value rules",
        LOADER_ONLY,
        "(--kinds beyond Pod and Node) the API server caps a user-defined PriorityClass at "
        "1000000000 and reserves system- names; the loader checks the value is an int32 and a "
        "built-in's value is its own — the rules order pods by whatever value is stored",
        lambda d: d.kind == "PriorityClass" and d.reason == "FieldValueForbidden",
    ),
    Declared(
        "the other kinds: names, labels and required values",
        SERVER_ONLY,
        "(--kinds beyond Pod and Node) the loader wants every object name a DNS-1123 subdomain "
        "(the API server checks a PodDisruptionBudget's only as a path segment) and a "
        "PriorityClass's value present (Go reads it absent as 0); a Namespace's "
        "kubernetes.io/metadata.name label is overwritten with its name by the API server, "
        "which so never sees an invalid value there",
        lambda d: (
            (d.kind == "PodDisruptionBudget" and d.field == "metadata.name")
            or (d.kind == "Namespace" and "kubernetes.io/metadata.name" in d.detail)
            or (d.kind == "PriorityClass" and d.field == "value" and "required" in d.reason)
        ),
    ),
)


def declared_class(d: Disagreement) -> Declared | None:
    return next((c for c in DECLARED if c.verdict == d.verdict and c.matches(d)), None)


# ------------------------------------------------------------------------------------ run


@dataclass(frozen=True)
class Example:
    """The first object seen with a signature."""

    source: str
    mutation: str
    loader_errors: tuple[str, ...]
    server_errors: tuple[str, ...]


@dataclass
class Result:
    """What a run measured."""

    seed: int
    bases: int = 0
    base_verdicts: Counter[str] = field(default_factory=Counter)
    base_disagreements: list[tuple[Disagreement, Example]] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)
    by_kind: dict[str, Counter[str]] = field(default_factory=dict)
    signatures: Counter[str] = field(default_factory=Counter)
    first: dict[str, tuple[Disagreement, Example]] = field(default_factory=dict)

    @property
    def mutated(self) -> int:
        return sum(self.verdicts.values())

    @property
    def agreement(self) -> float:
        agree = self.verdicts[AGREE_ACCEPT] + self.verdicts[AGREE_REJECT]
        return agree / self.mutated if self.mutated else 1.0

    def class_of(self, sig: str) -> str:
        declared = declared_class(self.first[sig][0])
        return declared.name if declared is not None else "UNDECLARED"

    def classes(self) -> Counter[tuple[str, str]]:
        """Disagreements per (direction, class name); ``UNDECLARED`` for the others."""
        out: Counter[tuple[str, str]] = Counter()
        for sig, n in self.signatures.items():
            out[(self.first[sig][0].verdict, self.class_of(sig))] += n
        return out

    def undeclared(self) -> dict[str, int]:
        """Signatures (with counts) no declared class covers, mutated or base."""
        out = {s: n for s, n in self.signatures.items() if self.class_of(s) == "UNDECLARED"}
        for d, _ in self.base_disagreements:
            if declared_class(d) is None:
                out[f"base: {d.signature}"] = out.get(f"base: {d.signature}", 0) + 1
        return out

    def report(self, *, examples: bool = True) -> list[str]:
        v = self.verdicts
        lines = [
            f"seed {self.seed}: {self.bases} base objects, {self.mutated} mutated objects",
            f"agreement {self.agreement:.2%}: {AGREE_ACCEPT} {v[AGREE_ACCEPT]}, {AGREE_REJECT} "
            f"{v[AGREE_REJECT]}, {LOADER_ONLY} {v[LOADER_ONLY]}, {SERVER_ONLY} {v[SERVER_ONLY]}",
        ]
        for kind, c in sorted(self.by_kind.items()):
            lines.append(f"  {kind}: " + ", ".join(f"{k} {c[k]}" for k in sorted(c)))
        lines.append(f"base objects: {dict(sorted(self.base_verdicts.items()))}")
        for d, ex in self.base_disagreements:
            declared = declared_class(d)
            lines.append(f"  base {d.signature}  [{declared.name if declared else 'UNDECLARED'}]")
            if examples:
                lines += _example_lines(ex)
        lines.append("disagreement classes:")
        for (verdict, name), n in sorted(self.classes().items(), key=lambda kv: -kv[1]):
            signatures = sum(
                1
                for s in self.signatures
                if self.class_of(s) == name and self.first[s][0].verdict == verdict
            )
            lines.append(f"  {n:6d}  {verdict}: {name} ({signatures} signatures)")
        lines.append("signatures:")
        for sig, n in self.signatures.most_common():
            lines.append(f"  {n:6d}  {sig}  [{self.class_of(sig)}]")
            if examples:
                lines += _example_lines(self.first[sig][1])
        return lines


def _example_lines(ex: Example) -> list[str]:
    out = [f"          e.g. {ex.source}: {ex.mutation}"]
    out += [f"            loader: {e[:160]}" for e in ex.loader_errors[:2]]
    out += [f"            server: {e[:160]}" for e in ex.server_errors[:2]]
    return out


def _example(base: Base, mutation: Mutation | None, outcome: Outcome) -> Example:
    return Example(
        base.source,
        mutation.describe() if mutation is not None else "(unmutated)",
        tuple(f"{path}: {message}" if path else message for path, message in outcome.loader_errors),
        tuple(e["error"] for e in outcome.server_errors),
    )


def run(
    oracle: Oracle,
    *,
    mutations: int,
    seed: int = 0,
    bases: Sequence[Base] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Result:
    """``mutations`` mutated objects, round robin over the ``bases`` both sides accept."""
    result = Result(seed=seed)
    pool = list(bases) if bases is not None else base_objects()
    result.bases = len(pool)
    valid: list[Base] = []
    for base in pool:
        outcome = ask(oracle, base.obj, base.context)
        result.base_verdicts[outcome.verdict] += 1
        if outcome.verdict == AGREE_ACCEPT:
            valid.append(base)
        elif outcome.verdict != AGREE_REJECT:
            d = disagreement(base.kind, outcome, None)
            result.base_disagreements.append((d, _example(base, None, outcome)))
    if not valid:
        return result
    donors: dict[str, list[Obj]] = {}
    for base in valid:
        donors.setdefault(base.kind, []).append(base.obj)
    rng = random.Random(seed)
    for i in range(mutations):
        base = valid[i % len(valid)]
        mutation = mutate(base.obj, rng, donors[base.kind])
        outcome = ask(oracle, mutation.obj, base.context)
        result.verdicts[outcome.verdict] += 1
        result.by_kind.setdefault(base.kind, Counter())[outcome.verdict] += 1
        if outcome.verdict in (LOADER_ONLY, SERVER_ONLY):
            d = disagreement(base.kind, outcome, mutation)
            result.signatures[d.signature] += 1
            result.first.setdefault(d.signature, (d, _example(base, mutation, outcome)))
        if progress is not None and (i + 1) % 1000 == 0:
            progress(i + 1)
    return result
