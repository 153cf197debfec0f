"""The shape of every manifest field schedspec reads: its type, and what is inside it.

``SHAPES`` maps each kind to the tree of its fields the loader checks for type: string,
integer, boolean, mapping, list, a resource quantity (valid and ≥ 0), an RFC 3339 time, an IP
address, "integer or string" (a PDB's ``minAvailable``) and "label value" (a string; a number or a
bool gets a hint to quote it). ``conform`` reports every field of an object whose type is wrong,
and does not look inside it; fields the tree does not list are not checked, as schedspec never
reads them.

The tree is also the list of what schedspec may read: every field the readers of loaded objects
touch — the views in ``spec/kube``, impl's API conversion and PDBs, the autoscaler's inputs
(``schedspec.autoscaling*``, ``impl/autoscaler``) — must be in it, or a wrongly typed value would
reach a rule. ``validated_paths`` flattens it (``metadata.labels.*`` is any key of the map,
``spec.containers[]`` any item of the list); ``tests/test_validated_paths.py`` runs the readers on
objects that record every path read and fails on a path missing here.

Messages use the API server's words where it has them (``Invalid value: "12xyz": must be a
quantity``); a wrong type reads ``must be a list, got "Ready"``.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from schedspec.manifest_yaml import Path, describe
from schedspec.quantity import parse_quantity

__all__ = [
    "SHAPES",
    "Shape",
    "conform",
    "label_value_type_problem",
    "quantity_problem",
    "shown",
    "time_problem",
    "type_problem",
    "validated_paths",
]

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "list": (list,),
    "mapping": (dict,),
}


def type_problem(data: Any, type_name: str) -> str | None:
    """``must be a list, got "Ready"`` when ``data`` is not of ``type_name`` (string, integer,
    boolean, list, mapping), else None."""
    wrong_int = type_name == "integer" and isinstance(data, bool)
    if wrong_int or not isinstance(data, _TYPES[type_name]):
        article = "an" if type_name[0] in "aeiou" else "a"
        return f"must be {article} {type_name}, got {describe(data)}"
    if isinstance(data, int) and type_name == "integer" and not -(2**63) <= data < 2**63:  # int64
        return f"must be a 64-bit integer, got {data}"
    return None


def shown(q: Any) -> str:
    """A quantity as messages show it: a string as written, a number as JSON."""
    return q if isinstance(q, str) else json.dumps(q)


# -------------------------------------------------------------------- quantities, times, IPs


def quantity_problem(data: Any) -> str | None:
    """What is wrong with ``data`` as a resource quantity (a valid ``resource.Quantity``, ≥ 0),
    in the API server's words; None when nothing is."""
    if isinstance(data, bool) or not isinstance(data, str | int | float):
        return f"must be a quantity (a string or a number), got {describe(data)}"
    return _quantity_problem(data)


INT64_MAX = 2**63 - 1


@functools.lru_cache(maxsize=4096, typed=True)
def _quantity_problem(data: str | int | float) -> str | None:
    # cached: a cluster repeats a few quantities many times
    try:
        amount = parse_quantity(data)
    except ValueError:
        return f"Invalid value: {json.dumps(data)}: must be a quantity"
    if amount < 0:
        return f"Invalid value: {json.dumps(data)}: must be greater than or equal to 0"
    if amount > INT64_MAX:
        # Go caps a binary-suffixed quantity at 2^63-1 and leaves a larger decimal one to
        # overflow int64 in Value()/MilliValue(): kube-scheduler computes in int64, the rules
        # here in exact integers (and a float64 ratio, which 1e308 overflows)
        return f"Invalid value: {json.dumps(data)}: must be at most 2^63-1 ({INT64_MAX})"
    return None


_RFC3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def time_problem(data: Any) -> str | None:
    """What is wrong with ``data`` as a ``metav1.Time`` (RFC 3339, as Go's ``time.RFC3339``
    parses it); None when nothing is."""
    if not isinstance(data, str):
        return f"must be a string (an RFC 3339 time), got {describe(data)}"
    return _time_text_problem(data)


@functools.lru_cache(maxsize=4096)
def _time_text_problem(data: str) -> str | None:
    # cached: a cluster repeats a few timestamps many times
    if _RFC3339.fullmatch(data):
        with contextlib.suppress(ValueError):
            datetime.fromisoformat(data.replace("Z", "+00:00"))
            return None
    example = '"2006-01-02T15:04:05Z"'
    return f"Invalid value: {json.dumps(data)}: must be an RFC 3339 time such as {example}"


def ip_problem(data: Any) -> str | None:
    """What is wrong with ``data`` as an IP address ("" is absent); None when nothing is."""
    if not isinstance(data, str):
        return type_problem(data, "string")
    if not data:  # absent
        return None
    try:
        ipaddress.ip_address(data)
    except ValueError:
        return f"Invalid value: {json.dumps(data)}: must be a valid IP address, (e.g. 10.9.8.7)"
    return None


