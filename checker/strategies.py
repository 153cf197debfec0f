"""Hypothesis strategies of Kubernetes clusters, biased towards the scheduler's edges.

Public, so plugin authors can test their own code on the same clusters the checker uses::

    from hypothesis import given
    from schedspec.checker.strategies import clusters

    @given(clusters(max_nodes=4, max_pods=6))
    def test_my_filter_never_crashes(cluster): ...

Six strategies, each drawing plain manifest dicts in the shape ``schedspec.cluster.from_objects``
(and ``kubectl apply``) accepts:

- ``nodes(name=...)``: one Node; ``pods(name=..., node_names=..., ...)``: one Pod;
- ``cluster_objects(min_nodes=..., max_nodes=..., min_pods=..., max_pods=..., ...)``: a list of
  PriorityClasses, Namespaces, Nodes, Pods and PodDisruptionBudgets that always loads;
- ``clusters(...)``: the same, loaded (``cluster_objects(...).map(from_objects)``);
- ``preemption_cluster_objects(...)``: small full nodes, more important pending pods and PDBs
  over the bound ones — DefaultPreemption's inputs, which the others draw rarely;
- ``scoring_cluster_objects(...)``: roomy nodes most pending pods fit, and what the Score
  plugins rank them by (soft spread, preferred affinity, images, PreferNoSchedule taints).

Size arguments are validated when the strategy is built, as Hypothesis's own are: a negative,
non-integer or inverted bound raises ``hypothesis.errors.InvalidArgument``.

**The bias.** Uniform random manifests almost never land on a rule's edge, so every choice comes
from a small shared pool (the module constants below): few label keys and values, so selectors,
node selectors and affinity terms often match and often just miss; the real topology keys
(``kubernetes.io/hostname`` is the node's name; zones share regions); tolerations built from the
taints' own keys and values with another value, effect or operator; host ports from two numbers,
two protocols and host IPs ``""``/``0.0.0.0``/a specific one; priorities from three values and
PriorityClasses that tie. In ``cluster_objects`` a pending pod's request is often exactly a node's
free capacity (allocatable minus the requests of its bound, non-terminal pods), one unit above or
one unit below it; a node's ``pods`` allocatable is often its pod count or one more. Bound pods
are bound to existing nodes; some are terminal (Succeeded/Failed) or terminating (with a
``deletionTimestamp`` and sometimes the preemption's ``DisruptionTarget`` condition); some pending
pods carry ``status.nominatedNodeName``. Every field ``spec/kube/scheduler.tla`` reads is
exercised, including start times that tie, init containers and sidecars, pod-level resources and
overhead, scheduling gates, node images at ImageLocality's size thresholds, PDB budgets and
``disruptedPods``, and (``in_place_resize=True``) container statuses of an in-place resize.

Every choice shrinks towards "feature absent", so Hypothesis's shrinking already removes most of
what does not matter; ``schedspec.checker.minimise`` does the rest.

Field semantics mirror k8s.io/api core/v1 types.go and the API server's validation
(pkg/apis/core/validation/validation.go: host ports unique per pod by protocol/hostIP/port,
``matchLabelKeys`` only beside a ``labelSelector`` and never on one of its keys).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import DrawFn, SearchStrategy

from schedspec.cluster import Cluster, from_objects, milli_value, value

__all__ = [
    "CPU_ALLOCATABLE",
    "CPU_REQUESTS",
    "EXTENDED_RESOURCES",
    "HOSTNAME",
    "HOST_IPS",
    "HOST_PORTS",
    "IMAGES",
    "IMAGE_SIZES",
    "LABEL_KEYS",
    "LABEL_VALUES",
    "MEMORY_ALLOCATABLE",
    "MEMORY_REQUESTS",
    "NAMESPACES",
    "NAMESPACE_LABELS",
    "NUMERIC_LABEL_KEY",
    "NUMERIC_LABEL_VALUES",
    "PODS_ALLOCATABLE",
    "PRIORITIES",
    "PRIORITY_CLASSES",
    "REGION",
    "START_TIMES",
    "TAINT_EFFECTS",
    "TAINT_KEYS",
    "TAINT_VALUES",
    "TOPOLOGY_KEYS",
    "ZONE",
    "ZONES",
    "cluster_objects",
    "clusters",
    "nodes",
    "pods",
    "preemption_cluster_objects",
    "request_vector",
    "scoring_cluster_objects",
    "spell_quantity",
]

Obj = dict[str, Any]

# ------------------------------------------------------------------------------------ the pools

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
TOPOLOGY_KEYS = (HOSTNAME, ZONE, REGION)
ZONES: Mapping[str, str] = {"zone-a": "region-1", "zone-b": "region-1", "zone-c": "region-2"}
"""Zone → its region: two zones share a region, so zone and region domains differ."""

LABEL_KEYS = ("app", "tier", "example.com/pool")
LABEL_VALUES = ("web", "db", "batch")
NUMERIC_LABEL_KEY = "example.com/cores"
NUMERIC_LABEL_VALUES = ("2", "4", "8")
"""Node label values read by ``Gt``/``Lt`` node-affinity requirements."""

NAMESPACES = ("default", "prod", "batch")
NAMESPACE_LABELS: Mapping[str, tuple[str, ...]] = {"team": ("a", "b"), "env": ("prod", "dev")}

TAINT_KEYS = ("dedicated", "nvidia.com/gpu", "node.kubernetes.io/unschedulable")
TAINT_VALUES = ("", "gpu", "infra")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

PRIORITIES = (0, 100, 1000)
PRIORITY_CLASSES: Mapping[str, int] = {"low": 100, "high": 1000, "also-low": 100}
"""Name → value; ``low`` and ``also-low`` tie, and tie with the bare priority 100."""

CPU_ALLOCATABLE = ("2", "3920m", "4")
MEMORY_ALLOCATABLE = ("4Gi", "8Gi", "15Gi")
PODS_ALLOCATABLE = ("110", "3", "1")
CPU_REQUESTS = ("100m", "250m", "500m", "1", "1500m")
MEMORY_REQUESTS = ("128Mi", "256Mi", "512Mi", "1Gi")
EPHEMERAL_ALLOCATABLE = ("20Gi", "100Gi")
EPHEMERAL_REQUESTS = ("1Gi", "10Gi")
EXTENDED_RESOURCES = ("nvidia.com/gpu", "example.com/fpga")
EXTENDED_ALLOCATABLE = ("0", "1", "4")

HOST_PORTS = (80, 8080)
HOST_IPS = ("", "0.0.0.0", "10.0.0.1")
IMAGES = ("nginx:1.27", "redis", "registry.k8s.io/pause:3.10")
_MB = 1024 * 1024
IMAGE_SIZES = (1 * _MB, 23 * _MB, 300 * _MB, 1000 * _MB, 2000 * _MB)
"""ImageLocality's thresholds are 23 MB and 1000 MB per container."""
START_TIMES = ("2025-09-14T09:00:00Z", "2025-09-14T09:30:00Z")
DELETION_TIMESTAMP = "2025-09-14T10:00:00Z"

# --------------------------------------------------------------------- quantities and requests

_GI, _MI = 1024**3, 1024**2


