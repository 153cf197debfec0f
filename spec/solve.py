"""``schedspec find`` and ``schedspec diff``: ask Z3 for a cluster.

A :class:`Session` builds one bounded symbolic cluster (:mod:`.kube.symbolic`) and compiles the
chosen specs over it (:mod:`.compile.z3`). A query's free variables name objects of the cluster:
``p``, ``q`` (and ``p1``, ``q2``, …) are pods, ``n``, ``m`` (and ``n1``, …) nodes, distinct
variables distinct objects.

The bounded cluster's nodes are interchangeable, and so are its pods: every one has the same
fields under the same constraints, only its name differs, and the specs compare names for
equality, never order them. Renaming a witness's objects (and the node names its pods are bound
or nominated to) gives another witness. So unless the query itself names an object (``node-2``,
``pod-0`` or a pod's uid), the free variables are *pinned*: the first pod variable is ``pod-0``,
the second ``pod-1``, the first node variable ``node-0``, and so on — a query has a witness iff
it has one with them pinned, and a pinned record is a plain record where an open choice would be
an IF-chain over every object (on 20 nodes × 20 pods, ``Feasible(p, n)`` compiles to 28 thousand
terms in 1.2 s pinned, to a million in 28 s open). A query that names an object keeps each
variable an open *choice*, an index into the pods or nodes.

Answers are ``sat`` (a witness cluster, written as Kubernetes manifests and as an ITF trace),
``unsat`` (no cluster within the bounds — never more than that), or ``unknown`` (the solver gave
up or ran out of time: exit 3, never reported as ``unsat``). Every witness is replayed through
:func:`schedspec.cluster.loads` and the executable backend; the verdicts printed are the
executable backend's, and a witness on which they differ from the solver's is an internal error,
reported loudly.

``--minimize`` tightens the witness level by level — fewest objects, then fewest labels, taints,
tolerations, terms, expressions and other slots, then the smallest integers — by binary search on
each measure, each level fixed before the next; a level the time budget cuts short is reported
as not proven minimal.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
import z3

from schedspec import itf as itf_format
from schedspec.cluster import Cluster, loads
from schedspec.errors import SchedspecError, UsageError
from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS, CONSTANTS
from schedspec.spec.compile.python import Program, compile_module
from schedspec.spec.compile.z3 import (
    Compiler,
    CompileTimeout,
    Result,
    SFun,
    Universe,
    as_z3bool,
    conj,
    neg,
)
from schedspec.spec.compile.z3.equality import _z3int
from schedspec.spec.compile.z3.logic import _is_int
from schedspec.spec.errors import EvalError, SpecError
from schedspec.spec.kube.symbolic import Bounds, SymCluster
from schedspec.spec.kube.symbolic.vocabulary import Vocabulary, literals
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.parse import parse_expr
from schedspec.spec.values import render

__all__ = ["Answer", "Session", "Witness", "diff", "find", "names_objects"]

_POD_VAR = re.compile(r"[pq][0-9]*\Z")
_NODE_VAR = re.compile(r"[nm][0-9]*\Z")
_OBJECT_NAME = re.compile(r"\b(?:node|pod)-[0-9]+\b|00000000-0000-4000-8000-")
"""How a query names one object of the symbolic cluster (its names and uids)."""


def names_objects(*texts: str | None) -> bool:
    """Whether a query names an object of the symbolic cluster, so its free variables cannot be
    pinned to the first objects (see the module docstring)."""
    return any(t is not None and _OBJECT_NAME.search(t) for t in texts)


class SolverUnknown(SchedspecError):
    """Z3 answered unknown (timeout or incompleteness): never to be read as unsat."""


@dataclass
class Witness:
    objects: list[dict[str, Any]]
    bindings: dict[str, str]
    verdicts: dict[str, str]
    minimal: dict[str, bool] = field(default_factory=dict)

    def yaml(self) -> str:
        return yaml.safe_dump_all(self.objects, sort_keys=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "objects": self.objects,
            "bindings": self.bindings,
            "verdicts": self.verdicts,
            "minimal": self.minimal,
        }


@dataclass
class Answer:
    result: str  # sat | unsat | unknown
    witnesses: list[Witness]
    message: str
    seconds: float
    core: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the answer depends on beyond the rules (the bounded cluster's shape)."""

    @property
    def objects(self) -> list[dict[str, Any]]:
        return self.witnesses[0].objects if self.witnesses else []

    def as_json(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "objects": self.objects,
            "witnesses": [w.as_json() for w in self.witnesses],
            "message": self.message,
            "seconds": round(self.seconds, 3),
            "core": self.core,
            "notes": self.notes,
        }


