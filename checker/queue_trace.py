"""Trace validation of impl's scheduling queue against ``spec/kube/queue.tla``.

As TLA+ trace validation of distributed programs does: run the operational scheduler, observe
its queue after every event-loop callback (one watch event delivered, one scheduling cycle, one
binding cycle, one flush tick), map each observation to ``queue.tla``'s variables, and check that
the spec can go from the previous state to the new one by ``Next`` steps. Nothing of the spec is
imported by impl; this module reads impl's objects and asks the spec's executable backend
(:class:`~schedspec.spec.compile.actions.StateMachine`).

**Observed** (the projection compared): ``now`` (⌊virtual time⌋), per pod ``where``, ``nodeOf``,
``attempts``, ``unschedulableCount``, ``errorCount``, ``timestamp`` (⌊qpi.timestamp⌋),
``backoffExpiry`` (impl's own ``getBackoffTime``: ⌊timestamp⌋ + duration, 0 before the first
failure), ``rejecting`` (qpi.unschedulable_plugins), ``pending`` (qpi.pending_plugins).

**Left free** (impl cannot observe them, or keeps them elsewhere): ``verdict`` (a hint's answer is
computed inside impl's queue and not kept), ``inFlightEvents`` (impl keeps the events, not the
hints' verdicts: it asks the hints only when the attempt fails), ``waiting`` (the simulation never
blocks in Pop), ``prev`` and ``lastEvent`` (history for the invariants). The validator keeps the
*set* of spec states that agree with every observation so far; a free variable's value is
whatever the spec's own choice must have been for the later observations to follow (a pod that
fails and goes to backoffQ forces an in-flight event whose hint said Queue).

**One impl step, several spec steps.** A callback may be explained by up to a few spec steps,
taken in the order impl's records give them: ``Tick(d)`` first when the clock moved to a later
second, then per record ``Add``, ``Pop``, ``Fail`` (or ``Assume`` + ``BindFailed`` for a pod that
failed at Reserve/Permit), ``Assume(p, n)`` after the pod's Pop, ``BindSucceeded``, one
``ClusterEvent(e)`` (or ``AssignedPodDeleted(v)``) per cluster event that moved a pod or reached
an in-flight pod, ``FlushBackoffQCompleted``, ``FlushUnschedulablePodsLeftover``. If that
sequence does not reach the observation, any sequence of at most :data:`SEARCH_DEPTH` steps of
the same actions and the flushes is tried (in any order; no event impl did not name). A step
neither explains, and no declared difference (:data:`DECLARED`) covers, is *unexplained*; the
run stops there (the spec states after it are unknown).

**The universe** is the run's: ``Pods`` are its pods (keys), ``Nodes`` its nodes, ``Plugins`` the
three of :data:`~schedspec.spec.kube.queue_view.PLUGINS`, ``Delays`` the clock advances the run
made. A run outside it is skipped and counted (see :data:`SKIP_REASONS`).

Declared differences (abstractions of the spec, not disagreements): pods bound before the run
enter the spec by the synthesized steps ``Add, Pop, Assume, BindSucceeded`` at t = 0 (the spec has
no action for a pod bound by someone else, but its AssignedPodDeleted needs a bound pod); an impl
step where only unobserved things change (an event no in-flight or parked pod can see, a status
patch) is a stuttering step.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from schedspec.checker.queue_hints import Deliveries, Delivery, pinned
from schedspec.checker.queue_node_updates import update_named_node, update_node
from schedspec.cluster import Cluster, from_objects
from schedspec.impl.api import pod_from_dict
from schedspec.impl.framework.types import QueuedPodInfo
from schedspec.impl.queue import ACTIVE_Q, BACKOFF_Q, IN_FLIGHT, UNSCHEDULABLE_PODS
from schedspec.impl.queue.backoff_queue import backoff_duration
from schedspec.impl.scheduler import Scheduler
from schedspec.impl.simulate import build
from schedspec.spec.compile.actions import State, StateMachine
from schedspec.spec.kube.queue_view import REGISTERED
from schedspec.spec.parse import parse
from schedspec.spec.values import Fcn, Value, render

__all__ = [
    "SEARCH_DEPTH",
    "Observation",
    "RunReport",
    "Unexplained",
    "record_run",
    "validate",
    "validate_cluster",
]

SEARCH_DEPTH = 3
OBSERVED = (
    "now", "where", "nodeOf", "attempts", "unschedulableCount", "errorCount", "timestamp",
    "backoffExpiry", "rejecting", "pending",
)  # fmt: skip
FREE = ("inFlightEvents", "verdict", "waiting", "prev", "lastEvent")
# prev, lastEvent and verdict are history: no action reads them unprimed, so states differing
# only there are merged
_HISTORY = frozenset({"prev", "lastEvent", "verdict"})

# impl's ClusterEvent labels → queue.tla's event names
SPEC_EVENTS = {
    "NodeAdd": "NodeAdd",
    "NodeUpdateNodeAllocatable": "NodeAllocatableUpdate",
    "NodeUpdateNodeLabel": "NodeLabelUpdate",
    "NodeUpdateNodeTaint": "NodeTaintUpdate",
    "AssignedPodDelete": "AssignedPodDelete",
    "AssignedPodAdd": "AssignedPodAdd",
    "NodeDelete": "NodeDelete",
}
_PLACES = {ACTIVE_Q: "activeQ", BACKOFF_Q: "backoffQ", UNSCHEDULABLE_PODS: "unschedulable"}
SKIP_REASONS = {
    "plugins": "a pod was rejected by a plugin outside queue.tla's Plugins",
    "backoff": "the profile's backoff is not queue.tla's 1 s / 10 s",
    "pods": "more pods than the universe allows",
}


# ---- recording ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """The queue after one event-loop callback: each known pod's observed variables (plugin
    sets as sets of names; a pod not listed is still "none"), ``now`` and what impl did."""

    t: float
    pods: Mapping[str, Mapping[str, Any]]
    # ("move", pod, from, to, event) / ("event", label) / ("deliver", label, Delivery)
    records: tuple[tuple[Any, ...], ...]


class Recorder:
    """Watches a :class:`Scheduler`: its queue's ``on_move`` and in-flight event list, its
    cache, bindings and API server; :meth:`observe` after every callback."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.qpis: dict[str, QueuedPodInfo] = {}
        # bound by someone else: key → node, uid, when the scheduler saw it (⌊s⌋)
        self.prebound: dict[str, tuple[str, str, int]] = {}
        self.records: list[tuple[Any, ...]] = []
        self.seq = 0
        scheduler.queue.on_move = self.move
        self.deliveries = Deliveries(scheduler, self.records)

    def move(self, qpi: QueuedPodInfo, src: str, dst: str, event: str) -> None:
        self.qpis[qpi.pod.key] = qpi
        self.records.append(("move", qpi.pod.key, src, dst, event))

    def _new_events(self) -> None:
        """The cluster events impl recorded for its in-flight pods since the last look."""
        events = self.scheduler.queue.active_q.in_flight_events
        self.records += [("event", e.event.label) for e in events if e.seq > self.seq]
        self.seq = max([self.seq, *(e.seq for e in events)])

    def observe(self) -> Observation:
        self._new_events()
        sched = self.scheduler
        for obj in sched.apiserver.list("Pod"):
            pod = pod_from_dict(obj)
            known = pod.key in self.qpis or pod.key in self.prebound
            if pod.node_name and not known and sched.cache.get_pod(pod.uid) is not None:
                self.prebound[pod.key] = (pod.node_name, pod.uid, math.floor(sched.loop.now()))
        keys = [*self.qpis, *self.prebound]
        obs = Observation(sched.loop.now(), {k: self._pod(k) for k in keys}, tuple(self.records))
        self.records.clear()
        return obs

    def _pod(self, key: str) -> dict[str, Any]:
        # a bound pod is deleted once the scheduler has seen it go (its cache drops it), not
        # when the API server does: the AssignedPodDelete event comes with the former
        sched = self.scheduler
        if key in self.prebound:
            node, uid, seen = self.prebound[key]
            place = "bound" if sched.cache.get_pod(uid) is not None else "deleted"
            return {**_NONE, "where": place, "nodeOf": node, "attempts": 1, "timestamp": seen}
        qpi = self.qpis[key]
        uid = qpi.pod.uid
        alive = sched.cache.get_pod(uid) is not None
        out = {
            **_NONE,
            "attempts": qpi.attempts,
            "unschedulableCount": qpi.unschedulable_count,
            "errorCount": qpi.consecutive_errors,
            "timestamp": math.floor(qpi.timestamp),
            "backoffExpiry": self._expiry(qpi),
            "rejecting": frozenset(qpi.unschedulable_plugins),
            "pending": frozenset(qpi.pending_plugins),
        }
        queued = sched.queue.where(uid)
        assumed = sched.cache.get_pod(uid)
        if queued in _PLACES:
            return {**out, "where": _PLACES[queued]}
        if key in sched.bindings:
            node = sched.bindings[key]
            return {**out, "where": "bound" if alive else "deleted", "nodeOf": node}
        if assumed is not None and sched.cache.is_assumed(assumed):
            return {**out, "where": "binding", "nodeOf": assumed.node_name}
        if queued == IN_FLIGHT:
            return {**out, "where": "inFlight"}
        gone = sched.apiserver.get("Pod", key) is None
        return {**out, "where": "gone" if gone else "?"}  # no place of the spec's

    def _expiry(self, qpi: QueuedPodInfo) -> int:
        """``getBackoffTime`` without touching impl's cache of it."""
        count = qpi.consecutive_errors or qpi.unschedulable_count
        if count == 0:
            return 0
        b = self.scheduler.queue.backoff_q
        return math.floor(qpi.timestamp) + int(backoff_duration(count, b.initial, b.maximum))