def spell_quantity(resource: str, amount: int) -> str:
    """``amount`` of ``resource`` as a quantity, in ``request_vector``'s units (``cpu`` in
    millicores, the rest in units): cpu ``1500`` → ``"1500m"``, memory ``2**30`` → ``"1Gi"``."""
    if resource == "cpu":
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    for suffix, size in (("Gi", _GI), ("Mi", _MI)):
        if amount and amount % size == 0:
            return f"{amount // size}{suffix}"
    return str(amount)


@functools.lru_cache(maxsize=1024)
def _amount(resource: str, quantity: str | int | float) -> int:
    return milli_value(quantity) if resource == "cpu" else value(quantity)


def _amounts(quantities: Mapping[str, Any] | None) -> dict[str, int]:
    return {r: _amount(r, q) for r, q in (quantities or {}).items()}


def _container_requests(container: Mapping[str, Any]) -> dict[str, int]:
    resources = container.get("resources") or {}
    return _amounts({**(resources.get("limits") or {}), **(resources.get("requests") or {})})


def _add(into: dict[str, int], more: Mapping[str, int]) -> None:
    for r, amount in more.items():
        into[r] = into.get(r, 0) + amount


def request_vector(pod: Mapping[str, Any]) -> dict[str, int]:
    """The effective requests of a pod manifest (cpu in millicores, the rest in units): app
    containers and sidecars summed, each init container with the sidecars started before it, the
    larger wins; pod-level cpu/memory replace the containers'; overhead added. Container statuses
    of an in-place resize are not read (the bias only needs to be close)."""
    spec = pod["spec"]
    total: dict[str, int] = {}
    for c in spec["containers"]:
        _add(total, _container_requests(c))
    sidecars: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for c in spec.get("initContainers") or ():
        use = _container_requests(c)
        if c.get("restartPolicy") == "Always":
            _add(total, use)
            _add(sidecars, use)
            use = dict(sidecars)
        else:
            _add(use, sidecars)
        for r, amount in use.items():
            init_peak[r] = max(init_peak.get(r, 0), amount)
    for r, amount in init_peak.items():
        total[r] = max(total.get(r, 0), amount)
    pod_level = _amounts((spec.get("resources") or {}).get("requests"))
    total.update({r: a for r, a in pod_level.items() if r in ("cpu", "memory")})
    _add(total, _amounts(spec.get("overhead")))
    return total


# --------------------------------------------------------------------------------- primitives


class _Choices:
    """Choices read from one Hypothesis ``binary`` draw per object: drawing a byte costs nothing
    (a 10-node × 10-pod cluster takes a few dozen Hypothesis draws, not a thousand), and every
    byte shrinks towards 0, which reads as the first pool entry and "feature absent". Reading past
    the end reads 0."""

    __slots__ = ("_at", "_data")

    def __init__(self, data: bytes) -> None:
        self._data, self._at = data, 0

    def byte(self) -> int:
        at = self._at
        self._at += 1
        return self._data[at] if at < len(self._data) else 0

    def percent(self) -> int:
        return self.byte() * 100 // 256

    def chance(self, percent: int) -> bool:
        """True ``percent`` % of the time; False when shrunk."""
        return self.percent() >= 100 - percent

    def one(self, pool: Sequence[Any]) -> Any:
        return pool[self.byte() % len(pool)]

    def integer(self, low: int, high: int) -> int:
        return low + self.byte() % (high - low + 1)

    def subset(self, pool: Sequence[Any], low: int, high: int) -> list[Any]:
        """``low``..``high`` distinct members of ``pool``, in pool order."""
        size = self.integer(low, min(high, len(pool)))
        start = self.byte()
        return [pool[(start + i) % len(pool)] for i in range(size)]


_BYTES = st.binary(min_size=160, max_size=160)


def _labels(ch: _Choices, at_most: int = 2) -> dict[str, str]:
    keys = ch.subset(LABEL_KEYS, 0, at_most)
    return {k: ch.one(LABEL_VALUES) for k in keys}


def _selector(ch: _Choices, own: Mapping[str, str] | None = None) -> Obj:
    """A label selector from the pools: mostly matchLabels (often the pod's own labels), some
    matchExpressions, rarely ``{}`` (which selects everything)."""
    kind = ch.percent()
    if kind < 40 and own:
        key = ch.one(sorted(own))
        return {"matchLabels": {key: own[key]}}
    if kind < 75:
        return {"matchLabels": {ch.one(LABEL_KEYS): ch.one(LABEL_VALUES)}}
    if kind < 95:
        return {"matchExpressions": [_label_requirement(ch)]}
    return {}


def _label_requirement(ch: _Choices) -> Obj:
    operator = ch.one(("In", "NotIn", "Exists", "DoesNotExist"))
    req: Obj = {"key": ch.one(LABEL_KEYS), "operator": operator}
    if operator in ("In", "NotIn"):
        req["values"] = ch.subset(LABEL_VALUES, 1, 2)
    return req


def _selector_keys(selector: Mapping[str, Any]) -> set[str]:
    return {*(selector.get("matchLabels") or {}),
            *(r["key"] for r in selector.get("matchExpressions") or ())}  # fmt: skip


def _label_keys_beside(ch: _Choices, selector: Mapping[str, Any], percent: int) -> list[str]:
    """``matchLabelKeys``-style keys: never one the selector already names (validation)."""
    free = [k for k in LABEL_KEYS if k not in _selector_keys(selector)]
    return [ch.one(free)] if free and ch.chance(percent) else []


# -------------------------------------------------------------------------------------- nodes


def _node(ch: _Choices, name: str) -> Obj:
    labels = {HOSTNAME: name}
    if not ch.chance(10):
        zone = ch.one(list(ZONES))
        labels[ZONE] = zone
        if not ch.chance(10):
            labels[REGION] = ZONES[zone]
    labels.update(_labels(ch))
    if ch.chance(30):
        labels[NUMERIC_LABEL_KEY] = ch.one(NUMERIC_LABEL_VALUES)
    spec: Obj = {}
    if ch.chance(10):
        spec["unschedulable"] = True
    drawn = [_taint(ch) for _ in range(ch.integer(0, 2))]
    taints = list({(t["key"], t["effect"]): t for t in drawn}.values())
    if taints and ch.chance(55):
        spec["taints"] = taints
    node: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
    if spec:
        node["spec"] = spec
    node["status"] = _node_status(ch)
    return node


def _taint(ch: _Choices) -> Obj:
    taint: Obj = {"key": ch.one(TAINT_KEYS), "effect": ch.one(TAINT_EFFECTS)}
    if data := ch.one(TAINT_VALUES):
        taint["value"] = data
    return taint


def _node_status(ch: _Choices) -> Obj:
    allocatable = {
        "cpu": ch.one(CPU_ALLOCATABLE),
        "memory": ch.one(MEMORY_ALLOCATABLE),
        "pods": ch.one(PODS_ALLOCATABLE),
    }
    if ch.chance(5):
        del allocatable["pods"]  # a node advertising no pods fits nothing
    if ch.chance(20):
        allocatable["ephemeral-storage"] = ch.one(EPHEMERAL_ALLOCATABLE)
    if ch.chance(40):
        allocatable[ch.one(EXTENDED_RESOURCES)] = ch.one(EXTENDED_ALLOCATABLE)
    status: Obj = {"capacity" if ch.chance(10) else "allocatable": allocatable}
    if ch.chance(30):
        names = ch.subset(IMAGES, 1, 2)
        status["images"] = [
            {"names": [_tagged(i)], "sizeBytes": ch.one(IMAGE_SIZES)} for i in names
        ]
    return status


