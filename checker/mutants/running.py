"""Running mutants: the killers, each judged against its unmutated baseline, and the forked
children that apply a mutant and run a killer under a timeout."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import io
import json
import os
import selectors
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from schedspec.checker.mutants.applying import apply_mutant
from schedspec.checker.mutants.enumeration import _module_file
from schedspec.checker.mutants.scope import Mutant


@dataclass(frozen=True)
class Outcome:
    """What became of a mutant: ``killed``, ``survived``, ``timeout`` or ``error`` (not applied)."""

    mutant: Mutant
    status: str
    detail: str
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "mutant": asdict(self.mutant),
            "status": self.status,
            "detail": self.detail,
            "seconds": round(self.seconds, 3),
        }


Killer = Callable[[int, int], list[str]]
"""``killer(examples, seed)``: the problems found (disagreements, failing tests); [] = none."""


def _problems(result: object) -> list[str]:
    undeclared = getattr(result, "undeclared", None)
    if undeclared is not None:
        return [getattr(d, "describe", lambda d=d: str(d))() for d in undeclared]
    if isinstance(result, (list, tuple)):
        return [str(p) for p in result]
    raise TypeError(
        f"a killer returns a list of problems or an object with .undeclared, got {result!r}"
    )


@functools.cache
def _loaded_spec() -> Any:
    """scheduler.tla, parsed once in the parent: children never re-read a file someone may be
    editing, and do not pay for parsing it."""
    from schedspec.spec.load import load_spec

    return load_spec("scheduler")


@functools.cache
def _checker() -> Any:
    from schedspec.checker.differential import Checker

    return Checker(_loaded_spec())


def campaign_killer(examples: int, seed: int) -> list[str]:
    """The checker's short campaign: every undeclared disagreement is a problem."""
    from schedspec.checker.campaign import run_campaign

    # Killing needs detection only: no shrinking, no minimising.
    result = run_campaign(examples=examples, seed=seed, checker=_checker(), shrink=False)
    return _problems(result)


SCENARIOS = "tests/spec/scenarios"


@functools.cache
def _corpus() -> tuple[Any, ...]:
    """The seeds, built once in the parent: the Z3 states (solved or read from the disk cache)
    and the warned states, then the hand-checked scenarios when run from a source tree."""
    import schedspec.impl
    from schedspec.checker.corpus import manifest_seeds, z3_seeds

    seeds = z3_seeds()
    scenarios = _module_file(schedspec.impl).parent.parent / SCENARIOS
    if scenarios.is_dir():
        seeds += manifest_seeds([scenarios])
    return tuple(seeds)


def corpus_killer(examples: int, seed: int) -> list[str]:
    """The seed corpus through the differential check (undeclared disagreements) and the
    decision-level properties (undeclared violations); ``examples`` is unused."""
    from schedspec.checker.campaign import run_campaign

    corpus = _corpus()
    result = run_campaign(examples=0, checker=_checker(), shrink=False, corpus=corpus)
    problems = _problems(result)
    for s in corpus:
        problems += _properties_problems(s.objects, seed)
    return problems


def _properties_problems(objects: list[dict[str, Any]], seed: int) -> list[str]:
    from schedspec.checker.properties import run_properties
    from schedspec.cluster import from_objects
    from schedspec.errors import ManifestError

    try:
        cluster = from_objects(objects)
    except ManifestError:
        return []
    report = run_properties(cluster, seed=seed, spec=_loaded_spec())
    undeclared = [v for v in report.violations if getattr(v, "declared", None) is None]
    return [v.describe() for v in undeclared]


def properties_killer(examples: int, seed: int) -> list[str]:
    """The decision-level properties on scheduling runs of generated clusters: every violation."""
    from schedspec.checker.strategies import cluster_objects

    return _properties_over(cluster_objects(), examples, seed)


def preemption_killer(examples: int, seed: int) -> list[str]:
    """The campaign over preemption clusters (``strategies.preemption_cluster_objects``), then
    the decision-level properties on scheduling runs of the same draws."""
    from schedspec.checker.strategies import preemption_cluster_objects

    return _campaign_and_properties(preemption_cluster_objects(), examples, seed)


def scoring_killer(examples: int, seed: int) -> list[str]:
    """The campaign over scoring clusters (``strategies.scoring_cluster_objects``: most pending
    pods feasible on several nodes, so every Score plugin ranks them), then the decision-level
    properties on scheduling runs of the same draws."""
    from schedspec.checker.strategies import scoring_cluster_objects

    return _campaign_and_properties(scoring_cluster_objects(), examples, seed)


def _campaign_and_properties(strategy: Any, examples: int, seed: int) -> list[str]:
    from schedspec.checker.campaign import run_campaign

    result = run_campaign(examples, seed, checker=_checker(), shrink=False, strategy=strategy)
    return _problems(result) + _properties_over(strategy, examples, seed)


