"""``schedspec autoscale``: what cluster-autoscaler 1.34 would do with this cluster, and then what.

One ``RunOnce`` of impl's model (:mod:`schedspec.impl.autoscaler`) on the cluster and its node
groups: per pending pod, triggered or not and why, in CA's event wording; the scale-up plan; per
node, the scale-down verdict and what blocks it. Then the consequence: impl's scheduler run on the
grown cluster (or, when no scale-up happens — CA scales down only in a loop without one — on the
shrunk cluster), saying which pods bind where and which stay pending. The spec
(``autoscaler.tla``) is asked the same questions on the same input, and any disagreement is
printed: the answer you read has two independent witnesses.

``--json`` carries ``{"scale_up": {"plan", "pods", "groups", "expander"}, "scale_down": {"nodes"},
"after": {"cluster", "bindings", "unschedulable"}, "spec_disagreements": [...]}``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

from schedspec.live import add_source_flags

if TYPE_CHECKING:  # the parser is built for every command: load the model only when asked
    from schedspec.autoscaling import Autoscaling
    from schedspec.cluster import Cluster
    from schedspec.impl.autoscaler.results import AutoscalerResult
    from schedspec.impl.simulate import ScheduleResult

__all__ = ["add_parser", "run_autoscale"]

EXIT_OK = 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    au = sub.add_parser(
        "autoscale", help="cluster-autoscaler 1.34: the scale-up and scale-down one loop decides"
    )
    au.add_argument("cluster", nargs="*", metavar="CLUSTER", help="manifest files")
    add_source_flags(au)
    au.add_argument(
        "--nodes",
        action="append",
        default=[],
        metavar="MIN:MAX:NAME",
        help="a node group's sizes, as CA's --nodes (repeatable)",
    )
    au.add_argument(
        "--node-group-label",
        metavar="KEY",
        help="the node label naming each node's group, e.g. eks.amazonaws.com/nodegroup",
    )
    au.add_argument("--expander", metavar="LIST", help="CA's --expander (default least-waste)")
    au.add_argument("--max-nodes-total", type=int, default=0, metavar="N")
    au.add_argument("--cores-total", metavar="MIN:MAX")
    au.add_argument("--memory-total", metavar="MIN:MAX", help="in GiB, as CA's flag")
    au.add_argument("--balance-similar-node-groups", action="store_true")
    au.add_argument("--balancing-ignore-label", action="append", default=[], metavar="KEY",
                    help="a label similar groups may differ in (repeatable; --node-group-label's "
                    "key is one)")  # fmt: skip
    au.add_argument("--scale-down-utilization-threshold", metavar="F")
    for name in ("system-pods", "local-storage", "custom-controller-pods"):
        au.add_argument(f"--skip-nodes-with-{name}", type=_boolean, default=True,
                        metavar="true|false", help="CA's flag (default true)")  # fmt: skip
    au.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="GROUP=PRICE",
        help="a node's price per hour in GROUP, for --expander price (repeatable)",
    )
    au.add_argument("--seed", type=int, default=0, help="the random expander's seed")
    au.add_argument("--no-spec", action="store_true", help="do not ask autoscaler.tla too")
    au.add_argument("--json", action="store_true")


def _boolean(text: str) -> bool:
    """A Go flag's boolean: true/false (1/0, t/f, as strconv.ParseBool)."""
    lowered = text.strip().lower()
    if lowered in ("true", "t", "1"):
        return True
    if lowered in ("false", "f", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r}: want true or false")