_NONE: Mapping[str, Any] = {
    "where": "none", "nodeOf": "", "attempts": 0, "unschedulableCount": 0, "errorCount": 0,
    "timestamp": 0, "backoffExpiry": 0, "rejecting": frozenset(), "pending": frozenset(),
}  # fmt: skip


def to_state(obs: Observation, pods: Sequence[str], plugins: Sequence[str]) -> dict[str, Value]:
    """The observed variables of ``queue.tla`` over the universe ``pods`` × ``plugins``."""
    state: dict[str, Value] = {"now": math.floor(obs.t)}
    for var in OBSERVED[1:]:
        values: dict[Value, Value] = {}
        for p in pods:
            v = obs.pods.get(p, _NONE)[var]
            values[p] = Fcn({pl: pl in v for pl in plugins}) if isinstance(v, frozenset) else v
        state[var] = Fcn(values)
    return state


LATE_NODE = "late-node"


def _late_node() -> dict[str, Any]:
    manifest = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": LATE_NODE, "labels": {"kubernetes.io/hostname": LATE_NODE}},
        "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}},
    }
    return from_objects([manifest]).nodes[0]


def record_run(
    cluster: Cluster,
    seed: int = 0,
    idle_timeout: float = 60.0,
    late_node_at: float | None = None,
    update_node_at: float | None = None,
    node_updates: Sequence[tuple[float, int, str]] = (),
    actions: Sequence[tuple[float, Callable[[Scheduler], None]]] = (),
) -> tuple[list[Observation], str | None]:
    """Run ``cluster`` as ``simulate`` does, observing after every callback: the observations
    and why the run is outside the universe (or None). ``late_node_at``: a roomy node named
    :data:`LATE_NODE` is created then (a NodeAdd for the pods still unschedulable);
    ``update_node_at``: the first node is healed then (:func:`_heal_node`); ``node_updates``:
    at time t, the i-th node gets an update of that kind (:mod:`.queue_node_updates`);
    ``actions``: at time t, call f(scheduler) (a scripted cluster change);
    ``idle_timeout`` past 300 s lets the 5-minute flush run."""
    sched = build(cluster, seed=seed)
    for at, act in actions:
        sched.loop.after(at, lambda f=act: f(sched))
    if update_node_at is not None and cluster.nodes:
        name = cluster.nodes[0]["metadata"]["name"]
        sched.loop.after(update_node_at, lambda: _heal_node(sched, name))
    for at, index, kind in node_updates:
        sched.loop.after(at, lambda i=index, k=kind: update_node(sched, i, k))
    if late_node_at is not None:
        node = _late_node()
        sched.loop.after(late_node_at, lambda: sched.apiserver.create("Node", node))
    rec = Recorder(sched)
    out = [rec.observe()]
    loop = sched.loop
    # Scheduler.run, one callback at a time
    while (when := loop.next_time()) is not None:
        if when > sched.last_progress + idle_timeout and not sched.handle.waiting_pods:
            break
        loop.run_one()
        out.append(rec.observe())
    return out, _outside_backoff(sched)


