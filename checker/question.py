"""Clusters drawn in the question's own terms, and a check that the question was really asked.

The strategies (:mod:`.strategies`) draw label keys, values and taint keys from fixed pools. A
rule over a key outside them (``"gpu" ∈ DOMAIN n.metadata.labels``) is then TRUE on every drawn
pair, and a plugin that always says yes agrees with it on every cluster: a green test that
asked nothing. So:

- :func:`terms` reads the label keys and values a definition names (its string literals and
  those of the definitions it uses, by where each stands: :mod:`schedspec.spec.kube.symbolic.
  vocabulary`), and :func:`in_terms_of` draws clusters whose pool keys and values are, now and
  then, consistently renamed to them — a node label, the selectors that read it, the
  requirements and topology keys over it, and taints (for keys) all move together;
- :class:`Outcomes` counts the values a definition took over a campaign, and
  :class:`Vacuous` is raised when it took only one (``vacuous: GpuGuardOK was TRUE on all 1,704
  (pod, node) pairs``).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from hypothesis import strategies as st

from schedspec.checker.strategies import LABEL_KEYS, LABEL_VALUES, TAINT_KEYS
from schedspec.spec import ast as A
from schedspec.spec.kube.symbolic.vocabulary import literals
from schedspec.spec.load import LoadedSpec
from schedspec.spec.values import render
from schedspec.validate import label_key_problem, label_value_problem

__all__ = [
    "FOCUS",
    "STRUCTURAL",
    "Outcomes",
    "Vacuous",
    "in_terms_of",
    "judge_vacuity",
    "spec_terms",
    "terms",
]

_LABEL_MAPS = ("labels", "nodeSelector", "matchLabels")
_KEY_FIELDS = ("key", "topologyKey")
_KEY_LISTS = ("matchLabelKeys", "mismatchLabelKeys")
_TAINT_LISTS = ("taints", "tolerations")


class Vacuous(AssertionError):
    """The definition took one value on every pair the campaign checked."""


def terms(spec: LoadedSpec, definition: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The label keys and label values ``definition`` names, directly or through the
    definitions it uses, that the pools do not already hold."""
    defs = {d.name: d for d in spec.module.definitions}
    seen: set[str] = set()
    todo = [definition]
    bodies: list[A.Expr] = []
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        body = defs[name].body
        bodies.append(body)
        todo.extend(_used(body))
    keys: list[str] = []
    values: list[str] = []
    for text, role in literals(*bodies):
        if role == "key" and text not in LABEL_KEYS and label_key_problem(text) is None:
            keys.append(text)
        elif role == "value" and text and text not in LABEL_VALUES:
            values += [] if label_value_problem(text) else [text]
    return tuple(keys), tuple(values)


