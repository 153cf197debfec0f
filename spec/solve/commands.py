"""The two commands: :func:`find` and :func:`diff`."""

from __future__ import annotations

import functools
import time
from typing import Any

import yaml
import z3

from schedspec.errors import UsageError
from schedspec.spec import ast as A
from schedspec.spec.compile.z3 import (
    CompileTimeout,
    Result,
    as_z3bool,
    conj,
    neg,
)
from schedspec.spec.compile.z3.equality import _z3int
from schedspec.spec.compile.z3.logic import _is_int
from schedspec.spec.errors import SpecError
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.kube.symbolic.vocabulary import literals
from schedspec.spec.load import LoadedSpec
from schedspec.spec.parse import parse_expr
from schedspec.spec.solve import small_first
from schedspec.spec.solve.answers import Answer, Witness, names_objects
from schedspec.spec.solve.notes import (
    _bounds_text,
    approximated,
    bounds_notes,
    float_notes,
    vocabulary_notes,
)
from schedspec.spec.solve.replay import (
    _formula_verdict,
    _load_witness,
    _replay,
    _snapshot,
    _solver_verdict,
    _takes_snapshot,
    _verdict,
)
from schedspec.spec.solve.session import Session


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
    """A cluster within ``bounds`` on which ``formula`` holds: first in small clusters (a plain
    search for one witness, :mod:`.small_first`), then in the whole bounded cluster."""
    start = time.monotonic()
    bounds = bounds or Bounds()
    parsed: dict[str, LoadedSpec] = {}  # the spec is parsed once for every stage
    if count == 1 and not minimize and not core:

        def stage(size: Bounds, budget: float) -> Answer:
            return _find_whole(formula, spec, size, minimize=False, count=1, timeout=budget,
                               parsed=parsed)  # fmt: skip

        found = small_first.first_sat(bounds, timeout, start, stage)
        if found is not None:
            return found
    left = timeout - (time.monotonic() - start)
    answer = _find_whole(
        formula, spec, bounds, minimize=minimize, count=count, timeout=left, core=core,
        parsed=parsed,
    )  # fmt: skip
    answer.seconds = time.monotonic() - start
    return answer


def _find_whole(
    formula: str,
    spec: str,
    bounds: Bounds,
    *,
    minimize: bool,
    count: int,
    timeout: float,
    core: bool = False,
    parsed: dict[str, LoadedSpec] | None = None,
) -> Answer:
    start = time.monotonic()
    session = Session(
        bounds or Bounds(),
        [spec],
        timeout,
        pinned=not names_objects(formula),
        literals=literals(parse_expr(formula, "<formula>")),
        parsed=parsed,
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
    SPEC_B's terms) narrows the search to the clusters that satisfy it. Small clusters first
    (:mod:`.small_first`) when one witness, not a minimal one, is asked for."""
    start = time.monotonic()
    bounds = bounds or Bounds()
    predicate_b = predicate_b or predicate_a
    parsed: dict[str, LoadedSpec] = {}  # each spec is parsed once for every stage
    whole = functools.partial(
        _diff_whole, spec_a, spec_b, predicate_a, predicate_b, implies=implies, where=where,
        parsed=parsed,
    )  # fmt: skip
    if count == 1 and not minimize:

        def stage(size: Bounds, budget: float) -> Answer:
            answer = whole(size, minimize=False, count=1, timeout=budget)
            errs = answer.witnesses and any(
                v.startswith("error") for v in answer.witnesses[0].verdicts.values()
            )
            if errs and not implies:  # the whole cluster looks for a defined difference first
                return Answer("unknown", [], "a stage found only a side that errs", answer.seconds)
            return answer

        found = small_first.first_sat(bounds, timeout, start, stage)
        if found is not None:
            return found
    left = timeout - (time.monotonic() - start)
    answer = whole(bounds, minimize=minimize, count=count, timeout=left)
    answer.seconds = time.monotonic() - start
    return answer


def _diff_whole(
    spec_a: str,
    spec_b: str,
    predicate_a: str,
    predicate_b: str,
    bounds: Bounds,
    *,
    implies: bool,
    minimize: bool,
    count: int,
    timeout: float,
    where: str | None,
    parsed: dict[str, LoadedSpec] | None = None,
) -> Answer:
    start = time.monotonic()
    session = Session(
        bounds or Bounds(),
        [spec_a, spec_b] if spec_a != spec_b else [spec_a],
        timeout,
        pinned=not names_objects(where),
        literals=literals(parse_expr(where, "<where>")) if where else (),
        parsed=parsed,
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


def _conjuncts(node: A.Expr) -> list[A.Expr]:
    if isinstance(node, A.Junction) and node.op is A.JunctionOp.AND:
        return [c for item in node.items for c in _conjuncts(item)]
    return [node]


def _text(source: str, node: A.Expr) -> str:
    span = node.span
    if span.line == span.end_line == 1:
        return source[span.col - 1 : span.end_col - 1].strip()
    return f"conjunct at {span.line}:{span.col}"
