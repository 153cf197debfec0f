"""Every manifest field schedspec reads is one the loader validates (issue 23).

The loader checks the type of every field in ``schedspec.shapes.SHAPES``; a field outside it can
hold anything. So a rule that reads a field outside the table can crash on bad input (a string
where it iterates, a list where it hashes) instead of the loader rejecting it with a message.

Two checks keep the table complete:

- **dynamic**: the readers of loaded objects — the three views, impl's scheduler (API conversion,
  PDBs, preemption), the autoscaler's inputs and loop, CA's clock — run on clusters whose objects
  record every field path read (``Recorded``); each path must be in ``validated_paths``. The
  clusters are the bundled examples, the scenario files, and ``EVERY_FIELD``, which sets each
  field a reader is known to read (lists non-empty, so that their items are read too).
- **static**: every string a reader module uses as a key (``x.get("k")``, ``x["k"]``, ``"k" in
  x``) must be the name of a validated field, or be declared in ``NOT_FIELDS`` with the reason.
  This catches a new rule reading a new field even where no cluster here exercises it.

A failure names the kind and the path: add the field to ``SHAPES`` (and a rule in
``schedspec.validate`` if the API server has one), not to this file.

Not recorded: the oracle's request (``checker/oracle.cluster_json``) sends whole objects, which the
Go bridge decodes with the real API types, so a wrong type there is the bridge's clean
``OracleRequestError``; ``why.py`` and the evaluator read the views' records, not manifests.
"""

from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, SupportsIndex

import pytest
import yaml

import schedspec.live
from schedspec.autoscaling import Autoscaling
from schedspec.checker.autoscale_cli import _inputs
from schedspec.checker.autoscale_cli import add_parser as add_autoscale_parser
from schedspec.clock import ca_clock
from schedspec.cluster import Cluster, loads
from schedspec.impl.autoscaler import run_once
from schedspec.impl.simulate import simulate
from schedspec.shapes import SHAPES, Shape, validated_paths
from schedspec.spec.kube.autoscaler_view import autoscaler_view
from schedspec.spec.kube.scheduler_view import scheduler_view
from schedspec.spec.kube.textbook_view import textbook_view

ROOT = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------------- recording objects

_Log = set[tuple[str, str]]


def _step(at: str, key: str, shape: Shape | None) -> tuple[str, Shape | None]:
    """The path pattern and shape of ``key`` inside the mapping at ``at``."""
    if shape is not None and key in shape.fields:
        return (f"{at}.{key}" if at else key), shape.fields[key]
    if shape is not None and shape.type == "mapping" and shape.each is not None:
        return f"{at}.*", shape.each
    return (f"{at}.{key}" if at else key), None


