"""The textbook view: real manifests in the seed's shape, field by field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schedspec.cluster import Cluster, load, loads
from schedspec.spec.kube.textbook_view import ENUMS, FIELDS, TextbookWorld, textbook_view
from schedspec.spec.values import Fcn, Value, record

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.yaml"))

# Fields whose value is a function from arbitrary strings (labels, resources), not a record.
MAP_FIELDS = {"Labels", "NodeSelector", "MatchLabels", "Allocatable"}

NODE = """
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: z1}
status:
  allocatable: {cpu: 3920m, memory: 15Gi, pods: "110"}
"""

EMPTY_AFFINITY = record(
    NodeAffinity=record(
        Required=record(NodeSelectorTerms=frozenset()),
        Preferred=record(NodeSelectorTerms=frozenset()),
    ),
    PodAffinity=record(Required=frozenset(), Preferred=frozenset()),
    AntiPodAffinity=record(Required=frozenset(), Preferred=frozenset()),
)


def pod_yaml(spec: str = "", *, meta: str = "", status: str = "") -> str:
    """A pod ``default/p`` with one container ``c``; ``spec`` lines are appended to its spec."""
    text = f"""
apiVersion: v1
kind: Pod
metadata:
  name: p
{meta}
spec:
  containers:
  - name: c
    image: nginx:1.27
{spec}
"""
    return text + (f"status:\n{status}\n" if status else "")


def view_of(*docs: str) -> TextbookWorld:
    return textbook_view(loads("\n---\n".join(docs)))


def the_pod(*docs: str) -> Fcn:
    return view_of(NODE, *docs).pods["default/p"]


def at(v: Value, *path: str | int) -> Value:
    for step in path:
        v = v[step]
    return v


def indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.strip("\n").splitlines())


# -- Pod fields ----------------------------------------------------------------------------------

POD_CASES: list[tuple[str, str, tuple[str | int, ...], Value]] = [
    ("kind", pod_yaml(), ("Kind",), "Pod"),
    ("name", pod_yaml(), ("Name",), "p"),
    ("namespace-default", pod_yaml(), ("Namespace",), "default"),
    ("labels-absent", pod_yaml(), ("Labels",), Fcn()),
    ("labels", pod_yaml(meta="  labels: {app: web}"), ("Labels",), Fcn({"app": "web"})),
    ("node-name-absent", pod_yaml(), ("Spec", "NodeName"), ""),
    ("node-name", pod_yaml("  nodeName: n1"), ("Spec", "NodeName"), "n1"),
    ("node-selector-absent", pod_yaml(), ("Spec", "NodeSelector"), Fcn()),
    (
        "node-selector",
        pod_yaml("  nodeSelector: {kubernetes.io/os: linux}"),
        ("Spec", "NodeSelector"),
        Fcn({"kubernetes.io/os": "linux"}),
    ),
    ("phase-default", pod_yaml(), ("Status",), record(Phase="Pending")),
    ("phase", pod_yaml(status="  phase: Running"), ("Status", "Phase"), "Running"),
    ("init-absent", pod_yaml(), ("Spec", "InitContainer"), ()),
    ("affinity-absent", pod_yaml(), ("Spec", "Affinity"), EMPTY_AFFINITY),
    ("tolerations-absent", pod_yaml(), ("Spec", "Tolerations"), frozenset()),
]


@pytest.mark.parametrize(("manifest", "path", "expected"), [c[1:] for c in POD_CASES],
                         ids=[c[0] for c in POD_CASES])  # fmt: skip
def test_pod_field(manifest: str, path: tuple[str | int, ...], expected: Value) -> None:
    assert at(the_pod(manifest), *path) == expected


def test_pod_record_has_exactly_the_seed_fields() -> None:
    pod = the_pod(pod_yaml())
    assert set(pod) == {"Kind", "Name", "Namespace", "Labels", "Spec", "Status"}
    assert set(pod["Spec"]) == {
        "NodeName", "NodeSelector", "Tolerations", "Container", "InitContainer", "Affinity"
    }  # fmt: skip


# -- Resources -----------------------------------------------------------------------------------


def resources_pod(resources: str) -> str:
    return pod_yaml().replace("image: nginx:1.27", "image: nginx:1.27\n" + indent(resources, 4))


RESOURCE_CASES: list[tuple[str, str, Fcn]] = [
    ("absent", "", Fcn()),
    ("cpu-milli", "resources: {requests: {cpu: 250m}}", Fcn({"cpu": 250})),
    ("cpu-cores", "resources: {requests: {cpu: '2'}}", Fcn({"cpu": 2000})),
    ("cpu-fraction", "resources: {requests: {cpu: '0.5'}}", Fcn({"cpu": 500})),
    ("cpu-rounds-up", "resources: {requests: {cpu: 0.0001}}", Fcn({"cpu": 1})),
    ("mem-binary", "resources: {requests: {memory: 1Gi}}", Fcn({"mem": 1 << 30})),
    ("mem-decimal", "resources: {requests: {memory: 128M}}", Fcn({"mem": 128_000_000})),
    ("mem-exponent", "resources: {requests: {memory: 1e3}}", Fcn({"mem": 1000})),
    ("mem-milli-rounds-up", "resources: {requests: {memory: 1500m}}", Fcn({"mem": 2})),
    ("extended", "resources: {requests: {nvidia.com/gpu: '2'}}", Fcn({"nvidia.com/gpu": 2})),
    (
        "ephemeral-storage",
        "resources: {requests: {ephemeral-storage: 1Gi}}",
        Fcn({"ephemeral-storage": 1 << 30}),
    ),
    (
        "requests-from-limits",
        "resources: {limits: {cpu: '1', memory: 2Gi, nvidia.com/gpu: '4'}}",
        Fcn({"cpu": 1000, "mem": 2 << 30, "nvidia.com/gpu": 4}),
    ),
    (
        "requests-win-over-limits",
        "resources: {requests: {cpu: 100m}, limits: {cpu: '1'}}",
        Fcn({"cpu": 100}),
    ),
]


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in RESOURCE_CASES],
                         ids=[c[0] for c in RESOURCE_CASES])  # fmt: skip
def test_container_required(resources: str, expected: Fcn) -> None:
    container = the_pod(resources_pod(resources))["Spec"]["Container"][0]
    assert container == record(Name="c", Resources=record(Required=expected))


def test_containers_keep_their_order() -> None:
    spec = """
  initContainers:
  - {name: i1, image: busybox:1.36, resources: {requests: {cpu: 50m}}}
  - {name: i2, image: busybox:1.36, restartPolicy: Always, resources: {requests: {cpu: 20m}}}
