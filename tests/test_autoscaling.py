"""Tests for the autoscaler's input: the loader's new kinds (schedspec.cluster), node groups and
templates (schedspec.autoscaling, schedspec.autoscaling_templates), the priority expander's
ConfigMap (schedspec.autoscaling_priorities) and CA's flags (parse_options).

Messages are asserted whole: they are CA's own words where CA has some, and users grep for them.
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

from schedspec.autoscaling import (
    Autoscaling,
    AutoscalingOptions,
    node_groups,
    parse_options,
)
from schedspec.autoscaling_templates import go_int, template_name
from schedspec.cluster import Cluster, load, loads
from schedspec.errors import ManifestError, UsageError
from tests.mutations import json_values, paths, replaced

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "autoscaling.yaml"
LABEL = "pool"
MD_MIN = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
MD_MAX = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"
CAP = "capacity.cluster-autoscaler.kubernetes.io/"


def cluster(*docs: str) -> Cluster:
    return loads("\n---\n".join(textwrap.dedent(d).strip("\n") for d in docs), source="t.yaml")


def manifest_error(*docs: str) -> str:
    with pytest.raises(ManifestError) as info:
        cluster(*docs)
    return str(info.value)


def node(name: str, *, pool: str | None = None, extra: str = "", meta: str = "") -> str:
    labels = f"{{{LABEL}: {pool}}}" if pool else "{}"
    return f"""\
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {labels}
{textwrap.indent(textwrap.dedent(meta), "  ")}
{textwrap.dedent(extra)}
status:
  capacity: {{cpu: "2", memory: 8Gi, pods: "110"}}
  allocatable: {{cpu: 1930m, memory: 7146Mi, pods: "110"}}
"""


def pod(name: str, node_name: str, *, ns: str = "default", meta: str = "") -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: {ns}
{textwrap.indent(textwrap.dedent(meta), "  ")}
spec:
  nodeName: {node_name}
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: 100m}}}}}}]
"""


def ds_owned(name: str) -> str:
    ref = f"{{apiVersion: apps/v1, kind: DaemonSet, name: {name}, uid: u-{name}, controller: true}}"
    return f"ownerReferences: [{ref}]"


def daemonset(name: str, spec: str = "", *, priority_class: str = "") -> str:
    body = textwrap.indent(textwrap.dedent(spec), "      ")
    pc = f"      priorityClassName: {priority_class}\n" if priority_class else ""
    return f"""\
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: kube-system}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: 50m}}}}}}]
{pc}{body}"""


def usage_error(c: Cluster, **kwargs: Any) -> str:
    with pytest.raises(UsageError) as info:
        node_groups(c, **kwargs)
    return str(info.value)


def groups_error(c: Cluster, **kwargs: Any) -> str:
    with pytest.raises(ManifestError) as info:
        node_groups(c, **kwargs)
    return str(info.value)


