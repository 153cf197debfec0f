"""Label and node selectors, compiled once and matched many times.

Label selectors follow apimachinery v0.34.0 ``metav1.LabelSelectorAsSelector``: nil selects
nothing (``NOTHING``), ``{}`` everything; ``matchLabels`` and ``matchExpressions`` are ANDed. A
selector with an invalid requirement (unknown operator, In/NotIn without values, Exists with
values) cannot be built upstream; here it compiles to ``NOTHING`` (the loader warns about it).

Node selector terms follow component-helpers v0.34.0 ``nodeaffinity.LazyErrorNodeSelector``:
terms are ORed, requirements within a term ANDed; an empty term matches nothing; a term with a
requirement that fails to parse (``labels.NewRequirement``: Gt/Lt need exactly one int64 value,
In/NotIn at least one value, keys and values label syntax; matchFields In/NotIn with exactly one
value, any key, a key other than ``metadata.name`` reading "") is skipped, so other terms may
still match.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from schedspec.impl.api.types import (
    LabelSelector,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)

__all__ = [
    "EVERYTHING",
    "NOTHING",
    "CompiledNodeSelector",
    "CompiledTerm",
    "Selector",
    "compile_label_selector",
    "compile_node_selector",
    "compile_term",
    "label_selector_error",
]

_Labels = Mapping[str, str]
_LABEL_NAME = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_INT64 = re.compile(r"[+-]?[0-9]+")
_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})


@dataclass(frozen=True, slots=True)
class _Req:
    key: str
    op: str
    values: frozenset[str]
    number: int = 0  # Gt / Lt

    def matches(self, labels: _Labels) -> bool:
        op = self.op
        if op == "In":
            return labels.get(self.key) in self.values
        if op == "NotIn":
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        v = labels.get(self.key)
        if v is None or not _INT64.fullmatch(v) or not -(2**63) <= int(v) < 2**63:
            return False
        return int(v) > self.number if op == "Gt" else int(v) < self.number


class Selector:
    """A compiled label selector; ``matches(labels)``, ``empty`` when it has no requirement."""

    __slots__ = ("_exprs", "_labels", "empty", "nothing")

    def __init__(self, labels: tuple[tuple[str, str], ...], exprs: tuple[_Req, ...]) -> None:
        self._labels = labels
        self._exprs = exprs
        self.empty = not labels and not exprs
        self.nothing = False

    @property
    def key(self) -> tuple[bool, tuple[tuple[str, str], ...], tuple[_Req, ...]]:
        """A hashable value equal for selectors that match the same labels the same way."""
        return self.nothing, self._labels, self._exprs

    def matches(self, labels: _Labels) -> bool:
        if self.nothing:
            return False
        for key, want in self._labels:
            if labels.get(key) != want:
                return False
        return all(r.matches(labels) for r in self._exprs)

    def and_(self, other: Selector) -> Selector:
        """Both selectors' requirements (``labels.Selector.Add``)."""
        return Selector(self._labels + other._labels, self._exprs + other._exprs)

    def with_labels(self, extra: Mapping[str, str]) -> Selector:
        """This selector ANDed with ``key = value`` for each of ``extra`` (matchLabelKeys)."""
        if self.nothing or not extra:
            return self
        return Selector(self._labels + tuple(sorted(extra.items())), self._exprs)


NOTHING = Selector((), ())
NOTHING.nothing = True
NOTHING.empty = False
EVERYTHING = Selector((), ())


def _valid_key(key: str) -> bool:
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        return False
    return 0 < len(name) <= 63 and _LABEL_NAME.fullmatch(name) is not None


def _valid_value(v: str) -> bool:
    return len(v) <= 63 and _LABEL_NAME.fullmatch(v) is not None


def _requirement_error(key: str, op: str, values: tuple[str, ...]) -> str | None:
    """Why ``labels.NewRequirement`` refuses ``key op values`` (its field errors, shortened).
    The spec's twins: ``NodeRequirementValid``, and ``SelectorValid`` per requirement."""
    if not _valid_key(key):
        return f"key: Invalid value: {key!r}: not a qualified label name"
    bad = [v for v in values if not _valid_value(v)]
    if bad:
        return f"values[{values.index(bad[0])}]: Invalid value: {bad[0]!r}: not a label value"
    if op in ("In", "NotIn") and not values:
        return "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"
    if op in ("Exists", "DoesNotExist") and values:
        return (
            f"values: Invalid value: {list(values)}: "
            "values set must be empty for exists and does not exist"
        )
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            return "values: Invalid value: for 'Gt', 'Lt' operators, exactly one value is required"
        if not _INT64.fullmatch(values[0]) or not -(2**63) <= int(values[0]) < 2**63:
            return f"values[0]: Invalid value: {values[0]!r}: for 'Gt', 'Lt' operators, an integer"
    return None