"""
    manifest = pod_yaml(spec).replace(
        "  - name: c\n", "  - name: c\n    resources: {requests: {cpu: 1}}\n"
    )
    manifest = manifest.replace(
        "    image: nginx:1.27\n", "    image: nginx:1.27\n  - {name: d, image: envoy}\n", 1
    )
    pod = the_pod(manifest)
    assert [c["Name"] for c in pod["Spec"]["Container"]] == ["c", "d"]
    assert [c["Name"] for c in pod["Spec"]["InitContainer"]] == ["i1", "i2"]
    assert pod["Spec"]["InitContainer"][1]["Resources"]["Required"] == Fcn({"cpu": 20})
    assert pod["Spec"]["Container"][1]["Resources"]["Required"] == Fcn()


# -- Tolerations ---------------------------------------------------------------------------------

TOLERATION_CASES: list[tuple[str, str, Fcn]] = [
    (
        "equal",
        "{key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}",
        record(key="nvidia.com/gpu", Operator="Equal", value="present", Effect="NoSchedule"),
    ),
    (
        "exists",
        "{key: CriticalAddonsOnly, operator: Exists}",
        record(key="CriticalAddonsOnly", Operator="Exists", value="", Effect=""),
    ),
    (
        "exists-everything",
        "{operator: Exists}",
        record(key="", Operator="Exists", value="", Effect=""),
    ),
    (
        "operator-absent-stays-empty",
        "{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}",
        record(
            key="node-role.kubernetes.io/control-plane", Operator="", value="", Effect="NoSchedule"
        ),
    ),
    (
        "toleration-seconds-dropped",
        "{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute,"
        " tolerationSeconds: 300}",
        record(key="node.kubernetes.io/not-ready", Operator="Exists", value="", Effect="NoExecute"),
    ),
]


@pytest.mark.parametrize(("toleration", "expected"), [c[1:] for c in TOLERATION_CASES],
                         ids=[c[0] for c in TOLERATION_CASES])  # fmt: skip
def test_toleration(toleration: str, expected: Fcn) -> None:
    pod = the_pod(pod_yaml(f"  tolerations:\n  - {toleration}"))
    assert pod["Spec"]["Tolerations"] == frozenset({expected})


def test_equal_tolerations_collapse_into_one_set_element() -> None:
    toleration = "  - {key: k, operator: Exists, effect: NoSchedule}"
    pod = the_pod(pod_yaml(f"  tolerations:\n{toleration}\n{toleration}"))
    assert len(pod["Spec"]["Tolerations"]) == 1


# -- Affinity ------------------------------------------------------------------------------------


def affinity_pod(affinity: str) -> str:
    return pod_yaml("  affinity:\n" + indent(affinity, 4))


def nsr(key: str, operator: str, *values: str) -> Fcn:
    return record(Key=key, Operator=operator, Value=frozenset(values))


def lsr(key: str, operator: str, *values: str) -> Fcn:
    return record(Key=key, Operator=operator, Values=frozenset(values))


def selector(match_labels: dict[str, str] | None = None, *requirements: Fcn) -> Fcn:
    return record(MatchLabels=Fcn(match_labels or {}), MatchExpression=frozenset(requirements))


REQUIRED_NODE = """
nodeAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions:
      - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-A10G, NVIDIA-L4]}
      - {key: feature.node.kubernetes.io/cpu-model.id, operator: Gt, values: ["90"]}
    - matchFields:
      - {key: metadata.name, operator: In, values: [n1]}
    - matchExpressions:
      - {key: node.kubernetes.io/exclude-from-external-load-balancers, operator: DoesNotExist}
