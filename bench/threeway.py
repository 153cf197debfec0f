"""Three-way clusters per second in one process: spec ↔ impl ↔ the real kube-scheduler.

    python3 bench/threeway.py [--examples 500] [--nodes 10] [--pods 10] [--seed 0] [--repeat 2]

The same clusters (drawn once, 10 nodes × 10 pods by default), checked in the same run four ways:

- **spec ↔ impl only** — no oracle: the Python side's own rate, the ceiling of the others;
- **per pod, in turn (baseline)** — one ``score`` request per pending pod, each building its own
  scheduler in the bridge, and each cluster's requests sent only when the checker asks (how
  the three-way checker asked until the bridge took ``"pods"``);
- **one request per cluster, in turn** — ``score`` with every pending pod of the cluster, one
  scheduler answering them all (``oracle_answers.PodAnswers``), not sent ahead;
- **one request per cluster, sent ahead** — as the campaign runs it (``OneAhead``): a cluster's
  request goes out before the previous cluster is checked, so the Go child answers while Python
  checks.

Each three-way row's reports (every count, agreement and disagreement) must equal the
baseline's, or the bench says so and exits 1. Every row checks under the campaign's collector
settings (``campaign.young_collections``), as ``crosscheck`` checks. ``--repeat`` runs each row
that many times (a fresh checker and bridge each) and keeps the best, the machine being shared.
Last, the whole campaign as ``crosscheck --oracle kube`` runs it (drawing included) at the same
size: its rate once the bridge and the checker are up (what a long campaign runs at), and with
their start counted in.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from schedspec.checker.campaign import run_campaign, young_collections
from schedspec.checker.differential import Checker, ClusterCheck
from schedspec.checker.oracle import Oracle, cluster_json
from schedspec.checker.oracle_answers import OneAhead
from schedspec.checker.strategies import cluster_objects
from schedspec.cluster import Cluster, from_objects

Way = Callable[[list[Cluster]], tuple[list[ClusterCheck], float]]


class _PerPod:
    """The checker's answers as they were asked before: a ``score`` request per pod, sent when
    the checker needs it."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle
        self._json: tuple[Cluster, dict[str, Any]] | None = None

    def send(self, cluster: Cluster) -> None:
        pass

    def score(self, cluster: Cluster, pod: str) -> dict[str, Any]:
        if self._json is None or self._json[0] is not cluster:
            self._json = (cluster, cluster_json(cluster))
        return self.oracle.score(self._json[1], pod)

    def forget(self, cluster: Cluster) -> None:
        self._json = None


def _draw(examples: int, nodes: int, pods: int, seed: int) -> list[Cluster]:
    drawn: list[list[dict[str, Any]]] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(cluster_objects(min_nodes=nodes, max_nodes=nodes, min_pods=pods, max_pods=pods))
    def draw(objects: list[dict[str, Any]]) -> None:
        drawn.append(objects)

    draw()
    return [c for c in (from_objects(o) for o in drawn) if c is not None]


def _in_turn(checker: Checker, clusters: list[Cluster]) -> Iterator[ClusterCheck]:
    for c in clusters:
        yield checker.check(c)


def _ahead(checker: Checker, clusters: list[Cluster]) -> Iterator[ClusterCheck]:
    ahead: OneAhead[None] = OneAhead(checker)
    for c in clusters:
        for held, _ in ahead.push(c, None):
            yield checker.check(held)
    for held, _ in ahead.drain():
        yield checker.check(held)


def _timed(
    clusters: list[Cluster], oracle: bool, per_pod: bool, ahead: bool
) -> tuple[list[ClusterCheck], float]:
    bridge = Oracle() if oracle else None
    try:
        checker = Checker(oracle=bridge)
        if bridge is not None and per_pod:
            checker.answers = _PerPod(bridge)
        checker.check(clusters[0])  # warm: the bridge's first scheduler, the compiled spec
        with young_collections():  # as run_campaign checks
            start = time.perf_counter()
            out = list((_ahead if ahead else _in_turn)(checker, clusters))
            return out, time.perf_counter() - start
    finally:
        if bridge is not None:
            bridge.close()


def _report(check: ClusterCheck) -> tuple[Any, ...]:
    return (
        sorted(check.checked.items()),
        sorted(d.describe() + f" {d.declared}" for d in check.disagreements),
        sorted(check.outcomes.items()),
        sorted(check.agreement.compared.items()),
        sorted(check.agreement.agreed.items()),
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--examples", type=int, default=500)
    ap.add_argument("--nodes", type=int, default=10)
    ap.add_argument("--pods", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2, help="runs per row; the best is kept")
    args = ap.parse_args()

    clusters = _draw(args.examples, args.nodes, args.pods, args.seed)
    n = len(clusters)
    pending = sum(len(c.pending_pods()) for c in clusters) / n
    print(f"{n} clusters of {args.nodes} nodes × {args.pods} pods ({pending:.1f} pending each)")
    rows: list[tuple[str, bool, bool, bool]] = [
        ("spec ↔ impl only (no oracle)", False, False, False),
        ("three-way, per pod, in turn (baseline)", True, True, False),
        ("three-way, one request per cluster", True, False, False),
        ("three-way, per cluster, sent ahead", True, False, True),
    ]
    baseline: list[tuple[Any, ...]] | None = None
    rates: dict[str, float] = {}
    same = True
    for label, oracle, per_pod, ahead in rows:
        best = float("inf")
        for _ in range(args.repeat):
            out, seconds = _timed(clusters, oracle, per_pod, ahead)
            best = min(best, seconds)
            reports = [_report(c) for c in out]
            if oracle and baseline is None:
                baseline = reports
            elif oracle and reports != baseline:
                same = False
                print(f"  !! {label}: reports differ from the baseline's")
        rates[label] = n / best
        print(f"  {label:<42} {n / best:8.1f} clusters/s  ({best * 1000 / n:6.2f} ms each)")
    base = rates[rows[1][0]]
    for label, *_ in rows[2:]:
        print(f"  {label:<42} {rates[label] / base:8.2f}× the baseline")
    print(f"  reports identical to the baseline's: {'yes' if same else 'NO'}")

    start = time.perf_counter()
    with Oracle() as bridge:
        checker = Checker(oracle=bridge)
        ready = time.perf_counter()
        result = run_campaign(
            args.examples,
            args.seed,
            nodes=(args.nodes,) * 2,
            pods=(args.pods,) * 2,
            checker=checker,
            shrink=False,
        )
        end = time.perf_counter()
    print(
        f"  the campaign (crosscheck --oracle kube, drawing included): {result.examples}"
        f" clusters at {result.examples / (end - ready):.1f} clusters/s once started"
        f" (target ≥ 100 /s per process); {result.examples / (end - start):.1f} /s with the"
        f" bridge's start and the spec's loading ({ready - start:.2f} s) counted in"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
