"""Creating manifests in a test control plane as ``kubectl create`` would, and doing what the
controllers it lacks would have done (``apply``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from schedspec.checker.live_cluster import LiveCluster
from schedspec.live import READ
from schedspec.validate import BUILTIN_PRIORITY


def apply(live: LiveCluster, objects: Iterable[dict[str, Any]], user: str = "admin") -> None:
    """Creates ``objects`` of the kinds ``schedspec.live.READ`` names (not the built-in
    PriorityClasses, which the API server makes itself), after a Namespace and its ``default``
    ServiceAccount for each namespace used and the ServiceAccounts pods name; then writes each
    Pod's and PDB's ``status`` through the status subresource and, as the node lifecycle
    controller does for a Ready node, drops the ``not-ready`` taint admission put on each Node."""
    from kubernetes import client, config, utils

    api = config.new_client_from_config(str(live.kubeconfig(user)))
    core = client.CoreV1Api(api)
    served = {read.kind for read in READ}
    objects = [_creatable(o) for o in objects if o["kind"] in served]
    existing = {ns.metadata.name for ns in core.list_namespace().items}
    wanted = {o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"}
    used = {o["metadata"].get("namespace", "default") for o in objects if _namespaced(o)}
    for name in sorted(used - existing - wanted):
        core.create_namespace({"metadata": {"name": name}})
    for name in sorted(wanted - existing):
        body = next(
            o for o in objects if o["kind"] == "Namespace" and o["metadata"]["name"] == name
        )
        core.create_namespace(body)
    accounts = {(ns, "default") for ns in used | wanted} | {
        (o["metadata"].get("namespace", "default"), o["spec"]["serviceAccountName"])
        for o in objects
        if o["kind"] == "Pod" and o["spec"].get("serviceAccountName")
    }
    for namespace, name in sorted(accounts):
        core.create_namespaced_service_account(namespace, {"metadata": {"name": name}})
    for obj in objects:
        builtin = obj["kind"] == "PriorityClass" and obj["metadata"]["name"] in BUILTIN_PRIORITY
        if obj["kind"] != "Namespace" and not builtin:
            utils.create_from_dict(api, obj)
    for obj in objects:
        _write_status(api, obj)
        if obj["kind"] == "Node":  # the node lifecycle controller's part: a Ready node
            # loses the not-ready taint the TaintNodesByCondition admission plugin gave it
            taints = obj.get("spec", {}).get("taints") or []
            core.patch_node(obj["metadata"]["name"], {"spec": {"taints": taints}})


_SERVER_SET = ("resourceVersion", "uid", "selfLink", "generation", "managedFields")


def _creatable(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without the metadata the API server sets itself and refuses on create."""
    meta = {k: v for k, v in obj["metadata"].items() if k not in _SERVER_SET}
    return {**obj, "metadata": meta}


def _namespaced(obj: dict[str, Any]) -> bool:
    return obj["kind"] not in ("Node", "Namespace", "PriorityClass")


def _write_status(api: Any, obj: dict[str, Any]) -> None:
    from kubernetes import client

    status, meta = obj.get("status"), obj["metadata"]
    namespace = meta.get("namespace", "default")
    if not status:
        return
    if obj["kind"] == "Pod":
        client.CoreV1Api(api).patch_namespaced_pod_status(
            meta["name"], namespace, {"status": status}
        )
    elif obj["kind"] == "PodDisruptionBudget":
        client.PolicyV1Api(api).patch_namespaced_pod_disruption_budget_status(
            meta["name"], namespace, {"status": status}
        )
