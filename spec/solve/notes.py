"""What an answer owes to the bounded cluster's shape: the notes printed beside it."""

from __future__ import annotations

from schedspec.spec import ast as A
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.kube.symbolic.vocabulary import Vocabulary
from schedspec.spec.solve.answers import free_names
from schedspec.spec.solve.session import Session


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


def _bounds_text(b: Bounds) -> str:
    return ", ".join(f"{f}={getattr(b, f)}" for f in b.__dataclass_fields__)
