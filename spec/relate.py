"""``schedspec relate A B --as equivalent|subsumes|disjoint``: how two pods' placement
constraints relate, as Cedar relates policies, over the nodes that accept each.

``accepts(X)`` is the set of nodes ``n`` with ``Feasible(x, n)`` (``scheduler.tla``): the
cluster's nodes as they stand, and one node Z3 may add (:class:`~.place.PlaceWorld`; with no
cluster, that node alone).

- ``A subsumes B`` — every node that accepts A also accepts B: ``accepts(A) ⊆ accepts(B)``. A's
  constraints are at least as strict as B's (B's at least as permissive as A's); swapping the two
  arguments asks the converse.
- ``A equivalent B`` — the same nodes accept both: each subsumes the other.
- ``A disjoint B`` — no node accepts both.

The question asked of Z3 is the relation's negation: a node with ``Feasible(a, n) ∧
¬Feasible(b, n)`` (subsumes), ``Feasible(a, n) ≠ Feasible(b, n)`` (equivalent),
``Feasible(a, n) ∧ Feasible(b, n)`` (disjoint). ``sat`` is a witness node (the cluster's, or a
Node manifest), replayed on the executable backend; ``unsat`` means the relation holds for every
node within the bounds the answer states; ``unknown`` is never read as either.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import yaml
import z3

from schedspec.cluster import Cluster, from_objects, object_key
from schedspec.spec.can_schedule import InternalDisagreement, bounds_notes
from schedspec.spec.compile.z3 import CompileTimeout, Z3Unsupported
from schedspec.spec.place import PlaceWorld, replay_feasible

__all__ = ["RELATIONS", "RelateAnswer", "relate"]

RELATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "subsumes": lambda a, b: z3.And(a, z3.Not(b)),
    "equivalent": lambda a, b: z3.Xor(a, b),
    "disjoint": lambda a, b: z3.And(a, b),
}
"""Each relation's negation: what a node that breaks it satisfies."""

MEANING = {
    "subsumes": "every node that accepts A also accepts B",
    "equivalent": "exactly the same nodes accept A and B",
    "disjoint": "no node accepts both A and B",
}


@dataclass
class RelateAnswer:
    result: str  # the negation's: sat (a witness: the relation fails) | unsat (holds) | unknown
    relation: str
    a: str
    b: str
    considered: str
    witness_node: str = ""
    """The node that breaks the relation: one of the cluster's, or the added one."""
    node: dict[str, Any] | None = None
    """The added node, when it is the witness (a Node manifest)."""
    verdicts: dict[str, bool] = field(default_factory=dict)
    """``Feasible`` of A and of B on the witness node (executable backend)."""
    notes: list[str] = field(default_factory=list)
    message: str = ""
    seconds: float = 0.0

    @property
    def holds(self) -> bool | None:
        return {"unsat": True, "sat": False}.get(self.result)

    def as_json(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "holds": self.holds,
            "relation": self.relation,
            "meaning": MEANING[self.relation],
            "a": self.a,
            "b": self.b,
            "nodes_considered": self.considered,
            "witness": (
                {"node": self.witness_node, "manifest": self.node, "feasible": self.verdicts}
                if self.result == "sat"
                else None
            ),
            "message": self.message,
            "notes": self.notes,
            "seconds": round(self.seconds, 3),
        }