def _heal_node(sched: Scheduler, name: str) -> None:
    """Update node ``name``: no taints, schedulable, a new label, twice the cpu and pods — a
    NodeAllocatableUpdate, NodeLabelUpdate and NodeTaintUpdate for the hints to judge."""
    update_named_node(sched, name, "heal")


def _outside_backoff(sched: Scheduler) -> str | None:
    b = sched.queue.backoff_q
    return None if (b.initial, b.maximum) == (1, 10) and b.pop_from_backoff else "backoff"


# ---- the spec side --------------------------------------------------------------------------


def _functions(domain: Sequence[str], values: Sequence[Value]) -> list[Fcn]:
    return [Fcn(zip(domain, c, strict=True)) for c in itertools.product(values, repeat=len(domain))]


def constants_for(
    pods: Sequence[str], nodes: Sequence[str], plugins: Sequence[str], delays: Iterable[Value]
) -> dict[str, Value]:
    """``queue.tla``'s CONSTANTS for one run's universe (as ``queue_constants`` builds them)."""
    sets = _functions(plugins, (False, True))
    return {
        "Pods": frozenset(pods),
        "Plugins": frozenset(plugins),
        "Nodes": frozenset(nodes),
        "Events": frozenset(e for pl in plugins for e in REGISTERED[pl]),
        "Registered": Fcn({pl: frozenset(REGISTERED[pl]) for pl in plugins}),
        "PluginSets": frozenset(sets),
        "Verdicts": frozenset(_functions(list(pods), sets)),
        "Delays": frozenset(delays) or frozenset({1}),
        "PopFromBackoffQ": True,
    }


