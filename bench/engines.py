"""Dask against Ray for crosscheck's shards, measured in one run on this machine.

    python3 bench/engines.py [--tasks 1000] [--workers 2]

For each engine installed: the time to import it and start a local cluster of ``--workers``
worker processes, the cost of ``--tasks`` empty tasks (the per-task overhead a shard pays), and
the time to finish four tasks when the first one's worker process dies (the engine must re-run
it elsewhere: a shard lost with its worker). The two are measured in the same run, one after
the other, each on a fresh cluster, so they see the same machine load (printed before and after).
Ray is optional (``pip install ray``); without it only Dask's rows print.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any


def _echo(x: int) -> int:
    return x


def _die_once(x: int, marker: str) -> int:
    if x == 0 and not os.path.exists(marker):
        Path(marker).touch()
        os._exit(1)  # the worker process dies mid-task
    return x


def dask_rows(tasks: int, workers: int, marker: str) -> dict[str, float]:
    start = time.perf_counter()
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster, \
            Client(cluster) as client:  # fmt: skip
        rows = {"start (s)": time.perf_counter() - start}
        client.gather(client.map(_echo, range(10), pure=False))
        t = time.perf_counter()
        client.gather(client.map(_echo, range(tasks), pure=False))
        rows["per task (ms)"] = (time.perf_counter() - t) * 1000 / tasks
        t = time.perf_counter()
        client.gather(client.map(_die_once, range(4), [marker] * 4, pure=False))
        rows["4 tasks, a worker dies (s)"] = time.perf_counter() - t
    return rows


def ray_rows(tasks: int, workers: int, marker: str) -> dict[str, float]:
    start = time.perf_counter()
    import ray

    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        echo = ray.remote(num_cpus=1)(_echo)
        die = ray.remote(num_cpus=1)(_die_once)
        rows = {"start (s)": time.perf_counter() - start}
        ray.get([echo.remote(i) for i in range(10)])
        t = time.perf_counter()
        ray.get([echo.remote(i) for i in range(tasks)])
        rows["per task (ms)"] = (time.perf_counter() - t) * 1000 / tasks
        t = time.perf_counter()
        ray.get([die.remote(i, marker) for i in range(4)])
        rows["4 tasks, a worker dies (s)"] = time.perf_counter() - t
    finally:
        ray.shutdown()
    return rows


def _size(module: str) -> str:
    import importlib

    root = Path(importlib.import_module(module).__file__ or ".").parent
    return f"{sum(p.stat().st_size for p in root.rglob('*') if p.is_file()) / 1e6:.0f} MB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    print(f"load before: {Path('/proc/loadavg').read_text().strip()}")
    engines: dict[str, Any] = {"dask": dask_rows}
    try:
        import ray  # noqa: F401

        engines["ray"] = ray_rows
    except ImportError:
        print("ray: not installed, its rows are left out")
    for name, rows in engines.items():
        with tempfile.TemporaryDirectory() as tmp:
            figures = rows(args.tasks, args.workers, str(Path(tmp) / "died"))
        installed = _size("distributed") + " + " + _size("dask") if name == "dask" else _size(name)
        print(f"{name}: " + ", ".join(f"{k} {v:.2f}" for k, v in figures.items())
              + f", installed {installed}")  # fmt: skip
    print(f"load after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
