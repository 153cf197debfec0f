"""A queue step ``queue.tla`` does not explain, as the shortest run that produces it: a cluster,
an event script and the ITF trace of the spec's states up to that step (issue 25).

Trace validation (:mod:`.queue_trace`) names the step; this module finds a *small* run that
makes one, in files a user replays with the command line::

    schedspec schedule cluster.yaml --events events.yaml --until T --trace t.jsonl

How: the campaign's generator runs again under Hypothesis with shrinking on, and each drawn run
is turned into a cluster and an event script (:mod:`schedspec.events`) *first*, and those are
what run (through :func:`~schedspec.impl.scripted.run_scripted`, the command's own driver) and
are validated. So whatever Hypothesis shrinks to is, by construction, a run the written files
reproduce. Two generators, as the campaigns (:mod:`.queue_trace_campaign`):

``simulate``
    a drawn cluster (shrunk: fewer nodes and pods, fewer fields) and the campaign's two
    entries: its first node updated at 20 s (taints gone, schedulable, a label, more cpu and
    pods) and the roomy ``late-node`` created at 40 s;
``machine``
    the stateful machine's rule sequence (shrunk: fewer, simpler rules) recorded as entries:
    nodes and pods created, bound pods and nodes deleted (``delete_node_later`` at its time),
    binds failing, a status patch conflicting; the run ends where the machine's last rule
    left the clock.

Written to ``DIR``: ``cluster.yaml``, ``events.yaml``, ``counterexample.itf.json`` (queue.tla's
observed variables after every impl step that changed them, the last one the step no spec
action explains, with impl's records and the spec actions tried) and ``README.txt`` (the
command, the step), and ``t.jsonl``, the run's trace. The command line
(:mod:`.queue_counterexample_cli`): ``python3 -m schedspec.checker.queue_counterexample replay
DIR`` validates a directory's run again and prints the step (exit 1), or says it no longer
happens (exit 0); ``… find --kind machine --runs N [--mutant NAME] --out DIR`` searches.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TextIO

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Flaky
from hypothesis.stateful import invariant, run_state_machine_as_test
from hypothesis.strategies import SearchStrategy

from schedspec import itf
from schedspec.checker.queue_trace import (
    LATE_NODE,
    OBSERVED,
    Observation,
    Recorder,
    RunReport,
    Unexplained,
    to_state,
    universe,
    validate,
)
from schedspec.checker.queue_trace_campaign import MAX_PODS, QueueTraceMachine
from schedspec.checker.strategies import cluster_objects
from schedspec.cluster import Cluster, from_objects, load, loads, parse_quantity
from schedspec.events import (
    EventScript,
    format_duration,
    load_events,
    loads_events,
    parse_duration,
)
from schedspec.impl.apiserver import ConflictOnce
from schedspec.impl.scheduler import Scheduler
from schedspec.impl.scripted import run_scripted
from schedspec.spec.values import Fcn, Value

__all__ = [
    "Counterexample",
    "find",
    "itf_trace",
    "render_step",
    "replay",
    "replay_dir",
    "write",
    "write_found",
]

HEAL_AT, LATE_NODE_AT = 20.0, 40.0
SIMULATE_UNTIL = LATE_NODE_AT + 400.0  # the campaign runs 400 s idle past the late node


@dataclass(frozen=True)
class Counterexample:
    """A run with a step no ``queue.tla`` action explains, as text a user can replay."""

    kind: str  # simulate | machine
    cluster_yaml: str
    events_yaml: str
    until: float
    observations: tuple[Observation, ...]
    report: RunReport

    @property
    def step(self) -> Unexplained:
        return self.report.unexplained[0]


# ---- running a cluster + script, observed and validated --------------------------------------


def replay(
    cluster: Cluster, script: EventScript, until: float
) -> tuple[list[Observation], RunReport]:
    """Run ``cluster`` with ``script`` to ``until`` as ``schedspec schedule`` does, observing
    the queue after every loop callback, and validate the run against ``queue.tla``."""
    observations: list[Observation] = []

    def prepare(sched: Scheduler) -> Callable[[], None]:
        recorder = Recorder(sched)
        observations.append(recorder.observe())
        return lambda: observations.append(recorder.observe())

    run_scripted(cluster, script, until=until, prepare=prepare)
    nodes = [n["metadata"]["name"] for n in cluster.nodes]
    nodes += [e.key for e in script.events if e.kind == "Node" and e.action == "create"]
    if (
        len(cluster.pods) + sum(e.kind == "Pod" and e.action == "create" for e in script.events)
        > MAX_PODS
    ):
        return observations, RunReport(skipped="pods")
    return observations, validate(observations, nodes, max_pods=MAX_PODS)


def _texts(objects: Sequence[dict[str, Any]], entries: Sequence[dict[str, Any]]) -> tuple[str, str]:
    cluster = yaml.safe_dump_all(objects, sort_keys=False)
    events = yaml.safe_dump(list(entries), sort_keys=False) if entries else "[]\n"
    return cluster, events


def _run_texts(kind: str, cluster_yaml: str, events_yaml: str, until: float) -> Counterexample:
    cluster = loads(cluster_yaml, source="cluster.yaml")
    script = loads_events(events_yaml, cluster, source="events.yaml")
    observations, report = replay(cluster, script, until)
    return Counterexample(kind, cluster_yaml, events_yaml, until, tuple(observations), report)


# ---- the two generators ----------------------------------------------------------------------


def _late_node_entry() -> dict[str, Any]:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": LATE_NODE, "labels": {"kubernetes.io/hostname": LATE_NODE}},
        "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}},
    }
    return {"at": format_duration(LATE_NODE_AT), "create": node}


def _healed(node: dict[str, Any]) -> dict[str, Any]:
    """The campaign's node update at 20 s (``queue_trace._heal_node``): no taints,
    schedulable, a new label, twice the cpu and pods plus one — NodeAllocatableUpdate,
    NodeLabelUpdate and NodeTaintUpdate at once."""
    obj = copy.deepcopy(node)
    spec, status = obj.setdefault("spec", {}), obj.setdefault("status", {})
    spec.pop("taints", None)
    spec["unschedulable"] = False
    obj["metadata"].setdefault("labels", {})["schedspec.io/healed"] = "true"
    alloc = status.setdefault("allocatable", {})
    alloc["cpu"] = f"{math.ceil(2000 * parse_quantity(alloc.get('cpu', '0')))}m"
    alloc["pods"] = str(2 * int(parse_quantity(alloc.get("pods", "0"))) + 1)
    return obj


class _Found(Exception):
    """Raised inside a Hypothesis example to mark it failing (and so shrink it)."""


def _settings(runs: int, seed: int, **extra: Any) -> settings:
    return settings(
        max_examples=runs,
        database=None,
        derandomize=seed == 0,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
        deadline=None,
        report_multiple_bugs=False,
        **extra,
    )


def _search(test: Callable[[], None], seed: int) -> None:
    with contextlib.suppress(_Found, Flaky):  # found: the shrunk run is kept by the test
        (hypothesis_seed(seed)(test) if seed else test)()


def _find_simulate(
    runs: int, seed: int, objects: SearchStrategy[list[dict[str, Any]]] | None
) -> Counterexample | None:
    found: list[Counterexample] = []
    drawn = (
        objects
        if objects is not None
        else cluster_objects(max_nodes=2, max_pods=MAX_PODS, extras=False)
    )

    @_settings(runs, seed)
    @given(objs=drawn)
    def one(objs: list[dict[str, Any]]) -> None:
        nodes = from_objects(objs).nodes
        heal = [{"at": format_duration(HEAL_AT), "update": _healed(nodes[0])}] if nodes else []
        cluster_yaml, events_yaml = _texts(objs, [*heal, _late_node_entry()])
        run = _run_texts("simulate", cluster_yaml, events_yaml, SIMULATE_UNTIL)
        if run.report.unexplained:
            found.append(run)  # the last one raised is the shrunk one
            raise _Found

    _search(one, seed)
    return found[-1] if found else None


class _ScriptMachine(QueueTraceMachine):
    """The campaign's machine, its rules also written down as event-script entries; at
    teardown the entries (not the machine's own run) are replayed and validated."""

    found: ClassVar[list[Counterexample]] = []

    def __init__(self) -> None:
        super().__init__()
        self.objects: list[dict[str, Any]] = []  # the cluster: the first node
        self.entries: list[tuple[float, int, dict[str, Any]]] = []  # (at, order, entry)
        self._callbacks = self._seen_callbacks = 0
        self.loop.after_each = lambda: None  # the replay is observed, not this run
        self._binds_left = self.binds.remaining
        self._patch_fault = self.api.patch_fault
        run_one, delete, delete_at = self.loop.run_one, self.api.delete, self.api.delete_at

        def counted() -> bool:
            self._callbacks += 1
            return run_one()

        def deleted(kind: str, key: str) -> None:
            if not self._inside:  # a rule's deletion, not preemption's or delete_at's
                self._entry(self.loop.now(), {"delete": _ref(kind, key)})
            delete(kind, key)

        def deleted_at(when: float, kind: str, key: str) -> None:
            self._entry(when, {"delete": _ref(kind, key)})
            delete_at(when, kind, key)

        self._depth = 0
        self.loop.run_one = self._guard(counted)  # type: ignore[method-assign]
        self.api.delete = deleted  # type: ignore[method-assign]
        self.api.delete_at = deleted_at  # type: ignore[method-assign]

    @property
    def _inside(self) -> bool:
        return self._depth > 0

    def _guard(self, fn: Callable[[], bool]) -> Callable[[], bool]:
        def run() -> bool:
            self._depth += 1
            try:
                return fn()
            finally:
                self._depth -= 1

        return run

    def _entry(self, at: float, action: dict[str, Any]) -> None:
        self.entries.append((at, len(self.entries), {"at": format_duration(at), **action}))

    def _create(self, kind: str, manifest: dict[str, Any]) -> dict[str, Any]:
        if not self.entries and not self.objects and kind == "Node" and self.loop.now() == 0:
            self.objects.append(manifest)  # the machine's first node: the cluster
        else:
            self._entry(self.loop.now(), {"create": manifest})
        return super()._create(kind, manifest)

    def _faults(self) -> None:
        """The fault rules set a count or a hook without running the loop: seen after the
        step (a count only a rule can raise; a fresh ConflictOnce only a rule installs)."""
        quiet = self._callbacks == self._seen_callbacks  # no loop callback: a rule set it
        if quiet and self.binds.remaining != self._binds_left and self.binds.remaining > 0:
            self._entry(self.loop.now(), {"fail-binds": self.binds.remaining})
        if self.api.patch_fault is not self._patch_fault and isinstance(
            self.api.patch_fault, ConflictOnce
        ):
            self._entry(self.loop.now(), {"conflict-status-patches": 1})
        self._binds_left, self._patch_fault = self.binds.remaining, self.api.patch_fault
        self._seen_callbacks = self._callbacks

    @invariant()
    def fault_rules_written_down(self) -> None:
        self._faults()

    def teardown(self) -> None:
        self._faults()
        until = self.loop.now()
        entries = [e for at, _, e in sorted(self.entries, key=lambda x: x[:2]) if at <= until]
        entries = _existing_only(self.objects, entries)
        cluster_yaml, events_yaml = _texts(self.objects, entries)
        run = _run_texts("machine", cluster_yaml, events_yaml, until)
        if run.report.unexplained:
            self.found.append(run)
            raise _Found


def _ref(kind: str, key: str) -> dict[str, str]:
    ns, _, name = key.rpartition("/")
    return {"kind": kind, "namespace": ns, "name": name} if ns else {"kind": kind, "name": name}


def _existing_only(
    objects: Sequence[dict[str, Any]], entries: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Without the deletions of objects gone by then (``delete_at`` ignores them too)."""
    alive = {("Node", o["metadata"]["name"]) for o in objects}
    out = []
    for e in entries:
        if "create" in e:
            m = e["create"]
            alive.add((m["kind"], _key(m["kind"], m["metadata"]["name"])))
        if "delete" in e:
            ref = e["delete"]
            ident = (ref["kind"], _key(ref["kind"], ref["name"], ref.get("namespace", "")))
            if ident not in alive:
                continue
            alive.discard(ident)
        out.append(e)
    return out


def _key(kind: str, name: str, namespace: str = "") -> str:
    return f"{namespace or 'default'}/{name}" if kind == "Pod" else name


def _find_machine(runs: int, seed: int, steps: int) -> Counterexample | None:
    _ScriptMachine.found = []

    def one() -> None:
        run_state_machine_as_test(
            _ScriptMachine, settings=_settings(runs, seed, stateful_step_count=steps)
        )

    _search(one, seed)
    return _ScriptMachine.found[-1] if _ScriptMachine.found else None


def find(
    kind: str,
    runs: int,
    seed: int = 0,
    steps: int = 12,
    objects: SearchStrategy[list[dict[str, Any]]] | None = None,
) -> Counterexample | None:
    """The shrunk run with an unexplained step among ``runs`` drawn ``kind`` runs (or None),
    cut at that step's time when that still produces it. ``objects``: the clusters a
    ``simulate`` search draws (default: the campaign's)."""
    if kind == "simulate":
        found = _find_simulate(runs, seed, objects)
    else:
        found = _find_machine(runs, seed, steps)
    if found is None:
        return None
    t = found.step.t
    entries = [e for e in yaml.safe_load(found.events_yaml) or [] if parse_duration(e["at"]) <= t]
    cut = _run_texts(kind, found.cluster_yaml, _texts([], entries)[1], t)
    return cut if _same_step(cut, found) else found


def _same_step(a: Counterexample, b: Counterexample) -> bool:
    if not a.report.unexplained:
        return False
    x, y = a.step, b.step
    return (x.t, _plain(x.records), x.before, x.after) == (
        y.t,
        _plain(y.records),
        y.before,
        y.after,
    )


def _plain(records: Sequence[Sequence[Any]]) -> list[list[str]]:
    """impl's records by their names (what they carry besides is compared by identity)."""
    return [[x for x in r if isinstance(x, str)] for r in records]


# ---- writing and replaying -------------------------------------------------------------------


def _itf_value(v: Value) -> Any:
    if isinstance(v, Fcn):
        return itf.mapping(
            (k, _itf_value(x)) for k, x in sorted(v.items(), key=lambda kv: repr(kv[0]))
        )
    if isinstance(v, frozenset):
        return {"#set": [_itf_value(x) for x in sorted(v, key=repr)]}
    return itf.value(v)


def itf_trace(c: Counterexample) -> dict[str, Any]:
    """queue.tla's observed variables after each impl step that changed them, up to and
    including the unexplained one."""
    step = c.step
    pods, plugins, _ = universe(c.observations, MAX_PODS)
    states: list[dict[str, Any]] = []
    last: dict[str, Value] | None = None
    for i, obs in enumerate(c.observations[: step.index + 1]):
        spec = to_state(obs, pods, plugins)
        if spec == last:
            continue
        last = spec
        final = i == step.index
        states.append(
            {
                **{v: _itf_value(spec[v]) for v in OBSERVED},
                "t": str(obs.t),
                "impl": _plain(obs.records),
                "unexplained": final,
                "tried": list(step.tried) if final else [],
            }
        )
    meta = {
        "source": "schedspec.checker.queue_counterexample",
        "description": "queue.tla's observed variables after each impl step of the run; the "
        "last state is the step no queue.tla action explains",
    }
    return itf.document([*OBSERVED, "t", "impl", "unexplained", "tried"], states, meta)


def render_step(step: Unexplained) -> str:
    """``Unexplained.render`` with impl's records by their names only (a record may carry
    whole objects)."""
    _, *rest = step.render().splitlines()
    plain = " ; ".join(" ".join(r) for r in _plain(step.records))
    return "\n".join([f"step {step.index} at t={step.t:g}: impl did {plain}", *rest])


def command(until: float) -> str:
    return (
        f"schedspec schedule cluster.yaml --events events.yaml --until {format_duration(until)} "
        "--trace t.jsonl"
    )


def write(c: Counterexample, out: Path) -> None:
    """``cluster.yaml``, ``events.yaml``, ``counterexample.itf.json``, ``README.txt`` and
    ``t.jsonl``: the run's trace (``schedspec.impl.trace``) as this process's impl made it —
    under a mutant, the mutant's."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "cluster.yaml").write_text(c.cluster_yaml, encoding="utf-8")
    (out / "events.yaml").write_text(c.events_yaml, encoding="utf-8")
    (out / "counterexample.itf.json").write_text(json.dumps(itf_trace(c), indent=1), "utf-8")
    cluster = loads(c.cluster_yaml, source="cluster.yaml")
    trace = io.StringIO()
    script = loads_events(c.events_yaml, cluster, source="events.yaml")
    run_scripted(cluster, script, until=c.until, trace=trace)
    (out / "t.jsonl").write_text(trace.getvalue(), encoding="utf-8")
    readme = [
        f"A {c.kind} run with a queue step spec/kube/queue.tla does not explain.",
        "",
        "Reproduce (in this directory):",
        f"  {command(c.until)}",
        "  python3 -m schedspec.checker.queue_counterexample replay .",
        "",
        render_step(c.step),
        "",
        f"until: {format_duration(c.until)}",
    ]
    (out / "README.txt").write_text("\n".join(readme) + "\n", encoding="utf-8")


def replay_dir(path: Path) -> tuple[list[Observation], RunReport]:
    """Validate the run a written directory describes (its README's ``until``)."""
    cluster = load(path / "cluster.yaml")
    script = load_events(path / "events.yaml", cluster)
    lines = (path / "README.txt").read_text(encoding="utf-8").splitlines()
    until = next(line.split(": ", 1)[1] for line in lines if line.startswith("until: "))
    return replay(cluster, script, parse_duration(until))


def write_found(kind: str, runs: int, seed: int, steps: int, dest: str, out: TextIO) -> None:
    """The campaign's ``--out DIR``: search ``kind`` runs again, shrink, write ``DIR/kind``."""
    found = find(kind, runs, seed, steps)
    if found is None:
        print(f"  {kind}: no run replayed from a cluster and an event script showed an "
              "unexplained step; nothing written", file=out)  # fmt: skip
        return
    where = Path(dest) / kind
    write(found, where)
    print(f"  {kind}: shrunk counterexample in {where}/ (cluster.yaml, events.yaml, "
          f"counterexample.itf.json); in it: {command(found.until)}", file=out)  # fmt: skip


if __name__ == "__main__":
    from schedspec.checker.queue_counterexample_cli import main

    sys.exit(main())