# ------------------------------------------------------------------------------- the loader

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: b}
"""
MACHINE_DEPLOYMENT = """\
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: md-0}
spec: {replicas: 2}
"""


def test_other_kinds_are_kept_in_input_order_with_namespaces_defaulted() -> None:
    c = cluster(
        MACHINE_DEPLOYMENT,
        daemonset("agent"),
        CONFIG_MAP,
        MACHINE_DEPLOYMENT.replace("v1beta1", "v1beta2").replace("MachineDeployment", "MachineSet"),
    )
    assert [(o["kind"], o["metadata"]["namespace"]) for o in c.others] == [
        ("MachineDeployment", "default"),
        ("DaemonSet", "kube-system"),
        ("ConfigMap", "default"),
        ("MachineSet", "default"),
    ]
    assert c.nodes == c.pods == ()
    assert all(o["metadata"]["uid"] for o in c.others)


def test_positional_construction_still_works() -> None:
    c = Cluster((), (), (), (), (), None, ())
    assert c.others == () and c.origins == {}


def test_object_error_names_file_line_object_and_path() -> None:
    c = cluster(POD_FILLER, CONFIG_MAP)
    err = c.object_error(c.others[0], ("data", "a"), "bad")
    assert str(err) == "t.yaml:14: ConfigMap default/settings: data.a: bad"


POD_FILLER = pod("filler", "n")  # ten lines before the ConfigMap's document


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            daemonset("agent", "nodeSelector: {pool: 1}"),
            "t.yaml:10: DaemonSet kube-system/agent: spec.template.spec.nodeSelector.pool: "
            'must be a string, got 1; quote it: "1"',
        ),
        (
            daemonset("agent").replace("cpu: 50m", "cpu: lots"),
            "t.yaml:9: DaemonSet kube-system/agent: "
            'spec.template.spec.containers[0].resources.requests.cpu: Invalid value: "lots": '
            "must be a quantity",
        ),
        (
            daemonset("agent", "tolerations: [{operator: Equal}]"),
            "t.yaml:10: DaemonSet kube-system/agent: spec.template.spec.tolerations[0].operator: "
            'must be "Exists" when key is empty',
        ),
        (
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec: {}\n",
            "t.yaml:4: DaemonSet default/agent: spec.template: is required",
        ),
        (
            CONFIG_MAP.replace("{a: b}", "{a: 1}"),
            "t.yaml:4: ConfigMap default/settings: data.a: must be a string, got 1",
        ),
        (
            CONFIG_MAP.replace("{a: b}", "{a b: c}"),
            't.yaml:4: ConfigMap default/settings: data[a b]: invalid key "a b": must consist '
            "of at most 253 alphanumerics, '-', '_' or '.'",
        ),
        (
            MACHINE_DEPLOYMENT.replace("replicas: 2", "replicas: -1"),
            "t.yaml:4: MachineDeployment default/md-0: spec.replicas: must be between 0 and "
            "2147483647, inclusive, got -1",
        ),
        (
            MACHINE_DEPLOYMENT.replace(
                "{name: md-0}", f"{{name: md-0, annotations: {{{MD_MAX}: 3}}}}"
            ),
            f"t.yaml:3: MachineDeployment default/md-0: metadata.annotations[{MD_MAX}]: "
            "must be a string, got 3",
        ),
        (
            MACHINE_DEPLOYMENT.replace("v1beta1", "v1alpha4"),
            't.yaml:1: apiVersion: unsupported apiVersion "cluster.x-k8s.io/v1alpha4" for '
            'MachineDeployment; expected "cluster.x-k8s.io/v1beta1" or "cluster.x-k8s.io/v1beta2"',
        ),
    ],
    ids=[
        "ds-node-selector",
        "ds-quantity",
        "ds-toleration",
        "ds-no-template",
        "cm-value",
        "cm-key",
        "md-replicas",
        "md-annotation",
        "md-api-version",
    ],
)
def test_loader_rejects(doc: str, expected: str) -> None:
    assert manifest_error(doc) == expected


VALID_OTHERS = [
    yaml.safe_load(daemonset("agent", "tolerations: [{operator: Exists}]")),
    yaml.safe_load(CONFIG_MAP),
    yaml.safe_load(MACHINE_DEPLOYMENT),
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(range(len(VALID_OTHERS))), st.data(), json_values)
def test_any_mutation_of_the_new_kinds_loads_or_raises_manifest_error(
    which: int, data: st.DataObject, replacement: Any
) -> None:
    doc = VALID_OTHERS[which]
    path = data.draw(st.sampled_from(paths(doc)[1:]))
    with contextlib.suppress(ManifestError):
        loads(yaml.safe_dump(replaced(doc, path, replacement)))


# ------------------------------------------------------------------------------- Go integers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", 3),
        ("+3", 3),
        ("-0", 0),
        ("007", 7),
        ("3.0", 'strconv.Atoi: parsing "3.0": invalid syntax'),
        (" 3", 'strconv.Atoi: parsing " 3": invalid syntax'),
        ("1_000", 'strconv.Atoi: parsing "1_000": invalid syntax'),
        ("", 'strconv.Atoi: parsing "": invalid syntax'),
        ("٣", 'strconv.Atoi: parsing "٣": invalid syntax'),
        ("9223372036854775808", 'strconv.Atoi: parsing "9223372036854775808": value out of range'),
    ],
    ids=[
        "plain",
        "plus",
        "minus-zero",
        "leading-zeros",
        "decimal",
        "space",
        "underscore",
        "empty",
        "non-ascii-digit",
        "overflow",
    ],
)
def test_go_int(text: str, expected: int | str) -> None:
    if isinstance(expected, int):
        assert go_int(text) == expected
    else:
        with pytest.raises(ValueError, match="^" + expected.replace(".", r"\.") + "$"):
            go_int(text)


# ----------------------------------------------------------------------------------- --nodes

TWO_NODES = (node("n1", pool="a"), node("n2", pool="a"))


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["1:3"], '--nodes "1:3": wrong nodes configuration: 1:3'),
        (["x:3:a"], '--nodes "x:3:a": failed to set min size: x, expected integer'),
        (["1:3.0:a"], '--nodes "1:3.0:a": failed to set max size: 3.0, expected integer'),
        (["-1:3:a"], '--nodes "-1:3:a": invalid node group spec: min size must be >= 0'),
        (
            ["5:1:a"],
            '--nodes "5:1:a": invalid node group spec: max size must be greater or equal to min '
            "size",
        ),
        (["1:3:"], '--nodes "1:3:": invalid node group spec: name must not be blank'),
        (["1:3:a", "0:2:a"], '--nodes "0:2:a": node group a is already given (--nodes 1:3:a)'),
        (
            ["1:3:b"],
            "node group b (--nodes 1:3:b): no node carries label pool=b and no scale-from-zero "
            "template; cannot build a template",
        ),
        (
            ["1:3:MachineDeployment/default/md-0"],
            '--nodes "1:3:MachineDeployment/default/md-0": MachineDeployment/default/md-0 is a '
            f"Cluster API group: its sizes come from its annotations {MD_MIN} and {MD_MAX}",
        ),
    ],
    ids=[
        "two-parts",
        "min-not-int",
        "max-not-int",
        "negative-min",
        "min-above-max",
        "blank-name",
        "twice",
        "no-node",
        "capi-id",
    ],
)
def test_nodes_flag_errors(flags: list[str], expected: str) -> None:
    assert usage_error(cluster(*TWO_NODES), nodes=flags, node_group_label=LABEL) == expected


def test_nodes_flag_without_a_label() -> None:
    assert usage_error(cluster(*TWO_NODES), nodes=["1:3:a"]) == (
        "node group a (--nodes 1:3:a): no --node-group-label and no scale-from-zero template; "
        "cannot build a template"
    )


def test_invalid_node_group_label() -> None:
    message = usage_error(cluster(*TWO_NODES), node_group_label="a b")
    assert message.startswith('--node-group-label "a b": invalid label key "a b"')


def test_nodes_flag_name_may_contain_colons() -> None:
    c = cluster(node("n1", meta="annotations: {}").replace("labels: {}", "labels: {pool: x}"))
    assert node_groups(c, nodes=["0:1:x"], node_group_label=LABEL).groups[0].name == "x"
    assert node_groups(c, nodes=["0:0:x:y"], node_group_label=LABEL).unmanaged == ("x", "x:y")


# ------------------------------------------------------------------------------ label groups


def test_label_groups() -> None:
    c = cluster(
        node("b-2", pool="general"),
        node("b-1", pool="general"),
        node("c-1", pool="spot"),
        node("d-1"),
    )
    scaling = node_groups(c, nodes=["+1:5:general", "0:0:empty"], node_group_label=LABEL)
    assert [(g.name, g.min_size, g.max_size, g.target_size, g.nodes) for g in scaling.groups] == [
        ("general", 1, 5, 2, ("b-1", "b-2"))
    ]
    assert scaling.unmanaged == ("empty", "spot")
    assert scaling.group_of("b-2") is scaling.groups[0] and scaling.group_of("c-1") is None
    assert scaling.options == AutoscalingOptions() and scaling.priorities is None


NOT_READY = """\
  conditions:
  - {type: Ready, status: "False"}