def _properties_over(strategy: Any, examples: int, seed: int) -> list[str]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    problems: list[str] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(strategy)
    def judge(objects: list[dict[str, Any]]) -> None:
        problems.extend(_properties_problems(objects, seed))

    judge()
    return problems


PYTEST_TARGETS = ("tests/impl/plugins", "tests/impl/preemption")


def pytest_killer(examples: int, seed: int) -> list[str]:
    """Stand-in: the impl unit tests of plugins and preemption, in-process (arguments unused)."""
    import pytest

    import schedspec.impl

    root = _module_file(schedspec.impl).parent.parent
    targets = [str(root / t) for t in PYTEST_TARGETS]
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main([*targets, "-q", "-x", "-p", "no:cacheprovider", "-o", "addopts="])
    return [] if code == 0 else [f"pytest exit {int(code)}"]


def queue_trace_killer(examples: int, seed: int) -> list[str]:
    """Trace validation of impl's queue against queue.tla with the hints of hints.tla pinned
    (``checker/queue_trace.py``): ``examples`` simulated clusters, ``examples`` runs made for
    the hints (``checker/queue_hint_runs.py``) and ``examples`` stateful machine runs of 20
    rules; every run with an unexplained step is a problem."""
    from schedspec.checker.queue_hint_runs import run_hints
    from schedspec.checker.queue_trace_campaign import machine_campaign, run_simulate

    problems = []
    for name, c in (
        ("simulate", run_simulate(examples, seed)),
        ("hints", run_hints(examples, seed)),
        ("machine", machine_campaign(examples, 20, seed)),
    ):
        for run, report in c.unexplained:
            first = report.unexplained[0].render().splitlines()[0]
            problems.append(f"{name}: unexplained {first} in {run[:200]}")
    return problems


_BUILTIN_KILLERS: dict[str, Killer] = {
    "campaign": campaign_killer,
    "corpus": corpus_killer,
    "preemption": preemption_killer,
    "properties": properties_killer,
    "pytest": pytest_killer,
    "queue-trace": queue_trace_killer,
    "scoring": scoring_killer,
}


def load_killer(spec: str) -> Killer:
    """A built-in killer (``campaign``, ``corpus``, ``preemption``, ``properties``, ``pytest``,
    ``scoring``) or ``module:function``, optionally ``@N``: always ``N`` examples for that
    killer (``properties@10`` beside a longer campaign)."""
    name, at, count = spec.partition("@")
    if at:
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"killer={spec!r}: the count after @ must be a positive integer")
        inner = load_killer(name)
        return lambda examples, seed: inner(int(count), seed)
    if spec in _BUILTIN_KILLERS:
        return _BUILTIN_KILLERS[spec]
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(
            f"killer={spec!r}: expected {', '.join(_BUILTIN_KILLERS)} or module:function"
        )
    killer = getattr(importlib.import_module(module_name), attr)
    if not callable(killer):
        raise ValueError(f"killer={spec!r}: {attr} is not callable")
    return lambda examples, seed: _problems(killer(examples=examples, seed=seed))


@dataclass
class KillerChain:
    """Killers run in order, each judged against its own unmutated baseline.

    ``warm_up`` runs every killer in the (unmutated) parent: it records the baseline problems and
    leaves imports, the loaded spec and the strategies warm for the forked children. A call
    returns ``["<name>: <first new problem>"]`` for the first killer whose problems differ from its
    baseline (a killer that raises differs), or ``[]``."""

    killers: Sequence[tuple[str, Killer]]
    baselines: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def warm_up(self, examples: int, seed: int) -> dict[str, float]:
        """Seconds each killer took on the unmutated code; raises if one of them raises."""
        seconds = {}
        for name, killer in self.killers:
            start = time.perf_counter()
            self.baselines[name] = sorted(killer(examples, seed))
            seconds[name] = time.perf_counter() - start
        return seconds

    def __call__(self, examples: int, seed: int) -> list[str]:
        for name, killer in self.killers:
            try:
                problems = sorted(killer(examples, seed))
            except Exception as exc:  # the mutant broke the code under test
                return [f"{name}: raised {type(exc).__name__}: {exc}"]
            baseline = self.baselines.get(name, [])
            if problems != baseline:
                new = [p for p in problems if p not in baseline]
                return [f"{name}: {new[0]}" if new else f"{name}: a baseline problem went away"]
        return []


def _child(mutant: Mutant | None, body: Callable[[], object], quiet: bool, write_fd: int) -> None:
    """Runs in the forked child: never returns."""
    status = 0
    try:
        if quiet:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
        try:
            if mutant is not None:
                apply_mutant(mutant)
        except Exception:
            payload: dict[str, object] = {"applied": False, "error": traceback.format_exc(limit=3)}
        else:
            try:
                payload = {"applied": True, "value": body()}
            except BaseException as exc:  # the mutant broke the code under test
                payload = {"applied": True, "raised": f"{type(exc).__name__}: {exc}"[:500]}
        data = json.dumps(payload, default=repr).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view) :]
    except BaseException:
        status = 1
    finally:
        os._exit(status)


