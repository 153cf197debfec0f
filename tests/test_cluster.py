"""Tests for schedspec.cluster: quantities, defaults, input forms, warnings, golden errors.

Golden fixtures live in tests/golden/manifests: ``<name>.yaml`` (or ``.json``) and
``<name>.expected``, the exact rendered ManifestError for the path as given to ``load``
(relative to the repository root). After changing a message on purpose, regenerate with::

    PYTHONPATH=. python3 tests/test_cluster.py

and review the diff of the ``.expected`` files.
"""

from __future__ import annotations

import contextlib
import json
import textwrap
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from schedspec.cluster import (
    Cluster,
    from_objects,
    load,
    loads,
    milli_value,
    object_key,
    parse_quantity,
    value,
)
from schedspec.errors import ManifestError
from tests.mutations import json_values, paths, replaced

REPO = Path(__file__).resolve().parent.parent
GOLDEN = Path("tests/golden/manifests")


def manifest(text: str) -> Cluster:
    return loads(textwrap.dedent(text), source="t.yaml")


def error(text: str) -> str:
    with pytest.raises(ManifestError) as info:
        manifest(text)
    return str(info.value)


POD = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: app, image: nginx}]
"""


def pod_with(spec_yaml: str, *, name: str = "p", extra: str = "") -> str:
    """A pod manifest whose spec has the containers plus ``spec_yaml`` (indented 2)."""
    body = textwrap.indent(textwrap.dedent(spec_yaml), "  ")
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\n"
        f"spec:\n  containers: [{{name: app, image: nginx}}]\n{body}{extra}"
    )


# ---------------------------------------------------------------------------------- quantities


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100m", Fraction(1, 10)),
        ("0.1", Fraction(1, 10)),
        (".5", Fraction(1, 2)),
        ("1.", Fraction(1)),
        ("+2", Fraction(2)),
        ("-2", Fraction(-2)),
        ("1Ki", Fraction(1024)),
        ("1.5Gi", Fraction(3 * 2**29)),
        ("1e3", Fraction(1000)),
        ("5E-3", Fraction(5, 1000)),
        ("1E", Fraction(10**18)),
        ("2k", Fraction(2000)),
        ("3M", Fraction(3 * 10**6)),
        ("250u", Fraction(250, 10**6)),
        ("1n", Fraction(1, 10**9)),
        ("0.1n", Fraction(1, 10**9)),
        ("0", Fraction(0)),
        (4, Fraction(4)),
        (0.25, Fraction(1, 4)),
        (1.5e3, Fraction(1500)),
    ],
    ids=lambda v: repr(v),
)
def test_parse_quantity(text: str | int | float, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "12xyz",
        "1.2.3",
        "Mi",
        "1 Gi",
        " 1",
        "1mi",
        "1K",
        "1e",
        "",
        ".",
        "-",
        "1Kib",
        "e3",
        "1e99999",
        True,
        None,
        float("nan"),
        float("inf"),
    ],
    ids=repr,
)
def test_parse_quantity_rejects(text: Any) -> None:
    with pytest.raises(ValueError):
        parse_quantity(text)


@pytest.mark.parametrize("text", ["1x", True, ["1"], {"cpu": "1"}, float("nan")], ids=repr)
def test_milli_value_and_value_reject_what_is_not_a_quantity(text: Any) -> None:
    # ValueError even for an unhashable value, which a cache would turn into a TypeError
    for convert in (milli_value, value):
        with pytest.raises(ValueError):
            convert(text)


def test_a_float_counts_as_written_not_as_the_integer_it_equals() -> None:
    # 1e23 == 99999999999999991611392 in Python; the quantities differ (a cache must not mix them)
    assert parse_quantity(99999999999999991611392) == 99999999999999991611392
    assert parse_quantity(1e23) == 10**23
    assert parse_quantity(99999999999999991611392) == 99999999999999991611392
    assert value(1e23) == 10**23 and value(99999999999999991611392) == 99999999999999991611392
    assert milli_value(1e23) == 10**26


@pytest.mark.parametrize(
    ("text", "milli", "whole"),
    [
        ("100m", 100, 1),
        ("0.1", 100, 1),
        ("1Ki", 1024000, 1024),
        ("1e3", 1000000, 1000),
        ("1.5Gi", 1610612736000, 1610612736),
        ("1n", 1, 1),
        ("1500m", 1500, 2),
        ("0", 0, 0),
        (2, 2000, 2),
    ],
    ids=repr,
)
def test_milli_value_and_value_round_up(text: str | int, milli: int, whole: int) -> None:
    assert (milli_value(text), value(text)) == (milli, whole)


# ------------------------------------------------------------------------------------ defaults


def test_pod_defaults() -> None:
    pod = manifest(
        pod_with(
            """\
            initContainers:
            - name: init
              image: busybox
              ports: [{containerPort: 53, protocol: UDP}, {containerPort: 54}]
            resources:
              limits: {cpu: "2"}
            """
        )
    ).pods[0]
    assert pod["metadata"]["namespace"] == "default"
    assert pod["metadata"]["uid"]
    assert pod["spec"]["schedulerName"] == "default-scheduler"
    assert pod["status"] == {"phase": "Pending"}
    ports = pod["spec"]["initContainers"][0]["ports"]
    assert [p["protocol"] for p in ports] == ["UDP", "TCP"]
    assert pod["spec"]["resources"]["requests"] == {"cpu": "2"}
    assert (pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]) == (0, "PreemptLowerPriority")


def test_uid_is_deterministic_and_kept_when_given() -> None:
    text = POD + "---\n" + POD.replace("{name: p}", "{name: q, uid: abc}")
    first, second = manifest(text).pods, manifest(text).pods
    assert first[0]["metadata"]["uid"] == second[0]["metadata"]["uid"]
    assert first[1]["metadata"]["uid"] == "abc"


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({"limits": {"cpu": "1"}}, {"cpu": "1"}),
        (
            {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}},
            {"cpu": "500m", "memory": "1Gi"},
        ),
        ({"requests": {"cpu": "1"}}, {"cpu": "1"}),
        ({"limits": {}}, None),
    ],
    ids=["limits-only", "partial-requests", "requests-only", "empty-limits"],
)
def test_requests_default_to_limits(resources: dict[str, Any], expected: Any) -> None:
    spec = f"resources: {json.dumps(resources)}"
    text = pod_with("").replace("image: nginx}", f"image: nginx, {spec}}}")
    container = manifest(text).pods[0]["spec"]["containers"][0]
    assert container["resources"].get("requests") == expected


@pytest.mark.parametrize(
    ("classes", "pod_spec", "priority", "policy", "class_name"),
    [
        ("", "", 0, "PreemptLowerPriority", None),
        ("", "priority: 7\n", 7, "PreemptLowerPriority", None),
        ("", "priority: 7\npreemptionPolicy: Never\n", 7, "Never", None),
        (
            "",
            "priorityClassName: system-node-critical\n",
            2000001000,
            "PreemptLowerPriority",
            "system-node-critical",
        ),
        (
            "",
            "priorityClassName: system-cluster-critical\n",
            2000000000,
            "PreemptLowerPriority",
            "system-cluster-critical",
        ),
        ("high,1000,Never,false", "priorityClassName: high\n", 1000, "Never", "high"),
        (
            "high,1000,,false",
            "priorityClassName: high\npriority: 1000\n",
            1000,
            "PreemptLowerPriority",
            "high",
        ),
        ("base,100,,true", "", 100, "PreemptLowerPriority", "base"),
        ("base,100,Never,true", "", 100, "Never", "base"),
        ("base,100,,true", "priority: 3\n", 3, "PreemptLowerPriority", None),
        (
            "base,100,,true;high,1000,,false",
            "priorityClassName: high\n",
            1000,
            "PreemptLowerPriority",
            "high",
        ),
    ],
    ids=[
        "no-class",
        "own-priority",
        "own-priority-and-policy",
        "builtin-node-critical",
        "builtin-cluster-critical",
        "named-class",
        "named-class-matching-priority",
        "global-default",
        "global-default-policy",
        "own-priority-beats-global-default",
        "named-class-beats-global-default",
    ],
)
def test_priority_admission(
    classes: str, pod_spec: str, priority: int, policy: str, class_name: str | None
) -> None:
    docs = []
    for entry in filter(None, classes.split(";")):
        name, class_value, class_policy, default = entry.split(",")
        pc = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": int(class_value),
            "globalDefault": default == "true",
        }
        if class_policy:
            pc["preemptionPolicy"] = class_policy
        docs.append(yaml.safe_dump(pc))
    cluster = manifest("---\n".join([*docs, pod_with(pod_spec)]))
    spec = cluster.pods[0]["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (priority, policy)
    assert spec.get("priorityClassName") == class_name


def test_priority_class_defaults() -> None:
    pc = manifest(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\n"
    ).priority_classes[0]
    assert (pc["globalDefault"], pc["preemptionPolicy"]) == (False, "PreemptLowerPriority")


@pytest.mark.parametrize(
    ("status", "allocatable"),
    [
        ({"capacity": {"cpu": "4"}}, {"cpu": "4"}),
        ({"capacity": {"cpu": "4"}, "allocatable": {"cpu": "3500m"}}, {"cpu": "3500m"}),
        ({}, None),
    ],
    ids=["from-capacity", "kept", "neither"],
)
def test_node_allocatable_defaults_to_capacity(
    status: dict[str, Any], allocatable: dict[str, str] | None
) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": status}
    loaded = loads(json.dumps(node)).nodes[0]
    assert loaded.get("status", {}).get("allocatable") == allocatable
    assert "namespace" not in loaded["metadata"]


def test_quantities_are_kept_as_written_and_input_not_mutated() -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n"},
        "status": {"capacity": {"cpu": 4, "memory": "8Gi"}},
    }
    text = json.dumps(node)
    loaded = loads(text).nodes[0]
    assert loaded["status"]["allocatable"] == {"cpu": 4, "memory": "8Gi"}
    assert json.loads(text) == node


def test_from_objects_leaves_the_callers_objects_as_they_were() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"app": "a"}, "annotations": None},
        "spec": {
            "containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": "1"}}}],
            "tolerations": None,
        },
    }
    before = json.dumps(pod, sort_keys=True)
    loaded = from_objects([pod]).pods[0]
    assert loaded["metadata"]["namespace"] == "default" and loaded["spec"]["priority"] == 0
    assert loaded["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1"}
    assert json.dumps(pod, sort_keys=True) == before


def test_null_fields_are_dropped() -> None:
    pod = manifest(pod_with("tolerations:\nnodeSelector:\n")).pods[0]
    assert "tolerations" not in pod["spec"] and "nodeSelector" not in pod["spec"]


# -------------------------------------------------------------------------------- input forms

NODE_A = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"


@pytest.mark.parametrize(
    "text",
    [
        f"---\n{NODE_A}---\n---\n{POD}",
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "List",
                "items": [yaml.safe_load(NODE_A), yaml.safe_load(POD)],
            }
        ),
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "List",
                "items": [yaml.safe_load(NODE_A), yaml.safe_load(POD)],
            },
            indent="\t",
        ),
        json.dumps({"apiVersion": "v1", "kind": "NodeList", "items": [{"metadata": {"name": "a"}}]})
        + "\n---\n"
        + POD,
    ],
    ids=["multi-doc-with-empties", "list", "json-list-with-tabs", "typed-list-without-kinds"],
)
def test_input_forms(text: str) -> None:
    cluster = loads(text)
    assert [n["metadata"]["name"] for n in cluster.nodes] == ["a"]
    assert [object_key(p) for p in cluster.pods] == ["default/p"]
    assert cluster.nodes[0]["kind"] == "Node"


def test_load_reads_several_files(tmp_path: Path) -> None:
    (tmp_path / "nodes.yaml").write_text(NODE_A)
    (tmp_path / "pods.json").write_text(json.dumps(yaml.safe_load(POD)))
    cluster = load(tmp_path / "nodes.yaml", str(tmp_path / "pods.json"))
    assert (len(cluster.nodes), len(cluster.pods)) == (1, 1)


def test_all_kinds_and_scheduler_config() -> None:
    cluster = manifest(
        """\
        apiVersion: v1
        kind: Namespace
        metadata: {name: shop, labels: {team: a}}
        ---
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: web, namespace: shop}
        spec: {maxUnavailable: 25%, selector: {matchLabels: {app: web}}}
        status: {disruptionsAllowed: 1}
        ---
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles: [{schedulerName: default-scheduler}]
        """
    )
    assert object_key(cluster.namespaces[0]) == "shop"
    assert object_key(cluster.pdbs[0]) == "shop/web"
    assert cluster.scheduler_config is not None
    assert cluster.scheduler_config["profiles"] == [{"schedulerName": "default-scheduler"}]


def test_pending_and_bound_split() -> None:
    pods = [
        ("pending", ""),
        ("bound", "spec:\n  nodeName: ghost\n"),
        ("done", "spec:\n  nodeName: a\nstatus:\n  phase: Succeeded\n"),
        ("failed", "status:\n  phase: Failed\n"),
        ("running", "spec:\n  nodeName: a\nstatus:\n  phase: Running\n"),
    ]
    docs = [NODE_A]
    for name, extra in pods:
        doc = yaml.safe_load(POD.replace("{name: p}", f"{{name: {name}}}"))
        for key, part in (yaml.safe_load(extra) or {}).items():
            doc.setdefault(key, {}).update(part)
        docs.append(yaml.safe_dump(doc))
    cluster = manifest("---\n".join(docs))
    assert [object_key(p) for p in cluster.pending_pods()] == ["default/pending"]
    assert [object_key(p) for p in cluster.bound_pods()] == ["default/bound", "default/running"]
    assert cluster.find_pod("default/done") is not None
    assert cluster.find_pod("other/done") is None
    assert cluster.find_node("a") is cluster.nodes[0]
    assert cluster.find_node("ghost") is None


def test_object_key() -> None:
    assert object_key({"kind": "Pod", "metadata": {"name": "x"}}) == "default/x"
    assert object_key({"kind": "Node", "metadata": {"name": "x"}}) == "x"


# ---------------------------------------------------------------------------------- warnings

_NA = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


@pytest.mark.parametrize(
    ("spec_yaml", "expected"),
    [
        (
            f"""\
            affinity:
              nodeAffinity:
                {_NA.split(".")[-1]}:
                  nodeSelectorTerms:
                  - matchExpressions:
                    - key: a
                      operator: Gt
                      values: ["1", "2"]
            """,
            f"t.yaml:11: Pod default/p: {_NA}.nodeSelectorTerms[0].matchExpressions[0]: "
            'operator "Gt" needs exactly one integer value, got ["1", "2"]; the API server '
            "would reject this pod, and kube-scheduler treats the term as matching no node",
        ),
        (
            f"""\
            affinity:
              nodeAffinity:
                {_NA.split(".")[-1]}:
                  nodeSelectorTerms:
                  - matchExpressions: [{{key: a, operator: Near, values: [x]}}]
            """,
            'unknown operator "Near" (supported: In, NotIn, Exists, DoesNotExist, Gt, Lt)',
        ),
        (
            f"""\
            affinity:
              nodeAffinity:
                {_NA.split(".")[-1]}:
                  nodeSelectorTerms:
                  - matchFields: [{{key: metadata.labels, operator: In, values: [x]}}]
            """,
            'matchFields key "metadata.labels" is not "metadata.name"',
        ),
        (
            """\
            affinity:
              nodeAffinity:
                preferredDuringSchedulingIgnoredDuringExecution:
                - weight: 5
                  preference:
                    matchExpressions: [{key: a, operator: In}]
            """,
            'operator "In" needs at least one value; the API server would reject this pod, '
            "and kube-scheduler's NodeAffinity PreScore fails",
        ),
        (
            """\
            affinity:
              podAntiAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                - topologyKey: kubernetes.io/hostname
                  labelSelector:
                    matchExpressions: [{key: app, operator: Exists, values: [web]}]
            """,
            'operator "Exists" takes no values, got ["web"]',
        ),
        (
            """\
            topologySpreadConstraints:
            - maxSkew: 1
              topologyKey: zone
              whenUnsatisfiable: ScheduleAnyway
              labelSelector:
                matchLabels: {app: "not valid"}
            """,
            "PodTopologySpread fails with an error",
        ),
    ],
    ids=[
        "gt-two-values",
        "unknown-operator",
        "match-fields-key",
        "in-without-values",
        "exists-with-values",
        "spread-bad-match-label",
    ],
)
def test_lazy_selector_errors_are_warnings(spec_yaml: str, expected: str) -> None:
    cluster = manifest(pod_with(spec_yaml))
    assert len(cluster.pods) == 1
    assert len(cluster.warnings) == 1
    assert expected in cluster.warnings[0]


def test_pdb_selector_warning() -> None:
    cluster = manifest(
        """\
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: web}
        spec:
          minAvailable: 1
          selector:
            matchExpressions: [{key: app, operator: Equals, values: [web]}]
        """
    )
    assert cluster.warnings == (
        "t.yaml:7: PodDisruptionBudget default/web: spec.selector.matchExpressions[0]: unknown "
        'operator "Equals" (supported: In, NotIn, Exists, DoesNotExist); the API server would '
        "reject this PodDisruptionBudget, and kube-scheduler's preemption treats the budget as "
        "matching no pod",
    )


def test_valid_manifest_has_no_warnings() -> None:
    cluster = manifest(
        pod_with(
            """\
            nodeSelector: {kubernetes.io/os: linux}
            tolerations:
            - {operator: Exists}
            - {key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 30}
            affinity:
              nodeAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms:
                  - matchExpressions: [{key: cores, operator: Gt, values: ["4"]}]
                    matchFields: [{key: metadata.name, operator: NotIn, values: [a]}]
              podAffinity:
                preferredDuringSchedulingIgnoredDuringExecution:
                - weight: 100
                  podAffinityTerm:
                    topologyKey: zone
                    namespaceSelector: {}
                    labelSelector: {matchLabels: {app: web}}
            topologySpreadConstraints:
            - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 2,
               nodeAffinityPolicy: Honor, nodeTaintsPolicy: Ignore, matchLabelKeys: [a]}
            schedulingGates: [{name: wait}]
            overhead: {cpu: 10m}
            """
        )
    )
    assert cluster.warnings == ()


# ---------------------------------------------------------------------------- inline errors


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            pod_with("nodeSelector: {zone: 1}"),
            "t.yaml:6: Pod default/p: spec.nodeSelector.zone: must be a string, got 1; "
            'quote it: "1"',
        ),
        (
            pod_with("tolerations: [{operator: Equal, value: x}]"),
            'spec.tolerations[0].operator: must be "Exists" when key is empty',
        ),
        (
            pod_with("tolerations: [{key: k, tolerationSeconds: 5, effect: NoSchedule}]"),
            'spec.tolerations[0].effect: must be "NoExecute" when tolerationSeconds is set',
        ),
        (
            pod_with(
                "affinity: {nodeAffinity: {"
                "requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}"
            ),
            "nodeSelectorTerms: must have at least one term",
        ),
        (
            pod_with(
                "topologySpreadConstraints: [{maxSkew: 1, topologyKey: z, "
                "whenUnsatisfiable: ScheduleAnyway, minDomains: 2}]"
            ),
            'minDomains: may only be set with "DoNotSchedule"',
        ),
        (
            pod_with(
                "topologySpreadConstraints: [{maxSkew: 1, topologyKey: z, "
                "whenUnsatisfiable: Maybe}]"
            ),
            'whenUnsatisfiable: unsupported value "Maybe"',
        ),
        (
            pod_with(
                "topologySpreadConstraints: [{maxSkew: 1, topologyKey: z, "
                "whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Always}]"
            ),
            'nodeTaintsPolicy: unsupported value "Always"',
        ),
        (
            pod_with("overhead: {cpu: lots}"),
            'spec.overhead.cpu: Invalid value: "lots": must be a quantity',
        ),
        (
            pod_with("resources: {requests: {memory: 1Gi}, limits: {memory: 1Mi}}"),
            "spec.resources.requests.memory: 1Gi must be less than or equal to memory limit of 1Mi",
        ),
        (
            pod_with("initContainers: [{name: i, image: b, restartPolicy: OnFailure}]"),
            'restartPolicy: unsupported value "OnFailure": supported values: "Always"',
        ),
        (pod_with("preemptionPolicy: Sometimes"), "spec.preemptionPolicy: unsupported value"),
        (pod_with("", extra="status: {phase: Done}\n"), 'status.phase: unsupported value "Done"'),
        (
            POD.replace("containers: [{name: app, image: nginx}]", "containers: []"),
            "spec.containers: must contain at least one container",
        ),
        (POD.replace("image: nginx", "image: 3"), "spec.containers[0].image: must be a string"),
        (POD.replace("{name: p}", "{name: p, namespace: Shop}"), '"Shop" is not a lowercase'),
        (
            POD.replace("{name: p}", "{name: p, labels: {-bad: x}}"),
            'metadata.labels[-bad]: invalid label key "-bad"',
        ),
        (
            NODE_A + "spec: {taints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}",
            "spec.taints[1]: duplicate taint",
        ),
        (NODE_A + "spec: {unschedulable: 'yes'}", "spec.unschedulable: must be a boolean"),
        (
            NODE_A + "status: {images: [{names: [a], sizeBytes: big}]}",
            "status.images[0].sizeBytes: must be an integer",
        ),
        (
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n"
            "spec: {minAvailable: '5'}",
            "spec.minAvailable: must be an integer or a percentage",
        ),
        (
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n"
            "spec: {minAvailable: 150%}",
            "must not be greater than 100%",
        ),
        (
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n"
            "status: {disruptionsAllowed: -1}",
            "status.disruptionsAllowed: must be at least 0",
        ),
        (
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: x}\n",
            "PriorityClass x: value: is required",
        ),
        (
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
            "metadata: {name: system-node-critical}\nvalue: 5\n",
            "must be 2000001000",
        ),
        ("- a\n- b\n", "t.yaml:1: a manifest must be a mapping, got a list"),
        (
            "apiVersion: v1\nkind: Node\nmetadata: {name: a, 1: b}\n",
            "mapping keys must be strings, got 1; quote it",
        ),
        ("a: &x [*x]\n", "t.yaml:1: recursive YAML alias"),
        (
            "apiVersion: v1\nkind: Node\nmetadata: {name: !!binary aGk=}\n",
            "unsupported YAML value of type bytes",
        ),
        ("kubescheduler: 1\n", "t.yaml:1: apiVersion: is required"),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n---\n"
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
            "t.yaml:4: KubeSchedulerConfiguration: a second KubeSchedulerConfiguration; "
            "the first is at t.yaml:1",
        ),
    ],
    ids=lambda v: v[:40] if isinstance(v, str) else repr(v),
)
def test_errors(text: str, expected: str) -> None:
    assert expected in error(text)


# Issue 23: ``status`` and ``metadata`` fields the rules read, of the wrong type or shape.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # crash signature 1: scheduler_view and impl called ``c.get`` on a string
            pod_with("", extra="status: {conditions: Ready}\n"),
            't.yaml:6: Pod default/p: status.conditions: must be a list, got "Ready"',
        ),
        (  # crash signature 2: values.py hashed a list
            pod_with(
                "", extra="status: {conditions: [{type: DisruptionTarget, status: [True]}]}\n"
            ),
            "t.yaml:6: Pod default/p: status.conditions[0].status: must be a string, got a list",
        ),
        (
            pod_with("", extra="status: {conditions: [Ready]}\n"),
            'status.conditions[0]: must be a mapping, got "Ready"',
        ),
        (
            pod_with("", extra="status: {conditions: [{type: Ready, reason: 5}]}\n"),
            "status.conditions[0].reason: must be a string, got 5",
        ),
        (
            pod_with("", extra="status: {startTime: yesterday}\n"),
            'status.startTime: Invalid value: "yesterday": must be an RFC 3339 time such as '
            '"2006-01-02T15:04:05Z"',
        ),
        (
            pod_with("", extra="status: {startTime: 2025-01-01 10:00:00}\n"),
            'status.startTime: Invalid value: "2025-01-01 10:00:00": must be an RFC 3339 time',
        ),
        (
            pod_with("", extra="status: {nominatedNodeName: [n1]}\n"),
            "status.nominatedNodeName: must be a string, got a list",
        ),
        (
            pod_with("", extra="status: {containerStatuses: {name: app}}\n"),
            "status.containerStatuses: must be a list, got a mapping",
        ),
        (
            pod_with(
                "",
                extra="status: {containerStatuses: [{name: app, allocatedResources: {cpu: x}}]}\n",
            ),
            'status.containerStatuses[0].allocatedResources.cpu: Invalid value: "x": '
            "must be a quantity",
        ),
        (
            POD.replace("{name: p}", "{name: p, deletionTimestamp: 5}"),
            "metadata.deletionTimestamp: must be a string (an RFC 3339 time), got 5",
        ),
        (
            POD.replace("{name: p}", "{name: p, annotations: {a: 1}}"),
            "metadata.annotations.a: must be a string, got 1",
        ),
        (
            POD.replace(
                "{name: p}", "{name: p, ownerReferences: [{kind: R, name: r, controller: 'true'}]}"
            ),
            'metadata.ownerReferences[0].controller: must be a boolean, got "true"',
        ),
        (
            POD.replace("{name: p}", "{name: p, ownerReferences: [{name: r}]}"),
            "metadata.ownerReferences[0].kind: is required",
        ),
        (
            POD.replace("image: nginx", "image: nginx, ports: [{containerPort: 80, hostIP: x}]"),
            'spec.containers[0].ports[0].hostIP: Invalid value: "x": must be a valid IP address',
        ),
        (
            pod_with("volumes: [{emptyDir: {}}]"),
            "spec.volumes[0].name: is required",
        ),
        (
            pod_with("volumes: [{name: v, emptyDir: {medium: [Memory]}}]"),
            "spec.volumes[0].emptyDir.medium: must be a string, got a list",
        ),
        (
            pod_with("terminationGracePeriodSeconds: -1"),
            "spec.terminationGracePeriodSeconds: must be at least 0, got -1",
        ),
        (pod_with("hostNetwork: 'yes'"), 'spec.hostNetwork: must be a boolean, got "yes"'),
        (
            NODE_A + "status: {allocatable: {cpu: four}}",
            'status.allocatable.cpu: Invalid value: "four": must be a quantity',
        ),
        (NODE_A + "status: {conditions: Ready}", 'status.conditions: must be a list, got "Ready"'),
        (NODE_A + "status: {phase: 1}", "status.phase: must be a string, got 1"),
        (  # the rules of a kind run after metadata failed: they must not read it blindly
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: x\nvalue: 1\n",
            't.yaml:3: PriorityClass: metadata: must be a mapping, got "x"',
        ),
        (
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n"
            "status: {disruptedPods: {p: now}}",
            'status.disruptedPods.p: Invalid value: "now": must be an RFC 3339 time',
        ),
    ],
    ids=lambda v: v[:60] if isinstance(v, str) else repr(v),
)
def test_status_and_metadata_errors(text: str, expected: str) -> None:
    assert expected in error(text)


def test_valid_status_and_metadata_load() -> None:
    cluster = manifest(
        POD.replace(
            "{name: p}",
            "{name: p, creationTimestamp: '2025-01-01T00:00:00Z', "
            "deletionTimestamp: 2025-01-01T00:00:01.5+02:00, ownerReferences: "
            "[{apiVersion: apps/v1, kind: ReplicaSet, name: r, uid: u, controller: true}]}",
        )
        + "status:\n"
        "  startTime: 2025-01-01T00:00:00Z\n"
        "  conditions: [{type: Ready, status: 'True', lastTransitionTime: null}]\n"
        "  containerStatuses: [{name: app, resources: {requests: {cpu: 1}}, "
        "allocatedResources: {cpu: 1}}]\n"
    )
    assert cluster.pods[0]["status"]["startTime"] == "2025-01-01T00:00:00Z"


THREE_BAD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: 1}
spec:
  containers:
  - name: app
    image: nginx
    resources: {requests: {cpu: abc}}
status:
  conditions: Ready
---
apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {unschedulable: 'no'}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
"""