"""


@pytest.mark.parametrize(
    ("nodes", "chosen"),
    [
        ((node("a", pool="g"), node("b", pool="g")), "a"),
        ((node("a", pool="g", extra="spec: {unschedulable: true}"), node("b", pool="g")), "b"),
        (
            (
                node(
                    "a",
                    pool="g",
                    extra="spec: {taints: [{key: ToBeDeletedByClusterAutoscaler, "
                    "value: '1', effect: NoSchedule}]}",
                ),
                node("b", pool="g"),
            ),
            "b",
        ),
        (
            (
                node("a", pool="g").replace("status:\n", "status:\n" + NOT_READY),
                node("b", pool="g"),
            ),
            "b",
        ),
        ((node("a", pool="g", extra="spec: {unschedulable: true}"),), "a"),
    ],
    ids=[
        "first-by-name",
        "skip-unschedulable",
        "skip-to-be-deleted",
        "skip-not-ready",
        "else-any-member",
    ],
)
def test_template_comes_from_the_first_good_node(nodes: tuple[str, ...], chosen: str) -> None:
    (group,) = node_groups(cluster(*nodes), nodes=["0:3:g"], node_group_label=LABEL).groups
    assert group.template_node == chosen


def test_template_from_a_real_node() -> None:
    tainted = """\
spec:
  unschedulable: false
  providerID: aws:///us-east-1a/i-1
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: ToBeDeletedByClusterAutoscaler, value: "1700000000", effect: NoSchedule}
  - {key: DeletionCandidateOfClusterAutoscaler, value: "1700000000", effect: PreferNoSchedule}
  - {key: node.kubernetes.io/not-ready, effect: NoExecute}
  - {key: startup-taint.cluster-autoscaler.kubernetes.io/warming, effect: NoSchedule}
"""
    c = cluster(
        node("gpu-1", pool="GPU_A100", extra=tainted)
        .replace("labels: {", "labels: {kubernetes.io/hostname: gpu-1, ")
        .replace("status:\n", "status:\n  images: [{names: [cuda], sizeBytes: 5}]\n"),
        pod("ds-pod", "gpu-1", ns="kube-system", meta=ds_owned("agent")),
        pod(
            "static",
            "gpu-1",
            ns="kube-system",
            meta="annotations: {kubernetes.io/config.mirror: h}",
        ),
        pod(
            "app",
            "gpu-1",
            meta="ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: r}]",
        ),
        pod("not-controller", "gpu-1", meta=ds_owned("x").replace("true", "false")),
        pod("other-node", "gpu-2", ns="kube-system", meta=ds_owned("agent")),
    )
    (group,) = node_groups(c, nodes=["0:2:GPU_A100"], node_group_label=LABEL).groups
    template = group.template
    name = "template-node-for-gpu-a100"
    assert template["metadata"]["name"] == name
    assert template["metadata"]["labels"] == {LABEL: "GPU_A100", "kubernetes.io/hostname": name}
    assert template["metadata"]["uid"] != c.nodes[0]["metadata"]["uid"]
    assert template["spec"] == {
        "providerID": "aws:///us-east-1a/i-1",
        "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
    }
    assert template["status"] == c.nodes[0]["status"]
    assert c.nodes[0]["metadata"]["name"] == "gpu-1", "the cluster's node is not touched"
    assert [p["metadata"]["name"] for p in group.template_pods] == ["ds-pod", "static"]
    assert all(p["spec"]["nodeName"] == name for p in group.template_pods)
    uids = {p["metadata"]["uid"] for p in c.pods}
    assert not uids & {p["metadata"]["uid"] for p in group.template_pods}
    assert c.pods[0]["spec"]["nodeName"] == "gpu-1"


@pytest.mark.parametrize(
    ("group", "taken", "expected"),
    [
        ("general-m5-large", (), "template-node-for-general-m5-large"),
        ("MachineDeployment/default/md-0", (), "template-node-for-machinedeployment-default-md-0"),
        ("Pool_1.x", (), "template-node-for-pool-1-x"),
        ("a" * 60, (), "template-node-for-" + "a" * 36 + "-"),
        ("a-b", ("template-node-for-a-b",), "template-node-for-a-b-"),
    ],
    ids=["plain", "capi-id", "invalid-chars", "too-long", "taken"],
)
def test_template_name(group: str, taken: tuple[str, ...], expected: str) -> None:
    name = template_name(group, taken)
    assert name.startswith(expected) and len(name) <= 63 and name not in taken
    assert name == template_name(group, taken), "deterministic"


def test_a_node_in_two_groups() -> None:
    c = cluster(
        *CAPI_OBJECTS,
        node("n1", pool="a", meta=owner_annotations("md-0-abc")),
    )
    assert usage_error(c, nodes=["0:3:a"], node_group_label=LABEL) == (
        "node n1 belongs to two node groups: a (label pool) and "
        "MachineDeployment/default/md-0 (Cluster API)"
    )


# ------------------------------------------------------------------------------- Cluster API


def machine(
    kind: str, name: str, annotations: dict[str, str], spec: str = "", meta: str = ""
) -> str:
    shown = json.dumps(annotations)
    return f"""\
