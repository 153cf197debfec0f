"""Views: how a cluster is shown to a spec, and which definitions decide feasibility and score.

A view turns validated Kubernetes objects (:mod:`schedspec.cluster`) into TLA values, tells the
checker which fields and enumerated values exist (:class:`~schedspec.spec.check.Schema`), and names
the spec's entry points. A definition's parameters are bound by name: ``Pod``/``p`` to the pod,
``Node``/``n`` to the node, ``Snapshot``/``S`` to the set of every object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from schedspec.autoscaling import node_groups
from schedspec.cluster import Cluster
from schedspec.errors import UsageError
from schedspec.spec.ast import Definition
from schedspec.spec.check import Schema
from schedspec.spec.kube import autoscaler_view, scheduler_view, textbook_view
from schedspec.spec.values import Fcn, Value

__all__ = ["VIEWS", "View", "World", "bind_arguments"]


class World(Protocol):
    """What every view builds from a cluster."""

    @property
    def objects(self) -> frozenset[Fcn]: ...
    @property
    def pods(self) -> Mapping[str, Fcn]: ...
    @property
    def nodes(self) -> Mapping[str, Fcn]: ...
    @property
    def pending(self) -> tuple[str, ...]: ...
    @property
    def constants(self) -> Mapping[str, Value]: ...


@dataclass(frozen=True)
class View:
    name: str
    schema: Schema
    build: Callable[[Cluster], World]
    filter: str
    score: str | None
    doc: str
    scores_feasible_only: bool = False  # scores are normalised over the feasible nodes
    # an equal value of successive clusters is one object (``SourceProgram.bind``'s ``keep``)
    shares_values: bool = False


_ROLES = {
    "pod": ("Pod", "p", "pod"),
    "node": ("Node", "n", "node"),
    "snapshot": ("Snapshot", "S", "snapshot", "Objects"),
}

VIEWS: dict[str, View] = {
    "scheduler": View(
        name="scheduler",
        schema=Schema(
            fields=scheduler_view.FIELDS,
            enums=scheduler_view.ENUMS,
            constants=frozenset(
                {"Pods", "Nodes", "PodsOn", "NamespaceLabels", "PDBs", "Services", "Controllers"}
                | {"Now", "Profiles"}
            ),
            name="scheduler view",
        ),
        build=scheduler_view.scheduler_view,
        filter="Feasible",
        score="Viability",
        doc="docs/scheduler-view.md",
        scores_feasible_only=True,
        shares_values=True,
    ),
    "autoscaler": View(
        name="autoscaler",
        schema=Schema(
            fields=autoscaler_view.FIELDS,
            enums=autoscaler_view.ENUMS,
            constants=frozenset(
                {"Pods", "Nodes", "PodsOn", "NamespaceLabels", "PDBs", "Services", "Controllers"}
                | {"Now", "Profiles"}
                | {"Groups", "Options", "Order", "Clock"}
            ),
            name="autoscaler view",
        ),
        # node groups from the manifests' Cluster API objects, CA's default flags
        build=lambda cluster: autoscaler_view.autoscaler_view(cluster, node_groups(cluster)),
        filter="Feasible",
        score="Viability",
        doc="docs/autoscaler.md",
        scores_feasible_only=True,
    ),
    "textbook": View(
        name="textbook",
        schema=Schema(
            fields=textbook_view.FIELDS,
            enums=textbook_view.ENUMS,
            constants=frozenset({"Objects"}),
            name="textbook view",
        ),
        build=textbook_view.textbook_view,
        filter="Filter",
        score="Viability",
        doc="docs/textbook-view.md",
    ),
}


def bind_arguments(definition: Definition, pod: Fcn, node: Fcn, world: World) -> tuple[Value, ...]:
    """Arguments for ``definition`` by parameter name (see the module docstring)."""
    by_role: dict[str, Value] = {"pod": pod, "node": node, "snapshot": world.objects}
    args = []
    for param in definition.params:
        role = next((r for r, names in _ROLES.items() if param.name in names), None)
        if role is None:
            raise UsageError(
                f"{definition.span}: cannot bind parameter '{param.name}' of {definition.name}: "
                "entry points take Pod/p, Node/n and Snapshot/S"
            )
        args.append(by_role[role])
    return tuple(args)
