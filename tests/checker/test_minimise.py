"""The Kubernetes-aware minimiser: small results that still fail, always loadable."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings

from schedspec.checker.minimise import minimise, to_yaml
from schedspec.checker.strategies import cluster_objects
from schedspec.cluster import Cluster, from_objects, loads
from schedspec.errors import ManifestError
from schedspec.impl.api.convert import node_from_dict, pod_from_dict
from schedspec.impl.api.resources import pod_requests, resource_list
from schedspec.impl.plugins import taint_toleration

Objects = list[dict[str, Any]]

_CLUSTER = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Namespace
metadata: {name: prod, labels: {team: a}}
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-1
  labels: {kubernetes.io/hostname: gpu-node-1, topology.kubernetes.io/zone: zone-a, app: web}
spec:
  taints:
  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
  - {key: dedicated, value: infra, effect: PreferNoSchedule}
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110", nvidia.com/gpu: "4"}
  images: [{names: ["nginx:1.27"], sizeBytes: 300000000}]
---
apiVersion: v1
kind: Node
metadata:
  name: cpu-node-1
  labels: {kubernetes.io/hostname: cpu-node-1, topology.kubernetes.io/zone: zone-b}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: bound-web, namespace: prod, labels: {app: web}}
spec:
  nodeName: gpu-node-1
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: 1500m, memory: 1Gi}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: inference, namespace: prod, labels: {app: ml, tier: db}}
spec:
  priorityClassName: high
  nodeSelector: {topology.kubernetes.io/zone: zone-a}
  tolerations: [{key: nvidia.com/gpu, operator: Equal, value: absent, effect: NoSchedule}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector: {matchLabels: {app: ml}}
  containers:
  - name: model
    image: "nginx:1.27"
    resources: {requests: {cpu: 500m, memory: 256Mi, nvidia.com/gpu: "1"}}
    ports: [{containerPort: 8080, hostPort: 8080}]
  - {name: sidecar, image: redis}
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata: {name: batch-job}
spec:
  containers: [{name: c, image: redis, resources: {requests: {cpu: 100m}}}]
status: {phase: Pending}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: prod}
spec: {selector: {matchLabels: {app: web}}, maxUnavailable: 1}
status: {disruptionsAllowed: 1}
"""


def _objects() -> Objects:
    return [d for d in yaml.safe_load_all(_CLUSTER) if d]


def _rejected_by_taint(objects: Objects) -> bool:
    cluster = from_objects(objects)
    return any(
        not taint_toleration.fits(pod_from_dict(p), node_from_dict(n))
        for p in cluster.pending_pods()
        for n in cluster.nodes
    )


def _kinds(objects: Objects) -> list[str]:
    return sorted(o["kind"] for o in objects)


def test_a_taint_rejection_shrinks_to_one_node_one_pod_one_taint() -> None:
    result = minimise(_objects(), _rejected_by_taint)
    assert _kinds(result) == ["Node", "Pod"]
    node, pod = sorted(result, key=lambda o: o["kind"])
    assert len(node["spec"]["taints"]) == 1
    assert node["spec"]["taints"][0]["effect"] in ("NoSchedule", "NoExecute")
    assert "tolerations" not in pod["spec"]
    assert len(pod["spec"]["containers"]) == 1
    assert "nodeName" not in pod["spec"]
    assert _rejected_by_taint(result)


def _free_cpu(cluster: Cluster) -> dict[str, int]:
    free = {
        n["metadata"]["name"]: resource_list(n.get("status", {}).get("allocatable")).get("cpu", 0)
        for n in cluster.nodes
    }
    for pod in cluster.bound_pods():
        free[pod["spec"]["nodeName"]] -= pod_requests(pod_from_dict(pod)).get("cpu", 0)
    return free


def _cpu_exactly_free(objects: Objects) -> bool:
    """Some pending pod requests exactly the free cpu of some node (and more than 0)."""
    cluster = from_objects(objects)
    free = _free_cpu(cluster).values()
    return any(
        0 < pod_requests(pod_from_dict(p)).get("cpu", 0) in free for p in cluster.pending_pods()
    )