def _requirement(key: str, op: str, values: tuple[str, ...]) -> _Req | None:
    """``labels.NewRequirement``: the compiled requirement, or None on a parse error."""
    if op not in _OPERATORS or _requirement_error(key, op, values) is not None:
        return None
    if op in ("Gt", "Lt"):
        return _Req(key, op, frozenset(), int(values[0]))
    return _Req(key, op, frozenset(values))


def label_selector_error(selector: LabelSelector | None) -> str | None:
    """Why ``metav1.LabelSelectorAsSelector`` refuses ``selector`` (None: it converts): a
    ``matchLabels`` entry ``NewRequirement(key, Equals, [value])`` refuses, then the first
    refused match expression (an unknown operator, then ``NewRequirement``'s checks). The
    spec's twin is ``SelectorValid``."""
    if selector is None:
        return None
    for key, value in sorted(selector.match_labels.items()):
        why = _requirement_error(key, "In", (value,))
        if why is not None:
            return why
    for e in selector.match_expressions:
        if e.operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return f"{e.operator!r} is not a valid label selector operator"
        why = _requirement_error(e.key, e.operator, e.values)
        if why is not None:
            return why
    return None


def compile_label_selector(selector: LabelSelector | None) -> Selector:
    """nil → ``NOTHING``; ``{}`` → ``EVERYTHING``; invalid → ``NOTHING``."""
    if selector is None:
        return NOTHING
    if not selector.match_labels and not selector.match_expressions:
        return EVERYTHING
    if label_selector_error(selector) is not None:
        return NOTHING
    exprs = tuple(_Req(e.key, e.operator, frozenset(e.values)) for e in selector.match_expressions)
    return Selector(tuple(sorted(selector.match_labels.items())), exprs)


# --------------------------------------------------------------------------- node selectors


@dataclass(frozen=True, slots=True)
class CompiledTerm:
    """A parsed NodeSelectorTerm; ``valid`` is False for an empty or unparsable term."""

    valid: bool
    exprs: tuple[_Req, ...] = ()
    fields: tuple[_Req, ...] = ()

    def matches(self, labels: _Labels, node_name: str) -> bool:
        if not self.valid:
            return False
        for r in self.exprs:
            if not r.matches(labels):
                return False
        return all(
            (_node_field(node_name, r.key) in r.values) == (r.op == "In") for r in self.fields
        )


def _node_field(node_name: str, key: str) -> str:
    """``fields.Set.Get`` on a node's fields: ``metadata.name``, else ""."""
    return node_name if key == "metadata.name" else ""


def _field_requirement(r: NodeSelectorRequirement) -> _Req | None:
    """``nodeSelectorRequirementsAsFieldSelector``: In/NotIn with exactly one value; the key is
    not checked (a node's only field is ``metadata.name``; any other reads "")."""
    if r.operator not in ("In", "NotIn") or len(r.values) != 1:
        return None
    return _Req(r.key, r.operator, frozenset(r.values))


def compile_term(term: NodeSelectorTerm) -> CompiledTerm:
    if not term.match_expressions and not term.match_fields:
        return CompiledTerm(False)
    exprs = [_requirement(r.key, r.operator, r.values) for r in term.match_expressions]
    fields = [_field_requirement(r) for r in term.match_fields]
    ok_exprs = [r for r in exprs if r is not None]
    ok_fields = [r for r in fields if r is not None]
    if len(ok_exprs) != len(exprs) or len(ok_fields) != len(fields):
        return CompiledTerm(False)
    return CompiledTerm(True, tuple(ok_exprs), tuple(ok_fields))


@dataclass(frozen=True, slots=True)
class CompiledNodeSelector:
    """Terms ORed; a selector whose terms are all invalid matches nothing."""

    terms: tuple[CompiledTerm, ...]

    def matches(self, labels: _Labels, node_name: str) -> bool:
        return any(t.matches(labels, node_name) for t in self.terms)


def compile_node_selector(selector: NodeSelector) -> CompiledNodeSelector:
    return CompiledNodeSelector(tuple(compile_term(t) for t in selector.terms))