def test_every_error_at_once() -> None:
    """Three bad fields in one object and one in another: four lines, in order, and nothing
    loaded (not even the valid node)."""
    with pytest.raises(ManifestError) as info:
        manifest(THREE_BAD)
    assert str(info.value).splitlines() == [
        't.yaml:5: Pod default/web: metadata.labels.app: must be a string, got 1; quote it: "1"',
        "t.yaml:10: Pod default/web: spec.containers[0].resources.requests.cpu: Invalid value: "
        '"abc": must be a quantity',
        't.yaml:12: Pod default/web: status.conditions: must be a list, got "Ready"',
        't.yaml:17: Node n1: spec.unschedulable: must be a boolean, got "no"',
    ]
    assert [e.path for e in info.value.errors] == [
        "metadata.labels.app",
        "spec.containers[0].resources.requests.cpu",
        "status.conditions",
        "spec.unschedulable",
    ]
    assert (info.value.obj, info.value.path) == ("Pod default/web", "metadata.labels.app")


def test_one_error_per_field_and_rules_after_types() -> None:
    """A field of the wrong type is reported once; a rule on another field still runs."""
    text = pod_with("tolerations: [{key: k, operator: Exist, effect: 5}]\npriority: x")
    assert error(text).splitlines() == [
        't.yaml:6: Pod default/p: spec.tolerations[0].operator: unsupported value "Exist": '
        'supported values: "Equal", "Exists"',
        "t.yaml:6: Pod default/p: spec.tolerations[0].effect: must be a string, got 5",
        't.yaml:7: Pod default/p: spec.priority: must be an integer, got "x"',
    ]


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="cannot read"):
        load(tmp_path / "missing.yaml")


