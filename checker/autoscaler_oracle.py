"""The real kube-scheduler as the third witness of the autoscaler's template check.

cluster-autoscaler asks its embedded scheduler framework one question per (pod, node group):
does the pod pass PreFilter and Filter on a new node of the group, in the cluster as CA simulates
it (``core/scaleup/orchestrator/orchestrator.go`` SchedulablePodGroups)? This module poses the
same question to the real kube-scheduler v1.34 through the oracle (``checker/oracle.py``): a
cluster made of the simulated world — the bound pods CA keeps (not terminal, not expendable), the
nominated pods on their nodes, the pending pods filter-out-schedulable placed — plus the group's
template node with its DaemonSet/mirror pods, and the one pending pod asked about (its nomination
cleared, so no nominated-pods pass changes the answer: CA runs none). The framework's verdict on
the template node is the real answer.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from schedspec.autoscaling import Autoscaling, NodeGroup
from schedspec.checker.oracle import Oracle, OracleRequestError, cluster_json
from schedspec.cluster import Cluster, object_key
from schedspec.impl.autoscaler.results import AutoscalerResult

__all__ = ["RealVerdict", "real_template_verdicts", "template_question"]


@dataclass(frozen=True)
class RealVerdict:
    accepted: bool
    plugin: str | None  # the first rejecting Filter plugin; "PreFilter" when PreFilter failed
    reasons: tuple[str, ...]


def template_question(
    cluster: Cluster,
    autoscaling: Autoscaling,
    result: AutoscalerResult,
    group: NodeGroup,
    pod_key: str,
) -> dict[str, Any]:
    """The oracle request body: CA's simulated world, the group's template node, the pod."""
    cutoff = autoscaling.options.expendable_pods_priority_cutoff
    up = result.scale_up
    # (pod, the node it is on in CA's world): bound and not expendable, or placed by the pod list
    # processors; "" for the pod asked about, which stays pending
    world: list[tuple[Mapping[str, Any], str]] = [
        (pod, pod["spec"]["nodeName"])
        for pod in cluster.bound_pods()
        if int(pod["spec"].get("priority", 0)) >= cutoff
    ]
    for pod in cluster.pending_pods():
        key = object_key(pod)
        if key == pod_key:
            world.append((pod, ""))
        elif key in up.placed_existing:
            world.append((pod, up.placed_existing[key]))
        elif up.dropped.get(key) == "nominated":
            world.append((pod, pod["status"]["nominatedNodeName"]))
    pods: list[dict[str, Any]] = []
    for pod, node in world:
        copied = copy.deepcopy(dict(pod))
        if node:
            copied["spec"]["nodeName"] = node
        copied.setdefault("status", {}).pop("nominatedNodeName", None)
        pods.append(copied)
    for pod in group.template_pods:  # copies of the example node's: named apart, as CA does
        copied = copy.deepcopy(dict(pod))
        copied["metadata"]["name"] += "-template"
        copied["metadata"]["uid"] = f"{copied['metadata'].get('uid', '')}-template"
        pods.append(copied)
    body = cluster_json(cluster)
    body["nodes"] = [*cluster.nodes, dict(group.template)]
    body["pods"] = pods
    return body


def _verdict(answer: Mapping[str, Any], node: str) -> RealVerdict:
    prefilter = (answer.get("prefilter_verdict") or {}).get("status") or {}
    if prefilter and prefilter.get("code") not in (None, "Success", "Skip"):
        return RealVerdict(False, "PreFilter", tuple(prefilter.get("reasons") or ()))
    for row in answer.get("nodes", []):
        if row["node"] == node:
            verdict = row["verdict"]
            if verdict["code"] == "Success":
                return RealVerdict(True, None, ())
            reasons = tuple(verdict.get("reasons") or ())
            return RealVerdict(False, verdict.get("plugin") or _narrowed_by(reasons), reasons)
    raise KeyError(f"the oracle did not judge node {node}")


def _narrowed_by(reasons: tuple[str, ...]) -> str | None:
    """The plugin whose PreFilter result left the node out: the framework's status for such a
    node names no plugin, only "node(s) didn't satisfy plugin(s) [NodeAffinity]" (and CA's
    ``Reasons()`` is empty then); the spec and impl name the Filter that rejects it."""
    for reason in reasons:
        found = re.search(r"didn't satisfy plugin\(s\) \[(\w+)\]", reason)
        if found:
            return found.group(1)
    return None


def real_template_verdicts(
    oracle: Oracle, cluster: Cluster, autoscaling: Autoscaling, result: AutoscalerResult
) -> dict[tuple[str, str], RealVerdict]:
    """(pod, group) ↦ the real scheduler's verdict, for every unschedulable pod and every group
    the skip checks left valid — but for a pod the real validation refuses (e.g. pod-level
    requests below its containers'), which the real cluster would never hold."""
    out: dict[tuple[str, str], RealVerdict] = {}
    for group in autoscaling.groups:
        verdicts = result.scale_up.groups.get(group.name)
        if verdicts is None or verdicts.skip_reason:
            continue
        for key in result.scale_up.unschedulable:
            body = template_question(cluster, autoscaling, result, group, key)
            try:
                answer = oracle.filter(body, key)
            except OracleRequestError:  # the API server would have refused the pod
                continue
            out[(key, group.name)] = _verdict(answer, group.template["metadata"]["name"])
    return out
