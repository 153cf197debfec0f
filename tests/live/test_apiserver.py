"""``--kubeconfig`` and ``snapshot`` against a real kube-apiserver v1.34.2 + etcd (and the real
kube-scheduler): ``python3 -m pytest -m apiserver tests/live`` (deselected by default)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from live_objects import apply

from schedspec.checker.live_cluster import LiveCluster
from schedspec.cli import main
from schedspec.cluster import load, object_key, read_docs
from schedspec.live import READ, Source, read_objects
from schedspec.manifest_yaml import expand

pytestmark = pytest.mark.apiserver

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
AUTOSCALE_FLAGS = [
    "--node-group-label",
    "eks.amazonaws.com/nodegroup",
    "--nodes",
    "1:5:general-m5-large",
    "--nodes",
    "0:3:compute-c5-2xlarge",
    "--nodes",
    "0:2:gpu-g5-xlarge",
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def objects_of(path: Path) -> list[dict[str, Any]]:
    return [item.data for doc in read_docs(path) for item in expand(doc)]


def created(live: LiveCluster, example: Path) -> str:
    """Creates the example's objects; returns the admin kubeconfig's path."""
    apply(live, objects_of(example))
    return str(live.kubeconfig("admin"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_explain_live_is_explain_of_its_snapshot(
    live_cluster: LiveCluster, example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = created(live_cluster, example)
    pod = object_key(load(example).pending_pods()[0])
    code, live, err = run(capsys, "explain", "--kubeconfig", kubeconfig, "--pod", pod)
    assert (code, err) == (0, "")
    snapshot = tmp_path / "cluster.yaml"
    assert run(capsys, "snapshot", "--kubeconfig", kubeconfig, "-o", str(snapshot))[0] == 0
    code, dumped, _ = run(capsys, "explain", str(snapshot), "--pod", pod)
    assert code == 0
    assert live == dumped
    # and the objects came through the API server (defaulting, admission) as the file says
    assert live == run(capsys, "explain", str(example), "--pod", pod)[1]


@pytest.mark.parametrize(
    ("example", "argv"),
    [
        ("zonal-web", ["eval", "--json"]),
        ("preemption", ["schedule", "--json", "--seed", "3"]),
        ("autoscaling", ["autoscale", "--json", *AUTOSCALE_FLAGS]),
    ],
    ids=["eval", "schedule", "autoscale"],
)
def test_other_commands_read_the_same_cluster(
    live_cluster: LiveCluster,
    example: str,
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kubeconfig = created(live_cluster, ROOT / "examples" / f"{example}.yaml")
    snapshot = tmp_path / "cluster.yaml"
    run(capsys, "snapshot", "--kubeconfig", kubeconfig, "-o", str(snapshot))
    code, live, err = run(capsys, argv[0], "--kubeconfig", kubeconfig, *argv[1:])
    assert (code, err) == (0, "")
    assert live == run(capsys, argv[0], str(snapshot), *argv[1:])[1]


def test_crosscheck_checks_the_live_cluster_as_its_snapshot(
    live_cluster: LiveCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = created(live_cluster, ROOT / "examples" / "zonal-web.yaml")
    snapshot = tmp_path / "cluster.yaml"
    run(capsys, "snapshot", "--kubeconfig", kubeconfig, "-o", str(snapshot))
    argv = ["crosscheck", "--examples", "0", "--json"]
    code, live, err = run(capsys, *argv, "--kubeconfig", kubeconfig)
    assert err == ""
    dumped_code, dumped, _ = run(capsys, *argv, "--corpus", str(snapshot))
    live_data, dumped_data = json.loads(live), json.loads(dumped)
    assert (live_data["corpus"], live_data["disagreements"]) == (1, 0)
    # the same pods × nodes compared, predicate by predicate, with the same verdict
    assert live_data["by_predicate"] == dumped_data["by_predicate"]
    assert live_data["by_predicate"]["Feasible"]["checked"] > 0
    assert (code, live_data["vacuous"]) == (dumped_code, dumped_data["vacuous"])


def grant(live: LiveCluster, user: str, resources: list[tuple[str, str]]) -> None:
    """A ClusterRole listing ``resources`` ((API group, plural) pairs), bound to ``user``."""
    from kubernetes import client, config

    rbac = client.RbacAuthorizationV1Api(config.new_client_from_config(str(live.kubeconfig())))
    rules = [{"apiGroups": [g], "resources": [r], "verbs": ["list"]} for g, r in resources]
    rbac.create_cluster_role({"metadata": {"name": f"{user}-reader"}, "rules": rules})
    rbac.create_cluster_role_binding(
        {
            "metadata": {"name": f"{user}-reader"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": f"{user}-reader"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User",
                          "name": user}],
        }
    )  # fmt: skip


def test_rbac_names_the_missing_permission(
    live_cluster: LiveCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    created(live_cluster, ROOT / "examples" / "gpu-pool.yaml")
    grant(live_cluster, "restricted", [(r.group, r.resource) for r in READ if r.kind != "Node"])
    restricted = str(live_cluster.kubeconfig("restricted"))
    code, out, err = run(capsys, "snapshot", "--kubeconfig", restricted)
    assert (code, out) == (2, "")
    assert (
        f"schedspec snapshot: {live_cluster.server} (context restricted): nodes is forbidden: "
        'User "restricted" cannot list resource "nodes" in API group "" at the cluster scope '
        "(RBAC: list nodes at cluster scope is needed)\n"
    ) == err
    pod = "ml/sentiment-inference-5f7d8c9b6-p42cn"
    code, _, err = run(capsys, "explain", "--kubeconfig", restricted, "--pod", pod)
    assert code == 2
    assert 'cannot list resource "nodes"' in err


def test_the_read_list_is_enough(
    live_cluster: LiveCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/live.md's ClusterRole: list on every resource of READ, nothing else."""
    created(live_cluster, ROOT / "examples" / "gpu-pool.yaml")
    grant(live_cluster, "restricted", [(r.group, r.resource) for r in READ])
    restricted = str(live_cluster.kubeconfig("restricted"))
    admin = str(live_cluster.kubeconfig("admin"))
    code, as_restricted, err = run(capsys, "snapshot", "--kubeconfig", restricted, "--json")
    assert (code, err) == (0, "")
    assert as_restricted == run(capsys, "snapshot", "--kubeconfig", admin, "--json")[1]


