"""spec/kube/profiles.py: a KubeSchedulerConfiguration as scheduler.tla reads it, against the
upstream merge/expand/weight rules (default_plugins.go mergePluginSet, framework.go
expandMultiPointPlugins and getScoreWeights), and what the spec refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schedspec.cli import main
from schedspec.errors import ManifestError
from schedspec.spec.kube.profiles import profiles
from schedspec.spec.kube.scheduler_view import node_affinity_record
from schedspec.spec.values import Fcn

_KSC = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def _profile(**profile: Any) -> Fcn:
    out = profiles({**_KSC, "profiles": [profile]}, node_affinity_record)
    name = profile.get("schedulerName", "default-scheduler")
    value = out[name]
    assert isinstance(value, Fcn)
    return value


def test_the_default_profile_has_v1_34_s_weights_and_points() -> None:
    p = profiles(None, node_affinity_record)["default-scheduler"]
    assert dict(p["scores"]) == {
        "TaintToleration": 3, "NodeAffinity": 2, "PodTopologySpread": 2, "InterPodAffinity": 2,
        "NodeResourcesFit": 1, "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1,
    }  # fmt: skip
    assert p["preFilters"] == {
        "NodeAffinity", "NodePorts", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity"
    }  # fmt: skip
    assert "ImageLocality" not in p["preScores"] and p["postFilters"] == {"DefaultPreemption"}
    assert p["fitStrategy"] == "LeastAllocated" and p["hardPodAffinityWeight"] == 1


def test_score_disabled_keeps_its_pre_score_multi_point_disabled_removes_every_point() -> None:
    p = _profile(plugins={"score": {"disabled": [{"name": "NodeAffinity"}]}})
    assert "NodeAffinity" not in p["scores"] and "NodeAffinity" in p["preScores"]
    assert "NodeAffinity" in p["filters"]
    q = _profile(plugins={"multiPoint": {"disabled": [{"name": "NodeAffinity"}]}})
    for point in ("preFilters", "filters", "preScores"):
        assert "NodeAffinity" not in q[point]
    assert "NodeAffinity" not in q["scores"]


def test_a_star_disables_every_default_at_that_point_only() -> None:
    p = _profile(plugins={"score": {"disabled": [{"name": "*"}]}})
    assert dict(p["scores"]) == {} and "TaintToleration" in p["filters"]


def test_weights_score_set_first_then_multi_point_and_zero_counts_as_one() -> None:
    p = _profile(plugins={
        "multiPoint": {"enabled": [{"name": "TaintToleration", "weight": 7},
                                   {"name": "ImageLocality", "weight": 0}]},
        "score": {"enabled": [{"name": "TaintToleration", "weight": 9}]},
    })  # fmt: skip
    assert p["scores"]["TaintToleration"] == 9 and p["scores"]["ImageLocality"] == 1


def test_an_empty_resource_list_and_a_zero_weight_take_the_v1_defaults() -> None:
    from schedspec.impl.plugins.node_resources_fit import NodeResourcesFit

    for resources, want in (([], [("cpu", 1), ("memory", 1)]), ([{"name": "cpu"}], [("cpu", 1)])):
        args = {"scoringStrategy": {"type": "MostAllocated", "resources": resources}}
        p = _profile(pluginConfig=[{"name": "NodeResourcesFit", "args": args}])
        assert [(r["name"], r["weight"]) for r in p["fitResources"]] == want
        assert list(NodeResourcesFit.new(args, None).resources) == want  # type: ignore[arg-type]


def test_plugin_args_are_read() -> None:
    p = _profile(pluginConfig=[
        {"name": "NodeResourcesFit", "args": {
            "scoringStrategy": {"type": "MostAllocated",
                                "resources": [{"name": "cpu", "weight": 3},
                                              {"name": "nvidia.com/gpu", "weight": 5}]},
            "ignoredResources": ["example.com/fpga"], "ignoredResourceGroups": ["nvidia.com"]}},
        {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 0,
                                               "ignorePreferredTermsOfExistingPods": True}},
    ])  # fmt: skip
    assert p["fitStrategy"] == "MostAllocated"
    assert [(r["name"], r["weight"]) for r in p["fitResources"]] == [
        ("cpu", 3),
        ("nvidia.com/gpu", 5),
    ]
    assert p["ignoredResources"] == {"example.com/fpga"}
    assert p["ignoredResourceGroups"] == {"nvidia.com"}
    assert p["hardPodAffinityWeight"] == 0 and p["ignorePreferredTermsOfExistingPods"] is True


def test_spread_defaults_are_the_system_ones_unless_a_list_is_configured() -> None:
    default = profiles(None, node_affinity_record)["default-scheduler"]
    assert default["spreadSystemDefaulted"] is True
    assert [(c["topologyKey"], c["maxSkew"], c["whenUnsatisfiable"])
            for c in default["spreadDefaults"]] == [
        ("kubernetes.io/hostname", 3, "ScheduleAnyway"),
        ("topology.kubernetes.io/zone", 5, "ScheduleAnyway"),
    ]  # fmt: skip
    listed = {"pluginConfig": [{"name": "PodTopologySpread", "args": {
        "defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
             "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3}]}}]}  # fmt: skip
    p = profiles({**_KSC, "profiles": [listed]}, node_affinity_record)["default-scheduler"]
    assert p["spreadSystemDefaulted"] is False
    (c,) = p["spreadDefaults"]
    assert (c["maxSkew"], c["whenUnsatisfiable"], c["minDomains"], c["nodeAffinityPolicy"]) == (
        1, "DoNotSchedule", 3, "Honor")  # fmt: skip
    assert "labelSelector" not in c and c["defaulted"] is True
    none = {"pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]}
    p = profiles({**_KSC, "profiles": [none]}, node_affinity_record)["default-scheduler"]
    assert p["spreadDefaults"] == () and p["spreadSystemDefaulted"] is False


@pytest.mark.parametrize(
    ("profile", "path"),
    [
        ({"pluginConfig": [{"name": "NodeResourcesFit", "args": {
            "scoringStrategy": {"type": "RequestedToCapacityRatio"}}}]},
         "profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape"),
        ({"pluginConfig": [{"name": "NodeResourcesBalancedAllocation", "args": {
            "resources": [{"name": "nvidia.com/gpu", "weight": 1}]}}]},
         "profiles[0].pluginConfig[0].args.resources"),
        ({"plugins": {"preFilter": {"disabled": [{"name": "NodePorts"}]}}},
         "profiles[0].plugins.preFilter"),
        ({"plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]}}},
         "profiles[0].plugins.multiPoint"),
    ],
)  # fmt: skip
def test_what_the_spec_does_not_model_is_refused_with_the_field_path(
    profile: dict[str, Any], path: str
) -> None:
    with pytest.raises(ManifestError) as err:
        profiles({**_KSC, "profiles": [profile]}, node_affinity_record)
    assert err.value.path == path


_CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: infra-1, labels: {kubernetes.io/hostname: infra-1}}
spec:
  taints: [{key: dedicated, value: infra, effect: NoSchedule}]
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop}
spec:
  containers: [{name: web, image: nginx:1.27}]
---
apiVersion: v1
kind: Pod
metadata: {name: batch-0, namespace: shop}
spec:
  schedulerName: batch-scheduler
  containers: [{name: job, image: busybox}]
"""

_NO_TAINTS = """
---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      disabled: [{name: TaintToleration}]
"""


def test_eval_and_explain_follow_the_cluster_s_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    default = tmp_path / "default.yaml"
    default.write_text(_CLUSTER)
    configured = tmp_path / "configured.yaml"
    configured.write_text(_CLUSTER + _NO_TAINTS)
    assert main(["explain", str(default), "--pod", "shop/web-0"]) == 0
    assert "untolerated taint" in capsys.readouterr().out
    assert main(["explain", str(configured), "--pod", "shop/web-0"]) == 0
    out = capsys.readouterr().out
    assert "1/1 nodes are feasible" in out and "TaintToleration" not in out
    # a pod no profile names is another scheduler's
    assert main(["explain", str(configured), "--pod", "shop/batch-0"]) == 2
    assert "no profile" in capsys.readouterr().err
