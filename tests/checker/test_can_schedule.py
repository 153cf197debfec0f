"""`schedspec can-schedule`: is there a node this pod's constraints accept, and if not, which of
its own fields contradict (examples/questions/placement*.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedspec.checker.placement_impl import impl_feasible
from schedspec.checker.placement_input import load_question
from schedspec.cli import main
from schedspec.cluster import load
from schedspec.spec.load import load_spec
from schedspec.spec.place import replay_feasible

EXAMPLES = Path(__file__).parents[2] / "examples" / "questions"
CLUSTER = str(EXAMPLES / "placement.yaml")
QUESTIONS = str(EXAMPLES / "placement-questions.yaml")
REQ = "requiredDuringSchedulingIgnoredDuringExecution"


def ask(capsys: pytest.CaptureFixture[str], pod: str, *flags: str) -> tuple[int, dict[str, Any]]:
    code = main(["can-schedule", QUESTIONS, "--pod", pod, "--cluster", CLUSTER, "--json", *flags])
    return code, json.loads(capsys.readouterr().out)


def paths(answer: dict[str, Any]) -> set[tuple[str, str]]:
    return {(c["object"], c["path"]) for c in answer["core"]}


def test_a_node_selector_contradicting_node_affinity(capsys: pytest.CaptureFixture[str]) -> None:
    code, answer = ask(capsys, "shop/reports-db")
    assert code == 1 and answer["result"] == "unsat"
    affinity = f"spec.affinity.nodeAffinity.{REQ}.nodeSelectorTerms[0].matchExpressions[0]"
    assert paths(answer) == {
        ("Pod shop/reports-db", "spec.nodeSelector[disktype]"),
        ("Pod shop/reports-db", affinity),
    }
    assert answer["why"][0] == (
        f"spec.nodeSelector[disktype]=ssd contradicts {affinity} (disktype NotIn [ssd])"
    )
    assert answer["core_minimal"] is True
    assert "one node Z3 may add" in answer["nodes_considered"]["text"]


def test_b_a_toleration_that_never_matches_the_cluster_s_taint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, answer = ask(capsys, "shop/gpu-worker", "--existing-only")
    assert code == 1 and answer["result"] == "unsat"
    nodes = ("batch-a-1", "batch-b-1", "batch-c-1")
    assert paths(answer) == {(f"Node {n}", "spec.taints[0]") for n in nodes}
    line, reasons = answer["why"]
    assert reasons == "kube-scheduler would say: node(s) had untolerated taint(s)"
    assert line.startswith(
        "taint dedicated=batch:NoSchedule of node(s) batch-a-1, batch-b-1, batch-c-1 is not "
        "tolerated (node(s) had untolerated taint(s)): spec.tolerations[0] "
        "{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}"
    )
    assert "value gpu ≠ batch" in line
    # a node without the taint takes it: with the added node considered, the answer is sat
    code, answer = ask(capsys, "shop/gpu-worker")
    assert code == 0 and answer["accepted_by"] == [] and answer["node"] is not None
    assert "taints" not in answer["node"].get("spec", {})


@pytest.mark.parametrize("flags", [("--existing-only",), ()])
def test_c_min_domains_beyond_the_domains_the_affinity_leaves(
    capsys: pytest.CaptureFixture[str], flags: tuple[str, ...]
) -> None:
    code, answer = ask(capsys, "shop/ledger-2", *flags)
    assert code == 1 and answer["result"] == "unsat"
    zone = f"spec.affinity.nodeAffinity.{REQ}.nodeSelectorTerms[0].matchExpressions[0]"
    assert {p for _, p in paths(answer)} >= {zone, "spec.topologySpreadConstraints[0].minDomains"}
    assert all(o == "Pod shop/ledger-2" for o, _ in paths(answer))
    text = "\n".join(answer["why"])
    assert "spec.topologySpreadConstraints[0].minDomains=3" in text
    assert "global minimum as 0" in text
    assert "topology.kubernetes.io/zone In [us-east-1a, us-east-1b]" in text
    assert answer["spec_impl_agree"]  # impl's framework rejects every node of the cluster too
    spread = (
        "Unschedulable (PodTopologySpread): node(s) didn't match pod topology spread constraints"
    )
    assert answer["impl"]["batch-a-1"] == {"feasible": False, "message": spread}


def test_sat_gives_a_node_that_loads_and_takes_the_pod_under_spec_and_impl(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, answer = ask(capsys, "shop/etl")  # a Deployment asking for 6 CPUs on ssd
    assert code == 0 and answer["result"] == "sat"
    assert answer["subject"] == {"kind": "Deployment", "key": "shop/etl"}
    assert answer["accepted_by"] == []  # every node has 3920m
    node = answer["node"]
    assert node["metadata"]["labels"]["disktype"] == "ssd"
    (tmp_path / "node.yaml").write_text(yaml.safe_dump(node), encoding="utf-8")
    grown = load(CLUSTER, str(tmp_path / "node.yaml"))
    name = node["metadata"]["name"]
    _, subject = load_question(QUESTIONS, [CLUSTER], "shop/etl")
    assert replay_feasible(load_spec("scheduler"), grown, subject.pod, name)
    assert impl_feasible(grown, subject.pod, name).feasible
    assert answer["impl"][name]["feasible"] and answer["spec_impl_agree"]
    code, answer = ask(capsys, "shop/etl", "--existing-only")
    assert code == 1
    assert paths(answer) == {  # said of the Deployment, at its template's path
        ("Deployment shop/etl", "spec.template.spec.containers[0].resources.requests[cpu]")
    }
    assert "Insufficient cpu" in answer["why"][-1]


def test_a_deployment_the_cluster_takes_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["can-schedule", QUESTIONS, "--pod", "shop/batch-runner", "--cluster", CLUSTER,
                 "--existing-only"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("Deployment shop/batch-runner: nodes considered: the cluster's 3 node")
    assert "batch-a-1 (spec: feasible; impl: feasible)" in out
    assert "pod-template-hash" in out  # the note on what a template does not carry


def test_the_manifest_may_hold_the_cluster(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    one = tmp_path / "one.yaml"
    one.write_text(
        Path(CLUSTER).read_text(encoding="utf-8")
        + "\n---\n"
        + yaml.safe_dump(
            {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "tiny", "namespace": "shop"},
             "spec": {"nodeSelector": {"disktype": "hdd"},
                      "tolerations": [{"key": "dedicated", "operator": "Exists"}],
                      "containers": [{"name": "c", "image": "busybox:1.36"}]}}
        ),
        encoding="utf-8",
    )  # fmt: skip
    assert main(["can-schedule", str(one), "--existing-only", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["accepted_by"] == ["batch-c-1"]


def test_existing_pods_anti_affinity_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def pod(name: str, app: str, node: str = "", anti: bool = False) -> dict[str, Any]:
        spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox:1.36"}]}
        if node:
            spec["nodeName"] = node
        if anti:
            term = {"topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchLabels": {"app": "web"}}}  # fmt: skip
            spec["affinity"] = {"podAntiAffinity": {REQ: [term]}}
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "labels": {"app": app}}, "spec": spec}  # fmt: skip

    nodes = [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
        for n in ("n1", "n2")
    ]  # fmt: skip
    objects = [*nodes, pod("guard-1", "guard", "n1", True), pod("guard-2", "guard", "n2", True)]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all([*objects, pod("web", "web")]))
    assert main(["can-schedule", str(tmp_path / "c.yaml"), "--existing-only", "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert paths(answer) == {
        (f"Pod default/guard-{i}", f"spec.affinity.podAntiAffinity.{REQ}[0]") for i in (1, 2)
    }
    assert "node(s) didn't satisfy existing pods anti-affinity rules" in answer["why"][-1]


def test_a_selector_against_every_ored_term(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def term(*exprs: dict[str, Any]) -> dict[str, Any]:
        return {"matchExpressions": list(exprs)}

    pod = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"},
        "spec": {"nodeSelector": {"x": "1"},
                 "affinity": {"nodeAffinity": {REQ: {"nodeSelectorTerms": [
                     term({"key": "x", "operator": "In", "values": ["2"]},
                          {"key": "y", "operator": "Exists"}),
                     term({"key": "x", "operator": "In", "values": ["3"]})]}}},
                 "containers": [{"name": "c", "image": "busybox:1.36"}]},
    }  # fmt: skip
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(pod), encoding="utf-8")
    assert main(["can-schedule", str(tmp_path / "t.yaml"), "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    terms = f"spec.affinity.nodeAffinity.{REQ}.nodeSelectorTerms"
    assert {p for _, p in paths(answer)} == {  # y Exists is not needed: not in the core
        "spec.nodeSelector[x]",
        f"{terms}[0].matchExpressions[0]",
        f"{terms}[1].matchExpressions[0]",
    }
    assert answer["why"][0].startswith(
        "spec.nodeSelector[x]=1 contradicts each of the required node affinity's "
        "nodeSelectorTerms (ORed): term 0: "
    )
    assert answer["nodes_considered"]["text"].endswith("the cluster has no nodes")


def test_bad_input_exits_2_naming_the_object_and_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["can-schedule", QUESTIONS, "--pod", "shop/nope", "--cluster", CLUSTER]) == 2
    assert "no Pod or workload 'shop/nope'" in capsys.readouterr().err
    assert main(["can-schedule", QUESTIONS, "--cluster", CLUSTER]) == 2
    assert "name the pod with --pod NS/NAME" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  template:\n    spec:\n      containers:\n      - name: web\n",
        encoding="utf-8",
    )
    assert main(["can-schedule", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:8: Deployment shop/web: spec.template.spec.containers[0].image" in err
    assert "Traceback" not in err


def test_a_timeout_is_unknown_never_unsat(capsys: pytest.CaptureFixture[str]) -> None:
    code, answer = ask(capsys, "shop/reports-db", "--timeout", "0.000001")
    assert code == 3 and answer["result"] == "unknown" and answer["core"] == []
    assert "timeout" in answer["message"]


def test_values_past_the_string_universe_turn_unsat_into_unknown(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("schedspec.spec.place._SPARE_STRINGS", 200)  # room for a few values
    nodes = [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": f"n{i}", "labels": {"rack": f"r{i}"}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
        for i in range(40)
    ]  # fmt: skip
    expr = {"key": "disktype", "operator": "NotIn", "values": ["ssd"]}
    pod = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"nodeSelector": {"disktype": "ssd"},
                 "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "rack",
                                                "whenUnsatisfiable": "DoNotSchedule",
                                                "labelSelector": {}}],
                 "affinity": {"nodeAffinity": {REQ: {"nodeSelectorTerms": [
                     {"matchExpressions": [expr]}]}}},
                 "containers": [{"name": "c", "image": "busybox:1.36"}]},
    }  # fmt: skip
    (tmp_path / "racks.yaml").write_text(yaml.safe_dump_all([*nodes, pod]), encoding="utf-8")
    assert main(["can-schedule", str(tmp_path / "racks.yaml"), "--json"]) == 3
    answer = json.loads(capsys.readouterr().out)
    assert answer["result"] == "unknown" and "could not take every label value" in answer["message"]
    assert any("do not fit the solver's string universe" in n for n in answer["notes"])
    assert main(["can-schedule", str(tmp_path / "racks.yaml"), "--existing-only"]) == 1
    capsys.readouterr()


def test_a_spread_key_some_nodes_lack(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # found by drawing clusters: the added node's zone was compared with the placeholder a node
    # without the key gives (an erring Index), and the Z3 backend's equality crashed on it
    nodes = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": labels},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
        for n, labels in (("n0", {}), ("n1", {"topology.kubernetes.io/region": "r1"}))
    ]  # fmt: skip
    spread = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/region",
              "whenUnsatisfiable": "DoNotSchedule",
              "labelSelector": {"matchLabels": {"a": "b"}}}  # fmt: skip
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}},
           "spec": {"topologySpreadConstraints": [spread],
                    "containers": [{"name": "c", "image": "busybox:1.36"}]}}  # fmt: skip
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all([*nodes, pod]), encoding="utf-8")
    assert main(["can-schedule", str(tmp_path / "c.yaml"), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["accepted_by"] == ["n1"] and answer["spec_impl_agree"]
    assert "topology.kubernetes.io/region" in answer["node"]["metadata"]["labels"]


def test_a_pod_admitted_under_a_global_default_class(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the loader fills priorityClassName from the globalDefault class and keeps the pod's own
    # preemptionPolicy; loading that pod a second time refused it (found by drawing clusters)
    objects = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "low"}, "value": 10, "globalDefault": True},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
         "spec": {"preemptionPolicy": "Never",
                  "containers": [{"name": "c", "image": "busybox:1.36"}]}},
    ]  # fmt: skip
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    assert main(["can-schedule", str(tmp_path / "c.yaml"), "--existing-only"]) == 0
    assert "n0 (spec: feasible; impl: feasible)" in capsys.readouterr().out
