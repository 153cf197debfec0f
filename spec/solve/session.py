"""A :class:`Session`: one bounded symbolic cluster, the specs compiled over it, the solver."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from schedspec.errors import UsageError
from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS, CONSTANTS
from schedspec.spec.compile.z3 import (
    Compiler,
    Result,
    SFun,
    Universe,
    as_z3bool,
)
from schedspec.spec.kube.symbolic import Bounds, SymCluster
from schedspec.spec.kube.symbolic.vocabulary import Vocabulary
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.parse import parse_expr
from schedspec.spec.solve.answers import _NODE_VAR, _POD_VAR, _near, free_names
from schedspec.spec.solve.replay import _snapshot, _takes_snapshot


@dataclass
class _Spec:
    loaded: LoadedSpec
    compiler: Compiler
    constants: dict[str, Any]
    pods: list[tuple[Any, SFun]]
    nodes: list[tuple[Any, SFun]]


_SYMBOLIC_VIEWS = frozenset({"scheduler", "textbook", "autoscaler"})
_SCHEDULER_CONSTANTS = frozenset(
    {"Pods", "Nodes", "PodsOn", "NamespaceLabels", "PDBs", "Services", "Controllers"}
    | {"Now", "Profiles"}
)


class Session:
    """One symbolic cluster and the specs compiled over it."""

    def __init__(
        self,
        bounds: Bounds,
        specs: Sequence[str],
        timeout: float = 60.0,
        *,
        pinned: bool = True,
        literals: Sequence[tuple[str, str]] = (),
        profiles: Mapping[str, Any] | None = None,
        parsed: dict[str, LoadedSpec] | None = None,
    ) -> None:
        """``profiles`` maps a key of ``specs`` to the ``Profiles`` it is compiled with (a
        concrete :mod:`~schedspec.spec.kube.profiles` value; the default profile otherwise); a key
        ``NAME@LABEL`` there loads spec NAME, so one spec can be compiled under two profiles.
        ``parsed`` holds the specs already loaded by the command's earlier sessions (its small
        stages, :mod:`.small_first`), and gets the ones this session loads."""
        profiles = profiles or {}
        self.bounds = bounds
        self.pinned = pinned
        self.timeout = timeout
        self.universe = Universe()
        self.specs: dict[str, _Spec] = {}
        bases = [s.partition("@")[0] if s in profiles else s for s in specs]
        parsed = {} if parsed is None else parsed
        for base in dict.fromkeys(bases):  # each parsed once
            if base not in parsed:
                parsed[base] = load_spec(base)
        loaded = [parsed[base] for base in bases]
        for ls in loaded:  # an answer over constants the symbolic cluster lacks would be vacuous
            if ls.view.name not in _SYMBOLIC_VIEWS:
                lacking = sorted(ls.view.schema.constants - _SCHEDULER_CONSTANTS)
                raise UsageError(
                    f"{ls.file}: the Z3 backend has no symbolic cluster for the {ls.view.name} "
                    f"view (its constants {', '.join(lacking)}); find and diff take specs of the "
                    f"{' or '.join(sorted(_SYMBOLIC_VIEWS))} view"
                )
        # Compilers first: they put every literal in the universe before any leaf is made.
        compilers = [Compiler(ls.module, self.universe) for ls in loaded]
        groups = any(ls.view.name == "autoscaler" for ls in loaded)
        self.vocabulary = Vocabulary.of(bounds, literals)
        self.cluster = SymCluster.build(
            bounds, self.universe, groups=groups, vocabulary=self.vocabulary
        )
        for name, ls, compiler in zip(specs, loaded, compilers, strict=True):
            if ls.view.name == "textbook":
                constants = self.cluster.textbook_constants()
                objects = constants["Objects"].items
                nodes = objects[: bounds.nodes]
                pods = objects[bounds.nodes :]
            else:
                constants = (
                    self.cluster.autoscaler_constants()
                    if ls.view.name == "autoscaler"
                    else self.cluster.scheduler_constants(profiles.get(name))
                )
                pods, nodes = constants["Pods"].items, constants["Nodes"].items
            compiler.bind(constants)
            self.specs[name] = _Spec(ls, compiler, constants, list(pods), list(nodes))
        self._choices: dict[str, Any] = {}
        self._chosen: dict[tuple[str, str], Any] = {}
        self.deadline = time.monotonic() + timeout
        for s in self.specs.values():
            s.compiler.deadline = self.deadline

    # -- free variables: pinned, or symbolic choices ---------------------------------------------
    def choice(self, var: str) -> Any:
        """The Z3 index of free variable ``var`` (created on first use): a constant when pinned."""
        if var not in self._choices:
            pods = bool(_POD_VAR.match(var))
            count = self.bounds.pods if pods else self.bounds.nodes
            what = "pod" if pods else "node"
            if count == 0:
                raise UsageError(
                    f"the formula names the {what} '{var}' but the bounds allow no "
                    f"{what}s (--{what}s 0)"
                )
            if self.pinned:
                same = sum(bool(_POD_VAR.match(v)) == pods for v in self._choices)
                self._choices[var] = z3.IntVal(same)
            else:
                self._choices[var] = z3.Int(f"${var}")
        return self._choices[var]

    def choice_constraints(self) -> list[Any]:
        out = []
        for var, sel in self._choices.items():
            present = (
                [o.present for o in self.cluster.pods]
                if _POD_VAR.match(var)
                else [o.present for o in self.cluster.nodes]
            )
            out.append(z3.Or(*(z3.And(sel == i, g) for i, g in enumerate(present))))
        pod_vars = [v for v in self._choices if _POD_VAR.match(v)]
        node_vars = [v for v in self._choices if _NODE_VAR.match(v)]
        for group in (pod_vars, node_vars):  # distinct names, distinct objects
            for i, a in enumerate(group):
                for b in group[i + 1 :]:
                    out.append(self._choices[a] != self._choices[b])
        return out

    def value_of(self, spec: str, var: str) -> SFun:
        key = (spec, var)
        if key not in self._chosen:
            s = self.specs[spec]
            sel = self.choice(var)
            objs = s.pods if _POD_VAR.match(var) else s.nodes
            if self.pinned:
                value = objs[sel.as_long()][1]
            else:
                value = objs[-1][1]
                for i in range(len(objs) - 2, -1, -1):
                    value = s.compiler.ops.merge(sel == i, objs[i][1], value)
            self._chosen[key] = value
        return self._chosen[key]  # type: ignore[no-any-return]

    def check_vars(self, names: Sequence[str], spec: str) -> None:
        bad = [n for n in names if not (_POD_VAR.match(n) or _NODE_VAR.match(n))]
        if bad:
            raise UsageError(
                f"free variable(s) {', '.join(bad)} not covered by the bounds: a query's free "
                "variables are pods (p, q, p1, …) or nodes (n, m, n1, …); "
                f"anything else must be a definition of {spec} or bound by a quantifier"
            )
        pods = [n for n in names if _POD_VAR.match(n)]
        nodes = [n for n in names if _NODE_VAR.match(n)]
        if len(pods) > self.bounds.pods:
            raise UsageError(
                f"the formula names {len(pods)} pods ({', '.join(pods)}) but "
                f"--pods is {self.bounds.pods}"
            )
        if len(nodes) > self.bounds.nodes:
            raise UsageError(
                f"the formula names {len(nodes)} nodes ({', '.join(nodes)}) but "
                f"--nodes is {self.bounds.nodes}"
            )

    # -- compiling -------------------------------------------------------------------------------
    def formula(self, spec: str, text: str) -> tuple[A.Expr, list[str], Result]:
        s = self.specs[spec]
        node = parse_expr(text, "<formula>")
        defs = s.compiler.defs

        def known(name: str) -> bool:
            return name in defs or name in s.constants or name in CONSTANTS or name in BUILTINS

        names, ops = free_names(node, known)
        if ops:
            hints = "; ".join(f"'{o}'{_near(o, defs)}" for o in ops)
            raise UsageError(f"<formula>: no definition {hints} in {s.loaded.file}")
        self.check_vars(names, s.loaded.file)
        env = {n: self.value_of(spec, n) for n in names}
        return node, names, s.compiler.expr(node, env)

    def predicate(self, spec: str, name: str, args: Sequence[str]) -> Result:
        s = self.specs[spec]
        d = s.compiler.defs.get(name)
        if d is None:
            near = _near(name, s.compiler.defs)
            raise UsageError(f"{s.loaded.file} has no definition '{name}'{near}")
        snapshot = _takes_snapshot(d, len(args))
        params = [p.name for p in d.params][: len(args) if snapshot else None]
        roles = [
            (_POD_VAR.match(a) and p in ("p", "q", "Pod"))
            or (_NODE_VAR.match(a) and p in ("n", "m", "Node"))
            for p, a in zip(params, args, strict=False)
        ]
        if len(params) != len(args) or not all(roles):
            raise UsageError(
                f"{s.loaded.file}:{d.span.line}: diff binds a pod p and a node n; "
                f"{name} takes ({', '.join(params)})"
            )
        values = [self.value_of(spec, a) for a in args]
        if snapshot:
            values.append(_snapshot(s.constants))
        return s.compiler.call(name, *values)

    # -- solving ---------------------------------------------------------------------------------
    def solve(
        self,
        goal: Sequence[Any],
        *,
        minimize: bool,
        count: int,
        labelled: Mapping[str, Any] | None = None,
        defined: Any = True,
        restrict: bool = False,
    ) -> tuple[str, list[tuple[z3.ModelRef, dict[str, bool]]], str, list[str]]:
        """Models of ``goal`` on which ``defined`` holds. ``defined`` (no evaluation error) is
        large and rarely binding, so it is asserted only once a model violates it. ``restrict``
        keeps every integer leaf to its few candidate values (0, 1, 100, 1000, 4000, …): scores
        divide by symbolic quantities, which finite cases make quick; an ``unsat`` under it says
        nothing about the bounds, so only a search for a witness may ask for it."""
        deadline = self.deadline
        solver = z3.Solver() if labelled else _solver()  # only the SMT core tracks cores
        solver.add(*self.cluster.constraints, *self.choice_constraints(), *goal)
        if restrict:
            for leaf, values in self.cluster.candidates:
                if z3.is_int(leaf) and values:
                    solver.add(z3.Or(*(leaf == v for v in values)))
        lazy = defined is not True

        tracked: dict[str, Any] = {}
        if labelled:
            for label, term in labelled.items():
                b = z3.Bool(f"$core:{label}")
                tracked[str(b)] = label
                solver.assert_and_track(as_z3bool(term), b)
        models: list[tuple[z3.ModelRef, dict[str, bool]]] = []
        while len(models) < count:
            status = _check(solver, deadline)
            if status == z3.unknown:
                if models:
                    break
                return "unknown", [], solver.reason_unknown(), []
            if status == z3.unsat:
                if models:
                    break
                core = [tracked[str(c)] for c in solver.unsat_core() if str(c) in tracked]
                return "unsat", [], "", core
            model = solver.model()
            if lazy and not z3.is_true(model.eval(defined, model_completion=True)):
                solver.add(defined)
                lazy = False
                continue
            if lazy and minimize:
                solver.add(defined)  # minimising explores other models: keep them defined
                lazy = False
            proven: dict[str, bool] = {}
            if minimize:
                model, proven = self._minimize(solver, model, deadline)
            models.append((model, proven))
            touched = _Touched(model)
            self.cluster.objects(touched)
            solver.add(z3.Or(*(t != v for t, v in touched.pairs)) if touched.pairs else False)
        return "sat", models, "", []

    def _minimize(
        self, solver: z3.Solver, model: z3.ModelRef, deadline: float
    ) -> tuple[z3.ModelRef, dict[str, bool]]:
        levels = [
            ("objects", [t for w, t in self.cluster.size_terms if w == "objects"]),
            ("structure", [t for w, t in self.cluster.size_terms if w != "objects"]),
            ("numbers", self.cluster.number_terms),
        ]
        proven: dict[str, bool] = {}
        solver.push()
        for name, terms in levels:
            measure = z3.Sum(*terms) if terms else z3.IntVal(0)
            best = model.eval(measure, model_completion=True).as_long()
            lo, ok = 0, True
            while lo < best:
                mid = (lo + best) // 2
                solver.push()
                solver.add(measure <= mid)
                status = _check(solver, deadline)
                if status == z3.sat:
                    model = solver.model()
                    best = model.eval(measure, model_completion=True).as_long()
                elif status == z3.unsat:
                    lo = mid + 1
                else:
                    ok = False
                    solver.pop()
                    break
                solver.pop()
            solver.add(measure == best)
            proven[name] = ok
        solver.pop()
        return model, proven

    def bindings(self, model: z3.ModelRef) -> dict[str, str]:
        out = {}
        for var, sel in self._choices.items():
            i = model.eval(sel, model_completion=True).as_long()
            if _POD_VAR.match(var):
                p = self.cluster.pods[i]
                ns = self.universe.strings[
                    model.eval(p.namespace.z, model_completion=True).as_long()
                ]
                out[var] = f"{ns}/{p.name}"
            else:
                out[var] = self.cluster.nodes[i].name
        return out


def _solver() -> z3.Solver:
    """A solver that bit-blasts the string codes before the SMT core sees them.

    Z3's default solver keeps bit-vector equalities lazy and pays for it: on a 20 × 20 cluster
    the validity constraints alone took it 6–8 s, bit-blasted first 0.25 s. Unconstrained
    leaves (most of a witness's fields) are eliminated before and after blasting."""
    return z3.Then(
        "simplify", "elim-uncnstr", "bit-blast", "elim-uncnstr", "simplify", "smt"
    ).solver()


def _check(solver: z3.Solver, deadline: float) -> Any:
    left = deadline - time.monotonic()
    if left <= 0:
        return z3.unknown
    solver.set(timeout=max(1, int(left * 1000)))
    return solver.check()


class _Touched:
    """A model wrapper that records every leaf read while rendering (to block that witness)."""

    def __init__(self, model: z3.ModelRef) -> None:
        self.model = model
        self.pairs: list[tuple[Any, Any]] = []

    def eval(self, term: Any, model_completion: bool = True) -> Any:
        v = self.model.eval(term, model_completion=True)
        if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            self.pairs.append((term, v))
        return v
