"""Selectors the loader accepts with a warning and the API server refuses: spec and impl must
decide them alike, as upstream's parsers do (labels.NewRequirement, LabelSelectorAsSelector,
nodeSelectorRequirementsAsFieldSelector, framework.NewPodInfo).

Each case is one pending pod beside two nodes and a bound pod. Before, on about a third of them
the spec and impl decided differently (scheduler.tla did not check label syntax in selectors;
impl let a pod whose anti-affinity or preferred terms did not parse pass InterPodAffinity's
PreFilter, and refused matchFields keys other than metadata.name, which upstream reads as "").
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from schedspec.checker.differential import Checker
from schedspec.cluster import loads

BASE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1, zone: a, cores: "4"}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2, zone: b, cores: "8"}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default, labels: {app: web}}
spec:
  nodeName: n1
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
status: {phase: Running}
"""


def _req(key: str, op: str, values: list[str] | None = None) -> dict[str, Any]:
    return {"key": key, "operator": op, **({} if values is None else {"values": values})}


REQUIREMENTS = {
    "In without values": _req("zone", "In", []),
    "In without a values field": _req("zone", "In"),
    "Exists with values": _req("zone", "Exists", ["a"]),
    "a key that is not label syntax": _req("Bad Key!", "DoesNotExist"),
    "an unknown operator": _req("zone", "Foo", ["a"]),
    "a value that is not label syntax": _req("zone", "In", ["a", "bad value!"]),
    "NotIn a value that is not label syntax": _req("zone", "NotIn", ["bad value!"]),
}
NODE_ONLY = {
    "Gt with two values": _req("cores", "Gt", ["2", "9"]),
    "Gt with a non-integer": _req("cores", "Gt", ["x"]),
    "Gt with a negative integer (not a label value)": _req("cores", "Gt", ["-1"]),
}
FIELDS = {
    "a matchFields key other than metadata.name": _req("metadata.labels", "In", ["n1"]),
    "matchFields NotIn on another key": _req("spec.x", "NotIn", ["n1"]),
    "matchFields Exists": _req("metadata.name", "Exists"),
    "matchFields with two values": _req("metadata.name", "In", ["n1", "n2"]),
}
_R = "requiredDuringSchedulingIgnoredDuringExecution"
_P = "preferredDuringSchedulingIgnoredDuringExecution"


def _cases() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, r in {**REQUIREMENTS, **NODE_ONLY}.items():
        term = {"matchExpressions": [r]}
        other = {"matchExpressions": [_req("zone", "In", ["b"])]}
        out[f"required node affinity, {name}"] = {
            "affinity": {"nodeAffinity": {_R: {"nodeSelectorTerms": [term]}}}
        }
        out[f"required node affinity beside a good term, {name}"] = {
            "affinity": {"nodeAffinity": {_R: {"nodeSelectorTerms": [term, other]}}}
        }
        out[f"preferred node affinity, {name}"] = {
            "affinity": {"nodeAffinity": {_P: [{"weight": 5, "preference": term}]}}
        }
    for name, r in REQUIREMENTS.items():
        sel = {"matchExpressions": [r]}
        pa = {"labelSelector": sel, "topologyKey": "zone"}
        out[f"pod affinity, {name}"] = {"affinity": {"podAffinity": {_R: [pa]}}}
        out[f"pod anti-affinity, {name}"] = {"affinity": {"podAntiAffinity": {_R: [pa]}}}
        out[f"preferred pod affinity, {name}"] = {
            "affinity": {"podAffinity": {_P: [{"weight": 3, "podAffinityTerm": pa}]}}
        }
        for when in ("DoNotSchedule", "ScheduleAnyway"):
            out[f"spread {when}, {name}"] = {
                "topologySpreadConstraints": [
                    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": when,
                     "labelSelector": sel}
                ]
            }  # fmt: skip
    for name, f in FIELDS.items():
        term = {"matchFields": [f]}
        out[f"required node affinity, {name}"] = {
            "affinity": {"nodeAffinity": {_R: {"nodeSelectorTerms": [term]}}}
        }
        out[f"preferred node affinity, {name}"] = {
            "affinity": {"nodeAffinity": {_P: [{"weight": 5, "preference": term}]}}
        }
    bad_labels = {"labelSelector": {"matchLabels": {"app": "bad value!"}}, "topologyKey": "zone"}
    out["pod affinity, matchLabels value not label syntax"] = {
        "affinity": {"podAffinity": {_R: [bad_labels]}}
    }
    out["spread, matchLabels key not label syntax"] = {
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"Bad Key!": "x"}}}
        ]
    }  # fmt: skip
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker("scheduler")


@pytest.mark.parametrize("case", sorted(CASES))
def test_spec_and_impl_decide_a_warned_selector_alike(checker: Checker, case: str) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "containers": [
                {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}
            ],
            **copy.deepcopy(CASES[case]),
        },
        "status": {"phase": "Pending"},
    }
    cluster = loads(yaml.safe_dump_all([*yaml.safe_load_all(BASE), pod]), source="<case>")
    if "Gt with two values" not in case and "negative" not in case:
        assert cluster.warnings, "the loader should warn about this input"
    result = checker.check(cluster)
    assert not result.undeclared, "\n".join(map(str, result.undeclared))


def test_a_pod_whose_preferred_pod_affinity_does_not_parse_is_rejected_at_prefilter(
    checker: Checker,
) -> None:
    """Upstream NewPodInfo parses every term, preferred ones too, before InterPodAffinity could
    skip; the pod is UnschedulableAndUnresolvable ("parsing pod: preferredAffinityTerms: …")."""
    from schedspec.impl.api.convert import pod_from_dict
    from schedspec.impl.plugins.inter_pod_affinity import parse_error

    spec = copy.deepcopy(CASES["preferred pod affinity, In without values"])
    pod = pod_from_dict(
        {"metadata": {"name": "p", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec}}
    )  # fmt: skip
    why = parse_error(pod)
    assert why is not None and why.startswith("preferredAffinityTerms: ")
