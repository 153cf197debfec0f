"""Campaigns in seed shards (checker/shards.py): the same clusters whatever runs them — one
process, a local pool, a Dask cluster, a Dask cluster that loses a worker mid-shard."""

from __future__ import annotations

import io
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from schedspec.checker.campaign import CampaignResult, run_campaign, run_parallel
from schedspec.checker.shards import Shard, plan
from schedspec.cli import main

SIZES: dict[str, Any] = {"nodes": (1, 3), "pods": (1, 4), "shrink": False}


def totals(r: CampaignResult) -> tuple[Any, ...]:
    """What a report prints: counts per predicate, per pair, every disagreement's verdicts."""
    a = r.totals.agreement
    return (r.examples, r.corpus, r.checked, a.compared, a.agreed, r.totals.outcomes,
            sorted(d.describe() for d in r.disagreements), r.failing_examples)  # fmt: skip


def test_the_plan_depends_on_the_campaign_and_shard_size_only() -> None:
    shards = plan(25, seed=7, shard_size=10)
    # three shards of 9, 8, 8 clusters, shard k under seed 7 * 3 + k
    assert [(s.id, s.examples, s.seed) for s in shards] == [(0, 9, 21), (1, 8, 22), (2, 8, 23)]
    assert plan(10, seed=7, shard_size=10) == [Shard(0, 10, 7)]  # one shard: the seed itself
    with pytest.raises(ValueError, match="shard_size=0"):
        plan(10, seed=7, shard_size=0)


def test_one_shard_is_the_campaign_under_the_seed_whatever_the_jobs() -> None:
    alone = run_campaign(12, 4, **SIZES)
    for jobs in (1, 2):
        assert totals(run_parallel(12, 4, jobs=jobs, shard_size=20, **SIZES)) == totals(alone)


def test_one_job_and_two_jobs_check_the_same_shards() -> None:
    one = run_parallel(30, 5, jobs=1, shard_size=10, **SIZES)
    two = run_parallel(30, 5, jobs=2, shard_size=10, **SIZES)
    parts = [run_campaign(10, 15 + k, **SIZES) for k in range(3)]
    assert one.shards == two.shards == 3 and one.examples == 30
    assert totals(one) == totals(two)
    assert one.checked == sum((p.checked for p in parts), Counter())


def test_progress_counts_every_cluster_and_the_failing_ones() -> None:
    seen: list[tuple[int, int, int]] = []
    found: list[tuple[str, int]] = []
    result = run_parallel(
        16, 2, "textbook", jobs=1, shard_size=8, progress=lambda *a: seen.append(a),
        found=lambda c, shard: found.append((c.predicate, shard)), **SIZES,
    )  # fmt: skip
    assert seen[-1] == (16, 16, result.failing_clusters) and result.failing_clusters > 0
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen)
    # each rule announced once, as its first shard finished
    assert sorted(p for p, _ in found) == sorted(c.predicate for c in result.counterexamples)


def test_the_bar_is_drawn_on_a_terminal_and_nowhere_else(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["crosscheck", "--examples", "6", "--nodes", "1:2", "--accept-vacuous", "all"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "clusters/s" not in err and "ETA" not in err  # captured stderr is no terminal

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "160")
    assert main(argv) == 0
    assert "crosscheck" in terminal.getvalue() and "clusters/s" in terminal.getvalue()
    assert "6/6" in terminal.getvalue() and "0 differ" in terminal.getvalue()
    terminal.truncate(0)
    assert main([*argv, "--json"]) == 0
    assert "clusters/s" not in terminal.getvalue()  # never with --json


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scheduler-address", "tcp://127.0.0.1:8786"], "needs --engine dask"),
        (["--shard-size", "0"], "--shard-size must be at least 1"),
    ],
    ids=["address-without-dask", "shard-size"],
)
def test_engine_flags_are_checked(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["crosscheck", *argv]) == 2
    assert message in capsys.readouterr().err


# --- Dask: a LocalCluster of two worker processes on loopback -------------------------------


@pytest.fixture(scope="module")
def dask_client() -> Any:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:  # fmt: skip
        yield client


def test_dask_checks_the_same_clusters_as_local_jobs(dask_client: Any) -> None:
    address = dask_client.scheduler.address
    local = run_parallel(40, 9, jobs=2, shard_size=10, **SIZES)
    dask = run_parallel(40, 9, engine="dask", address=address, shard_size=10, **SIZES)
    assert dask.engine == "dask" and dask.shards == 4
    assert totals(dask) == totals(local) == totals(run_parallel(40, 9, shard_size=10, **SIZES))


def _die_mid_shard(marker: str) -> None:
    """In a Dask worker: the next shard this process starts exits it after three clusters,
    unless another worker already died (the marker file)."""
    from schedspec.checker import shards

    real = shards.run_shard

    def run_shard(setup: Any, shard: Any, progress: Any = None) -> Any:
        def tick(done: int, total: int, failing: int) -> None:
            if done == 3 and not os.path.exists(marker):
                Path(marker).write_text(str(shard.id))
                os._exit(1)

        return real(setup, shard, tick)

    shards.run_shard = run_shard  # type: ignore[assignment]  # tasks name it: they find this one


def test_a_worker_that_dies_mid_shard_loses_nothing_and_counts_nothing_twice(
    dask_client: Any, tmp_path: Path
) -> None:
    marker = tmp_path / "died"
    address = dask_client.scheduler.address
    [first, *_] = sorted(dask_client.scheduler_info()["workers"])
    dask_client.run(_die_mid_shard, str(marker), workers=[first])
    dask = run_parallel(40, 9, engine="dask", address=address, shard_size=10, **SIZES)
    assert marker.exists()  # a worker died three clusters into a shard …
    # … and the totals are those of the campaign in one process, each shard counted once
    assert totals(dask) == totals(run_parallel(40, 9, shard_size=10, **SIZES))
    dask_client.wait_for_workers(2, timeout=60)  # the nanny restarts it


def test_an_unreachable_scheduler_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr("schedspec.checker.shards_dask.CONNECT_TIMEOUT", "1s")
    argv = ["crosscheck", "--engine", "dask", "--scheduler-address", "tcp://127.0.0.1:9"]
    assert main(argv) == 2
    assert "cannot reach a Dask scheduler" in capsys.readouterr().err


@pytest.mark.oracle  # a kube-scheduler per worker process (and one here): ≈ 5 s
def test_each_dask_worker_asks_its_own_real_scheduler(dask_client: Any) -> None:
    address = dask_client.scheduler.address
    dask = run_parallel(12, 4, engine="dask", address=address, shard_size=6, oracle=True, **SIZES)
    local = run_parallel(12, 4, shard_size=6, oracle=True, **SIZES)
    assert "impl↔real" in dask.totals.agreement.table()  # the real scheduler answered
    assert totals(dask) == totals(local)
