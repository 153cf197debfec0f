"""The real kube-scheduler through the oracle bridge: request rate and scheduling throughput.

1. ``filter`` requests per second on a 100-node cluster (each request builds the scheduler, its
   informers and cache from the JSON cluster, then filters one pod on every node).
2. Pods per second of the real scheduler on a SchedulingBasic-like workload (bench/schedule.py's
   cluster generator: nodes 4 CPU / 32 GiB / 110 pods, pods 100m / 256 MiB) at 5000 nodes, measured
   in the same run as impl's ``simulate`` on the same cluster, and their ratio. The oracle's figure
   is its in-process loop time as seen from Python (request round trip, including JSON and cluster
   set-up), so it understates the real scheduler a little.

    python bench/oracle.py                  # 100-node filter rate; 5000 nodes, 1000 pods
    python bench/oracle.py --pods 500 --nodes 500
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from schedule import _cluster

from schedspec.checker.oracle import Oracle, cluster_json
from schedspec.impl.simulate import build, result_of


def filter_rate(oracle: Oracle, nodes: int, seconds: float) -> float:
    body = cluster_json(_cluster(nodes, 1, 200, False))
    oracle.filter(body, "default/pod-0")  # warm-up
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        oracle.filter(body, "default/pod-0")
        done += 1
    rate = done / (time.perf_counter() - start)
    print(f"oracle filter        nodes={nodes:<5} {done} requests {rate:8.1f} requests/s")
    return rate


def oracle_pods_per_second(oracle: Oracle, nodes: int, pods: int, init: int) -> float:
    body = cluster_json(_cluster(nodes, pods, init, False))
    start = time.perf_counter()
    answer = oracle.schedule(body, seed=0, ties=False)
    elapsed = time.perf_counter() - start
    bound = sum(1 for k in answer["bindings"] if not k.endswith("-init"))
    rate = bound / elapsed
    print(f"kube-scheduler v1.34 nodes={nodes:<5} pods={pods:<5} bound={bound:<5} "
          f"{elapsed:6.2f}s {rate:8.1f} pods/s")  # fmt: skip
    return rate


def impl_pods_per_second(nodes: int, pods: int, init: int) -> float:
    scheduler = build(_cluster(nodes, pods, init, False))
    while scheduler.loop.pending() and not scheduler.queue.pending():
        scheduler.loop.run_one()
    start = time.perf_counter()
    scheduler.run()
    elapsed = time.perf_counter() - start
    bound = sum(1 for k in result_of(scheduler).bindings if not k.endswith("-init"))
    rate = bound / elapsed
    print(f"impl (schedspec)     nodes={nodes:<5} pods={pods:<5} bound={bound:<5} "
          f"{elapsed:6.2f}s {rate:8.1f} pods/s")  # fmt: skip
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=5000, help="nodes of the throughput workload")
    parser.add_argument("--pods", type=int, default=1000, help="pods to schedule")
    parser.add_argument("--init-pods", type=int, default=1000, help="pods already bound")
    parser.add_argument("--filter-seconds", type=float, default=10.0, help="filter bench length")
    args = parser.parse_args()
    with Oracle() as oracle:
        filter_rate(oracle, 100, args.filter_seconds)
        real = oracle_pods_per_second(oracle, args.nodes, args.pods, args.init_pods)
    impl = impl_pods_per_second(args.nodes, args.pods, args.init_pods)
    print(f"ratio impl / kube-scheduler: {impl / real:.3f}")


if __name__ == "__main__":
    main()
