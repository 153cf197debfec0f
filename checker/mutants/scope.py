"""What is mutated: the modules (``SCOPE``), the functions out of the checker's reach, the
operator tables, and ``Mutant``, one edit of one module."""

from __future__ import annotations

import ast
from dataclasses import dataclass

_PLUGINS = "schedspec.impl.plugins."
SCOPE: tuple[str, ...] = (
    _PLUGINS + "balanced_allocation",
    _PLUGINS + "default_preemption",
    _PLUGINS + "image_locality",
    _PLUGINS + "inter_pod_affinity",
    _PLUGINS + "node_affinity",
    _PLUGINS + "node_name",
    _PLUGINS + "node_ports",
    _PLUGINS + "node_resources_fit",
    _PLUGINS + "node_unschedulable",
    _PLUGINS + "pod_topology_spread",
    _PLUGINS + "resource_allocation",
    _PLUGINS + "taint_toleration",
    "schedspec.impl.preemption.evaluator",
    "schedspec.impl.preemption.pdb",
)
"""Modules mutated by default. Left out: ``coscheduling`` and ``node_number`` (not in the default
profile), ``default_binder``, ``priority_sort`` and ``scheduling_gates`` (binding, queue order and
PreEnqueue: no spec partner on the seam), the package ``__init__`` files (imports only)."""

OUT_OF_REACH_FUNCTIONS: tuple[str, ...] = (
    "is_schedulable_after_",
    "is_pod_schedulable_after_",
    "events_to_register",
)
"""Name prefixes of functions the checker never calls (queueing hints): out of reach of the
default killers; ``bench/mutation.py --hints`` runs them with the ``queue-trace`` killer."""

_NOT_MUTATED_FUNCTIONS = frozenset({"__repr__", "__str__"})

_CMP_FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_CMP_TEXT: dict[type[ast.cmpop], str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_SEQUENCE_CALLS = frozenset({"tuple", "list", "str", "sorted", "frozenset", "set", "dict"})


@dataclass(frozen=True)
class Mutant:
    """One edit of one module. ``site`` re-locates it: its ordinal among the module's mutations."""

    id: str
    module: str
    file: str
    line: int
    col: int
    operator: str
    original: str
    mutated: str
    function: str | None
    """Qualified name of the enclosing top-level function; None outside any function body."""
    reach: str
    """``""`` when the checker can see the site, else why not (``queueing hint``, …)."""
    site: int

    @property
    def in_reach(self) -> bool:
        return not self.reach

    @property
    def site_key(self) -> tuple[str, int]:
        """Sorts mutants in enumeration order within a file."""
        return (self.file, self.site)

    def describe(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}"
        return f"{where} {self.operator}: {self.original!r} -> {self.mutated!r}"
