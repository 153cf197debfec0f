"""A campaign in shards, run by local processes or by a Dask cluster.

A campaign of ``examples`` clusters under ``seed`` is cut into ``K = ⌈examples / shard_size⌉``
shards before anything runs (:func:`plan`). Shard ``k`` draws its share of the clusters under
seed ``seed * K + k`` (and checks every ``K``-th corpus seed from the ``k``-th). The plan depends
on the campaign's arguments and the shard size only, never on how many workers there are or
which engine runs it: ``--jobs 1``, ``--jobs 2`` and a Dask cluster of any size check the same
clusters and report the same totals. A campaign of at most one shard is ``run_campaign(seed)``.

Engines (each calls ``done(shard, result)`` once per shard, as shards finish):

- **local** — ``jobs`` forked processes (:mod:`concurrent.futures`), or this process for one job;
- **dask** — the shards as tasks on a Dask scheduler (``--scheduler-address``), or on a
  LocalCluster of ``jobs`` worker processes on loopback when no address is given. A worker that
  dies mid-shard loses that shard only: Dask gives the task to another worker, and a task that
  has killed too many workers (``KilledWorker``) is submitted again, up to :data:`RESUBMITS`
  times. Results are kept by shard id, so a shard that somehow ran twice still counts once.

Each worker process builds one :class:`Checker` (and, with the oracle, starts one kube-scheduler)
for all the shards it runs, closed when the process exits.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from schedspec.checker.campaign import CampaignResult, Objects, _strategy, run_campaign
from schedspec.checker.corpus import Seed
from schedspec.checker.differential import Checker

__all__ = ["RESUBMITS", "SHARD_SIZE", "Setup", "Shard", "plan", "run_shard", "run_shards"]

SHARD_SIZE = 1000  # ≈ 5 s of one worker: a lost shard costs little; 100,000 clusters are 100
RESUBMITS = 3  # a shard whose task killed Dask's allowed number of workers is tried this often

Progress = Callable[[int, int, int], None]  # clusters done, total, clusters with a difference
Done = Callable[["Shard", CampaignResult], None]


@dataclass(frozen=True)
class Shard:
    """One shard of the plan: plain data, so it crosses a process or network boundary."""

    id: int
    examples: int
    seed: int
    corpus: tuple[Seed, ...] = ()

    @property
    def size(self) -> int:
        return self.examples + len(self.corpus)


@dataclass(frozen=True)
class Setup:
    """What every shard of a campaign shares (hashable: a worker keeps one Checker per Setup)."""

    spec: str
    nodes: tuple[int, int]
    pods: tuple[int, int]
    shrink: bool
    oracle: bool
    textbook: str
    strategy: str = "default"


def plan(
    examples: int, seed: int, corpus: Sequence[Seed] = (), shard_size: int = SHARD_SIZE
) -> list[Shard]:
    """The campaign's shards; see the module docstring. Shards with nothing to do are dropped."""
    corpus = tuple(corpus)
    if shard_size < 1:
        raise ValueError(f"shard_size={shard_size!r} must be at least 1")
    count = max(1, math.ceil(examples / shard_size))
    shards = [
        Shard(k, examples // count + (k < examples % count), seed * count + k, corpus[k::count])
        for k in range(count)
    ]
    return [s for s in shards if s.size]


class _Worker:
    """A Checker and a strategy for one Setup, reused by every shard a process runs."""

    def __init__(self, setup: Setup, stack: contextlib.ExitStack) -> None:
        checker = None
        if setup.oracle:
            from schedspec.checker.oracle import Oracle

            oracle = stack.enter_context(Oracle())
            checker = Checker(setup.spec, oracle=oracle, textbook=setup.textbook)
        self.setup = setup
        self.checker = checker or Checker(setup.spec)
        self.strategy: st.SearchStrategy[Objects] = _strategy(
            setup.nodes, setup.pods, setup.strategy, setup.spec
        )

    def run(self, shard: Shard, progress: Progress | None) -> CampaignResult:
        s = self.setup
        return run_campaign(
            shard.examples,
            shard.seed,
            s.spec,
            nodes=s.nodes,
            pods=s.pods,
            strategy=self.strategy,
            checker=self.checker,
            progress=progress,
            shrink=s.shrink,
            corpus=shard.corpus,
        )


# In a worker process: its workers by Setup, closed (oracles ended) when the process exits.
_WORKERS: dict[Setup, _Worker] = {}
_STACK = contextlib.ExitStack()
_LOCK = threading.Lock()  # a Dask worker with several threads still runs one shard at a time


def _process_worker(setup: Setup) -> _Worker:
    if not _WORKERS:
        import atexit
        from multiprocessing import util

        # forked pool workers skip atexit but run multiprocessing's finalizers; others, atexit
        util.Finalize(None, _STACK.close, exitpriority=10)
        atexit.register(_STACK.close)
    if setup not in _WORKERS:
        _WORKERS[setup] = _Worker(setup, _STACK)
    return _WORKERS[setup]


def run_shard(setup: Setup, shard: Shard, progress: Progress | None = None) -> CampaignResult:
    """Run one shard in this (worker) process: the task every engine hands out."""
    with _LOCK:
        return _process_worker(setup).run(shard, progress)


def run_shards(
    setup: Setup,
    shards: Sequence[Shard],
    done: Done,
    *,
    engine: str = "local",
    jobs: int = 1,
    address: str | None = None,
    progress: Progress | None = None,
) -> None:
    """Run every shard on ``engine``, calling ``done`` once per shard id as each finishes."""
    seen: set[int] = set()

    def once(shard: Shard, result: CampaignResult) -> None:
        if shard.id not in seen:  # a shard re-run after its worker died counts once
            seen.add(shard.id)
            done(shard, result)

    if engine == "dask":
        from schedspec.checker.shards_dask import run_on_dask

        run_on_dask(setup, shards, once, jobs=jobs, address=address, progress=progress)
    elif jobs == 1 or len(shards) == 1:
        _run_here(setup, shards, once, progress)
    else:
        _run_pool(setup, shards, once, jobs, progress)


def _run_here(setup: Setup, shards: Sequence[Shard], done: Done, progress: Progress | None) -> None:
    total = sum(s.size for s in shards)
    before = [0, 0]  # clusters and failing clusters of the shards already finished

    def tick(n: int, _total: int, failing: int) -> None:
        if progress is not None:
            progress(before[0] + n, total, before[1] + failing)

    with contextlib.ExitStack() as stack:
        worker = _Worker(setup, stack)
        for shard in shards:
            result = worker.run(shard, tick)
            before[0] += shard.size
            before[1] += result.failing_clusters
            done(shard, result)


_COUNTS: Any = None  # in a pool worker: shared [clusters done, clusters with a difference]
_FAILING = 0  # in a pool worker: clusters with a difference in the shard it is running


def _share_counts(counts: Any) -> None:
    global _COUNTS
    _COUNTS = counts


def _pool_tick(done: int, total: int, failing: int) -> None:
    global _FAILING
    with _COUNTS.get_lock():  # run_campaign reports totals within its shard: add the increments
        _COUNTS[0] += 1
        _COUNTS[1] += failing - _FAILING
    _FAILING = failing


def _pool_shard(setup: Setup, shard: Shard) -> CampaignResult:
    global _FAILING
    _FAILING = 0
    return run_shard(setup, shard, _pool_tick)


def _run_pool(
    setup: Setup, shards: Sequence[Shard], done: Done, jobs: int, progress: Progress | None
) -> None:
    import concurrent.futures as cf
    import multiprocessing

    context = multiprocessing.get_context("fork")
    counts = context.Array("i", 2)
    total = sum(s.size for s in shards)
    with cf.ProcessPoolExecutor(
        min(jobs, len(shards)), mp_context=context,
        initializer=_share_counts, initargs=(counts,),
    ) as pool:  # fmt: skip
        futures = {pool.submit(_pool_shard, setup, s): s for s in shards}
        pending = set(futures)
        while pending:
            finished, pending = cf.wait(pending, timeout=0.25, return_when=cf.FIRST_COMPLETED)
            for f in sorted(finished, key=lambda f: futures[f].id):
                done(futures[f], f.result())  # a worker's exception is raised here
            if progress is not None:
                progress(counts[0], total, counts[1])
