"""How long the test control plane takes: building its binaries, and starting it warm.

Builds whatever ``schedspec.checker.live_cluster.ensure_binaries`` lacks (timed per binary; a
first build on a machine whose Go build cache is empty compiles kube-apiserver's whole tree), then
starts etcd + kube-apiserver ``--repeat`` times (each to ``/readyz``), the real kube-scheduler
once per start (to ``/healthz``), and lists nodes through ``schedspec snapshot``'s reader.

    python3 bench/live_start.py                   # 5 warm starts
    XDG_CACHE_HOME=$(mktemp -d) python3 bench/live_start.py --repeat 1   # rebuild the binaries
"""

from __future__ import annotations

import argparse
import statistics
import time

from schedspec.checker.live_cluster import LiveCluster, ensure_binaries
from schedspec.live import Source, read_objects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm starts (default 5)")
    args = parser.parse_args()
    started = time.monotonic()
    where = ensure_binaries(log=lambda line: print(f"  {line}", flush=True))
    print(f"binaries ready in {time.monotonic() - started:.1f} s ({where})")
    runs: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        with LiveCluster() as live:
            live.start_scheduler()
            step = time.monotonic()
            read_objects(Source(str(live.kubeconfig())))
            live.timings["snapshot"] = time.monotonic() - step
            for name, seconds in live.timings.items():
                runs.setdefault(name, []).append(seconds)
    for name in ("etcd", "apiserver", "start", "scheduler", "snapshot"):
        values = runs[name]
        print(f"{name:>10}: median {statistics.median(values):.2f} s, max {max(values):.2f} s")


if __name__ == "__main__":
    main()
