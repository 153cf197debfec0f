"""schedspec.live without a server: the client's model objects → manifest dicts → the loader,
the table of kinds read, and the errors that need no API server (kubeconfig, usage, unreachable).
Against a real API server: tests/live/ (``-m apiserver``)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
import yaml

from schedspec.checker.live_cluster import free_port
from schedspec.cli import main
from schedspec.cluster import from_docs
from schedspec.live import READ, Read, manifest
from schedspec.manifest_yaml import Doc
from schedspec.validate import KINDS

k8s = pytest.importorskip("kubernetes.client")

POD = next(r for r in READ if r.kind == "Pod")
NODE = next(r for r in READ if r.kind == "Node")
NODE_INFO = [
    "architecture",
    "boot_id",
    "container_runtime_version",
    "kernel_version",
    "kube_proxy_version",
    "kubelet_version",
    "machine_id",
    "operating_system",
    "os_image",
    "system_uuid",
]
T0 = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def _pod_model() -> object:
    return k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(
            name="web-0",
            namespace="shop",
            uid="0b6f6c1e-0000-4000-8000-000000000001",
            resource_version="42",
            creation_timestamp=T0,
            labels={"app": "web"},
            annotations={
                "kubectl.kubernetes.io/last-applied-configuration": '{"kind":"Pod"}',
                "team": "shop",
            },
            managed_fields=[k8s.V1ManagedFieldsEntry(manager="kubectl", operation="Apply")],
        ),
        spec=k8s.V1PodSpec(
            containers=[
                k8s.V1Container(
                    name="web",
                    image="nginx:1.27",
                    resources=k8s.V1ResourceRequirements(requests={"cpu": "250m"}),
                )
            ],
            tolerations=[
                k8s.V1Toleration(
                    key="node.kubernetes.io/not-ready",
                    operator="Exists",
                    effect="NoExecute",
                    toleration_seconds=300,
                )
            ],
        ),
        status=k8s.V1PodStatus(
            phase="Pending",
            qos_class="Burstable",
            pod_ip="10.0.0.7",
            start_time=T0,
            conditions=[k8s.V1PodCondition(type="PodScheduled", status="False")],
        ),
    )


def test_model_to_manifest() -> None:
    pod = manifest(_pod_model(), POD)
    assert (pod["apiVersion"], pod["kind"]) == ("v1", "Pod")
    meta = pod["metadata"]
    assert "managedFields" not in meta
    assert meta["annotations"] == {"team": "shop"}
    assert meta["creationTimestamp"].startswith("2026-01-02T03:04:05")
    assert pod["spec"]["tolerations"][0]["tolerationSeconds"] == 300  # camelCase, as the API
    # of status, only what the loader reads (SHAPES): not qosClass, not podIP
    assert set(pod["status"]) == {"phase", "startTime", "conditions"}


def test_manifest_loads_through_the_loader() -> None:
    node = k8s.V1Node(
        metadata=k8s.V1ObjectMeta(name="n1", labels={"topology.kubernetes.io/zone": "a"}),
        spec=k8s.V1NodeSpec(taints=[k8s.V1Taint(key="gpu", value="true", effect="NoSchedule")]),
        status=k8s.V1NodeStatus(
            allocatable={"cpu": "4", "memory": "16Gi", "pods": "110"},
            capacity={"cpu": "4", "memory": "16Gi", "pods": "110"},
            node_info=k8s.V1NodeSystemInfo(**dict.fromkeys(NODE_INFO, "x")),
        ),
    )
    objects = [manifest(node, NODE), manifest(_pod_model(), POD)]
    assert "nodeInfo" not in objects[0]["status"]
    cluster = from_docs([Doc(obj, "https://127.0.0.1:6443 (context admin)", {}) for obj in objects])
    assert [n["metadata"]["name"] for n in cluster.nodes] == ["n1"]
    assert [p["metadata"]["name"] for p in cluster.pending_pods()] == ["web-0"]


def test_a_json_item_is_converted_the_same_way() -> None:
    from kubernetes.client import ApiClient

    as_json = ApiClient().sanitize_for_serialization(_pod_model())
    assert manifest(as_json, POD) == manifest(_pod_model(), POD)


def test_invalid_object_is_named_with_the_server_and_the_field() -> None:
    pod = manifest(_pod_model(), POD)
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "12xyz"
    with pytest.raises(Exception) as caught:
        from_docs([Doc(pod, "https://127.0.0.1:6443 (context admin)", {})])
    assert str(caught.value).startswith(
        "https://127.0.0.1:6443 (context admin): Pod shop/web-0: "
        "spec.containers[0].resources.requests.cpu: "
    )


def test_read_table() -> None:
    kinds = [r.kind for r in READ]
    assert len(kinds) == len(set(kinds))
    assert not {"Secret", "ConfigMap"} & set(kinds)  # never read
    for read in READ:
        api = getattr(k8s, read.api)
        assert hasattr(api, read.list_method(False)), read
        assert hasattr(api, read.list_method(True)), read
    # the kinds the loader accepts today are all read when they are in the table
    assert {"Node", "Pod", "Namespace", "PodDisruptionBudget", "PriorityClass"} <= set(KINDS)


@pytest.mark.parametrize(
    ("read", "methods"),
    [
        (Read("v1", "Node", "nodes", namespaced=False), ("CoreV1Api", "list_node", "list_node")),
        (
            Read("policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", namespaced=True),
            (
                "PolicyV1Api",
                "list_pod_disruption_budget_for_all_namespaces",
                "list_namespaced_pod_disruption_budget",
            ),
        ),
    ],
    ids=["node", "pdb"],
)
def test_read_methods(read: Read, methods: tuple[str, str, str]) -> None:
    assert (read.api, read.list_method(False), read.list_method(True)) == methods


# ------------------------------------------------------------------ errors without a server


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _kubeconfig(path: Path, server: str) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": server}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "ctx",
            }
        )
    )
    return path


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["explain", "--pod", "a/b"], "give CLUSTER manifest files or --kubeconfig PATH"),
        (
            ["explain", "examples/gpu-pool.yaml", "--kubeconfig", "k", "--pod", "a/b"],
            "not both",
        ),
        (["eval", "examples/gpu-pool.yaml", "--context", "x"], "go with --kubeconfig"),
        (["snapshot"], "snapshot reads a live cluster: give --kubeconfig PATH"),
    ],
    ids=["nothing", "both", "context-alone", "snapshot-without-kubeconfig"],
)
def test_usage_errors(
    capsys: pytest.CaptureFixture[str], root: Path, argv: list[str], message: str
) -> None:
    argv = [str(root / a) if a.startswith("examples/") else a for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_missing_kubeconfig(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "nope.kubeconfig"
    code, _, err = run(capsys, "snapshot", "--kubeconfig", str(path))
    assert code == 2
    assert f"schedspec snapshot: {path}: cannot read: No such file or directory" in err


def test_kubeconfig_not_yaml(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.kubeconfig"
    path.write_text("clusters: [unclosed\n")
    code, _, err = run(capsys, "explain", "--kubeconfig", str(path), "--pod", "a/b")
    assert code == 2
    assert err.startswith(f"schedspec explain: {path}:2:1: invalid YAML: ")
    assert err.count("\n") == 1


def test_unknown_context(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _kubeconfig(tmp_path / "k", "https://127.0.0.1:1")
    code, _, err = run(capsys, "snapshot", "--kubeconfig", str(path), "--context", "prod")
    assert code == 2
    assert f"{path}: invalid kubeconfig: " in err
    assert "prod" in err


def test_unreachable_server(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    server = f"https://127.0.0.1:{free_port()}"  # nothing listens there
    path = _kubeconfig(tmp_path / "k", server)
    code, _, err = run(capsys, "schedule", "--kubeconfig", str(path))
    assert code == 2
    assert f"schedspec schedule: {server} (context ctx): cannot reach the API server: " in err
    assert err.count("\n") == 1
