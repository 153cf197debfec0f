"""The real scheduler's queue recorded in virtual time (the oracle's ``recordQueue``).

On the same generated clusters (the ``simulate`` queue-trace campaign's: 1–2 nodes, 1–4 pods), in
the same run: wall time of a recorded ``schedule`` (fake clock, a roomy node at 40 s, 400 s idle:
every run goes past the 5-minute flush) and, as the baseline, of the plain ``schedule`` of the
same cluster (no virtual time: it stops once nothing can be popped at t = 0). Prints the virtual
seconds covered per wall second and the load average.

    python3 bench/queue_record.py [--clusters 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings

from schedspec.checker.oracle import Oracle, OracleRequestError, cluster_json
from schedspec.checker.queue_trace import _late_node
from schedspec.checker.strategies import cluster_objects
from schedspec.cluster import from_objects


def clusters(n: int) -> list[dict[str, Any]]:
    """The first ``n`` clusters the campaign's strategy draws (derandomized)."""
    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), derandomize=True)  # fmt: skip
    @given(objs=cluster_objects(max_nodes=2, max_pods=4, extras=False))
    def draw(objs: list[dict[str, Any]]) -> None:
        out.append(cluster_json(from_objects(objs)))

    draw()
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--clusters", type=int, default=100)
    args = p.parse_args()
    bodies = clusters(args.clusters)
    record = {"idle": 400, "later": [{"at": 40, "node": _late_node()}]}
    plain: list[float] = []
    recorded: list[float] = []
    virtual: list[float] = []
    with Oracle() as oracle:
        for body in bodies:
            try:
                started = time.perf_counter()
                oracle.schedule(body, ties=False)
                plain.append(time.perf_counter() - started)
                started = time.perf_counter()
                answer = oracle.schedule(body, ties=False, record_queue=record)
                recorded.append(time.perf_counter() - started)
                virtual.append(answer["queue"]["virtualSeconds"])
            except OracleRequestError:
                continue  # an object the real API would refuse
    n = len(recorded)
    print(f"{n} clusters (of {len(bodies)} drawn; the rest refused by the real API's validation)")
    print(f"recorded schedule: median {1000 * statistics.median(recorded):.1f} ms, "
          f"total {sum(recorded):.2f} s for {sum(virtual):.0f} virtual s "
          f"({sum(virtual) / sum(recorded):.0f} virtual s per wall s; "
          f"median {statistics.median(virtual):.0f} virtual s per run)")  # fmt: skip
    print(f"baseline, plain schedule of the same clusters: median "
          f"{1000 * statistics.median(plain):.1f} ms, total {sum(plain):.2f} s")  # fmt: skip
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
