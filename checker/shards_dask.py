"""The Dask engine of :mod:`.shards`: each shard one task on a Dask distributed scheduler.

Dask was chosen over Ray by a measurement on this machine (``bench/engines.py``; docs/checker.md,
"Distributed campaigns"): a two-worker cluster on loopback starts in 5–7 s against Ray's 13–19 s,
the packages are 23 MB against 235 MB, and both re-run a task whose worker died. Ray's lower
per-task cost (0.7–0.9 ms against 4–5 ms) is lost in a shard's seconds.

A task names the shard (``schedspec-<token>-shard-<id>``) and is impure: Dask never answers a
shard from another campaign's result. Workers must run the same schedspec (and Hypothesis) as
the client, or the same seeds draw other clusters: :func:`_check_workers` compares a digest
of the cluster strategies' sources and Hypothesis's version before any shard is handed out.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from schedspec.checker.shards import RESUBMITS, Done, Progress, Setup, Shard, run_shard
from schedspec.errors import UsageError

__all__ = ["run_on_dask"]

CONNECT_TIMEOUT = "20s"


def _client(address: str | None, jobs: int) -> contextlib.AbstractContextManager[Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError(
            "--engine dask needs Dask distributed: pip install 'schedspec[distributed]'"
        ) from None

    @contextlib.contextmanager
    def connected() -> Iterator[Any]:
        if address is None:  # a cluster of our own, on loopback, for this campaign only
            with LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                              host="127.0.0.1", dashboard_address=None) as cluster, \
                    Client(cluster) as client:  # fmt: skip
                yield client
            return
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as err:
            raise UsageError(f"--scheduler-address {address}: cannot reach a Dask scheduler "
                             f"({type(err).__name__}: {err})") from None  # fmt: skip
        with client:
            yield client

    return connected()


def _versions() -> tuple[str, str]:
    """A digest of the sources that decide which clusters a seed draws (the strategies and the
    sharding), and Hypothesis's version. Only those: the rest of a checkout may be edited while
    a campaign runs without changing its clusters."""
    import hashlib
    from pathlib import Path

    import hypothesis

    import schedspec.checker

    root = Path(schedspec.checker.__file__ or ".").parent
    digest = hashlib.sha256()
    for path in [root / "campaign.py", root / "shards.py", *sorted(root.glob("strategies/*.py"))]:
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12], hypothesis.__version__


def _check_workers(client: Any) -> None:
    """Refuse workers whose schedspec or Hypothesis differs from ours: they draw other clusters."""
    mine = _versions()
    theirs = client.run(_versions)
    if not theirs:
        raise UsageError("the Dask scheduler has no workers")
    for worker, found in sorted(theirs.items()):
        if tuple(found) != mine:
            raise UsageError(f"Dask worker {worker} runs cluster strategies {found[0]} with "
                             f"Hypothesis {found[1]}; this client {mine[0]} with {mine[1]}: the "
                             "same seeds would draw other clusters")  # fmt: skip


def run_on_dask(
    setup: Setup,
    shards: Sequence[Shard],
    done: Done,
    *,
    jobs: int,
    address: str | None,
    progress: Progress | None,
) -> None:
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    token = uuid.uuid4().hex[:8]
    total = sum(s.size for s in shards)
    finished = failing = 0
    with _client(address, jobs) as client:
        _check_workers(client)
        tries = dict.fromkeys((s.id for s in shards), 0)

        def submit(shard: Shard) -> Any:
            tries[shard.id] += 1
            key = f"schedspec-{token}-shard-{shard.id}-{tries[shard.id]}"
            return client.submit(run_shard, setup, shard, key=key, pure=False)

        futures = {submit(s): s for s in shards}
        queue = as_completed(list(futures), with_results=False)
        for future in queue:
            shard = futures.pop(future)
            try:
                result = future.result()
            except KilledWorker:  # the shard killed several workers: once more, then give up
                if tries[shard.id] > RESUBMITS:
                    raise
                again = submit(shard)
                futures[again] = shard
                queue.add(again)
                continue
            done(shard, result)
            finished += shard.size
            failing += result.failing_clusters
            if progress is not None:
                progress(finished, total, failing)
