"""``schedspec explain``: every rejecting rule per node, in kube-scheduler's words, with witnesses.

Expected messages are worked out by hand from the manifests (examples/ and the small clusters
below) and kube-scheduler's reason strings, not read back from the code under test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedspec.cli import main
from schedspec.cluster import load, loads
from schedspec.errors import UsageError
from schedspec.spec.kube.why import Why, explain_pod
from schedspec.spec.load import LoadedSpec, load_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def scheduler() -> LoadedSpec:
    return load_spec("scheduler")


def _why(spec: LoadedSpec, text: str, pod: str) -> Why:
    return explain_pod(spec, loads(text), pod)


def test_gpu_pod_summary_is_kube_schedulers_fit_error(scheduler: LoadedSpec) -> None:
    # Three GPU nodes carry nvidia.com/gpu=present:NoSchedule; two CPU nodes advertise no GPU.
    why = explain_pod(
        scheduler, load(EXAMPLES / "gpu-pool.yaml"), "ml/sentiment-inference-5f7d8c9b6-p42cn"
    )
    assert why.message == (
        "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, "
        "3 node(s) had untolerated taint(s)."
    )
    assert why.best == ()
    # The most common reason reads first.
    assert [n.reasons[0].plugin for n in why.nodes][:3] == ["TaintToleration"] * 3


def test_short_resource_says_by_how_much(scheduler: LoadedSpec) -> None:
    # Each node: 3920m allocatable, 3600m requested by bound pods; the pod asks for 2 cpu.
    why = explain_pod(
        scheduler, load(EXAMPLES / "preemption.yaml"), "prod/checkout-api-5d9c8b7f6e-v6z8n"
    )
    reason = why.nodes[0].reasons[0]
    assert (reason.plugin, reason.reason, reason.status) == (
        "NodeResourcesFit", "Insufficient cpu", "Unschedulable"
    )  # fmt: skip
    assert reason.details == (
        "cpu: the pod requests 2; the node has 3920m allocatable, 3600m requested by its pods, "
        "so 320m free (short by 1680m)",
    )


CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: a, labels: {kubernetes.io/hostname: a, topology.kubernetes.io/zone: z1, disk: hdd}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {kubernetes.io/hostname: b, topology.kubernetes.io/zone: z2}}
spec:
  unschedulable: true
  taints: [{key: dedicated, value: infra, effect: NoSchedule}]
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: guard, namespace: default, labels: {app: guard}}
spec:
  nodeName: a
  containers: [{name: c, image: busybox}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: topology.kubernetes.io/zone
        labelSelector: {matchLabels: {app: web}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  nodeSelector: {disk: ssd}
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]
"""


def test_every_failing_rule_is_listed_in_filter_order(scheduler: LoadedSpec) -> None:
    why = _why(scheduler, CLUSTER, "default/web")
    by_node = {n.node: n for n in why.nodes}
    # b: cordoned, tainted, and lacks the disk label — three plugins, in profile order.
    assert [r.plugin for r in by_node["b"].reasons] == [
        "NodeUnschedulable", "TaintToleration", "NodeAffinity"
    ]  # fmt: skip
    assert by_node["b"].reasons[2].details == ("nodeSelector disk=ssd: the node has no label disk",)
    # a: wrong disk label, and the guard pod's required anti-affinity selects app=web in z1.
    assert [r.plugin for r in by_node["a"].reasons] == ["NodeAffinity", "InterPodAffinity"]
    assert by_node["a"].reasons[0].details == ("nodeSelector disk=ssd: the node has disk=hdd",)
    repelled = by_node["a"].reasons[1]
    assert repelled.reason == "node(s) didn't satisfy existing pods anti-affinity rules"
    assert repelled.details == (
        "pod default/guard on a has required anti-affinity selecting this pod",
    )
    assert why.message == (
        "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "1 node(s) were unschedulable."
    )


def test_explain_needs_the_scheduler_spec() -> None:
    with pytest.raises(UsageError, match="use --spec scheduler"):
        explain_pod(load_spec("textbook"), loads(CLUSTER), "default/web")


