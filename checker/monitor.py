"""Judge a live kube-scheduler's decisions against ``scheduler.tla`` as they happen.

``Monitor.feed(kind, obj, deleted=False)`` takes the watch stream (manifests as
``schedspec.live.manifest`` writes them, in the order the watches delivered them) and the
scheduler's Events; it finds the decisions in the stream and judges each against the state the
API server held when it was made (``monitor_state.History``):

- **binding**: a pod update setting ``spec.nodeName`` (the binding subresource) — the pod was
  ``Feasible`` on that node, and the node is in ``Best`` unless scoring was skipped or sampled:
  kube-scheduler takes a nominated node that passes the filters without scoring, and above 100
  nodes (``percentageOfNodesToScore``, ``numFeasibleNodesToFind`` in
  pkg/scheduler/schedule_one.go) it scores only the first nodes found feasible;
- **failure**: a pod update writing ``PodScheduled=False`` with reason ``Unschedulable`` (what
  ``handleSchedulingFailure`` writes after a ``FailedScheduling`` event; a failure with the same
  message again is not written, and is only counted from its Event) — no node was feasible;
- **preemption**: the ``Preempted`` Events (events.k8s.io/v1, written by
  pkg/scheduler/framework/preemption/preemption.go for each victim, naming the preemptor and the
  node) — the victims are a set ``MinimalVictims`` accepts: of lower priority, enough for the
  preemptor to fit, and none could have stayed.

The scheduler decides on its cache, not on the API server: its informers lag the API server, its
cache holds the pods it assumed but has not bound yet and its nominator the nominations not yet
written, and its writes wait at the client's rate limiter, so a decision lands well after the
cycle that made it. A decision recorded at position ``i`` is judged against the state before
change ``i``, and when that state does not explain it, against the states the scheduler could
have decided on (``monitor_view``): its cache cut earlier — anywhere after the scheduling loop's
previous status write for a failure, up to ``window`` changes it caches before that (or before
the decision, for a binding) — with its own writes held, or with up to ``window`` later bindings
assumed; the decision's own pods pinned as they were. A **violation** is a decision that none of
these states explains. It is reported with a minimal cluster (``checker.minimise``) that shows
the same verdict to ``schedspec explain``.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from schedspec.checker.differential import SpecState
from schedspec.checker.monitor_state import ClusterBuilder, History, Key, Obj, manifests
from schedspec.checker.monitor_view import View, cycle_start, nomination, objects_seen, views
from schedspec.checker.seam import SEAM
from schedspec.cluster import object_key
from schedspec.errors import ManifestError
from schedspec.spec.load import LoadedSpec
from schedspec.spec.values import Fcn

__all__ = ["PREEMPTION_SETTLE", "Decision", "Monitor", "Summary", "Violation", "sampled_scoring"]

PREEMPTION_SETTLE = 256
"""Changes after a preemption's last Preempted Event before it is judged (its other victims'
Events may still come: a group judged early is a part of a preemption, and looks insufficient)."""
_MIN_FEASIBLE_NODES = 100  # minFeasibleNodesToFind, schedule_one.go
_MIN_FEASIBLE_PERCENT = 5  # minFeasibleNodesPercentageToFind
_PREEMPTED_NOTE = re.compile(r"Preempted by pod (\S+) on node (\S+)")
FILTER_RULES = tuple(pair.spec for pair in SEAM if pair.point == "filter")
"""The spec's per-plugin Filter predicates, in the default profile's Filter order."""


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

    kind: str  # "binding" | "failure" | "preemption"
    pod: str
    node: str
    position: int
    pins: dict[Key, Obj | None]
    victims: tuple[str, ...] = ()
    seen_at: int = 0  # the log length when last extended (preemptions grow by event)
    created: float = 0.0  # the clock then


@dataclass(frozen=True)
class Violation:
    """A decision no state of the window explains: what the spec says and a witness."""

    kind: str
    rule: str
    pod: str
    node: str
    verdict: str
    reason: str
    objects: tuple[Obj, ...]
    victims: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rule": self.rule,
            "pod": self.pod,
            "node": self.node or None,
            "verdict": self.verdict,
            "reason": self.reason,
            "victims": list(self.victims),
            "objects": list(self.objects),
        }


@dataclass
class Summary:
    judged: Counter[str] = field(default_factory=Counter)
    explained_by_window: Counter[str] = field(default_factory=Counter)
    not_judged: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    violations: list[Violation] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "judged": dict(self.judged),
            "explained_by_window": dict(self.explained_by_window),
            "not_judged": dict(self.not_judged),
            "events": dict(self.events),
            "violations": [v.as_json() for v in self.violations],
        }


Verdict = tuple[str, str, str] | None
_Judgement = Callable[[SpecState, Decision], Verdict]
"""(rule, verdict, reason) when the decision breaks the rule in this state; None when the state
explains it. Raises ``_NotJudged`` when the state cannot judge it."""


class _NotJudged(Exception):
    pass


class Monitor:
    """The stream's state, its pending decisions, and what was judged (``summary``)."""

    def __init__(
        self,
        spec: LoadedSpec,
        config: Mapping[str, Any] | None = None,
        *,
        window: int = 16,
        settle_seconds: float = 3.0,
        minimise_steps: int = 300,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if window < 0:
            raise ValueError(f"window={window!r} must be at least 0")
        self.spec, self.config, self.window = spec, dict(config) if config else None, window
        self.minimise_steps, self.settle_seconds, self.clock = minimise_steps, settle_seconds, clock
        self.history = History()
        self.builder = ClusterBuilder(self.config)
        self.pending: list[Decision] = []
        self.preemptions: dict[tuple[str, str], Decision] = {}
        self.summary = Summary()
        self.profiles = _profile_names(self.config)
        self.percentage = _percentage(self.config)

    # ---- the stream

    def feed(self, kind: str, obj: Obj, deleted: bool = False) -> list[Violation]:
        """One watch event (``obj`` the object; for a deletion its last version); the
        violations of the decisions it made ready to judge."""
        if kind == "Event":
            self._event(obj)
        else:
            key = object_key(obj)
            position = self.history.apply(kind, key, None if deleted else obj)
            if kind == "Pod":
                self._pod_change(position)
        return self._judge_ready(final=False)

    def tick(self) -> list[Violation]:
        """The stream is idle: the violations of decisions that waited ``settle_seconds``."""
        return self._judge_ready(final=False, quiet=True)

    def flush(self) -> list[Violation]:
        """Judges every decision still waiting (the stream ended)."""
        return self._judge_ready(final=True)

    def _pod_change(self, position: int) -> None:
        change = self.history.log[position]
        old, new = change.old, change.new
        if old is None or new is None:
            return
        key = change.key[1]
        scheduler = str(new["spec"].get("schedulerName") or "default-scheduler")
        node = new["spec"].get("nodeName") or ""
        if not old["spec"].get("nodeName") and node:
            if scheduler not in self.profiles:
                self.summary.not_judged[f"binding by {scheduler} (no such profile)"] += 1
                return
            self._decide("binding", key, node, position, {change.key: old})
        elif (
            not node
            and scheduler in self.profiles
            and _unschedulable(new)
            and _unschedulable(new) != _unschedulable(old)
        ):
            self._decide("failure", key, "", position, {change.key: old})

    def _decide(
        self, kind: str, pod: str, node: str, position: int, pins: dict[Key, Obj | None]
    ) -> None:
        now = self.clock()
        self.pending.append(
            Decision(kind, pod, node, position, pins, seen_at=len(self.history), created=now)
        )

    def _event(self, event: Obj) -> None:
        reason = str(event.get("reason") or "")
        self.summary.events[reason] += 1
        if reason != "Preempted":
            return
        match = _PREEMPTED_NOTE.search(str(event.get("note") or event.get("message") or ""))
        regarding = event.get("regarding") or event.get("involvedObject") or {}
        related = event.get("related") or {}
        if match is None or not related.get("name"):
            self.summary.not_judged["Preempted event without its preemptor"] += 1
            return
        victim = f"{regarding.get('namespace', '')}/{regarding.get('name', '')}"
        preemptor = f"{related.get('namespace', '')}/{related['name']}"
        node = match.group(2)
        start = self._victim_change(victim)
        group = self.preemptions.get((preemptor, node))
        if group is None or group.kind != "preemption":
            group = Decision("preemption", preemptor, node, start, {}, created=self.clock())
            self.preemptions[(preemptor, node)] = group
            self.pending.append(group)
        group.position = min(group.position, start)
        group.victims = tuple(sorted({*group.victims, victim}))
        group.seen_at, group.created = len(self.history), self.clock()

    def _rounds(self, group: Decision) -> list[Decision]:
        """The decisions a preemptor's victims on one node stand for. When every victim got
        its DisruptionTarget condition before any of them was deleted, they are one
        preemption (a later one starts only once the victims of the last are gone): judged
        whole. Otherwise the stream cannot tell one preemption whose victims were handled one
        after another from several rounds, so each victim is judged alone — of lower priority
        than the preemptor and on the node when it was chosen — and minimality is not."""
        spans = []
        for victim in group.victims:
            start = self._victim_change(victim)
            end = next(
                (
                    i
                    for i in range(start, len(self.history))
                    if self.history.log[i].key == ("Pod", victim)
                    and self.history.log[i].new is None
                ),
                len(self.history),
            )
            spans.append((start, end, victim))
        if max(s for s, _, _ in spans) < min(e for _, e, _ in spans):
            first = min(s for s, _, _ in spans)
            log = self.history.log
            group.position = nomination(log, first, group.pod, group.node, self.profiles)
            return [group]
        self.summary.not_judged["preemption: minimality (victims handled one by one)"] += 1
        return [
            Decision("victim", group.pod, group.node, start, {}, (victim,))
            for start, _, victim in spans
        ]

    def _victim_change(self, victim: str) -> int:
        """Where the preemption of ``victim`` began: the change giving it its DisruptionTarget
        condition, or deleting it without one (the latest such; the end of the log when the
        watch has not delivered it yet)."""
        log = self.history.log
        for i in range(len(log) - 1, -1, -1):
            change = log[i]
            if change.key != ("Pod", victim) or change.old is None or _disrupted(change.old):
                continue
            if change.new is None or _disrupted(change.new):
                return i
        return len(log)

    # ---- judging

    def _judge_ready(self, final: bool, quiet: bool = False) -> list[Violation]:
        """Judges the decisions whose window has come in: ``window`` more changes (a
        preemption: ``PREEMPTION_SETTLE`` changes after its last Preempted Event, which the
        event broadcaster writes late and one victim at a time); with ``quiet`` (the stream is
        idle, the monitor caught up), those that waited ``settle_seconds``; all when ``final``."""
        ready: list[Decision] = []
        waiting: list[Decision] = []
        for d in self.pending:
            settle = max(PREEMPTION_SETTLE, self.window) if d.kind == "preemption" else self.window
            ahead = len(self.history) - max(d.position, d.seen_at)
            waited = quiet and self.clock() - d.created >= self.settle_seconds
            (ready if final or ahead >= settle or waited else waiting).append(d)
        self.pending = waiting
        found = []
        rounds = []
        for d in ready:
            if d.kind == "preemption":
                self.preemptions[(d.pod, d.node)] = Decision("done", d.pod, d.node, 0, {})
                rounds += self._rounds(d)
            else:
                rounds.append(d)
        for d in sorted(rounds, key=lambda d: d.position):
            violation = self._judge(d)
            if violation is not None:
                self.summary.violations.append(violation)
                found.append(violation)
        return found

    def _judge(self, d: Decision) -> Violation | None:
        judgements = _JUDGEMENTS[d.kind](self, d)
        first: tuple[str, str, str] | None = None
        first_error = ""
        since = None  # a binding is written from a goroutine: no cycle interval known
        if d.kind in ("failure", "preemption"):
            since = cycle_start(self.history.log, d.position, d.pod, self.profiles)
        bound = d.pod if d.kind == "binding" else None
        for view in views(self.history.log, d.position, self.window, since, bound):
            try:
                state = self._state(d, view)
                verdict = judgements(state, d)
            except _NotJudged as err:
                first_error = first_error or str(err)
                continue
            if verdict is None:
                plain = view.shift == 0 and view.nominations
                label = f"{d.kind}" if plain else f"{d.kind} ({view.label()})"
                self.summary.judged[d.kind] += 1
                if not plain:
                    self.summary.explained_by_window[label] += 1
                return None
            first = first or verdict
        if first is None:
            self.summary.not_judged[f"{d.kind}: {first_error}"] += 1
            return None
        self.summary.judged[d.kind] += 1
        rule, said, reason = first
        return Violation(
            d.kind,
            rule,
            d.pod,
            d.node,
            said,
            reason,
            tuple(self._witness(d, judgements, first)),
            d.victims,
        )

    def _pins(self, d: Decision) -> dict[Key, Obj | None]:
        pins = dict(d.pins)
        for victim in d.victims:
            pins[("Pod", victim)] = self.history.version_before(("Pod", victim), d.position)
        if d.kind in ("preemption", "victim"):
            pins[("Pod", d.pod)] = self.history.version_before(("Pod", d.pod), d.position)
        return pins

    def _objects(self, d: Decision, view: View | None = None) -> list[Obj]:
        view = view or View(d.position, d.position + 1, 0)
        return manifests(objects_seen(self.history, view, d.position, self._pins(d)))

    def _state(self, d: Decision, view: View) -> SpecState:
        try:
            cluster = self.builder.build(self._objects(d, view))
        except ManifestError as err:
            raise _NotJudged(f"the loader refuses an object: {err}") from None
        state = SpecState(self.spec, cluster)
        if d.pod not in state.world.pods:
            raise _NotJudged("the pod is not in the state")
        if d.node and d.node not in state.world.nodes:
            raise _NotJudged("the node is not in the state")
        return state

    def _witness(self, d: Decision, judgement: _Judgement, verdict: Verdict) -> list[Obj]:
        """The state before the decision, minimised while the spec still says the same."""
        objects = [_clean(o) for o in self._objects(d)]
        if self.config is not None:
            objects.append(dict(self.config))
        if self.minimise_steps <= 0:
            return objects
        from schedspec.checker.minimise import minimise
        from schedspec.cluster import from_objects

        keep_names = {d.pod, d.node, *d.victims}

        def keep(obj: Obj) -> bool:
            return obj.get("kind") == "KubeSchedulerConfiguration" or (
                obj.get("kind") in ("Pod", "Node") and object_key(obj) in keep_names
            )

        def still_fails(candidate: list[Obj]) -> bool:
            state = SpecState(self.spec, from_objects(candidate))
            if d.pod not in state.world.pods or (d.node and d.node not in state.world.nodes):
                return False
            try:
                again = judgement(state, d)
            except _NotJudged:
                return False
            return again is not None and _same_failure(again, verdict)

        try:
            return minimise(objects, still_fails, keep=keep, max_steps=self.minimise_steps)
        except (ValueError, ManifestError):
            return objects

    # ---- the rules

    def _binding(self, d: Decision) -> _Judgement:
        pinned = d.pins[("Pod", d.pod)] or {}
        nominated = (pinned.get("status") or {}).get("nominatedNodeName") or ""

        def judge(s: SpecState, d: Decision) -> tuple[str, str, str] | None:
            p, n = s.world.pods[d.pod], s.world.nodes[d.node]
            feasible = s.call("Feasible", p, n)
            if feasible is not True:
                return "Feasible", _show(feasible), _why_not(s, p, n)
            if nominated == d.node:
                return None  # the nominated node passed the filters: taken without scoring
            if sampled_scoring(len(s.world.nodes), self.percentage):
                return None
            best = s.call("Best", p)
            if isinstance(best, frozenset) and d.node not in best:
                shown = ", ".join(sorted(best)[:5]) or "none"
                ours, top = s.call("Viability", p, n), s.call("BestViability", p)
                scores = f"{d.node} scores {_show(ours)}, the best ({shown}) {_show(top)}"
                return "Best", "FALSE", scores
            return None

        if nominated == d.node:
            self.summary.not_judged["binding: Best (the nominated node is taken unscored)"] += 1
        elif self._sampled():
            self.summary.not_judged["binding: Best (scoring samples the nodes)"] += 1
        return judge

    def _sampled(self) -> bool:
        nodes = sum(1 for k in self.history.objects if k[0] == "Node")
        return sampled_scoring(nodes, self.percentage)

    def _failure(self, d: Decision) -> _Judgement:
        def judge(s: SpecState, d: Decision) -> tuple[str, str, str] | None:
            p = s.world.pods[d.pod]
            feasible = sorted(
                m for m, n in s.world.nodes.items() if s.call("Feasible", p, n) is True
            )
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

    def _preemption(self, d: Decision) -> _Judgement:
        def judge(s: SpecState, d: Decision) -> tuple[str, str, str] | None:
            p, n = s.world.pods[d.pod], s.world.nodes[d.node]
            victims = [s.world.pods.get(v) for v in d.victims]
            if any(v is None for v in victims):
                raise _NotJudged("a victim is not in the state")
            chosen = frozenset(v for v in victims if v is not None)
            if s.call("ValidVictims", p, n, chosen) is not True:
                return "ValidVictims", "FALSE", _invalid_victims(s, p, n, chosen)
            if s.call("MinimalVictims", p, n, chosen) is not True:
                spared = [
                    object_key(q)
                    for q in chosen
                    if s.call(
                        "FeasibleIn", p, n, s.call("Without", s.call("Snapshot"), n, chosen - {q})
                    )
                    is True
                ]
                return (
                    "MinimalVictims",
                    "FALSE",
                    f"the preemptor still fits with {', '.join(sorted(spared))} left in place",
                )
            return None

        return judge


def _victim(monitor: Monitor, d: Decision) -> _Judgement:
    def judge(s: SpecState, d: Decision) -> Verdict:
        p, n = s.world.pods[d.pod], s.world.nodes[d.node]
        q = s.world.pods.get(d.victims[0])
        if q is None:
            raise _NotJudged("the victim is not in the state")
        if q in s.call("PotentialVictims", p, n):
            return None
        where = q["spec"]["nodeName"] or "no node"
        reason = (
            f"{d.victims[0]} (priority {q['spec']['priority']}, on {where}) is not a pod of "
            f"lower priority than the preemptor ({p['spec']['priority']}) on {d.node}"
        )
        return "PotentialVictims", "FALSE", reason

    return judge


_JUDGEMENTS: dict[str, Callable[[Monitor, Decision], _Judgement]] = {
    "victim": _victim,
    "binding": Monitor._binding,
    "failure": Monitor._failure,
    "preemption": Monitor._preemption,
}


def _same_failure(again: Verdict, first: Verdict) -> bool:
    """The same rule broken, and for a filter the same filters failing: the minimiser must
    not trade the decision's failure for another (a node without allocatable fails them all)."""
    if again is None or first is None or again[0] != first[0]:
        return False
    return again[0] != "Feasible" or again[2] == first[2]


def _invalid_victims(s: SpecState, p: Fcn, n: Fcn, chosen: frozenset[Fcn]) -> str:
    high = sorted(object_key(q) for q in chosen if q["spec"]["priority"] >= p["spec"]["priority"])
    if high:
        return f"victims of priority ≥ the preemptor's ({p['spec']['priority']}): {', '.join(high)}"
    node = n["metadata"]["name"]
    return f"the preemptor does not fit on {node} even without the victims: {_why_not(s, p, n)}"


def _why_not(s: SpecState, p: Fcn, n: Fcn) -> str:
    """The first rejecting rule's status and the failing filter conjuncts."""
    failing = [r for r in FILTER_RULES if s.call(r, p, n) is not True]
    status = s.call("NodeStatus", p, n)
    if not failing:
        return f"status {_show(status)} (nominated pods reserve the room)"
    return f"{', '.join(failing)} FALSE (status {_show(status)})"


def _show(value: object) -> str:
    if value is True or value is False:
        return str(value).upper()
    return str(getattr(value, "message", value))


def _condition(pod: Obj, kind: str) -> Mapping[str, Any] | None:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c.get("type") == kind), None)