# -------------------------------------------------------------------------------- golden files


def golden_inputs() -> list[Path]:
    return sorted(p for p in (REPO / GOLDEN).iterdir() if p.suffix != ".expected")


def render_golden(path: Path) -> str:
    try:
        load(GOLDEN / path.name)
    except ManifestError as err:
        return f"{err}\n"
    raise AssertionError(f"{path.name} loaded without error")


@pytest.mark.parametrize("path", golden_inputs(), ids=lambda p: p.name)
def test_golden(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert render_golden(path) == path.with_suffix(".expected").read_text()


def test_every_golden_input_has_expected_output() -> None:
    expected = {p.stem for p in (REPO / GOLDEN).glob("*.expected")}
    assert expected == {p.stem for p in golden_inputs()}


# ------------------------------------------------------------------------ no traceback, ever

VALID = [
    yaml.safe_load(
        pod_with(
            """\
            tolerations: [{key: k, operator: Equal, value: v, effect: NoSchedule}]
            affinity:
              podAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                - {topologyKey: zone, labelSelector: {matchLabels: {a: b}}}
            topologySpreadConstraints:
            - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
            """
        )
    ),
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n", "labels": {"a": "b"}},
        "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]},
        "status": {"capacity": {"cpu": "1"}, "images": [{"names": ["x"], "sizeBytes": 1}]},
    },
    {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "b"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"a": "b"}}},
    },
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(VALID))), st.data(), json_values)
def test_any_mutation_loads_or_raises_manifest_error(
    which: int, data: st.DataObject, replacement: Any
) -> None:
    doc = VALID[which]
    path = data.draw(st.sampled_from(paths(doc)[1:]))
    with contextlib.suppress(ManifestError):
        loads(yaml.safe_dump(replaced(doc, path, replacement)))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:-{}[]&*!|>'\"#,\n\t 01.%")), max_size=60))
