"""Trace-validation campaigns of impl's queue against ``queue.tla`` (:mod:`.queue_trace`).

Two generators of impl runs:

``simulate``
    clusters from :func:`~schedspec.checker.strategies.cluster_objects` (1–2 nodes, 1–4 pods,
    no extras) run to quiescence; a roomy node is added at t = 40 s (a NodeAdd for the pods
    still unschedulable) and the run goes on to 400 s idle, past the 5-minute flush.
``machine``
    the stateful machine's runs (:class:`~schedspec.checker.stateful.SchedulerMachine`): nodes
    added and removed, pods pending or bound by someone else, time passing (backoffs, flushes),
    binds failing, status patches conflicting. Its rules that delete a *pending* pod are left
    out (queue.tla does not model that), bound pods are still removed (AssignedPodDeleted), and
    at most :data:`MAX_PODS` pods are created.

``python3 -m schedspec.checker.queue_trace --runs N [--machine-runs M] [--seed S]`` prints what
was validated, every unexplained step (the run, the step's before/after and impl's records)
and the declared differences with their reasons. Exit 0 when no step is unexplained, else 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TextIO

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.stateful import consumes, rule, run_state_machine_as_test

from schedspec.checker.queue_node_updates import NODE_UPDATES
from schedspec.checker.queue_trace import (
    DECLARED,
    SKIP_REASONS,
    Recorder,
    RunReport,
    validate,
    validate_cluster,
)
from schedspec.checker.stateful import SchedulerMachine
from schedspec.checker.strategies import cluster_objects
from schedspec.cluster import from_objects
from schedspec.impl.apiserver import APIServer
from schedspec.impl.loop import EventLoop
from schedspec.impl.scheduler import Scheduler

__all__ = ["MAX_PODS", "Campaign", "QueueTraceMachine", "machine_campaign", "main", "run_simulate"]

MAX_PODS = 4
UPDATE_KINDS = (*NODE_UPDATES, "delete")


@dataclass
class Campaign:
    """What a campaign validated."""

    runs: int = 0
    validated: int = 0
    steps: int = 0
    moving: int = 0
    spec_steps: int = 0
    synthesized: int = 0
    searched: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    declared: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    unexplained: list[tuple[str, RunReport]] = field(default_factory=list)  # (the run, report)
    seconds: float = 0.0

    def add(self, report: RunReport, run: Callable[[], str]) -> None:
        self.runs += 1
        if report.skipped is not None:
            self.skipped[report.skipped] += 1
            return
        self.validated += 1
        self.steps += report.steps
        self.moving += report.moving
        self.spec_steps += report.spec_steps
        self.synthesized += report.synthesized
        self.searched += report.searched
        self.declared.update(report.declared)
        self.actions.update(report.actions)
        if report.unexplained:
            self.unexplained.append((run(), report))


def _settings(runs: int, seed: int, **extra: Any) -> settings:
    return settings(
        max_examples=runs,
        database=None,
        derandomize=seed == 0,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
        **extra,
    )


def run_simulate(
    runs: int, seed: int = 0, validate_one: Callable[..., RunReport] = validate_cluster
) -> Campaign:
    """``runs`` generated clusters, each run and validated (by ``validate_one``, called as
    :func:`~.queue_trace.validate_cluster` is: impl's run; :mod:`.queue_trace_real` passes the
    real scheduler's)."""
    out = Campaign()
    started = time.monotonic()

    @_settings(runs, seed)
    @given(
        objs=cluster_objects(max_nodes=2, max_pods=MAX_PODS, extras=False),
        updates=st.lists(st.tuples(st.integers(0, 1), st.sampled_from(UPDATE_KINDS)), max_size=2),
    )
    def one(objs: list[dict[str, Any]], updates: list[tuple[int, str]]) -> None:
        cluster = from_objects(objs)
        # the runs also update a node at t = 20 s (the hints' update paths); impl's runs get
        # drawn updates at 10 s and 30 s too
        update: dict[str, Any] = {"update_node_at": 20.0}
        if validate_one is validate_cluster:
            update["node_updates"] = [(10.0 + 20 * i, n, k) for i, (n, k) in enumerate(updates)]
        report = validate_one(
            cluster, max_pods=MAX_PODS, idle_timeout=400, late_node_at=40, **update
        )
        out.add(report, lambda: json.dumps(objs))

    (hypothesis_seed(seed)(one) if seed else one)()
    out.seconds = time.monotonic() - started
    return out


# ---- the stateful machine's runs --------------------------------------------------------------


class _ObservedLoop(EventLoop):
    """An event loop that calls ``after_each`` after every callback."""

    def __init__(self) -> None:
        super().__init__()
        self.after_each: Callable[[], None] = lambda: None

    def run_one(self) -> bool:
        ran = super().run_one()
        if ran:
            self.after_each()
        return ran


class QueueTraceMachine(SchedulerMachine):
    """:class:`SchedulerMachine` observed after every callback and validated at teardown; the
    reports go to ``sink``."""

    sink: ClassVar[list[tuple[str, RunReport]]] = []

    def __init__(self) -> None:
        super().__init__()
        loop = _ObservedLoop()
        self.loop = loop
        self.api = APIServer(loop, bind_fault=self.binds)
        self.scheduler = Scheduler(self.api, loop, self.config, self.registry, seed=0)
        self.recorder = Recorder(self.scheduler)
        self.observations = [self.recorder.observe()]
        self.script: list[str] = []
        loop.after_each = lambda: self.observations.append(self.recorder.observe())

    def _create(self, kind: str, manifest: dict[str, Any]) -> dict[str, Any]:
        self.script.append(f"t={self.loop.now():g} create {kind} {json.dumps(manifest)}")
        return super()._create(kind, manifest)

    def _add_pod(self, requests: dict[str, int], priority: int, node: str) -> str:
        if len(self.created) >= MAX_PODS:
            return next(iter(self.created))
        return super()._add_pod(requests, priority, node)

    # queue.tla does not model a pending pod's deletion: these rules are left out
    remove_pod = None  # type: ignore[assignment]
    delete_pod_later = None  # type: ignore[assignment]

    @rule(key=SchedulerMachine.pods)
    def remove_bound_pod(self, key: str) -> None:
        obj = self.api.get("Pod", key)
        if obj is not None and obj["spec"].get("nodeName"):
            self.script.append(f"t={self.loop.now():g} delete Pod {key}")
            self.api.delete("Pod", key)
        self._settle()

    # the parent's rules, logged in the script
    @rule(name=consumes(SchedulerMachine.nodes))
    def remove_node(self, name: str) -> None:
        self.script.append(f"t={self.loop.now():g} delete Node {name}")
        super().remove_node(name)

    @rule(times=st.integers(1, 3))
    def fail_next_binds(self, times: int) -> None:
        self.script.append(f"t={self.loop.now():g} the next {times} bind(s) fail")
        super().fail_next_binds(times)

    @rule()
    def conflict_next_status_patch(self) -> None:
        self.script.append(f"t={self.loop.now():g} the next status patch conflicts")
        super().conflict_next_status_patch()

    @rule(name=SchedulerMachine.nodes, delay=st.sampled_from([0.0, 0.5, 2.0]))
    def delete_node_later(self, name: str, delay: float) -> None:
        self.script.append(f"t={self.loop.now():g} delete Node {name} at +{delay:g} s")
        super().delete_node_later(name, delay)

    @rule(seconds=st.sampled_from([0.5, 1.0, 5.0, 30.0, 120.0, 320.0]))
    def run_for(self, seconds: float) -> None:
        self.script.append(f"t={self.loop.now():g} run for {seconds:g} s")
        super().run_for(seconds)

    def teardown(self) -> None:
        nodes = [str(n["metadata"]["name"]) for n in self.api.list("Node")]
        report = validate(self.observations, nodes, max_pods=MAX_PODS)
        self.sink.append(("\n".join(self.script), report))


def machine_campaign(runs: int, steps: int = 12, seed: int = 0) -> Campaign:
    """``runs`` runs of :class:`QueueTraceMachine` of at most ``steps`` rules each."""
    out = Campaign()
    started = time.monotonic()
    QueueTraceMachine.sink = []
    run_state_machine_as_test(
        QueueTraceMachine, settings=_settings(runs, seed, stateful_step_count=steps)
    )
    for script, report in QueueTraceMachine.sink:
        out.add(report, lambda s=script: s)  # type: ignore[misc]
    out.seconds = time.monotonic() - started
    return out


# ---- reporting --------------------------------------------------------------------------------


def render(
    name: str,
    c: Campaign,
    out: TextIO,
    declared: Mapping[str, str] = DECLARED,
    subject: str = "impl",
) -> None:
    """The campaign's figures; ``declared`` words the declared differences for ``subject``."""
    print(
        f"{name}: {c.runs} runs, {c.validated} validated, {c.steps} {subject} steps checked "
        f"({c.moving} changed the queue; {c.spec_steps} spec steps, {c.synthesized} synthesized; "
        f"{c.searched} explained only by the reordering search), "
        f"{len(c.unexplained)} run(s) with an unexplained step, {c.seconds:.1f} s",
        file=out,
    )
    taken = ", ".join(f"{a} {n}" for a, n in sorted(c.actions.items()) if n)
    print(f"  spec steps by action: {taken}", file=out)
    for why, n in sorted(c.skipped.items()):
        print(f"  skipped {n}: {SKIP_REASONS.get(why, why)}", file=out)
    for why, n in sorted(c.declared.items()):
        print(f"  declared difference, {n} step(s): {declared.get(why, DECLARED[why])}", file=out)
    for run, report in c.unexplained:
        print(f"  UNEXPLAINED in run:\n    {run}", file=out)
        for u in report.unexplained:
            print("    " + u.render().replace("\n", "\n    "), file=out)


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    p = argparse.ArgumentParser(prog="python3 -m schedspec.checker.queue_trace")
    p.add_argument("--runs", type=int, default=200, help="generated clusters, simulated")
    p.add_argument("--machine-runs", type=int, default=0, help="stateful machine runs")
    p.add_argument(
        "--hint-runs", type=int, default=0, help="runs made for the QueueingHints (queue_hint_runs)"
    )
    p.add_argument("--steps", type=int, default=12, help="rules per stateful machine run")
    p.add_argument("--seed", type=int, default=0, help="0: Hypothesis derandomized")
    p.add_argument("--out", metavar="DIR", help="write a shrunk counterexample per failing kind")
    args = p.parse_args(argv)
    campaigns = []
    if args.runs:
        campaigns.append(("simulate", run_simulate(args.runs, args.seed)))
    if args.machine_runs:
        campaigns.append(("machine", machine_campaign(args.machine_runs, args.steps, args.seed)))
    if args.hint_runs:
        from schedspec.checker.queue_hint_runs import run_hints

        campaigns.append(("hints", run_hints(args.hint_runs, args.seed)))
    for name, c in campaigns:
        render(name, c, out)
        if args.out and c.unexplained:
            from schedspec.checker.queue_counterexample import write_found

            runs = args.runs if name == "simulate" else args.machine_runs
            write_found(name, runs, args.seed, args.steps, args.out, out)
    return 1 if any(c.unexplained for _, c in campaigns) else 0
