"""``schedspec can-schedule MANIFEST --pod NS/NAME [--cluster C…]``: is there any node this
pod's placement constraints accept?

The answer comes from ``scheduler.tla``'s ``Feasible`` through the Z3 backend
(:mod:`schedspec.spec.can_schedule`); each node it names is replayed on the spec's executable
backend there and, here, on impl's framework (:mod:`.placement_impl`). Which nodes count is a
flag: by default the cluster's nodes and one node Z3 may add; ``--existing-only`` the cluster's
nodes as they stand; ``--new-node`` the added node alone.

Exit codes: 0 sat (some node accepts the pod), 1 unsat (none does: the fields that contradict
are named), 2 bad input, 3 unknown (the solver gave up; never reported as unsat).
``--json``: ``{"result": "sat|unsat|unknown", "pod", "nodes_considered", "accepted_by", "node",
"core": [{"kind", "object", "path", "text", …}], "why", "impl", "notes", …}``.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

import yaml

if TYPE_CHECKING:
    from schedspec.checker.placement_impl import ImplVerdict

__all__ = ["add_parser", "exit_code", "run_can_schedule"]

EXIT = {"sat": 0, "unsat": 1, "unknown": 3}


def exit_code(result: str) -> int:
    return EXIT[result]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cs = sub.add_parser(
        "can-schedule",
        help="is there a node this pod's constraints accept? (Z3 over scheduler.tla; unsat "
        "names the contradicting fields)",
    )
    cs.add_argument("manifest", metavar="MANIFEST",
                    help="a Pod, or a Deployment/StatefulSet/Job/ReplicaSet/DaemonSet/CronJob "
                         "(its pod template); other objects in it join the cluster")  # fmt: skip
    cs.add_argument("--pod", metavar="NS/NAME",
                    help="the pod or workload asked (default: MANIFEST's only one)")  # fmt: skip
    cs.add_argument("--cluster", nargs="+", default=[], metavar="C",
                    help="manifest files of the cluster (nodes, pods, …)")  # fmt: skip
    nodes = cs.add_mutually_exclusive_group()
    nodes.add_argument("--existing-only", action="store_true",
                       help="only the cluster's nodes, as they stand")  # fmt: skip
    nodes.add_argument("--new-node", action="store_true",
                       help="only a node Z3 may add (default: both kinds)")  # fmt: skip
    cs.add_argument("--timeout", type=float, default=60.0, metavar="S",
                    help="seconds (default 60)")  # fmt: skip
    cs.add_argument("--json", action="store_true", help="machine-readable output")


def run_can_schedule(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.checker.placement_impl import impl_feasible, impl_verdicts, with_node
    from schedspec.checker.placement_input import load_question
    from schedspec.spec.can_schedule import can_schedule

    cluster, subject = load_question(args.manifest, args.cluster, args.pod)
    mode = "existing" if args.existing_only else "new" if args.new_node else "both"
    answer = can_schedule(cluster, subject.pod, mode, args.timeout, subject.owner)
    answer.notes[:0] = list(subject.notes)
    impl: dict[str, ImplVerdict] = impl_verdicts(cluster, subject.pod, answer.accepted)
    if answer.node is not None:
        impl[answer.node["metadata"]["name"]] = impl_feasible(
            with_node(cluster, answer.node), subject.pod, answer.node["metadata"]["name"]
        )
    disagree = sorted(n for n, v in impl.items() if not v.feasible)
    if answer.result == "unsat" and mode != "new":  # impl must reject every node of the cluster
        impl = impl_verdicts(cluster, subject.pod, [n["metadata"]["name"] for n in cluster.nodes])
        disagree = sorted(n for n, v in impl.items() if v.feasible)
    if args.json:
        doc: dict[str, Any] = {
            **answer.as_json(),
            "subject": {"kind": subject.kind, "key": subject.key},
            "impl": {n: v.as_json() for n, v in impl.items()},
            "spec_impl_agree": not disagree,
        }
        json.dump(doc, out, indent=2)
        print(file=out)
        return exit_code(answer.result)
    print(f"{subject.name}: nodes considered: {answer.considered or mode}", file=out)
    if answer.result == "sat":
        _print_sat(answer, impl, out)
    elif answer.result == "unsat":
        print(f"unsat: no node accepts {subject.key}", file=out)
        for line in answer.why:
            print(f"  {line}", file=out)
        tag = "minimal" if answer.minimal else "not proven minimal: the solver ran out of time"
        print(f"  core ({tag}: these alone leave no node, each is needed for that):", file=out)
        for item in answer.core:
            print(f"    {item.obj}: {item.path}", file=out)
        if impl and not disagree:
            print(
                f"  impl's framework rejects each of the cluster's {len(impl)} node(s) too",
                file=out,
            )
    else:
        print(f"unknown: {answer.message}", file=out)
    for n in disagree:
        spec_says = "rejects" if answer.result == "unsat" else "accepts"
        impl_says = "it accepts it" if impl[n].feasible else impl[n].message
        print(
            f"DISAGREE: the spec says {n} {spec_says} {subject.key}; impl's framework says "
            f"{impl_says}. Please report this with the manifests.",
            file=out,
        )
    for note in answer.notes:
        print(f"note: {note}", file=out)
    return exit_code(answer.result)


def _print_sat(answer: Any, impl: dict[str, ImplVerdict], out: TextIO) -> None:
    def both(name: str) -> str:
        v = impl.get(name)
        side = "impl: feasible" if v is not None and v.feasible else f"impl: {v and v.message}"
        return f"spec: feasible; {side}"

    print(f"sat: {answer.pod} can be scheduled", file=out)
    if answer.mode != "new":
        if answer.accepted:
            print("  the cluster's nodes that accept it:", file=out)
            for name in answer.accepted:
                print(f"    {name} ({both(name)})", file=out)
        else:
            print("  none of the cluster's nodes accepts it as they stand", file=out)
    if answer.node is not None:
        name = answer.node["metadata"]["name"]
        print(f"  a node to add that accepts it ({both(name)}):", file=out)
        print("---", file=out)
        print(yaml.safe_dump(answer.node, sort_keys=False).rstrip(), file=out)
        print("---", file=out)
    elif answer.mode != "existing":
        print("  no node Z3 may add accepts it", file=out)
