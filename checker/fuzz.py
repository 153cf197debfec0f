"""A fuzzing campaign: bad input must end in a clean error or an answer, never a traceback or a
hang.

Two kinds of input, each drawn from a seed by a few random mutations:

* **manifests** — every manifest in ``examples/`` and the scenario and fixture manifests under
  ``tests/`` (a scenario's ``objects:``), mutated structure-aware (:func:`mutate_manifest`: drop a
  field, retype a value, extreme quantities, unicode and control characters, lists for maps and
  maps for lists, duplicated objects, dangling references, a field grafted from another seed, and
  a few edits of the YAML text). Each goes through ``schedspec eval``, ``explain``, ``schedule``
  (the CLI's ``main``, in-process, output captured), the spec↔impl crosscheck of that one cluster
  (:class:`~schedspec.checker.differential.Checker`) and, when the seed has node groups or the
  input has Cluster API objects, ``schedspec autoscale``;
* **specs** — the bundled ``scheduler.tla``, ``textbook.tla`` and ``autoscaler.tla``, mutated
  token by token (:func:`mutate_spec`: drop, duplicate or swap a token, change an operator,
  rename an identifier, break a bullet list's indentation, insert unicode, truncate) through
  ``schedspec check`` and, when the text parses, ``schedspec eval`` on a small cluster.

Every input is classified (:class:`Outcome`): **error** (exit 2 with a message), **ok** (exit 0
or 1, or 3), **crash** (an exception out of ``main`` or the crosscheck, a traceback printed, an
exception impl raised inside the crosscheck's guards, exit 2 with no message, any other exit
code) or **hang** (over the per-input limit: a ``SIGALRM`` in the worker; a worker stuck past the
limit in C code is killed by the parent and replaced). A crash's signature is the exception type
and the innermost frame in schedspec (its module and function); the campaign keeps, per
signature, the first input and a greedily minimised copy of it (``--out``).

Input ``i`` of a campaign depends only on ``(seed, kind, i)``: ``--only KIND:I`` reruns one.
The command is ``schedspec fuzz`` (this module sits below the CLI: it is handed ``main``).

    schedspec fuzz --manifests 100000 --specs 100000 --jobs 2 --seed 1 --out DIR

Only pure work is memoised (a bundled spec's ``load_spec``, and ``parse`` of a text already
parsed): the commands run as they run from a shell, without paying twice for the same parse.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import io
import json
import math
import multiprocessing
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

__all__ = [
    "Campaign",
    "FuzzInput",
    "Outcome",
    "add_parser",
    "manifest_input",
    "mutate_manifest",
    "mutate_spec",
    "run_campaign",
    "run_fuzz",
    "run_input",
    "spec_input",
    "use_entry",
]

ROOT = Path(__file__).resolve().parent.parent
REPO_DIRS = tuple(str(ROOT / d) + os.sep for d in ("spec", "impl", "checker", "schedspec"))
SELF = str(Path(__file__).resolve())

# ------------------------------------------------------------------------------------ outcomes


@dataclass(frozen=True)
class Outcome:
    """One input's verdict: ``kind`` is error | ok | crash | hang; ``stage`` the command that
    crashed or hung (or the last one run); ``signature`` a crash's or hang's identity."""

    kind: str
    stage: str = ""
    signature: str = ""
    detail: str = ""
    stages: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class FuzzInput:
    """A mutated input: a manifest file's text (with the autoscale flags of its seed) or a spec's
    text (``name`` is its module's file name)."""

    kind: str  # "manifest" | "spec"
    index: int
    seed_source: str
    text: str
    mutations: tuple[str, ...]
    flags: tuple[str, ...] = ()
    name: str = ""
    objects: Any = None  # the mutated objects, when the last edit kept them structured


class _Hang(BaseException):
    """Raised by the alarm: not an Exception, so no ``except Exception`` in schedspec eats it."""


def _frame_of(tb: list[traceback.FrameSummary]) -> str:
    for frame in reversed(tb):
        if frame.filename.startswith(REPO_DIRS) and frame.filename != SELF:
            rel = os.path.relpath(frame.filename, ROOT)
            return f"{rel}:{frame.name}"
    outside = [f for f in tb if f.filename != SELF]  # a library's frame, when no schedspec one
    return f"{Path(outside[-1].filename).name}:{outside[-1].name}" if outside else "?"


def signature_of(stage: str, err: BaseException) -> tuple[str, str]:
    """(signature, detail) of an exception: its type and innermost schedspec frame; the detail
    is the message and the traceback."""
    tb = traceback.extract_tb(err.__traceback__)
    sig = f"{stage}: {type(err).__name__} at {_frame_of(tb)}"
    detail = "".join(traceback.format_exception(err))[-4000:]
    return sig, detail


def _printed_traceback(stage: str, text: str) -> tuple[str, str]:
    files = re.findall(r'File "([^"]+)", line \d+, in (\S+)', text)
    inner = "?"
    for filename, name in reversed(files):
        if filename.startswith(REPO_DIRS):
            inner = f"{os.path.relpath(filename, ROOT)}:{name}"
            break
    last = [ln for ln in text.strip().splitlines() if ln and not ln.startswith(" ")]
    kind = last[-1].split(":")[0] if last else "?"
    return f"{stage}: printed traceback {kind} at {inner}", text[-4000:]


# ------------------------------------------------------------------------------------ running


class _Stage(Exception):
    """A stage's crash, carrying its outcome."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.signature)
        self.outcome = outcome


Entry = Callable[[list[str]], int]
_ENTRY: list[Entry] = []


def use_entry(entry: Entry) -> None:
    """The CLI's ``main``, which every command of an input goes through (set before a campaign:
    forked workers inherit it)."""
    _ENTRY[:] = [entry]


def _cli(stage: str, argv: Sequence[str]) -> tuple[int, str, str]:
    """``schedspec argv`` in-process: (exit code, stdout, stderr); raises :class:`_Stage` for a
    crash."""
    if not _ENTRY:
        raise RuntimeError("schedspec.checker.fuzz: use_entry(schedspec.cli.main) first")
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc: Any = _ENTRY[0](list(argv))
            except SystemExit as exit_:
                rc = exit_.code if isinstance(exit_.code, int) else 2
    except _Hang:
        raise
    except Exception as error:
        sig, detail = signature_of(stage, error)
        raise _Stage(Outcome("crash", stage, sig, detail)) from None
    stdout, stderr = out.getvalue(), err.getvalue()
    for text in (stderr, stdout):
        if "Traceback (most recent call last)" in text:
            sig, detail = _printed_traceback(stage, text)
            raise _Stage(Outcome("crash", stage, sig, detail))
    if rc not in (0, 1, 2, 3):
        raise _Stage(Outcome("crash", stage, f"{stage}: exit {rc}", stderr[-2000:]))
    if rc == 2 and not (stderr.strip() or stdout.strip()):  # check reports on stdout
        raise _Stage(Outcome("crash", stage, f"{stage}: exit 2 without a message", ""))
    return rc, stdout, stderr


class _Guarded:
    """Exceptions impl raised inside the crosscheck's guards (which turn them into an ``error``
    answer): a crash of impl on an input the loader accepted."""

    def __init__(self) -> None:
        self.caught: list[BaseException] = []

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        from schedspec.checker import differential as d

        guard, guard_run = d._guard, d._guard_run

        def watched_guard(fn: Any, i: Any, pod: Any, ni: Any) -> object:
            try:
                return fn(i, pod, ni)
            except Exception as err:
                self.caught.append(err)
                return guard(fn, i, pod, ni)

        def watched_run(fwk: Any, i: Any, pod: Any) -> Any:
            try:
                return d._run_pod(fwk, i, pod)
            except Exception as err:
                self.caught.append(err)
                return guard_run(fwk, i, pod)

        d._guard, d._guard_run = watched_guard, watched_run  # type: ignore[assignment]
        try:
            yield
        finally:
            d._guard, d._guard_run = guard, guard_run  # type: ignore[assignment]


_CHECKER: Any = None


def _checker() -> Any:
    global _CHECKER
    if _CHECKER is None:
        from schedspec.checker.differential import Checker

        _CHECKER = Checker("scheduler")
    return _CHECKER


def _pod_to_explain(cluster: Any) -> str | None:
    """Its first pending pod, else its first pod; None for a cluster with no pod (explain would
    only say so: an ``explain 2`` in the counts is then a pod explain could not explain)."""
    from schedspec.cluster import object_key

    pods = cluster.pending_pods() or tuple(cluster.pods)
    return object_key(pods[0]) if pods else None


CAPI_KINDS = frozenset({"MachineDeployment", "MachineSet"})


def _has_capi(text: str) -> bool:
    return any(f"kind: {k}" in text or f'"kind": "{k}"' in text for k in CAPI_KINDS)


def _run_manifest(inp: FuzzInput, workdir: Path) -> Outcome:
    from schedspec.cluster import load
    from schedspec.errors import SchedspecError

    path = workdir / "input.yaml"
    path.write_text(inp.text, encoding="utf-8", errors="surrogatepass")
    stages: list[tuple[str, str]] = []
    rc, _, _ = _cli("eval", ["eval", str(path)])
    stages.append(("eval", str(rc)))
    try:
        cluster = load(path)
    except SchedspecError:
        return Outcome("error", "eval", stages=tuple(stages))
    except _Hang:
        raise
    except Exception as error:
        sig, detail = signature_of("load", error)
        return Outcome("crash", "load", sig, detail, tuple(stages))
    pod = _pod_to_explain(cluster)
    if pod is not None:
        rc, _, _ = _cli("explain", ["explain", str(path), "--pod", pod])
        stages.append(("explain", str(rc)))
    rc, _, _ = _cli("schedule", ["schedule", str(path)])
    stages.append(("schedule", str(rc)))
    guarded = _Guarded()
    try:
        with guarded.watching():
            result = _checker().check(cluster)
    except _Hang:
        raise
    except SchedspecError:
        stages.append(("crosscheck", "error"))
    except Exception as error:
        sig, detail = signature_of("crosscheck", error)
        return Outcome("crash", "crosscheck", sig, detail, tuple(stages))
    else:
        stages.append(("crosscheck", f"{len(result.undeclared)} undeclared"))
    if guarded.caught:
        sig, detail = signature_of("crosscheck (impl, guarded)", guarded.caught[0])
        return Outcome("crash", "crosscheck", sig, detail, tuple(stages))
    if inp.flags or _has_capi(inp.text):
        rc, _, _ = _cli("autoscale", ["autoscale", str(path), *inp.flags])
        stages.append(("autoscale", str(rc)))
    return Outcome("ok", stages[-1][0], stages=tuple(stages))


SYNTAX_CODE = re.compile(r"\bSPC0\d\d\b")


def _run_spec(inp: FuzzInput, workdir: Path, cluster_file: Path) -> Outcome:
    path = workdir / inp.name
    path.write_text(inp.text, encoding="utf-8", errors="surrogatepass")
    stages: list[tuple[str, str]] = []
    rc, out, _ = _cli("check", ["check", str(path)])
    stages.append(("check", str(rc)))
    if rc == 2 and (SYNTAX_CODE.search(out) or not out.strip()):
        return Outcome("error", "check", stages=tuple(stages))
    rc, _, _ = _cli("eval", ["eval", str(cluster_file), "--spec", str(path)])
    stages.append(("eval", str(rc)))
    first = stages[0][1] == "2" or rc == 2
    return Outcome("error" if first else "ok", "eval", stages=tuple(stages))


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Hang


def run_input(inp: FuzzInput, workdir: Path, timeout: float, cluster_file: Path) -> Outcome:
    """One input through its commands, under a ``timeout``-second alarm (main thread only)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        if inp.kind == "manifest":
            return _run_manifest(inp, workdir)
        return _run_spec(inp, workdir, cluster_file)
    except _Stage as stage:
        return stage.outcome
    except _Hang as hang:
        tb = traceback.extract_tb(hang.__traceback__)
        return Outcome("hang", "", f"hang (over {timeout:g} s) at {_frame_of(tb)}", "")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------------------------ memos