def _tagged(image: str) -> str:
    """The name ImageLocality looks up: ``:latest`` added to an untagged image."""
    return image if image.rfind(":") > image.rfind("/") else f"{image}:latest"


def _allocatable(node: Obj) -> dict[str, Any]:
    status = node["status"]
    allocatable: dict[str, Any] = status.get("allocatable") or status["capacity"]
    return allocatable


# --------------------------------------------------------------------------------------- pods


def _requests(ch: _Choices) -> dict[str, str]:
    out: dict[str, str] = {}
    if ch.chance(80):
        out["cpu"] = ch.one(CPU_REQUESTS)
    if ch.chance(70):
        out["memory"] = ch.one(MEMORY_REQUESTS)
    if ch.chance(10):
        out["ephemeral-storage"] = ch.one(EPHEMERAL_REQUESTS)
    if ch.chance(15):
        out[ch.one(EXTENDED_RESOURCES)] = ch.one(("1", "2"))
    return out


def _with_extended_limits(resources: Obj) -> Obj:
    """The API server refuses an extended resource requested without an equal limit (it cannot
    be overcommitted: ValidateResourceRequirements); add the limit the way users must."""
    requests = resources.get("requests") or {}
    extended = {r: q for r, q in requests.items() if r in EXTENDED_RESOURCES}
    if extended:
        resources.setdefault("limits", {}).update(extended)
    return resources


def _resources(ch: _Choices, requests: dict[str, str]) -> Obj:
    """Requests only, limits only (the API server copies them to requests), or both equal."""
    style = ch.percent()
    if not requests:
        return {}
    if style < 70:
        return _with_extended_limits({"requests": requests})
    if style < 85:
        return {"limits": requests}
    return {"requests": requests, "limits": dict(requests)}


def _container(ch: _Choices, name: str, *, init: bool) -> Obj:
    container: Obj = {"name": name, "image": ch.one(IMAGES)}
    if resources := _resources(ch, _requests(ch)):
        container["resources"] = resources
    if ch.chance(20):
        port: Obj = {"containerPort": 8080, "hostPort": ch.one(HOST_PORTS)}
        if protocol := ch.one(("", "TCP", "UDP")):
            port["protocol"] = protocol
        if host_ip := ch.one(HOST_IPS):
            port["hostIP"] = host_ip
        container["ports"] = [port]
    if init and ch.chance(40):
        container["restartPolicy"] = "Always"
    return container


def _unique_host_ports(spec: Obj) -> None:
    """Drop host ports that repeat protocol/hostIP/port within the pod (validation rejects it)."""
    seen: set[tuple[str, str, int]] = set()
    for container in (*spec["containers"], *spec.get("initContainers", ())):
        kept = []
        for port in container.get("ports", ()):
            key = (port.get("protocol") or "TCP", port.get("hostIP", ""), port["hostPort"])
            if key not in seen:
                seen.add(key)
                kept.append(port)
        if "ports" in container:
            container["ports"] = kept


def _toleration(ch: _Choices) -> Obj:
    """Built from the taints' own pools: same key, often another value, effect or operator."""
    if ch.chance(10):
        everything: Obj = {"operator": "Exists"}
        if effect := ch.one(("", *TAINT_EFFECTS)):
            everything["effect"] = effect
        return everything
    toleration: Obj = {"key": ch.one(TAINT_KEYS)}
    operator = ch.one(("", "Equal", "Exists"))
    if operator:
        toleration["operator"] = operator
    if operator != "Exists" and (data := ch.one(TAINT_VALUES)):
        toleration["value"] = data
    if effect := ch.one(("", *TAINT_EFFECTS)):
        toleration["effect"] = effect
    if effect == "NoExecute" and ch.chance(30):
        toleration["tolerationSeconds"] = ch.one((0, 60))
    return toleration


def _node_requirement(ch: _Choices, node_names: Sequence[str]) -> Obj:
    key = ch.one((*LABEL_KEYS, ZONE, REGION, HOSTNAME, NUMERIC_LABEL_KEY))
    operator = ch.one(("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"))
    if operator in ("Gt", "Lt"):
        key = NUMERIC_LABEL_KEY if not ch.chance(10) else key
        return {"key": key, "operator": operator, "values": [ch.one(("1", "2", "4", "8"))]}
    req: Obj = {"key": key, "operator": operator}
    if operator in ("In", "NotIn"):
        pool = {ZONE: list(ZONES), REGION: sorted(set(ZONES.values())),
                HOSTNAME: list(node_names) or ["node-0"],
                NUMERIC_LABEL_KEY: list(NUMERIC_LABEL_VALUES)}.get(key, LABEL_VALUES)  # fmt: skip
        req["values"] = ch.subset(pool, 1, 2)
    return req


def _node_term(ch: _Choices, node_names: Sequence[str]) -> Obj:
    term: Obj = {}
    count = ch.integer(0, 2) if not ch.chance(5) else 0
    if count or ch.chance(70):
        term["matchExpressions"] = [_node_requirement(ch, node_names) for _ in range(count or 1)]
    if ch.chance(15):
        name = ch.one((*node_names, "node-gone"))
        term["matchFields"] = [{"key": "metadata.name", "operator": ch.one(("In", "NotIn")),
                                "values": [name]}]  # fmt: skip
    return term


_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_WEIGHTS = (1, 50, 100)


def _node_affinity(ch: _Choices, node_names: Sequence[str]) -> Obj:
    affinity: Obj = {}
    if ch.chance(60):
        terms = [_node_term(ch, node_names) for _ in range(ch.integer(1, 2))]
        affinity[_REQUIRED] = {"nodeSelectorTerms": terms}
    if ch.chance(50):
        affinity[_PREFERRED] = [{"weight": ch.one(_WEIGHTS),
                                 "preference": _node_term(ch, node_names)}]  # fmt: skip
    return affinity


def _pod_affinity_term(ch: _Choices, labels: Mapping[str, str]) -> Obj:
    term: Obj = {"topologyKey": ch.one(TOPOLOGY_KEYS)}
    if not ch.chance(5):  # absent: the term selects no pod
        term["labelSelector"] = selector = _selector(ch, labels)
        if keys := _label_keys_beside(ch, selector, 10):
            term["matchLabelKeys"] = keys
        elif keys := _label_keys_beside(ch, selector, 15):
            term["mismatchLabelKeys"] = keys
    if ch.chance(20):
        term["namespaces"] = ch.subset(NAMESPACES, 1, 2)
    if ch.chance(15):
        team = {"matchLabels": {"team": ch.one(NAMESPACE_LABELS["team"])}}
        term["namespaceSelector"] = team if ch.chance(60) else {}
    return term


def _pod_affinity(ch: _Choices, labels: Mapping[str, str]) -> Obj:
    affinity: Obj = {}
    if ch.chance(60):
        affinity[_REQUIRED] = [_pod_affinity_term(ch, labels)]
    if ch.chance(50):
        affinity[_PREFERRED] = [{"weight": ch.one(_WEIGHTS),
                                 "podAffinityTerm": _pod_affinity_term(ch, labels)}]  # fmt: skip
    return affinity


