"""Hypothesis clusters with node groups, for the autoscaler seam (:mod:`.autoscaler`).

A drawn case is a scheduler cluster from :func:`.strategies.cluster_objects` (every Filter
plugin's edges), then node groups laid over it as a platform engineer has them: nodes labelled
``eks.amazonaws.com/nodegroup`` (some left out of every group), ``--nodes MIN:MAX:NAME`` flags,
and the objects the autoscaler's rules read — controllers' ownerReferences, DaemonSet and mirror
pods, ``safe-to-evict`` annotations both ways, local volumes, ``kube-system`` pods, PDBs, the
scale-down-disabled annotation, a ``ToBeDeletedByClusterAutoscaler`` taint.

Biased to the rules' edges: a group at max or one node below it; a pending pod requesting the
template's free cpu exactly, or one millicore more; PDBs with no or one disruption left; a
``--max-nodes-total`` or ``--cores-total`` one node away; expander chains.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from schedspec.checker.strategies import _BYTES, HOSTNAME, _Choices, cluster_objects
from schedspec.cluster import milli_value, value

__all__ = ["GROUP_LABEL", "AutoscalerCase", "autoscaler_cases"]

Obj = dict[str, Any]

GROUP_LABEL = "eks.amazonaws.com/nodegroup"
_GROUPS = ("ng-a", "ng-b", "ng-c")
_CONTROLLERS = (
    "ReplicaSet",
    "ReplicaSet",
    "StatefulSet",
    "Job",
    "ReplicationController",
    "CronTab",
    "DaemonSet",
)
_EXPANDERS = (
    "least-waste",
    "most-pods",
    "priority",
    "priority,least-waste",
    "most-pods,least-waste",
    "random",
    "least-waste,most-pods",
)
_CLOCK = 1_800_000_000
_PRIORITY_CONFIG = "10:\n  - ng-a\n50:\n  - ng-[bc]\n"


@dataclass(frozen=True)
class AutoscalerCase:
    """Manifests and the flags ``schedspec autoscale`` would be given."""

    objects: list[Obj]
    nodes_flags: tuple[str, ...]
    expander: str
    max_nodes_total: int
    cores_total: str | None
    balance: bool = False
    memory_total: str | None = None
    # --skip-nodes-with-system-pods, --skip-nodes-with-local-storage,
    # --skip-nodes-with-custom-controller-pods (CA's defaults: all true)
    skip_nodes: tuple[bool, bool, bool] = (True, True, True)


def autoscaler_cases(*, max_nodes: int = 5, max_pods: int = 8) -> SearchStrategy[AutoscalerCase]:
    return _cases(max_nodes, max_pods)


@st.composite
def _cases(draw: DrawFn, max_nodes: int, max_pods: int) -> AutoscalerCase:
    # in_place_resize=False: impl ignores containers' resize statuses (checker/declared.py), which
    # would show here as a utilization difference, not as an autoscaler rule.
    objects = draw(
        cluster_objects(min_nodes=1, max_nodes=max_nodes, max_pods=max_pods, in_place_resize=False)
    )
    ch = _Choices(draw(_BYTES))
    nodes = [o for o in objects if o["kind"] == "Node"]
    pods = [o for o in objects if o["kind"] == "Pod"]
    members: dict[str, list[Obj]] = {}
    for node in nodes:
        _node_extras(ch, node)
        if not ch.chance(15):
            group = ch.one(_GROUPS[: 1 + len(nodes) // 2])
            node["metadata"].setdefault("labels", {})[GROUP_LABEL] = group
            members.setdefault(group, []).append(node)
    for pod in pods:
        _pod_extras(ch, pod)
    twins = _similar_edge(ch, members, pods)
    objects += twins or []
    _template_edge(ch, pods, members)
    _host_port_edge(ch, pods, members)
    if pods and ch.chance(40):
        objects.append(_budget(ch, pods))
    flags = []
    for group, in_group in sorted(members.items()):
        target = len(in_group)
        top = target + (ch.one((2, 4)) if twins is not None else ch.one((0, 1, 1, 2, 4)))
        low = max(0, target - ch.one((0, 1, 1, 2)))
        flags.append(f"{low}:{top}:{group}")
    expander = ch.one(_EXPANDERS)
    if "priority" in expander:
        objects.append(_priority_config_map())
    max_total = ch.one((0, 0, 0, len(nodes), len(nodes) + 1, len(nodes) + 2))
    cores = ch.one((None, None, None, "0:4", "0:8")) if twins is None else None
    balance = ch.chance(40)
    memory = ch.one((None, None, None, "0:8", "0:24")) if twins is None else None
    skips = (not ch.chance(15), not ch.chance(15), not ch.chance(15))
    return AutoscalerCase(objects, tuple(flags), expander, max_total, cores, balance, memory, skips)


def _node_extras(ch: _Choices, node: Obj) -> None:
    meta = node["metadata"]
    if ch.chance(10):
        meta.setdefault("annotations", {})[
            "cluster-autoscaler.kubernetes.io/scale-down-disabled"
        ] = ch.one(("true", "false"))
    if ch.chance(8):
        # CA's clock is the latest time the cluster records (schedspec/clock.py): the soft taint's
        # value sets it, later than any timestamp the base strategy writes; the deletion taint is
        # 0 s, 299 s, 300 s (CurrentlyBeingDeleted ends at 5 minutes) or long before it.
        age = ch.one((0, 299, 300, 10_000))
        taints = node.setdefault("spec", {}).setdefault("taints", [])
        soft = {"key": "DeletionCandidateOfClusterAutoscaler", "value": str(_CLOCK)}
        taints.append({**soft, "effect": "PreferNoSchedule"})
        hard = {"key": "ToBeDeletedByClusterAutoscaler", "value": str(_CLOCK - age)}
        taints.append({**hard, "effect": "NoSchedule"})
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    if allocatable and ch.chance(4):  # utilization of a node with no memory allocatable: 0
        allocatable.pop("memory", None)


def _pod_extras(ch: _Choices, pod: Obj) -> None:
    meta, spec = pod["metadata"], pod["spec"]
    bound = bool(spec.get("nodeName"))
    kind = ch.one(_CONTROLLERS) if not ch.chance(12) else None
    if kind == "DaemonSet" and not bound and ch.chance(50):
        kind = "ReplicaSet"
    if kind is not None:
        meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": kind,
                "name": "owner",
                "uid": f"uid-{kind}",
                "controller": True,
            }
        ]
    annotations: Obj = {}
    if bound and ch.chance(5):
        annotations["kubernetes.io/config.mirror"] = "mirror"
        meta.pop("ownerReferences", None)
    if ch.chance(12):
        annotations["cluster-autoscaler.kubernetes.io/safe-to-evict"] = ch.one(("true", "false"))
    if ch.chance(25):
        volume = ch.one(
            (
                {"name": "scratch", "emptyDir": {}},
                {"name": "cache", "emptyDir": {"medium": "Memory"}},
                {"name": "host", "hostPath": {"path": "/var/log"}},
            )
        )
        spec["volumes"] = [volume]
        if ch.chance(30):
            annotations["cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"] = volume[
                "name"
            ]
    if annotations:
        meta["annotations"] = annotations
    if bound and ch.chance(12):
        meta["namespace"] = "kube-system"
    if not bound and ch.chance(8):
        spec.pop("priorityClassName", None)
        spec["priority"] = ch.one((-10, -11, -100))


def _template_edge(ch: _Choices, pods: list[Obj], members: dict[str, list[Obj]]) -> None:
    """A pending pod asking for a template node's free cpu exactly, or 1m more or less."""
    pending = [p for p in pods if not p["spec"].get("nodeName")]
    if not pending or not members or not ch.chance(40):
        return
    node = ch.one(members[ch.one(sorted(members))])
    milli = milli_value((node.get("status") or {}).get("allocatable", {}).get("cpu", "1"))
    resident = sum(
        _milli(c)
        for p in pods
        if p["spec"].get("nodeName") == node["metadata"]["name"] and _is_daemon(p)
        for c in p["spec"]["containers"]
    )
    want = max(1, milli - resident + ch.one((0, 0, 1, -1)))
    pod = ch.one(pending)
    container = copy.deepcopy(pod["spec"]["containers"][0])
    container["resources"] = {"requests": {"cpu": f"{want}m"}}
    pod["spec"]["containers"] = [container]
    pod["spec"].pop("initContainers", None)
    pod["spec"].pop("resources", None)  # pod-level requests below the container's are invalid


