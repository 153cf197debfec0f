"""The loader-vs-API-server campaign's mutations and classes, without the oracle."""

from __future__ import annotations

import json
import random
from typing import Any

from schedspec.checker.api_agreement import (
    LOADER_ONLY,
    SERVER_ONLY,
    Disagreement,
    Outcome,
    declared_class,
    disagreement,
    field_pattern,
    is_read,
    mutate,
    pattern,
)

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "app", "image": "nginx", "ports": [{"containerPort": 80}]}]},
}
DONOR: dict[str, Any] = {
    **POD,
    "spec": {**POD["spec"], "tolerations": [{"key": "gpu", "operator": "Exists"}]},
}


def test_mutations_are_reproducible_and_leave_the_original_alone() -> None:
    before = json.dumps(POD, sort_keys=True)
    first = mutate(POD, random.Random(7), [DONOR])
    assert first.obj == mutate(POD, random.Random(7), [DONOR]).obj
    assert json.dumps(POD, sort_keys=True) == before


def test_a_mutation_changes_the_object_and_never_its_apiversion_or_kind() -> None:
    rng = random.Random(0)
    mutations = [mutate(POD, rng, [DONOR]) for _ in range(500)]
    assert all((m.obj["apiVersion"], m.obj["kind"]) == ("v1", "Pod") for m in mutations)
    assert sum(m.obj != POD for m in mutations) > 450  # an edge value may be the value itself
    ops = {m.op.split("+")[0] for m in mutations}
    assert {"drop", "retype", "graft", "string", "rename-key", "unknown-field"} <= ops
    grafted = [m for m in mutations if m.op == "graft"]
    assert grafted and all(m.path == ("spec", "tolerations") for m in grafted)


def test_field_patterns() -> None:
    assert pattern(("spec", "containers", 0, "resources", "requests", "cpu")) == (
        "spec.containers[*].resources.requests.*"
    )
    assert field_pattern('metadata.labels["a/b"]') == "metadata.labels[*]"
    assert field_pattern("spec.containers[1].image") == "spec.containers[*].image"
    assert is_read("Pod", "spec.containers[3].image")
    assert is_read("Pod", "spec.containers.image")  # Go's decode errors drop the indices
    assert not is_read("Pod", "spec.containers[0].imagePullPolicy")


def test_declared_classes() -> None:
    strict = Outcome(
        True,
        False,
        (),
        False,
        ({"field": "spec.x", "type": "UnknownField", "error": "unknown field"},),
    )
    d = disagreement("Pod", strict, None)
    assert declared_class(d) is not None and declared_class(d).name == "unknown fields"  # type: ignore[union-attr]
    unread = Disagreement("Pod", LOADER_ONLY, "spec.dnsPolicy", "FieldValueNotSupported",
                          "", False, False, "x")  # fmt: skip
    assert declared_class(unread).name == "fields the rules never read"  # type: ignore[union-attr]
    read = Disagreement("Pod", LOADER_ONLY, "spec.nodeName", "FieldValueInvalid", "", False,
                        False, "a/b")  # fmt: skip
    assert declared_class(read) is None
    phase = Disagreement("Pod", SERVER_ONLY, "status.phase", "unsupported", "", False, False, "x")
    assert declared_class(phase).name == "pod phase"  # type: ignore[union-attr]