def _affinity(ch: _Choices, labels: Mapping[str, str], node_names: Sequence[str]) -> Obj:
    affinity: Obj = {}
    for key, percent in (("nodeAffinity", 20), ("podAffinity", 15), ("podAntiAffinity", 15)):
        if ch.chance(percent):
            part = (
                _node_affinity(ch, node_names)
                if key == "nodeAffinity"
                else _pod_affinity(ch, labels)
            )
            if part:
                affinity[key] = part
    return affinity


def _spread_constraint(ch: _Choices, labels: Mapping[str, str]) -> Obj:
    when = ch.one(("DoNotSchedule", "ScheduleAnyway"))
    c: Obj = {"maxSkew": ch.one((1, 2)), "topologyKey": ch.one(TOPOLOGY_KEYS),
              "whenUnsatisfiable": when}  # fmt: skip
    if not ch.chance(5):
        c["labelSelector"] = selector = _selector(ch, labels)
        if keys := _label_keys_beside(ch, selector, 10):
            c["matchLabelKeys"] = keys
    if when == "DoNotSchedule" and ch.chance(20):
        c["minDomains"] = ch.one((1, 2, 3))
    for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        if ch.chance(20):
            c[policy] = ch.one(("Honor", "Ignore"))
    return c


def _pod(
    ch: _Choices,
    name: str,
    namespace: str,
    *,
    node_names: Sequence[str],
    node_name: str | None,
    priority_classes: Sequence[str],
    in_place_resize: bool,
) -> Obj:
    """One pod; bound to ``node_name`` when it is given, pending otherwise."""
    labels = _labels(ch)
    containers = [_container(ch, f"c{i}", init=False) for i in range(ch.integer(1, 2))]
    spec: Obj = {"containers": containers}
    if ch.chance(20):
        count = ch.integer(1, 2)
        spec["initContainers"] = [_container(ch, f"init{i}", init=True) for i in range(count)]
    _unique_host_ports(spec)
    if node_name is not None:
        spec["nodeName"] = node_name
    if ch.chance(15):
        spec["nodeSelector"] = _node_selector(ch, node_names)
    if affinity := _affinity(ch, labels, node_names):
        spec["affinity"] = affinity
    if ch.chance(35):
        spec["tolerations"] = [_toleration(ch) for _ in range(ch.integer(1, 2))]
    if ch.chance(20):
        built = [_spread_constraint(ch, labels) for _ in range(ch.integer(1, 2))]
        unique = {(c["topologyKey"], c["whenUnsatisfiable"]): c for c in built}
        spec["topologySpreadConstraints"] = list(unique.values())
    _priority(ch, spec, priority_classes)
    if ch.chance(5):
        spec["overhead"] = {"cpu": "100m", "memory": "64Mi"}
    if ch.chance(5):
        _pod_level_resources(ch, spec)
    pod: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}
    if namespace != "default" or ch.chance(50):
        pod["metadata"]["namespace"] = namespace
    if labels:
        pod["metadata"]["labels"] = labels
    if node_name is None:
        _pending_status(ch, pod, node_names)
    else:
        _bound_status(ch, pod, in_place_resize=in_place_resize)
    return pod


def _node_selector(ch: _Choices, node_names: Sequence[str]) -> dict[str, str]:
    which = ch.percent()
    if which < 30:
        return {ZONE: ch.one(list(ZONES))}
    if which < 40 and node_names:
        return {HOSTNAME: ch.one(node_names)}
    return {ch.one(LABEL_KEYS): ch.one(LABEL_VALUES)}


def _priority(ch: _Choices, spec: Obj, priority_classes: Sequence[str]) -> None:
    """A class name, a bare priority from the pool, or nothing (0, or the global default)."""
    which = ch.percent()
    if which >= 80 and priority_classes:
        spec["priorityClassName"] = ch.one(priority_classes)
        return
    if which >= 40:
        spec["priority"] = ch.one(PRIORITIES)
    if ch.chance(10):
        spec["preemptionPolicy"] = "Never"


def _pod_level_resources(ch: _Choices, spec: Obj) -> None:
    """Pod-level requests at least the containers' own (validation), sometimes just that."""
    have = request_vector({"spec": spec})
    extra = {"cpu": ch.one((0, 250)), "memory": ch.one((0, 128 * _MI))}
    spec["resources"] = {
        "requests": {r: spell_quantity(r, have.get(r, 0) + extra[r]) for r in ("cpu", "memory")}
    }


def _pending_status(ch: _Choices, pod: Obj, node_names: Sequence[str]) -> None:
    pod["status"] = status = {"phase": "Pending"}
    if node_names and ch.chance(20):
        status["nominatedNodeName"] = ch.one(node_names)
    if ch.chance(5):
        pod["spec"]["schedulingGates"] = [{"name": "example.com/gate"}]


