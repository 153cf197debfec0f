"""Hand-checked autoscaler scenarios: cluster-autoscaler 1.34 verdicts on small EKS clusters.

Every ``tests/autoscaler_scenarios/<rule-dir>/<name>.yaml`` is one cluster with CA's flags and
the verdicts derived by hand from ``docs/autoscaler.md`` and the upstream fact sheets (format:
``README.md`` here). The inputs are built exactly as ``schedspec autoscale`` builds them (its own
argument parser and ``_inputs``), then every expectation is asked of both models:

- ``test_spec``: ``autoscaler.tla`` through ``autoscaler_view`` and the loaded spec's definitions,
  as ``checker/autoscaler.py`` asks them;
- ``test_impl``: ``impl/autoscaler``'s ``run_once``.

A failure names the side and the expectation, so a wrong side is never hidden by the other.
``test_scenario_shape`` checks the file itself. A file's ``xfail: {spec|impl: reason}`` marks that
side's test ``xfail(strict=True)``: the hand value is kept while the side disagrees.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedspec.autoscaling import Autoscaling
from schedspec.checker.autoscale_cli import _inputs
from schedspec.checker.autoscaler import loaded_spec
from schedspec.cli import _parser
from schedspec.cluster import Cluster
from schedspec.impl.autoscaler import run_once
from schedspec.spec.kube.autoscaler_view import autoscaler_view
from schedspec.spec.values import Value

HERE = Path(__file__).parent
FILES = sorted(HERE.rglob("*.yaml"))
IDS = [f.relative_to(HERE).with_suffix("").as_posix() for f in FILES]
DIRECTORIES = {
    "pod-list", "skip", "template", "estimate", "expander", "eligibility", "drain", "planner",
}  # fmt: skip
KEYS = {"scenario", "rule", "upstream", "why", "flags", "expect", "objects", "xfail"}
REQUIRED = KEYS - {"xfail"}
SIDES = ("spec", "impl")

DROPPED = {"", "terminating", "gated", "expendable", "nominated", "daemonset"}
VERDICTS = {
    "accepts", "PreFilter", "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
    "NodePorts", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity",
}  # fmt: skip
SCALE_DOWN = {
    "removable", "NotAutoscaled", "NodeGroupMinSizeReached", "CurrentlyBeingDeleted",
    "ScaleDownDisabledAnnotation", "NotUnderutilized", "BlockedByPod", "NoPlaceToMovePods",
}  # fmt: skip
BLOCKING = {
    "NotReplicated", "UnmovableKubeSystemPod", "NotSafeToEvictAnnotation",
    "LocalStorageRequested", "NotEnoughPdb",
}  # fmt: skip


NOT_ASKED = object()  # a side that does not model the expectation (the spec has no events)


class ShapeError(AssertionError):
    pass


# ------------------------------------------------------------------------------------ inputs


@dataclass(frozen=True)
class Scenario:
    doc: dict[str, Any]
    cluster: Cluster
    autoscaling: Autoscaling


def _doc(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("objects"), str):
        raise ShapeError(f"{path.relative_to(HERE)}: needs an 'objects' block string")
    return doc


@cache
def scenario(path: Path) -> Scenario:
    """The cluster and node groups ``schedspec autoscale <objects> <flags>`` would build."""
    doc = _doc(path)
    flags = doc.get("flags")
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise ShapeError(f"{path.relative_to(HERE)}: flags: expected a list of strings")
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / path.name
        manifest.write_text(doc["objects"], encoding="utf-8")
        args = _parser().parse_args(["autoscale", str(manifest), *flags])
        cluster, autoscaling = _inputs(args)
    return Scenario(doc, cluster, autoscaling)


# ------------------------------------------------------------------------------------ answers


def _key(pod: Any) -> str:
    meta = pod["metadata"]
    return f"{meta['namespace']}/{meta['name']}"


def _one(names: Iterable[Any]) -> str:
    found = sorted(str(n) for n in names)
    return found[0] if len(found) == 1 else ("" if not found else f"several: {found}")


class SpecAnswers:
    """``autoscaler.tla`` asked as ``checker/autoscaler.py`` asks it. The runner is shared and
    re-bound per cluster: ask everything before another scenario binds it."""

    def __init__(self, s: Scenario) -> None:
        self.world = autoscaler_view(s.cluster, s.autoscaling)
        self.call: Callable[..., Any] = loaded_spec().runner.bind(self.world.constants).call
        self.left = {_key(p) for p in self.call("FilterOut")["left"]}

    def _pod(self, key: str) -> Value:
        return self.world.pods[key]

    def dropped(self, key: str) -> str:
        why = str(self.call("ScaleUpDropped", self._pod(key)))
        if not why and key in self.left and self.call("DaemonSetPod", self._pod(key)):
            return "daemonset"  # filter_out_daemonset, as the checker derives it
        return why

    def placed(self, key: str) -> str:
        return _one(self.call("PlacedExisting", self._pod(key)))

    def unschedulable(self) -> frozenset[str]:
        return frozenset(_key(p) for p in self.call("UnschedulablePods"))

    def skip(self, group: str) -> str:
        return str(self.call("SkipReason", self.world.groups[group]))

    def template(self, group: str, key: str) -> str:
        g, p = self.world.groups[group], self._pod(key)
        if self.call("TemplateAccepts", p, g):
            return "accepts"
        return str(self.call("TemplateRejection", p, g))

    def estimate(self, group: str) -> tuple[int, frozenset[str]]:
        g = self.world.groups[group]
        pods = frozenset(_key(p) for p in self.call("EstimatedPods", g))
        return int(self.call("EstimatedNodes", g)), pods

    def best(self) -> frozenset[str]:
        return frozenset(str(g["name"]) for g in self.call("BestOptions"))

    def plan(self) -> dict[str, tuple[int, int]] | str:
        best = sorted(self.best())
        if len(best) > 1:
            return f"a random pick among {best}"
        plan = {}
        for name in best:
            g = self.world.groups[name]
            new = int(self.call("PlannedNodes", g))
            if new > 0:
                plan[name] = (int(g["target"]), int(g["target"]) + new)
        return plan

    def message(self, key: str) -> object:
        return NOT_ASKED  # CA's event wording: impl only

    def scale_down(self, node: str) -> str:
        return str(self.call("ScaleDownReason", self.world.nodes[node])) or "removable"

    def blocker(self, node: str) -> tuple[str, str] | None:
        blockers = self.call("ScaleDownBlocker", self.world.nodes[node])
        found = sorted((_key(b[0]), str(b[1])) for b in blockers)
        return found[0] if len(found) == 1 else None


class ImplAnswers:
    """``impl/autoscaler``'s ``run_once`` (seed 0) on the same inputs."""

    def __init__(self, s: Scenario) -> None:
        result = run_once(s.cluster, s.autoscaling)
        self.up, self.down = result.scale_up, result.scale_down

    def dropped(self, key: str) -> str:
        return self.up.dropped.get(key, "")

    def placed(self, key: str) -> str:
        return self.up.placed_existing.get(key, "")

    def unschedulable(self) -> frozenset[str]:
        return frozenset(self.up.unschedulable)

    def skip(self, group: str) -> str:
        g = self.up.groups.get(group)
        return "(no result)" if g is None else g.skip_reason or ""

    def template(self, group: str, key: str) -> str:
        g = self.up.groups.get(group)
        verdict = None if g is None else g.template.get(key)
        if verdict is None:
            return "(no verdict)"
        return "accepts" if verdict.accepted else verdict.plugin or "PreFilter"

    def estimate(self, group: str) -> tuple[int, frozenset[str]]:
        g = self.up.groups.get(group)
        est = None if g is None else g.estimate
        return (0, frozenset()) if est is None else (est.node_count, frozenset(est.pods))

    def best(self) -> frozenset[str]:
        return frozenset(self.up.best)

    def plan(self) -> dict[str, tuple[int, int]] | str:
        return {g: (a, b) for g, (a, b) in self.up.plan.items()}

    def message(self, key: str) -> object:
        verdict = self.up.pods.get(key)
        return "" if verdict is None else verdict.message

    def scale_down(self, node: str) -> str:
        v = self.down.nodes.get(node)
        return "(no verdict)" if v is None else "removable" if v.removable else v.reason

    def blocker(self, node: str) -> tuple[str, str] | None:
        v = self.down.nodes.get(node)
        return None if v is None or not v.blocking_pod else tuple(v.blocking_pod)  # type: ignore[return-value]