_MODULE = None


def _module() -> Any:
    global _MODULE
    if _MODULE is None:
        text = (resources.files("schedspec.spec.kube") / "queue.tla").read_text(encoding="utf-8")
        _MODULE = parse(text, "spec/kube/queue.tla")
    return _MODULE


Action = tuple[Any, ...]  # ("Pop", "default/p"): an action of queue.tla and its arguments


def show(action: Action) -> str:
    """``Pop("default/p")``."""
    name, *args = (a for a in action if not isinstance(a, Delivery))
    return f"{name}({', '.join(render(a) for a in args)})" if args else name


def _key(s: State) -> tuple[Any, ...]:
    return tuple((k, v) for k, v in s.items() if k not in _HISTORY)


def _proj(s: Mapping[str, Value]) -> tuple[Value, ...]:
    return tuple(s[v] for v in OBSERVED)


def _step(sm: StateMachine, state: State, action: Action) -> list[State]:
    """The successors of ``state`` by ``action``; one carrying the :class:`Delivery` of the event
    it delivers keeps only those whose hint verdicts are ``hints.tla``'s."""
    if not action or not isinstance(action[-1], Delivery):
        return [s.state for s in sm.successors(state, *action)]
    d, args = action[-1], action[:-1]
    event = args[1] if args[0] == "ClusterEvent" else "AssignedPodDelete"
    registered = sm.constants["Registered"]
    assert isinstance(registered, Fcn)
    return [
        s.state for s in sm.successors(state, *args) if pinned(state, s.state, event, d, registered)
    ]


