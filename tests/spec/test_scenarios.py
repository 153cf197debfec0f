"""The hand-checked scenario suite: small clusters with the verdicts of the real kube-scheduler.

Every ``tests/spec/scenarios/**/*.yaml`` is one scenario (format: ``scenarios/README.md``). Its
``expect:`` block holds the verdicts of the real kube-scheduler v1.34 rules, derived by hand from
the reference and the upstream Go source, and is checked against ``spec/kube/scheduler.tla``
(``test_real_rules``). Its optional ``textbook:`` block holds what the seed's textbook spec says
on the same cluster, where it diverges, and is checked against ``spec/kube/textbook.tla``
(``test_textbook_divergence``). ``test_scenario_shape`` checks the file itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedspec.cluster import Cluster, loads
from schedspec.spec.compile.python import Program
from schedspec.spec.compile.source import SourceProgram
from schedspec.spec.errors import EvalError
from schedspec.spec.kube.views import bind_arguments
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.values import Fcn, Value

SCENARIOS = Path(__file__).parent / "scenarios"
FILES = sorted(SCENARIOS.rglob("*.yaml"))
IDS = [f.relative_to(SCENARIOS).with_suffix("").as_posix() for f in FILES]
DIRECTORIES = {
    "unschedulable", "nodename", "taints", "node-affinity", "fit", "ports", "interpod",
    "spread", "spread-defaults", "nominated", "scores", "preemption",
}  # fmt: skip

# Definitions of scheduler.tla a scenario may name, by the shape of their expectation.
PER_NODE = {
    "NodeUnschedulableOK", "NodeNameOK", "TaintsOK", "NodeAffinityOK", "NodeSelectorOK",
    "RequiredNodeAffinityOK", "PortsOK", "FitOK", "SpreadOK", "InterPodAffinityOK",
    "PodAffinityOK", "PodAntiAffinityOK", "ExistingAntiAffinityOK", "Feasible",
    "TaintTolerationScore", "NodeAffinityScore", "InterPodAffinityScore",
    "PodTopologySpreadScore", "NodeResourcesFitScore", "BalancedAllocationScore",
    "ImageLocalityScore", "Viability",
}  # fmt: skip
NODE_SETS = {"Best", "PreemptionNodes"}
POD_SETS = {"Victims", "LowerPriorityNominated"}  # (p, n) -> a set of pods
POD_BOOLS = {"EligibleToPreempt", "ScoreError"}  # (p) -> true/false
REAL = PER_NODE | NODE_SETS | POD_SETS | POD_BOOLS | {"ValidVictims"}
# Definitions of textbook.tla taking (Pod, Node) or (Pod, Node, Snapshot) (or fewer of them).
TEXTBOOK = {
    "FilterLifecycle", "Resources", "FilterNodeSelector", "FilterTaints", "FilterAffinity",
    "Filter", "Rating", "Viability", "BoundTo", "Bound",
}  # fmt: skip
KEYS = {
    "scenario", "rule", "upstream", "why", "divergences", "pod", "expect", "textbook", "objects",
}  # fmt: skip
REQUIRED = KEYS - {"divergences", "textbook"}


class ShapeError(AssertionError):
    pass


def _fail(where: str, message: str) -> ShapeError:
    return ShapeError(f"{where}: {message}")


def _verdict(where: str, v: Any, *, allow_error: bool) -> None:
    if isinstance(v, bool) or (isinstance(v, int) and not isinstance(v, bool)):
        return
    if allow_error and v == "error":
        return
    wanted = "true, false, an integer" + (" or 'error'" if allow_error else "")
    raise _fail(where, f"verdict {v!r} is not {wanted}")


def _per_node(where: str, v: Any, nodes: set[str], *, allow_error: bool) -> None:
    if not isinstance(v, dict) or not v:
        raise _fail(where, "expected a non-empty mapping node -> verdict")
    for node, verdict in v.items():
        if node not in nodes:
            raise _fail(where, f"no node {node!r} in the objects (nodes: {sorted(nodes)})")
        _verdict(f"{where}.{node}", verdict, allow_error=allow_error)


def _pod_list(where: str, v: Any, pods: set[str]) -> None:
    if not isinstance(v, list):
        raise _fail(where, "expected a list of 'namespace/name' pods")
    for key in v:
        if key not in pods:
            raise _fail(where, f"no pod {key!r} in the objects")


def check_shape(path: Path, doc: Any, cluster: Cluster) -> None:
    """Raise ShapeError naming the file and key when the scenario file is malformed."""
    where = str(path.relative_to(SCENARIOS))
    if not isinstance(doc, dict):
        raise _fail(where, "a scenario file is a mapping")
    unknown = set(doc) - KEYS
    if unknown:
        raise _fail(where, f"unknown keys {sorted(unknown)} (allowed: {sorted(KEYS)})")
    missing = REQUIRED - set(doc)
    if missing:
        raise _fail(where, f"missing keys {sorted(missing)}")
    if doc["scenario"] != path.stem:
        raise _fail(f"{where}: scenario", f"{doc['scenario']!r} differs from the file name")
    if path.parent.name not in DIRECTORIES:
        raise _fail(where, f"directory {path.parent.name!r} is not one of {sorted(DIRECTORIES)}")
    for key in ("rule", "upstream", "why", "pod", "objects"):
        if not isinstance(doc[key], str) or not doc[key].strip():
            raise _fail(f"{where}: {key}", "expected a non-empty string")
    divergences = doc.get("divergences", [])
    if not isinstance(divergences, list) or not all(
        isinstance(d, int) and 1 <= d <= 44 for d in divergences
    ):
        raise _fail(f"{where}: divergences", "expected a list of numbers 1..44 (reference §2)")
    if divergences and "textbook" not in doc:
        raise _fail(f"{where}: textbook", "a scenario pinning divergences needs a textbook block")
    pods = {f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in cluster.pods}
    nodes = {n["metadata"]["name"] for n in cluster.nodes}
    if doc["pod"] not in pods:
        raise _fail(f"{where}: pod", f"no pod {doc['pod']!r} in the objects")
    expect = doc["expect"]
    if not isinstance(expect, dict) or not expect:
        raise _fail(f"{where}: expect", "expected a non-empty mapping definition -> verdicts")
    for name, v in expect.items():
        at = f"{where}: expect.{name}"
        if name not in REAL:
            raise _fail(at, f"not a scheduler.tla definition (known: {sorted(REAL)})")
        if name in PER_NODE:
            _per_node(at, v, nodes, allow_error=False)
        elif name in NODE_SETS:
            if not isinstance(v, list) or not set(v) <= nodes:
                raise _fail(at, "expected a list of node names of the objects")
        elif name in POD_BOOLS:
            if not isinstance(v, bool):
                raise _fail(at, "expected true or false")
        elif name in POD_SETS:
            if not isinstance(v, dict) or not v or not set(v) <= nodes:
                raise _fail(at, "expected a mapping node -> list of pods")
            for node, victims in v.items():
                _pod_list(f"{at}.{node}", victims, pods)
        else:  # ValidVictims
            if not isinstance(v, list) or not v:
                raise _fail(at, "expected a list of {node, victims, verdict}")
            for i, item in enumerate(v):
                if not isinstance(item, dict) or set(item) != {"node", "victims", "verdict"}:
                    raise _fail(f"{at}[{i}]", "expected exactly the keys node, victims, verdict")
                if item["node"] not in nodes:
                    raise _fail(f"{at}[{i}].node", f"no node {item['node']!r} in the objects")
                _pod_list(f"{at}[{i}].victims", item["victims"], pods)
                if not isinstance(item["verdict"], bool):
                    raise _fail(f"{at}[{i}].verdict", "expected true or false")
    textbook = doc.get("textbook")
    if textbook is not None:
        if not isinstance(textbook, dict) or not textbook:
            raise _fail(f"{where}: textbook", "expected a non-empty mapping")
        for name, v in textbook.items():
            at = f"{where}: textbook.{name}"
            if name not in TEXTBOOK:
                raise _fail(at, f"not a textbook.tla entry point (known: {sorted(TEXTBOOK)})")
            _per_node(at, v, nodes, allow_error=True)


@cache
def _scenario(path: Path) -> tuple[dict[str, Any], Cluster]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("objects"), str):
        raise _fail(str(path.relative_to(SCENARIOS)), "needs an 'objects' block string")
    cluster = loads(doc["objects"], source=f"{path}:objects")
    return doc, cluster


@cache
def _spec(name: str) -> LoadedSpec:
    return load_spec(name)


def _pod_key(v: Value) -> Value:
    """A pod record as its "namespace/name"; any other value unchanged."""
    if isinstance(v, Fcn) and isinstance(v.get("metadata"), Mapping):
        meta = v["metadata"]
        return f"{meta['namespace']}/{meta['name']}"
    return v


def _same(actual: Value, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    return bool(actual == expected)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_scenario_shape(path: Path) -> None:
    doc, cluster = _scenario(path)
    check_shape(path, doc, cluster)


# Each verdict is asked of both executable backends: the closures `eval` and `explain` run, and
# the generated source the checker runs.
BACKENDS = ("closures", "source")


def _program(spec: LoadedSpec, backend: str) -> Program | SourceProgram:
    return spec.program if backend == "closures" else spec.runner


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_textbook_divergence(path: Path, backend: str) -> None:
    """The textbook spec's verdicts, as the scenario records them (where it pins a divergence)."""
    doc, cluster = _scenario(path)
    if "textbook" not in doc:
        return  # the scenario pins no divergence: nothing to compare
    spec = _spec("textbook")
    world = spec.view.build(cluster)
    program = _program(spec, backend).bind(world.constants)
    pod = world.pods[doc["pod"]]
    wrong = []
    for name, per_node in doc["textbook"].items():
        definition = program.definition(name)
        for node, want in per_node.items():
            try:
                args = bind_arguments(definition, pod, world.nodes[node], world)
                got: Value = program.call(name, *args)
            except EvalError:
                got = "error"
            if not (got == want == "error" or (got != "error" and _same(got, want))):
                wrong.append(f"{name}({doc['pod']}, {node}) = {got!r}, scenario says {want!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_real_rules(path: Path, backend: str) -> None:
    """scheduler.tla gives the hand-derived verdicts of kube-scheduler v1.34."""
    doc, cluster = _scenario(path)
    spec = _spec("scheduler")
    world = spec.view.build(cluster)
    program = _program(spec, backend).bind(world.constants)
    pod_key = doc["pod"]
    p = world.pods[pod_key]
    wrong: list[str] = []

    def check(call: str, name: str, args: tuple[Value, ...], want: Any) -> None:
        try:
            got = program.call(name, *args)
        except EvalError as err:
            wrong.append(f"{call} failed to evaluate: {err}")
            return
        if isinstance(want, frozenset) and isinstance(got, frozenset):
            got = frozenset(_pod_key(v) for v in got)
        if not _same(got, want):
            wrong.append(f"{call} = {got!r}, expected {want!r}")

    for name, want in doc["expect"].items():
        if name in PER_NODE:
            for node, verdict in want.items():
                check(f"{name}({pod_key}, {node})", name, (p, world.nodes[node]), verdict)
        elif name in NODE_SETS:
            check(f"{name}({pod_key})", name, (p,), frozenset(want))
        elif name in POD_BOOLS:
            check(f"{name}({pod_key})", name, (p,), want)
        elif name in POD_SETS:
            for node, victims in want.items():
                call = f"{name}({pod_key}, {node})"
                check(call, name, (p, world.nodes[node]), frozenset(victims))
        else:  # ValidVictims
            for item in want:
                victims = frozenset(world.pods[k] for k in item["victims"])
                call = f"{name}({pod_key}, {item['node']}, {sorted(item['victims'])})"
                check(call, name, (p, world.nodes[item["node"]], victims), item["verdict"])
    assert not wrong, "\n".join(wrong)