def label_value_type_problem(data: Any) -> str | None:
    """A label value's type problem: a number or a bool gets a hint to quote it."""
    if isinstance(data, str):
        return None
    scalar = isinstance(data, bool | int | float)
    hint = f"; quote it: {json.dumps(json.dumps(data))}" if scalar else ""
    return f"must be a string, got {describe(data)}{hint}"


# -------------------------------------------------------------------------------------- shapes


class Shape:
    """The type of a field and, for a mapping or a list, of what is inside: ``fields`` by name,
    or ``each`` item of a list / value of a mapping keyed by data (labels, resource names)."""

    __slots__ = ("each", "exact", "fields", "problem", "scalar", "type")

    def __init__(
        self, type: str, fields: Mapping[str, Shape] | None = None, each: Shape | None = None
    ) -> None:
        self.type, self.fields, self.each = type, fields or {}, each
        self.problem: Callable[[Any], str | None] = _PROBLEMS[type]
        self.exact = _EXACT.get(type)
        """A Python type whose values always conform (the fast path), else None."""
        self.scalar = type not in ("mapping", "list")


def _int_or_string_problem(data: Any) -> str | None:
    if isinstance(data, str) or type_problem(data, "integer") is None:
        return None
    return f"must be an integer or a string, got {describe(data)}"


_PROBLEMS: dict[str, Callable[[Any], str | None]] = {
    **{
        name: functools.partial(type_problem, type_name=name)
        for name in ("string", "integer", "boolean", "mapping", "list")
    },
    "label value": label_value_type_problem,
    "quantity": quantity_problem,
    "time": time_problem,
    "IP": ip_problem,
    "integer or string": _int_or_string_problem,
}
# No fast path for "integer": an int must also fit Go's int64.
_EXACT: dict[str, type] = {
    "string": str,
    "label value": str,
    "boolean": bool,
    "mapping": dict,
    "list": list,
}


def _shape(spec: Shape | str) -> Shape:
    return spec if isinstance(spec, Shape) else Shape(spec)


def _struct(fields: Mapping[str, Shape | str]) -> Shape:
    return Shape("mapping", {k: _shape(v) for k, v in fields.items()})


def _list_of(item: Shape | str) -> Shape:
    return Shape("list", each=_shape(item))


def _map_of(value: Shape | str) -> Shape:
    return Shape("mapping", each=_shape(value))


def conform(data: Any, shape: Shape, path: Path, report: Callable[[Path, str], None]) -> None:
    """``report(path, problem)`` for every field of ``data`` (at ``path``) that does not have
    its ``shape``; what is inside such a field is not looked at."""
    if type(data) is not shape.exact and (problem := shape.problem(data)) is not None:
        report(path, problem)
        return
    if shape.scalar:
        return
    # Loading spends much of its time here: a child whose exact type conforms and that has no
    # children is passed over without a call.
    if shape.type == "list":
        item = shape.each
        assert item is not None
        for i, child in enumerate(data):
            if type(child) is not item.exact or not item.scalar:
                conform(child, item, (*path, i), report)
        return
    fields, each = shape.fields, shape.each
    for key, child in data.items():
        sub = fields.get(key, each)
        if (
            sub is not None
            and child is not None
            and (type(child) is not sub.exact or not sub.scalar)
        ):
            conform(child, sub, (*path, key), report)


_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"

