"""Benchmark: the real-rules spec (spec/kube/scheduler.tla) — load time and `explain` time.

    python bench/spec_explain.py [--nodes 1000] [--bound 5000] [--repeat 3]

Prints:
- load = parse + check + compile of scheduler.tla: the first load in the process (which also
  builds the LALR tables) and the median of later loads (issue target: < 0.3 s);
- explain for one pending pod on a NODES-node cluster with BOUND bound pods, where a third of the
  bound pods carry required pod anti-affinity (zone) and preferred pod affinity, and the pod
  explained has required affinity, required anti-affinity, a DoNotSchedule spread constraint and
  preferred terms: the view build, then the full explanation (every node judged, the scores of the
  feasible ones normalised, Best) — the figure the issue targets (< 2 s) — and, as a baseline in
  the same run, the same pod with no affinity or spread at all;
- the textbook spec's load time in the same run, for comparison.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import yaml

from schedspec.cluster import Cluster, loads
from schedspec.spec.kube.why import explain_pod
from schedspec.spec.load import load_spec

ZONES = ("europe-west1-b", "europe-west1-c", "europe-west1-d")
APPS = ("web", "api", "cache", "queue", "search")


def _node(i: int) -> dict[str, Any]:
    name = f"node-{i:04d}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": ZONES[i % 3]},
        },
        "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"}},
    }


def _term(app: str, key: str) -> dict[str, Any]:
    return {"topologyKey": key, "labelSelector": {"matchLabels": {"app": app}}}


def _bound(i: int, nodes: int, rng: random.Random) -> dict[str, Any]:
    app = APPS[i % len(APPS)]
    spec: dict[str, Any] = {
        "nodeName": f"node-{rng.randrange(nodes):04d}",
        "containers": [
            {"name": "c", "image": f"registry.example/{app}:1", "resources": {
                "requests": {"cpu": "100m", "memory": "128Mi"}}}
        ],
    }  # fmt: skip
    if i % 3 == 0:
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    _term(f"{app}-singleton", "topology.kubernetes.io/zone")
                ]
            },
            "podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 10, "podAffinityTerm": _term("cache", "kubernetes.io/hostname")}
                ]
            },
        }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{app}-{i:05d}", "namespace": "default", "labels": {"app": app}},
        "spec": spec,
        "status": {"phase": "Running"},
    }


def _pending(name: str, constrained: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {"name": "c", "image": "registry.example/web:1", "resources": {
                "requests": {"cpu": "500m", "memory": "512Mi"}}}
        ],
    }  # fmt: skip
    if constrained:
        spec["affinity"] = {
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    _term("api", "topology.kubernetes.io/zone")
                ],
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 50, "podAffinityTerm": _term("cache", "kubernetes.io/hostname")}
                ],
            },
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    _term("web", "kubernetes.io/hostname")
                ]
            },
        }
        spec["topologySpreadConstraints"] = [
            {"maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone",
             "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"}}}
        ]  # fmt: skip
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": spec,
    }


def make_cluster(nodes: int, bound: int, seed: int = 11) -> Cluster:
    rng = random.Random(seed)
    docs = [_node(i) for i in range(nodes)]
    docs += [_bound(i, nodes, rng) for i in range(bound)]
    docs += [_pending("new-web", True), _pending("plain", False)]
    return loads(yaml.safe_dump_all(docs), source="<generated>")


def _load_times(name: str, repeat: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    load_spec(name)
    first = time.perf_counter() - t0
    warm = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        load_spec(name)
        warm.append(time.perf_counter() - t0)
    return first, statistics.median(warm)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--bound", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    first, warm = _load_times("scheduler", args.repeat)
    print(f"load scheduler.tla: first {first * 1000:.0f} ms, warm median {warm * 1000:.0f} ms")
    tfirst, twarm = _load_times("textbook", args.repeat)
    print(f"load textbook.tla:  first {tfirst * 1000:.0f} ms, warm median {twarm * 1000:.0f} ms")

    t0 = time.perf_counter()
    cluster = make_cluster(args.nodes, args.bound)
    print(f"cluster: {args.nodes} nodes, {args.bound} bound pods "
          f"(generated and loaded in {time.perf_counter() - t0:.1f} s)")  # fmt: skip
    spec = load_spec("scheduler")
    for pod in ("default/plain", "default/new-web"):
        times, why = [], None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            why = explain_pod(spec, cluster, pod)
            times.append(time.perf_counter() - t0)
        assert why is not None
        median, low = statistics.median(times), min(times)
        print(f"explain {pod}: median {median:.2f} s, min {low:.2f} s — {why.message}")


if __name__ == "__main__":
    main()