def relate(
    cluster: Cluster,
    pod_a: dict[str, Any],
    pod_b: dict[str, Any],
    relation: str,
    timeout: float = 60.0,
) -> RelateAnswer:
    start = time.monotonic()
    broken = RELATIONS[relation]
    ka, kb = object_key(pod_a), object_key(pod_b)
    answer = RelateAnswer("unknown", relation, ka, kb, "")
    # each pod is judged as if pending, without itself: the cluster's own copies are left out
    mine = [q for q in cluster.pods if object_key(q) in (ka, kb)]
    if mine:
        cluster = replace(cluster, pods=tuple(q for q in cluster.pods if q not in mine))
        answer.notes.append(
            f"the cluster's own {', '.join(object_key(q) for q in mine)} left out: A and B are "
            "each judged as if pending, without themselves"
        )
    try:
        world = PlaceWorld(cluster, [pod_a, pod_b], new_node=True, guards=False, timeout=timeout)
        names = list(world.nodes)
        answer.considered = (
            f"the cluster's {len(names)} node(s) and one node Z3 may add ({world.node_name})"
            if names
            else f"one node Z3 may add ({world.node_name})"
        )
        answer.notes += bounds_notes(world)
        existing = {
            n: (world.without_new(world.feasible(0, r)), world.without_new(world.feasible(1, r)))
            for n, r in world.nodes.items()
        }
        assert world.symbolic is not None and world.new_record is not None
        fa, fb = world.feasible(0, world.new_record), world.feasible(1, world.new_record)
    except CompileTimeout:
        answer.message = f"building the formula took longer than the {timeout:g}s timeout"
        answer.seconds = time.monotonic() - start
        return answer
    except Z3Unsupported as err:
        answer.message = f"the Z3 backend cannot: {err}"
        answer.seconds = time.monotonic() - start
        return answer
    for name, (a, b) in existing.items():
        s = world.solver()
        s.add(broken(a, b))
        r = s.check()
        if r == z3.sat:
            answer.result, answer.witness_node = "sat", name
            answer.verdicts = _replay(world, cluster, pod_a, pod_b, name, s.model(), (a, b))
            answer.message = _broken_message(answer)
            answer.seconds = time.monotonic() - start
            return answer
        if r == z3.unknown:
            answer.message = f"the solver gave up on node {name}"
            answer.seconds = time.monotonic() - start
            return answer
    s = world.solver()
    s.add(world.symbolic.present, broken(fa, fb))
    r = s.check()
    answer.seconds = time.monotonic() - start
    if r == z3.unknown:
        answer.message = f"the solver gave up within {timeout:g}s"
        return answer
    if r == z3.unsat and world.dropped:
        answer.message = (
            f"no node breaks {relation} within the bounds, but the added node could not take "
            "every label value of the cluster's nodes (see the notes)"
        )
        return answer
    if r == z3.unsat:
        answer.result = "unsat"
        answer.message = (
            f"{ka} {relation} {kb} holds: {MEANING[relation]}, among {answer.considered}"
            " (a bounded claim: the added node ranges over the shape in the notes)"
        )
        return answer
    model = world.simplest(s, [])
    node = world.node_manifest(model)
    grown = replace(
        cluster, nodes=(*cluster.nodes, from_objects([node], source="the witness").nodes[0])
    )
    answer.result, answer.witness_node, answer.node = "sat", world.node_name, node
    answer.verdicts = _replay(world, grown, pod_a, pod_b, world.node_name, model, (fa, fb))
    answer.message = _broken_message(answer)
    answer.seconds = time.monotonic() - start
    return answer


def _replay(
    world: PlaceWorld,
    cluster: Cluster,
    pod_a: dict[str, Any],
    pod_b: dict[str, Any],
    node: str,
    model: z3.ModelRef,
    solver_says: tuple[Any, Any],
) -> dict[str, bool]:
    """The witness on the executable backend: each pod's ``Feasible`` there, which must be the
    solver's."""
    out = {}
    for which, pod, f in (("A", pod_a, solver_says[0]), ("B", pod_b, solver_says[1])):
        mine = replay_feasible(world.spec, cluster, pod, node)
        z3_says = z3.is_true(model.eval(f, model_completion=True))
        if mine != z3_says:
            raise InternalDisagreement(
                f"on node {node}, Z3 says Feasible({which}) is {z3_says}, the executable "
                f"backend {mine}; please report this with the manifests"
                + (f" and the node:\n{yaml.safe_dump(world.node_manifest(model))}")
            )
        out[which] = mine
    return out


def _broken_message(answer: RelateAnswer) -> str:
    a, b = answer.verdicts.get("A"), answer.verdicts.get("B")

    def says(ok: bool | None) -> str:
        return "accepts" if ok else "rejects"

    where = (
        f"the added node {answer.witness_node}"
        if answer.node is not None
        else f"node {answer.witness_node}"
    )
    return (
        f"{answer.a} {answer.relation} {answer.b} does not hold: {where} {says(a)} "
        f"{answer.a} and {says(b)} {answer.b}"
    )
