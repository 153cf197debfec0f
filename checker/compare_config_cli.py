"""``schedspec compare-config A.yaml B.yaml``: is my scheduler configuration change safe?

Without ``--cluster``, Z3 looks for a bounded cluster on which the two KubeSchedulerConfigurations
decide differently (:mod:`schedspec.spec.compare_config`); its witness is replayed under both on
the spec's executable backend and on impl (one scheduling cycle of the pod, as
``Framework.run_*`` runs it), and the plugin and weight that made the difference are named from
``explain``'s per-plugin scores. With ``--cluster``, the user's own cluster is asked as it is: its
pending pods, on its nodes, under each configuration (nothing is added; say so).

Exit codes as ``schedspec diff``: 0 no difference (within the bounds), 1 a difference, 3 the
solver gave up (never read as "no difference"), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from typing import Any, TextIO

import yaml

from schedspec.cluster import Cluster, load, loads, object_key
from schedspec.errors import ManifestError, UsageError

__all__ = ["add_parser", "run_compare_config"]

_EXIT = {"unsat": 0, "sat": 1, "unknown": 3}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from schedspec.spec.kube.symbolic.bounds import bounds_flags

    cc = sub.add_parser(
        "compare-config",
        help="a cluster on which two KubeSchedulerConfigurations decide differently",
    )
    cc.add_argument("config_a", metavar="A.yaml", help="a KubeSchedulerConfiguration file")
    cc.add_argument("config_b", metavar="B.yaml", help="a KubeSchedulerConfiguration file")
    cc.add_argument(
        "--cluster",
        nargs="+",
        metavar="C",
        help="ask about this cluster's pending pods, as it is, instead of Z3's",
    )
    cc.add_argument("--minimize", action="store_true", help="the smallest witness")
    cc.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds (default 60)")
    cc.add_argument("--out", metavar="DIR", help="write the witness under each configuration")
    cc.add_argument("--json", action="store_true", help="machine-readable output")
    bounds_flags(cc)


def _config(path: str) -> dict[str, Any]:
    """The file's KubeSchedulerConfiguration, validated by impl and by the spec's reader."""
    from schedspec.impl.errors import ConfigError
    from schedspec.impl.framework.config import parse_config
    from schedspec.spec.kube.profiles import profiles
    from schedspec.spec.kube.scheduler_view import node_affinity_record

    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    cluster = load(path)
    if cluster.scheduler_config is None:
        raise UsageError(f"{path}: no KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)")
    config = dict(cluster.scheduler_config)
    try:
        _frameworks(config)
        parse_config(config)
    except ConfigError as err:
        raise ManifestError(str(err), where=path, obj="KubeSchedulerConfiguration") from None
    try:
        profiles(config, node_affinity_record)
    except ManifestError as err:
        raise ManifestError(err.message, where=path, obj=err.obj, path=err.path) from None
    return config


def _frameworks(config: Mapping[str, Any]) -> None:
    """Build impl's frameworks (unknown plugins, plugins at points they do not extend)."""
    from schedspec.impl.simulate import build

    build(Cluster(nodes=(), pods=(), pdbs=(), priority_classes=(), namespaces=(),
                  scheduler_config=dict(config), warnings=(), others=(), origins={}))  # fmt: skip


def _with(objects: list[dict[str, Any]], config: Mapping[str, Any]) -> Cluster:
    return loads(yaml.safe_dump_all([*objects, dict(config)]), source="<witness>")


def _impl_decision(cluster: Cluster, pod: str) -> dict[str, Any]:
    """One scheduling cycle of ``pod`` on impl: feasible nodes and the best ones."""
    from schedspec.checker.differential import ImplState, _best, _guard_run, _Raised

    state = ImplState(cluster)
    p = state.pending[pod]
    fwk = state.framework(p)
    if fwk is None:
        return {"feasible": [], "best": [], "note": "no profile schedules this pod"}
    run = _guard_run(fwk, state, p)
    if isinstance(run, _Raised):
        return {"feasible": [], "best": [], "note": f"impl raised {run}"}
    names = [ni.name for ni in run.feasible]
    best = _best(run, names)
    assert isinstance(best, frozenset)
    return {"feasible": sorted(names), "best": sorted(best)}


def _whys(pod: str, *clusters: Cluster) -> list[Any]:
    """``explain`` of ``pod`` on each cluster, scheduler.tla parsed once."""
    from schedspec.spec.kube.why import explain_pod
    from schedspec.spec.load import load_spec

    spec = load_spec("scheduler")
    return [explain_pod(spec, cluster, pod) for cluster in clusters]