def _similar_edge(ch: _Choices, members: dict[str, list[Obj]], pods: list[Obj]) -> list[Obj] | None:
    """Two groups of one machine shape: the second group's nodes take the first's allocatable,
    taints and labels (but for the group label and hostname), and its example node the first's
    DaemonSet pods, so the templates compare similar for balancing; sometimes memory 1 % off
    (still similar) or 3 % off (not). Returns the DaemonSet pods added; None when it did not
    fire."""
    names = sorted(members)
    if len(names) < 2 or not ch.chance(60):
        return None
    model = min(members[names[0]], key=lambda n: str(n["metadata"]["name"]))
    status = model.get("status") or {}
    other = min(members[names[1]], key=lambda n: str(n["metadata"]["name"]))
    added = []
    for pod in pods:
        if pod["spec"].get("nodeName") == model["metadata"]["name"] and _is_daemon(pod):
            twin = copy.deepcopy(pod)
            twin["metadata"]["name"] += "-twin"
            twin["metadata"].pop("uid", None)
            twin["spec"]["nodeName"] = other["metadata"]["name"]
            added.append(twin)
    for node in members[names[1]]:
        node["spec"] = copy.deepcopy(model.get("spec") or {})
        labels = {**(model["metadata"].get("labels") or {})}
        labels[GROUP_LABEL] = names[1]
        labels[HOSTNAME] = node["metadata"]["name"]
        node["metadata"]["labels"] = labels
        node["status"] = copy.deepcopy(status)
        memory = (node["status"].get("allocatable") or {}).get("memory")
        if memory is not None and ch.chance(30):
            scale = ch.one((101, 103))
            node["status"]["allocatable"]["memory"] = str(value(memory) * scale // 100)
    return added


def _host_port_edge(ch: _Choices, pods: list[Obj], members: dict[str, list[Obj]]) -> None:
    """A DaemonSet pod holding host port 9100 (node-exporter's) on a group's first node, which
    the group's template copies, and a pending pod asking for that port: the template turns it
    away (NodePorts)."""
    pending = [p for p in pods if not p["spec"].get("nodeName")]
    if not members or not pending or not ch.chance(30):
        return
    first = min(n["metadata"]["name"] for n in members[ch.one(sorted(members))])
    daemons = [p for p in pods if p["spec"].get("nodeName") == first and _is_daemon(p)]
    if not daemons:
        return
    for pod in (ch.one(daemons), ch.one(pending)):
        pod["spec"]["containers"][0]["ports"] = [{"containerPort": 9100, "hostPort": 9100}]


def _budget(ch: _Choices, pods: list[Obj]) -> Obj:
    """A PDB over one bound pod's labels, with no or one disruption left."""
    bound = [p for p in pods if p["spec"].get("nodeName")] or pods
    pod = ch.one(bound)
    labels = pod["metadata"].setdefault("labels", {"app": "web"}) or {"app": "web"}
    pod["metadata"]["labels"] = labels
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {
            "name": "edge-budget",
            "namespace": pod["metadata"].get("namespace", "default"),
        },
        "spec": {"selector": {"matchLabels": dict(labels)}, "maxUnavailable": 1},
        "status": {"disruptionsAllowed": ch.one((0, 1, 1))},
    }


def _is_daemon(pod: Obj) -> bool:
    refs = pod["metadata"].get("ownerReferences") or ()
    annotations = pod["metadata"].get("annotations") or {}
    return (
        any(r.get("kind") == "DaemonSet" for r in refs)
        or "kubernetes.io/config.mirror" in annotations
    )


def _milli(container: Obj) -> int:
    return milli_value(((container.get("resources") or {}).get("requests") or {}).get("cpu", "0"))


def _priority_config_map() -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cluster-autoscaler-priority-expander", "namespace": "kube-system"},
        "data": {"priorities": _PRIORITY_CONFIG},
    }