# ---- validating -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Unexplained:
    """A step no ``Next`` behaviour of at most a few steps explains."""

    index: int
    t: float
    before: Mapping[str, Value]
    after: Mapping[str, Value]
    records: tuple[tuple[str, ...], ...]
    tried: tuple[str, ...]

    def render(self) -> str:
        lines = [f"step {self.index} at t={self.t:g}: impl did {list(self.records)}"]
        lines.append(f"  tried: {' ; '.join(self.tried) or '(stutter)'}")
        for var in OBSERVED:
            b, a = self.before[var], self.after[var]
            if isinstance(a, Fcn) and isinstance(b, Fcn):
                for k in sorted(a.keys(), key=render):
                    if a[k] != b[k]:
                        lines.append(f"  {var}[{render(k)}]: {render(b[k])} -> {render(a[k])}")
            elif a != b:
                lines.append(f"  {var}: {render(b)} -> {render(a)}")
        return "\n".join(lines)


@dataclass
class RunReport:
    steps: int = 0  # impl steps checked (each callback after the first observation)
    moving: int = 0  # of which the observed state changed
    spec_steps: int = 0  # spec steps the explanations took (synthesized ones excluded)
    synthesized: int = 0  # the pre-bound pods' Add, Pop, Assume, BindSucceeded
    searched: int = 0  # steps explained only by the fallback search
    unexplained: list[Unexplained] = field(default_factory=list)
    skipped: str | None = None
    declared: dict[str, int] = field(default_factory=dict)  # steps taken from impl, by reason
    actions: Counter[str] = field(default_factory=Counter)  # the spec steps taken, by action


def universe(
    observations: Sequence[Observation], max_pods: int
) -> tuple[list[str], list[str], str | None]:
    """The run's pods and plugins (those of :data:`PLUGINS` that rejected a pod, at least one),
    and why the run is outside the universe (or None)."""
    pods = sorted({k for o in observations for k in o.pods})
    used: set[str] = set()
    for o in observations:
        for p in o.pods.values():
            used |= p["rejecting"] | p["pending"]
    if used - set(REGISTERED):
        return pods, [], "plugins"
    if len(pods) > max_pods:
        return pods, [], "pods"
    plugins = [pl for pl in REGISTERED if pl in used] or list(REGISTERED)[:1]
    return pods, plugins, None