def _inputs(args: argparse.Namespace) -> tuple[Cluster, Autoscaling]:
    from schedspec.autoscaling import node_groups, parse_options
    from schedspec.live import cluster_from_args

    cluster = cluster_from_args(args)
    options = parse_options(
        expander=args.expander,
        max_nodes_total=args.max_nodes_total,
        cores_total=args.cores_total,
        memory_total=args.memory_total,
        balance_similar_node_groups=args.balance_similar_node_groups,
        scale_down_utilization_threshold=args.scale_down_utilization_threshold,
        skip_nodes_with_system_pods=args.skip_nodes_with_system_pods,
        skip_nodes_with_local_storage=args.skip_nodes_with_local_storage,
        skip_nodes_with_custom_controller_pods=args.skip_nodes_with_custom_controller_pods,
        balancing_ignore_labels=[
            *([args.node_group_label] if args.node_group_label else []),
            *args.balancing_ignore_label,
        ],
    )
    autoscaling = node_groups(
        cluster,
        nodes=args.nodes,
        node_group_label=args.node_group_label,
        prices=args.price,
        options=options,
    )
    return cluster, autoscaling


def run_autoscale(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.impl.autoscaler import grown_cluster, run_once, shrunk_cluster
    from schedspec.impl.simulate import simulate

    cluster, autoscaling = _inputs(args)
    result = run_once(cluster, autoscaling, seed=args.seed)
    if result.scale_up.plan:
        after_cluster, after_kind = grown_cluster(cluster, autoscaling, result), "grown"
    else:
        after_cluster, after_kind = shrunk_cluster(cluster, result), "shrunk"
    after = simulate(after_cluster, cluster.scheduler_config, args.seed)
    disagreements: list[str] = []
    if not args.no_spec:
        from schedspec.checker.autoscaler import compare

        check = compare(cluster, autoscaling, seed=args.seed, result=result)
        disagreements = [str(d) for d in check.disagreements]
    if args.json:
        document = _as_json(autoscaling, result, after_kind, after, disagreements)
        json.dump(document, out, indent=2, sort_keys=True)
        print(file=out)
    else:
        _print(autoscaling, result, after_kind, after, disagreements, out)
    return EXIT_OK


# ---- JSON ---------------------------------------------------------------------------------------


def _as_json(
    autoscaling: Autoscaling,
    result: AutoscalerResult,
    after_kind: str,
    after: ScheduleResult,
    disagreements: list[str],
) -> dict[str, Any]:
    up, down = result.scale_up, result.scale_down
    groups: dict[str, Any] = {}
    for g in autoscaling.groups:
        gr = up.groups.get(g.name)
        estimate = gr.estimate if gr else None
        groups[g.name] = {
            "min": g.min_size,
            "max": g.max_size,
            "target": g.target_size,
            "skipped": gr.skip_reason if gr else None,
            "estimate": None
            if estimate is None
            else {"nodes": estimate.node_count, "pods": list(estimate.pods)},
        }
    pods: dict[str, Any] = {}
    for key, verdict in up.pods.items():
        pods[key] = {
            "triggered": verdict.triggered,
            "reasons": dict(verdict.reasons),
            "message": verdict.message,
        }
    for key, why in up.dropped.items():
        pods.setdefault(key, {"triggered": False, "reasons": {}, "message": "", "ignored": why})
    for key, node in up.placed_existing.items():
        pods.setdefault(key, {"triggered": False, "reasons": {}, "message": "", "fits": node})
    return {
        "scale_up": {
            "plan": {g: {"from": a, "to": b} for g, (a, b) in up.plan.items()},
            "expander": list(autoscaling.options.expander),
            "options": list(up.options),
            "best": list(up.best),
            "chosen": up.chosen,
            "groups": groups,
            "pods": pods,
        },
        "scale_down": {
            "nodes": {
                name: {
                    "removable": v.removable,
                    "reason": v.reason,
                    "message": v.message,
                    "utilization": None if v.utilization is None else float(v.utilization),
                    "resource": v.resource,
                    "blocking_pod": list(v.blocking_pod) if v.blocking_pod else None,
                    "destinations": dict(v.destinations),
                }
                for name, v in down.nodes.items()
            }
        },
        "after": {
            "cluster": after_kind,
            "bindings": dict(sorted(after.bindings.items())),
            "unschedulable": sorted(after.unschedulable),
        },
        "spec_disagreements": disagreements,
    }


# ---- text ---------------------------------------------------------------------------------------


def _print(
    autoscaling: Autoscaling,
    result: AutoscalerResult,
    after_kind: str,
    after: ScheduleResult,
    disagreements: list[str],
    out: TextIO,
) -> None:
    up, down = result.scale_up, result.scale_down
    expander = ",".join(autoscaling.options.expander)
    print(f"Scale-up (cluster-autoscaler 1.34, --expander={expander})", file=out)
    print(
        f"  pending pods: {len(up.dropped) + len(up.placed_existing) + len(up.unschedulable)}"
        f" — {len(up.placed_existing)} fit existing nodes, {len(up.dropped)} not considered, "
        f"{len(up.unschedulable)} unschedulable",
        file=out,
    )
    for key, why in up.dropped.items():
        print(f"    {key}: not considered ({_DROPPED.get(why, why)})", file=out)
    for key, node in up.placed_existing.items():
        print(f"    {key}: fits existing node {node} (the scheduler will place it)", file=out)
    print("  node groups:", file=out)
    width = max((len(g.name) for g in autoscaling.groups), default=10)
    for g in autoscaling.groups:
        gr = up.groups.get(g.name)
        head = f"    {g.name:<{width}}  size {g.target_size} (min {g.min_size}, max {g.max_size})"
        if gr is None or gr.skip_reason:
            print(f"{head}  skipped: {gr.skip_reason if gr else 'not considered'}", file=out)
            continue
        accepted = sum(v.accepted for v in gr.template.values())
        est = gr.estimate
        tail = (
            f"estimate +{est.node_count} node(s) for {len(est.pods)} pod(s)"
            if est and est.node_count
            else "no estimate"
        )
        print(f"{head}  template takes {accepted} pod(s); {tail}", file=out)
    if up.chosen:
        best = ", ".join(up.best) if up.best else up.chosen
        print(f"  expander {expander}: best {best} → {up.chosen}", file=out)
    for group, (a, b) in up.plan.items():
        g = next(x for x in autoscaling.groups if x.name == group)
        print(f"  plan: {group} {a} → {b} (max {g.max_size})", file=out)
    if not up.plan:
        print("  plan: no scale-up", file=out)
    for key, verdict in up.pods.items():
        mark = "✓" if verdict.triggered else "✗"
        print(f"    {mark} {key}: {verdict.message or 'awaits a later loop'}", file=out)
    print("", file=out)
    print(
        "Scale-down (one planner pass; a removable node goes after "
        "--scale-down-unneeded-time=10m unneeded)",
        file=out,
    )
    width = max((len(n) for n in down.nodes), default=10)
    for name, v in down.nodes.items():
        util = "" if v.utilization is None else f"{v.resource} {float(v.utilization):.0%}"
        verdict = "removable" if v.removable else v.reason
        line = f"  {name:<{width}}  {util:<16} {verdict}"
        if v.message:
            line += f": {v.message}"
        print(line, file=out)
    print("", file=out)
    _print_after(after_kind, after, result, out)
    if disagreements:
        print("\nautoscaler.tla disagrees with impl (please report):", file=out)
        for d in disagreements:
            print(f"  {d}", file=out)


_DROPPED: Mapping[str, str] = {
    "expendable": "expendable: priority below --expendable-pods-priority-cutoff=-10",
    "nominated": "nominated to an existing node: waits for preemption there",
    "gated": "has scheduling gates",
    "terminating": "being deleted",
    "daemonset": "a DaemonSet pod",
}


def _print_after(
    after_kind: str, after: ScheduleResult, result: AutoscalerResult, out: TextIO
) -> None:
    if after_kind == "grown":
        added = sum(b - a for a, b in result.scale_up.plan.values())
        print(f"After the scale-up (+{added} node(s)), impl's scheduler:", file=out)
    else:
        removed = len(result.scale_down.removable())
        print(f"After the scale-down (-{removed} node(s)), impl's scheduler:", file=out)
    for key, node in sorted(after.bindings.items()):
        print(f"  {key} → {node}", file=out)
    for key, why in sorted(after.unschedulable.items()):
        print(f"  {key} stays pending: {why.message}", file=out)