def _bound_status(ch: _Choices, pod: Obj, *, in_place_resize: bool) -> None:
    phase = ch.one(("Running", "Running", "Running", "Pending", "Succeeded", "Failed"))
    pod["status"] = status = {"phase": phase}
    if ch.chance(50):
        status["startTime"] = ch.one(START_TIMES)
    if ch.chance(10):
        pod["metadata"]["deletionTimestamp"] = DELETION_TIMESTAMP
        if ch.chance(50):
            status["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                     "reason": "PreemptionByScheduler"}]  # fmt: skip
    if in_place_resize and ch.chance(10):
        first = pod["spec"]["containers"][0]
        actual = {"cpu": ch.one(CPU_REQUESTS)}
        allocated = {"cpu": ch.one(CPU_REQUESTS)}
        status["containerStatuses"] = [
            {"name": first["name"], "image": first["image"], "ready": True, "restartCount": 0,
             "resources": {"requests": actual}, "allocatedResources": allocated}
        ]  # fmt: skip
        if ch.chance(50):
            reason = ch.one(("Infeasible", "Deferred"))
            resize = {"type": "PodResizePending", "status": "True", "reason": reason}
            status.setdefault("conditions", []).append(resize)


# ---------------------------------------------------------------------------- the boundary bias


def _free_capacity(nodes: Sequence[Obj], bound: Sequence[Obj]) -> dict[str, dict[str, int]]:
    """Node name → resource → allocatable minus the requests of its non-terminal pods."""
    free = {n["metadata"]["name"]: _amounts(_allocatable(n)) for n in nodes}
    for pod in bound:
        if pod["status"]["phase"] in ("Succeeded", "Failed"):
            continue
        room = free[pod["spec"]["nodeName"]]
        for r, amount in request_vector(pod).items():
            room[r] = room.get(r, 0) - amount
    return free


def _at_the_boundary(ch: _Choices, pod: Obj, free: Mapping[str, Mapping[str, int]]) -> None:
    """Set one resource of the pod's first container to a node's free capacity (or one unit
    above or below it), and make it the only source of that resource in the pod."""
    node = ch.one(sorted(free))
    resources = sorted(r for r in free[node] if r != "pods")
    if not resources:
        return
    resource = ch.one(resources)
    _only_request(pod, resource, max(0, free[node][resource] + ch.one((0, 1, -1))))


def _priority_of(pod: Obj, classes: Sequence[Obj]) -> int:
    """The priority admission gives ``pod`` (explicit, its class's, the global default's, 0)."""
    spec = pod["spec"]
    if "priority" in spec:
        return int(spec["priority"])
    values = {pc["metadata"]["name"]: int(pc["value"]) for pc in classes}
    if "priorityClassName" in spec:
        return values.get(spec["priorityClassName"], 0)
    return next((int(pc["value"]) for pc in classes if pc.get("globalDefault")), 0)


def _by_preemption(
    ch: _Choices,
    pod: Obj,
    free: Mapping[str, Mapping[str, int]],
    bound: Sequence[Obj],
    classes: Sequence[Obj],
    nodes: Mapping[str, Obj],
) -> None:
    """Make the pod fit a node only once some of its pods are gone: a priority just above (or,
    for a tie, equal to) the highest there, and one resource request of the free capacity plus
    what a few lower-priority pods there request (or one unit more or less) — so DefaultPreemption
    has candidates, victims to choose and reprieves to grant."""
    running = [q for q in bound if q["status"]["phase"] not in ("Succeeded", "Failed")]
    if not running:
        return
    node = ch.one(sorted({q["spec"]["nodeName"] for q in running}))
    on_node = [q for q in running if q["spec"]["nodeName"] == node]
    spec = pod["spec"]
    if ch.chance(75):
        _welcome_on(spec, nodes[node])  # else the node may well reject it for good
    spec.pop("priorityClassName", None)
    spec.pop("preemptionPolicy", None)
    spec["priority"] = priority = max(_priority_of(q, classes) for q in on_node) + ch.one((1, 1, 0))
    lower = [q for q in on_node if _priority_of(q, classes) < priority]
    resources = sorted(r for r in free[node] if r != "pods")
    if not resources:
        return
    resource = ch.one(resources)
    victims = ch.subset(lower, 1, len(lower)) if lower else []
    freed = sum(request_vector(q).get(resource, 0) for q in victims)
    _only_request(pod, resource, max(0, free[node][resource] + freed + ch.one((0, 1, -1))))
    if victims and ch.chance(30):
        # a preemption under way: nominated here, a victim terminating (not eligible again)
        pod.setdefault("status", {})["nominatedNodeName"] = node
        q = ch.one(victims)
        q["metadata"]["deletionTimestamp"] = DELETION_TIMESTAMP
        if ch.chance(70):
            reason = ch.one(("PreemptionByScheduler", "DeletionByTaintManager"))
            condition = {"type": "DisruptionTarget", "status": "True", "reason": reason}
            q["status"]["conditions"] = [condition]


def _welcome_on(spec: Obj, node: Obj) -> None:
    """Drop what would make ``node`` reject the pod whatever is evicted (an
    UnschedulableAndUnresolvable status: preemption skips such nodes): tolerate its taints, no
    node selection, no spread constraint whose topology key the node lacks."""
    taints = list((node.get("spec") or {}).get("taints") or [])
    if (node.get("spec") or {}).get("unschedulable"):
        taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
    tolerations = spec.setdefault("tolerations", [])
    for t in taints:
        tolerations.append({"key": t["key"], "operator": "Exists", "effect": t["effect"]})
    spec.pop("nodeSelector", None)
    affinity = spec.get("affinity") or {}
    affinity.pop("nodeAffinity", None)
    labels = node["metadata"].get("labels") or {}
    kept = [c for c in spec.get("topologySpreadConstraints") or [] if c["topologyKey"] in labels]
    if kept:
        spec["topologySpreadConstraints"] = kept
    else:
        spec.pop("topologySpreadConstraints", None)


def _only_request(pod: Obj, resource: str, amount: int) -> None:
    """Request ``amount`` of ``resource`` in the first container, and nowhere else in the pod."""
    spec = pod["spec"]
    spec.pop("overhead", None)
    if resource in ("cpu", "memory"):
        spec.pop("resources", None)
    for c in (*spec["containers"], *spec.get("initContainers", ())):
        for part in (c.get("resources") or {}).values():
            part.pop(resource, None)
    first = spec["containers"][0].setdefault("resources", {})
    first.pop("limits", None)
    first.setdefault("requests", {})[resource] = spell_quantity(resource, amount)
    _with_extended_limits(first)


def _pods_allocatable_at_the_edge(
    choices: Sequence[_Choices], nodes: Sequence[Obj], bound: Sequence[Obj]
) -> None:
    """Some nodes advertise exactly as many pods as they run, or one more."""
    counts = {n["metadata"]["name"]: 0 for n in nodes}
    for pod in bound:
        if pod["status"]["phase"] not in ("Succeeded", "Failed"):
            counts[pod["spec"]["nodeName"]] += 1
    for ch, node in zip(choices, nodes, strict=True):
        if ch.chance(30):
            count = counts[node["metadata"]["name"]] + ch.one((0, 1))
            _allocatable(node)["pods"] = str(count)


# ---------------------------------------------------------------------- the other kinds


def _priority_classes(ch: _Choices) -> list[Obj]:
    names = ch.subset(list(PRIORITY_CLASSES), 0, 3)
    classes = []
    for i, name in enumerate(names):
        pc: Obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                   "metadata": {"name": name}, "value": PRIORITY_CLASSES[name]}  # fmt: skip
        if i == 0 and ch.chance(15):
            pc["globalDefault"] = True
        if ch.chance(10):
            pc["preemptionPolicy"] = "Never"
        classes.append(pc)
    return classes


def _namespace(ch: _Choices, name: str) -> Obj:
    labels = {k: ch.one(vs) for k, vs in NAMESPACE_LABELS.items() if ch.chance(50)}
    metadata: Obj = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}


def _pdb(ch: _Choices, name: str, namespace: str, pods: Sequence[Obj]) -> Obj:
    """A budget in ``namespace``, its selector often the labels of one of ``pods`` (its pods)."""
    pod_names = [p["metadata"]["name"] for p in pods]
    spec: Obj = {}
    if not ch.chance(5):
        labelled = [p["metadata"]["labels"] for p in pods if p["metadata"].get("labels")]
        spec["selector"] = _selector(ch, ch.one(labelled) if labelled else None)
    budget, amount = ch.one((("maxUnavailable", 1), ("maxUnavailable", 0),
                                 ("minAvailable", 1), ("minAvailable", "50%")))  # fmt: skip
    spec[budget] = amount
    status: Obj = {"disruptionsAllowed": ch.one((0, 1, 2))}
    if pod_names and ch.chance(15):
        status["disruptedPods"] = {ch.one(pod_names): DELETION_TIMESTAMP}
    metadata = {"name": name, "namespace": namespace}
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": metadata,
            "spec": spec, "status": status}  # fmt: skip


# ------------------------------------------------------------------------------ validation


def _check_count(name: str, given: object) -> int:
    if isinstance(given, bool) or not isinstance(given, int):
        raise InvalidArgument(f"{name}={given!r} must be an integer")
    if given < 0:
        raise InvalidArgument(f"{name}={given!r} must be at least 0")
    return given


def _check_range(low_name: str, low: object, high_name: str, high: object) -> None:
    lo, hi = _check_count(low_name, low), _check_count(high_name, high)
    if lo > hi:
        raise InvalidArgument(f"{low_name}={lo} must be at most {high_name}={hi}")