def test_any_text_loads_or_raises_manifest_error(text: str) -> None:
    with contextlib.suppress(ManifestError):
        loads(text)


if __name__ == "__main__":
    import os

    os.chdir(REPO)
    for golden in golden_inputs():
        golden.with_suffix(".expected").write_text(render_golden(golden))
        print(golden.with_suffix(".expected").relative_to(REPO))


def test_an_object_found_valid_before_is_loaded_and_placed_as_the_first_time() -> None:
    """Loading keeps the objects it has found valid (a campaign meets the same ones again and
    again) and does not check them twice: what it loads, and what it says where, must be what
    a first load says — a duplicate named at its own position, an invalid object every time."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"containers": [{"name": "c", "image": "nginx",
                                    "resources": {"requests": {"cpu": "250m"}}}]}}  # fmt: skip
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}  # fmt: skip
    first, again = from_objects([node, pod]), from_objects([node, pod], source="again")
    assert again.pods == first.pods and again.nodes == first.nodes
    with pytest.raises(ManifestError) as info:
        from_objects([node, pod, pod], source="twice")
    assert "twice[2]" in str(info.value) and "duplicate object" in str(info.value)
    bad = {**pod, "metadata": {"name": "Not_A_Name", "namespace": "shop"}}
    for source in ("one", "two"):
        with pytest.raises(ManifestError) as info:
            from_objects([node, bad], source=source)
        assert f"{source}[1]" in str(info.value)
