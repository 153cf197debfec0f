"""Small clusters first: ``find`` and ``diff`` look for a witness in a few objects before all.

A bounded cluster of N nodes and M pods holds every smaller one: its objects have presence bits,
kept a prefix (object i present ⇒ object i − 1 present), and the names a field may hold (a pod's
``nodeName``, a ``matchFields`` value) are the first N node names, among which a smaller cluster's
are. So a witness found on the bounded cluster of k nodes and k pods (the other bounds unchanged)
is a witness within the bounds N × M as it stands — the same manifests, replayed by the
executable backend as every witness is. Looking there first pays because both costs grow with
nodes × pods: building the formula (every pod may sit on every node) and solving it (the SMT core
decides every object's leaves). ``find`` on 10 nodes × 10 pods answered in 1.6–1.7 s with
stages, 26–40 s without (bench/solver.py (b), the same run, load 9.8).

The stages are k = 1, 4, 16, … while k is below N or M, each with a quarter of the time left, then
the whole cluster exactly as without stages. Only a ``sat`` of a stage is used: a stage's
``unsat`` or ``unknown`` says nothing about the bounds and moves on to the next stage, and so does
a stage the bounds make a usage error (a formula with more pod variables than k pods). The
verdict is therefore the whole cluster's; only a witness may be smaller than the one the solver
would have picked on the whole cluster. ``diff`` keeps its order — a difference where both sides
are defined before one where a side errs — by taking from a stage only a witness of the first
kind. An ``unsat`` costs the stages on top (each small), and a stage that runs out of its time
leaves the whole cluster that much less.

Not staged: ``--minimize`` (the fewest objects within a stage need not be the fewest overall),
``--all N`` (distinct witnesses come from one solver), ``--core`` (the core is the whole
cluster's), and clusters of at most :data:`SMALLEST` nodes and pods, where the whole cluster is
as quick as a stage. :data:`STAGED` switches stages off (``bench/solver.py`` measures both ways).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator

from schedspec.errors import UsageError
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.solve.answers import Answer

STAGED = True
"""Whether ``find``/``diff`` look in small clusters before the whole bounded cluster."""

SMALLEST = 4
"""At most this many nodes and pods: no stages (the whole cluster is as quick)."""


def ladder(nodes: int, pods: int, start: int = 1) -> list[int]:
    """The sizes k of the stages for a cluster of ``nodes`` × ``pods``: ``start``, four times
    that, … while some node or pod is left out. Four, not two: every stage that holds no witness
    is paid for by an ``unsat`` (bench/solver.py (b): an unsat ``diff`` on 6 × 6 took 2.4–2.5 s with
    stages 1 and 4, 2.7–3.1 s with 1, 2 and 4, 1.8–1.9 s with none; load 14)."""
    if max(nodes, pods) <= SMALLEST:
        return []
    out = []
    k = max(1, start)
    while k < max(nodes, pods):
        out.append(k)
        k *= 4
    return out


def stages(bounds: Bounds, deadline: float) -> Iterator[tuple[Bounds, float]]:
    """Each stage's bounds (``bounds`` with at most k nodes and k pods) and its time budget."""
    if not STAGED:
        return
    for k in ladder(bounds.nodes, bounds.pods):
        left = deadline - time.monotonic()
        if left <= 1:
            return
        size = dataclasses.replace(bounds, nodes=min(k, bounds.nodes), pods=min(k, bounds.pods))
        yield size, left / 4


def first_sat(
    bounds: Bounds, timeout: float, start: float, run: Callable[[Bounds, float], Answer]
) -> Answer | None:
    """The first stage's answer that is ``sat`` (its ``seconds`` counted from ``start``), or
    ``None`` when no stage found a witness in its time."""
    for size, budget in stages(bounds, start + timeout):
        try:
            answer = run(size, budget)
        except UsageError:  # a stage too small for the query; the whole cluster says if it is
            continue
        if answer.result == "sat":
            answer.seconds = time.monotonic() - start
            return answer
    return None