def validate(
    observations: Sequence[Observation],
    nodes: Iterable[str],
    *,
    max_pods: int = 4,
    declared: Callable[[int], str | None] | None = None,
) -> RunReport:
    """Check every observation against ``queue.tla``'s ``Next`` (see the module docstring).
    ``declared(k)``: a declared difference (a key of :data:`DECLARED`) observation ``k`` falls
    under when no spec step explains it, known from the run's history (the real scheduler's)."""
    pods, plugins, skip = universe(observations, max_pods)
    if skip is not None:
        return RunReport(skipped=skip)
    observed = {str(p.get("nodeOf", "")) for o in observations for p in o.pods.values()}
    all_nodes = sorted((set(nodes) | observed) - {""}) or ["n"]
    runs = [Observation(0.0, {}, ()), *observations]  # Init: every pod "none"
    states = [to_state(o, pods, plugins) for o in runs]
    delays = {b["now"] - a["now"] for a, b in itertools.pairwise(states)}  # type: ignore[operator]
    sm = StateMachine(_module(), constants_for(pods, all_nodes, plugins, delays - {0}))
    report = RunReport()
    frontier = sm.initial_states()
    for i in range(1, len(runs)):
        before, after = states[i - 1], states[i]
        goal = _proj(after)
        plan, synthesized = _plan(before, after, runs[i].records, all_nodes, sm.constants["Events"])
        if i == 1:
            report.synthesized += synthesized
        else:
            report.steps += 1
            report.moving += goal != _proj(before)
        reached, taken = _follow(sm, frontier, plan, goal)
        used = len(taken)
        if not reached:
            reached, used = _search(sm, frontier, plan, goal)
            report.searched += bool(reached)
            taken = ["(reordered)"] * used
        why = None if reached else _declared(before, after, runs[i].records)
        if not reached and why is None and declared is not None:
            why = declared(i - 1)
        if not reached and why is not None:
            report.declared[why] = report.declared.get(why, 0) + 1
            reached, used, taken = _resync(frontier, after), 0, []
        if not reached:
            tried = tuple(" | ".join(" ; ".join(map(show, seq)) for seq in alts) for alts in plan)
            report.unexplained.append(
                Unexplained(i - 1, runs[i].t, before, after, runs[i].records, tried)
            )
            return report
        if i > 1:
            report.spec_steps += used - synthesized
            report.synthesized += synthesized
            n = synthesized // 4
            report.actions.update(taken)
            report.actions.subtract({"Add": n, "Pop": n, "Assume": n, "BindSucceeded": n})
        frontier = reached
    return report


DECLARED = {
    "nomination": "impl sends AssignedPodDelete (with the LE-priority pre-check) when a pending "
    "pod's status.nominatedNodeName is cleared or changed (scheduler.py _update_pending, "
    "_unscheduled_pod_deleted): a pod update, which queue.tla does not model; its only "
    "AssignedPodDelete is a bound pod's deletion",
    "pod-update": "a pending pod's update moved it (UnscheduledPodUpdate, PodUpdate events): "
    "queue.tla does not model pod updates",
    "nomination-in-flight": "an AssignedPodDelete sent for a pending pod's nomination (see "
    "nomination) reached a pod in flight; the queue keeps it and replays it when that pod's "
    "attempt fails, and its hint released the failed pod to backoffQ/activeQ: queue.tla has no "
    "such event to record in flight",
    "activate": "Activate moved a pod to activeQ (ForceActivate; upstream's async preemption "
    "activates its preemptor when an API call of its goroutine fails, preemption.go "
    "prepareCandidateAsync): queue.tla does not model Activate",
}


def _declared(before: State, after: State, records: Sequence[tuple[Any, ...]]) -> str | None:
    """The declared difference a step that no spec step explains falls under, if any."""
    was, now = before["where"], after["where"]
    assert isinstance(was, Fcn) and isinstance(now, Fcn)
    gone = any(was[p] == "bound" and now[p] == "deleted" for p in now)
    events = {r[4] for r in records if r[0] == "move"}
    if "AssignedPodDelete" in events and not gone:
        return "nomination"
    if any(e.startswith(("UnschedulablePod", "UnscheduledPod", "Pod")) for e in events):
        return "pod-update"
    if "ForceActivate" in events:
        return "activate"
    return None


def _resync(frontier: Sequence[State], after: State) -> list[State]:
    """The spec states after a declared step: the observed variables from impl, the free ones
    as they were."""
    return _dedupe({**s, **{v: after[v] for v in OBSERVED}, "prev": s["where"]} for s in frontier)


def _dedupe(states: Iterable[State]) -> list[State]:
    seen: dict[tuple[Any, ...], State] = {}
    for s in states:
        seen.setdefault(_key(s), s)
    return list(seen.values())


Plan = list[list[list[Action]]]  # per record: alternative sequences of spec actions