def test_cli_explain_json_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cluster = tmp_path / "c.yaml"
    cluster.write_text(CLUSTER, encoding="utf-8")
    assert main(["explain", str(cluster), "--pod", "default/web", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["nodes"]["a"]["feasible"] is False
    assert doc["nodes"]["a"]["reasons"][1]["rule"] == "ExistingAntiAffinityOK"
    assert main(["explain", str(cluster), "--pod", "default/nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schedspec explain: no pod 'default/nope' in the cluster")
    assert "Traceback" not in err


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_explain_runs_on_every_example(
    scheduler: LoadedSpec, example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = load(EXAMPLES / example)
    for pod in cluster.pending_pods():
        key = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
        assert main(["explain", str(EXAMPLES / example), "--pod", key]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"Pod {key} (priority ")
        why = explain_pod(scheduler, cluster, key)
        # Feasible nodes carry a score, rejected ones at least one reason, never both.
        assert all((n.score is not None) == n.feasible != bool(n.reasons) for n in why.nodes)


BAD = """\
apiVersion: v1
kind: Node
metadata: {name: a, labels: {gen: "5"}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  containers: [{name: c, image: nginx}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: gen, operator: Gt, values: ["3", "4"]}]
        - matchExpressions: [{key: gen, operator: Gt, values: ["4"]}]
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector: {matchExpressions: [{key: app, operator: Exits}]}
"""


def test_bad_selectors_behave_as_kube_scheduler_does(
    scheduler: LoadedSpec, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Gt with two values: that term is skipped, the next (gen > 4) still matches gen=5.
    # "Exits": InterPodAffinity's PreFilter cannot parse the pod, Unresolvable everywhere.
    cluster = loads(BAD)
    assert len(cluster.warnings) == 2
    (node,) = explain_pod(scheduler, cluster, "default/web").nodes
    assert [(r.plugin, r.status) for r in node.reasons] == [
        ("InterPodAffinity", "UnschedulableAndUnresolvable")
    ]
    path = tmp_path / "bad.yaml"
    path.write_text(BAD, encoding="utf-8")
    assert main(["explain", str(path), "--pod", "default/web"]) == 0
    out = capsys.readouterr().out
    assert 'operator "Gt" needs exactly one integer value, got ["3", "4"]' in out
    assert 'unknown operator "Exits"' in out


def test_missing_priority_class_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n"
        "spec: {priorityClassName: gold, containers: [{name: c, image: nginx}]}\n",
        encoding="utf-8",
    )
    assert main(["explain", str(path), "--pod", "default/web"]) == 2
    err = capsys.readouterr().err
    assert err.endswith(
        'p.yaml:4: Pod default/web: spec.priorityClassName: no PriorityClass with name "gold" '
        "was found\n"
    )


def test_a_feasible_node_shows_why_it_won_plugin_by_plugin(scheduler: LoadedSpec) -> None:
    why = explain_pod(scheduler, load(EXAMPLES / "zonal-web.yaml"), "shop/web-6c8d9f7b4d-gwjzg")
    feasible = [n for n in why.nodes if n.feasible]
    assert [n.node for n in feasible] == ["k8s-worker-b-2", "k8s-worker-c-2"]
    for n in feasible:  # the breakdown is Viability's own sum, weights read from its body
        assert sum(x.contribution for x in n.scores) == n.score
        assert [(x.plugin, x.weight) for x in n.scores] == [
            ("TaintToleration", 3), ("NodeAffinity", 2), ("PodTopologySpread", 2),
            ("InterPodAffinity", 2), ("NodeResourcesFit", 1),
            ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1),
        ]  # fmt: skip
    won, lost = ({x.plugin: x for x in n.scores} for n in feasible)
    # the preferred anti-affinity decides: fewer matching pods in b-2's zone
    assert won["InterPodAffinity"].raw > lost["InterPodAffinity"].raw
    assert (won["InterPodAffinity"].score, lost["InterPodAffinity"].score) == (100, 0)
    data = why.as_json()["nodes"]["k8s-worker-b-2"]["scores"]["InterPodAffinity"]
    assert data == {"raw": -150, "score": 100, "weight": 2, "contribution": 200}


def test_a_bound_pod_is_judged_as_if_pending_without_itself(scheduler: LoadedSpec) -> None:
    # web-6c8d9f7b4d-2lvw8 is bound to k8s-worker-a-1; its required anti-affinity repels pods
    # labelled app.kubernetes.io/name=web per hostname, a label it carries. Judged where it
    # stands, its own term matched itself on k8s-worker-a-1 and NodeName rejected the other six.
    cluster = load(EXAMPLES / "zonal-web.yaml")
    why = explain_pod(scheduler, cluster, "shop/web-6c8d9f7b4d-2lvw8")
    assert why.bound_to == "k8s-worker-a-1"
    reasons = [r for n in why.nodes for r in n.reasons]
    assert not any(r.plugin == "NodeName" for r in reasons)
    assert not any("web-6c8d9f7b4d-2lvw8 on" in d for r in reasons for d in r.details)
    assert "k8s-worker-a-1" in {n.node for n in why.nodes if n.feasible}
    assert why.as_json()["bound_to"] == "k8s-worker-a-1"
