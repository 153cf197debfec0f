"""A scheduling run with scripted time: ``schedspec schedule CLUSTER --events FILE [--until D]``.

``run_scripted(cluster, script, ...)`` builds the scheduler as :func:`~.simulate.simulate` does,
then drives its event loop itself: up to each entry's time ``at`` (everything due at ``at``
done, so a change lands as a user acting at that instant would make it), the entry applied to
the API server (create / update / delete, or the next binds / status patches set to fail), and
the callbacks delivering its watch events run at once, so the queue moves they make are the
entry's (``EventOutcome.released``). After the last entry the run goes on to virtual time
``until``, or, without one, as ``Scheduler.run`` does: until nothing is left to do or only
retries remain and nothing happened for ``idle_timeout`` virtual seconds. ``after_each`` (set
up by ``prepare``, given the built scheduler) runs after every loop callback: the checker's
queue observer.

Not an upstream structure: it replaces what ``kubectl`` and a wall clock are to a real cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO, Any

from schedspec.cluster import Cluster
from schedspec.events import EventScript, ScriptedEvent
from schedspec.impl.apiserver import FailBinds
from schedspec.impl.framework.types import QueuedPodInfo
from schedspec.impl.scheduler import Scheduler
from schedspec.impl.simulate import ScheduleResult, build, result_of

__all__ = ["EventOutcome", "Move", "ScriptedRun", "run_scripted"]


@dataclass(frozen=True, slots=True)
class Move:
    """A pod moved between sub-queues (the trace's ``queue`` record)."""

    pod: str
    src: str
    dst: str
    event: str

    def as_json(self) -> dict[str, str]:
        return {"pod": self.pod, "from": self.src, "to": self.dst, "event": self.event}


@dataclass(frozen=True, slots=True)
class EventOutcome:
    """What one entry did: the moves its watch events made, or why it was skipped."""

    event: ScriptedEvent
    t: float
    released: tuple[Move, ...] = ()
    skipped: str = ""


@dataclass(frozen=True, slots=True)
class ScriptedRun:
    result: ScheduleResult
    outcomes: tuple[EventOutcome, ...]
    bound_at: Mapping[str, float]  # ns/name → when this scheduler bound it
    end: float  # virtual time the run stopped at


class _Conflicts:
    """A ``patch_fault``: the next ``remaining`` status patches answer Conflict."""

    def __init__(self) -> None:
        self.remaining = 0

    def __call__(self, pod_key: str) -> str | None:
        if self.remaining <= 0:
            return None
        self.remaining -= 1
        return f"injected fault: the status patch of {pod_key} conflicts"


class _Driver:
    def __init__(self, sched: Scheduler, after_each: Callable[[], None]) -> None:
        self.sched, self.after_each = sched, after_each
        self.bound_at: dict[str, float] = {}
        self.moves: list[Move] = []
        hook = sched.queue.on_move

        def on_move(qpi: QueuedPodInfo, src: str, dst: str, event: str) -> None:
            self.moves.append(Move(qpi.pod.key, src, dst, event))
            if hook is not None:
                hook(qpi, src, dst, event)

        sched.queue.on_move = on_move

    def step(self) -> None:
        sched = self.sched
        sched.loop.run_one()
        if len(sched.bindings) != len(self.bound_at):
            for key in list(sched.bindings)[len(self.bound_at) :]:
                self.bound_at[key] = sched.loop.now()
        self.after_each()

    def run_to(self, t: float) -> None:
        """Every callback due at or before ``t``; the clock then reads ``t``."""
        loop = self.sched.loop
        while (when := loop.next_time()) is not None and when <= t:
            self.step()
        if t > loop.now():  # nothing was due at t itself: a no-op there moves the clock
            loop.after(t - loop.now(), lambda: None)
            self.step()

    def run_idle(self, idle_timeout: float) -> None:
        """``Scheduler.run``, one callback at a time."""
        sched, loop = self.sched, self.sched.loop
        while (when := loop.next_time()) is not None:
            if when > sched.last_progress + idle_timeout and not sched.handle.waiting_pods:
                break
            self.step()

    def apply(self, event: ScriptedEvent, binds: FailBinds, patches: _Conflicts) -> EventOutcome:
        sched, api = self.sched, self.sched.apiserver
        t = sched.loop.now()
        if event.action == "fail-binds":
            binds.remaining = event.count
            return EventOutcome(event, t)
        if event.action == "conflict-status-patches":
            patches.remaining = event.count
            return EventOutcome(event, t)
        stored = api.get(event.kind, event.key)
        if stored is None and event.action != "create":
            return EventOutcome(event, t, skipped=f"{event.kind} {event.key} is gone already")
        before, first = sched.loop.pending(), len(self.moves)
        if event.action == "create":
            assert event.obj is not None
            api.create(event.kind, event.obj)
        elif event.action == "delete":
            api.delete(event.kind, event.key)
        else:
            assert event.obj is not None and stored is not None
            api.update(event.kind, _kept(stored, event.obj))
        for _ in range(sched.loop.pending() - before):  # the watch deliveries, due now
            self.step()
        return EventOutcome(event, t, tuple(self.moves[first:]))


def _kept(stored: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """``new`` with what an update cannot change: the UID (``ValidateObjectMetaUpdate``) and a
    bound pod's node (``ValidatePodUpdate``, pkg/apis/core/validation/validation.go: nodeName
    is not among the fields a pod update may change)."""
    meta = {**new["metadata"], "uid": stored["metadata"].get("uid")}
    out = {**new, "metadata": meta}
    node = (stored.get("spec") or {}).get("nodeName")
    if stored.get("kind", new.get("kind")) == "Pod" and node:
        out["spec"] = {**new["spec"], "nodeName": node}
    return out


def run_scripted(
    cluster: Cluster,
    script: EventScript,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    *,
    until: float | None = None,
    idle_timeout: float = 60.0,
    trace: IO[str] | None = None,
    prepare: Callable[[Scheduler], Callable[[], None]] | None = None,
) -> ScriptedRun:
    """Run ``cluster`` (a loaded ``Cluster``) with the entries of ``script`` (see the module
    docstring); entries after ``until`` are the caller's to refuse (``until_after``)."""
    binds, patches = FailBinds(0), _Conflicts()
    sched = build(cluster, config, seed, bind_fault=binds, trace=trace)
    sched.apiserver.patch_fault = patches
    after_each = prepare(sched) if prepare is not None else (lambda: None)
    driver = _Driver(sched, after_each)
    outcomes = []
    for event in script.events:
        driver.run_to(event.at)
        outcomes.append(driver.apply(event, binds, patches))
    if until is not None:
        driver.run_to(until)
    else:
        driver.run_idle(idle_timeout)
    return ScriptedRun(result_of(sched), tuple(outcomes), driver.bound_at, sched.loop.now())
