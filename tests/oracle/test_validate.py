"""The bridge's ``validate`` request: one object through the API server's decoding, defaulting,
create strategy and validation (docs/oracle.md)."""

from __future__ import annotations

from typing import Any

import pytest

from schedspec.checker.oracle import Oracle, OracleRequestError

pytestmark = pytest.mark.oracle


def pod(**spec: Any) -> dict[str, Any]:
    body = {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": body}


def errors(answer: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(e["field"], e["type"], e["phase"]) for e in answer["errors"]]


def test_a_valid_pod_is_valid_and_named_in_its_default_namespace(oracle: Oracle) -> None:
    answer = oracle.validate(pod())
    assert (answer["valid"], answer["errors"], answer["name"]) == (True, [], "default/web")


def test_every_field_error_is_reported_with_its_path_and_type(oracle: Oracle) -> None:
    bad = pod(nodeName="Not_A_Node", priority=1)
    bad["metadata"]["labels"] = {"tier": "front end"}
    bad["spec"]["containers"][0]["image"] = " nginx"
    answer = oracle.validate(bad)
    assert answer["valid"] is False
    assert set(errors(answer)) >= {
        ("metadata.labels", "FieldValueInvalid", "create"),
        ("spec.nodeName", "FieldValueInvalid", "create"),
        ("spec.containers[0].image", "FieldValueInvalid", "create"),
    }


def test_a_wrong_type_is_a_decode_error_naming_the_field(oracle: Oracle) -> None:
    answer = oracle.validate(pod(priority="high"))
    assert errors(answer) == [("spec.priority", "Decode", "decode")]


def test_unknown_fields_are_refused_as_strict_field_validation_does(oracle: Oracle) -> None:
    answer = oracle.validate(pod(tolerations=[{"operator": "Exists", "efect": "NoSchedule"}]))
    assert errors(answer) == [("spec.tolerations[0].efect", "UnknownField", "decode")]


def test_defaulting_runs_before_validation(oracle: Oracle) -> None:
    # A hostNetwork pod's hostPort defaults to its containerPort (pkg/apis/core/v1 defaults);
    # without that, validation would refuse the missing hostPort.
    ports = [{"containerPort": 9100}]
    net = pod(hostNetwork=True, containers=[{"name": "a", "image": "x", "ports": ports}])
    assert oracle.validate(net)["valid"] is True
    ports[0]["hostPort"] = 9101
    assert errors(oracle.validate(net)) == [
        ("spec.containers[0].ports[0].hostPort", "FieldValueInvalid", "create")
    ]


def test_a_status_is_checked_as_the_status_update_that_wrote_it(oracle: Oracle) -> None:
    bound = pod(nodeName="n1")
    bound["status"] = {"phase": "Running", "podIPs": [{"ip": "not-an-ip"}]}
    assert errors(oracle.validate(bound)) == [("status.podIPs[0]", "FieldValueInvalid", "status")]
    bound["status"] = {"phase": "Running", "podIPs": [{"ip": "10.0.0.7"}]}
    assert oracle.validate(bound)["valid"] is True


def test_the_other_kinds(oracle: Oracle) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    node["status"] = {"capacity": {"cpu": "-1"}}
    assert ("status.capacity.cpu", "FieldValueInvalid", "create") in errors(oracle.validate(node))
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Shop"}}
    assert errors(oracle.validate(ns)) == [("metadata.name", "FieldValueInvalid", "create")]
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": "150%"},
        "status": {"currentHealthy": -1},
    }
    assert errors(oracle.validate(pdb)) == [
        ("spec.minAvailable", "FieldValueInvalid", "create"),
        ("status.currentHealthy", "FieldValueInvalid", "status"),
    ]
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "hi"}}
    assert oracle.validate({**pc, "value": 1000})["valid"] is True


def test_an_unsupported_kind_is_a_refused_request(oracle: Oracle) -> None:
    with pytest.raises(OracleRequestError, match='unsupported object "v1" "ConfigMap"'):
        oracle.validate({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    with pytest.raises(OracleRequestError, match='"validate" needs "object"'):
        oracle.request({"op": "validate"})