class RecordedDict(dict[str, Any]):
    """A mapping that logs (kind, path pattern) for every key read, present or not.

    Iterating it is not logged: ``dict(x)`` and ``{**x, ...}`` copy an object without reading
    its fields, and what is read of the copy later is logged then (the mappings and lists in it
    still record; the static check covers scalars read off a copy). Pickling it fails: the
    scheduler view keys the records it keeps across clusters by an object's pickle, and an
    object it cannot pickle is read afresh each time, so every read is seen. A map keyed by
    data (labels, resources) is validated whole once its own path is."""

    __slots__ = ("_at", "_kind", "_log", "_shape")

    _kind: str
    _at: str
    _shape: Shape | None
    _log: _Log

    def _read(self, key: object) -> None:
        if isinstance(key, str):
            self._log.add((self._kind, _step(self._at, key, self._shape)[0]))

    def __getitem__(self, key: str) -> Any:
        self._read(key)
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self._read(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self._read(key)
        return dict.__contains__(self, key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._read(key)
        return dict.setdefault(self, key, default)

    def pop(self, key: str, *default: Any) -> Any:
        self._read(key)
        return dict.pop(self, key, *default)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        raise TypeError("a recorded object is not pickled: what is read of it must be seen")

    def __copy__(self) -> RecordedDict:
        return _wrap_dict(dict(dict.items(self)), self._kind, self._at, self._shape, self._log)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return record(
            copy.deepcopy(plain(self), memo), self._kind, self._at, self._shape, self._log
        )


class RecordedList(list[Any]):
    """A list that logs (kind, ``path[]``) when its items are read."""

    __slots__ = ("_at", "_kind", "_log", "_shape")

    _kind: str
    _at: str
    _shape: Shape | None
    _log: _Log

    def _read(self) -> None:
        self._log.add((self._kind, f"{self._at}[]"))

    def __getitem__(self, index: Any) -> Any:
        self._read()
        return list.__getitem__(self, index)

    def __iter__(self) -> Iterator[Any]:
        self._read()
        return list.__iter__(self)

    def __reversed__(self) -> Iterator[Any]:
        self._read()
        return list.__reversed__(self)

    def __contains__(self, item: object) -> bool:
        self._read()
        return list.__contains__(self, item)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        raise TypeError("a recorded object is not pickled: what is read of it must be seen")

    def __copy__(self) -> RecordedList:
        return _wrap_list(list(list.__iter__(self)), self._kind, self._at, self._shape, self._log)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return record(
            copy.deepcopy(plain(self), memo), self._kind, self._at, self._shape, self._log
        )


def _wrap_dict(
    items: dict[str, Any], kind: str, at: str, shape: Shape | None, log: _Log
) -> RecordedDict:
    out = RecordedDict(items)
    out._kind, out._at, out._shape, out._log = kind, at, shape, log
    return out


def _wrap_list(
    items: list[Any], kind: str, at: str, shape: Shape | None, log: _Log
) -> RecordedList:
    out = RecordedList(items)
    out._kind, out._at, out._shape, out._log = kind, at, shape, log
    return out


def record(data: Any, kind: str, at: str, shape: Shape | None, log: _Log) -> Any:
    """``data`` with every mapping and list inside it recording reads into ``log``."""
    if isinstance(data, dict):
        children = {}
        for key, child in dict.items(data):
            child_at, child_shape = _step(at, key, shape)
            children[key] = record(child, kind, child_at, child_shape, log)
        return _wrap_dict(children, kind, at, shape, log)
    if isinstance(data, list):
        item = shape.each if shape is not None and shape.type == "list" else None
        items = [record(child, kind, f"{at}[]", item, log) for child in list.__iter__(data)]
        return _wrap_list(items, kind, at, shape, log)
    return data


def plain(data: Any) -> Any:
    """A plain copy of recorded data, read without logging."""
    if isinstance(data, dict):
        return {k: plain(v) for k, v in dict.items(data)}
    if isinstance(data, list):
        return [plain(v) for v in list.__iter__(data)]
    return data


def recorded(cluster: Cluster, log: _Log) -> Cluster:
    """``cluster`` whose objects (all but the scheduler configuration, which impl validates
    itself) log every read into ``log``."""

    def each(objects: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
        return tuple(record(o, o["kind"], "", SHAPES[o["kind"]], log) for o in objects)

    return dataclasses.replace(
        cluster,
        nodes=each(cluster.nodes),
        pods=each(cluster.pods),
        pdbs=each(cluster.pdbs),
        priority_classes=each(cluster.priority_classes),
        namespaces=each(cluster.namespaces),
        others=each(cluster.others),
    )


def test_recording_objects_log_what_is_read() -> None:
    log: _Log = set()
    pod = record(
        {"kind": "Pod", "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{}]}},
        "Pod",
        "",
        SHAPES["Pod"],
        log,
    )
    assert dict(pod["metadata"]) == {"labels": {"a": "b"}}  # a copy: not a read
    assert pod["spec"].get("nodeName") is None
    assert [c.get("name") for c in pod["spec"]["containers"]] == [None]
    assert copy.deepcopy(pod)["spec"]["containers"][0].get("image") is None
    assert log == {
        ("Pod", p)
        for p in (
            "metadata",
            "spec",
            "spec.nodeName",
            "spec.containers",
            "spec.containers[]",
            "spec.containers[].name",
            "spec.containers[].image",
        )
    }


# ------------------------------------------------------------------------------- the clusters

EVERY_FIELD = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
globalDefault: false
preemptionPolicy: PreemptLowerPriority
description: high
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: a}}
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  uid: n1-uid
  creationTimestamp: "2025-01-01T00:00:00Z"
  labels: {zone: a, kubernetes.io/hostname: n1, pool: p}
  annotations: {cluster-autoscaler.kubernetes.io/scale-down-disabled: "false"}
spec:
  unschedulable: false
  taints:
  - {key: ToBeDeletedByClusterAutoscaler, value: "1735689600", effect: NoSchedule,
     timeAdded: "2025-01-01T00:00:00Z"}
status:
  phase: Running
  capacity: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "1"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "1"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: ok,
                lastHeartbeatTime: "2025-01-01T00:00:00Z",
                lastTransitionTime: "2025-01-01T00:00:00Z"}]
  images: [{names: ["nginx:1"], sizeBytes: 1000}]
