"""Proof that the real kube-scheduler answers: clusters where the reference
(kube-scheduler-semantics.md) states what kube-scheduler v1.34 does and the textbook spec
(spec/kube/textbook.tla) says otherwise. Each test cites the divergence number of the reference §2.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from oracle_builders import cluster, node, plugin_status, pod, verdicts

from schedspec.checker.oracle import Oracle

pytestmark = pytest.mark.oracle


def test_empty_key_exists_toleration_tolerates_every_taint(oracle: Oracle) -> None:
    # §2 #17: textbook Exists requires the keys to be equal; real: empty key + Exists matches all.
    taints = [
        {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"},
    ]
    c = cluster(
        node("tainted", taints=taints),
        pod("tolerates-all", tolerations=[{"operator": "Exists"}]),
        pod("tolerates-none"),
    )
    tolerant = oracle.filter(c, "default/tolerates-all")
    assert plugin_status(tolerant, "tainted", "TaintToleration")["code"] == "Success"
    assert tolerant["feasible"] == ["tainted"]
    intolerant = oracle.filter(c, "default/tolerates-none")
    status = plugin_status(intolerant, "tainted", "TaintToleration")
    assert status["code"] == "UnschedulableAndUnresolvable"
    assert status["reasons"] == ["node(s) had untolerated taint(s)"]


@pytest.mark.parametrize(
    ("effect", "code"),
    [
        ("NoSchedule", "UnschedulableAndUnresolvable"),
        ("NoExecute", "UnschedulableAndUnresolvable"),
        ("PreferNoSchedule", "Success"),  # §2 #19: PreferNoSchedule never filters
    ],
    ids=["NoSchedule", "NoExecute", "PreferNoSchedule"],
)
def test_which_taint_effects_filter(oracle: Oracle, effect: str, code: str) -> None:
    c = cluster(node("n", taints=[{"key": "k", "value": "v", "effect": effect}]), pod("p"))
    assert plugin_status(oracle.filter(c, "default/p"), "n", "TaintToleration")["code"] == code


def test_prefer_no_schedule_taint_only_lowers_the_score(oracle: Oracle) -> None:
    # §1.5 Score: reverse-normalised count of untolerated PreferNoSchedule taints.
    c = cluster(
        node("clean"),
        node("soft", taints=[{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]),
        pod("p"),
    )
    answer = oracle.score(c, "default/p")
    taint_scores = {
        s["node"]: next(p for p in s["plugins"] if p["plugin"] == "TaintToleration")
        for s in answer["scores"]
    }
    assert (taint_scores["clean"]["raw"], taint_scores["soft"]["raw"]) == (0, 1)
    assert (taint_scores["clean"]["normalized"], taint_scores["soft"]["normalized"]) == (100, 0)
    assert taint_scores["clean"]["weight"] == 3
    assert answer["max_score_nodes"] == ["clean"]


def test_init_containers_count_by_their_max_not_their_sum(oracle: Oracle) -> None:
    # §2 #13: effective request = max(Σ app, max init); here app asks nothing, inits 1 and 1.5 cpu.
    inits = [
        {"name": "init-a", "image": "busybox", "resources": {"requests": {"cpu": "1"}}},
        {"name": "init-b", "image": "busybox", "resources": {"requests": {"cpu": "1500m"}}},
    ]
    c = cluster(
        node("small", cpu="1200m"),
        node("medium", cpu="2"),
        node("medium-busy", cpu="2"),
        pod("running", cpu="1", node_name="medium-busy"),
        pod("p", cpu="", initContainers=inits),
    )
    answer = oracle.filter(c, "default/p")
    # 1.5 cpu > 1.2 allocatable: preemption cannot help (Unresolvable); 1.5 > 1 free: it could.
    assert verdicts(answer) == {
        "small": "UnschedulableAndUnresolvable",
        "medium": "Success",
        "medium-busy": "Unschedulable",
    }
    assert plugin_status(answer, "small", "NodeResourcesFit")["reasons"] == ["Insufficient cpu"]


@pytest.mark.parametrize(
    ("host_ip", "code"),
    [
        ("", "Unschedulable"),  # 0.0.0.0 conflicts with the port on any IP
        ("0.0.0.0", "Unschedulable"),
        ("10.0.0.1", "Unschedulable"),  # the same IP
        ("10.0.0.2", "Success"),  # another IP: no conflict
    ],
    ids=["unset", "0.0.0.0", "same-ip", "other-ip"],
)
def test_host_port_wildcard_and_specific_ip(oracle: Oracle, host_ip: str, code: str) -> None:
    used = {"containerPort": 80, "hostPort": 8080, "hostIP": "10.0.0.1"}
    wanted: dict[str, object] = {"containerPort": 80, "hostPort": 8080}
    if host_ip:
        wanted["hostIP"] = host_ip
    c = cluster(
        node("n"),
        pod("running", node_name="n", container={"ports": [used]}),
        pod("p", container={"ports": [wanted]}),
    )
    status = plugin_status(oracle.filter(c, "default/p"), "n", "NodePorts")
    assert status["code"] == code


def test_node_selector_and_required_affinity_must_both_hold(oracle: Oracle) -> None:
    # §2 #26: the textbook lists them as separate Filters without the conjunction.
    required = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}
        ]
    }
    c = cluster(
        node("ssd-z1", labels={"disk": "ssd", "zone": "z1"}),
        node("ssd-z2", labels={"disk": "ssd", "zone": "z2"}),
        node("hdd-z1", labels={"disk": "hdd", "zone": "z1"}),
        pod(
            "p",
            nodeSelector={"disk": "ssd"},
            affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}},
        ),
    )
    answer = oracle.filter(c, "default/p")
    assert answer["feasible"] == ["ssd-z1"]
    for rejected in ("ssd-z2", "hdd-z1"):
        status = plugin_status(answer, rejected, "NodeAffinity")
        assert status["code"] == "UnschedulableAndUnresolvable"
        assert status["reasons"] == ["node(s) didn't match Pod's node affinity/selector"]


def _with_terms(terms: list[dict[str, object]]) -> dict[str, Any]:
    required = {"nodeSelectorTerms": terms}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}
    return pod("p", affinity=affinity)


def test_an_empty_node_selector_terms_list_is_rejected_by_the_api(oracle: Oracle) -> None:
    # §1.6: API validation rejects an empty nodeSelectorTerms list (the textbook would evaluate
    # ∃ T ∈ {} : … as FALSE and reject every node). Built by hand: schedspec.cluster refuses it too.
    body = {"nodes": [node("n")], "pods": [_with_terms([])]}
    body["pods"][0]["metadata"]["namespace"] = "default"
    answer = oracle.request_line('{"op":"filter","pod":"default/p","cluster":' + _dump(body) + "}")
    assert answer["ok"] is False
    assert "nodeSelectorTerms" in answer["error"]


def test_an_empty_node_selector_term_matches_no_node(oracle: Oracle) -> None:
    # §2 #22: a term with neither matchExpressions nor matchFields matches nothing.
    c = cluster(node("a", labels={"zone": "z1"}), node("b"), _with_terms([{}]))
    answer = oracle.filter(c, "default/p")
    assert answer["feasible"] == []
    assert set(verdicts(answer).values()) == {"UnschedulableAndUnresolvable"}


def test_fit_error_message_counts_reasons_over_nodes(oracle: Oracle) -> None:
    # §1.0 step 7: "0/N nodes are available: <count> <reason>, …" sorted by reason text, one
    # reason per node (the first rejecting plugin of the chain); preemption's verdict follows.
    c = cluster(
        node("busy", cpu="500m", labels={"zone": "z1"}),
        node("tainted", labels={"zone": "z1"}, taints=[{"key": "k", "effect": "NoSchedule"}]),
        node("elsewhere", labels={"zone": "z2"}),
        pod("p", cpu="1", nodeSelector={"zone": "z1"}),
    )
    expected = (
        "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node "
        "affinity/selector, 1 node(s) had untolerated taint(s)."
    )
    assert oracle.filter(c, "default/p")["fit_error"] == expected
    result = oracle.schedule(c, seed=0)
    assert result["bindings"] == {}
    pending = result["unschedulable"]["default/p"]
    assert pending["message"].startswith(expected + " ")
    assert "preemption: 0/3 nodes are available: " in pending["message"]
    assert pending["plugins"] == ["NodeAffinity", "NodeResourcesFit", "TaintToleration"]


def _dump(body: object) -> str:
    return json.dumps(body, separators=(",", ":"))


def test_mismatch_label_keys_are_merged_into_the_selector_as_at_pod_creation(
    oracle: Oracle,
) -> None:
    """The API server turns mismatchLabelKeys into `key NotIn (value)` (MatchLabelKeysInPodAffinity,
    GA): a pod of pool db whose required affinity wants app=batch pods of *another* pool does not
    match itself, so with no other such pod it fits nowhere; a pod of pool web does fit (and
    impl and the spec say the same)."""
    term = {
        "topologyKey": "kubernetes.io/hostname",
        "labelSelector": {"matchLabels": {"app": "batch"}},
        "mismatchLabelKeys": ["example.com/pool"],
    }
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    loner = pod("loner", affinity=affinity)
    loner["metadata"]["labels"] = {"app": "batch", "example.com/pool": "db"}
    other = pod("other", node_name="n1")
    other["metadata"]["labels"] = {"app": "batch", "example.com/pool": "web"}
    alone = oracle.filter(cluster(node("n1"), loner), "default/loner")
    assert verdicts(alone) == {"n1": "UnschedulableAndUnresolvable"}
    beside = oracle.filter(cluster(node("n1"), loner, other), "default/loner")
    assert verdicts(beside) == {"n1": "Success"}
