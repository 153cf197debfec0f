"""One Pod manifest: containers and their requests, tolerations, node and pod (anti-)affinity,
spread constraints, priority, and its pending or bound status."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from schedspec.checker.strategies.pools import (
    CPU_REQUESTS,
    DELETION_TIMESTAMP,
    EPHEMERAL_REQUESTS,
    EXTENDED_RESOURCES,
    HOST_IPS,
    HOST_PORTS,
    HOSTNAME,
    IMAGES,
    LABEL_KEYS,
    LABEL_VALUES,
    MEMORY_REQUESTS,
    NAMESPACE_LABELS,
    NAMESPACES,
    NUMERIC_LABEL_KEY,
    NUMERIC_LABEL_VALUES,
    PRIORITIES,
    REGION,
    START_TIMES,
    TAINT_EFFECTS,
    TAINT_KEYS,
    TAINT_VALUES,
    TOPOLOGY_KEYS,
    ZONE,
    ZONES,
    Obj,
)
from schedspec.checker.strategies.primitives import _Choices, _label_keys_beside, _labels, _selector
from schedspec.checker.strategies.quantities import _MI, request_vector, spell_quantity
from schedspec.checker.strategies.warned import warned_field, warned_requirement


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
        req: Obj = {"key": key, "operator": operator, "values": [ch.one(("1", "2", "4", "8"))]}
        return warned_requirement(ch, req, node=True)
    req = {"key": key, "operator": operator}
    if operator in ("In", "NotIn"):
        pool = {ZONE: list(ZONES), REGION: sorted(set(ZONES.values())),
                HOSTNAME: list(node_names) or ["node-0"],
                NUMERIC_LABEL_KEY: list(NUMERIC_LABEL_VALUES)}.get(key, LABEL_VALUES)  # fmt: skip
        req["values"] = ch.subset(pool, 1, 2)
    return warned_requirement(ch, req, node=True)


def _node_term(ch: _Choices, node_names: Sequence[str]) -> Obj:
    term: Obj = {}
    count = ch.integer(0, 2) if not ch.chance(5) else 0
    if count or ch.chance(70):
        term["matchExpressions"] = [_node_requirement(ch, node_names) for _ in range(count or 1)]
    if ch.chance(15):
        name = ch.one((*node_names, "node-gone"))
        field = {"key": "metadata.name", "operator": ch.one(("In", "NotIn")), "values": [name]}
        term["matchFields"] = [warned_field(ch, field)]
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