---
apiVersion: v1
kind: Node
metadata:
  name: n2
  labels: {zone: b, kubernetes.io/hostname: n2, pool: p}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Pod
metadata:
  name: bound
  namespace: shop
  uid: bound-uid
  labels: {app: web}
  annotations:
    cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes: scratch
    kubernetes.io/config.mirror: x
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs,
                     controller: true, blockOwnerDeletion: true}]
  creationTimestamp: "2025-01-01T00:00:00Z"
  deletionTimestamp: "2025-01-01T00:10:00Z"
  deletionGracePeriodSeconds: 30
spec:
  nodeName: n1
  priorityClassName: high
  terminationGracePeriodSeconds: 30
  hostNetwork: false
  volumes:
  - {name: scratch, emptyDir: {medium: Memory, sizeLimit: 1Gi}}
  - {name: host, hostPath: {path: /var, type: Directory}}
  containers:
  - name: app
    image: nginx:1
    resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 200m}}
    ports: [{name: http, containerPort: 80, hostPort: 8080, hostIP: 10.0.0.1, protocol: TCP}]
  initContainers:
  - {name: sidecar, image: envoy, restartPolicy: Always,
     resources: {requests: {cpu: 10m}}}
  - {name: init, image: busybox}
status:
  phase: Running
  startTime: "2025-01-01T00:00:00Z"
  nominatedNodeName: n1
  conditions:
  - {type: DisruptionTarget, status: "True", reason: PreemptionByScheduler, message: m,
     lastTransitionTime: "2025-01-01T00:00:00Z", lastProbeTime: "2025-01-01T00:00:00Z"}
  containerStatuses:
  - {name: app, resources: {requests: {cpu: 100m}, limits: {cpu: 200m}},
     allocatedResources: {cpu: 100m}}
  initContainerStatuses:
  - {name: sidecar, resources: {requests: {cpu: 10m}}, allocatedResources: {cpu: 10m}}
---
apiVersion: v1
kind: Pod
metadata:
  name: pending
  namespace: shop
  labels: {app: web}
spec:
  priority: 2000
  preemptionPolicy: PreemptLowerPriority
  schedulerName: default-scheduler
  nodeSelector: {pool: p}
  overhead: {cpu: 10m}
  resources: {requests: {cpu: 100m}, limits: {cpu: 100m}}
  schedulingGates: []
  tolerations:
  - {key: k, operator: Equal, value: v, effect: NoExecute, tolerationSeconds: 30}
  - {operator: Exists}
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 3900m}}}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
          matchFields: [{key: metadata.name, operator: In, values: [n1, n2]}]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        preference:
          matchExpressions: [{key: zone, operator: In, values: [a]}]
          matchFields: [{key: metadata.name, operator: NotIn, values: [n3]}]
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: zone
        namespaces: [shop]
        namespaceSelector: {matchLabels: {team: a}}
        labelSelector:
          matchLabels: {app: web}
          matchExpressions: [{key: app, operator: In, values: [web]}]
        matchLabelKeys: [app]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 5
        podAffinityTerm: {topologyKey: zone, labelSelector: {matchLabels: {app: web}}}
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector: {matchLabels: {app: db}}
        mismatchLabelKeys: [app]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 5
        podAffinityTerm: {topologyKey: zone, labelSelector: {matchLabels: {app: db}}}
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: DoNotSchedule
    minDomains: 2
    nodeAffinityPolicy: Honor
    nodeTaintsPolicy: Honor
    matchLabelKeys: [app]
    labelSelector: {matchLabels: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}, matchExpressions: [{key: app, operator: Exists}]}