def _unschedulable(pod: Obj) -> tuple[str, str] | None:
    """The PodScheduled=False/Unschedulable condition's (reason, message), or None."""
    c = _condition(pod, "PodScheduled")
    if c is None or c.get("status") != "False" or c.get("reason") != "Unschedulable":
        return None
    return str(c.get("reason")), str(c.get("message") or "")


def _disrupted(pod: Obj) -> bool:
    c = _condition(pod, "DisruptionTarget")
    return c is not None and c.get("status") == "True"


_SERVER_SET = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields")


def _clean(obj: Obj) -> Obj:
    """``obj`` without the metadata the API server sets (a witness can be created again)."""
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _SERVER_SET}
    return {**obj, "metadata": meta}


def _profile_names(config: Mapping[str, Any] | None) -> frozenset[str]:
    profiles = (config or {}).get("profiles") or [{}]
    return frozenset(str(p.get("schedulerName") or "default-scheduler") for p in profiles)


def _percentage(config: Mapping[str, Any] | None) -> int:
    """The configuration's percentageOfNodesToScore (0: adaptive); a profile's own value, when
    any profile sets one, is taken as the least of them (the most sampled)."""
    config = config or {}
    own = [
        int(p["percentageOfNodesToScore"])
        for p in config.get("profiles") or []
        if p.get("percentageOfNodesToScore") is not None
    ]
    values = [*own, int(config.get("percentageOfNodesToScore") or 0)]
    nonzero = [v for v in values if v]
    return min(nonzero) if nonzero else 0
