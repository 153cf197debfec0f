"""``schedspec optimal``: the optimum of the pending pods' placement beside the scheduler's
greedy run — the gap when greedy fragments the nodes, no gap when it does not, each objective,
a witness order that impl's filters accept step by step (checked here through another harness,
cluster-autoscaler's predicate checker), the replay catching a rule the model is made to miss,
the optimum equal to a brute-force search on small clusters, and bad input."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from schedspec.checker import optimal as opt
from schedspec.checker import optimal_model
from schedspec.checker.optimal_clusters import gap_cluster
from schedspec.checker.optimal_filters import Filters, find_order
from schedspec.cli import main
from schedspec.cluster import Cluster, from_objects, load
from schedspec.impl.api import node_from_dict, pod_from_dict
from schedspec.impl.autoscaler.context import namespace_labels
from schedspec.impl.autoscaler.predicate_checker import PredicateChecker
from schedspec.impl.autoscaler.snapshot import ClusterSnapshot

ROOT = Path(__file__).resolve().parents[2]
FRAGMENTATION = str(ROOT / "examples" / "fragmentation.yaml")
ZONAL_WEB = str(ROOT / "examples" / "zonal-web.yaml")
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run(capsys, "optimal", *argv, "--json")
    assert err == ""
    doc: dict[str, Any] = json.loads(out)
    return code, doc


def replays(cluster: Cluster, order: list[dict[str, str]]) -> bool:
    """Every binding of ``order`` passes PreFilter and Filter given the ones before it, asked
    through cluster-autoscaler's predicate checker (not the optimum's own harness)."""
    snapshot = ClusterSnapshot()
    for node in cluster.nodes:
        snapshot.add_node(node_from_dict(node))
    for obj in cluster.bound_pods():
        snapshot.add_pod(pod_from_dict(obj), obj["spec"]["nodeName"])
    namespaces = {p["metadata"]["namespace"]: {} for p in cluster.pods}
    checker = PredicateChecker(namespaces)
    for step in order:
        obj = cluster.find_pod(step["pod"])
        assert obj is not None
        pod = pod_from_dict(obj)
        if checker.check(snapshot, pod, step["node"]) is not None:
            return False
        snapshot.add_pod(pod, step["node"])
    return True


def node(name: str, cpu: str, zone: str = "eu-west-1a", pods: int = 110) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {HOSTNAME: name, ZONE: zone}},
        "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": str(pods)}},
    }


def pod(name: str, cpu: str, app: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "labels": {"app": app}},
        "spec": {
            "containers": [{"name": app, "image": f"ghcr.io/acme/{app}:1.0",
                            "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}],
            **spec,
        },
    }  # fmt: skip


def anti(app: str, key: str = HOSTNAME) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


# ---- the gap ----------------------------------------------------------------------------------


def test_greedy_fragments_the_nodes_and_the_witness_order_replays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc = as_json(capsys, FRAGMENTATION)
    assert (code, doc["result"]) == (0, "optimal")
    assert doc["optimum"]["placed"] == 7 and doc["greedy"]["placed"] == 6
    assert doc["gap"]["placed"] == 1 and doc["greedy"]["preempted"] == []
    # greedy left both Spark executors pending; the optimum places one
    executors = [k for k in doc["optimum"]["placement"] if k.startswith("analytics/")]
    assert len(executors) == 1 and executors[0] not in doc["greedy"]["bindings"]
    order = doc["optimum"]["order"]
    assert {s["pod"]: s["node"] for s in order} == doc["optimum"]["placement"]
    assert replays(load(FRAGMENTATION), order)
    code, text, _ = run(capsys, "optimal", FRAGMENTATION)
    assert code == 0
    assert "optimum (proven): 7/8 placed" in text
    assert "greedy (schedspec schedule): 6/8 placed" in text
    assert "gap: +1 pod(s) placed" in text
    assert "witness: bind in this order" in text and "(greedy left it pending)" in text


def test_z3_answers_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = as_json(capsys, FRAGMENTATION, "--solver", "z3")
    assert (code, doc["result"], doc["solver"]["name"]) == (0, "optimal", "z3")
    assert (doc["optimum"]["placed"], doc["gap"]["placed"]) == (7, 1)
    assert replays(load(FRAGMENTATION), doc["optimum"]["order"])


def test_no_gap_when_greedy_is_optimal(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = as_json(capsys, ZONAL_WEB)
    assert (code, doc["result"]) == (0, "optimal")
    assert doc["gap"] == {"placed": 0, "priority": 0, "nodes": 0}
    # web's hostname anti-affinity leaves one replica pending either way; the 6-CPU Job fits
    # no node even alone
    assert doc["optimum"]["placed"] == doc["greedy"]["placed"] == 3
    assert "shop/report-nightly-29301120-7b8j6" in doc["never_fit"]
    assert replays(load(ZONAL_WEB), doc["optimum"]["order"])
    _, text, _ = run(capsys, "optimal", ZONAL_WEB)
    assert "gap: +0 pod(s) placed" in text and "greedy's is as good" in text


def test_priority_objective(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = as_json(capsys, FRAGMENTATION, "--objective", "priority")
    assert (code, doc["result"], doc["objective"]) == (0, "optimal", "priority")
    # six checkout-api pods at 1000 and one executor at 100, against greedy's six
    assert (doc["optimum"]["priority"], doc["greedy"]["priority"]) == (6100, 6000)
    assert doc["gap"]["priority"] == 100


def test_nodes_objective_packs_what_greedy_spreads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    objs = [node(f"worker-{i}", "4") for i in range(3)]
    objs += [pod(f"api-7d4b9c6f5-{s}", "900m", "api") for s in ("h2k8q", "m5x7r", "t9c2w")]
    path = tmp_path / "spread.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    code, doc = as_json(capsys, str(path), "--objective", "nodes")
    assert (code, doc["result"]) == (0, "optimal")
    # LeastAllocated puts one on each node; all three fit on one
    assert (doc["greedy"]["placed"], doc["greedy"]["nodes"]) == (3, 3)
    assert (doc["optimum"]["placed"], doc["optimum"]["nodes"]) == (3, 1)
    assert doc["gap"]["nodes"] == 2
    _, plain = as_json(capsys, str(path))
    assert plain["gap"]["placed"] == 0


def test_preemption_is_reported_not_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = as_json(capsys, str(ROOT / "examples" / "preemption.yaml"))
    assert code == 0
    assert doc["greedy"]["preempted"] and doc["gap"]["placed"] == -1
    _, text, _ = run(capsys, "optimal", str(ROOT / "examples" / "preemption.yaml"))
    assert "greedy evicted 2 bound pod(s)" in text and "the optimum evicts none" in text


# ---- validation ----------------------------------------------------------------------------


def test_replay_catches_a_rule_the_model_misses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without its anti-affinity constraints the model would put two web replicas on a node;
    the replay through impl's filters refuses every such placement, each is cut, and the answer
    is still the true optimum (2 of 3 on 2 nodes)."""
    monkeypatch.setattr(optimal_model._Builder, "anti_affinity", lambda self: None)
    objs = [node("worker-a", "4"), node("worker-b", "4")]
    objs += [pod(f"web-5f7c9d-{s}", "500m", "web", affinity=anti("web")) for s in "xyz"]
    outcome = opt.optimal(from_objects(objs), timeout=30)
    assert outcome.result == "optimal"
    assert outcome.best.placed == 2 and outcome.cuts >= 1
    assert sorted(outcome.placement.values()) == ["worker-a", "worker-b"]
    assert any("model defect" in note for note in outcome.notes)