status:
  disruptionsAllowed: 0
  currentHealthy: 1
  desiredHealthy: 1
  expectedPods: 1
  disruptedPods: {bound: "2025-01-01T00:00:00Z"}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}, annotations: {a: b}}
    spec:
      hostNetwork: true
      priorityClassName: high
      tolerations: [{operator: Exists}]
      nodeSelector: {pool: p}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions: [{key: zone, operator: Exists}]
              matchFields: [{key: metadata.name, operator: NotIn, values: [x]}]
      containers:
      - name: agent
        image: agent
        resources: {requests: {cpu: 50m}}
        ports: [{containerPort: 9100, hostPort: 9100}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-autoscaler-priority-expander, namespace: kube-system}
data:
  priorities: |-
    10:
      - .*
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata:
  name: md-0
  annotations:
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "0"
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "3"
    capacity.cluster-autoscaler.kubernetes.io/cpu: "4"
    capacity.cluster-autoscaler.kubernetes.io/memory: 8Gi
    capacity.cluster-autoscaler.kubernetes.io/maxPods: "110"
    capacity.cluster-autoscaler.kubernetes.io/labels: pool=md
    capacity.cluster-autoscaler.kubernetes.io/taints: dedicated=md:NoSchedule
spec: {replicas: 0, clusterName: c, selector: {matchLabels: {a: b}}, template: {}}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineSet
metadata:
  name: md-0-abc
  ownerReferences: [{apiVersion: cluster.x-k8s.io/v1beta1, kind: MachineDeployment, name: md-0,
                     uid: md}]
