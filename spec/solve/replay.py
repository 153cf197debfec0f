"""Witnesses replayed by the executable backend: its verdicts, and the solver's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import yaml
import z3

from schedspec.cluster import Cluster, loads
from schedspec.spec import ast as A
from schedspec.spec.compile.python import Program, compile_module
from schedspec.spec.compile.z3 import (
    Result,
    as_z3bool,
)
from schedspec.spec.compile.z3.equality import _z3int
from schedspec.spec.compile.z3.logic import _is_int
from schedspec.spec.errors import EvalError
from schedspec.spec.load import LoadedSpec
from schedspec.spec.solve.answers import _POD_VAR
from schedspec.spec.values import render


def _load_witness(objects: list[dict[str, Any]]) -> Cluster:
    """The witness loaded as a user's cluster would be."""
    return loads(yaml.safe_dump_all(objects), source="<witness>")


def _replay(
    cluster: Cluster, spec: LoadedSpec, bindings: Mapping[str, str]
) -> tuple[Any, dict[str, Any]]:
    """The witness shown to the spec by its view: the program and the bound variables."""
    world = spec.view.build(cluster)
    program = compile_module(spec.module, world.constants)
    env = {}
    for var, key in bindings.items():
        env[var] = world.pods[key] if _POD_VAR.match(var) else world.nodes[key]
    return program, env


def _takes_snapshot(d: A.Definition, bound: int) -> bool:
    """``d`` takes, after its ``bound`` pod/node parameters, a ``Snapshot`` (the textbook's
    ``Viability(Pod, Node, Snapshot)``)."""
    return [p.name for p in d.params][bound:] == ["Snapshot"]


def _snapshot(constants: Mapping[str, Any]) -> Any:
    """The value a definition's ``Snapshot`` parameter takes: the view's own snapshot (every
    Pod and Node record, ``Objects`` in the textbook's view)."""
    return constants["Snapshot"] if "Snapshot" in constants else constants["Objects"]


def _verdict(run: Callable[[], Any]) -> str:
    try:
        return render(run())
    except EvalError as err:
        return f"error: {err}"


def _formula_verdict(program: Program, node: A.Expr, env: Mapping[str, Any]) -> str:
    from schedspec.spec.compile.python import _Scope

    fn = program.compile(node, _Scope(frozenset(env)))
    return _verdict(lambda: fn(dict(env)))


def _solver_verdict(model: z3.ModelRef, res: Result) -> str:
    for cond, msg in res.errors:
        if z3.is_true(model.eval(as_z3bool(cond), model_completion=True)):
            return f"error: {msg}"
    if _is_int(res.value):
        return str(model.eval(_z3int(res.value), model_completion=True).as_long())
    v = as_z3bool(res.value)
    return "TRUE" if z3.is_true(model.eval(v, model_completion=True)) else "FALSE"