def test_affinity_first_pod_of_a_group_and_order(capsys: pytest.CaptureFixture[str]) -> None:
    """Required affinity to their own app in a zone: the first replica may go anywhere, the
    others must follow it; the witness binds the first one first."""
    term = {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": ZONE}
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    objs = [node("a-1", "2", "eu-west-1a"), node("b-1", "2", "eu-west-1b"),
            node("b-2", "2", "eu-west-1b")]  # fmt: skip
    objs += [pod(f"cache-{i}", "1500m", "cache", affinity=affinity) for i in range(3)]
    cluster = from_objects(objs)
    outcome = opt.optimal(cluster, timeout=30)
    assert outcome.result == "optimal" and outcome.best.placed == 2
    assert set(outcome.placement.values()) == {"b-1", "b-2"}
    order = [{"pod": k, "node": n} for k, n in outcome.order]
    assert replays(cluster, order)


@pytest.mark.parametrize("seed", [3, 8])
def test_optimum_equals_brute_force(seed: int) -> None:
    """Every placement of 5 pending pods on 3 nodes (or pending), each validated by replaying it
    in every order: the best count is the optimum's."""
    cluster = gap_cluster(3, 5, seed)
    nodes, bound, pods, _ = opt._split(cluster)
    filters = Filters(nodes, bound, namespace_labels(cluster))
    best = 0
    for combo in itertools.product([None, *(n.name for n in nodes)], repeat=len(pods)):
        placed = [(p, n) for p, n in zip(pods, combo, strict=True) if n is not None]
        if len(placed) > best and find_order(filters, placed, 10**6) is not None:
            best = len(placed)
    outcome = opt.optimal(cluster, timeout=30)
    assert (outcome.result, outcome.best.placed) == ("optimal", best)


# ---- unknown and bad input -----------------------------------------------------------------


def test_out_of_time_is_unknown_never_optimal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = gap_cluster(20, 40, 2)
    outcome = opt.optimal(cluster, timeout=0.01)
    assert outcome.result == "unknown"
    # the best known is greedy's own placement (validated), never called optimal
    assert outcome.best.placed == outcome.greedy_figures.placed
    path = tmp_path / "cluster.json"
    items = [*cluster.nodes, *cluster.pods]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    code, doc = as_json(capsys, str(path), "--timeout", "0.01")
    assert (code, doc["result"]) == (3, "unknown")
    code, text, _ = run(capsys, "optimal", str(path), "--timeout", "0.01")
    assert code == 3 and "unknown: not proven optimal" in text and "(proven)" not in text


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "optimal", str(tmp_path / "missing.yaml"))
    assert code == 2 and "missing.yaml" in err and out == ""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: []}\n")
    code, _, err = run(capsys, "optimal", str(bad))
    assert code == 2 and "spec.containers" in err
    code, _, err = run(capsys, "optimal", FRAGMENTATION, "--timeout", "0")
    assert code == 2 and "--timeout" in err