# ---- free variables ---------------------------------------------------------------------------


def free_names(node: A.Expr, known: Callable[[str], bool]) -> tuple[list[str], list[str]]:
    """Names ``node`` uses that no binder binds and ``known`` does not know, in order of use:
    (variables, operators applied to arguments)."""
    out: list[str] = []
    ops: list[str] = []

    def walk(x: Any, bound: frozenset[str]) -> None:
        if isinstance(x, A.Name):
            if x.name not in bound and not known(x.name) and x.name not in out:
                out.append(x.name)
            return
        if isinstance(x, A.Apply):
            if x.name not in bound and not known(x.name) and x.name not in ops:
                ops.append(x.name)
            for a in x.args:
                walk(a, bound)
            return
        if isinstance(x, A.Quant | A.SetMap | A.FnCons):
            inner = bound
            for b in x.bounds:
                walk(b.domain, inner)
                inner = inner | {n.name for n in b.names}
            walk(x.body if not isinstance(x, A.SetMap) else x.expr, inner)
            return
        if isinstance(x, A.SetFilter):
            walk(x.domain, bound)
            walk(x.pred, bound | {x.var.name})
            return
        if isinstance(x, A.Lambda):
            walk(x.body, bound | {p.name for p in x.params})
            return
        if isinstance(x, A.Let):
            inner = bound | {d.name for d in x.defs}
            for d in x.defs:
                walk(d.body, inner | {p.name for p in d.params})
            walk(x.body, inner)
            return
        if isinstance(x, tuple):
            for y in x:
                walk(y, bound)
            return
        if hasattr(x, "__dataclass_fields__"):
            for name in x.__dataclass_fields__:
                if name != "span":
                    walk(getattr(x, name), bound)

    walk(node, frozenset())
    return out, ops


# ---- the session ------------------------------------------------------------------------------


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
    ) -> None:
        """``profiles`` maps a key of ``specs`` to the ``Profiles`` it is compiled with (a
        concrete :mod:`~schedspec.spec.kube.profiles` value; the default profile otherwise); a key
        ``NAME@LABEL`` there loads spec NAME, so one spec can be compiled under two profiles."""
        profiles = profiles or {}
        self.bounds = bounds
        self.pinned = pinned
        self.timeout = timeout
        self.universe = Universe()
        self.specs: dict[str, _Spec] = {}
        bases = [s.partition("@")[0] if s in profiles else s for s in specs]
        parsed = {base: load_spec(base) for base in dict.fromkeys(bases)}  # each parsed once
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