apiVersion: cluster.x-k8s.io/v1beta1
kind: {kind}
metadata:
  name: {name}
  annotations: {shown}
{textwrap.indent(textwrap.dedent(meta), "  ")}
spec: {{{spec}}}
"""


def owner_annotations(machine_set: str, ns: str = "default") -> str:
    return (
        "annotations: {cluster.x-k8s.io/owner-kind: MachineSet, "
        f"cluster.x-k8s.io/owner-name: {machine_set}, cluster.x-k8s.io/cluster-namespace: {ns}}}"
    )


SIZES = {MD_MIN: "1", MD_MAX: "5"}
CAPI_OBJECTS = (
    machine("MachineDeployment", "md-0", SIZES, "replicas: 3"),
    machine(
        "MachineSet",
        "md-0-abc",
        {},
        meta="ownerReferences: [{apiVersion: cluster.x-k8s.io/v1beta1, kind: MachineDeployment, "
        "name: md-0}]",
    ),
)


def test_cluster_api_groups() -> None:
    c = cluster(
        *CAPI_OBJECTS,
        machine("MachineSet", "ms-solo", {MD_MIN: "0", MD_MAX: "+2"}),
        machine("MachineDeployment", "md-plain", {}),
        machine("MachineDeployment", "md-zero", {MD_MAX: "0"}),
        node("w-2", meta=owner_annotations("md-0-abc")),
        node("w-1").replace("labels: {}", "labels: {cluster.x-k8s.io/deployment-name: md-0}"),
        node("w-3", meta=owner_annotations("ms-solo")),
        node("w-4", meta=owner_annotations("unknown-ms")),
    )
    scaling = node_groups(c)
    summary = [(g.name, g.min_size, g.max_size, g.target_size, g.nodes) for g in scaling.groups]
    assert summary == [
        ("MachineDeployment/default/md-0", 1, 5, 3, ("w-1", "w-2")),
        ("MachineSet/default/ms-solo", 0, 2, 1, ("w-3",)),
    ]
    assert scaling.unmanaged == (
        "MachineDeployment/default/md-plain",
        "MachineDeployment/default/md-zero",
    )
    assert scaling.groups[0].template["metadata"]["name"] == (
        "template-node-for-machinedeployment-default-md-0"
    )
    assert scaling.groups[0].template_node == "w-1"


def obj_error(
    annotations: dict[str, str], path_key: str, message: str
) -> tuple[dict[str, str], str]:
    where = f"t.yaml:5: MachineDeployment default/md-0: metadata.annotations[{path_key}]"
    return annotations, f"{where}: {message}"


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        obj_error(
            {MD_MIN: "abc", MD_MAX: "3"},
            MD_MIN,
            'invalid min annotation: strconv.Atoi: parsing "abc": invalid syntax',
        ),
        obj_error(
            {MD_MIN: "1", MD_MAX: "3.0"},
            MD_MAX,
            'invalid max annotation: strconv.Atoi: parsing "3.0": invalid syntax',
        ),
        obj_error(
            {MD_MIN: " 3", MD_MAX: "5"},
            MD_MIN,
            'invalid min annotation: strconv.Atoi: parsing " 3": invalid syntax',
        ),
        obj_error({MD_MIN: "-1", MD_MAX: "3"}, MD_MIN, "invalid min annotation: min (-1) < 0"),
        obj_error({MD_MIN: "3", MD_MAX: "2"}, MD_MAX, "invalid max annotation: max (2) < min (3)"),
        obj_error(
            {MD_MIN: "3"},
            MD_MAX,
            "invalid max annotation: max (0, the annotation is absent) < min (3)",
        ),
        obj_error(
            {MD_MIN: "0", MD_MAX: "-2"}, MD_MAX, "invalid max annotation: max (-2) < min (0)"
        ),
    ],
    ids=[
        "min-not-int",
        "max-decimal",
        "min-space",
        "min-negative",
        "max-below-min",
        "min-only",
        "max-negative",
    ],
)
def test_cluster_api_size_annotation_errors(annotations: dict[str, str], expected: str) -> None:
    assert groups_error(cluster(machine("MachineDeployment", "md-0", annotations))) == expected


def test_cluster_api_group_with_no_node_and_no_capacity() -> None:
    c = cluster(machine("MachineDeployment", "md-0", {**SIZES, CAP + "cpu": "4"}))
    assert groups_error(c) == (
        "t.yaml:5: MachineDeployment default/md-0: metadata.annotations: no node belongs to this "
        f"group and it has no {CAP}cpu and memory annotations; cannot build a scale-from-zero "
        "template (CA would skip the group; schedspec does not read infrastructure machine "
        "templates)"
    )


# --------------------------------------------------------------------------- scale from zero

ZERO = {
    MD_MIN: "0",
    MD_MAX: "4",
    CAP + "cpu": "16",
    CAP + "memory": "64Gi",
    CAP + "ephemeral-disk": "100Gi",
    CAP + "gpu-type": "nvidia.com/gpu",
    CAP + "gpu-count": "2",
    CAP + "labels": "node.kubernetes.io/instance-type=g6.4xlarge,accelerator=l4",
    CAP + "taints": "nvidia.com/gpu=present:NoSchedule,spot:PreferNoSchedule",
}


def test_scale_from_zero_template() -> None:
    c = cluster(
        machine("MachineDeployment", "gpu", ZERO, "replicas: 0"),
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: agents}\n"
        "value: 1000\n",
        daemonset("everywhere", "tolerations: [{operator: Exists}]", priority_class="agents"),
        daemonset(
            "gpu-only",
            "nodeSelector: {accelerator: l4}\n"
            "tolerations: [{key: nvidia.com/gpu, operator: Exists}]",
        ),
        daemonset("untolerated"),
        daemonset(
            "elsewhere", "nodeSelector: {accelerator: a100}\ntolerations: [{operator: Exists}]"
        ),
        daemonset(
            "by-affinity",
            """\
            tolerations: [{operator: Exists}]
            affinity:
              nodeAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms:
                  - matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [arm64]}]
                  - matchExpressions:
                    - {key: kubernetes.io/os, operator: In, values: [linux]}
                    - {key: eks.amazonaws.com/compute-type, operator: NotIn, values: [fargate]}
            """,
        ),
        daemonset(
            "affinity-miss",
            """\
            tolerations: [{operator: Exists}]
            affinity:
              nodeAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms:
                  - matchExpressions: [{key: accelerator, operator: DoesNotExist}]
            """,
        ),
    )
    (group,) = node_groups(c).groups
    name = "template-node-for-machinedeployment-default-gpu"
    assert (group.target_size, group.nodes, group.template_node) == (0, (), None)
    capacity = {
        "cpu": "16",
        "memory": "64Gi",
        "ephemeral-storage": "100Gi",
        "pods": "110",
        "nvidia.com/gpu": "2",
    }
    assert group.template["status"] == {
        "capacity": capacity,
        "allocatable": capacity,
        "conditions": [{"type": "Ready", "status": "True"}],
    }
    assert group.template["metadata"]["labels"] == {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        "kubernetes.io/hostname": name,
        "node.kubernetes.io/instance-type": "g6.4xlarge",
        "accelerator": "l4",
    }
    assert group.template["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
        {"key": "spot", "effect": "PreferNoSchedule"},
    ]
    pods = {p["metadata"]["name"]: p for p in group.template_pods}
    assert list(pods) == [f"{ds}-pod-{name}" for ds in ("everywhere", "gpu-only", "by-affinity")]
    everywhere = pods[f"everywhere-pod-{name}"]
    assert everywhere["spec"]["nodeName"] == name
    assert (everywhere["spec"]["priority"], everywhere["spec"]["priorityClassName"]) == (
        1000,
        "agents",
    )
    assert everywhere["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet"
    assert everywhere["metadata"]["ownerReferences"][0]["controller"] is True
    tolerated = {(t.get("key"), t.get("effect")) for t in everywhere["spec"]["tolerations"]}
    assert ("node.kubernetes.io/unschedulable", "NoSchedule") in tolerated
    assert pods[f"gpu-only-pod-{name}"]["spec"]["priority"] == 0


def test_max_pods_annotation_and_zero_values() -> None:
    annotations = {
        **SIZES,
        CAP + "cpu": "4",
        CAP + "memory": "16Gi",
        CAP + "maxPods": "58",
        CAP + "ephemeral-disk": "0",
        CAP + "gpu-count": "0",
        CAP + "labels": "",
    }
    (group,) = node_groups(cluster(machine("MachineSet", "ms", annotations))).groups
    assert group.template["status"]["capacity"] == {"cpu": "4", "memory": "16Gi", "pods": "58"}


def test_a_group_with_nodes_still_has_its_annotations_checked() -> None:
    c = cluster(
        machine("MachineDeployment", "md-0", {**SIZES, CAP + "cpu": "4 cores"}),
        node("w-1", meta=owner_annotations("md-0-abc")),
        CAPI_OBJECTS[1],
    )
    assert groups_error(c).endswith(f'metadata.annotations[{CAP}cpu]: invalid quantity "4 cores"')


@pytest.mark.parametrize(
    ("suffix", "value", "message"),
    [
        ("cpu", "4 cores", 'invalid quantity "4 cores"'),
        ("memory", "-1Gi", "must be greater than or equal to 0, got -1Gi"),
        (
            "maxPods",
            "2k",
            'value "2k" expected to be an integer: strconv.ParseInt: parsing "2k": invalid syntax',
        ),
        ("gpu-count", "1", f"needs {CAP}gpu-type: CA adds no GPU without it"),
        ("labels", "a=b,c", 'invalid label "c": expected key=value'),
        (
            "labels",
            "a=b, c=d",
            'invalid label key " c": the name must be 1-63 alphanumerics, '
            "'-', '_' or '.', starting and ending with an alphanumeric (spaces around ',' and '=' "
            "are not trimmed)",
        ),
        (
            "taints",
            "gpu=true:Sometimes",
            'invalid taint spec: "gpu=true:Sometimes": effect '
            '"Sometimes"; a taint needs NoSchedule, PreferNoSchedule or NoExecute',
        ),
        (
            "taints",
            "gpu=true",
            'invalid taint spec: "gpu=true": no effect; a taint needs '
            "NoSchedule, PreferNoSchedule or NoExecute",
        ),
        (
            "taints",
            "a=b=c:NoSchedule",
            'invalid taint spec: "a=b=c:NoSchedule": expected key=value:Effect',
        ),
        (
            "taints",
            "a:NoSchedule,a=x:NoSchedule",
            'duplicate taint with key "a" and effect NoSchedule',
        ),
    ],
    ids=[
        "cpu",
        "memory-negative",
        "max-pods",
        "gpu-count-alone",
        "label-no-equals",
        "label-space",
        "taint-effect",
        "taint-no-effect",
        "taint-two-equals",
        "taint-twice",
    ],
)
def test_scale_from_zero_annotation_errors(suffix: str, value: str, message: str) -> None:
    base = {**SIZES, CAP + "cpu": "4", CAP + "memory": "16Gi"}
    c = cluster(machine("MachineDeployment", "md-0", {**base, CAP + suffix: value}))
    path = f"metadata.annotations[{CAP}{suffix}]"
    assert groups_error(c) == f"t.yaml:5: MachineDeployment default/md-0: {path}: {message}"


def test_daemonset_with_a_missing_priority_class() -> None:
    c = cluster(
        machine("MachineDeployment", "md-0", {**SIZES, CAP + "cpu": "4", CAP + "memory": "8Gi"}),
        daemonset("agent", priority_class="nope"),
    )
    assert groups_error(c) == (
        "t.yaml:18: DaemonSet kube-system/agent: spec.template.spec.priorityClassName: "
        'no PriorityClass with name "nope" was found'
    )


# ------------------------------------------------------------------------- priority expander

PRIORITY = "priority,least-waste"


def priority_config_map(priorities: str | None, *, ns: str = "kube-system") -> str:
    data = "{}" if priorities is None else "{priorities: " + json.dumps(priorities) + "}"
    return f"""\
