"""Selector requirements the loader accepts with a warning and the API server refuses.

A hand-written manifest may hold them (``schedspec.validate`` warns and says what kube-scheduler
then does), and the three witnesses must then decide alike: the spec and impl as upstream's
parsers (``labels.NewRequirement``, ``LabelSelectorAsSelector``,
``nodeSelectorRequirementsAsFieldSelector``) do, the real scheduler not at all — the oracle
refuses the pod, a declared difference
(``Admitted.lenientValidation``). So the strategies draw them, rarely: one requirement in about
twenty, a shrink away from the valid one it replaces."""

from __future__ import annotations

from typing import TYPE_CHECKING

from schedspec.checker.strategies.pools import Obj

if TYPE_CHECKING:  # primitives draws through this module
    from schedspec.checker.strategies.primitives import _Choices

WARNED_PERCENT = 5

_LABEL_SHAPES = (
    "In without values",
    "values beside Exists",
    "an unknown operator",
    "a key that is not label syntax",
    "a value that is not label syntax",
)
_NODE_SHAPES = (*_LABEL_SHAPES, "Gt with two values", "Gt with a negative value")


def warned_requirement(ch: _Choices, req: Obj, *, node: bool = False) -> Obj:
    """``req`` as drawn, or (rarely) one of the warned shapes made from it."""
    if not ch.chance(WARNED_PERCENT):
        return req
    shape = ch.one(_NODE_SHAPES if node else _LABEL_SHAPES)
    out: Obj = {"key": req["key"], "operator": req["operator"]}
    if shape == "In without values":
        out["operator"] = "In"
    elif shape == "values beside Exists":
        out.update(operator="Exists", values=["web"])
    elif shape == "an unknown operator":
        out.update(operator="Exits", values=["web"])  # the seed's own spelling
    elif shape == "a key that is not label syntax":
        out.update(key="Example Key", operator="DoesNotExist")
    elif shape == "a value that is not label syntax":
        out.update(operator=ch.one(("In", "NotIn")), values=["web", "not a label!"])
    elif shape == "Gt with two values":
        out.update(operator="Gt", values=["2", "4"])
    else:
        out.update(operator=ch.one(("Gt", "Lt")), values=["-1"])
    return out


def warned_field(ch: _Choices, req: Obj) -> Obj:
    """A matchFields requirement as drawn, or (rarely) one on a field other than metadata.name,
    which kube-scheduler reads as "" (the API server refuses it)."""
    if not ch.chance(WARNED_PERCENT):
        return req
    return {**req, "key": "metadata.labels"}
