"""``schedspec relate A B --as equivalent|subsumes|disjoint``: how two pods' placement
constraints relate, over the nodes that accept each (:mod:`schedspec.spec.relate`).

``A subsumes B``: every node that accepts A also accepts B (A's accepted nodes ⊆ B's: A is at
least as strict). ``equivalent``: both ways. ``disjoint``: no node accepts both. The nodes are
the cluster's (``--cluster``), as they stand, and one node Z3 may add. Z3 is asked for a node that
breaks the relation: ``unsat`` means the relation holds within the bounds (exit 0); ``sat`` is a
witness node — one of the cluster's, or a Node manifest — on which both pods are replayed on the
spec's executable backend and on impl's framework (exit 1); ``unknown`` exits 3.

``--json``: ``{"result": "sat|unsat|unknown" (of the negation), "holds", "relation", "meaning",
"a", "b", "witness": {"node", "manifest", "feasible": {"A", "B"}}, "impl", "notes", …}``.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any, TextIO

import yaml

__all__ = ["add_parser", "run_relate"]

EXIT = {"unsat": 0, "sat": 1, "unknown": 3}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rel = sub.add_parser(
        "relate",
        help="do two pods' placement constraints accept the same nodes / a subset / none in "
        "common? (Z3 over scheduler.tla)",
    )
    rel.add_argument("a", metavar="A", help="a manifest: a Pod or a workload with a pod template")
    rel.add_argument("b", metavar="B", help="a manifest: a Pod or a workload with a pod template")
    rel.add_argument("--as", dest="relation", required=True,
                     choices=("equivalent", "subsumes", "disjoint"),
                     help="subsumes: every node that accepts A also accepts B; equivalent: both "
                          "ways; disjoint: no node accepts both")  # fmt: skip
    for side in ("a", "b"):
        what = f"the pod or workload in {side.upper()} (default: the only one)"
        rel.add_argument(f"--pod-{side}", metavar="NS/NAME", help=what)
    rel.add_argument("--cluster", nargs="+", default=[], metavar="C",
                     help="manifest files of a cluster whose nodes and pods count too")  # fmt: skip
    rel.add_argument("--timeout", type=float, default=60.0, metavar="S",
                     help="seconds (default 60)")  # fmt: skip
    rel.add_argument("--json", action="store_true", help="machine-readable output")


def run_relate(args: argparse.Namespace, out: TextIO) -> int:
    from schedspec.checker.placement_impl import ImplVerdict, impl_feasible, with_node
    from schedspec.checker.placement_input import load_cluster, load_question
    from schedspec.cluster import object_key
    from schedspec.spec.relate import MEANING, relate

    rest_a, a = load_question(args.a, (), args.pod_a, flag="--pod-a")
    rest_b, b = load_question(args.b, (), args.pod_b, flag="--pod-b")
    cluster = load_cluster(args.cluster)
    cluster = replace(  # as relate judges them: without the cluster's own copies
        cluster, pods=tuple(q for q in cluster.pods if object_key(q) not in (a.key, b.key))
    )
    answer = relate(cluster, a.pod, b.pod, args.relation, args.timeout)
    ignored = [
        f"{path} holds {len(rest.nodes)} node(s) and {len(rest.bound_pods())} bound pod(s): they "
        "are not the cluster of this question (pass them with --cluster)"
        for path, rest in dict(((args.a, rest_a), (args.b, rest_b))).items()
        if (rest.nodes or rest.bound_pods()) and path not in args.cluster
    ]
    answer.notes[:0] = list(dict.fromkeys([*a.notes, *b.notes, *ignored]))
    impl: dict[str, ImplVerdict] = {}
    if answer.result == "sat":
        where = with_node(cluster, answer.node) if answer.node is not None else cluster
        impl = {
            "A": impl_feasible(where, a.pod, answer.witness_node),
            "B": impl_feasible(where, b.pod, answer.witness_node),
        }
    disagree = [w for w, v in impl.items() if v.feasible != answer.verdicts.get(w)]
    if args.json:
        doc: dict[str, Any] = {
            **answer.as_json(),
            "a": {"kind": a.kind, "key": a.key, "file": args.a},
            "b": {"kind": b.kind, "key": b.key, "file": args.b},
            "impl": {w: v.as_json() for w, v in impl.items()},
            "spec_impl_agree": not disagree,
        }
        json.dump(doc, out, indent=2)
        print(file=out)
        return EXIT[answer.result]
    print(f"A = {a.name} ({args.a}), B = {b.name} ({args.b})", file=out)
    print(f"A {args.relation} B: {MEANING[args.relation]}?", file=out)
    print(f"nodes considered: {answer.considered}", file=out)
    if answer.result == "unsat":
        print(f"unsat, no node breaks it: {answer.message}", file=out)
    elif answer.result == "sat":
        print(f"sat, a node breaks it: {answer.message}", file=out)
        for w in ("A", "B"):
            spec = "feasible" if answer.verdicts[w] else "infeasible"
            v = impl[w]
            side = "feasible" if v.feasible else f"infeasible ({v.message})"
            print(f"  {w} on {answer.witness_node}: spec {spec}; impl {side}", file=out)
        if answer.node is not None:
            print("---", file=out)
            print(yaml.safe_dump(answer.node, sort_keys=False).rstrip(), file=out)
            print("---", file=out)
    else:
        print(f"unknown: {answer.message}", file=out)
    for w in disagree:
        print(f"DISAGREE: spec and impl differ on {w} at {answer.witness_node}", file=out)
    for note in answer.notes:
        print(f"note: {note}", file=out)
    return EXIT[answer.result]
