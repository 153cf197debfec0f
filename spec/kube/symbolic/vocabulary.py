"""The strings a bounded cluster's labels and namespaces range over, grown by a query's literals.

The bounds name the first ``--keys`` label keys, ``--values`` label values and ``--namespaces``
namespaces of fixed lists (:mod:`.bounds`). A query that names a label key or value outside them
(``p.metadata.labels["disktype"] = "ssd"``) would otherwise be unsatisfiable for a reason that is
not the rules': the bounded cluster cannot hold the string. So every string literal of the query
that is a valid label key joins the keys, every one that is a valid label value joins the
values, and one compared with a ``namespace`` field (or listed in ``namespaces``) that is a valid
namespace name joins the namespaces — up to :data:`CAP` of each beyond the bounds. What the cap
leaves out is returned, for ``find``/``diff`` to say, and an ``unsat`` that may depend on it is
reported as ``unknown``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from schedspec.shapes import SHAPES, validated_paths
from schedspec.spec import ast as A
from schedspec.spec.kube.symbolic.bounds import (
    EFFECTS,
    LABEL_KEYS,
    LABEL_VALUES,
    NAMESPACES,
    NODE_OPERATORS,
    PHASES,
    PROTOCOLS,
    RESOURCES,
    TOLERATION_OPERATORS,
    WHEN_UNSATISFIABLE,
    Bounds,
)
from schedspec.validate import label_key_problem, label_value_problem

__all__ = ["CAP", "Vocabulary", "literals"]

CAP = 4
"""Extra label keys, extra label values and extra namespaces a query may add (each)."""

ENUMS = {
    "operator": tuple(dict.fromkeys((*NODE_OPERATORS, *TOLERATION_OPERATORS))),
    "effect": (*EFFECTS, ""),
    "phase": PHASES,
    "protocol": PROTOCOLS,
    "whenUnsatisfiable": WHEN_UNSATISFIABLE,
}
"""Fields whose strings come from a fixed list: a literal compared with one is not a label."""

API_FIELDS = frozenset(
    part.rstrip("[]")
    for kind in ("Pod", "Node")
    if kind in SHAPES
    for path in validated_paths(kind)
    for part in path.split(".")
)
"""Names of the fields schedspec reads: a literal in no role ("podAffinity" passed to
``AffinityTerms``, "labelSelector" tested against a term's DOMAIN) that is one of them names a
field, not a label."""

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def _extended(name: str) -> bool:
    """An extended resource (``v1helper.IsExtendedResourceName``): domain-qualified, outside
    ``kubernetes.io/``, not ``requests.``; the only kind a bounded cluster can add."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


@dataclass(frozen=True)
class Vocabulary:
    keys: tuple[str, ...]
    values: tuple[str, ...]
    namespaces: tuple[str, ...]
    outside: tuple[tuple[str, str], ...] = ()
    """(literal, what it could not join) for each literal the cap left out."""
    resources: tuple[str, ...] = RESOURCES
    """The resources pods request and nodes offer: the bounds' and the extended resources a
    question names with the role "resource" (a configuration's weighted resources)."""

    @classmethod
    def of(cls, bounds: Bounds, named: Iterable[tuple[str, str]] = ()) -> Vocabulary:
        """The bounds' strings and the query's literals ``named``: (text, role), the role one
        of "key", "value", "namespace", one of :data:`ENUMS` (from where the literal stands) or
        "any"."""
        keys = list(LABEL_KEYS[: bounds.keys])
        values = list(LABEL_VALUES[: bounds.values])
        namespaces = list(NAMESPACES[: bounds.namespaces])
        outside: list[tuple[str, str]] = []
        resources = list(RESOURCES)
        grown = {"label key": 0, "label value": 0, "namespace": 0, "resource": 0}

        def join(into: list[str], text: str, what: str) -> None:
            if text in into:
                return
            if grown[what] >= CAP:
                outside.append((text, what))
                return
            grown[what] += 1
            into.append(text)

        for text, role in named:
            if not text:
                continue
            if role == "resource":
                if text not in (*resources, "pods") and _extended(text):
                    join(resources, text, "resource")
                elif text not in (*resources, "pods"):
                    outside.append((text, "resource"))
                continue
            if role in ENUMS:
                if text not in ENUMS[role]:
                    outside.append((text, role))
                continue
            if role == "namespace":
                if len(text) <= 63 and _DNS_LABEL.fullmatch(text):
                    join(namespaces, text, "namespace")
                continue
            if role == "any" and text in API_FIELDS:
                continue
            if role in ("key", "any") and label_key_problem(text) is None:
                join(keys, text, "label key")
            if role in ("value", "any") and label_value_problem(text) is None:
                join(values, text, "label value")
        return cls(tuple(keys), tuple(values), tuple(namespaces), tuple(outside), tuple(resources))

    def notes(self) -> list[str]:
        resources = ", ".join((*self.resources, "pods"))
        return [
            f"{text!r} is not a resource of the bounded cluster ({resources}): an answer that "
            "needs it is unknown"
            if what == "resource"
            else f"{text!r} is not a {what} the bounded cluster draws "
            f"({', '.join(repr(e) for e in ENUMS[what])}): an answer that needs it is unknown"
            if what in ENUMS
            else f"{text!r} is not a {what} of the bounded cluster: the query's strings already "
            f"add {CAP} {what}s, the most they may; an answer that needs it is unknown (name "
            "fewer)"
            for text, what in self.outside
        ]


def literals(*nodes: A.Expr) -> list[tuple[str, str]]:
    """The string literals of ``nodes`` in order, each once, with the role where it stands:
    "key" (indexing ``labels``/``nodeSelector``/``matchLabels``, in their DOMAIN, or compared with
    a ``key``/``topologyKey``), "value" (compared with such an entry or with a ``value``),
    "namespace" (compared with or listed beside a ``namespace``/``namespaces`` field),
    "resource" (indexing, or passed beside, ``allocatable``/``capacity``/``requests``/…), the
    field's name for one of :data:`ENUMS` (``operator``, ``effect``, ``phase``…), else "any". A
    literal met in two roles takes "any"."""
    seen: dict[str, str] = {}
    for node in nodes:
        for text, role in _walk(node, "any"):
            seen[text] = role if seen.get(text, role) == role else "any"
    return list(seen.items())


_MAPS = ("labels", "nodeSelector", "matchLabels")
_LABEL_ACCESSORS = ("Labels",)
"""Definitions that return an object's labels (scheduler.tla's ``Labels(q)``)."""


def _label_map(x: Any) -> bool:
    """``x`` is a label map: a ``labels``/``nodeSelector``/``matchLabels`` field, ``Labels(q)``."""
    if isinstance(x, A.Field):
        return x.name in _MAPS
    return isinstance(x, A.Apply) and x.name in _LABEL_ACCESSORS


_RESOURCE_MAPS = ("allocatable", "capacity", "requests", "limits", "overhead")


def _resource_map(x: Any) -> bool:
    return isinstance(x, A.Field) and x.name in _RESOURCE_MAPS


def _role_beside(x: Any) -> str | None:
    """The role of a literal compared with ``x``."""
    if isinstance(x, A.Field):
        if x.name in ("namespace", "namespaces"):
            return "namespace"
        if x.name in ("key", "topologyKey"):
            return "key"
        if x.name == "value":
            return "value"
        if x.name in ENUMS:
            return x.name
    if isinstance(x, A.Index) and _label_map(x.fn):
        return "value"
    if isinstance(x, A.Unary) and x.op is A.UnOp.DOMAIN and _label_map(x.operand):
        return "key"
    return None


def _walk(x: Any, role: str) -> Iterator[tuple[str, str]]:
    if isinstance(x, A.Str):
        yield x.value, role
        return
    if isinstance(x, A.Binary):
        yield from _walk(x.left, _role_beside(x.right) or "any")
        yield from _walk(x.right, _role_beside(x.left) or "any")
        return
    if isinstance(x, A.Index) and _label_map(x.fn):
        yield from _walk(x.fn, "any")
        for a in x.args:
            yield from _walk(a, "key")
        return
    if isinstance(x, A.Index) and _resource_map(x.fn):
        yield from _walk(x.fn, "any")
        for a in x.args:
            yield from _walk(a, "resource")
        return
    if isinstance(x, A.Apply) and any(_resource_map(a) for a in x.args):
        for a in x.args:
            yield from _walk(a, "resource" if isinstance(a, A.Str) else "any")
        return
    if isinstance(x, A.SetEnum | A.TupleLit):
        for y in x.items:
            yield from _walk(y, role)
        return
    if isinstance(x, tuple | list):
        for y in x:
            yield from _walk(y, "any")
        return
    if hasattr(x, "__dataclass_fields__"):
        for name in x.__dataclass_fields__:
            if name != "span":
                yield from _walk(getattr(x, name), "any")
