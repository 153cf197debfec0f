"""Self-check of the Z3 backend: on concrete clusters its terms take the executable values.

For each generated cluster (a model of the bounded symbolic cluster, steered by Hypothesis), the
model is turned into Kubernetes manifests, loaded by :func:`schedspec.cluster.loads` as any user
cluster is, shown to the spec by its concrete view, and every definition that takes pods, nodes
and placements is evaluated there by the executable backend. The Z3 term of the same definition,
compiled once over the symbolic cluster, is evaluated under the model. The two must agree — on
the value (sets, records and functions included), and on errors: where the executable backend
errs, the Z3 error condition holds. (The Z3 side may flag an error the executable side skipped by
stopping a quantifier early — the documented over-approximation; values are not compared then.)

Definitions the Z3 backend refuses (the float64 score kernels and what depends on them) are
listed by name below, so the set cannot grow silently.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
import yaml
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedspec.cluster import loads
from schedspec.spec.compile.python import compile_module
from schedspec.spec.compile.z3 import (
    Compiler,
    Result,
    Universe,
    Z3Unsupported,
    as_z3bool,
    concrete,
)
from schedspec.spec.errors import EvalError
from schedspec.spec.kube.symbolic import Bounds, SymCluster
from schedspec.spec.load import LoadedSpec, load_spec

BOUNDS = Bounds(
    nodes=2,
    pods=3,
    keys=2,
    values=3,
    namespaces=2,
    taints=1,
    tolerations=1,
    containers=1,
    init_containers=1,
    ports=1,
    terms=1,
    exprs=1,
    term_values=2,
    affinity=1,
    spread=1,
)

POD_PARAMS = {"p", "q", "Pod"}
NODE_PARAMS = {"n", "m", "Node"}
PLACEMENT_PARAMS = {"W"}
SNAPSHOT_PARAMS = {"Snapshot"}

# Definitions the Z3 backend does not compile, and why (a test pins this list).
UNSUPPORTED = {
    # GroupBy (explanation witnesses)
    "AntiAffinityRepellers",
    "ExistingAntiAffinityRepellers",
}


@dataclass
class Compiled:
    spec: LoadedSpec
    terms: dict[tuple[str, tuple[int, ...]], Result]
    unsupported: dict[str, str]
    roles: dict[str, tuple[str, ...]]


@dataclass
class World:
    sc: SymCluster
    universe: Universe
    specs: dict[str, Compiled]
    bounds: Bounds


def _roles(params: tuple[str, ...]) -> tuple[str, ...] | None:
    out = []
    for p in params:
        if p in POD_PARAMS:
            out.append("pod")
        elif p in NODE_PARAMS:
            out.append("node")
        elif p in PLACEMENT_PARAMS:
            out.append("placement")
        elif p in SNAPSHOT_PARAMS:
            out.append("snapshot")
        else:
            return None
    return tuple(out)


def _slots(roles: tuple[str, ...], bounds: Bounds) -> Iterator[tuple[int, ...]]:
    ranges = [
        range(bounds.pods) if r == "pod" else range(bounds.nodes) if r == "node" else range(1)
        for r in roles
    ]
    return itertools.product(*ranges)


@cache
def world(bounds: Bounds = BOUNDS, only: frozenset[str] | None = None) -> World:
    """Every definition of both specs compiled over ``bounds``; ``only``: just those of
    scheduler.tla."""
    universe = Universe()
    names = ("scheduler",) if only is not None else ("scheduler", "textbook")
    loaded = {name: load_spec(name) for name in names}
    compilers = {name: Compiler(ls.module, universe) for name, ls in loaded.items()}
    sc = SymCluster.build(bounds, universe)
    specs = {}
    for name, ls in loaded.items():
        comp = compilers[name]
        if name == "textbook":
            consts = sc.textbook_constants()
            objects = [r for _, r in consts["Objects"].items]
            nodes, pods = objects[: bounds.nodes], objects[bounds.nodes :]
            snapshot = consts["Objects"]
        else:
            consts = sc.scheduler_constants()
            pods = [r for _, r in consts["Pods"].items]
            nodes = [r for _, r in consts["Nodes"].items]
            snapshot = None
        comp.bind(consts)
        terms: dict[tuple[str, tuple[int, ...]], Result] = {}
        unsupported: dict[str, str] = {}
        roles_of: dict[str, tuple[str, ...]] = {}
        for d in ls.module.definitions:
            roles = _roles(tuple(p.name for p in d.params))
            if roles is None or (only is not None and d.name not in only):
                continue
            roles_of[d.name] = roles
            try:
                for slot in _slots(roles, bounds):
                    args: list[Any] = []
                    for role, k in zip(roles, slot, strict=True):
                        if role == "pod":
                            args.append(pods[k])
                        elif role == "node":
                            args.append(nodes[k])
                        elif role == "snapshot":
                            args.append(snapshot)
                        else:
                            args.append(comp.call("Snapshot").value)
                    terms[d.name, slot] = comp.call(d.name, *args)
            except Z3Unsupported as err:
                unsupported[d.name] = str(err)
        specs[name] = Compiled(ls, terms, unsupported, roles_of)
    return World(sc, universe, specs, bounds)


def _model(choices: list[int], w: World | None = None, *extra: Any) -> z3.ModelRef:
    """The valid cluster nearest to the drawn one: each leaf takes its drawn candidate value
    unless the API's validity rules forbid it (those draws are dropped, unsat core by core).
    ``extra``: constraints the cluster must meet besides validity."""
    w = w or world()
    s = z3.Solver()
    s.add(*w.sc.constraints, *extra)
    wanted = {}
    for k, (leaf, values) in enumerate(w.sc.candidates):
        pick = values[choices[k % len(choices)] % len(values)] if choices else values[0]
        a = z3.Bool(f"$want{k}")
        s.add(z3.Implies(a, leaf == pick))
        wanted[a.get_id()] = a
    while s.check(*wanted.values()) == z3.unsat:
        for lit in s.unsat_core():
            wanted.pop(lit.get_id(), None)
    return s.model()


def _python_value(program: Any, name: str, args: list[Any]) -> tuple[bool, Any]:
    try:
        return True, program.call(name, *args)
    except EvalError as err:
        return False, str(err)


def _check_cluster(model: z3.ModelRef, w: World | None = None) -> list[str]:
    w = w or world()
    objects = w.sc.objects(model)
    cluster = loads(yaml.safe_dump_all(objects), source="<generated>")
    problems = []
    for name, comp in w.specs.items():
        world_c = comp.spec.view.build(cluster)
        program = compile_module(comp.spec.module, world_c.constants)
        pods = [
            world_c.pods[f"{_ns(model, w, j)}/pod-{j}"] if _present(model, w.sc.pods[j]) else None
            for j in range(w.bounds.pods)
        ]
        nodes = [world_c.nodes.get(f"node-{i}") for i in range(w.bounds.nodes)]
        for (dname, slot), res in comp.terms.items():
            roles = comp.roles[dname]
            args: list[Any] = []
            for role, k in zip(roles, slot, strict=True):
                if role == "pod":
                    args.append(pods[k])
                elif role == "node":
                    args.append(nodes[k])
                elif role == "snapshot":
                    args.append(world_c.objects)
                else:
                    args.append(program.call("Snapshot"))
            if any(a is None for a in args):
                continue  # an absent object: the symbolic term is about nothing real
            ok, value = _python_value(program, dname, args)
            z3_errs = [msg for cond, msg in res.errors if _holds(model, cond)]
            where = f"{name}:{dname}{slot}"
            if not ok:
                if not z3_errs:
                    problems.append(f"{where}: executable errs ({value}), Z3 says defined")
                continue
            if z3_errs:
                continue  # documented over-approximation (quantifiers evaluate every element)
            got = concrete(res.value, model, w.universe)
            if got != value or (type(got) is not type(value) and not isinstance(value, frozenset)):
                problems.append(f"{where}: executable {value!r}, Z3 {got!r}")
    if problems:
        problems.append("cluster:\n" + yaml.safe_dump_all(objects))
    return problems


def _holds(model: z3.ModelRef, cond: Any) -> bool:
    if cond is True or cond is False:
        return cond
    return z3.is_true(model.eval(cond, model_completion=True))


def _present(model: z3.ModelRef, obj: Any) -> bool:
    return _holds(model, obj.present)


def _ns(model: z3.ModelRef, w: World, j: int) -> str:
    return w.universe.strings[model.eval(w.sc.pods[j].namespace.z, model_completion=True).as_long()]


def test_unsupported_definitions_are_exactly_the_listed_ones() -> None:
    w = world()
    refused = set().union(*(c.unsupported for c in w.specs.values()))
    for name, message in ((n, m) for c in w.specs.values() for n, m in c.unsupported.items()):
        assert "Z3 backend" in message, (name, message)
    assert refused == UNSUPPORTED, (sorted(refused - UNSUPPORTED), sorted(UNSUPPORTED - refused))
    scheduler_defs = {d.name for d in w.specs["scheduler"].spec.module.definitions}
    assert {
        "Feasible",
        "FilterStatusIn",
        "FitOK",
        "SpreadOK",
        "InterPodAffinityOK",
        "TaintTolerationScore",
        "NodeAffinityScore",
    } <= scheduler_defs - refused


def test_every_filter_definition_is_compiled() -> None:
    w = world()
    for name in (
        "NodeUnschedulableOK",
        "NodeNameOK",
        "TaintsOK",
        "NodeAffinityOK",
        "PortsOK",
        "FitOK",
        "SpreadOK",
        "InterPodAffinityOK",
        "Feasible",
        "NodeStatus",
    ):
        assert (name, (0, 0)) in w.specs["scheduler"].terms, name
    for name in (
        "FilterLifecycle",
        "Resources",
        "FilterNodeSelector",
        "FilterTaints",
        "FilterAffinity",
        "Filter",
    ):
        assert (name, (0, 0)) in w.specs["textbook"].terms, name


CHOICES = st.lists(st.integers(0, 9), min_size=1, max_size=400)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=CHOICES)
def test_z3_terms_take_the_executable_values(choices: list[int]) -> None:
    problems = _check_cluster(_model(choices))
    assert not problems, "\n".join(problems)


# PodTopologySpread's default constraints: a Service Z3 may place in either namespace, with a nil
# or label-map selector, so the deduced selector (and its absence) is checked too
DEFAULTS_BOUNDS = Bounds(nodes=2, pods=2, keys=2, values=2, namespaces=2, taints=0,
                         tolerations=0, init_containers=0, ports=0, terms=0, affinity=0,
                         preferred=0, spread=1, services=1)  # fmt: skip
DEFAULTS = frozenset({"SelectingServices", "DefaultSelectorEmpty", "Spread", "SpreadOK",
                      "SpreadScoreIgnored", "SpreadRaw", "PodTopologySpreadScore"})  # fmt: skip


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=CHOICES)
def test_z3_terms_of_default_spread_constraints_take_the_executable_values(
    choices: list[int],
) -> None:
    w = world(DEFAULTS_BOUNDS, DEFAULTS)
    assert {name for name, _ in w.specs["scheduler"].terms} == DEFAULTS
    # drawn clusters almost never have a Service selecting a pod without constraints of its
    # own: every other example asks for one (pod-0 gets the default constraints)
    forced = choices[0] % 2 == 0
    extra = []
    if forced:
        pod = w.sc.pods[0]
        empty = w.specs["scheduler"].terms["DefaultSelectorEmpty", (0,)].value
        extra = [pod.present, z3.Not(z3.Or(*(s.present for s in pod.spread))),
                 z3.Not(as_z3bool(empty))]  # fmt: skip
    model = _model(choices, w, *extra)
    problems = _check_cluster(model, w)
    assert not problems, "\n".join(problems)
    if forced:  # the executable backend sees the default constraints too
        cluster = loads(yaml.safe_dump_all(w.sc.objects(model)), source="<generated>")
        spec = w.specs["scheduler"].spec
        view = spec.view.build(cluster)
        program = compile_module(spec.module, view.constants)
        assert program.call("Spread", view.pods[f"{_ns(model, w, 0)}/pod-0"])


@pytest.mark.campaign
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=CHOICES)
def test_z3_terms_take_the_executable_values_campaign(choices: list[int]) -> None:
    problems = _check_cluster(_model(choices))
    assert not problems, "\n".join(problems)