def _check_name(argument: str, name: object) -> str:
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"{argument}={name!r} must be a non-empty string")
    return name


# -------------------------------------------------------------------------------- front door


def _choices(draw: DrawFn) -> _Choices:
    return _Choices(draw(_BYTES))


@st.composite
def _one_node(draw: DrawFn, name: str) -> Obj:
    return _node(_choices(draw), name)


def nodes(*, name: str = "node-0") -> SearchStrategy[Obj]:
    """One Node manifest named ``name`` (its ``kubernetes.io/hostname`` label too): zone and
    region labels (sometimes missing), labels from ``LABEL_KEYS``, sometimes unschedulable,
    taints from the taint pools, allocatable cpu/memory/pods and sometimes ephemeral-storage and
    an extended resource, sometimes ``status.images``."""
    return _one_node(_check_name("name", name))


@st.composite
def _one_pod(draw: DrawFn, name: str, namespace: str | None, node_names: tuple[str, ...],
             bound: bool | None, priority_classes: tuple[str, ...],
             in_place_resize: bool) -> Obj:  # fmt: skip
    ch = _choices(draw)
    is_bound = bound if bound is not None else bool(node_names) and ch.chance(50)
    return _pod(
        ch,
        name,
        namespace or ch.one(NAMESPACES),
        node_names=node_names,
        node_name=ch.one(node_names) if is_bound else None,
        priority_classes=priority_classes,
        in_place_resize=in_place_resize,
    )


def pods(
    *,
    name: str = "pod-0",
    namespace: str | None = None,
    node_names: Sequence[str] = (),
    bound: bool | None = None,
    priority_classes: Sequence[str] = (),
    in_place_resize: bool = True,
) -> SearchStrategy[Obj]:
    """One Pod manifest named ``name`` (in ``namespace``, else one of ``NAMESPACES``).

    ``node_names`` are the nodes it may be bound to, nominated to or select by name; ``bound``
    forces it bound (needs ``node_names``) or pending, None lets Hypothesis choose.
    ``priority_classes`` are the PriorityClass names it may use (they must exist in the cluster
    it joins). Without cluster context there is no free-capacity bias; ``cluster_objects`` has it.
    """
    names = tuple(node_names)
    if bound and not names:
        raise InvalidArgument("bound=True needs node_names to bind the pod to")
    for n in names:
        _check_name("node_names[...]", n)
    return _one_pod(_check_name("name", name), namespace, names, bound,
                    tuple(priority_classes), in_place_resize)  # fmt: skip


@st.composite
def _cluster_objects(
    draw: DrawFn, nodes: tuple[int, int], pods: tuple[int, int], min_pending: int, extras: bool,
    in_place_resize: bool,
) -> list[Obj]:  # fmt: skip
    node_choices = [_choices(draw) for _ in range(draw(st.integers(*nodes)))]
    node_list = [_node(ch, f"node-{i}") for i, ch in enumerate(node_choices)]
    node_names = [n["metadata"]["name"] for n in node_list]
    ch = _choices(draw)
    classes = _priority_classes(ch) if extras else []
    class_names = [pc["metadata"]["name"] for pc in classes]
    pod_choices = [
        _choices(draw) for _ in range(draw(st.integers(max(pods[0], min_pending), pods[1])))
    ]
    pending_flags = [
        i < min_pending or not node_names or pch.chance(50) for i, pch in enumerate(pod_choices)
    ]
    bound: list[Obj] = []
    pending: list[Obj] = []
    free: dict[str, dict[str, int]] | None = None
    for i in sorted(range(len(pod_choices)), key=lambda i: pending_flags[i]):
        pch, is_pending = pod_choices[i], pending_flags[i]
        pod = _pod(
            pch,
            f"pod-{i}",
            pch.one(NAMESPACES),
            node_names=node_names,
            node_name=None if is_pending else pch.one(node_names),
            priority_classes=class_names,
            in_place_resize=in_place_resize,
        )
        (pending if is_pending else bound).append(pod)
        if is_pending and node_names and pch.chance(50):
            free = free or _free_capacity(node_list, bound)  # every bound pod is drawn by now
            if bound and pch.chance(50):
                by_name = {n["metadata"]["name"]: n for n in node_list}
                _by_preemption(pch, pod, free, bound, classes, by_name)
            else:
                _at_the_boundary(pch, pod, free)
    _pods_allocatable_at_the_edge(node_choices, node_list, bound)
    all_pods = [*bound, *pending]
    return [*classes, *(_others(ch, all_pods) if extras else []), *node_list, *all_pods,
            *(_pdbs(ch, all_pods) if extras else [])]  # fmt: skip


def _namespace_of(obj: Obj) -> str:
    namespace: str = obj["metadata"].get("namespace", "default")
    return namespace


def _others(ch: _Choices, all_pods: Sequence[Obj]) -> list[Obj]:
    """Namespace objects for some of the namespaces in use (the rest are implied)."""
    used = sorted({_namespace_of(p) for p in all_pods})
    return [_namespace(ch, ns) for ns in used if ch.chance(60)]


def _pdbs(ch: _Choices, all_pods: Sequence[Obj]) -> list[Obj]:
    if not all_pods or not ch.chance(40):
        return []
    out = []
    for i in range(ch.integer(1, 2)):
        namespace = ch.one(sorted({_namespace_of(p) for p in all_pods}))
        pods = [p for p in all_pods if _namespace_of(p) == namespace]
        out.append(_pdb(ch, f"pdb-{i}", namespace, pods))
    return out


def cluster_objects(
    *,
    min_nodes: int = 1,
    max_nodes: int = 5,
    min_pods: int = 1,
    max_pods: int = 8,
    min_pending: int = 1,
    extras: bool = True,
    in_place_resize: bool = True,
) -> SearchStrategy[list[Obj]]:
    """A list of manifests that ``from_objects`` loads: nodes ``node-0``…, pods ``pod-0``… (at
    least ``min_pending`` of them pending; the others bound to existing nodes or pending), and
    with ``extras`` PriorityClasses, Namespace objects and PodDisruptionBudgets.

    Pending pods are biased to request exactly a node's free capacity, or one unit more or less;
    nodes' ``pods`` allocatable to their pod count or one more. ``in_place_resize=False`` leaves
    out containers' resize statuses (``status.containerStatuses[].resources``)."""
    _check_range("min_nodes", min_nodes, "max_nodes", max_nodes)
    _check_range("min_pods", min_pods, "max_pods", max_pods)
    _check_range("min_pending", min_pending, "max_pods", max_pods)
    return _cluster_objects((min_nodes, max_nodes), (min_pods, max_pods), min_pending,
                            bool(extras), bool(in_place_resize))  # fmt: skip


# ------------------------------------------------------------------------ preemption clusters

_APPS = ("web", "db")
_VICTIM_CPU = ("250m", "500m", "1")


