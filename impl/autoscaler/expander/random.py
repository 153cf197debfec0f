"""The random expander (``expander/random/random.go``): one option, uniformly.

In a chain it filters nothing; the chain's final pick among what is left is the random
strategy, drawn with the run's seed (``chain.py``).
"""

from __future__ import annotations

from schedspec.impl.autoscaler.expander.option import ExpansionContext, Option

__all__ = ["NAME", "best_options"]

NAME = "random"


def best_options(options: list[Option], ctx: ExpansionContext) -> list[Option]:
    return list(options)
