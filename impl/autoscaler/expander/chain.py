"""The expander chain (``expander/factory/chain.go``): ``--expander=priority,least-waste``.

Each expander keeps its best options; once exactly one is left it is chosen. What is left after
the last expander is ``best``; if several, the random strategy picks one with the run's seed
(``random.Random(seed)``, uniformly over ``best`` in group-name order).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from schedspec.impl.autoscaler.expander import most_pods, price, priority, waste
from schedspec.impl.autoscaler.expander import random as random_expander
from schedspec.impl.autoscaler.expander.option import ExpanderFilter, ExpansionContext, Option

__all__ = ["EXPANDERS", "best_options", "choose"]

EXPANDERS: dict[str, ExpanderFilter] = {
    random_expander.NAME: random_expander.best_options,
    most_pods.NAME: most_pods.best_options,
    waste.NAME: waste.best_options,
    price.NAME: price.best_options,
    priority.NAME: priority.best_options,
}


def best_options(
    names: Sequence[str], options: list[Option], ctx: ExpansionContext
) -> list[Option]:
    """The options left after the chain (stopping early once one is left)."""
    left = list(options)
    for name in names:
        if len(left) <= 1:
            break
        try:
            expander = EXPANDERS[name]
        except KeyError:
            raise ValueError(f"Expander {name} not supported") from None
        left = expander(left, ctx)
    return left


def choose(best: Sequence[Option], seed: int) -> Option | None:
    if not best:
        return None
    if len(best) == 1:
        return best[0]
    ordered = sorted(best, key=lambda o: o.group.name)
    return ordered[Random(seed).randrange(len(ordered))]