@st.composite
def _preemption_objects(
    draw: DrawFn, nodes: tuple[int, int], pending: tuple[int, int]
) -> list[Obj]:
    ch = _choices(draw)
    objects: list[Obj] = []
    bound: list[Obj] = []
    node_names: list[str] = []
    for i in range(ch.integer(*nodes)):
        name = f"node-{i}"
        node_names.append(name)
        zone = ch.one(sorted(ZONES))
        node: Obj = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {HOSTNAME: name, ZONE: zone}},
            "status": {"allocatable": {"cpu": ch.one(("1", "2")), "memory": "4Gi",
                                       "pods": ch.one(("3", "110"))}},
        }  # fmt: skip
        if ch.chance(20):
            node["spec"] = {
                "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
            }
        objects.append(node)
        for _ in range(ch.integer(0, 3)):
            pod = _small_pod(ch, f"pod-{len(bound)}", ch.one(_VICTIM_CPU), ch.one((0, 10, 10)))
            pod["spec"]["nodeName"] = name
            pod["status"] = {"phase": "Running", "startTime": ch.one(START_TIMES)}
            if ch.chance(10):
                pod["metadata"]["deletionTimestamp"] = DELETION_TIMESTAMP
                pod["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                                "reason": "PreemptionByScheduler"}]  # fmt: skip
            bound.append(pod)
    objects += bound
    for i in range(ch.integer(*pending)):
        pod = _small_pod(ch, f"pod-{len(bound) + i}", ch.one(("500m", "1", "2")),
                         ch.one((10, 100, 1000)))  # fmt: skip
        spec = pod["spec"]
        if ch.chance(50):
            spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        if ch.chance(15):
            spec["preemptionPolicy"] = "Never"
        if ch.chance(20):
            term = {"labelSelector": {"matchLabels": {"app": ch.one(_APPS)}},
                    "topologyKey": ch.one((HOSTNAME, ZONE))}  # fmt: skip
            kind = ch.one(("podAffinity", "podAntiAffinity"))
            spec["affinity"] = {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
        pod["status"] = {"phase": "Pending"}
        if node_names and ch.chance(25):
            pod["status"]["nominatedNodeName"] = ch.one(node_names)
        objects.append(pod)
    for i in range(ch.integer(0, 2)):
        budget: Obj = {"selector": _pdb_selector(ch)}
        budget[ch.one(("maxUnavailable", "minAvailable"))] = ch.one((0, 1))
        status: Obj = {"disruptionsAllowed": ch.one((0, 0, 1, 2))}
        if bound and ch.chance(20):
            status["disruptedPods"] = {ch.one(bound)["metadata"]["name"]: DELETION_TIMESTAMP}
        namespace = "prod" if ch.chance(20) else "default"
        objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": f"pdb-{i}", "namespace": namespace},
                        "spec": budget, "status": status})  # fmt: skip
    return objects


def _pdb_selector(ch: _Choices) -> Obj:
    """Mostly one app; now and then a selector that matches pods without labels (NotIn,
    DoesNotExist) or the empty one, which a budget — unlike everything else — reads as none."""
    which = ch.percent()
    if which < 70:
        return {"matchLabels": {"app": ch.one(_APPS)}}
    if which < 80:
        return {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["db"]}]}
    if which < 90:
        return {"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}
    return {}


def _small_pod(ch: _Choices, name: str, cpu: str, priority: int) -> Obj:
    container = {"name": "app", "image": "registry.k8s.io/pause:3.10",
                 "resources": {"requests": {"cpu": cpu}}}  # fmt: skip
    metadata: Obj = {"name": name, "namespace": "prod" if ch.chance(15) else "default"}
    if not ch.chance(10):
        metadata["labels"] = {"app": ch.one(_APPS)}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [container], "priority": priority},
    }


def preemption_cluster_objects(
    *, min_nodes: int = 1, max_nodes: int = 4, min_pending: int = 1, max_pending: int = 3
) -> SearchStrategy[list[Obj]]:
    """Clusters made for DefaultPreemption, which ``cluster_objects`` reaches in a few clusters
    of a hundred: small nodes full of low-priority pods (labelled ``app: web|db``, start times
    that tie, now and then one already terminating by preemption), more important pending pods
    (some nominated, some ``preemptionPolicy: Never``, some with required pod (anti-)affinity),
    and budgets over the bound pods with few disruptions allowed — so candidates differ in PDB
    violations, victim priorities and counts, and reprieves matter."""
    _check_range("min_nodes", min_nodes, "max_nodes", max_nodes)
    _check_range("min_pending", min_pending, "max_pending", max_pending)
    return _preemption_objects((min_nodes, max_nodes), (min_pending, max_pending))


# --------------------------------------------------------------------------- scoring clusters

_SCORE_APPS = ("web", "db")
_SCORE_TIERS = ("front", "back")
_SCORE_CPU = ("4", "8", "1m")
_SCORE_MEMORY = ("8Gi", "16Gi", "1")
_SCORE_CPU_REQUESTS = ("100m", "500m", "1", "2")
_SCORE_MEMORY_REQUESTS = ("256Mi", "1Gi", "4Gi")
_SCORE_IMAGE_SIZES = tuple(m * _MB + d for m in (23, 500, 1000) for d in (-1, 0, 1))


def _score_labels(ch: _Choices) -> dict[str, str]:
    labels = {"app": ch.one(_SCORE_APPS)}
    if ch.chance(50):
        labels["tier"] = ch.one(_SCORE_TIERS)
    return labels


def _score_selector(ch: _Choices) -> Obj:
    if ch.chance(80):
        return {"matchLabels": {"app": ch.one(_SCORE_APPS)}}
    operator = ch.one(("In", "NotIn", "Exists"))
    req: Obj = {"key": ch.one(("app", "tier")), "operator": operator}
    if operator != "Exists":
        req["values"] = [ch.one((*_SCORE_APPS, *_SCORE_TIERS))]
    return {"matchExpressions": [req]}


def _score_term(ch: _Choices) -> Obj:
    term: Obj = {"labelSelector": _score_selector(ch), "topologyKey": ch.one(TOPOLOGY_KEYS)}
    if ch.chance(15):
        term["namespaces"] = ["default", "prod"]
    return term


def _score_pod_affinity(ch: _Choices, *, required: bool) -> Obj:
    """Preferred pod affinity and anti-affinity terms, and (``required``) a required affinity
    term: the existing pods' terms InterPodAffinity scores with hardPodAffinityWeight."""
    affinity: Obj = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        part: Obj = {}
        if ch.chance(50):
            part[_PREFERRED] = [{"weight": ch.one(_WEIGHTS), "podAffinityTerm": _score_term(ch)}
                                for _ in range(ch.integer(1, 2))]  # fmt: skip
        if required and kind == "podAffinity" and ch.chance(30):
            part[_REQUIRED] = [_score_term(ch)]
        if part:
            affinity[kind] = part
    return affinity


def _score_container(ch: _Choices, name: str) -> Obj:
    container: Obj = {"name": name, "image": ch.one(IMAGES)}
    requests: Obj = {}
    if ch.chance(75):
        requests["cpu"] = ch.one(_SCORE_CPU_REQUESTS)
    if ch.chance(75):
        requests["memory"] = ch.one(_SCORE_MEMORY_REQUESTS)
    if requests:
        container["resources"] = {"requests": requests}
    return container


