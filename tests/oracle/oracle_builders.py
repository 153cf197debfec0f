"""Small clusters for the oracle tests, loaded through schedspec.cluster."""

from __future__ import annotations

import json
from typing import Any

from schedspec.cluster import Cluster, loads


def cluster(*objects: dict[str, Any]) -> Cluster:
    """Objects → a loaded Cluster, through schedspec.cluster (defaulting and validation)."""
    return loads(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}))


def node(
    name: str, *, cpu: str = "4", memory: str = "8Gi", pods: str = "110", **spec: Any
) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, **spec.pop("labels", {})}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
    }


def pod(name: str, *, cpu: str = "100m", node_name: str = "", **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "app", "image": "registry.k8s.io/pause:3.10"}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    container.update(spec.pop("container", {}))
    body: dict[str, Any] = {"containers": [container], **spec}
    if node_name:
        body["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body}


def verdicts(answer: dict[str, Any]) -> dict[str, str]:
    """node → the framework's verdict code."""
    return {n["node"]: n["verdict"]["code"] for n in answer["nodes"]}


def plugin_status(answer: dict[str, Any], node_name: str, plugin: str) -> dict[str, Any]:
    row = next(n for n in answer["nodes"] if n["node"] == node_name)
    return next(f for f in row["filters"] if f["plugin"] == plugin)