def _near(name: str, names: Mapping[str, Any]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(names), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""


# ---- verdicts by the executable backend -------------------------------------------------------


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


def reached(module: A.Module, node: A.Expr) -> set[str]:
    """The definitions of ``module`` that ``node`` uses, directly or through others."""
    defs = {d.name: d for d in module.definitions}
    seen: set[str] = set()
    todo = [node]
    while todo:
        variables, ops = free_names(todo.pop(), lambda _: False)
        for name in (*variables, *ops):
            if name in defs and name not in seen:
                seen.add(name)
                todo.append(defs[name].body)
    return seen


def vocabulary_notes(session: Session) -> list[str]:
    """Which of the query's strings joined the bounded cluster, and which could not."""
    v, b = session.vocabulary, session.bounds
    base = Vocabulary.of(b)
    added = [
        f"{what} {', '.join(repr(x) for x in now if x not in before)}"
        for what, now, before in (
            ("label keys", v.keys, base.keys),
            ("label values", v.values, base.values),
            ("namespaces", v.namespaces, base.namespaces),
            ("extended resources", v.resources, base.resources),
        )
        if len(now) > len(before)
    ]
    notes = [f"the query's strings join the bounded cluster: {'; '.join(added)}"] if added else []
    return notes + v.notes()


def approximated(session: Session) -> list[str]:
    """The Go float64 kernels the session's formulas reached, compiled as a relaxation in exact
    rationals (spec/compile/z3/floats.py)."""
    return sorted(set().union(*(s.compiler.approximated for s in session.specs.values())))


def float_notes(session: Session) -> list[str]:
    kernels = approximated(session)
    if not kernels:
        return []
    return [
        f"{', '.join(kernels)}: Go computes these scores in float64; the solver reasons in exact "
        "rationals, and every witness is replayed in IEEE doubles by the executable backend. "
        "No witness in the rationals is not a proof that none exists in doubles: that answer is "
        "unknown"
    ]


def bounds_notes(session: Session, spec: str, node: A.Expr) -> list[str]:
    """What an answer about ``node`` owes to the bounded cluster's shape, not to the rules."""
    loaded = session.specs[spec].loaded
    notes = vocabulary_notes(session)
    if loaded.view.name != "autoscaler":
        return notes
    from schedspec.spec.kube.symbolic.autoscaler_shape import (
        GROUP_MAX_SIZE,
        SCALE_DOWN_DEFINITIONS,
        SCALE_DOWN_NOTE,
    )

    notes += [
        f"node groups: {session.bounds.groups} (--groups), each a Cluster API MachineDeployment "
        f"scaled from zero, max size at most {GROUP_MAX_SIZE}, CA's default flags"
    ]
    if reached(loaded.module, node) & SCALE_DOWN_DEFINITIONS:
        notes.append(SCALE_DOWN_NOTE)
    return notes


# ---- the two commands -------------------------------------------------------------------------


def find(
    formula: str,
    spec: str = "scheduler",
    bounds: Bounds | None = None,
    *,
    minimize: bool = False,
    count: int = 1,
    timeout: float = 60.0,
    core: bool = False,
) -> Answer:
    start = time.monotonic()
    session = Session(
        bounds or Bounds(),
        [spec],
        timeout,
        pinned=not names_objects(formula),
        literals=literals(parse_expr(formula, "<formula>")),
    )
    try:
        node, names, result = session.formula(spec, formula)
    except CompileTimeout:
        return _compile_timeout(session, start)
    notes = bounds_notes(session, spec, node) + float_notes(session)
    goal = [as_z3bool(result.value)]
    defined = z3.Not(as_z3bool(result.error)) if result.errors else True
    labelled = None
    if core:
        parts = _conjuncts(node)
        if len(parts) > 1:
            goal = [z3.Not(as_z3bool(result.error))] if result.errors else []
            env = {n: session.value_of(spec, n) for n in names}
            labelled = {}
            for part in parts:
                r = session.specs[spec].compiler.expr(part, env)
                label = f"{_text(formula, part)}"
                labelled[label] = conj(r.value, neg(r.error)) if r.errors else r.value
    status, models, reason, unsat_core = session.solve(
        goal, minimize=minimize, count=count, labelled=labelled, defined=defined
    )
    elapsed = time.monotonic() - start
    if status == "unknown":
        return Answer("unknown", [], f"the solver gave up: {reason}", elapsed, notes=notes)
    if status == "unsat" and session.vocabulary.outside:
        msg = (
            "no cluster within the bounds satisfies the formula, but the formula names strings "
            "the bounded cluster cannot hold (see the notes)"
        )
        return Answer("unknown", [], msg, elapsed, unsat_core, notes)
    if status == "unsat" and approximated(session):
        msg = (
            "no cluster within the bounds satisfies the formula in exact arithmetic; one may "
            "still in Go's float64 rounding (see the notes)"
        )
        return Answer("unknown", [], msg, elapsed, unsat_core, notes)
    if status == "unsat":
        notes += _undefined_notes(session, result, "the formula")
        msg = f"no cluster within the bounds ({_bounds_text(session.bounds)}) satisfies the formula"
        return Answer("unsat", [], msg, time.monotonic() - start, unsat_core, notes)
    loaded = session.specs[spec].loaded
    witnesses = []
    for model, proven in models:
        objects = session.cluster.objects(model)
        bindings = session.bindings(model)
        program, env = _replay(_load_witness(objects), loaded, bindings)
        verdict = _formula_verdict(program, node, env)
        if verdict != "TRUE" and approximated(session):
            return _rounding_unknown(verdict, start, notes)
        if verdict != "TRUE":
            raise InternalDisagreement(
                f"the solver's witness does not satisfy the formula on the executable backend "
                f"(it says {verdict}); please report this with the witness:\n"
                + yaml.safe_dump_all(objects)
            )
        witnesses.append(Witness(objects, bindings, {formula: verdict}, proven))
    return Answer("sat", witnesses, "", time.monotonic() - start, notes=notes)


def _undefined_notes(session: Session, result: Result, what: str) -> list[str]:
    """After an unsat answer: whether ``result`` errs on some or every cluster within the bounds.
    Erring everywhere is a mistake in the question (``Elems`` of a set, a field no object has), so
    the unsat would be an artefact of it: a usage error. Erring somewhere is a note, since the
    answer then covers only the clusters on which the formula is defined."""
    if not result.errors:
        return []
    status, models, _, _ = session.solve([as_z3bool(result.error)], minimize=False, count=1)
    if status != "sat":
        return []
    model = models[0][0]
    fired = [m for c, m in result.errors if z3.is_true(model.eval(as_z3bool(c), True))]
    why = "; ".join(sorted(set(fired))[:3])
    if session.solve([z3.Not(as_z3bool(result.error))], minimize=False, count=1)[0] == "unsat":
        raise UsageError(f"{what} cannot be evaluated on any cluster within the bounds: {why}")
    return [
        f"{what} is undefined on some clusters within the bounds ({why}); the answer covers "
        "only those on which it is defined"
    ]


def _rounding_unknown(verdict: str, start: float, notes: list[str]) -> Answer:
    """The relaxation's witness, replayed in IEEE doubles, is not one: float64 rounding decided."""
    msg = (
        f"the solver's witness holds in exact arithmetic but not in Go's float64 rounding (the "
        f"executable backend says {verdict} on it); no answer within the bounds"
    )
    return Answer("unknown", [], msg, time.monotonic() - start, notes=notes)


def _compile_timeout(session: Session, start: float) -> Answer:
    return Answer(
        "unknown",
        [],
        f"building the formula took longer than the {session.timeout:g}s timeout "
        f"(bounds {_bounds_text(session.bounds)})",
        time.monotonic() - start,
    )


class InternalDisagreement(SpecError):
    """The Z3 and executable backends disagree on a witness: a bug in schedspec."""


def diff(
    spec_a: str,
    spec_b: str,
    predicate_a: str,
    predicate_b: str | None = None,
    bounds: Bounds | None = None,
    *,
    implies: bool = False,
    minimize: bool = False,
    count: int = 1,
    timeout: float = 60.0,
    where: str | None = None,
) -> Answer:
    """A cluster, a pod ``p`` and a node ``n`` on which the two definitions disagree (or, with
    ``implies``, on which A holds and B does not); ``where`` (a formula over ``p`` and ``n`` in
    SPEC_B's terms) narrows the search to the clusters that satisfy it."""
    start = time.monotonic()
    predicate_b = predicate_b or predicate_a
    session = Session(
        bounds or Bounds(),
        [spec_a, spec_b] if spec_a != spec_b else [spec_a],
        timeout,
        pinned=not names_objects(where),
        literals=literals(parse_expr(where, "<where>")) if where else (),
    )
    try:
        a = session.predicate(spec_a, predicate_a, ("p", "n"))
        b = session.predicate(spec_b, predicate_b, ("p", "n"))
    except CompileTimeout:
        return _compile_timeout(session, start)
    numeric = _is_int(a.value) or _is_int(b.value)  # a score: the two differ in value
    if numeric and implies:
        raise UsageError(f"--implies compares predicates; {predicate_a} is a number")
    if numeric:
        va, vb = _z3int(a.value), _z3int(b.value)
    else:
        va, vb = as_z3bool(a.value), as_z3bool(b.value)
    defined = z3.And(z3.Not(as_z3bool(a.error)), z3.Not(as_z3bool(b.error)))
    narrow: list[Any] = []
    if where:
        try:
            _, names, w = session.formula(spec_b, where)
        except CompileTimeout:
            return _compile_timeout(session, start)
        if set(names) - {"p", "n"}:
            raise UsageError(f"--where may only use the pod p and the node n, not {names}")
        narrow = [as_z3bool(w.value), z3.Not(as_z3bool(w.error))]
    goals = [[*narrow, defined, z3.And(va, z3.Not(vb)) if implies else va != vb]]
    if not implies:  # then: one side errs where the other does not
        goals.append([*narrow, as_z3bool(a.error) != as_z3bool(b.error)])
    status, reason = "unsat", ""
    models: list[tuple[z3.ModelRef, dict[str, bool]]] = []
    for goal in goals:
        status, models, reason, _ = session.solve(goal, minimize=minimize, count=count)
        if status != "unsat":
            break
    elapsed = time.monotonic() - start
    name_a, name_b = f"{spec_a}:{predicate_a}", f"{spec_b}:{predicate_b}"
    notes = vocabulary_notes(session) + float_notes(session)
    if status == "unknown":
        return Answer("unknown", [], f"the solver gave up: {reason}", elapsed, notes=notes)
    if status == "unsat" and session.vocabulary.outside:
        msg = (
            f"{name_a} and {name_b} agree within the bounds, but --where names strings the "
            "bounded cluster cannot hold (see the notes)"
        )
        return Answer("unknown", [], msg, elapsed, notes=notes)
    if status == "unsat" and approximated(session):
        msg = (
            f"{name_a} and {name_b} agree within the bounds in exact arithmetic; they may still "
            "differ in Go's float64 rounding (see the notes)"
        )
        return Answer("unknown", [], msg, elapsed, notes=notes)
    if status == "unsat" and where:
        notes += _undefined_notes(session, w, "--where")
        if session.solve(narrow, minimize=False, count=1)[0] != "sat":
            msg = (
                "nothing was compared: no cluster within the bounds "
                f"({_bounds_text(session.bounds)}) satisfies --where; loosen it or raise the bounds"
            )
            return Answer("unknown", [], msg, time.monotonic() - start, notes=notes)
    if status == "unsat":
        rel = "implies" if implies else "agrees with"
        msg = (
            f"{name_a} {rel} {name_b} on every cluster within the bounds "
            f"({_bounds_text(session.bounds)})"
        )
        return Answer("unsat", [], msg, elapsed, notes=notes)
    witnesses = []
    for model, proven in models:
        objects = session.cluster.objects(model)
        bindings = session.bindings(model)
        verdicts = {}
        cluster = _load_witness(objects)
        for spec, pred, res in ((spec_a, predicate_a, a), (spec_b, predicate_b, b)):
            program, env = _replay(cluster, session.specs[spec].loaded, bindings)
            args = [env["p"], env["n"]]
            if _takes_snapshot(session.specs[spec].compiler.defs[pred], len(args)):
                args.append(_snapshot(program.constants))
            verdict = _verdict(functools.partial(program.call, pred, *args))
            solver_says = _solver_verdict(model, res)
            mismatch = verdict.startswith("error") != solver_says.startswith("error") or (
                not verdict.startswith("error") and verdict != solver_says
            )
            if mismatch and approximated(session):
                return _rounding_unknown(f"{verdict} for {pred}", start, notes)
            if mismatch:
                raise InternalDisagreement(
                    f"{spec}:{pred}: the solver says {solver_says} on its witness, the executable "
                    f"backend says {verdict}; please report this with the witness:\n"
                    + yaml.safe_dump_all(objects)
                )
            verdicts[f"{spec}:{pred}"] = verdict
        witnesses.append(Witness(objects, bindings, verdicts, proven))
    return Answer("sat", witnesses, "", time.monotonic() - start, notes=notes)


def _solver_verdict(model: z3.ModelRef, res: Result) -> str:
    for cond, msg in res.errors:
        if z3.is_true(model.eval(as_z3bool(cond), model_completion=True)):
            return f"error: {msg}"
    if _is_int(res.value):
        return str(model.eval(_z3int(res.value), model_completion=True).as_long())
    v = as_z3bool(res.value)
    return "TRUE" if z3.is_true(model.eval(v, model_completion=True)) else "FALSE"


def _conjuncts(node: A.Expr) -> list[A.Expr]:
    if isinstance(node, A.Junction) and node.op is A.JunctionOp.AND:
        return [c for item in node.items for c in _conjuncts(item)]
    return [node]


def _text(source: str, node: A.Expr) -> str:
    span = node.span
    if span.line == span.end_line == 1:
        return source[span.col - 1 : span.end_col - 1].strip()
    return f"conjunct at {span.line}:{span.col}"


def _bounds_text(b: Bounds) -> str:
    return ", ".join(f"{f}={getattr(b, f)}" for f in b.__dataclass_fields__)


# ---- output -----------------------------------------------------------------------------------


def itf(witness: Witness, *, source: str) -> dict[str, Any]:
    """The witness as a one-state ITF trace (the Apalache/Quint trace format)."""
    state = itf_format.cluster_state(witness.objects)
    meta = {
        "source": source,
        "description": "schedspec witness",
        "bindings": witness.bindings,
        "verdicts": witness.verdicts,
    }
    return itf_format.document(["nodes", "pods"], [state], meta)


def write(answer: Answer, out_dir: str, *, source: str) -> list[str]:
    """Write each witness as ``witness-K.yaml`` and ``witness-K.itf.json`` into ``out_dir``."""
    path = Path(out_dir)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {out_dir}: {err}") from None
    written = []
    for k, w in enumerate(answer.witnesses, 1):
        y, j = path / f"witness-{k}.yaml", path / f"witness-{k}.itf.json"
        y.write_text(w.yaml(), encoding="utf-8")
        j.write_text(json.dumps(itf(w, source=source), indent=2), encoding="utf-8")
        written += [str(y), str(j)]
    return written
