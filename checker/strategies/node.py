"""One Node manifest: topology and pool labels, taints, allocatable and images."""

from __future__ import annotations

from typing import Any

from schedspec.checker.strategies.pools import (
    CPU_ALLOCATABLE,
    EPHEMERAL_ALLOCATABLE,
    EXTENDED_ALLOCATABLE,
    EXTENDED_RESOURCES,
    HOSTNAME,
    IMAGE_SIZES,
    IMAGES,
    MEMORY_ALLOCATABLE,
    NUMERIC_LABEL_KEY,
    NUMERIC_LABEL_VALUES,
    PODS_ALLOCATABLE,
    REGION,
    TAINT_EFFECTS,
    TAINT_KEYS,
    TAINT_VALUES,
    ZONE,
    ZONES,
    Obj,
)
from schedspec.checker.strategies.primitives import _Choices, _labels


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
