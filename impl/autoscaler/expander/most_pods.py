"""The most-pods expander (``expander/mostpods/mostpods.go``): the options scheduling the most
pods; ties are all kept."""

from __future__ import annotations

from schedspec.impl.autoscaler.expander.option import ExpansionContext, Option

__all__ = ["NAME", "best_options"]

NAME = "most-pods"


def best_options(options: list[Option], ctx: ExpansionContext) -> list[Option]:
    if not options:
        return []
    most = max(len(o.pods) for o in options)
    return [o for o in options if len(o.pods) == most]