@dataclass
class _Running:
    pid: int
    fd: int
    started: float
    buffer: bytearray


def _start(mutant: Mutant | None, body: Callable[[], object], quiet: bool) -> _Running:
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(mutant, body, quiet, write_fd)
    os.close(write_fd)
    return _Running(pid, read_fd, time.monotonic(), bytearray())


def _finish(run: _Running, timed_out: bool) -> dict[str, Any]:
    if timed_out:
        os.kill(run.pid, signal.SIGKILL)
    os.close(run.fd)
    _, status = os.waitpid(run.pid, 0)
    if timed_out:
        return {"timeout": True}
    if not run.buffer:
        return {"applied": True, "raised": f"child died (wait status {status})"}
    result: dict[str, Any] = json.loads(bytes(run.buffer))
    return result


def _pool(
    jobs: Sequence[tuple[Mutant | None, Callable[[], object]]],
    *,
    timeout: float,
    parallel: int,
    quiet: bool,
) -> Iterator[tuple[Mutant | None, dict[str, Any], float]]:
    """Run each (mutant, body) in its own forked child, ``parallel`` at a time."""
    pending = list(jobs)[::-1]
    running: dict[int, tuple[Mutant | None, _Running]] = {}
    selector = selectors.DefaultSelector()
    try:
        while pending or running:
            while pending and len(running) < parallel:
                mutant, body = pending.pop()
                run = _start(mutant, body, quiet)
                running[run.fd] = (mutant, run)
                selector.register(run.fd, selectors.EVENT_READ)
            now = time.monotonic()
            wait = min(run.started + timeout for _, run in running.values()) - now
            for key, _ in selector.select(max(wait, 0.0)):
                mutant, run = running[int(key.fd)]
                chunk = os.read(run.fd, 1 << 16)
                if chunk:
                    run.buffer.extend(chunk)
                    continue
                selector.unregister(run.fd)
                del running[run.fd]
                yield mutant, _finish(run, False), time.monotonic() - run.started
            now = time.monotonic()
            for fd, (mutant, run) in list(running.items()):
                if now - run.started >= timeout:
                    selector.unregister(fd)
                    del running[fd]
                    yield mutant, _finish(run, True), now - run.started
    finally:
        for _, run in running.values():
            _finish(run, True)
        selector.close()


def run_in_child(
    mutant: Mutant | None, body: Callable[[], object], timeout: float = 60.0
) -> object:
    """``body()``'s (JSON-able) value with ``mutant`` applied (None: a control run, unmutated),
    computed in a forked child; raises what went wrong there as RuntimeError/TimeoutError."""
    name = mutant.id if mutant is not None else "control"
    for _, result, _ in _pool([(mutant, body)], timeout=timeout, parallel=1, quiet=False):
        if result.get("timeout"):
            raise TimeoutError(f"{name}: still running after {timeout}s")
        if not result.get("applied"):
            raise RuntimeError(f"{name} did not apply:\n{result.get('error')}")
        if "raised" in result:
            raise RuntimeError(f"{name}: {result['raised']}")
        return result["value"]
    raise AssertionError("unreachable")


def _outcome(mutant: Mutant, result: dict[str, Any], seconds: float) -> Outcome:
    if result.get("timeout"):
        return Outcome(mutant, "timeout", "", seconds)
    if not result.get("applied"):
        return Outcome(mutant, "error", str(result.get("error", "")), seconds)
    if "raised" in result:
        return Outcome(mutant, "killed", f"raised {result['raised']}", seconds)
    problems = result["value"]
    if problems:
        return Outcome(mutant, "killed", str(problems[0]).splitlines()[0][:300], seconds)
    return Outcome(mutant, "survived", "", seconds)


def run_mutants(
    mutants: Sequence[Mutant],
    killer: Killer,
    *,
    examples: int,
    seed: int,
    timeout: float,
    parallel: int = 1,
    quiet: bool = True,
) -> Iterator[Outcome]:
    """Each mutant's outcome under ``killer`` (run in forked children), in completion order.

    The mutant is killed when ``killer`` reports a problem; wrap killers whose unmutated run is not
    clean in a :class:`KillerChain`, which reports only differences from the baseline."""
    jobs: list[tuple[Mutant | None, Callable[[], object]]] = [
        (m, lambda: killer(examples, seed)) for m in mutants
    ]
    for mutant, result, seconds in _pool(jobs, timeout=timeout, parallel=parallel, quiet=quiet):
        assert mutant is not None
        yield _outcome(mutant, result, seconds)


def run_mutant(
    mutant: Mutant, killer: Killer, *, examples: int, seed: int, timeout: float
) -> Outcome:
    """One mutant's outcome (see :func:`run_mutants`)."""
    return next(run_mutants([mutant], killer, examples=examples, seed=seed, timeout=timeout))