def _memoise() -> None:
    """Pure work done once: a bundled spec's ``load_spec`` (eval and explain load it per call),
    and ``parse`` of a text just parsed (check, then eval, parse the same mutated text)."""
    from schedspec.spec import load as load_mod

    cli = sys.modules[_ENTRY[0].__module__]  # the CLI's module, whose names the commands call
    if getattr(cli, "_fuzz_memoised", False):
        return
    real_load, real_parse = load_mod.load_spec, load_mod.parse
    bundled: dict[tuple[str, str | None], Any] = {}
    parsed: dict[tuple[str, str], Any] = {}

    def load_spec(spec: str, view: str | None = None) -> Any:
        if spec not in load_mod.BUNDLED:
            return real_load(spec, view)
        key = (spec, view)
        if key not in bundled:
            bundled[key] = real_load(spec, view)
        return bundled[key]

    def parse(text: str, file: str = "<string>") -> Any:
        key = (text, file)
        if key not in parsed:
            if len(parsed) > 8:
                parsed.clear()
            parsed[key] = real_parse(text, file)
        return parsed[key]

    cli.load_spec = load_spec  # type: ignore[assignment]
    cli.parse = parse  # type: ignore[assignment]
    load_mod.parse = parse  # type: ignore[assignment]
    cli._fuzz_memoised = True  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------ seeds


@dataclass(frozen=True)
class ManifestSeed:
    source: str
    objects: list[dict[str, Any]]
    flags: tuple[str, ...]


MANIFEST_DIRS = ("examples", "tests")
NODE_GROUP_LABEL = "eks.amazonaws.com/nodegroup"