_QUANTITIES = _map_of("quantity")
_RESOURCES = _struct({"requests": _QUANTITIES, "limits": _QUANTITIES})
_STRINGS = _list_of("string")
_REQUIREMENT = _struct({"key": "string", "operator": "string", "values": _STRINGS})
_SELECTOR = _struct({"matchLabels": _map_of("string"), "matchExpressions": _list_of(_REQUIREMENT)})
_NODE_TERM = _struct(
    {"matchExpressions": _list_of(_REQUIREMENT), "matchFields": _list_of(_REQUIREMENT)}
)
_POD_TERM = _struct(
    {
        "topologyKey": "string",
        "namespaces": _STRINGS,
        "labelSelector": _SELECTOR,
        "namespaceSelector": _SELECTOR,
        "matchLabelKeys": _STRINGS,
        "mismatchLabelKeys": _STRINGS,
    }
)
_POD_AFFINITY = _struct(
    {
        _REQUIRED: _list_of(_POD_TERM),
        _PREFERRED: _list_of(_struct({"weight": "integer", "podAffinityTerm": _POD_TERM})),
    }
)
_NODE_AFFINITY = _struct(
    {
        _REQUIRED: _struct({"nodeSelectorTerms": _list_of(_NODE_TERM)}),
        _PREFERRED: _list_of(_struct({"weight": "integer", "preference": _NODE_TERM})),
    }
)
_AFFINITY = _struct(
    {
        "nodeAffinity": _NODE_AFFINITY,
        "podAffinity": _POD_AFFINITY,
        "podAntiAffinity": _POD_AFFINITY,
    }
)
_SPREAD_CONSTRAINTS = _list_of(
    _struct(
        {
            "maxSkew": "integer",
            "topologyKey": "string",
            "whenUnsatisfiable": "string",
            "labelSelector": _SELECTOR,
            "minDomains": "integer",
            "nodeAffinityPolicy": "string",
            "nodeTaintsPolicy": "string",
            "matchLabelKeys": _STRINGS,
        }
    )
)
# KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): what spec/kube/profiles.py and
# impl/framework read of it; every plugin's args in one tree (a field only one plugin has).
_PLUGIN_REFS = _list_of(_struct({"name": "string", "weight": "integer"}))
_PLUGIN_SET = _struct({"enabled": _PLUGIN_REFS, "disabled": _PLUGIN_REFS})
_RESOURCE_WEIGHTS = _list_of(_struct({"name": "string", "weight": "integer"}))
_PLUGIN_ARGS = _struct(
    {
        "scoringStrategy": _struct(
            {
                "type": "string",
                "resources": _RESOURCE_WEIGHTS,
                "requestedToCapacityRatio": _struct(
                    {"shape": _list_of(_struct({"utilization": "integer", "score": "integer"}))}
                ),
            }
        ),
        "resources": _RESOURCE_WEIGHTS,
        "ignoredResources": _STRINGS,
        "ignoredResourceGroups": _STRINGS,
        "addedAffinity": _NODE_AFFINITY,
        "hardPodAffinityWeight": "integer",
        "ignorePreferredTermsOfExistingPods": "boolean",
        "defaultingType": "string",
        "defaultConstraints": _SPREAD_CONSTRAINTS,
    }
)
_CONTAINER = _struct(
    {
        "name": "string",
        "image": "string",
        "resources": _RESOURCES,
        "restartPolicy": "string",
        "ports": _list_of(
            _struct(
                {
                    "name": "string",
                    "containerPort": "integer",
                    "hostPort": "integer",
                    "hostIP": "IP",
                    "protocol": "string",
                }
            )
        ),
    }
)
_POD_SPEC = _struct(
    {
        "containers": _list_of(_CONTAINER),
        "initContainers": _list_of(_CONTAINER),
        "nodeName": "string",
        "nodeSelector": _map_of("label value"),
        "schedulerName": "string",
        "priorityClassName": "string",
        "priority": "integer",
        "preemptionPolicy": "string",
        "overhead": _QUANTITIES,
        "resources": _RESOURCES,
        "tolerations": _list_of(
            _struct(
                {
                    "key": "string",
                    "operator": "string",
                    "value": "string",
                    "effect": "string",
                    "tolerationSeconds": "integer",
                }
            )
        ),
        "affinity": _AFFINITY,
        "topologySpreadConstraints": _SPREAD_CONSTRAINTS,
        "schedulingGates": _list_of(_struct({"name": "string"})),
        "volumes": _list_of(
            _struct(
                {
                    "name": "string",
                    "hostPath": _struct({"path": "string", "type": "string"}),
                    "emptyDir": _struct({"medium": "string", "sizeLimit": "quantity"}),
                }
            )
        ),
        "terminationGracePeriodSeconds": "integer",
        "hostNetwork": "boolean",
    }
)
_CONDITIONS = _list_of(
    _struct(
        {
            "type": "string",
            "status": "string",
            "reason": "string",
            "message": "string",
            "lastTransitionTime": "time",
            "lastProbeTime": "time",
            "lastHeartbeatTime": "time",
        }
    )
)
_CONTAINER_STATUSES = _list_of(
    _struct({"name": "string", "resources": _RESOURCES, "allocatedResources": _QUANTITIES})
)
_METADATA = _struct(
    {
        "name": "string",
        "namespace": "string",
        "uid": "string",
        "generateName": "string",
        "labels": _map_of("label value"),
        "annotations": _map_of("string"),
        "ownerReferences": _list_of(
            _struct(
                {
                    "apiVersion": "string",
                    "kind": "string",
                    "name": "string",
                    "uid": "string",
                    "controller": "boolean",
                    "blockOwnerDeletion": "boolean",
                }
            )
        ),
        "creationTimestamp": "time",
        "deletionTimestamp": "time",
        "deletionGracePeriodSeconds": "integer",
    }
)


def _object(fields: Mapping[str, Shape | str]) -> Shape:
    return _struct({"apiVersion": "string", "kind": "string", "metadata": _METADATA, **fields})