def _difference(kind: str, node: str, wa: Any, wb: Any) -> list[str]:
    """Which plugin and weight made the difference, from explain's per-node breakdown."""
    by_a = {n.node: n for n in wa.nodes}
    by_b = {n.node: n for n in wb.nodes}
    lines = []
    if kind == "feasible":
        for label, why in (("A", by_a[node]), ("B", by_b[node])):
            if not why.feasible:
                for r in why.reasons:
                    lines.append(f"under {label}, {node} is rejected by {r.plugin}: {r.reason}")
            else:
                lines.append(f"under {label}, {node} passes every Filter plugin the profile runs")
        return lines
    other = sorted((set(wa.best) ^ set(wb.best)) - {node}) or sorted(
        (set(wa.best) | set(wb.best)) - {node}
    )
    rival = other[0] if other else node
    for label, by in (("A", by_a), ("B", by_b)):
        x, y = by[node], by[rival]
        lines.append(f"under {label}: {node} scores {x.score}, {rival} scores {y.score}")
    pa = {s.plugin: s for s in by_a[node].scores}
    pb = {s.plugin: s for s in by_b[node].scores}
    ra = {s.plugin: s for s in by_a[rival].scores}
    rb = {s.plugin: s for s in by_b[rival].scores}
    for plugin in dict.fromkeys([*pa, *pb]):
        margin_a = (pa[plugin].contribution - ra[plugin].contribution) if plugin in pa else 0
        margin_b = (pb[plugin].contribution - rb[plugin].contribution) if plugin in pb else 0
        if margin_a == margin_b:
            continue
        wa_, wb_ = (
            (pa[plugin].weight if plugin in pa else 0),
            (pb[plugin].weight if plugin in pb else 0),
        )
        weights = f"weight {wa_} → {wb_}" if wa_ != wb_ else f"weight {wa_}"
        lines.append(
            f"{plugin} ({weights}): puts {node} ahead of {rival} by {margin_a} under A, "
            f"by {margin_b} under B"
        )
    return lines


def run_compare_config(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.spec.compare_config import compare_configs
    from schedspec.spec.solve_cli import _bounds

    config_a, config_b = _config(args.config_a), _config(args.config_b)
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.cluster:
        return _own_cluster(args, config_a, config_b, out)
    answer = compare_configs(
        config_a, config_b, _bounds(args), minimize=args.minimize, timeout=args.timeout
    )
    report = answer.as_json()
    if answer.result == "sat" and answer.objects:
        a, b = _with(answer.objects, config_a), _with(answer.objects, config_b)
        report["impl"] = {"A": _impl_decision(a, answer.pod), "B": _impl_decision(b, answer.pod)}
        report["difference"] = _difference(answer.kind, answer.node, *_whys(answer.pod, a, b))
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            for label, config in (("A", config_a), ("B", config_b)):
                path = os.path.join(args.out, f"witness-{label}.yaml")
                with open(path, "w") as f:
                    yaml.safe_dump_all([*answer.objects, config], f, sort_keys=False)
                report.setdefault("written", []).append(path)
    if args.json:
        json.dump(report, out, indent=2)
        print(file=out)
    else:
        _print(report, out)
    return _EXIT[answer.result]


def _print(report: Mapping[str, Any], out: TextIO) -> None:
    print(f"{report['result']}: {report['message']} ({report['seconds']:.2f}s)", file=out)
    for note in report["notes"]:
        print(f"  note: {note}", file=out)
    for change in report["changes"]:
        print(f"  changed: {change}", file=out)
    if report["result"] != "sat" or not report["objects"]:
        return
    for label in ("A", "B"):
        spec, impl = report["decisions"][label], report["impl"][label]
        print(
            f"  under {label}: feasible {_names(spec['feasible'])}, best {_names(spec['best'])} "
            f"(spec); feasible {_names(impl['feasible'])}, best {_names(impl['best'])} (impl)",
            file=out,
        )
    for line in report["difference"]:
        print(f"  {line}", file=out)
    for path in report.get("written", ()):
        print(f"wrote {path}", file=out)
    print("---", file=out)
    print(yaml.safe_dump_all(report["objects"], sort_keys=False), end="", file=out)


def _names(names: list[str]) -> str:
    return "{" + ", ".join(names) + "}"


def _own_cluster(
    args: argparse.Namespace, config_a: Mapping[str, Any], config_b: Mapping[str, Any], out: TextIO
) -> int:
    """The user's pending pods on the user's nodes, as they are, under each configuration."""
    from schedspec.spec.compare_config import decisions
    from schedspec.spec.load import load_spec

    base = load(*args.cluster)
    objects = [*base.nodes, *base.pods, *base.pdbs, *base.priority_classes, *base.namespaces]
    a, b = _with(objects, config_a), _with(objects, config_b)
    spec = load_spec("scheduler")
    differ = []
    for pod in base.pending_pods():
        key = object_key(pod)
        da, db = decisions(a, key, spec), decisions(b, key, spec)
        if da != db:
            differ.append({"pod": key, "A": da.as_json(), "B": db.as_json()})
    pending = len(base.pending_pods())
    scope = (
        f"asked about your cluster as it is: its {pending} pending pod(s) on its "
        f"{len(base.nodes)} node(s); nothing is added"
    )
    if args.json:
        json.dump({"result": "sat" if differ else "unsat", "scope": scope, "pods": differ},
                  out, indent=2)  # fmt: skip
        print(file=out)
    else:
        verdict = (
            f"{len(differ)} pod(s) decided differently" if differ else "no pod decided differently"
        )
        print(f"{'sat' if differ else 'unsat'}: {verdict} ({scope})", file=out)
        for d in differ:
            print(f"  {d['pod']}: A feasible {_names(d['A']['feasible'])} best "
                  f"{_names(d['A']['best'])}; B feasible {_names(d['B']['feasible'])} best "
                  f"{_names(d['B']['best'])}", file=out)  # fmt: skip
    return 1 if differ else 0