def _plan(
    before: State,
    after: State,
    records: Sequence[tuple[Any, ...]],
    nodes: Sequence[str],
    events: Value,
) -> tuple[Plan, int]:
    """The spec actions impl's records name, in order (see the module docstring), and how many
    of them are synthesized for pods bound by someone else."""
    was, now, node_of = before["where"], after["where"], after["nodeOf"]
    assert isinstance(was, Fcn) and isinstance(now, Fcn) and isinstance(node_of, Fcn)
    assert isinstance(events, frozenset)
    plan: Plan = []
    synthesized = 0
    moved = {r[1] for r in records if r[0] == "move"}
    for pod in now:
        if was[pod] == "none" and now[pod] == "bound" and pod not in moved:
            node = node_of[pod]
            plan += [[[("Add", pod)]], [[("Pop", pod)]], [[("Assume", pod, node)]]]
            plan.append([[("BindSucceeded", pod)]])
            synthesized += 4
    d = after["now"] - before["now"]  # type: ignore[operator]
    if d:
        plan.insert(0, [[("Tick", d)]])
    popped: set[str] = set()
    delivered: set[str] = set()
    gone = [str(p) for p in now if was[p] == "bound" and now[p] == "deleted"]
    # a failed binding's AssignedPodDelete is delivered by queue.tla's BindFailed itself
    bind_failed = any(
        r[0] == "move" and r[4] == "ScheduleAttemptFailure" and was[r[1]] == "binding"
        for r in records
    )

    def deliver(label: str) -> None:
        if label not in delivered:
            delivered.add(label)
            plan.append(_deliver(SPEC_EVENTS.get(label, label), gone))

    bind_delivery: tuple[Delivery, ...] = ()
    for rec in records:
        if rec[0] == "deliver":
            # impl handed its queue an event with these objects: the spec delivers it with the
            # verdicts hints.tla gives (a pre-checked one, a nomination's, is DECLARED)
            label, d = rec[1], rec[2]
            e = SPEC_EVENTS.get(label)
            if e not in events or d.prechecked:
                continue
            if e == "AssignedPodDelete":
                if bind_failed:
                    bind_delivery = (d,)
                elif gone:
                    victims = [v for v in gone if v == _manifest_key(d.old)] or gone
                    plan.append([[("AssignedPodDeleted", v, d)] for v in victims])
                else:
                    continue
            else:
                plan.append([[("ClusterEvent", e, d)]])
            delivered.add(label)
            continue
        if rec[0] == "event":
            # an AssignedPodDelete with no bound pod gone has no spec counterpart (DECLARED)
            orphan = rec[1] == "AssignedPodDelete" and (not gone or bind_failed)
            if SPEC_EVENTS.get(rec[1]) in events and not orphan:
                deliver(rec[1])
            continue
        _, pod, src, dst, event = rec
        if src == "" and dst == ACTIVE_Q:  # Add (impl labels it UnschedulablePodAdd)
            plan.append([[("Add", pod)]])
        elif dst == IN_FLIGHT:
            popped.add(pod)
            plan.append([[("Pop", pod)]])
            if now[pod] in ("binding", "bound"):
                plan.append([[("Assume", pod, node_of[pod])]])
        elif event == "ScheduleAttemptFailure":  # from "" when the binding cycle failed
            if was[pod] == "binding":
                plan.append([[("BindFailed", pod, *bind_delivery)]])
            else:  # a scheduling cycle's failure, or one at Reserve / Permit
                binds = [[("Assume", pod, n), ("BindFailed", pod)] for n in nodes]
                plan.append([[("Fail", pod)], *binds])
        elif event in _FLUSHES:
            if [[(_FLUSHES[event],)]] not in plan:
                plan.append([[(_FLUSHES[event],)]])
        elif dst == "" or event == "Delete":
            continue  # left the queue: bound or deleted, read from the places
        elif event == "AssignedPodDelete" and bind_failed and not gone:
            continue  # part of BindFailed
        else:
            deliver(event)
    for pod in now:
        if pod in popped:
            continue
        if was[pod] == "inFlight" and now[pod] in ("binding", "bound"):
            plan.append([[("Assume", pod, node_of[pod])]])
        if was[pod] in ("inFlight", "binding") and now[pod] == "bound":
            plan.append([[("BindSucceeded", pod)]])
    if gone and "AssignedPodDelete" not in delivered:
        plan.extend([[[("AssignedPodDeleted", v)]] for v in gone])
    return plan, synthesized