spec: {replicas: 0}
"""


def _autoscale_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    add_autoscale_parser(parser.add_subparsers(dest="command"))
    return parser


@cache
def clusters() -> dict[str, tuple[str, list[str]]]:
    """name → (manifest text, ``schedspec autoscale`` flags)."""
    every_flags = ["--node-group-label=pool", "--nodes=0:5:p", "--expander=priority"]
    out: dict[str, tuple[str, list[str]]] = {"EVERY_FIELD": (EVERY_FIELD, every_flags)}
    examples_flags = {
        "autoscaling.yaml": [
            "--node-group-label=eks.amazonaws.com/nodegroup",
            "--nodes=1:5:general-m5-large",
            "--nodes=0:3:compute-c5-2xlarge",
            "--nodes=0:2:gpu-g5-xlarge",
            "--expander=priority",
        ]
    }
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        out[f"examples/{path.name}"] = (
            path.read_text(encoding="utf-8"),
            examples_flags.get(path.name, []),
        )
    for folder in ("tests/spec/scenarios", "tests/autoscaler_scenarios"):
        for path in sorted((ROOT / folder).rglob("*.yaml")):
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
            flags = [f for f in doc.get("flags") or [] if isinstance(f, str)]
            out[str(path.relative_to(ROOT))] = (doc["objects"], flags)
    return out


def _read_paths(text: str, flags: list[str], name: str) -> _Log:
    """Every (kind, path) the readers read of the cluster in ``text``."""
    log: _Log = set()
    cluster = loads(text, source=name)
    watched = recorded(cluster, log)
    scheduler_view(watched)
    textbook_view(watched)
    ca_clock(watched)
    simulate(watched)
    autoscaling = _autoscaling(watched, flags)
    autoscaler_view(watched, autoscaling)
    run_once(watched, autoscaling)
    return log


def _autoscaling(cluster: Cluster, flags: list[str]) -> Autoscaling:
    """The node groups ``schedspec autoscale`` builds from ``cluster`` and ``flags``."""
    args = _autoscale_parser().parse_args(["autoscale", "-", *flags])
    with pytest.MonkeyPatch.context() as patch:
        # the CLI reads its files through schedspec.live (files or --kubeconfig)
        patch.setattr(schedspec.live, "load", lambda *paths: cluster)
        return _inputs(args)[1]


@pytest.mark.parametrize("name", sorted(clusters()))
def test_every_path_read_is_validated(name: str) -> None:
    text, flags = clusters()[name]
    missing = sorted(
        f"{kind} {path}"
        for kind, path in _read_paths(text, flags, name)
        if path not in validated_paths(kind)
    )
    assert not missing, (
        "read but not validated (add them to schedspec/shapes.py SHAPES):\n" + "\n".join(missing)
    )


def test_every_field_cluster_exercises_the_readers() -> None:
    """EVERY_FIELD is the cluster that reaches the fields the others leave out: it must keep
    reaching them (a reader that stopped reading one is fine; one that reads it elsewhere is
    what the dynamic test is for)."""
    text, flags = clusters()["EVERY_FIELD"]
    read = _read_paths(text, flags, "EVERY_FIELD")
    for kind, path in [
        ("Pod", "status.conditions[].status"),
        ("Pod", "status.containerStatuses[].allocatedResources"),
        ("Pod", "status.startTime"),
        ("Pod", "metadata.deletionTimestamp"),
        ("Pod", "metadata.ownerReferences[].controller"),
        ("Pod", "spec.volumes[].emptyDir.medium"),
        ("Pod", "spec.containers[].ports[].hostIP"),
        ("Node", "status.conditions[].status"),
        ("PodDisruptionBudget", "status.disruptedPods"),
    ]:
        assert (kind, path) in read, (kind, path)


# ------------------------------------------------------------------------------ static check

READERS = (
    "spec/kube/scheduler_view.py",
    "spec/kube/textbook_view.py",
    "spec/kube/autoscaler_view.py",
    "impl/api/convert.py",
    "impl/apiserver.py",
    "impl/scheduler.py",
    "impl/preemption/pdb.py",
    "impl/preemption/evaluator.py",
    "impl/autoscaler",
    "schedspec/autoscaling.py",
    "schedspec/autoscaling_templates.py",
    "schedspec/autoscaling_priorities.py",
    "schedspec/clock.py",
)
"""The modules that read loaded manifest objects (files, or folders of them)."""

NOT_FIELDS = {
    # keys of maps keyed by data, whose values SHAPES validates whole
    "cpu": "a resource name (a key of requests/allocatable)",
    "memory": "a resource name (a key of requests/allocatable)",
    "kubernetes.io/config.mirror": "an annotation",
    "kubernetes.io/metadata.name": "a label",
    "cluster.x-k8s.io/cluster-namespace": "an annotation",
    "cluster.x-k8s.io/owner-kind": "an annotation",
    "cluster.x-k8s.io/owner-name": "an annotation",
    "cluster.x-k8s.io/deployment-name": "a label",
    "priorities": "a key of the priority expander ConfigMap's data",
    # not manifests
    "Pod": "a kind, the API server's store key",
    "min": "autoscaling.py's own map of sizes",
    "max": "autoscaling.py's own map of sizes",
    "price": "autoscaling.py's own map of --price flags",
    ":": "a substring test on an annotation's text",
    "=": "a substring test on an annotation's text",
}


def _field_names() -> set[str]:
    names = set()
    for kind in SHAPES:
        for path in validated_paths(kind):
            steps = [s for s in path.replace("[]", "").split(".") if s != "*"]
            names.add(steps[-1])
    return names


def _keys(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Each string used as a key in ``tree``: ``x.get("k")``, ``x["k"]``, ``"k" in x``."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "setdefault", "pop")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value, node.lineno
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            yield node.slice.value, node.lineno
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
            and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
        ):
            yield node.left.value, node.lineno


def _reader_files() -> list[Path]:
    out = []
    for name in READERS:
        path = ROOT / name
        out += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return out


def test_every_key_a_reader_uses_is_a_validated_field() -> None:
    known = _field_names() | NOT_FIELDS.keys()
    unknown = [
        f"{path.relative_to(ROOT)}:{line}: {key!r}"
        for path in _reader_files()
        for key, line in _keys(ast.parse(path.read_text(encoding="utf-8")))
        if key not in known
    ]
    assert not unknown, (
        "keys read that name no validated field (add the field to schedspec/shapes.py SHAPES, "
        "or declare the key in NOT_FIELDS with why it is no field):\n" + "\n".join(unknown)
    )


def test_declared_keys_are_still_used() -> None:
    used = {key for path in _reader_files() for key, _ in _keys(ast.parse(path.read_text()))}
    assert not NOT_FIELDS.keys() - used
