"""The rules ``checker.monitor`` judges a live scheduler's decisions by, on one state at a time.

Each ``RULES[kind](monitor, decision)`` returns a judgement: a function of a ``SpecState`` (one
state the scheduler could have decided on, ``monitor_view``) giving ``None`` when that state
explains the decision, else ``(rule, verdict, reason)``; it raises ``NotJudged`` when the state
cannot judge it (a pod missing from it):

- **binding**: ``Feasible(p, n)``, and ``n ∈ Best(p)`` unless kube-scheduler did not score every
  feasible node (the nominated node that passes the filters is taken unscored; above 100 nodes
  ``numFeasibleNodesToFind`` of pkg/scheduler/schedule_one.go may stop the search early);
- **failure**: no node is ``Feasible``;
- **preemption**: the victims are a set ``ValidVictims`` and ``MinimalVictims`` accept; when the
  group's last victim is unknown (``Decision.last_unknown``), also that set with one pod another
  preemptor evicted from the node, or one preempted there that no Event names (``preemption``;
  with such a pod about and no set explaining it, the victims are not known: not judged);
- **victim**: one victim judged alone: a pod of lower priority on the node (``PotentialVictims``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from schedspec.checker.differential import SpecState
from schedspec.checker.monitor_state import Key, Obj
from schedspec.checker.seam import SEAM
from schedspec.cluster import object_key
from schedspec.spec.values import Fcn

__all__ = [
    "FILTER_RULES",
    "RULES",
    "Decision",
    "Judgement",
    "NotJudged",
    "Verdict",
    "same_failure",
    "sampled_scoring",
]

FILTER_RULES = tuple(pair.spec for pair in SEAM if pair.point == "filter")
"""The spec's per-plugin Filter predicates, in the default profile's Filter order."""
_MIN_FEASIBLE_NODES = 100  # minFeasibleNodesToFind, schedule_one.go
_MIN_FEASIBLE_PERCENT = 5  # minFeasibleNodesPercentageToFind


def sampled_scoring(nodes: int, percentage: int) -> bool:
    """Whether kube-scheduler stops looking after fewer feasible nodes than ``nodes``
    (``numFeasibleNodesToFind`` of pkg/scheduler/schedule_one.go; ``percentage`` 0 is the
    adaptive default)."""
    if nodes < _MIN_FEASIBLE_NODES:
        return False
    if percentage == 0:
        percentage = max(50 - nodes // 125, _MIN_FEASIBLE_PERCENT)
    return max(nodes * percentage // 100, _MIN_FEASIBLE_NODES) < nodes


@dataclass
class Decision:
    """A decision found in the stream, judged once ``window`` more changes have come."""

    kind: str  # "binding" | "failure" | "preemption" | "victim"
    pod: str
    node: str
    position: int
    pins: dict[Key, Obj | None]
    victims: tuple[str, ...] = ()
    seen_at: int = 0  # the log length when last extended (preemptions grow by event)
    created: float = 0.0  # the clock then
    last_unknown: bool = False  # a preemption whose last victim no Event of its own names
    note: str = ""  # what else the state that explained it took (set by the judgement)
    split: list[Decision] = field(default_factory=list)  # the reading as rounds, if no state
    # explains it read as one preemption (each victim alone)


Verdict = tuple[str, str, str] | None
Judgement = Callable[[SpecState, Decision], Verdict]


class NotJudged(Exception):
    pass


def binding(monitor: Any, d: Decision) -> Judgement:
    pinned = d.pins[("Pod", d.pod)] or {}
    nominated = (pinned.get("status") or {}).get("nominatedNodeName") or ""

    def judge(s: SpecState, d: Decision) -> Verdict:
        p, n = s.world.pods[d.pod], s.world.nodes[d.node]
        feasible = s.call("Feasible", p, n)
        if feasible is not True:
            return "Feasible", show(feasible), why_not(s, p, n)
        if nominated == d.node:
            return None  # the nominated node passed the filters: taken without scoring
        if sampled_scoring(len(s.world.nodes), monitor.percentage):
            return None
        best = s.call("Best", p)
        if isinstance(best, frozenset) and d.node not in best:
            shown = ", ".join(sorted(best)[:5]) or "none"
            ours, top = s.call("Viability", p, n), s.call("BestViability", p)
            return "Best", "FALSE", f"{d.node} scores {show(ours)}, the best ({shown}) {show(top)}"
        return None

    if nominated == d.node:
        monitor.summary.not_judged["binding: Best (the nominated node is taken unscored)"] += 1
    elif monitor.sampled():
        monitor.summary.not_judged["binding: Best (scoring samples the nodes)"] += 1
    return judge


def failure(monitor: Any, d: Decision) -> Judgement:
    def judge(s: SpecState, d: Decision) -> Verdict:
        p = s.world.pods[d.pod]
        feasible = sorted(m for m, n in s.world.nodes.items() if s.call("Feasible", p, n) is True)
        if not feasible:
            return None
        shown = ", ".join(feasible[:5]) + (
            f" and {len(feasible) - 5} more" if len(feasible) > 5 else ""
        )
        return (
            "FeasibleNodes",
            f"{{{shown}}}",
            f"kube-scheduler found no feasible node; the spec finds {len(feasible)}: {shown}",
        )

    return judge


def preemption(monitor: Any, d: Decision) -> Judgement:
    """The victims valid and minimal. With async preemption (v1.34's default),
    ``prepareCandidateAsync`` evicts every victim but the last in parallel and the last only
    once they are gone, and ``PreemptPod`` records a victim's Preempted Event only after its own
    deletion succeeded: when another preemptor that chose the same pod deleted it first, this
    preemptor's Events never name it (nor when a rollout deleted it first: then it may not even
    have the DisruptionTarget condition). So a group whose last victim is unknown is also judged
    with one such pod added (``Monitor.evicted_by_others``, ``Monitor.eventless_victims``,
    ``Monitor.deleted_unmarked``); when that does not explain it and a pod preempted on the
    node has no Event at all, the preemption's victims are not known: not judged. Nor need the
    unknown victims be only the last: SelectVictimsOnNode takes the pods another preemption is
    already deleting too, and when that one deletes them first this one's Events never name
    them — so up to ``_MARKED_AT_MOST`` such pods are also tried together. Those pods are the
    history's, not a state's: looked up once per decision, not once per state."""

    found: list[tuple[list[str], list[str], list[str]]] = []

    def candidates() -> tuple[list[str], list[str], list[str]]:
        """The pods that may be unknown victims; those of them no Event names; those another
        preemption marked (its Event names them, or none does)."""
        if not found:
            eventless = monitor.eventless_victims(d)
            marked = monitor.evicted_by_others(d).union(eventless)
            unnamed = sorted(marked.union(monitor.deleted_unmarked(d)))
            found.append((unnamed, eventless, sorted(marked)))
        return found[0]

    def judge(s: SpecState, d: Decision) -> Verdict:
        d.note = ""
        p, n = s.world.pods[d.pod], s.world.nodes[d.node]
        victims = [s.world.pods.get(v) for v in d.victims]
        if any(v is None for v in victims):
            raise NotJudged("a victim is not in the state")
        chosen = frozenset(v for v in victims if v is not None)
        verdict = _victims_verdict(s, p, n, chosen)
        if verdict is None or not d.last_unknown:
            return verdict
        unnamed, eventless, marked = candidates()
        usable: list[tuple[str, Fcn]] = []
        for name in unnamed:
            q = s.world.pods.get(name)
            if q is None or q in chosen or q["spec"]["nodeName"] != d.node:
                continue
            if q["spec"]["priority"] < p["spec"]["priority"]:
                usable.append((name, q))
        for _, q in usable:
            if _victims_verdict(s, p, n, chosen | {q}) is None:
                d.note = "with a last victim no Event of its own names"
                return None
        # SelectVictimsOnNode takes every lower-priority pod of the node's NodeInfo, those
        # another preemption is already deleting included; when that one deleted them first,
        # none of this preemptor's Events name them, however many it chose
        others = [q for name, q in usable if name in marked][:_MARKED_AT_MOST]
        for size in range(2, len(others) + 1):
            for extra in itertools.combinations(others, size):
                if _victims_verdict(s, p, n, chosen.union(extra)) is None:
                    d.note = "with victims another preemption deleted first"
                    return None
        if eventless:
            raise NotJudged(
                "victims not known (a pod preempted on the node has no Preempted Event: "
                "deleted by another first)"
            )
        return verdict

    return judge


_MARKED_AT_MOST = 5
"""How many pods another preemption marked on the node are tried as unnamed victims together
(every subset: 2⁵ judgements at most per state)."""


def _victims_verdict(s: SpecState, p: Fcn, n: Fcn, chosen: frozenset[Fcn]) -> Verdict:
    if s.call("ValidVictims", p, n, chosen) is not True:
        return "ValidVictims", "FALSE", invalid_victims(s, p, n, chosen)
    if s.call("MinimalVictims", p, n, chosen) is not True:
        spared = [
            object_key(q)
            for q in chosen
            if s.call("FeasibleIn", p, n, s.call("Without", s.call("Snapshot"), n, chosen - {q}))
            is True
        ]
        left = ", ".join(sorted(spared))
        return "MinimalVictims", "FALSE", f"the preemptor still fits with {left} left in place"
    return None


def victim(monitor: Any, d: Decision) -> Judgement:
    def judge(s: SpecState, d: Decision) -> Verdict:
        p, n = s.world.pods[d.pod], s.world.nodes[d.node]
        q = s.world.pods.get(d.victims[0])
        if q is None:
            raise NotJudged("the victim is not in the state")
        if q in s.call("PotentialVictims", p, n):
            return None
        where = q["spec"]["nodeName"] or "no node"
        reason = (
            f"{d.victims[0]} (priority {q['spec']['priority']}, on {where}) is not a pod of "
            f"lower priority than the preemptor ({p['spec']['priority']}) on {d.node}"
        )
        return "PotentialVictims", "FALSE", reason

    return judge


RULES: dict[str, Callable[[Any, Decision], Judgement]] = {
    "binding": binding,
    "failure": failure,
    "preemption": preemption,
    "victim": victim,
}


def same_failure(again: Verdict, first: Verdict) -> bool:
    """The same rule broken, and for a filter the same filters failing: the minimiser must
    not trade the decision's failure for another (a node without allocatable fails them all)."""
    if again is None or first is None or again[0] != first[0]:
        return False
    return again[0] != "Feasible" or again[2] == first[2]


def invalid_victims(s: SpecState, p: Fcn, n: Fcn, chosen: Iterable[Fcn]) -> str:
    high = sorted(object_key(q) for q in chosen if q["spec"]["priority"] >= p["spec"]["priority"])
    if high:
        return f"victims of priority ≥ the preemptor's ({p['spec']['priority']}): {', '.join(high)}"
    node = n["metadata"]["name"]
    return f"the preemptor does not fit on {node} even without the victims: {why_not(s, p, n)}"


def why_not(s: SpecState, p: Fcn, n: Fcn) -> str:
    """The first rejecting rule's status and the failing filter conjuncts."""
    failing = [r for r in FILTER_RULES if s.call(r, p, n) is not True]
    status = s.call("NodeStatus", p, n)
    if not failing:
        return f"status {show(status)} (nominated pods reserve the room)"
    return f"{', '.join(failing)} FALSE (status {show(status)})"


def show(value: object) -> str:
    if value is True or value is False:
        return str(value).upper()
    return str(getattr(value, "message", value))