def _manifest_key(obj: Mapping[str, Any] | None) -> str:
    meta = (obj or {}).get("metadata") or {}
    return f"{meta.get('namespace', 'default')}/{meta.get('name', '')}"


_FLUSHES = {
    "BackoffComplete": "FlushBackoffQCompleted",
    "UnschedulableTimeout": "FlushUnschedulablePodsLeftover",
}


def _deliver(event: str, gone: Sequence[str]) -> list[list[Action]]:
    if event == "AssignedPodDelete" and gone:
        return [[("AssignedPodDeleted", v)] for v in gone]
    return [[("ClusterEvent", event)]]


def _follow(
    sm: StateMachine, frontier: Sequence[State], plan: Plan, goal: tuple[Value, ...]
) -> tuple[list[State], list[str]]:
    """The states the plan's sequences reach from ``frontier`` whose projection is ``goal``, and
    the actions of the first sequence that does."""
    best: list[State] = []
    used: list[str] = []
    for choice in itertools.product(*plan):
        states = list(frontier)
        for action in itertools.chain.from_iterable(choice):
            states = _dedupe(s for f in states for s in _step(sm, f, action))
            if not states:
                break
        hits = [s for s in states if _proj(s) == goal]
        if hits:
            best += hits
            taken = [a[0] for a in itertools.chain.from_iterable(choice)]
            used = used or taken  # the first: Fail before Assume ; BindFailed
    return _dedupe(best), used


def _search(
    sm: StateMachine,
    frontier: Sequence[State],
    plan: Plan,
    goal: tuple[Value, ...],
) -> tuple[list[State], int]:
    """Any order of at most SEARCH_DEPTH steps of the plan's actions and the flushes (the Tick,
    if any, first). No cluster event the records do not name: the spec's event must be impl's."""
    actions = {a for alts in plan for seq in alts for a in seq}
    tick = [a for a in actions if a[0] == "Tick"]
    actions -= set(tick)
    actions |= {("FlushBackoffQCompleted",), ("FlushUnschedulablePodsLeftover",)}
    layer = list(frontier)
    for t in tick:
        layer = _dedupe(s for f in layer for s in _step(sm, f, t))
    hits = [s for s in layer if _proj(s) == goal]
    for depth in range(1, SEARCH_DEPTH + 1):
        if hits:
            return _dedupe(hits), depth - 1 + len(tick)
        layer = _dedupe(
            s for f in layer for a in sorted(actions, key=show) for s in _step(sm, f, a)
        )
        hits = [s for s in layer if _proj(s) == goal]
    return _dedupe(hits), SEARCH_DEPTH + len(tick)


# ---- campaigns ------------------------------------------------------------------------------


def validate_cluster(
    cluster: Cluster,
    seed: int = 0,
    *,
    max_pods: int = 4,
    idle_timeout: float = 60.0,
    late_node_at: float | None = None,
    update_node_at: float | None = None,
    node_updates: Sequence[tuple[float, int, str]] = (),
    actions: Sequence[tuple[float, Callable[[Scheduler], None]]] = (),
) -> RunReport:
    """Record ``cluster``'s run and validate it (skipped when outside the universe)."""
    if len(cluster.pods) > max_pods:
        return RunReport(skipped="pods")
    observations, skip = record_run(
        cluster, seed, idle_timeout, late_node_at, update_node_at, node_updates, actions
    )
    if skip is not None:
        return RunReport(skipped=skip)
    nodes = [n["metadata"]["name"] for n in cluster.nodes]
    if late_node_at is not None:
        nodes.append(LATE_NODE)
    return validate(observations, nodes, max_pods=max_pods)


if __name__ == "__main__":
    from schedspec.checker.queue_trace_campaign import main

    sys.exit(main())
