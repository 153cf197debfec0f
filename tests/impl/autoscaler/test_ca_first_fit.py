"""The predicate checker's first fit against the plain search it shortcuts: PreFilter on every
node of the snapshot, then every Filter plugin on each node in order (impl/autoscaler/
predicate_checker.py). Random clusters (resources, labels, taints, cordoned nodes, node
affinity, pod (anti-)affinity across namespaces, spread constraints, host ports), pods placed
one after another, forks with pods moved off, nodes added, ``among``/``where``."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from typing import Any

import pytest
from ca_builders import node, pod

from schedspec.impl.api import Pod, node_from_dict, pod_from_dict
from schedspec.impl.autoscaler.predicate_checker import PredicateChecker
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.status import Code

Obj = dict[str, Any]
ZONES = ("a", "b", "c")
NAMESPACES = {"default": {"team": "x"}, "ns1": {"team": "x"}, "ns2": {"team": "y"}}


def _plain_first_fit(
    checker: PredicateChecker,
    snapshot: ClusterSnapshot,
    pod: Pod,
    ok: Callable[[str], bool],
) -> str | None:
    checker._lister.delegate = snapshot
    fw = checker.framework
    state = CycleState()
    result, status, _ = fw.run_pre_filter_plugins(state, pod, snapshot.list())
    if status is not None and not status.is_success():
        return None
    filters = fw.active_filters(state)
    for info in snapshot.list():
        n = info.node
        if n is None or n.unschedulable or not ok(info.name):
            continue
        allowed = result.node_names if result is not None else None
        if allowed is not None and info.name not in allowed:
            continue
        if all((s := fn(state, pod, info)) is None or s.code is Code.SUCCESS for _, fn in filters):
            return info.name
    return None


def _random_node(rng: random.Random, name: str) -> Obj:
    labels = {"zone": rng.choice(ZONES), "workload": rng.choice(("x", "y"))}
    taints = []
    if rng.random() < 0.2:
        taints.append({"key": "t", "value": rng.choice(("1", "2")), "effect": "NoSchedule"})
    if rng.random() < 0.1:
        taints.append({"key": "p", "effect": "PreferNoSchedule"})
    obj = node(
        name,
        rng.choice(("1", "2", "4")),
        rng.choice(("2Gi", "4Gi")),
        labels=labels,
        taints=taints,
        unschedulable=rng.random() < 0.1,
    )
    obj["status"]["allocatable"]["pods"] = str(rng.randint(2, 6))
    return obj


def _term(rng: random.Random) -> Obj:
    term: Obj = {
        "labelSelector": {"matchLabels": {"app": rng.choice(("a", "b"))}},
        "topologyKey": rng.choice(("kubernetes.io/hostname", "zone")),
    }
    roll = rng.random()
    if roll < 0.2:
        term["namespaces"] = [rng.choice(tuple(NAMESPACES))]
    elif roll < 0.3:
        term["namespaceSelector"] = {"matchLabels": {"team": rng.choice(("x", "y"))}}
    elif roll < 0.35:
        term["namespaceSelector"] = {}
    return term


def _random_pod(rng: random.Random, name: str, on: str | None = None) -> Obj:
    spec: Obj = {}
    if rng.random() < 0.3:
        spec["nodeSelector"] = {"workload": rng.choice(("x", "y"))}
    if rng.random() < 0.2:
        zones = rng.sample(ZONES, 2)
        expr = {"key": "zone", "operator": "In", "values": zones}
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [expr]}]
                }
            }
        }
    if rng.random() < 0.25:
        spec["tolerations"] = [{"key": "t", "operator": "Exists"}]
    if rng.random() < 0.3:
        kind = rng.choice(("podAntiAffinity", "podAffinity"))
        rules = {"requiredDuringSchedulingIgnoredDuringExecution": [_term(rng)]}
        spec.setdefault("affinity", {})[kind] = rules
    if rng.random() < 0.1:
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": "zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "a"}},
            }
        ]
    obj = pod(
        name,
        rng.choice((None, "100m", "300m", "700m", "1500m")),
        rng.choice((None, "256Mi", "1Gi")),
        on=on,
        ns=rng.choice(tuple(NAMESPACES)),
        labels={"app": rng.choice(("a", "b"))},
        spec=spec,
    )
    if rng.random() < 0.1:
        obj["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    obj["metadata"]["uid"] = name
    return obj


def _check(
    checker: PredicateChecker,
    snapshot: ClusterSnapshot,
    p: Pod,
    among: Collection[str] | None = None,
    where: Sequence[bool] | None = None,
) -> str | None:
    names = snapshot.node_names()
    flags = dict(zip(names, where, strict=True)) if where is not None else {}

    def ok(name: str) -> bool:
        if among is not None:
            return name in among
        return flags.get(name, True)

    got = checker.first_fit(snapshot, p, among=among, where=where)
    assert got == _plain_first_fit(checker, snapshot, p, ok), p.key
    return got


@pytest.mark.parametrize("seed", range(40))
def test_first_fit_is_the_plain_search(seed: int) -> None:
    rng = random.Random(seed)
    checker = PredicateChecker(NAMESPACES)
    world = ClusterSnapshot()
    names = [f"n{i:02}" for i in range(rng.randint(8, 20))]
    for name in names:
        world.add_node(node_from_dict(_random_node(rng, name)))
    for i in range(rng.randint(10, 30)):
        on = rng.choice(names)
        bound = pod_from_dict(_random_pod(rng, f"b{i}", on))
        world.add_pod(bound, on)
    # filter-out-schedulable: each pending pod first-fit, cumulatively
    for i in range(40):
        p = pod_from_dict(_random_pod(rng, f"p{i}"))
        got = _check(checker, world, p)
        if got is not None:
            world.add_pod(p, got)
    # the scale-down planner: forks with a node's pods moved off, other nodes flagged out
    closed: set[str] = set()
    for name in rng.sample(names, min(6, len(names))):
        sim = world.fork()
        pods = sim.pods_on(name)
        for p in pods:
            sim.remove_pod(p, name)
        where = [n != name and n not in closed for n in sim.node_names()]
        for p in pods:
            moved = p.assigned_to("")
            got = _check(checker, sim, moved, where=where)
            if got is None:
                break
            sim.add_pod(p, got)
        else:
            world = sim
            closed.add(name)
        x = pod_from_dict(_random_pod(rng, f"x{name}"))
        _check(checker, world, x, where=[n not in closed for n in world.node_names()])
    # binpacking: template copies added to a fork, tried among themselves
    sim = world.fork()
    new: list[str] = []
    for i in range(6):
        copy = node_from_dict(_random_node(rng, f"t-{i}"))
        sim.add_node(copy, [pod_from_dict(_random_pod(rng, f"ds-{i}", copy.name))])
        new.append(copy.name)
        p = pod_from_dict(_random_pod(rng, f"q{i}"))
        got = _check(checker, sim, p, among=rng.sample(new, len(new)))
        if got is not None:
            sim.add_pod(p, got)
        _check(checker, sim, p)


def test_indexes_follow_forks() -> None:
    world = ClusterSnapshot()
    for name in ("a", "b", "c"):
        world.add_node(node_from_dict(node(name)))
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {}, "topologyKey": "zone"}
    ]}}  # fmt: skip
    p = pod_from_dict(pod("p", "1", ns="ns1", spec={"affinity": anti}))
    world.add_pod(p, "c")
    sim = world.fork()
    sim.add_pod(pod_from_dict(pod("q", "500m", ns="ns1", spec={"affinity": anti})), "a")
    sim.remove_pod(p, "c")
    assert [ni.name for ni in world.have_pods_with_required_anti_affinity_list()] == ["c"]
    assert [ni.name for ni in sim.have_pods_with_required_anti_affinity_list()] == ["a"]
    assert set(world.nodes_with_pods_in("ns1")) == {"c"}
    assert set(sim.nodes_with_pods_in("ns1")) == {"a"}
    assert list(world.free_cpu()) == [2000, 2000, 1000]
    assert list(sim.free_cpu()) == [1500, 2000, 2000]
