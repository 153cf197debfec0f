"""The priority expander (``expander/priority/priority.go``).

The ConfigMap ``cluster-autoscaler-priority-expander`` maps priorities to regexes. An option's
priority is the highest whose regex matches the group's name anywhere (unanchored, as Go's
``FindStringIndex``); the options with the highest priority are kept, options matching no regex
are dropped — unless no option matches any, then all are kept. Upstream's best priority starts
at −1, so an option whose priority is below −1 is never kept — and when that leaves nothing,
every option is returned, as when nothing matches. Without the ConfigMap nothing
matches (upstream then returns no option at all: **declared**, all are kept). A regex Python
cannot compile matches nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from schedspec.impl.autoscaler.expander.option import ExpansionContext, Option

__all__ = ["NAME", "best_options", "group_priority"]

NAME = "priority"
_LOWEST_KEPT = -1  # priority.go: maxPrio := -1


def _matches(pattern: str, name: str) -> bool:
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return False


def group_priority(name: str, priorities: Mapping[int, tuple[str, ...]] | None) -> int | None:
    """The highest priority with a regex matching ``name``; None if none matches."""
    matched = [
        prio
        for prio, patterns in (priorities or {}).items()
        if any(_matches(p, name) for p in patterns)
    ]
    return max(matched, default=None)


def best_options(options: list[Option], ctx: ExpansionContext) -> list[Option]:
    prios = [group_priority(o.group.name, ctx.priorities) for o in options]
    known = [p for p in prios if p is not None]
    if not known:
        return list(options)
    best = max(known)
    if best < _LOWEST_KEPT:  # upstream's best list stays empty: it then returns every option
        return list(options)
    return [o for o, p in zip(options, prios, strict=True) if p == best]
