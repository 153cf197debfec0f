"""`can-schedule` on drawn clusters: every answer holds up outside Z3.

A sat's nodes are accepted by impl's framework; an unsat's core, read back into the manifests,
is a minimal unsatisfiable set: with every item outside it dropped the pod still fits no node of
the cluster (executable backend), and dropping any one item of the core as well lets it on. Each
item is dropped as its kind says (an entry deleted, a spread constraint made ScheduleAnyway, a
taint removed, …): this pins the guards of ``spec/place.py`` to what the manifests mean.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, seed, settings

from schedspec.checker.placement_impl import impl_verdicts, with_node
from schedspec.checker.strategies import clusters
from schedspec.cluster import Cluster, object_key
from schedspec.spec.can_schedule import can_schedule
from schedspec.spec.load import load_spec
from schedspec.spec.place import REQUIRED, Item, PlaceWorld, replay_feasibles

_INDEX = re.compile(r"\[(\d+)\]")
_NODE_TERM = re.compile(r"nodeSelectorTerms\[(\d+)\]\.(\w+)\[(\d+)\]")
_PORT = re.compile(r"spec\.(\w+)\[(\d+)\]\.ports\[(\d+)\]")
_GONE = None  # a list entry dropped; lists are compacted once every drop is made


def _last(path: str) -> int:
    return int(_INDEX.findall(path)[-1])


def _drop(nodes: list[Any], pods: list[Any], pod: dict[str, Any], item: Item) -> None:
    spec, d = pod["spec"], item.data
    if item.kind == "nodeSelector":
        del spec["nodeSelector"][d["key"]]
    elif item.kind == "nodeAffinity":
        t, fld, e = _NODE_TERM.search(item.path).groups()  # type: ignore[union-attr]
        terms = spec["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]
        terms[int(t)][fld][int(e)] = _GONE
    elif item.kind in ("podAffinity", "podAntiAffinity"):
        spec["affinity"][item.kind][REQUIRED][_last(item.path)] = _GONE
    elif item.kind == "spread":
        c = spec["topologySpreadConstraints"][d["index"]]
        c["whenUnsatisfiable"] = "ScheduleAnyway"
        c.pop("minDomains", None)
    elif item.kind == "minDomains":
        spec["topologySpreadConstraints"][d["index"]].pop("minDomains", None)
    elif item.kind == "requests":
        for group in ("containers", "initContainers"):
            for c in spec.get(group) or ():
                ((c.get("resources") or {}).get("requests") or {}).pop(d["resource"], None)
        ((spec.get("resources") or {}).get("requests") or {}).pop(d["resource"], None)
        (spec.get("overhead") or {}).pop(d["resource"], None)
    elif item.kind == "hostPort":
        group, c, k = _PORT.search(item.path).groups()  # type: ignore[union-attr]
        spec[group][int(c)]["ports"][int(k)]["hostPort"] = 0
    elif item.kind == "taint":
        node = next(n for n in nodes if n["metadata"]["name"] == d["node"])
        node["spec"]["taints"][_last(item.path)] = _GONE
    elif item.kind == "unschedulable":
        next(n for n in nodes if n["metadata"]["name"] == d["node"])["spec"]["unschedulable"] = (
            False
        )
    elif item.kind == "existingAntiAffinity":
        q = next(q for q in pods if f"Pod {object_key(q)}" == item.obj)
        q["spec"]["affinity"]["podAntiAffinity"][REQUIRED][_last(item.path)] = _GONE
    else:  # pragma: no cover - a kind this test does not know yet
        raise AssertionError(item.kind)


def _without(
    cluster: Cluster, pod: dict[str, Any], items: list[Item]
) -> tuple[Cluster, dict[str, Any]]:
    """``cluster`` and ``pod`` with ``items`` dropped; a node-selector term left with no
    requirement matches every node, so the required node affinity goes with it."""
    nodes, pods = copy.deepcopy(list(cluster.nodes)), copy.deepcopy(list(cluster.pods))
    pod = copy.deepcopy(pod)
    for item in items:
        _drop(nodes, pods, pod, item)
    na = (pod["spec"].get("affinity") or {}).get("nodeAffinity") or {}
    if REQUIRED in na:
        emptied = False
        for term in na[REQUIRED]["nodeSelectorTerms"]:
            had = any(term.get(f) for f in ("matchExpressions", "matchFields"))
            for f in ("matchExpressions", "matchFields"):
                term[f] = [r for r in term.get(f) or () if r is not _GONE]
            emptied |= had and not (term["matchExpressions"] or term["matchFields"])
        if emptied:
            del na[REQUIRED]
    for q in (pod, *pods):
        for kind in ("podAffinity", "podAntiAffinity"):
            terms = ((q["spec"].get("affinity") or {}).get(kind) or {}).get(REQUIRED)
            if terms is not None:
                q["spec"]["affinity"][kind][REQUIRED] = [t for t in terms if t is not _GONE]
    for n in nodes:
        if (n.get("spec") or {}).get("taints"):
            n["spec"]["taints"] = [t for t in n["spec"]["taints"] if t is not _GONE]
    return replace(cluster, nodes=tuple(nodes), pods=tuple(pods)), pod


@seed(24)
@settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(clusters(max_nodes=3, max_pods=5))
def test_answers_hold_outside_z3(cluster: Cluster) -> None:
    spec = load_spec("scheduler")
    q = cluster.pending_pods()[0]
    key = object_key(q)
    rest = replace(cluster, pods=tuple(p for p in cluster.pods if object_key(p) != key))
    pod = copy.deepcopy(q)
    pod["spec"].pop("schedulingGates", None)
    names = [n["metadata"]["name"] for n in rest.nodes]
    for mode in ("existing", "new"):
        answer = can_schedule(rest, pod, mode, timeout=30)
        assert answer.result in ("sat", "unsat")
        if answer.node is not None:
            added = answer.node["metadata"]["name"]
            assert impl_verdicts(with_node(rest, answer.node), pod, [added])[added].feasible
        if mode == "new":
            continue
        impl = impl_verdicts(rest, pod, names)
        assert sorted(n for n, v in impl.items() if v.feasible) == sorted(answer.accepted)
        if answer.result != "unsat":
            continue
        world = PlaceWorld(rest, [pod], new_node=False, guards=True)
        others = [i for i in world.items if i not in answer.core]
        alone_cluster, alone_pod = _without(rest, pod, others)
        assert not any(replay_feasibles(spec, alone_cluster, alone_pod, names).values())
        for item in answer.core:
            c2, p2 = _without(rest, pod, [*others, item])
            assert any(replay_feasibles(spec, c2, p2, names).values()), item.path
