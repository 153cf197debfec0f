"""How fast ``schedspec compare-config`` answers the configuration changes of issue 24.

Each change is a KubeSchedulerConfiguration B against the default profile A:
- a Score plugin disabled;
- a weight changed;
- MostAllocated against LeastAllocated;
- RequestedToCapacityRatio;
- an ``addedAffinity``;
- plugin order alone, whose answer must be ``unsat``.

The figure is the staged search (small clusters holding only what the differing plugins read,
then the full bounds). The target is 5 s per witness at the default bounds. The baseline,
measured in the same run, asks the full bounds at once (``staged=False``), with ``--timeout`` as
its limit. An ``unknown`` there means the solver ran out of time. Each time is the best of
``--repeat`` runs, since Z3's speed depends on what else runs on the machine.

    python3 bench/compare_config.py [--repeat 3] [--timeout 60] [--no-baseline]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from schedspec.spec.compare_config import ConfigAnswer, compare_configs

_KSC = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def _config(**profile: Any) -> dict[str, Any]:
    return {**_KSC, "profiles": [{"schedulerName": "default-scheduler", **profile}]}


def _fit(strategy: dict[str, Any]) -> dict[str, Any]:
    return _config(
        pluginConfig=[{"name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}}]
    )


ADDED = {
    "requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "node-pool", "operator": "In", "values": ["batch"]}]}
        ]
    }
}

CASES: list[tuple[str, dict[str, Any], str]] = [
    ("Score plugin disabled (BalancedAllocation)",
     _config(plugins={"score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}}),
     "sat"),
    ("weight changed (TaintToleration 3 → 1)",
     _config(plugins={"multiPoint": {"enabled": [{"name": "TaintToleration", "weight": 1}]}}),
     "sat"),
    ("MostAllocated vs LeastAllocated", _fit({"type": "MostAllocated"}), "sat"),
    ("RequestedToCapacityRatio (0→0, 100→10)",
     _fit({"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {
         "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}}), "sat"),
    ("addedAffinity (node-pool In [batch])",
     _config(pluginConfig=[{"name": "NodeAffinity", "args": {"addedAffinity": ADDED}}]), "sat"),
    ("spread defaults System → List, none",
     _config(pluginConfig=[{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]),
     "sat"),
    ("spread defaults → zone maxSkew 1 DoNotSchedule",
     _config(pluginConfig=[{"name": "PodTopologySpread", "args": {
         "defaultingType": "List", "defaultConstraints": [{
             "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
             "whenUnsatisfiable": "DoNotSchedule"}]}}]), "sat"),
    ("plugin order only",
     _config(plugins={"multiPoint": {"enabled": [
         {"name": "ImageLocality", "weight": 1}, {"name": "TaintToleration", "weight": 3}]},
         "filter": {"enabled": [{"name": "NodeResourcesFit"}, {"name": "TaintToleration"}]}}),
     "unsat"),
]  # fmt: skip


def _best(repeat: int, run: Any) -> tuple[float, ConfigAnswer]:
    best: tuple[float, ConfigAnswer] | None = None
    for _ in range(repeat):
        start = time.monotonic()
        answer = run()
        took = time.monotonic() - start
        if best is None or took < best[0]:
            best = (took, answer)
    assert best is not None
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    base = _config()
    print("compare-config against the default profile, default bounds (nodes=3, pods=3, …);")
    print(f"best of {args.repeat}; target 5 s per witness; baseline: the full bounds at once\n")
    print(f"{'change':44} {'want':6} {'staged':>16} {'baseline':>18}")
    for name, config, want in CASES:
        took, answer = _best(
            args.repeat, lambda c=config: compare_configs(base, c, timeout=args.timeout)
        )
        staged = f"{answer.result} {took:6.2f}s"
        line = f"{name:44} {want:6} {staged:>16}"
        if not args.no_baseline:
            took_b, answer_b = _best(
                1, lambda c=config: compare_configs(base, c, timeout=args.timeout, staged=False)
            )
            line += f" {answer_b.result + f' {took_b:6.2f}s':>18}"
        print(line + ("" if answer.result == want else "   ← not the expected answer"))


if __name__ == "__main__":
    main()
