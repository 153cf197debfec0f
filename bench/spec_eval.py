"""Benchmark: spec load time and Filter pair-evaluations per second.

    python bench/spec_eval.py [--nodes 1000] [--pods 100] [--repeat 5]

Prints, for the bundled textbook spec:
- load = parse + check + compile of spec/kube/textbook.tla: the first load in the process
  (which also builds the LALR tables) and the median of later loads;
- Filter pair-evaluations per second over a generated NODES × PODS cluster (every pending pod
  × every node), with the verdict mix, because the seed's Filter errors at its first conjunct
  on every node (``False`` is unbound) and such a figure alone would flatter it;
- the same rate for each of Filter's conjuncts evaluated to completion on its own (errors
  included), which is the work a full explanation does;
- the same Filter rate for bench/textbook_repaired.tla, the textbook with its spelling defects
  repaired, where every conjunct runs to completion: the honest figure for the evaluator on the
  textbook's whole logic (nodes carry status.phase Running so FilterLifecycle passes; a fifth of
  the pods have required node affinity, a quarter tolerate the tainted tenth of the nodes; no
  inter-pod affinity).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from schedspec.cluster import Cluster, loads
from schedspec.spec.errors import EvalError
from schedspec.spec.kube.views import bind_arguments
from schedspec.spec.load import LoadedSpec, load_spec

ZONES = ("europe-west1-b", "europe-west1-c", "europe-west1-d")
TYPES = ("n2-standard-8", "n2-standard-16", "n2-highmem-8")


def _node(i: int, rng: random.Random) -> dict[str, Any]:
    name = f"node-{i:04d}"
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": ZONES[i % len(ZONES)],
                "node.kubernetes.io/instance-type": rng.choice(TYPES),
            },
        },
        "spec": {},
        "status": {
            "phase": "Running",
            "allocatable": {"cpu": "7910m", "memory": "29Gi", "pods": "110"},
        },
    }
    if i % 10 == 0:
        node["spec"]["taints"] = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
    return node


def _pod(i: int, rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "app",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {
                    "requests": {"cpu": f"{rng.choice((100, 250, 500))}m", "memory": "256Mi"}
                },
            }
        ]
    }
    if i % 3 == 0:
        spec["nodeSelector"] = {"topology.kubernetes.io/zone": rng.choice(ZONES)}
    if i % 5 == 0:
        term = {
            "key": "node.kubernetes.io/instance-type",
            "operator": "In",
            "values": list(TYPES[:2]),
        }
        required = {"nodeSelectorTerms": [{"matchExpressions": [term]}]}
        spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}
        }
    if i % 4 == 0:
        spec["tolerations"] = [
            {"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}
        ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"job-{i:04d}", "labels": {"app": "job"}},
        "spec": spec,
    }


def make_cluster(nodes: int, pods: int, seed: int = 7) -> Cluster:
    import yaml

    rng = random.Random(seed)
    docs = [_node(i, rng) for i in range(nodes)] + [_pod(i, rng) for i in range(pods)]
    return loads(yaml.safe_dump_all(docs), source="<generated>")


def bench_load(repeat: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    load_spec("textbook")
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        load_spec("textbook")
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times)


def bench_definition(
    spec: LoadedSpec, cluster: Cluster, name: str
) -> tuple[float, int, Counter[str]]:
    world = spec.view.build(cluster)
    program = spec.program.bind(world.constants)
    definition = program.definition(name)
    pairs = [
        bind_arguments(definition, world.pods[p], node, world)
        for p in world.pending
        for node in world.nodes.values()
    ]
    outcomes: Counter[str] = Counter()
    t0 = time.perf_counter()
    for args in pairs:
        try:
            outcomes[str(program.call(name, *args)).lower()] += 1
        except EvalError:
            outcomes["error"] += 1
    elapsed = time.perf_counter() - t0
    return len(pairs) / elapsed, len(pairs), outcomes


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    first, warm = bench_load(args.repeat)
    print(
        f"textbook.tla load (parse+check+compile): first {first * 1000:.1f} ms "
        f"(incl. LALR table build), then median {warm * 1000:.1f} ms   [target < 300 ms]"
    )

    t0 = time.perf_counter()
    cluster = make_cluster(args.nodes, args.pods)
    spec = load_spec("textbook")
    world = spec.view.build(cluster)
    elapsed = time.perf_counter() - t0
    print(
        f"cluster {args.nodes} nodes × {args.pods} pending pods: load+view {elapsed:.2f} s "
        f"({len(world.nodes)} nodes, {len(world.pending)} pending)"
    )

    rate, n, outcomes = bench_definition(spec, cluster, "Filter")
    mix = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    print(f"Filter: {rate:,.0f} pair-evaluations/s over {n:,} pairs ({mix})   [target ≥ 50,000/s]")
    conjuncts = (
        "FilterLifecycle",
        "Resources",
        "FilterNodeSelector",
        "FilterTaints",
        "FilterAffinity",
    )
    for name in (*conjuncts, "Viability"):
        rate, n, outcomes = bench_definition(spec, cluster, name)
        mix = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        print(f"  {name:<19} {rate:>10,.0f} evaluations/s ({mix})")
    repaired = load_spec(str(Path(__file__).with_name("textbook_repaired.tla")))
    rate, n, outcomes = bench_definition(repaired, cluster, "Filter")
    mix = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    print(f"Filter, textbook_repaired.tla (every conjunct runs): {rate:,.0f} pairs/s ({mix})")


if __name__ == "__main__":
    main()
