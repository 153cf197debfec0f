"""Expanders: which of the expansion options to take (``expander/``).

One module per expander (``random``, ``most_pods``, ``waste`` for least-waste, ``price``,
``priority``), each a filter keeping its best options; ``chain`` runs them as
``--expander=a,b`` asks and picks among what is left with the seed.
"""

from schedspec.impl.autoscaler.expander.chain import EXPANDERS, best_options, choose
from schedspec.impl.autoscaler.expander.option import ExpansionContext, Option

__all__ = ["EXPANDERS", "ExpansionContext", "Option", "best_options", "choose"]