Answers = SpecAnswers | ImplAnswers


def disagreements(expect: Mapping[str, Any], ask: Answers, side: str) -> list[str]:
    """Every expectation ``ask`` answers differently, as ``side: what = got, by hand want``."""
    wrong: list[str] = []

    def same(what: str, got: Any, want: Any) -> None:
        if got is not NOT_ASKED and got != want:
            wrong.append(f"{side}: {what} = {got!r}, by hand {want!r}")

    for key, want in (expect.get("dropped") or {}).items():
        same(f"dropped[{key}]", ask.dropped(key), want)
    for key, want in (expect.get("placed_existing") or {}).items():
        same(f"placed_existing[{key}]", ask.placed(key), want)
    if "unschedulable" in expect:
        same("unschedulable", sorted(ask.unschedulable()), sorted(expect["unschedulable"]))
    for group, want in (expect.get("skip") or {}).items():
        same(f"skip[{group}]", ask.skip(group), want)
    for group, pods in (expect.get("template") or {}).items():
        for key, want in pods.items():
            same(f"template[{group}][{key}]", ask.template(group, key), want)
    for group, want in (expect.get("estimate") or {}).items():
        nodes, pods = ask.estimate(group)
        same(f"estimate[{group}].nodes", nodes, want["nodes"])
        same(f"estimate[{group}].pods", sorted(pods), sorted(want["pods"]))
    if "best" in expect:
        same("best", sorted(ask.best()), sorted(expect["best"]))
    if "plan" in expect:
        want_plan = {g: tuple(v) for g, v in expect["plan"].items()}
        same("plan", ask.plan(), want_plan)
    for key, want in (expect.get("message") or {}).items():
        same(f"message[{key}]", ask.message(key), want)
    for node, want in (expect.get("scale_down") or {}).items():
        same(f"scale_down[{node}]", ask.scale_down(node), want)
    for node, want in (expect.get("blocker") or {}).items():
        same(f"blocker[{node}]", ask.blocker(node), tuple(want) if want else None)
    return wrong