def _score_pod(ch: _Choices, name: str, namespace: str) -> Obj:
    count = ch.integer(1, 2)
    spec: Obj = {"containers": [_score_container(ch, f"c{i}") for i in range(count)]}
    metadata: Obj = {"name": name, "namespace": namespace, "labels": _score_labels(ch)}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def _soft_spread(ch: _Choices) -> Obj:
    selector = _score_selector(ch)
    c: Obj = {"maxSkew": ch.integer(1, 3), "topologyKey": ch.one(TOPOLOGY_KEYS),
              "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector}  # fmt: skip
    if ch.chance(15) and "tier" not in _selector_keys(selector):
        c["matchLabelKeys"] = ["tier"]
    for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        if ch.chance(30):
            c[policy] = ch.one(("Honor", "Ignore"))
    return c


def _score_node(ch: _Choices, name: str) -> Obj:
    labels = {HOSTNAME: name}
    if not ch.chance(10):
        labels[ZONE] = zone = ch.one(sorted(ZONES))
        if not ch.chance(10):
            labels[REGION] = ZONES[zone]
    if ch.chance(40):
        labels["tier"] = ch.one(_SCORE_TIERS)
    allocatable = {"cpu": ch.one(_SCORE_CPU) if ch.chance(10) else ch.one(_SCORE_CPU[:2]),
                   "memory": ch.one(_SCORE_MEMORY) if ch.chance(10)
                   else ch.one(_SCORE_MEMORY[:2]), "pods": "110"}  # fmt: skip
    status: Obj = {"allocatable": allocatable}
    if ch.chance(50):
        status["images"] = [{"names": [_tagged(image)], "sizeBytes": ch.one(_SCORE_IMAGE_SIZES)}
                            for image in ch.subset(IMAGES, 1, 3)]  # fmt: skip
    node: Obj = {"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": name, "labels": labels}, "status": status}  # fmt: skip
    taints = []
    if ch.chance(30):
        taints.append({"key": "dedicated", "value": "infra", "effect": "PreferNoSchedule"})
    if ch.chance(15):
        taints.append({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
    if taints:
        node["spec"] = {"taints": taints}
    return node


def _score_pending(ch: _Choices, name: str, node_names: Sequence[str]) -> Obj:
    pod = _score_pod(ch, name, "default" if ch.chance(90) else "prod")
    spec = pod["spec"]
    if ch.chance(60):
        built = [_soft_spread(ch) for _ in range(ch.integer(1, 2))]
        if ch.chance(20):  # a hard one beside: what a nominated pod's PreFilter update moves
            hard = {**_soft_spread(ch), "whenUnsatisfiable": "DoNotSchedule"}
            built.append({**hard, "maxSkew": ch.integer(1, 2)})
        unique = {(c["topologyKey"], c["whenUnsatisfiable"]): c for c in built}
        spec["topologySpreadConstraints"] = list(unique.values())
    affinity = _score_pod_affinity(ch, required=False) if ch.chance(50) else {}
    if ch.chance(10):
        anti = affinity.setdefault("podAntiAffinity", {})
        anti[_REQUIRED] = [{**_score_term(ch), "topologyKey": ch.one((HOSTNAME, ZONE))}]
    if ch.chance(40):
        key, values = ch.one(((ZONE, sorted(ZONES)), ("tier", _SCORE_TIERS)))
        requirement = {"key": key, "operator": "In", "values": [ch.one(values)]}
        preference = {"matchExpressions": [requirement]}
        affinity["nodeAffinity"] = {_PREFERRED: [{"weight": ch.one(_WEIGHTS),
                                                  "preference": preference}]}  # fmt: skip
        if ch.chance(30):
            zones = ch.subset(sorted(ZONES), 2, 3)
            required = {"matchExpressions": [{"key": ZONE, "operator": "In",
                                              "values": zones}]}  # fmt: skip
            affinity["nodeAffinity"][_REQUIRED] = {"nodeSelectorTerms": [required]}
    if affinity:
        spec["affinity"] = affinity
    if ch.chance(30):
        effect = ch.one(("PreferNoSchedule", "NoSchedule"))
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists", "effect": effect}]
    pod["status"] = {"phase": "Pending"}
    if node_names and ch.chance(20):
        pod["status"]["nominatedNodeName"] = ch.one(node_names)
    return pod


@st.composite
def _scoring_objects(draw: DrawFn, nodes: tuple[int, int], pending: tuple[int, int]) -> list[Obj]:
    # A fresh draw of choices per object: one would run dry after a few (_Choices reads 0 then).
    node_list = [_score_node(_choices(draw), f"node-{i}") for i in range(draw(st.integers(*nodes)))]
    names = [n["metadata"]["name"] for n in node_list]
    bound: list[Obj] = []
    for node in node_list:
        for _ in range(draw(st.integers(0, 4))):
            ch = _choices(draw)
            pod = _score_pod(ch, f"pod-{len(bound)}", "default" if ch.chance(85) else "prod")
            pod["spec"]["nodeName"] = node["metadata"]["name"]
            pod["status"] = {"phase": "Running"}
            if ch.chance(30) and (affinity := _score_pod_affinity(ch, required=True)):
                pod["spec"]["affinity"] = affinity
            if ch.chance(10):
                pod["metadata"]["deletionTimestamp"] = DELETION_TIMESTAMP
            bound.append(pod)
    waiting: list[Obj] = []
    for i in range(draw(st.integers(*pending))):
        waiting.append(_score_pending(_choices(draw), f"pod-{len(bound) + i}", names))
    return [*node_list, *bound, *waiting]


def scoring_cluster_objects(
    *, min_nodes: int = 2, max_nodes: int = 6, min_pending: int = 1, max_pending: int = 3
) -> SearchStrategy[list[Obj]]:
    """Clusters made for the Score phase, which ``cluster_objects`` reaches on about a fifth of
    its pod × node pairs: roomy nodes (now and then one with 1m of cpu or 1 byte of memory
    allocatable) that most pending pods fit, bound pods labelled ``app``/``tier`` in two
    namespaces (some terminating, some carrying preferred and required pod affinity terms of
    their own), pending pods with ScheduleAnyway spread constraints over those labels (inclusion
    policies, ``matchLabelKeys``), preferred pod (anti-)affinity and node affinity (now and then
    a hard spread constraint or anti-affinity term and a nomination, so the two-pass filter's
    PreFilter updates for nominated pods matter), node images one byte either side of
    ImageLocality's thresholds, PreferNoSchedule taints — so several nodes are feasible and
    every score plugin has something to rank."""
    _check_range("min_nodes", min_nodes, "max_nodes", max_nodes)
    _check_range("min_pending", min_pending, "max_pending", max_pending)
    return _scoring_objects((min_nodes, max_nodes), (min_pending, max_pending))


def clusters(
    *,
    min_nodes: int = 1,
    max_nodes: int = 5,
    min_pods: int = 1,
    max_pods: int = 8,
    min_pending: int = 1,
    extras: bool = True,
    in_place_resize: bool = True,
) -> SearchStrategy[Cluster]:
    """``cluster_objects(...)`` loaded by ``schedspec.cluster.from_objects``: a ``Cluster``."""
    objects = cluster_objects(min_nodes=min_nodes, max_nodes=max_nodes, min_pods=min_pods,
                              max_pods=max_pods, min_pending=min_pending, extras=extras,
                              in_place_resize=in_place_resize)  # fmt: skip
    return objects.map(from_objects)
