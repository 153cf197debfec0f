"""What ``find`` and ``diff`` answer, and the names a query's formula uses."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from schedspec.errors import SchedspecError
from schedspec.spec import ast as A

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


def _near(name: str, names: Mapping[str, Any]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(names), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""