def spec_terms(spec: LoadedSpec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The label keys and values any definition of ``spec`` names that the pools lack: what
    ``crosscheck --spec PATH`` draws in, for a spec whose rules read keys of its own."""
    keys: dict[str, None] = {}
    values: dict[str, None] = {}
    for d in spec.module.definitions:
        k, v = terms(spec, d.name)
        keys.update(dict.fromkeys(k))
        values.update(dict.fromkeys(v))
    return tuple(keys), tuple(values)


def _used(x: Any) -> Iterable[str]:
    if isinstance(x, A.Apply):
        yield x.name
    if isinstance(x, A.Name):
        yield x.name
    if isinstance(x, tuple | list):
        for y in x:
            yield from _used(y)
    elif hasattr(x, "__dataclass_fields__"):
        for name in x.__dataclass_fields__:
            if name != "span":
                yield from _used(getattr(x, name))


def in_terms_of(
    base: st.SearchStrategy[list[dict[str, Any]]], keys: Iterable[str], values: Iterable[str]
) -> st.SearchStrategy[list[dict[str, Any]]]:
    """``base``'s clusters, each with some pool keys and values renamed to ``keys``/``values``."""
    keys, values = tuple(keys), tuple(values)
    if not keys and not values:
        return base

    @st.composite
    def draw(d: st.DrawFn) -> list[dict[str, Any]]:
        objects = d(base)
        label_map = _pick(d, keys, LABEL_KEYS)
        taint_map = _pick(d, keys, TAINT_KEYS[:1])
        value_map = _pick(d, values, LABEL_VALUES)
        if not (label_map or taint_map or value_map):
            return objects
        return [_renamed(o, label_map, value_map, taint_map, False) for o in copy.deepcopy(objects)]

    return draw()


def _pick(d: st.DrawFn, wanted: tuple[str, ...], pool: tuple[str, ...]) -> dict[str, str]:
    """Which pool strings to rename to which wanted ones (each pool string at most once)."""
    out: dict[str, str] = {}
    for w in wanted:
        target = d(st.sampled_from((*pool, None)))  # None last: Hypothesis favours the first
        if target is not None and target not in out:
            out[target] = w
    return out


def _renamed(
    x: Any,
    keys: Mapping[str, str],
    values: Mapping[str, str],
    taint_keys: Mapping[str, str],
    in_taints: bool,
) -> Any:
    if isinstance(x, list):
        return [_renamed(y, keys, values, taint_keys, in_taints) for y in x]
    if not isinstance(x, dict):
        return x
    out: dict[str, Any] = {}
    for k, v in x.items():
        if k in _LABEL_MAPS and isinstance(v, dict):
            out[k] = {
                keys.get(a, a): values.get(b, b) if isinstance(b, str) else b for a, b in v.items()
            }
        elif k in _KEY_FIELDS and isinstance(v, str):
            out[k] = (taint_keys if in_taints else keys).get(v, v)
        elif k == "values" and isinstance(v, list) and not in_taints:
            out[k] = [values.get(s, s) if isinstance(s, str) else s for s in v]
        elif k in _KEY_LISTS and isinstance(v, list):
            out[k] = [keys.get(s, s) if isinstance(s, str) else s for s in v]
        else:
            out[k] = _renamed(v, keys, values, taint_keys, in_taints or k in _TAINT_LISTS)
    return out


class Outcomes:
    """The values a definition took on the pairs a campaign checked."""

    def __init__(self, definition: str) -> None:
        self.definition = definition
        self.seen: Counter[str] = Counter()

    def add(self, value: object) -> None:
        self.seen[render(value) if not isinstance(value, str) else repr(value)] += 1

    def check(self) -> None:
        """Raise :class:`Vacuous` unless the definition took two values or more."""
        total = sum(self.seen.values())
        if total == 0:
            raise Vacuous(f"vacuous: no (pod, node) pair was checked for {self.definition}")
        if len(self.seen) == 1:
            (value,) = self.seen
            raise Vacuous(
                f"vacuous: {self.definition} was {value} on all {total:,} (pod, node) pairs — "
                "the clusters never asked the question; draw its keys and values (strategy=…) "
                "or pass accept_vacuous=True"
            )


# ---- a campaign's one-valued predicates ----------------------------------------------------

STRUCTURAL: Mapping[str, str] = {
    "NodeNameOK": (
        "the campaign judges pending pods, and a pod with spec.nodeName is bound "
        "(Cluster.pending_pods): NodeName's Filter passes on every pair by construction"
    ),
}
"""Predicates constant on a campaign's pairs by construction, with why."""

FOCUS: Mapping[str, frozenset[str] | None] = {
    "default": None,
    "scoring": frozenset({"score", "scoring", "total", "best"}),
    "preemption": frozenset({"preemption", "decision"}),
}
"""The seam points (``checker.seam.Pair.point``) a strategy is for; None: every point."""


def judge_vacuity(
    vacuous: Mapping[str, tuple[str, int]], strategy: str, accepted: Iterable[str]
) -> list[tuple[str, str, int, str]]:
    """(predicate, value, pairs, verdict) for each one-valued predicate; verdict ``"vacuous"``
    fails the campaign, the others (``"structural"``, ``"outside the strategy"``,
    ``"accepted"``) are reported only."""
    from schedspec.checker.seam import SEAM

    points = {p.spec: p.point for p in SEAM}
    focus = FOCUS.get(strategy)
    accept = set(accepted)
    out = []
    for predicate, (value, n) in vacuous.items():
        if predicate in STRUCTURAL:
            verdict = "structural"
        elif focus is not None and points.get(predicate) not in focus:
            verdict = "outside the strategy"
        elif predicate in accept or "all" in accept:
            verdict = "accepted"
        else:
            verdict = "vacuous"
        out.append((predicate, value, n, verdict))
    return out
