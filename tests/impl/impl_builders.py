"""Small builders for typed pods, nodes and NodeInfos (like upstream's ``st.MakePod()``)."""

from __future__ import annotations

from typing import Any

from schedspec.impl.api import Node, Pod, node_from_dict, pod_from_dict
from schedspec.impl.framework.types import NodeInfo


def pod(
    name: str = "p",
    *,
    ns: str = "default",
    labels: dict[str, str] | None = None,
    req: dict[str, Any] | None = None,
    spec: dict[str, Any] | None = None,
    node: str = "",
    **meta: Any,
) -> Pod:
    container: dict[str, Any] = {"name": "c", "image": "img"}
    if req is not None:
        container["resources"] = {"requests": req}
    body: dict[str, Any] = {"containers": [container], **(spec or {})}
    if node:
        body["nodeName"] = node
    metadata = {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "labels": labels or {}}
    return pod_from_dict({"metadata": {**metadata, **meta}, "spec": body})


def node(
    name: str = "n",
    *,
    labels: dict[str, str] | None = None,
    alloc: dict[str, Any] | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
    images: list[dict[str, Any]] | None = None,
) -> Node:
    return node_from_dict(
        {
            "metadata": {"name": name, "labels": labels or {}},
            "spec": {"taints": taints or [], "unschedulable": unschedulable},
            "status": {
                "allocatable": alloc or {"cpu": "4", "memory": "8Gi", "pods": "110"},
                "images": images or [],
            },
        }
    )


def node_info(n: Node, *pods: Pod) -> NodeInfo:
    return NodeInfo(n, [p.assigned_to(n.name) for p in pods])
