"""What the loader learned from the API server: each input here is one the loader accepted and
the real API server rejects (or, for the hostNetwork default, fills in), found by the
loader-vs-API-server campaign (checker/api_agreement.py, docs/reliability.md) and pinned as found.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from schedspec.cluster import from_objects
from schedspec.errors import ManifestError


def pod(**spec: Any) -> dict[str, Any]:
    body = {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": body}


def problems(obj: dict[str, Any]) -> list[str]:
    try:
        from_objects([obj])
    except ManifestError as err:
        return [f"{e.path}: {e.message}" for e in err.errors]
    return []


def with_status(obj: dict[str, Any], **status: Any) -> dict[str, Any]:
    return {**obj, "status": status}


def anti_affinity(key: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": key}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def ports(*items: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": "app", "image": "x", "ports": list(items)}]


CASES = [
    (pod(nodeName="a/b/c"), 'spec.nodeName: "a/b/c" is not a lowercase RFC 1123 subdomain'),
    (
        with_status(pod(), nominatedNodeName="-x"),
        'status.nominatedNodeName: "-x" is not a lowercase RFC 1123 subdomain',
    ),
    (
        pod(nodeName="n1", schedulingGates=[{"name": "example.com/quota"}]),
        "spec.nodeName: cannot be set until all schedulingGates have been cleared",
    ),
    (
        pod(schedulingGates=[{"name": "-kueue.x-k8s.io/admission"}]),
        'spec.schedulingGates[0].name: invalid gate name "-kueue.x-k8s.io/admission"',
    ),
    (
        pod(schedulingGates=[{"name": "a"}, {"name": "a"}]),
        'spec.schedulingGates[1].name: Duplicate value: "a"',
    ),
    (
        pod(containers=[{"name": "app", "image": "nginx:1.27 "}]),
        "spec.containers[0].image: must not have leading or trailing whitespace",
    ),
    (pod(containers=[{"name": "app", "image": ""}]), "spec.containers[0].image: is required"),
    (
        pod(affinity=anti_affinity("*")),
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
        '.topologyKey: invalid label key "*"',
    ),
    (
        pod(
            containers=[
                *ports({"containerPort": 9100, "hostPort": 9100}),
                {"name": "b", "image": "x", "ports": [{"containerPort": 9101, "hostPort": 9100}]},
            ]
        ),
        'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//9100"',
    ),
    (
        pod(hostNetwork=True, containers=ports({"containerPort": 9100, "hostPort": 65535})),
        "spec.containers[0].ports[0].hostPort: 65535 must match containerPort when hostNetwork",
    ),
    (
        pod(tolerations=[{"operator": "Exists", "tolerationSeconds": -(2**63) - 1}]),
        "spec.tolerations[0].tolerationSeconds: must be a 64-bit integer",
    ),
    (
        pod(
            topologySpreadConstraints=[
                {"maxSkew": 2**53, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
            ]
        ),
        "spec.topologySpreadConstraints[0].maxSkew: must be between -2147483648 and 2147483647",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), CASES, ids=lambda v: str(v)[:50])
def test_the_loader_refuses_what_the_api_server_refuses(obj: dict[str, Any], expected: str) -> None:
    found = problems(obj)
    assert any(p.startswith(expected) for p in found), found


def test_each_init_container_has_its_own_host_ports_as_upstream() -> None:
    init = [{"name": f"i{i}", "image": "x", "ports": [{"containerPort": 80, "hostPort": 80}]}
            for i in range(2)]  # fmt: skip
    assert problems(pod(initContainers=init)) == []
    init[0]["ports"].append(copy.deepcopy(init[0]["ports"][0]))
    assert problems(pod(initContainers=init)) == [
        'spec.initContainers[0].ports[1].hostPort: Duplicate value: "TCP//80"'
    ]


def test_a_spread_constraint_takes_any_topology_key_as_the_api_server_does() -> None:
    c = {"maxSkew": 1, "topologyKey": "a/b/c", "whenUnsatisfiable": "DoNotSchedule"}
    assert problems(pod(topologySpreadConstraints=[c])) == []


def test_a_host_network_port_defaults_its_host_port_to_the_container_port() -> None:
    # pkg/apis/core/v1 defaults.go defaultHostNetworkPorts: kube-scheduler's NodePorts then sees
    # the port as taken on the node.
    obj = pod(hostNetwork=True, containers=ports({"containerPort": 61678}))
    loaded = from_objects([obj]).pods[0]
    assert loaded["spec"]["containers"][0]["ports"][0]["hostPort"] == 61678
    assert (
        "hostPort"
        not in from_objects([pod(containers=ports({"containerPort": 1}))]).pods[0]["spec"][
            "containers"
        ][0]["ports"][0]
    )
