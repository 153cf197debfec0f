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
  preemptor to fit, and none could have stayed (the rules: ``monitor_rules``).

The scheduler decides on its cache, not on the API server: its informers lag the API server, its
cache holds the pods it assumed but has not bound yet and its nominator the nominations not yet
written, and its writes wait at the client's rate limiter, so a decision lands well after the
cycle that made it. A decision recorded at position ``i`` is judged against the state before
change ``i``, and when that state does not explain it, against the states the scheduler could
have decided on (``monitor_view``): its cache cut earlier — anywhere after the scheduling loop's
last status write before the decision landed, up to ``window`` changes it caches before that —
with its own writes held, or with up to ``window`` later bindings assumed; the decision's own
pods pinned as they were (a victim the scheduler had assumed on the node, on it). A
**violation** is a decision that none of
these states explains. It is reported with a minimal cluster (``checker.minimise``) that shows
the same verdict to ``schedspec explain``.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from schedspec.checker.differential import SpecState
from schedspec.checker.monitor_rules import (
    RULES,
    Decision,
    Judgement,
    NotJudged,
    Verdict,
    same_failure,
    sampled_scoring,
)
from schedspec.checker.monitor_state import ClusterBuilder, History, Key, Obj, manifests
from schedspec.checker.monitor_view import (
    View,
    assumed_on,
    binding,
    cycle_start,
    loop_write,
    nomination,
    objects_seen,
    preempted,
    preempted_on,
    views,
)
from schedspec.cluster import object_key
from schedspec.errors import ManifestError
from schedspec.spec.load import LoadedSpec

__all__ = [
    "AHEAD",
    "PREEMPTION_SETTLE",
    "WINDOW",
    "Decision",
    "Monitor",
    "Summary",
    "Violation",
    "sampled_scoring",
]

WINDOW = 32
"""The default ``window``: how many changes the scheduler's cache may lag behind the API server
before the cycle's interval (or how many later bindings it may have assumed). Measured on
``bench/monitor.py`` streams (2 cores shared by etcd, kube-apiserver, kube-scheduler, the
workload and the monitor): lags of 21 cached changes past the loop's previous status write came
during the workload's deletion bursts; 16 left one such binding a violation."""

AHEAD = 4
"""A decision waits ``AHEAD × window`` changes: bindings are a part of the changes, and one
judged ``window`` changes after it had fewer later bindings to assume than ``window`` allows
(seed 6 of ``bench/monitor.py``: the ninth later binding landed 36 changes after)."""
PREEMPTION_SETTLE = 256
"""Changes after a preemption's last Preempted Event before it is judged (its other victims'
Events may still come: a group judged early is a part of a preemption, and looks insufficient)."""
_PREEMPTED_NOTE = re.compile(r"Preempted by pod (\S+) on node (\S+)")
_ONE_BY_ONE = "preemption: minimality (victims handled one by one)"


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