"""
PREFERRED_NODE = """
nodeAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 20
    preference:
      matchExpressions:
      - {key: topology.kubernetes.io/zone, operator: In, values: [z1]}
  - weight: 5
    preference: {}
"""
POD_AFFINITY = """
podAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
  - topologyKey: topology.kubernetes.io/zone
    labelSelector:
      matchLabels: {app: db}
      matchExpressions:
      - {key: tier, operator: NotIn, values: [canary]}
      - {key: owner, operator: Exists}
  - topologyKey: kubernetes.io/hostname
    namespaces: [shop, payments]
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 50
    podAffinityTerm:
      topologyKey: kubernetes.io/hostname
      labelSelector: {matchLabels: {app: cache}}
      namespaces: [shop]
"""
POD_ANTI_AFFINITY = """
podAntiAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
  - topologyKey: kubernetes.io/hostname
    labelSelector: {matchLabels: {app: web}}
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 100
    podAffinityTerm:
      topologyKey: topology.kubernetes.io/zone
      labelSelector: {matchLabels: {app: web}}
"""

AFFINITY_CASES: list[tuple[str, str, tuple[str, ...], Value]] = [
    (
        "node-required-terms",
        REQUIRED_NODE,
        ("NodeAffinity", "Required", "NodeSelectorTerms"),
        frozenset(
            {
                record(
                    MatchExpressions=frozenset(
                        {
                            nsr("nvidia.com/gpu.product", "In", "NVIDIA-A10G", "NVIDIA-L4"),
                            nsr("feature.node.kubernetes.io/cpu-model.id", "Gt", "90"),
                        }
                    ),
                    MatchFields=frozenset(),
                ),
                record(
                    MatchExpressions=frozenset(),
                    MatchFields=frozenset({nsr("metadata.name", "In", "n1")}),
                ),
                record(
                    MatchExpressions=frozenset(
                        {nsr("node.kubernetes.io/exclude-from-external-load-balancers",
                             "DoesNotExist")}
                    ),
                    MatchFields=frozenset(),
                ),
            }
        ),
    ),
    ("node-required-leaves-preferred-empty", REQUIRED_NODE,
     ("NodeAffinity", "Preferred"), record(NodeSelectorTerms=frozenset())),
    ("node-required-leaves-pod-affinity-empty", REQUIRED_NODE,
     ("PodAffinity",), record(Required=frozenset(), Preferred=frozenset())),
    (
        "node-preferred-flattened",
        PREFERRED_NODE,
        ("NodeAffinity", "Preferred", "NodeSelectorTerms"),
        frozenset(
            {
                record(
                    MatchExpressions=frozenset({nsr("topology.kubernetes.io/zone", "In", "z1")}),
                    MatchFields=frozenset(),
                    Weight=20,
                ),
                record(MatchExpressions=frozenset(), MatchFields=frozenset(), Weight=5),
            }
        ),
    ),
    ("node-preferred-leaves-required-empty", PREFERRED_NODE,
     ("NodeAffinity", "Required"), record(NodeSelectorTerms=frozenset())),
    (
        "pod-affinity-required",
        POD_AFFINITY,
        ("PodAffinity", "Required"),
        frozenset(
            {
                record(
                    TopologyKey="topology.kubernetes.io/zone",
                    Namespaces=frozenset(),
                    LabelSelector=selector(
                        {"app": "db"}, lsr("tier", "NotIn", "canary"), lsr("owner", "Exists")
                    ),
                ),
                record(
                    TopologyKey="kubernetes.io/hostname",
                    Namespaces=frozenset({"shop", "payments"}),
                    LabelSelector=selector(),  # nil selector: shown as the empty one
                ),
            }
        ),
    ),
    (
        "pod-affinity-preferred-flattened",
        POD_AFFINITY,
        ("PodAffinity", "Preferred"),
        frozenset(
            {
                record(
                    TopologyKey="kubernetes.io/hostname",
                    Namespaces=frozenset({"shop"}),
                    LabelSelector=selector({"app": "cache"}),
                    Weight=50,
                )
            }
        ),
    ),
    (
        "anti-affinity-required",
        POD_ANTI_AFFINITY,
        ("AntiPodAffinity", "Required"),
        frozenset(
            {
                record(
                    TopologyKey="kubernetes.io/hostname",
                    Namespaces=frozenset(),
                    LabelSelector=selector({"app": "web"}),
                )
            }
        ),
    ),
    (
        "anti-affinity-preferred-flattened",
        POD_ANTI_AFFINITY,
        ("AntiPodAffinity", "Preferred"),
        frozenset(
            {
                record(
                    TopologyKey="topology.kubernetes.io/zone",
                    Namespaces=frozenset(),
                    LabelSelector=selector({"app": "web"}),
                    Weight=100,
                )
            }
        ),
    ),
    ("anti-affinity-leaves-node-affinity-empty", POD_ANTI_AFFINITY,
     ("NodeAffinity",), EMPTY_AFFINITY["NodeAffinity"]),
]  # fmt: skip


@pytest.mark.parametrize(("affinity", "path", "expected"), [c[1:] for c in AFFINITY_CASES],
                         ids=[c[0] for c in AFFINITY_CASES])  # fmt: skip
def test_affinity(affinity: str, path: tuple[str, ...], expected: Value) -> None:
    assert at(the_pod(affinity_pod(affinity))["Spec"]["Affinity"], *path) == expected


def test_equal_preferred_terms_collapse() -> None:
    term = "  - {weight: 10, preference: {matchExpressions: [{key: a, operator: Exists}]}}"
    affinity = f"nodeAffinity:\n  preferredDuringSchedulingIgnoredDuringExecution:\n{term}\n{term}"
    pod = the_pod(affinity_pod(affinity))
    assert len(pod["Spec"]["Affinity"]["NodeAffinity"]["Preferred"]["NodeSelectorTerms"]) == 1


# -- Node fields ---------------------------------------------------------------------------------


def node_yaml(spec: str = "", status: str = "", labels: str = "") -> str:
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n" + labels
    if spec:
        text += "spec:\n" + spec + "\n"
    return (
        text
        + "status:\n"
        + (status or "  allocatable: {cpu: '4', memory: 16Gi, pods: '110'}")
        + "\n"
    )


NODE_CASES: list[tuple[str, str, tuple[str, ...], Value]] = [
    ("kind", node_yaml(), ("Kind",), "Node"),
    ("name", node_yaml(), ("Name",), "n1"),
    ("labels-absent", node_yaml(), ("Labels",), Fcn()),
    ("labels", node_yaml(labels="  labels: {kubernetes.io/hostname: n1}\n"), ("Labels",),
     Fcn({"kubernetes.io/hostname": "n1"})),
    ("unschedulable-absent", node_yaml(), ("Spec", "Unschedulable"), False),
    ("unschedulable", node_yaml("  unschedulable: true"), ("Spec", "Unschedulable"), True),
    ("taints-absent", node_yaml(), ("Spec", "Taints"), frozenset()),
    (
        "taints",
        node_yaml(
            "  taints:\n"
            "  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}\n"
            "  - {key: node.kubernetes.io/not-ready, effect: NoExecute,"
            " timeAdded: '2025-09-14T09:12:37Z'}"
        ),
        ("Spec", "Taints"),
        frozenset(
            {
                record(key="nvidia.com/gpu", value="present", Effect="NoSchedule"),
                record(key="node.kubernetes.io/not-ready", value="", Effect="NoExecute"),
            }
        ),
    ),
    ("phase-absent-is-empty", node_yaml(), ("Status", "Phase"), ""),
    ("phase-as-written", node_yaml(status="  phase: Running"), ("Status", "Phase"), "Running"),
    ("allocatable-units",
     node_yaml(status="  allocatable: {cpu: 3920m, memory: 15Gi, pods: '110'}"),
     ("Status", "Allocatable"), Fcn({"cpu": 3920, "mem": 15 << 30, "pods": 110})),
    (
        "allocatable-extended",
        node_yaml(status="  allocatable: {cpu: '48', memory: 191084360Ki, pods: '737',"
                  " nvidia.com/gpu: '4', ephemeral-storage: '93478772582', hugepages-2Mi: '0'}"),
        ("Status", "Allocatable"),
        Fcn({"cpu": 48000, "mem": 191084360 * 1024, "pods": 737, "nvidia.com/gpu": 4,
             "ephemeral-storage": 93478772582, "hugepages-2Mi": 0}),
    ),
    ("allocatable-from-capacity",
     node_yaml(status="  capacity: {cpu: '2', memory: 1Gi, pods: '10'}"),
     ("Status", "Allocatable"), Fcn({"cpu": 2000, "mem": 1 << 30, "pods": 10})),
    ("allocatable-absent-is-zero", node_yaml(status="  phase: Running"),
     ("Status", "Allocatable"), Fcn({"cpu": 0, "mem": 0, "pods": 0})),
]  # fmt: skip


@pytest.mark.parametrize(("manifest", "path", "expected"), [c[1:] for c in NODE_CASES],
                         ids=[c[0] for c in NODE_CASES])  # fmt: skip
def test_node_field(manifest: str, path: tuple[str, ...], expected: Value) -> None:
    assert at(view_of(manifest).nodes["n1"], *path) == expected


def test_node_record_has_exactly_the_seed_fields() -> None:
    node = view_of(node_yaml()).nodes["n1"]
    assert set(node) == {"Kind", "Name", "Labels", "Spec", "Status"}
    assert set(node["Spec"]) == {"Unschedulable", "Taints"}
    assert set(node["Status"]) == {"Phase", "Allocatable"}


# -- The world -----------------------------------------------------------------------------------


def test_world_keys_pending_and_objects() -> None:
    bound = pod_yaml("  nodeName: n1").replace("name: p", "name: bound\n  namespace: shop")
    first = pod_yaml().replace("name: p", "name: z-first")
    second = pod_yaml().replace("name: p", "name: a-second")
    world = view_of(NODE, first, bound, second)
    assert set(world.pods) == {"default/z-first", "shop/bound", "default/a-second"}
    assert world.pending == ("default/z-first", "default/a-second")
    assert set(world.nodes) == {"n1"}
    assert world.objects == frozenset({*world.pods.values(), *world.nodes.values()})
    assert world.constants == {"Objects": world.objects}
    assert world.pods["shop/bound"]["Namespace"] == "shop"


def test_terminal_pods_are_not_pending() -> None:
    done = pod_yaml(status="  phase: Succeeded").replace("name: p", "name: done")
    world = view_of(NODE, done, pod_yaml())
    assert world.pending == ("default/p",)
    assert world.pods["default/done"]["Status"]["Phase"] == "Succeeded"


def test_equal_sub_records_are_shared() -> None:
    affinity = "  affinity:\n" + indent(POD_ANTI_AFFINITY, 4)
    pods = [pod_yaml(affinity).replace("name: p", f"name: web-{i}") for i in range(3)]
    world = view_of(NODE, *pods)
    a, b, c = (world.pods[f"default/web-{i}"]["Spec"]["Affinity"] for i in range(3))
    assert a is b is c


def test_enums_hold_what_the_brief_names() -> None:
    assert ENUMS["Operator"] == {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equal", ""}
    assert ENUMS["Effect"] == {"NoSchedule", "PreferNoSchedule", "NoExecute", ""}
    assert ENUMS["Kind"] == {"Pod", "Node"}
    assert "Exits" not in ENUMS["Operator"]
    assert {"", "Pending", "Running", "Succeeded", "Failed", "Unknown", "Terminated"} == ENUMS[
        "Phase"
    ]


# -- Every example -------------------------------------------------------------------------------


def fields(v: Value, field: str = "", parent: str = "") -> Iterator[tuple[str, Value]]:
    """Every (field name, value) pair in a record tree, not descending into label/resource maps."""
    if isinstance(v, Fcn):
        if field in MAP_FIELDS or (field, parent) == ("Required", "Resources"):
            assert all(isinstance(k, str) for k in v), field
            return
        for name, child in v.items():
            yield name, child
            yield from fields(child, name, field)
    elif isinstance(v, frozenset | tuple):
        for child in v:
            yield from fields(child, field, parent)


@pytest.fixture(scope="module", params=EXAMPLES, ids=[p.stem for p in EXAMPLES])
def example(request: pytest.FixtureRequest) -> tuple[Cluster, TextbookWorld]:
    cluster = load(request.param)
    return cluster, textbook_view(cluster)


def test_examples_exist() -> None:
    names = {p.stem for p in EXAMPLES}
    assert {"zonal-web", "gpu-pool", "kube-system", "preemption"} <= names


def test_example_loads_and_views(example: tuple[Cluster, TextbookWorld]) -> None:
    cluster, world = example
    assert not cluster.warnings
    assert len(world.pods) == len(cluster.pods) and len(world.nodes) == len(cluster.nodes)
    assert len(world.objects) == len(cluster.pods) + len(cluster.nodes)
    assert world.pending, "every example has something to schedule"


def test_fields_cover_the_example(example: tuple[Cluster, TextbookWorld]) -> None:
    _, world = example
    produced = {name for record_ in world.objects for name, _ in fields(record_)}
    assert produced <= FIELDS, produced - FIELDS


def test_enums_cover_the_example(example: tuple[Cluster, TextbookWorld]) -> None:
    _, world = example
    seen: dict[str, set[Any]] = {}
    for record_ in world.objects:
        for name, v in fields(record_):
            if name in ENUMS:
                seen.setdefault(name, set()).add(v)
    for name, values in seen.items():
        assert values <= ENUMS[name], (name, values - ENUMS[name])


def test_all_fields_are_produced_somewhere() -> None:
    """FIELDS lists nothing the view cannot produce: the examples together produce all of it."""
    produced: set[str] = set()
    for path in EXAMPLES:
        world = textbook_view(load(path))
        produced |= {name for record_ in world.objects for name, _ in fields(record_)}
    assert produced == FIELDS