def _derived_flags(objects: list[dict[str, Any]]) -> tuple[str, ...]:
    """Node groups for a seed without ``flags:``: every value of the EKS node-group label."""
    groups = sorted(
        {
            str(o["metadata"]["labels"][NODE_GROUP_LABEL])
            for o in objects
            if isinstance(o, dict)
            and o.get("kind") == "Node"
            and isinstance(o.get("metadata"), dict)
            and isinstance(o["metadata"].get("labels"), dict)
            and NODE_GROUP_LABEL in o["metadata"]["labels"]
        }
    )
    if not groups:
        return ()
    return (f"--node-group-label={NODE_GROUP_LABEL}", *(f"--nodes=0:5:{g}" for g in groups))


@functools.cache
def manifest_seeds(
    root: Path = ROOT, dirs: tuple[str, ...] = MANIFEST_DIRS
) -> tuple[ManifestSeed, ...]:
    """Every manifest file (and every scenario's ``objects:``) under ``dirs`` of ``root`` whose
    YAML parses into mappings; an invalid fixture is a seed too (its mutations are errors).
    Read once: the seeds are never modified (a mutation works on a copy)."""
    seeds: list[ManifestSeed] = []
    for d in dirs:
        files = sorted(
            p
            for p in (root / d).rglob("*")
            if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
        )
        for f in files:
            try:
                docs = list(yaml.load_all(f.read_text(encoding="utf-8"), _Loader))
            except (yaml.YAMLError, UnicodeDecodeError):
                continue
            flags: tuple[str, ...] = ()
            if len(docs) == 1 and isinstance(docs[0], dict) and "kind" not in docs[0]:
                scenario = docs[0]
                if not isinstance(scenario.get("objects"), str):
                    continue
                flags = tuple(str(x) for x in scenario.get("flags") or ())
                try:
                    docs = list(yaml.load_all(scenario["objects"], _Loader))
                except yaml.YAMLError:
                    continue
            objects = [doc for doc in docs if isinstance(doc, dict)]
            if len(docs) == 1 and objects and objects[0].get("kind") == "List":
                items = objects[0].get("items")
                objects = (
                    [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []
                )
            if not objects:
                continue
            rel = str(f.relative_to(root))
            seeds.append(ManifestSeed(rel, objects, flags or _derived_flags(objects)))
    return tuple(seeds)


SPECS = ("scheduler", "textbook", "autoscaler")


def spec_seeds() -> list[tuple[str, str]]:
    from schedspec.spec.load import read_spec

    return [(name, read_spec(name)[1]) for name in SPECS]


# ------------------------------------------------------------------------------------ manifests

Path_ = tuple[Any, ...]


def paths(data: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every field path of ``data`` (itself first, as ``()``)."""
    out = [prefix]
    if isinstance(data, dict):
        for key, item in data.items():
            out += paths(item, (*prefix, key))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            out += paths(item, (*prefix, i))
    return out


def _get(doc: Any, path: Path_) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _set(doc: Any, path: Path_, value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


def _delete(doc: Any, path: Path_) -> None:
    parent = _get(doc, path[:-1])
    if isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent.pop(path[-1])


EXTREME_QUANTITIES: tuple[Any, ...] = (
    "1e308", "-1", "99999999999999999999Ei", "0.0000001m", "1e-308", "NaN", "+Inf", "-Inf",
    "0x10", "1.5.5", "", " 1", "1 Gi", "9223372036854775807", "9223372036854775808",
    "9223372036854775808m", "-0", "1E3", "1e", "Ki", "1Ki1", "٣", "１", "1e18Ei", "0.5",
    "123456789012345678901234567890", "1m", "0", ".5", "5.", "+1", "1Gi ", "1e-7",
    1e308, -1, 10**30, 2**63, -(2**63) - 1, 0.1, float("inf"), float("nan"), True, None,
)  # fmt: skip
STRINGS: tuple[str, ...] = (
    "", " ", "\x00", "a\x00b", "\x1b[31mred", "\u202eevil", "é", "naïve", "🙂", "日本語",
    "\ufeffbom", "a\nb", "a\tb", "a" * 300, "A_B", "-a-", ".", "..", "a/b", "a/b/c",
    "kubernetes.io/", "/x", "x/", "UPPER", "with space", "\u0301", "\u200b", "ǅ", "İ",
    "${x}", "%s", "{{x}}", "\\", '"', "'", "#", "- a", ": b", "*", "&a", "!!str", "~", "null",
    "true", "0", "-1", "1.5", "nodeName", "Exists", "In", "NoSchedule", "Always",
)  # fmt: skip
DANGLING = "no-such-object"
FIELD_NAMES = (
    "nodeName", "nominatedNodeName", "priority", "priorityClassName", "preemptionPolicy",
    "schedulerName", "tolerations", "affinity", "nodeSelector", "topologySpreadConstraints",
    "containers", "initContainers", "resources", "requests", "limits", "overhead", "ports",
    "hostPort", "labels", "annotations", "taints", "unschedulable", "allocatable", "capacity",
    "conditions", "phase", "deletionTimestamp", "ownerReferences", "selector", "minAvailable",
    "maxUnavailable", "value", "globalDefault", "replicas", "volumes", "restartPolicy",
    "startTime", "status", "spec", "metadata", "namespace", "name", "uid", "kind", "apiVersion",
    "matchLabels", "matchExpressions", "key", "operator", "values", "weight", "maxSkew",
    "topologyKey", "whenUnsatisfiable", "labelSelector", "containerStatuses", "allocatedResources",
    "resizePolicy", "hostNetwork", "profiles", "plugins", "pluginConfig",
)  # fmt: skip
KINDS = (
    "Pod", "Node", "PriorityClass", "PodDisruptionBudget", "Namespace", "ConfigMap",
    "DaemonSet", "ReplicaSet", "MachineDeployment", "MachineSet", "KubeSchedulerConfiguration",
    "List", "Deployment", "StatefulSet", "Job", "", "pod",
)  # fmt: skip
QUANTITY_PARENTS = frozenset({"requests", "limits", "allocatable", "capacity", "overhead",
                              "allocatedResources"})  # fmt: skip


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 2 and roll < 0.15:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 2 and roll < 0.3:
        return {
            rng.choice((*STRINGS[:8], *FIELD_NAMES)): _random_value(rng, depth + 1)
            for _ in range(rng.randint(0, 3))
        }
    return rng.choice(
        (
            None, True, False, 0, 1, -1, 2**31, 2**63, -(2**63), 10**30, 0.5, -0.0, 1e308,
            float("nan"), float("inf"), rng.choice(STRINGS), rng.choice(EXTREME_QUANTITIES),
        )
    )  # fmt: skip


def _retyped(rng: random.Random, value: Any) -> Any:
    options: list[Any] = [
        rng.choice(STRINGS),
        str(value)[:50] if not isinstance(value, dict | list) else "x",
        rng.choice((0, 1, -1, 2**31, 2**63, 10**30)),
        rng.choice((0.5, 1e308, float("nan"), float("inf"), -0.0)),
        [value],
        [],
        [1, "a"],
        {"a": value},
        {},
        rng.choice((True, False)),
        None,
    ]
    if isinstance(value, dict):
        options.append(list(value.items()))
        options.append(list(value.values()))
    if isinstance(value, list):
        options.append({str(i): v for i, v in enumerate(value)})
        options.append(value[0] if value else {})
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        options.append(int(value))
    if isinstance(value, int | float) and not isinstance(value, bool):
        options.append(str(value))
    return rng.choice(options)


class _Mutator:
    """Structure-aware edits of one cluster's objects (a list of manifests)."""

    def __init__(self, rng: random.Random, objects: list[Any], corpus: Sequence[ManifestSeed]):
        self.rng = rng
        self.objs = objects
        self.corpus = corpus

    def inner_paths(self, want: Callable[[Path_, Any], bool] | None = None) -> list[Path_]:
        out = []
        for p in paths(self.objs):
            if len(p) < 2:
                continue
            if want is None or want(p, _get(self.objs, p)):
                out.append(p)
        return out

    def pick(self, want: Callable[[Path_, Any], bool] | None = None) -> Path_ | None:
        found = self.inner_paths(want)
        return self.rng.choice(found) if found else None

    def objects_of(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objs if isinstance(o, dict) and o.get("kind") == kind]

    # -- the operators: each returns its description, or None when it does not apply --

    def drop(self) -> str | None:
        p = self.pick()
        if p is None:
            return None
        _delete(self.objs, p)
        return f"drop {_show(p)}"

    def retype(self) -> str | None:
        p = self.pick()
        if p is None:
            return None
        _set(self.objs, p, _retyped(self.rng, _get(self.objs, p)))
        return f"retype {_show(p)}"

    def quantity(self) -> str | None:
        def is_quantity(p: Path_, v: Any) -> bool:
            return (len(p) >= 2 and p[-2] in QUANTITY_PARENTS) or (
                isinstance(v, str) and bool(re.fullmatch(r"[0-9.]+[a-zA-Z]{0,2}", v))
            )

        p = self.pick(is_quantity) or self.pick()
        if p is None:
            return None
        _set(self.objs, p, self.rng.choice(EXTREME_QUANTITIES))
        return f"quantity {_show(p)}"

    def unicode(self) -> str | None:
        def is_name(p: Path_, v: Any) -> bool:
            named = {"name", "namespace", "nodeName", "key", "topologyKey", "priorityClassName"}
            return isinstance(v, str) and (
                p[-1] in named or (len(p) >= 2 and p[-2] in ("labels", "matchLabels"))
            )

        p = self.pick(is_name) or self.pick(lambda p, v: isinstance(v, str))
        if p is None:
            return None
        value = self.rng.choice(STRINGS)
        if self.rng.random() < 0.3:
            original = _get(self.objs, p)
            cut = self.rng.randint(0, len(original))
            value = original[:cut] + value + original[cut:]
        if self.rng.random() < 0.3 and isinstance(p[-1], str) and len(p) >= 2:
            parent = _get(self.objs, p[:-1])
            if isinstance(parent, dict):  # the key, not the value
                parent[value] = parent.pop(p[-1])
                return f"unicode key {_show(p)}"
        _set(self.objs, p, value)
        return f"unicode {_show(p)}"

    def shape(self) -> str | None:
        p = self.pick(lambda p, v: isinstance(v, dict | list))
        if p is None:
            return None
        v = _get(self.objs, p)
        if isinstance(v, dict):
            new: Any = self.rng.choice(([v], list(v.items()), [{k: x} for k, x in v.items()]))
        else:
            new = self.rng.choice(({str(i): x for i, x in enumerate(v)}, {"items": v}, *v[:1]))
        _set(self.objs, p, new)
        return f"shape {_show(p)}"

    def duplicate(self) -> str | None:
        named = [
            o for o in self.objs if isinstance(o, dict) and isinstance(o.get("metadata"), dict)
        ]
        if not named:
            return None
        a = self.rng.choice(named)
        same_kind = [o for o in named if o is not a and o.get("kind") == a.get("kind")]
        if same_kind and self.rng.random() < 0.5:
            b = self.rng.choice(same_kind)
            b["metadata"]["name"] = a["metadata"].get("name")
            return f"same name {a.get('kind')}"
        self.objs.insert(self.rng.randint(0, len(self.objs)), copy.deepcopy(a))
        return f"duplicate {a.get('kind')}"

    def dangling(self) -> str | None:
        rng = self.rng
        pods, pdbs = self.objects_of("Pod"), self.objects_of("PodDisruptionBudget")
        choices = []
        if pods:
            pod = rng.choice(pods)
            spec = pod.setdefault("spec", {}) if isinstance(pod.get("spec", {}), dict) else None
            status = (
                pod.setdefault("status", {}) if isinstance(pod.get("status", {}), dict) else None
            )
            meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else None
            if spec is not None:
                choices += [
                    lambda: spec.__setitem__("nodeName", DANGLING),
                    lambda: spec.__setitem__("priorityClassName", DANGLING),
                    lambda: spec.__setitem__("schedulerName", DANGLING),
                ]
            if status is not None:
                choices.append(lambda: status.__setitem__("nominatedNodeName", DANGLING))
            if meta is not None:
                ref = {"apiVersion": "apps/v1", "kind": rng.choice(("ReplicaSet", "DaemonSet",
                       "StatefulSet", "Job", "MachineSet")), "name": DANGLING, "uid": DANGLING,
                       "controller": rng.choice((True, False))}  # fmt: skip
                choices.append(
                    lambda: meta.__setitem__("ownerReferences", [ref, ref][: rng.randint(1, 2)])
                )
        if pdbs:
            pdb = rng.choice(pdbs)
            if isinstance(pdb.get("spec"), dict):
                sel = rng.choice(({"matchLabels": {"app": DANGLING}}, {}, {"matchExpressions": [
                    {"key": "app", "operator": "NotIn", "values": []}]}))  # fmt: skip
                choices.append(lambda: pdb["spec"].__setitem__("selector", sel))
        for kind in ("Node", "PriorityClass", "Namespace"):
            found = self.objects_of(kind)
            if found:
                victim = rng.choice(found)
                choices.append(lambda v=victim: self.objs.remove(v))
        if not choices:
            return None
        rng.choice(choices)()
        return "dangling reference"

    def graft(self) -> str | None:
        """A field of another seed's object of the same kind, at the same path."""
        targets = [o for o in self.objs if isinstance(o, dict)]
        if not targets or not self.corpus:
            return None
        target = self.rng.choice(targets)
        donors = [
            o for s in self.rng.sample(list(self.corpus), min(8, len(self.corpus)))
            for o in s.objects if o.get("kind") == target.get("kind")
        ]  # fmt: skip
        if not donors:
            return None
        donor = self.rng.choice(donors)
        p = self.rng.choice(paths(donor)[1:] or [()])
        if not p:
            return None
        node: Any = target
        for step in p[:-1]:
            if isinstance(node, dict) and isinstance(step, str):
                nxt = node.get(step)
                if not isinstance(nxt, dict | list):
                    nxt = node[step] = (
                        {} if isinstance(_get(donor, p[: p.index(step) + 1]), dict) else []
                    )
                node = nxt
            elif isinstance(node, list) and isinstance(step, int):
                if not node:
                    node.append({})
                node = node[min(step, len(node) - 1)]
            else:
                return None
        value = copy.deepcopy(_get(donor, p))
        if isinstance(node, dict):
            node[p[-1] if isinstance(p[-1], str) else str(p[-1])] = value
        elif isinstance(node, list):
            node.append(value)
        else:
            return None
        return f"graft {_show(p)}"

    def add_field(self) -> str | None:
        p = self.pick(lambda p, v: isinstance(v, dict)) if self.rng.random() < 0.9 else None
        target = _get(self.objs, p) if p else self.rng.choice(self.objs) if self.objs else None
        if not isinstance(target, dict):
            return None
        key = self.rng.choice(FIELD_NAMES)
        target[key] = _random_value(self.rng)
        return f"add {key}"

    def random_value(self) -> str | None:
        p = self.pick()
        if p is None:
            return None
        _set(self.objs, p, _random_value(self.rng))
        return f"value {_show(p)}"

    def kind(self) -> str | None:
        objs = [o for o in self.objs if isinstance(o, dict)]
        if not objs:
            return None
        o = self.rng.choice(objs)
        if self.rng.random() < 0.3:
            self.objs.remove(o)
            return "drop object"
        if self.rng.random() < 0.5:
            o["kind"] = self.rng.choice(KINDS)
            return "kind"
        o["apiVersion"] = self.rng.choice(
            ("v1", "apps/v1", "policy/v1", "v2", "", "cluster.x-k8s.io/v1beta1")
        )
        return "apiVersion"

    OPERATORS = (
        ("drop", 3), ("retype", 3), ("quantity", 2), ("unicode", 2), ("shape", 2),
        ("duplicate", 1), ("dangling", 2), ("graft", 3), ("add_field", 2), ("random_value", 1),
        ("kind", 1),
    )  # fmt: skip


def _show(p: Path_) -> str:
    return ".".join(str(s) for s in p)


TEXT_EDITS = ("truncate", "delete line", "duplicate line", "indent", "insert char", "tab")


def _text_edit(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.split("\n")
    edit = rng.choice(TEXT_EDITS)
    i = rng.randrange(len(lines))
    if edit == "truncate":
        return text[: rng.randrange(len(text) + 1)], edit
    if edit == "delete line":
        del lines[i]
    elif edit == "duplicate line":
        lines.insert(i, lines[i])
    elif edit == "indent":
        lines[i] = " " * rng.randint(0, 6) + lines[i].lstrip(" ")
    elif edit == "tab":
        lines[i] = "\t" + lines[i]
    else:
        c = rng.randint(0, len(lines[i]))
        ch = rng.choice(("{", "}", "[", "]", ":", "-", "'", '"', "&", "*", "!", "|", ">", "%",
                         "\x00", "\x85", "\u2028", "\ufeff", "é", "#", ",", "?"))  # fmt: skip
        lines[i] = lines[i][:c] + ch + lines[i][c:]
    return "\n".join(lines), edit


def dump(objects: list[Any]) -> str:
    return yaml.safe_dump_all(objects, allow_unicode=True, sort_keys=False, width=1000)


def mutate_manifest(
    rng: random.Random, seed: ManifestSeed, corpus: Sequence[ManifestSeed]
) -> tuple[list[Any], str, tuple[str, ...], bool]:
    """1–4 structure-aware edits of ``seed``'s objects (and, now and then, one edit of the YAML
    text after them): (objects, text, what was done, whether the text is the objects' dump)."""
    objs = copy.deepcopy(seed.objects)
    mutator = _Mutator(rng, objs, corpus)
    names = [n for n, _ in _Mutator.OPERATORS]
    weights = [w for _, w in _Mutator.OPERATORS]
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        for _attempt in range(5):
            what = getattr(mutator, rng.choices(names, weights)[0])()
            if what is not None:
                done.append(what)
                break
    text = dump(objs)
    if rng.random() < 0.08:
        text, edit = _text_edit(rng, text)
        done.append(f"text: {edit}")
        return objs, text, tuple(done), False
    return objs, text, tuple(done), True


# ------------------------------------------------------------------------------------ specs

TOKEN = re.compile(
    r"""(?P<comment>\\\*[^\n]*|\(\*.*?\*\))
      |(?P<string>"(?:[^"\\\n]|\\.)*")
      |(?P<ws>\s+)
      |(?P<num>\d+)
      |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      |(?P<op>/\\|\\/|\\[a-z]+|[=<>~#\-|:.\[\]@!+*/&^]{2,3}|.)""",
    re.S | re.X,
)
OPERATORS = (
    "∧", "∨", "¬", "⇒", "≡", "=", "≠", "#", "<", "≤", ">", "≥", "∈", "∉", "⊆", "∪", "∩", "\\",
    "+", "-", "*", "÷", "%", "..", "↦", "→", "≜", "≝", "==", "/\\", "\\/", "=>", "~", "'", ":",
    ",", ".", "(", ")", "[", "]", "{", "}", "⟨", "⟩", "<<", ">>", "|", "@", "!", "∀", "∃",
    "\\A", "\\E", "\\in", "\\X", "×", "<-", "|->", "->", "_", "$", "^", "&", "?",
)  # fmt: skip
KEYWORDS = (
    "IF", "THEN", "ELSE", "CASE", "OTHER", "LET", "IN", "LAMBDA", "CHOOSE", "EXCEPT", "DOMAIN",
    "SUBSET", "UNION", "TRUE", "FALSE", "MODULE", "EXTENDS", "CONSTANT", "CONSTANTS", "VARIABLE",
    "LOCAL", "INSTANCE", "WITH", "RECURSIVE", "BOOLEAN", "STRING", "Nat", "Int", "Len", "Seq",
    "Head", "Tail", "Append", "Cardinality", "SelectSeq", "SortSeq", "FoldSet", "Max", "Min",
)  # fmt: skip
UNICODE = ("é", "🙂", "\u200b", "\u202e", "\x00", "\x1b", "\ufeff", "日", "\u0301", "\t", "\r",
           "\x0c", "\u2028", "ǅ", "ℕ", "∞", "²", "٣")  # fmt: skip
NUMBERS = ("0", "-1", "1", "99999999999999999999999999999", str(2**63), "1" * 400, "007")
BULLET = re.compile(r"^(\s*)(∧|∨|/\\|\\/)", re.M)


def _tokens(text: str) -> list[tuple[str, str]]:
    return [(m.lastgroup or "op", m.group()) for m in TOKEN.finditer(text)]


def mutate_spec(rng: random.Random, text: str) -> tuple[str, tuple[str, ...]]:
    """1–3 token-level edits of a spec's text."""
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        text, what = _spec_edit(rng, text)
        done.append(what)
    return text, tuple(done)


def _spec_edit(rng: random.Random, text: str) -> tuple[str, str]:
    edit = rng.choice(
        ("drop", "duplicate", "swap", "operator", "rename", "indent", "unicode", "truncate",
         "number", "line", "splice", "keyword")
    )  # fmt: skip
    if edit == "truncate":
        cut = rng.randrange(len(text) + 1)
        return text[:cut], f"truncate at {cut}"
    if edit == "indent":
        bullets = list(BULLET.finditer(text))
        if bullets:
            m = rng.choice(bullets)
            new = " " * max(0, len(m.group(1).lstrip("\n")) + rng.choice((-3, -2, -1, 1, 2, 3)))
            if "\n" in m.group(1):
                new = m.group(1)[: m.group(1).rfind("\n") + 1] + new
            return text[: m.start()] + new + text[m.end(1) :], f"indent bullet at {m.start()}"
    if edit == "line":
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        how = rng.choice(("delete", "duplicate", "swap"))
        if how == "delete":
            del lines[i]
        elif how == "duplicate":
            lines.insert(i, lines[i])
        else:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines), f"{how} line {i + 1}"
    toks = _tokens(text)
    solid = [i for i, (k, _) in enumerate(toks) if k not in ("ws", "comment")]
    if not solid:
        return text + rng.choice(OPERATORS), "append"
    i = rng.choice(solid)
    kind, tok = toks[i]
    values = [t for _, t in toks]
    if edit == "drop":
        values[i] = ""
    elif edit == "duplicate":
        values[i] = tok + rng.choice(("", " ")) + tok
    elif edit == "swap":
        later = [j for j in solid if j > i]
        if later:
            j = later[0]
            values[i], values[j] = values[j], values[i]
    elif edit == "operator":
        ops = [j for j in solid if toks[j][0] == "op"]
        i = rng.choice(ops) if ops else i
        values[i] = rng.choice(OPERATORS)
    elif edit == "rename":
        idents = [j for j in solid if toks[j][0] == "ident"]
        if idents:
            i = rng.choice(idents)
            others = [toks[j][1] for j in idents]
            values[i] = rng.choice((rng.choice(others), rng.choice(KEYWORDS), toks[i][1] + "_",
                                    "Zz" + toks[i][1], toks[i][1].lower(), "x"))  # fmt: skip
    elif edit == "unicode":
        values[i] = rng.choice((tok + rng.choice(UNICODE), rng.choice(UNICODE) + tok,
                                rng.choice(UNICODE)))  # fmt: skip
    elif edit == "number":
        nums = [j for j in solid if toks[j][0] == "num"]
        i = rng.choice(nums) if nums else i
        values[i] = rng.choice(NUMBERS)
    elif edit == "splice":
        values[i] = toks[rng.choice(solid)][1]
    else:  # keyword
        values[i] = tok + " " + rng.choice((*KEYWORDS, *OPERATORS)) + " "
    return "".join(values), f"{edit} {kind} {tok[:20]!r} at token {i}"


# ------------------------------------------------------------------------------------ inputs


def manifest_input(seed: int, index: int, corpus: Sequence[ManifestSeed]) -> FuzzInput:
    rng = random.Random(f"{seed}/manifest/{index}")
    chosen = rng.choice(corpus)
    objects, text, done, structured = mutate_manifest(rng, chosen, corpus)
    return FuzzInput(
        "manifest", index, chosen.source, text, done, chosen.flags,
        objects=objects if structured else None,
    )  # fmt: skip


def spec_input(seed: int, index: int, specs: Sequence[tuple[str, str]]) -> FuzzInput:
    rng = random.Random(f"{seed}/spec/{index}")
    name, text = rng.choice(specs)
    mutated, done = mutate_spec(rng, text)
    return FuzzInput("spec", index, f"{name}.tla", mutated, done, name=f"{name}.tla")


# ------------------------------------------------------------------------------------ campaign


@dataclass
class Finding:
    signature: str
    count: int
    first: FuzzInput
    outcome: Outcome
    minimal: str | None = None


@dataclass
class Campaign:
    """The counts of a campaign, per kind of input, and its findings per signature."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    findings: dict[str, Finding] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    # per "kind stage result" (``spec eval 2``, ``manifest crosscheck 1 undeclared``), the
    # indices of its first inputs: a disagreement or a clean error past the loader, to rerun
    examples: dict[str, list[int]] = field(default_factory=dict)

    def add(self, inp: FuzzInput, outcome: Outcome) -> None:
        self.counts.setdefault(inp.kind, Counter())["inputs"] += 1
        self.counts[inp.kind][outcome.kind] += 1
        for stage, rc in outcome.stages:
            self.counts[inp.kind][f"{stage} {rc}"] += 1
            seen = self.examples.setdefault(f"{inp.kind} {stage} {rc}", [])
            if len(seen) < 5:
                seen.append(inp.index)
        if outcome.kind in ("crash", "hang"):
            found = self.findings.get(outcome.signature)
            if found is None:
                self.findings[outcome.signature] = Finding(outcome.signature, 1, inp, outcome)
            else:
                found.count += 1

    def total(self, what: str) -> int:
        return sum(c[what] for c in self.counts.values())

    def as_json(self) -> dict[str, Any]:
        return {
            "counts": {k: dict(sorted(c.items())) for k, c in self.counts.items()},
            "seconds": self.seconds,
            "examples": dict(sorted(self.examples.items())),
            "findings": [
                {
                    "signature": f.signature,
                    "count": f.count,
                    "kind": f.first.kind,
                    "index": f.first.index,
                    "seed_source": f.first.seed_source,
                    "mutations": list(f.first.mutations),
                    "minimal": f.minimal,
                }
                for f in self.findings.values()
            ],
        }


def _small_cluster(workdir: Path) -> Path:
    """The cluster a mutated spec is evaluated on: examples/preemption.yaml (two nodes, a
    PriorityClass, pending and bound pods)."""
    path = workdir / "cluster.yaml"
    path.write_text((ROOT / "examples" / "preemption.yaml").read_text(encoding="utf-8"))
    return path


def _light(inp: FuzzInput) -> FuzzInput:
    """``inp`` without its text, for the parent's counts."""
    return FuzzInput(inp.kind, inp.index, inp.seed_source, "", inp.mutations, inp.flags, inp.name)


def _make(kind: str, index: int, seed: int, ctx: _Context) -> FuzzInput:
    if kind == "manifest":
        return manifest_input(seed, index, ctx.corpus)
    return spec_input(seed, index, ctx.specs)


@dataclass
class _Context:
    corpus: Sequence[ManifestSeed]
    specs: list[tuple[str, str]]
    timeout: float


def _worker(conn: Connection, ctx: _Context, seed: int) -> None:
    """A worker process: receives (kind, index), answers (kind, index, Outcome)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _memoise()
    with tempfile.TemporaryDirectory(prefix="schedspec-fuzz-") as tmp:
        workdir = Path(tmp)
        cluster_file = _small_cluster(workdir)
        while True:
            try:
                task = conn.recv()
            except EOFError:
                return
            if task is None:
                return
            kind, index = task
            inp = _make(kind, index, seed, ctx)
            outcome = run_input(inp, workdir, ctx.timeout, cluster_file)
            conn.send((outcome, inp if outcome.kind in ("crash", "hang") else _light(inp)))


def _tasks(manifests: int, specs: int, first: int = 0) -> Iterator[tuple[str, int]]:
    """Manifests and specs interleaved in proportion, so a partial run has both; indices start
    at ``first`` (a long run split across processes or machines)."""
    m = s = 0
    while m < manifests or s < specs:
        if s >= specs or (m < manifests and m * max(specs, 1) <= s * max(manifests, 1)):
            yield "manifest", first + m
            m += 1
        else:
            yield "spec", first + s
            s += 1


def run_campaign(
    manifests: int,
    specs: int,
    *,
    seed: int = 0,
    jobs: int = 1,
    timeout: float = 30.0,
    corpus: Sequence[ManifestSeed] | None = None,
    deadline: float | None = None,
    progress: Callable[[Campaign, int], None] | None = None,
    first: int = 0,
) -> Campaign:
    """``manifests`` + ``specs`` inputs on ``jobs`` worker processes (0: in this process, alarm
    only). ``deadline`` (seconds) stops handing out inputs after that long."""
    ctx = _Context(corpus if corpus is not None else manifest_seeds(), spec_seeds(), timeout)
    _checker()  # the compiled specs, shared by the forked workers
    _memoise()
    campaign = Campaign()
    started = time.monotonic()
    tasks = _tasks(manifests, specs, first)
    spent: Counter[str] = Counter()
    if jobs == 0:
        with tempfile.TemporaryDirectory(prefix="schedspec-fuzz-") as tmp:
            cluster_file = _small_cluster(Path(tmp))
            for n, (kind, index) in enumerate(tasks):
                if deadline is not None and time.monotonic() - started > deadline:
                    break
                t0 = time.monotonic()
                inp = _make(kind, index, seed, ctx)
                campaign.add(inp, run_input(inp, Path(tmp), timeout, cluster_file))
                spent[kind] += time.monotonic() - t0
                if progress:
                    progress(campaign, n + 1)
        campaign.seconds = {k: round(v, 1) for k, v in spent.items()}
        campaign.seconds["wall"] = round(time.monotonic() - started, 1)
        return campaign
    _fan_out(campaign, tasks, ctx, seed, jobs, timeout, started, deadline, progress, spent)
    campaign.seconds = {k: round(v, 1) for k, v in spent.items()}
    campaign.seconds["wall"] = round(time.monotonic() - started, 1)
    return campaign


@dataclass
class _Slot:
    process: Any
    conn: Connection
    task: tuple[str, int] | None = None
    since: float = 0.0


def _fan_out(
    campaign: Campaign,
    tasks: Iterator[tuple[str, int]],
    ctx: _Context,
    seed: int,
    jobs: int,
    timeout: float,
    started: float,
    deadline: float | None,
    progress: Callable[[Campaign, int], None] | None,
    spent: Counter[str],
) -> None:
    mp = multiprocessing.get_context("fork")

    def spawn() -> _Slot:
        parent, child = mp.Pipe()
        proc = mp.Process(target=_worker, args=(child, ctx, seed), daemon=True)
        proc.start()
        child.close()
        return _Slot(proc, parent)

    def hand_out(slot: _Slot) -> None:
        if deadline is not None and time.monotonic() - started > deadline:
            slot.task = None
            return
        slot.task = next(tasks, None)
        if slot.task is not None:
            slot.since = time.monotonic()
            slot.conn.send(slot.task)

    slots = [spawn() for _ in range(jobs)]
    for slot in slots:
        hand_out(slot)
    done = 0
    hard = timeout + 30
    try:
        while any(s.task is not None for s in slots):
            ready = wait([s.conn for s in slots if s.task is not None], timeout=1.0)
            for k, slot in enumerate(slots):
                if slot.task is None:
                    continue
                if slot.conn in ready:
                    try:
                        outcome, inp = slot.conn.recv()
                    except EOFError:  # the worker died (killed from outside, out of memory)
                        inp = _make(*slot.task, seed, ctx)
                        outcome = Outcome("crash", "", "worker died", "")
                        slots[k] = slot = _replace(slot, spawn)
                elif time.monotonic() - slot.since > hard:  # stuck where the alarm cannot reach
                    inp = _make(*slot.task, seed, ctx)
                    outcome = Outcome("hang", "", f"hang (killed after {hard:g} s)", "")
                    slots[k] = slot = _replace(slot, spawn)
                else:
                    continue
                spent[inp.kind] += time.monotonic() - slot.since
                campaign.add(inp, outcome)
                done += 1
                if progress:
                    progress(campaign, done)
                hand_out(slot)
    finally:
        for slot in slots:
            with contextlib.suppress(OSError):
                slot.conn.send(None)
            slot.process.join(timeout=5)
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join()


def _replace(slot: _Slot, spawn: Callable[[], _Slot]) -> _Slot:
    if slot.process.is_alive():
        slot.process.kill()
    slot.process.join()
    slot.conn.close()
    return spawn()


# ------------------------------------------------------------------------------------ minimise


def minimise(inp: FuzzInput, outcome: Outcome, timeout: float, budget: int = 400) -> FuzzInput:
    """A smaller input with the same signature: objects dropped, then fields dropped (or lines
    of the text, for a spec or a text edit), greedily, within ``budget`` runs."""
    _memoise()
    runs = 0
    with tempfile.TemporaryDirectory(prefix="schedspec-fuzz-min-") as tmp:
        cluster_file = _small_cluster(Path(tmp))

        def same(candidate: FuzzInput) -> bool:
            nonlocal runs
            runs += 1
            got = run_input(candidate, Path(tmp), timeout, cluster_file)
            return got.signature == outcome.signature

        best = inp
        if inp.objects is not None:
            objs = copy.deepcopy(inp.objects)
            i = 0
            while i < len(objs) and runs < budget:
                trial = objs[:i] + objs[i + 1 :]
                if same(_with_objects(best, trial)):
                    objs, best = trial, _with_objects(best, trial)
                else:
                    i += 1
            progress = True
            while progress and runs < budget:
                progress = False
                for p in sorted(paths(objs)[1:], key=len):
                    if runs >= budget:
                        break
                    trial = copy.deepcopy(objs)
                    try:
                        _delete(trial, p)
                    except (KeyError, IndexError, TypeError):
                        continue
                    if same(_with_objects(best, trial)):
                        objs, best, progress = trial, _with_objects(best, trial), True
                        break
            return best
        lines = inp.text.split("\n")
        chunk = max(1, len(lines) // 2)
        while chunk >= 1 and runs < budget:
            i, shrunk = 0, False
            while i < len(lines) and runs < budget:
                trial = lines[:i] + lines[i + chunk :]
                candidate = _with_text(best, "\n".join(trial))
                if trial and same(candidate):
                    lines, best, shrunk = trial, candidate, True
                else:
                    i += chunk
            if not shrunk:
                chunk //= 2
        return best


def _with_objects(inp: FuzzInput, objects: list[Any]) -> FuzzInput:
    return FuzzInput(inp.kind, inp.index, inp.seed_source, dump(objects), inp.mutations,
                     inp.flags, inp.name, objects)  # fmt: skip


def _with_text(inp: FuzzInput, text: str) -> FuzzInput:
    return FuzzInput(inp.kind, inp.index, inp.seed_source, text, inp.mutations, inp.flags,
                     inp.name, None)  # fmt: skip


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:80]


def write_findings(campaign: Campaign, out: Path, timeout: float, seed: int) -> None:
    """Per signature, a directory with the first input, a minimised one (crashes) and how to
    rerun it."""
    out.mkdir(parents=True, exist_ok=True)
    for k, f in enumerate(campaign.findings.values()):
        d = out / f"{k:02d}-{_slug(f.signature)}"
        d.mkdir(exist_ok=True)
        name = f.first.name if f.first.kind == "spec" else "input.yaml"
        (d / name).write_text(f.first.text, encoding="utf-8", errors="surrogatepass")
        minimal_name = None
        if f.outcome.kind == "crash":
            small = minimise(f.first, f.outcome, timeout)
            minimal_name = "minimal-" + name
            (d / minimal_name).write_text(small.text, encoding="utf-8", errors="surrogatepass")
            f.minimal = str(d / minimal_name)
        argv = (
            ["check", name] if f.first.kind == "spec" else ["eval", name]
        )  # the first command; the stage that failed is in README
        (d / "README").write_text(
            f"signature: {f.signature}\ncount: {f.count}\nseed source: {f.first.seed_source}\n"
            f"mutations: {'; '.join(f.first.mutations)}\nflags: {' '.join(f.first.flags)}\n"
            f"rerun: schedspec fuzz --seed {seed} "
            f"--only {f.first.kind}:{f.first.index}\n"
            f"first command: schedspec {' '.join(argv)} (failing stage: {f.outcome.stage})\n\n"
            f"{f.outcome.detail}\n",
            encoding="utf-8",
        )


# ------------------------------------------------------------------------------------ command


def _print(campaign: Campaign, out: Any) -> None:
    for kind in ("manifest", "spec"):
        c = campaign.counts.get(kind)
        if not c:
            continue
        secs = campaign.seconds.get(kind, 0.0)
        rate = c["inputs"] / secs if secs else math.nan
        print(
            f"{kind}s: {c['inputs']} inputs — {c['error']} clean errors, {c['ok']} ok, "
            f"{c['crash']} crashes, {c['hang']} hangs ({secs:.0f} worker-s, "
            f"{rate:.2f} inputs/worker-s)",
            file=out,
        )
        stages = sorted(k for k in c if " " in k)
        print("  by stage: " + ", ".join(f"{k}: {c[k]}" for k in stages), file=out)
    print(f"wall: {campaign.seconds.get('wall', 0):.0f} s", file=out)
    if campaign.findings:
        print(f"{len(campaign.findings)} distinct signature(s):", file=out)
        for f in campaign.findings.values():
            where = f" → {f.minimal}" if f.minimal else ""
            print(f"  {f.count:>6} × {f.signature}  [{f.first.kind}:{f.first.index}]{where}",
                  file=out)  # fmt: skip


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fz = sub.add_parser(
        "fuzz", help="fuzzing campaign: mutated manifests and specs, no crash and no hang"
    )
    fz.add_argument("--manifests", type=int, default=1000, metavar="N",
                    help="mutated manifests (default 1000)")  # fmt: skip
    fz.add_argument("--specs", type=int, default=1000, metavar="N",
                    help="mutated specs (default 1000)")  # fmt: skip
    fz.add_argument("--seed", type=int, default=0, metavar="S")
    fz.add_argument(
        "--first",
        type=int,
        default=0,
        metavar="I",
        help="index of the first input of each kind (split a long run)",
    )
    fz.add_argument("--jobs", type=int, default=1, metavar="J",
                    help="worker processes (0: in this process; default 1)")  # fmt: skip
    fz.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                    help="per input: over it is a hang (default 30)")  # fmt: skip
    fz.add_argument("--minutes", type=float, help="stop handing out inputs after this long")
    fz.add_argument("--out", metavar="DIR", help="write each signature's inputs here")
    fz.add_argument("--json", metavar="FILE", help="write the counts and findings as JSON")
    fz.add_argument("--only", metavar="KIND:I", help="rerun one input (manifest:I or spec:I)")


def run_fuzz(args: argparse.Namespace, out: TextIO, entry: Entry) -> int:
    """``schedspec fuzz``: exit 0 with no crash and no hang, 1 otherwise, 2 on bad usage.
    ``entry`` is the CLI's ``main`` (the checker sits below the CLI and does not import it)."""
    from schedspec.errors import UsageError

    if min(args.manifests, args.specs, args.jobs, args.first) < 0 or args.timeout <= 0:
        raise UsageError("--manifests, --specs, --jobs and --first must be ≥ 0, --timeout > 0")
    use_entry(entry)
    if args.only:
        return _only(args, out)
    last = [time.monotonic()]

    def progress(c: Campaign, done: int) -> None:
        if time.monotonic() - last[0] > 60:
            last[0] = time.monotonic()
            counts = {k: dict(v.most_common(5)) for k, v in c.counts.items()}
            print(f"[{done} done] {json.dumps(counts)} findings={len(c.findings)}",
                  file=sys.stderr, flush=True)  # fmt: skip

    campaign = run_campaign(
        args.manifests, args.specs, seed=args.seed, jobs=args.jobs, timeout=args.timeout,
        deadline=args.minutes * 60 if args.minutes else None, progress=progress,
        first=args.first,
    )  # fmt: skip
    if args.out and campaign.findings:
        write_findings(campaign, Path(args.out), args.timeout, args.seed)
    _print(campaign, out)
    if args.json:
        Path(args.json).write_text(json.dumps(campaign.as_json(), indent=2), encoding="utf-8")
    return 1 if campaign.findings else 0


def _only(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.errors import UsageError

    kind, _, index = args.only.partition(":")
    if kind not in ("manifest", "spec") or not index.isdigit():
        raise UsageError(f"--only {args.only}: want manifest:I or spec:I")
    ctx = _Context(manifest_seeds(), spec_seeds(), args.timeout)
    _memoise()
    inp = _make(kind, int(index), args.seed, ctx)
    with tempfile.TemporaryDirectory(prefix="schedspec-fuzz-") as tmp:
        outcome = run_input(inp, Path(tmp), args.timeout, _small_cluster(Path(tmp)))
    print(f"seed source: {inp.seed_source}\nmutations: {'; '.join(inp.mutations)}", file=out)
    print(f"flags: {' '.join(inp.flags)}\noutcome: {outcome.kind} {outcome.signature}", file=out)
    print(f"stages: {outcome.stages}\n{outcome.detail}", file=out)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        name = inp.name if kind == "spec" else "input.yaml"
        (Path(args.out) / name).write_text(inp.text, encoding="utf-8", errors="surrogatepass")
    return 1 if outcome.kind in ("crash", "hang") else 0