class Monitor:
    """The stream's state, its pending decisions, and what was judged (``summary``)."""

    def __init__(
        self,
        spec: LoadedSpec,
        config: Mapping[str, Any] | None = None,
        *,
        window: int = WINDOW,
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
        self.evicted: dict[str, set[tuple[str, str]]] = {}  # victim → (preemptor, node) named
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
        self.evicted.setdefault(victim, set()).add((preemptor, node))
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
        """The decisions a preemptor's victims on one node stand for. With async preemption
        (v1.34's default), ``prepareCandidateAsync`` patches and deletes every victim but the
        last in parallel, and the last only once they are gone. So victims that all got their
        DisruptionTarget condition before any of them was deleted, and at most one more whose
        condition came after all their deletions, are one preemption: judged whole. With no
        such last victim, its Event may be missing (``PreemptPod`` records one only after its
        own deletion succeeded: another preemptor or a rollout deleted it first) and the
        judgement may add it (``evicted_by_others``, ``eventless_victims``,
        ``deleted_unmarked``).
        Any other shape is several rounds (a preemptor chooses again once its parallel victims
        are gone, kubernetes/kubernetes#134249) or one the stream cannot split: each victim is
        judged alone — of lower priority than the preemptor and on the node when it was chosen
        — and minimality is not. A last victim may also be such a second round's (its cycle
        chose again after the first victims went), and so may a victim whose condition came
        before the first deletion when the preemptor failed again meanwhile (a second cycle ran
        before the informer delivered that deletion): when no state explains the group read as
        one preemption, it is read that way (``Decision.split``)."""
        spans = sorted(self._victim_span(victim) for victim in group.victims)
        parallel, last = spans, None
        if len(spans) > 1 and spans[-1][0] > max(e for _, e, _ in spans[:-1]):
            parallel, last = spans[:-1], spans[-1]
        if max(s for s, _, _ in parallel) < min(e for _, e, _ in parallel):
            first = spans[0][0]
            log = self.history.log
            group.position = nomination(log, first, group.pod, group.node, self.profiles)
            group.last_unknown = last is None
            if last is not None or self._failed_again(group, spans):
                group.split = self._one_by_one(group, spans)
            return [group]
        self.summary.not_judged[_ONE_BY_ONE] += 1
        return self._one_by_one(group, spans)

    def _failed_again(self, group: Decision, spans: list[tuple[int, int, str]]) -> bool:
        """The preemptor's status was patched by the scheduling loop again between its first
        victim's condition and its victims' last deletion: another cycle of it ran."""
        log, key = self.history.log, ("Pod", group.pod)
        end = max(e for _, e, _ in spans)
        return any(
            log[i].key == key and loop_write(log[i], self.profiles)
            for i in range(spans[0][0] + 1, min(end, len(log)))
        )

    def _one_by_one(self, group: Decision, spans: list[tuple[int, int, str]]) -> list[Decision]:
        return [
            Decision("victim", group.pod, group.node, start, {}, (victim,))
            for start, _, victim in spans
        ]

    def _victim_span(self, victim: str) -> tuple[int, int, str]:
        """Where the preemption of ``victim`` began and where it was deleted (the end of the
        log when not yet)."""
        start = self._victim_change(victim)
        log = self.history.log
        key = ("Pod", victim)
        end = next(
            (i for i in range(start, len(log)) if log[i].key == key and log[i].new is None),
            len(log),
        )
        return start, end, victim

    def evicted_by_others(self, d: Decision) -> set[str]:
        """The pods another preemptor's Preempted Events name on ``d``'s node (it deleted them
        first, so ``d``'s preemptor wrote no Event for them)."""
        return {
            victim
            for victim, by in self.evicted.items()
            if any(n == d.node and p != d.pod for p, n in by)
        }

    def eventless_victims(self, d: Decision) -> list[str]:
        """The pods kube-scheduler marked DisruptionTarget on ``d``'s node from ``d``'s position
        on that no Preempted Event names: ``PreemptPod`` records the Event only after its own
        deletion succeeded, so a victim someone else deleted first (a rollout, another
        preemptor) has none, and which preemption chose it is not known."""
        found = set()
        for change in self.history.log[d.position :]:
            name = change.key[1]
            if change.key[0] != "Pod" or name in self.evicted or change.new is None:
                continue
            if preempted_on(change.new, d.node):
                found.add(name)
        return sorted(found)

    def deleted_unmarked(self, d: Decision) -> list[str]:
        """The pods deleted from ``d``'s node with no DisruptionTarget condition, from ``d``'s
        position until ``window`` changes after its last parallel victim went: the last victim
        goes only once the others are gone, and when a rollout deleted it before that,
        ``PreemptPod``'s patch finds it gone, so it has neither the condition nor an Event."""
        log = self.history.log
        until = max(self._victim_span(v)[1] for v in d.victims) + self.window
        found = set()
        for change in log[d.position : until + 1]:
            old = change.old
            if change.key[0] != "Pod" or change.new is not None or old is None:
                continue
            if old["spec"].get("nodeName") == d.node and not _disrupted(old):
                found.add(change.key[1])
        return sorted(found)

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
        """Judges the decisions whose window has come in: ``AHEAD × window`` more changes, so
        that the ``window`` later bindings a state may assume have landed (a preemption:
        ``PREEMPTION_SETTLE`` changes after its last Preempted Event, which the event
        broadcaster writes late and one victim at a time); with ``quiet`` (the stream is idle,
        the monitor caught up), those that waited ``settle_seconds``; all when ``final``."""
        ready: list[Decision] = []
        waiting: list[Decision] = []
        for d in self.pending:
            settle = AHEAD * self.window
            if d.kind == "preemption":
                settle = max(PREEMPTION_SETTLE, settle)
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
            for violation in self._judge(d):
                self.summary.violations.append(violation)
                found.append(violation)
        return found

    def _judge(self, d: Decision) -> list[Violation]:
        judgements = RULES[d.kind](self, d)
        failed: list[tuple[tuple[str, str, str], list[str]]] = []
        errors: list[str] = []
        if self._explained(d, judgements, failed, errors):
            return []
        targets = failed[0][1] if failed else []
        for pins in self.unlanded(d, targets) if targets else ():
            again = replace(d, pins={**d.pins, **pins}, note=_UNLANDED)
            if self._explained(again, judgements, [], []):
                return []
        first = failed[0][0] if failed else None
        first_error = errors[0] if errors else ""
        if first is None:
            self.summary.not_judged[f"{d.kind}: {first_error}"] += 1
            return []
        if d.split:  # read as rounds instead, each victim alone
            self.summary.not_judged[_ONE_BY_ONE] += 1
            return [v for one in d.split for v in self._judge(one)]
        self.summary.judged[d.kind] += 1
        rule, said, reason = first
        witness = tuple(self._witness(d, judgements, first))
        return [Violation(d.kind, rule, d.pod, d.node, said, reason, witness, d.victims)]

    def _explained(
        self,
        d: Decision,
        judgements: Judgement,
        failed: list[tuple[tuple[str, str, str], list[str]]],
        errors: list[str],
    ) -> bool:
        """Whether a state around ``d`` explains it (counted in the summary); the verdicts of
        the states that do not (the first with ``_preferred``'s nodes: a state is read while it
        is the latest built, the builder's records being shared), and why a state could not be
        judged, are appended."""
        # The cycle ran after the scheduling loop's last status write before the decision
        # landed: the loop waits for that write, and a binding is queued at the client's rate
        # limiter (shared, first come first served) behind the writes requested before it
        # (monitor_view's docstring).
        since = cycle_start(self.history.log, d.position, d.pod, self.profiles)
        bound = d.pod if d.kind == "binding" else None
        for view in views(self.history.log, d.position, self.window, since, bound):
            try:
                state = self._state(d, view)
                verdict = judgements(state, d)
            except NotJudged as err:
                errors.append(str(err))
                continue
            if verdict is None:
                plain = view.shift == 0 and view.nominations and not d.note
                note = f", {d.note}" if d.note else ""
                label = f"{d.kind}" if plain else f"{d.kind} ({view.label()}{note})"
                self.summary.judged[d.kind] += 1
                if not plain:
                    self.summary.explained_by_window[label] += 1
                return True
            failed.append((verdict, [] if failed else _preferred(d, verdict, state)))
        return False

    def unlanded(self, d: Decision, targets: list[str]) -> list[dict[Key, Obj | None]]:
        """Pins of pods the scheduler may have held assumed when it decided ``d`` though the
        API server never had them bound then: pending pods a preemption marked
        (``SelectVictimsOnNode`` takes victims from a node's NodeInfo only, so the cache held
        them assumed there while their bindings waited at the rate limiter), from ``2 ×
        window`` changes before ``d`` on. Each on the node its binding or its Preempted Event
        names, when that is one of ``targets``; on each of them in turn when neither has come
        yet."""
        log = self.history.log
        marked: dict[Key, Obj] = {}
        for change in log[max(0, d.position - 2 * self.window) :]:
            pod = change.new
            if change.key[0] != "Pod" or pod is None or change.key[1] == d.pod:
                continue
            if not pod["spec"].get("nodeName") and preempted(pod):
                marked.setdefault(change.key, pod)
        out: list[dict[Key, Obj | None]] = []
        for key, pod in marked.items():
            if key in d.pins:
                continue
            landed = {str(c.new["spec"]["nodeName"]) for c in log if c.key == key and binding(c)}
            named = landed or {n for _, n in self.evicted.get(key[1], ())}
            nodes = sorted(named.intersection(targets)) if named else targets
            out += [{key: assumed_on(pod, node)} for node in nodes]
        return out

    def sampled(self) -> bool:
        """Whether kube-scheduler scores only some of the nodes the stream holds."""
        nodes = sum(1 for k in self.history.objects if k[0] == "Node")
        return sampled_scoring(nodes, self.percentage)

    def _pins(self, d: Decision) -> dict[Key, Obj | None]:
        pins = dict(d.pins)
        for victim in d.victims:
            key = ("Pod", victim)
            before = self.history.version_before(key, d.position)
            pins[key] = assumed_on(before, d.node)
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
            raise NotJudged(f"the loader refuses an object: {err}") from None
        state = SpecState(self.spec, cluster)
        if d.pod not in state.world.pods:
            raise NotJudged("the pod is not in the state")
        if d.node and d.node not in state.world.nodes:
            raise NotJudged("the node is not in the state")
        return state

    def _witness(self, d: Decision, judgement: Judgement, verdict: Verdict) -> list[Obj]:
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
            except NotJudged:
                return False
            return again is not None and same_failure(again, verdict)

        try:
            return minimise(objects, still_fails, keep=keep, max_steps=self.minimise_steps)
        except (ValueError, ManifestError):
            return objects


_UNLANDED = "with a pod assumed whose binding had not landed"


def _preferred(d: Decision, verdict: tuple[str, str, str], s: SpecState) -> list[str]:
    """Where a pod the scheduler held assumed could have changed a failing verdict: on the
    nodes the spec scores above ``d``'s (a ``Best`` violation), or on those it finds feasible
    (a ``FeasibleNodes`` one); nowhere for the other rules (another pod makes no node fit)."""
    p = s.world.pods[d.pod]
    if verdict[0] == "Best":
        best = s.call("Best", p)
        return sorted(best) if isinstance(best, frozenset) else []
    if verdict[0] == "FeasibleNodes":
        return sorted(m for m, n in s.world.nodes.items() if s.call("Feasible", p, n) is True)
    return []


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