apiVersion: v1
kind: ConfigMap
metadata: {{name: cluster-autoscaler-priority-expander, namespace: {ns}}}
data: {data}
"""


def test_priorities() -> None:
    text = "10:\n  - .*t2\\.large.*\n  - 10\n50:\n  - ^general$\n-5:\n0x10: ~\n"
    c = cluster(priority_config_map(text))
    scaling = node_groups(c, options=parse_options(PRIORITY))
    assert scaling.priorities == {50: ("^general$",), 16: (), 10: (".*t2\\.large.*", "10"), -5: ()}
    assert list(scaling.priorities) == [50, 16, 10, -5]


def test_priorities_are_read_only_for_the_priority_expander() -> None:
    c = cluster(priority_config_map("not: [valid"))
    assert node_groups(c).priorities is None


@pytest.mark.parametrize(
    ("priorities", "path", "message"),
    [
        (None, "data", "Wrong configmap for priority expander, doesn't contain priorities key"),
        (
            "",
            "data.priorities",
            "priority configuration in cluster-autoscaler-priority-expander "
            "configmap is empty; please provide valid configuration",
        ),
        (
            "10: [a\n",
            "data.priorities",
            "Can't parse YAML with priorities in the configmap: "
            "line 2: expected ',' or ']', but got '<stream end>'",
        ),
        (
            "high: [a]\n",
            "data.priorities",
            "Can't parse YAML with priorities in the configmap: "
            'line 1: priority "high" is not an integer',
        ),
        (
            "true: [a]\n",
            "data.priorities",
            "Can't parse YAML with priorities in the configmap: "
            'line 1: priority "true" is not an integer',
        ),
        (
            "- a\n",
            "data.priorities",
            "Can't parse YAML with priorities in the configmap: "
            "line 1: expected a mapping of priorities",
        ),
        (
            "10: a\n",
            "data.priorities",
            "Can't parse YAML with priorities in the configmap: "
            "line 1: priority 10 must list regexes (- rule)",
        ),
        (
            "10: [a]\n10: [b]\n",
            "data.priorities",
            "Can't parse YAML with priorities in the "
            "configmap: line 2: priority 10 is listed twice (CA uses one list)",
        ),
        (
            "10: [a, [b]]\n",
            "data.priorities",
            "Can't parse YAML with priorities in the "
            "configmap: line 1: a rule of priority 10 must be a string",
        ),
        (
            "10: ['a(']\n",
            "data.priorities",
            "Can't compile regexp rule for priority 10 and rule "
            "a(: error parsing regexp: missing ), unterminated subpattern at position 1",
        ),
        (
            "10: ['(a)\\1']\n",
            "data.priorities",
            "Can't compile regexp rule for priority 10 and "
            "rule (a)\\1: error parsing regexp: backreferences are not supported by Go's RE2 "
            "syntax",
        ),
        (
            "10: ['^(?!gpu)']\n",
            "data.priorities",
            "Can't compile regexp rule for priority 10 and "
            "rule ^(?!gpu): error parsing regexp: lookaround assertions are not supported by Go's "
            "RE2 syntax",
        ),
        (
            "10: ['a(?<=b)']\n",
            "data.priorities",
            "Can't compile regexp rule for priority 10 and "
            "rule a(?<=b): error parsing regexp: lookaround assertions are not supported by Go's "
            "RE2 syntax",
        ),
        (
            "10: ['a++']\n",
            "data.priorities",
            "Can't compile regexp rule for priority 10 and "
            "rule a++: error parsing regexp: possessive quantifiers are not supported by Go's RE2 "
            "syntax",
        ),
    ],
    ids=[
        "no-key",
        "empty",
        "bad-yaml",
        "key-not-int",
        "key-bool",
        "not-a-mapping",
        "not-a-list",
        "twice",
        "nested-rule",
        "bad-regex",
        "backreference",
        "lookahead",
        "lookbehind",
        "possessive",
    ],
)
def test_priority_config_map_errors(priorities: str | None, path: str, message: str) -> None:
    c = cluster(priority_config_map(priorities))
    error = groups_error(c, options=parse_options(PRIORITY))
    obj = "ConfigMap kube-system/cluster-autoscaler-priority-expander"
    assert error == f"t.yaml:4: {obj}: {path}: {message}"


def test_priority_expander_without_its_config_map() -> None:
    c = cluster(priority_config_map("10: [a]", ns="default"))
    assert usage_error(c, options=parse_options(PRIORITY)) == (
        "--expander priority: Priority expander config map cluster-autoscaler-priority-expander "
        "not found: no ConfigMap kube-system/cluster-autoscaler-priority-expander in the input; "
        "without it the priority expander returns no option and CA never scales up"
    )
    options = parse_options(PRIORITY, namespace="default")
    assert node_groups(c, options=options).priorities == {10: ("a",)}


# ----------------------------------------------------------------------------------- prices


def test_prices() -> None:
    c = cluster(*TWO_NODES, node("s", pool="spot"))
    options = parse_options("price")
    scaling = node_groups(
        c, nodes=["0:3:a"], node_group_label=LABEL, prices=["a=0.096"], options=options
    )
    assert scaling.groups[0].price == Fraction(96, 1000)


@pytest.mark.parametrize(
    ("prices", "expander", "expected"),
    [
        (["a"], None, '--price "a": expected NAME=PRICE, PRICE a decimal ≥ 0 (node and hour)'),
        (
            ["a=-1"],
            None,
            '--price "a=-1": expected NAME=PRICE, PRICE a decimal ≥ 0 (node and hour)',
        ),
        (["b=1"], None, '--price "b=1": no node group named b (groups: a)'),
        (["spot=1"], None, '--price "spot=1": node group spot is not autoscaled (no --nodes flag)'),
        (["a=1", "a=2"], None, '--price "a=2": a second price for node group a'),
        ([], "price", "--expander price: node group a has no price; give one with --price a=PRICE"),
    ],
    ids=["no-equals", "negative", "unknown-group", "unmanaged-group", "twice", "missing"],
)
def test_price_errors(prices: list[str], expander: str | None, expected: str) -> None:
    c = cluster(*TWO_NODES, node("s", pool="spot"))
    kwargs = {"nodes": ["0:3:a"], "node_group_label": LABEL, "prices": prices}
    assert usage_error(c, options=parse_options(expander), **kwargs) == expected


# ---------------------------------------------------------------------------- parse_options


def test_parse_options_defaults_and_values() -> None:
    assert parse_options() == AutoscalingOptions()
    options = parse_options(
        "priority,least-waste",
        "12",
        "8:64",
        "16:256",
        True,
        "0.65",
        scale_down_gpu_utilization_threshold="1",
        expendable_pods_priority_cutoff="-5",
        scale_down_unneeded_time="1h2m3s",
        scale_down_delay_after_add="90s",
        max_node_provision_time="15m",
        skip_nodes_with_local_storage=False,
        namespace="autoscaler",
    )
    assert options == AutoscalingOptions(
        expander=("priority", "least-waste"),
        expendable_pods_priority_cutoff=-5,
        max_nodes_total=12,
        cores_total=(8, 64),
        memory_total=(16, 256),
        balance_similar_node_groups=True,
        scale_down_utilization_threshold=Fraction(13, 20),
        scale_down_gpu_utilization_threshold=Fraction(1),
        scale_down_unneeded_time=3723,
        scale_down_delay_after_add=90,
        skip_nodes_with_local_storage=False,
        max_node_provision_time=900,
        namespace="autoscaler",
    )
    assert parse_options(max_nodes_total=0).max_nodes_total == 0
    assert parse_options(scale_down_unneeded_time="0").scale_down_unneeded_time == 0
    assert parse_options(scale_down_unneeded_time="1.5m").scale_down_unneeded_time == 90


UNUSED = "this is not allowed since"


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"expander": "least-waste,fastest"},
            '--expander "least-waste,fastest": Expander '
            "fastest not supported (modelled: random, most-pods, least-waste, price, priority)",
        ),
        (
            {"expander": "priority, least-waste"},
            '--expander "priority, least-waste": Expander  '
            "least-waste not supported (CA trims no spaces) (modelled: random, most-pods, "
            "least-waste, price, priority)",
        ),
        (
            {"expander": "price,price"},
            '--expander "price,price": Expander price was specified '
            "multiple times, each expander must not be specified more than once",
        ),
        (
            {"expander": "random,most-pods"},
            '--expander "random,most-pods": Expander most-pods '
            "came after an expander random that will always return only one result, this is not "
            "allowed since most-pods will never be used",
        ),
        (
            {"expander": "grpc"},
            '--expander "grpc": Expander grpc is not modelled: it asks a gRPC '
            "server outside the cluster (--grpc-expander-url)",
        ),
        (
            {"expander": "least-nodes"},
            '--expander "least-nodes": Expander least-nodes is not '
            "modelled: CA 1.34 registers it but does not list it in --expander's help",
        ),
        ({"cores_total": "10"}, '--cores-total "10": wrong nodes configuration: 10'),
        (
            {"cores_total": "a:10"},
            '--cores-total "a:10": failed to set min size: a, expected '
            'integer, err: strconv.ParseInt: parsing "a": invalid syntax',
        ),
        (
            {"memory_total": "0:1:2"},
            '--memory-total "0:1:2": failed to set max size: 1:2, '
            'expected integer, err: strconv.ParseInt: parsing "1:2": invalid syntax',
        ),
        (
            {"memory_total": "-1:10"},
            '--memory-total "-1:10": min size must be greater or equal to  0',
        ),
        (
            {"cores_total": "10:5"},
            '--cores-total "10:5": max size must be greater or equal to min size',
        ),
        ({"max_nodes_total": "-1"}, '--max-nodes-total "-1": must be at least 0'),
        (
            {"max_nodes_total": "ten"},
            '--max-nodes-total "ten": must be an integer: strconv.Atoi: '
            'parsing "ten": invalid syntax',
        ),
        (
            {"scale_down_utilization_threshold": "0"},
            '--scale-down-utilization-threshold "0": must be a decimal in (0, 1]',
        ),
        (
            {"scale_down_utilization_threshold": "1.01"},
            '--scale-down-utilization-threshold "1.01": must be a decimal in (0, 1]',
        ),
        (
            {"scale_down_utilization_threshold": "half"},
            '--scale-down-utilization-threshold "half": must be a decimal in (0, 1]',
        ),
        (
            {"scale_down_unneeded_time": "10"},
            '--scale-down-unneeded-time "10": invalid duration: '
            'expected a Go duration such as "1h30m"',
        ),
        (
            {"scale_down_unneeded_time": "1500ms"},
            '--scale-down-unneeded-time "1500ms": must be a whole number of seconds',
        ),
        (
            {"namespace": "Kube_System"},
            '--namespace "Kube_System": not a namespace name (a lowercase RFC 1123 label)',
        ),
    ],
    ids=[
        "unknown",
        "space",
        "twice",
        "after-random",
        "grpc",
        "least-nodes",
        "limits-one-part",
        "limits-min",
        "limits-max",
        "limits-negative",
        "limits-reversed",
        "max-nodes-negative",
        "max-nodes-word",
        "threshold-zero",
        "threshold-above-one",
        "threshold-word",
        "duration-unitless",
        "duration-fraction",
        "namespace",
    ],
)
def test_parse_options_errors(kwargs: dict[str, Any], expected: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_options(**kwargs)
    assert str(info.value) == expected


# ---------------------------------------------------------------------------------- example

EXAMPLE_FLAGS = ["1:5:general-m5-large", "0:3:compute-c5-2xlarge", "0:2:gpu-g5-xlarge"]


@pytest.fixture(scope="module")
def example() -> tuple[Cluster, Autoscaling]:
    c = load(EXAMPLE)
    scaling = node_groups(
        c,
        nodes=EXAMPLE_FLAGS,
        node_group_label="eks.amazonaws.com/nodegroup",
        options=parse_options("priority,least-waste"),
    )
    return c, scaling


def test_example_header_names_the_flags() -> None:
    header = EXAMPLE.read_text(encoding="utf-8").split("\n---\n", 1)[0]
    assert "--node-group-label eks.amazonaws.com/nodegroup" in header
    assert all(f"--nodes {flag}" in header for flag in EXAMPLE_FLAGS)


def test_example_groups(example: tuple[Cluster, Autoscaling]) -> None:
    c, scaling = example
    assert not c.warnings and scaling.unmanaged == ()
    summary = {
        g.name: (g.min_size, g.max_size, g.target_size, len(g.template_pods))
        for g in scaling.groups
    }
    assert summary == {
        "compute-c5-2xlarge": (0, 3, 2, 2),
        "general-m5-large": (1, 5, 3, 2),
        "gpu-g5-xlarge": (0, 2, 1, 3),
    }
    assert scaling.priorities == {100: ("^general-.*",), 50: ("^compute-.*",), 10: (".*",)}
    gpu = next(g for g in scaling.groups if g.name == "gpu-g5-xlarge")
    assert gpu.template["spec"]["taints"] == [
        {"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}
    ]
    assert gpu.template["status"]["allocatable"]["nvidia.com/gpu"] == "1"


def test_example_has_the_scenarios_it_promises(example: tuple[Cluster, Autoscaling]) -> None:
    c, _ = example
    pending = c.pending_pods()
    assert len(pending) == 8
    assert any(p["spec"]["priority"] == -20 for p in pending)
    assert any(
        p["spec"].get("nodeSelector", {}).get("kubernetes.io/arch") == "arm64" for p in pending
    )
    assert [p["status"]["disruptionsAllowed"] for p in c.pdbs] == [0]
    annotations = [n["metadata"]["annotations"] for n in c.nodes]
    assert (
        sum("cluster-autoscaler.kubernetes.io/scale-down-disabled" in a for a in annotations) == 1
    )
    assert any("emptyDir" in v for p in c.pods for v in p["spec"].get("volumes", []))
    assert any(not p["metadata"].get("ownerReferences") for p in c.bound_pods())
    daemon_pods = [p for p in c.bound_pods() if p["metadata"]["namespace"] == "kube-system"]
    assert {p["spec"]["nodeName"] for p in daemon_pods} == {n["metadata"]["name"] for n in c.nodes}


# ------------------------------------------------------------------------ no traceback, ever

_TEXT = st.text(alphabet=st.sampled_from(list("ab0129-+.:=,/ \\()?*[]Gim")), max_size=12)
_ANNOTATIONS = [
    MD_MIN,
    MD_MAX,
    *(
        CAP + s
        for s in (
            "cpu",
            "memory",
            "maxPods",
            "gpu-type",
            "gpu-count",
            "labels",
            "taints",
            "ephemeral-disk",
        )
    ),
]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(_ANNOTATIONS), _TEXT, max_size=6),
    st.lists(_TEXT, max_size=3),
    st.lists(_TEXT, max_size=2),
    st.one_of(st.none(), st.sampled_from(["priority", "price", "priority,price,random"]), _TEXT),
    st.one_of(_TEXT, st.sampled_from(["10: [a]", "- x", "1: [b, '(c)']", "0x1: ~"])),
)
def test_any_input_gives_groups_or_an_input_error(
    annotations: dict[str, str],
    nodes: list[str],
    prices: list[str],
    expander: str | None,
    priorities: str,
) -> None:
    docs = (
        machine("MachineDeployment", "md-0", annotations),
        node("n1", pool="a"),
        daemonset("agent", "tolerations: [{operator: Exists}]"),
        priority_config_map(priorities),
    )
    with contextlib.suppress(ManifestError, UsageError):
        options = parse_options(expander)
        node_groups(
            cluster(*docs), nodes=nodes, node_group_label=LABEL, prices=prices, options=options
        )
