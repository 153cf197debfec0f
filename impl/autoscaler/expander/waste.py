"""The least-waste expander (``expander/waste/waste.go``).

An option's waste is ``(C − Σcpu)/C + (M − Σmem)/M``: C and M are the template's **capacity**
(cpu in millicores, memory in bytes) × the node count, Σ the option's pods' regular-container
requests. Lowest waste wins; equal wastes are all kept. Upstream computes in float64:
**declared**, exact rationals. A resource the template has no capacity of is left out (upstream
would divide by zero).
"""

from __future__ import annotations

from fractions import Fraction

from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.expander.option import ExpansionContext, Option

__all__ = ["NAME", "best_options", "waste"]

NAME = "least-waste"


def waste(option: Option) -> Fraction:
    cap = podutil.capacity(option.group.template)
    score = Fraction(0)
    for resource in podutil.CONTAINER_CPU_MEMORY:
        available = cap.get(resource, 0) * option.node_count
        if available > 0:
            used = sum(r.get(resource, 0) for r in option.requests)
            score += Fraction(available - used, available)
    return score


def best_options(options: list[Option], ctx: ExpansionContext) -> list[Option]:
    if not options:
        return []
    scores = [waste(o) for o in options]
    least = min(scores)
    return [o for o, s in zip(options, scores, strict=True) if s == least]
