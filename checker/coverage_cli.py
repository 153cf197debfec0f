"""``schedspec coverage``: which rules of a spec a set of clusters really exercised.

    schedspec coverage examples/*.yaml [--spec scheduler] [--definition Feasible]… [--json]
    schedspec coverage --examples 200 [--seed S]          # clusters the checker's strategies draw

Every pending pod × node of each cluster is judged as the checker judges it (the node status,
``Feasible``, every ``*OK(p, n)``, the score on feasible nodes: ``checker.z3states.
campaign_coverage``), with a program instrumented to record the targets it reaches
(``spec/coverage.py``): every CASE arm, IF branch, ∧/∨ item both ways, boolean definition both
ways, integer comparison on and off its boundary. Printed: hit / targets per definition, the
total, and every target missed, with its source line. Exit 0, 1 when ``--fail-under P`` is given
and the total is below P percent, 2 on bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from typing import Any, TextIO

from schedspec.cluster import Cluster, from_objects, load
from schedspec.errors import ManifestError, UsageError

__all__ = ["add_parser", "run_coverage"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cv = sub.add_parser(
        "coverage", help="which CASE arms, branches and boundaries of a spec clusters exercised"
    )
    cv.add_argument("cluster", nargs="*", metavar="CLUSTER", help="manifest files (YAML/JSON)")
    cv.add_argument("--spec", default="scheduler", help="bundled spec name or .tla path")
    cv.add_argument("--examples", type=int, default=0, metavar="N",
                    help="also N clusters drawn by the checker's strategies")  # fmt: skip
    cv.add_argument("--seed", type=int, default=0, metavar="S", help="Hypothesis seed")
    cv.add_argument("--definition", action="append", metavar="NAME",
                    help="report only these definitions (repeatable)")  # fmt: skip
    cv.add_argument("--fail-under", type=float, metavar="P",
                    help="exit 1 when the total is below P percent")  # fmt: skip
    cv.add_argument("--json", action="store_true", help="machine-readable output")


def drawn(examples: int, seed: int) -> list[Cluster]:
    """``examples`` clusters of the checker's default strategy, reproducibly."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    from schedspec.checker.strategies import cluster_objects

    out: list[Cluster] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(cluster_objects())
    def collect(objects: list[dict[str, Any]]) -> None:
        with contextlib.suppress(ManifestError):  # a draw the loader refuses is not a cluster
            out.append(from_objects(objects))

    collect()
    return out


def run_coverage(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.checker.z3states import campaign_coverage
    from schedspec.spec.load import load_spec

    if args.examples < 0:
        raise UsageError("--examples must be at least 0")
    if not args.cluster and not args.examples:
        raise UsageError("give manifest files, --examples N, or both")
    spec = "scheduler" if args.spec == "kube" else args.spec
    loaded = load_spec(spec)
    names = {d.name for d in loaded.module.definitions}
    for name in args.definition or ():
        if name not in names:
            raise UsageError(f"--definition {name}: {loaded.file} has no such definition")
    clusters = [load(path) for path in args.cluster]
    if args.examples:
        clusters += drawn(args.examples, args.seed)
    cov = campaign_coverage(clusters, spec)
    only = args.definition
    if args.json:
        data = cov.as_json(only)
        data["clusters"] = len(clusters)
        json.dump(data, out, indent=2)
        out.write("\n")
    else:
        out.write(f"coverage of {loaded.file} on {len(clusters)} cluster(s)\n\n")
        out.write(cov.report(only) + "\n")
    if args.fail_under is not None and cov.percent(only) < args.fail_under:
        return 1
    return 0