def test_a_resource_boundary_keeps_request_equal_to_free_capacity() -> None:
    result = minimise(_objects(), _cpu_exactly_free)
    cluster = from_objects(result)
    (pod,) = cluster.pending_pods()
    (bound,) = cluster.bound_pods()
    node = cluster.find_node(bound["spec"]["nodeName"])
    assert node is not None and len(cluster.nodes) == 1
    request = pod_requests(pod_from_dict(pod))["cpu"]
    assert request == _free_cpu(cluster)[node["metadata"]["name"]] > 0
    assert set(pod_requests(pod_from_dict(pod))) == {"cpu"}  # memory and the gpu dropped
    assert (cluster.pdbs, cluster.namespaces, cluster.priority_classes) == ((), (), ())


def test_keep_protects_objects_from_being_dropped_or_renamed() -> None:
    def keep(obj: dict[str, Any]) -> bool:
        return obj["metadata"]["name"] in ("batch-job", "cpu-node-1")

    result = minimise(_objects(), _rejected_by_taint, keep=keep)
    names = {(o["kind"], o["metadata"]["name"]) for o in result}
    assert {("Pod", "batch-job"), ("Node", "cpu-node-1")} <= names
    assert _rejected_by_taint(result)


def test_dropping_a_node_never_leaves_its_pods_bound_to_nothing() -> None:
    seen: list[Objects] = []

    def records(objects: Objects) -> bool:
        seen.append(objects)
        return _rejected_by_taint(objects)

    minimise(_objects(), records)
    for objects in seen:
        cluster = from_objects(objects)  # every candidate tested loads
        names = {n["metadata"]["name"] for n in cluster.nodes}
        assert all(p["spec"]["nodeName"] in names for p in cluster.bound_pods())
        nominated = (p["status"].get("nominatedNodeName") for p in cluster.pods)
        assert all(n in names for n in nominated if n)


def test_deterministic_and_bounded_by_max_steps() -> None:
    calls = 0

    def counting(objects: Objects) -> bool:
        nonlocal calls
        calls += 1
        return _rejected_by_taint(objects)

    assert minimise(_objects(), _rejected_by_taint) == minimise(_objects(), _rejected_by_taint)
    minimise(_objects(), counting, max_steps=5)
    assert calls <= 6  # the first call confirms the failure


def test_other_exceptions_propagate_and_manifest_errors_mean_no_failure() -> None:
    calls = 0

    def explodes(objects: Objects) -> bool:
        nonlocal calls
        calls += 1
        if calls > 1:
            raise RuntimeError("checker crashed")
        return True

    with pytest.raises(RuntimeError, match="checker crashed"):
        minimise(_objects(), explodes)

    def rejects_smaller(objects: Objects) -> bool:
        if len(objects) < len(_objects()):
            raise ManifestError("not this one")
        return True

    assert minimise(_objects(), rejects_smaller) != []


def test_input_that_does_not_fail_is_refused() -> None:
    with pytest.raises(ValueError, match="nothing to minimise"):
        minimise(_objects(), lambda objects: False)


def test_to_yaml_reads_back_as_the_same_cluster() -> None:
    objects = _objects()
    text = to_yaml(objects)
    assert loads(text) == from_objects(objects)
    first = yaml.safe_load(text.split("---\n")[3])  # the first Node
    assert list(first)[:5] == ["apiVersion", "kind", "metadata", "spec", "status"]
    assert text.count("---\n") == len(objects)


@settings(max_examples=10, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(cluster_objects(min_nodes=2, max_nodes=4, min_pods=2, max_pods=6))
def test_generated_counterexamples_shrink_and_still_fail(objects: Objects) -> None:
    assume(_rejected_by_taint(objects))
    result = minimise(objects, _rejected_by_taint, max_steps=400)
    assert _rejected_by_taint(result)
    assert len(result) <= len(objects)
    assert _kinds(result) == ["Node", "Pod"]