def test_paging(live_cluster: LiveCluster) -> None:
    created(live_cluster, ROOT / "examples" / "autoscaling.yaml")
    source = Source(str(live_cluster.kubeconfig()))
    whole, _ = read_objects(source)
    paged, _ = read_objects(source, page_size=2)
    assert paged == whole
    assert sum(o["kind"] == "Pod" for o in whole) > 2  # several pages of pods


def test_namespace(live_cluster: LiveCluster, capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = created(live_cluster, ROOT / "examples" / "zonal-web.yaml")
    code, out, _ = run(capsys, "snapshot", "--kubeconfig", kubeconfig, "--namespace", "kube-system",
                       "--json")  # fmt: skip
    assert code == 0
    items = json.loads(out)["items"]
    assert {o["metadata"].get("namespace") for o in items if o["kind"] == "Pod"} <= {"kube-system"}
    assert any(o["kind"] == "Node" for o in items)  # cluster-scoped kinds are read whole
    pod = "shop/web-6c8d9f7b4d-gwjzg"
    code, out, _ = run(capsys, "explain", "--kubeconfig", kubeconfig, "--namespace", "shop",
                       "--pod", pod)  # fmt: skip
    assert code == 0
    assert "warning: only namespace shop was read: pods of other namespaces" in out


def test_real_scheduler_binds_what_schedule_binds(
    live_cluster: LiveCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """kube-scheduler (default profile, leader election off) on the API server binds the pods
    impl's scheduler binds on the same cluster, and leaves the same ones pending."""
    from kubernetes import client, config

    kubeconfig = created(live_cluster, ROOT / "examples" / "zonal-web.yaml")
    code, out, _ = run(capsys, "schedule", "--kubeconfig", kubeconfig, "--json")
    assert code == 0
    expected = set(json.loads(out)["bindings"])
    assert expected
    live_cluster.start_scheduler()
    core = client.CoreV1Api(config.new_client_from_config(kubeconfig))
    deadline, bound = time.monotonic() + 60, set()
    while time.monotonic() < deadline and bound != expected:
        time.sleep(0.2)
        pods = core.list_pod_for_all_namespaces().items
        bound = {f"{p.metadata.namespace}/{p.metadata.name}" for p in pods if p.spec.node_name}
        bound -= {object_key(p) for p in load(ROOT / "examples" / "zonal-web.yaml").bound_pods()}
    assert bound == expected


def test_refused_credentials(
    live_cluster: LiveCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import yaml

    config = yaml.safe_load(live_cluster.kubeconfig("admin").read_text())
    config["users"][0]["user"]["token"] = "not-a-token"
    path = tmp_path / "stale.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    code, _, err = run(capsys, "eval", "--kubeconfig", str(path))
    assert code == 2
    assert err == (
        f"schedspec eval: {live_cluster.server} (context admin): "
        "the API server refused the credentials: Unauthorized\n"
    )