SHAPES: Mapping[str, Shape] = {
    "Pod": _object(
        {
            "spec": _POD_SPEC,
            "status": _struct(
                {
                    "phase": "string",
                    "nominatedNodeName": "string",
                    "startTime": "time",
                    "conditions": _CONDITIONS,
                    "containerStatuses": _CONTAINER_STATUSES,
                    "initContainerStatuses": _CONTAINER_STATUSES,
                }
            ),
        }
    ),
    "Node": _object(
        {
            "spec": _struct(
                {
                    "unschedulable": "boolean",
                    "taints": _list_of(
                        _struct(
                            {
                                "key": "string",
                                "value": "string",
                                "effect": "string",
                                "timeAdded": "time",
                            }
                        )
                    ),
                }
            ),
            "status": _struct(
                {
                    "capacity": _QUANTITIES,
                    "allocatable": _QUANTITIES,
                    "phase": "string",
                    "conditions": _CONDITIONS,
                    "images": _list_of(_struct({"names": _STRINGS, "sizeBytes": "integer"})),
                }
            ),
        }
    ),
    "Namespace": _object({}),
    "PodDisruptionBudget": _object(
        {
            "spec": _struct(
                {
                    "selector": _SELECTOR,
                    "minAvailable": "integer or string",
                    "maxUnavailable": "integer or string",
                }
            ),
            "status": _struct(
                {
                    "disruptionsAllowed": "integer",
                    "currentHealthy": "integer",
                    "desiredHealthy": "integer",
                    "expectedPods": "integer",
                    "disruptedPods": _map_of("time"),
                }
            ),
        }
    ),
    "PriorityClass": _object(
        {
            "value": "integer",
            "globalDefault": "boolean",
            "preemptionPolicy": "string",
            "description": "string",
        }
    ),
    "KubeSchedulerConfiguration": _struct(
        {
            "apiVersion": "string",
            "kind": "string",
            "percentageOfNodesToScore": "integer",
            "parallelism": "integer",
            "podInitialBackoffSeconds": "integer",
            "podMaxBackoffSeconds": "integer",
            "profiles": _list_of(
                _struct(
                    {
                        "schedulerName": "string",
                        "percentageOfNodesToScore": "integer",
                        "plugins": _map_of(_PLUGIN_SET),
                        "pluginConfig": _list_of(_struct({"name": "string", "args": _PLUGIN_ARGS})),
                    }
                )
            ),
        }
    ),
    "DaemonSet": _object(
        {
            "spec": _struct(
                {
                    "selector": _SELECTOR,
                    "template": _struct(
                        {
                            "metadata": _struct(
                                {"labels": _map_of("label value"), "annotations": _map_of("string")}
                            ),
                            "spec": _POD_SPEC,
                        }
                    ),
                }
            )
        }
    ),
    "ConfigMap": _object(
        {"data": _map_of("string"), "binaryData": _map_of("string"), "immutable": "boolean"}
    ),
    "MachineDeployment": _object(
        {
            "spec": _struct(
                {
                    "replicas": "integer",
                    "clusterName": "string",
                    "selector": _SELECTOR,
                    "template": _struct({}),
                }
            )
        }
    ),
}
_TEMPLATE_LABELS = _struct({"metadata": _struct({"labels": _map_of("label value")})})
_WORKLOAD = _object(
    {"spec": _struct({"replicas": "integer", "selector": _SELECTOR, "template": _TEMPLATE_LABELS})}
)
SHAPES = {
    **SHAPES,
    "MachineSet": SHAPES["MachineDeployment"],
    "Service": _object({"spec": _struct({"selector": _map_of("label value")})}),
    "ReplicationController": _object(
        {
            "spec": _struct(
                {
                    "replicas": "integer",
                    "selector": _map_of("label value"),
                    "template": _TEMPLATE_LABELS,
                }
            )
        }
    ),
    "ReplicaSet": _WORKLOAD,
    "StatefulSet": _WORKLOAD,
}


def validated_paths(kind: str) -> dict[str, str]:
    """Every field path ``SHAPES`` checks for ``kind``, with its type: ``metadata.labels.*``
    stands for any key of the map, ``spec.containers[]`` for any item of the list."""
    out: dict[str, str] = {}

    def walk(shape: Shape, prefix: str) -> None:
        if shape.type == "list" and shape.each is not None:
            out[f"{prefix}[]"] = shape.each.type
            walk(shape.each, f"{prefix}[]")
        for key, sub in shape.fields.items():
            path = f"{prefix}.{key}" if prefix else key
            out[path] = sub.type
            walk(sub, path)
        if shape.type == "mapping" and shape.each is not None:
            out[f"{prefix}.*"] = shape.each.type
            walk(shape.each, f"{prefix}.*")

    walk(SHAPES[kind], "")
    return out