# ------------------------------------------------------------------------------------ shape


def _fail(where: str, message: str) -> ShapeError:
    return ShapeError(f"{where}: {message}")


def _known(where: str, names: Iterable[Any], known: set[str], what: str) -> None:
    for name in names:
        if name not in known:
            raise _fail(where, f"no {what} {name!r} in the scenario (known: {sorted(known)})")


def _mapping(where: str, v: Any) -> Mapping[str, Any]:
    if not isinstance(v, dict) or not v:
        raise _fail(where, "expected a non-empty mapping")
    return v


def _list(where: str, v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise _fail(where, "expected a list")
    return v


def _one_of(where: str, v: Any, allowed: set[str]) -> None:
    if v not in allowed:
        raise _fail(where, f"{v!r} is not one of {sorted(allowed)}")


@dataclass(frozen=True)
class _Names:
    pods: set[str]
    nodes: set[str]
    groups: set[str]


def _check_pods(at: str, name: str, v: Any, n: _Names) -> None:
    """dropped, placed_existing, unschedulable, message: keyed by pod."""
    if name == "unschedulable":
        _known(at, _list(at, v), n.pods, "pod")
        return
    _known(at, _mapping(at, v), n.pods, "pod")
    for key, x in v.items():
        if name == "dropped":
            _one_of(f"{at}.{key}", x, DROPPED)
        elif name == "placed_existing" and x:
            _known(f"{at}.{key}", [x], n.nodes, "node")
        elif name == "message" and not isinstance(x, str):
            raise _fail(f"{at}.{key}", 'expected CA\'s event text ("" for no event)')


def _check_groups(at: str, name: str, v: Any, n: _Names) -> None:
    """skip, template, estimate, best, plan: keyed by node group."""
    if name == "best":
        _known(at, _list(at, v), n.groups, "node group")
        return
    if name == "plan" and not isinstance(v, dict):
        raise _fail(at, "expected a mapping group -> [from, to] ({} for no scale-up)")
    _known(at, v if name == "plan" else _mapping(at, v), n.groups, "node group")
    for group, x in v.items():
        where = f"{at}.{group}"
        if name == "skip" and not isinstance(x, str):
            raise _fail(where, 'expected a skip reason ("" for a valid group)')
        if name == "template":
            _known(where, _mapping(where, x), n.pods, "pod")
            for key, verdict in x.items():
                _one_of(f"{where}.{key}", verdict, VERDICTS)
        if name == "estimate":
            if not isinstance(x, dict) or set(x) != {"nodes", "pods"}:
                raise _fail(where, "expected {nodes: N, pods: [ns/pod]}")
            if not isinstance(x["nodes"], int):
                raise _fail(f"{where}.nodes", "expected an integer")
            _known(f"{where}.pods", _list(f"{where}.pods", x["pods"]), n.pods, "pod")
        if name == "plan" and not (isinstance(x, list) and len(x) == 2):
            raise _fail(where, "expected [from, to]")


def _check_nodes(at: str, name: str, v: Any, n: _Names) -> None:
    """scale_down, blocker: keyed by node."""
    _known(at, _mapping(at, v), n.nodes, "node")
    for node, x in v.items():
        where = f"{at}.{node}"
        if name == "scale_down":
            _one_of(where, x, SCALE_DOWN)
        elif x:
            if not (isinstance(x, list) and len(x) == 2):
                raise _fail(where, "expected [ns/pod, BlockingPodReason] ([] for none)")
            _known(where, x[:1], n.pods, "pod")
            _one_of(where, x[1], BLOCKING)


_EXPECT: Mapping[str, Callable[[str, str, Any, _Names], None]] = {
    "dropped": _check_pods, "placed_existing": _check_pods, "unschedulable": _check_pods,
    "message": _check_pods, "skip": _check_groups, "template": _check_groups,
    "estimate": _check_groups, "best": _check_groups, "plan": _check_groups,
    "scale_down": _check_nodes, "blocker": _check_nodes,
}  # fmt: skip


def check_expect(where: str, expect: Any, s: Scenario) -> None:
    names = _Names(
        pods={f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in s.cluster.pods},
        nodes={n["metadata"]["name"] for n in s.cluster.nodes},
        groups={g.name for g in s.autoscaling.groups},
    )
    for name, v in _mapping(f"{where}: expect", expect).items():
        if name not in _EXPECT:
            raise _fail(f"{where}: expect.{name}", f"unknown (known: {sorted(_EXPECT)})")
        _EXPECT[name](f"{where}: expect.{name}", name, v, names)


def check_shape(path: Path) -> None:
    where = str(path.relative_to(HERE))
    doc = _doc(path)
    if unknown := set(doc) - KEYS:
        raise _fail(where, f"unknown keys {sorted(unknown)} (allowed: {sorted(KEYS)})")
    if missing := REQUIRED - set(doc):
        raise _fail(where, f"missing keys {sorted(missing)}")
    if doc["scenario"] != path.stem:
        raise _fail(f"{where}: scenario", f"{doc['scenario']!r} differs from the file name")
    if path.parent.name not in DIRECTORIES:
        raise _fail(where, f"directory {path.parent.name!r} is not one of {sorted(DIRECTORIES)}")
    for key in ("rule", "upstream", "why", "objects"):
        if not isinstance(doc[key], str) or not doc[key].strip():
            raise _fail(f"{where}: {key}", "expected a non-empty string")
    if not loaded_spec().runner.has(doc["rule"]):
        raise _fail(f"{where}: rule", f"{doc['rule']!r} is not an autoscaler.tla definition")
    xfail = doc.get("xfail", {})
    if not isinstance(xfail, dict) or not set(xfail) <= set(SIDES):
        raise _fail(f"{where}: xfail", "expected a mapping spec|impl -> reason")
    check_expect(where, doc["expect"], scenario(path))


# ------------------------------------------------------------------------------------ tests


def _params(side: str) -> list[Any]:
    params = []
    for path, name in zip(FILES, IDS, strict=True):
        reason = (_doc(path).get("xfail") or {}).get(side)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(path, id=name, marks=marks))
    return params


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_scenario_shape(path: Path) -> None:
    check_shape(path)


@pytest.mark.parametrize("path", _params("spec"))
def test_spec(path: Path) -> None:
    """autoscaler.tla gives the hand-derived verdicts."""
    s = scenario(path)
    wrong = disagreements(s.doc["expect"], SpecAnswers(s), "spec")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", _params("impl"))
def test_impl(path: Path) -> None:
    """impl/autoscaler's run_once gives the hand-derived verdicts."""
    s = scenario(path)
    wrong = disagreements(s.doc["expect"], ImplAnswers(s), "impl")
    assert not wrong, "\n".join(wrong)
