"""``schedspec compare-config``: the configuration changes of issue 24 each get a witness cluster
on which the two configurations decide differently — under the spec (Z3, replayed on the
executable backend) and under impl — and a change of plugin order alone gets "no difference"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from schedspec.cli import main

_HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

CONFIGS = {
    "default": "profiles:\n- schedulerName: default-scheduler\n",
    "no-balanced": """profiles:
- plugins:
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
""",
    "taint-weight-1": """profiles:
- plugins:
    multiPoint:
      enabled: [{name: TaintToleration, weight: 1}]
""",
    "most-allocated": """profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: {type: MostAllocated}
""",
    "added-affinity": """profiles:
- pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: node-pool, operator: In, values: [batch]}]
""",
    "reordered": """profiles:
- plugins:
    multiPoint:
      enabled:
      - {name: ImageLocality, weight: 1}
      - {name: NodeResourcesBalancedAllocation, weight: 1}
      - {name: TaintToleration, weight: 3}
    filter:
      enabled: [{name: NodeResourcesFit}, {name: TaintToleration}]
""",
    "two-profiles": """profiles:
- schedulerName: default-scheduler
- schedulerName: batch-scheduler
""",
    "ratio": """profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
""",
    "spread-list-none": """profiles:
- pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
""",
    "spread-list-zone": """profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
""",
    "ratio-no-shape": """profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: {type: RequestedToCapacityRatio}
""",
}


@pytest.fixture
def configs(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, body in CONFIGS.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(_HEAD + body)
        out[name] = str(path)
    return out


def _ask(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["compare-config", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("changed", "kind", "plugin"),
    [
        ("no-balanced", "decision", "NodeResourcesBalancedAllocation"),
        ("taint-weight-1", "decision", "TaintToleration"),
        ("most-allocated", "decision", "NodeResourcesFit"),
        ("ratio", "decision", "NodeResourcesFit"),
        ("added-affinity", "feasible", "NodeAffinity"),
        ("spread-list-none", "decision", "PodTopologySpread"),
        ("spread-list-zone", "feasible", "PodTopologySpread"),
    ],
)
def test_a_configuration_change_gets_a_witness_both_spec_and_impl_decide_differently(
    configs: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    changed: str,
    kind: str,
    plugin: str,
) -> None:
    code, report = _ask(capsys, configs["default"], configs[changed])
    shown = json.dumps({k: v for k, v in report.items() if k != "objects"}, indent=1)
    assert code == 1 and report["result"] == "sat" and report["kind"] == kind, shown
    spec, impl = report["decisions"], report["impl"]
    field = "feasible" if kind == "feasible" else "best"
    assert spec["A"][field] != spec["B"][field], shown
    assert impl["A"][field] == spec["A"][field] and impl["B"][field] == spec["B"][field], shown
    assert any(plugin in line for line in report["changes"]), shown
    assert any(plugin in line for line in report["difference"]), shown


def test_a_default_spread_constraint_s_witness_holds_what_selects_its_pod(
    configs: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _ask(capsys, configs["default"], configs["spread-list-none"])
    assert code == 1
    pod = next(o for o in report["objects"] if f"default/{o['metadata']['name']}" == report["pod"])
    services = [o for o in report["objects"] if o["kind"] == "Service"]
    labels = pod["metadata"].get("labels") or {}
    selected = [s for s in services if s["spec"].get("selector")
                and all(labels.get(k) == v for k, v in s["spec"]["selector"].items())]  # fmt: skip
    assert selected, report["objects"]  # without one, no default constraint would apply
    assert "PodTopologySpread defaultingType: System → List" in report["changes"]
    assert any("Service" in note for note in report["notes"])


def test_the_witness_written_under_each_configuration_reloads(
    configs: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code, report = _ask(capsys, configs["default"], configs["most-allocated"], "--out", str(out))
    assert code == 1
    for label in ("A", "B"):
        path = out / f"witness-{label}.yaml"
        docs = list(yaml.safe_load_all(path.read_text()))
        assert docs[-1]["kind"] == "KubeSchedulerConfiguration"
        # explain on the written file (its own configuration) gives the decision reported
        assert main(["explain", str(path), "--pod", report["pod"], "--json"]) == 0
        best = json.loads(capsys.readouterr().out)["best"]
        assert sorted(best) == report["decisions"][label]["best"] == report["impl"][label]["best"]


def test_plugin_order_alone_is_no_difference_within_the_bounds(
    configs: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _ask(capsys, configs["default"], configs["reordered"])
    assert code == 0 and report["result"] == "unsat"
    assert "within the bounds (nodes=3, pods=3" in report["message"]


def test_a_profile_only_one_configuration_has_is_a_difference(
    configs: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _ask(capsys, configs["default"], configs["two-profiles"])
    assert code == 1 and report["kind"] == "profile" and "batch-scheduler" in report["message"]


def test_the_user_s_own_cluster_is_asked_as_it_is(
    configs: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("""apiVersion: v1
kind: Node
metadata: {name: batch-1, labels: {node-pool: batch}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: web-1, labels: {node-pool: web}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: api-0, namespace: shop}
spec:
  containers: [{name: api, image: nginx:1.27, resources: {requests: {cpu: 500m}}}]
""")
    code, report = _ask(
        capsys, configs["default"], configs["added-affinity"], "--cluster", str(cluster)
    )
    assert code == 1 and "nothing is added" in report["scope"]
    (pod,) = report["pods"]
    assert pod["A"]["feasible"] == ["batch-1", "web-1"] and pod["B"]["feasible"] == ["batch-1"]


def test_what_the_spec_does_not_model_and_bad_files_are_refused(
    configs: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["compare-config", configs["default"], configs["ratio-no-shape"]]) == 2
    assert "requestedToCapacityRatio.shape" in capsys.readouterr().err
    empty = tmp_path / "empty.yaml"
    empty.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n")
    assert main(["compare-config", configs["default"], str(empty)]) == 2
    assert "no KubeSchedulerConfiguration" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text(_HEAD + "profiles:\n- plugins:\n    score:\n      enabled: [{name: Nope}]\n")
    assert main(["compare-config", configs["default"], str(bad)]) == 2
    assert "Nope" in capsys.readouterr().err
