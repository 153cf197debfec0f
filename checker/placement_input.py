"""The inputs of ``can-schedule`` and ``relate``: manifests that may hold workloads, and the pod
the question is about.

A question names a Pod, or a workload whose pod template stands for the pods it would make:
apps/v1 Deployment, StatefulSet, ReplicaSet and DaemonSet, batch/v1 Job and CronJob (the
template's path: ``spec.template``, a CronJob's ``spec.jobTemplate.spec.template``). The template
becomes a pending Pod named as the workload (``NS/NAME``) and is validated like any Pod: a
problem is reported against the workload, at ``file:line``, with the template's field path
(``Deployment shop/web: spec.template.spec.containers: …``). What the controllers add to the pods
they make and the template does not say is added only where it changes a placement answer and
can be known: the DaemonSet controller's tolerations (``pkg/controller/daemon/util/
daemonset_util.go`` AddOrUpdateDaemonPodTolerations). Labels computed from the template
(``pod-template-hash``, ``controller-revision-hash``) are not: a spread constraint or affinity
term that reads them through ``matchLabelKeys`` sees the template's labels only (the answer says
so).

Everything else in the files (Nodes, Pods, …) is the cluster; the pod asked about is taken out
of it, and a bound pod is judged as if pending, as ``explain`` does.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from schedspec.autoscaling_templates import add_daemon_tolerations
from schedspec.cluster import Cluster, object_key, read_docs
from schedspec.cluster import from_docs as build_cluster
from schedspec.errors import ManifestError, UsageError
from schedspec.manifest_yaml import Doc, expand

__all__ = ["WORKLOADS", "Subject", "load_cluster", "load_question"]

WORKLOADS = {
    "Deployment": ("spec", "template"),
    "StatefulSet": ("spec", "template"),
    "ReplicaSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
}
"""Workload kinds and the path of their pod template."""

_API = {"Job": "batch/v1", "CronJob": "batch/v1"}


@dataclass(frozen=True)
class Subject:
    """The pod a question is about: its key, where it came from, and the pod itself."""

    key: str
    kind: str  # Pod, or the workload's kind
    pod: dict[str, Any]
    notes: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.kind} {self.key}"

    @property
    def owner(self) -> tuple[str, str]:
        """The object the pod's fields are said of, and their path prefix there."""
        path = WORKLOADS.get(self.kind)
        return self.name, ".".join(path) + "." if path else ""


def _docs(paths: Sequence[str]) -> list[Doc]:
    return [d for doc in read_docs(*paths) for d in expand(doc)]


def _template_pod(doc: Doc, kind: str) -> tuple[Doc, str, str]:
    """The workload's pod template as a Pod document whose field paths map to the template's
    lines; (doc, namespace, name)."""
    data = doc.data
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    name, namespace = meta.get("name"), meta.get("namespace") or "default"
    where = doc.where()
    if not isinstance(name, str) or not name:
        raise ManifestError("a workload needs a name", where=where, obj=kind, path="metadata.name")
    template: Any = data
    path = WORKLOADS[kind]
    for step in path:
        template = template.get(step) if isinstance(template, dict) else None
    dotted = ".".join(path)
    if not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
        raise ManifestError(
            "missing pod template", where=doc.where(path), obj=f"{kind} {namespace}/{name}",
            path=f"{dotted}.spec",
        )  # fmt: skip
    tmeta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            **({"labels": tmeta["labels"]} if "labels" in tmeta else {}),
        },
        "spec": copy.deepcopy(template["spec"]),
    }
    pod["spec"].pop("nodeName", None)
    return Doc(pod, doc.source, doc.lines, doc.prefix + path), namespace, name


def _renamed(
    err: ManifestError, workloads: dict[str, tuple[str, tuple[str, ...]]]
) -> ManifestError:
    """A problem of a template Pod, said of its workload with the template's field path."""
    out = []
    for e in err.errors:
        if e.obj.startswith("Pod ") and e.obj[4:] in workloads:
            kind, path = workloads[e.obj[4:]]
            key = e.obj[4:]
            full = ".".join(path) + ("." + e.path if e.path else "")
            e = ManifestError(e.message, where=e.where, obj=f"{kind} {key}", path=full)
        out.append(e)
    return ManifestError.every(out)


def _read(paths: Sequence[str]) -> tuple[Cluster, dict[str, tuple[str, tuple[str, ...]]], set[str]]:
    """The cluster of ``paths``, each workload's template a pending Pod named as it; (cluster,
    workload key ↦ (kind, template path), the keys of the pods and workloads of ``paths[0]``)."""
    kept: list[Doc] = []
    workloads: dict[str, tuple[str, tuple[str, ...]]] = {}
    first: set[str] = set()
    for doc in _docs(paths):
        data = doc.data
        kind = data.get("kind") if isinstance(data, dict) else None
        if kind in WORKLOADS:
            api = data.get("apiVersion")
            if api != _API.get(kind, "apps/v1"):
                raise ManifestError(
                    f"apiVersion {api!r}: {kind} is {_API.get(kind, 'apps/v1')}",
                    where=doc.where(("apiVersion",)), obj=kind, path="apiVersion",
                )  # fmt: skip
            doc, ns, name = _template_pod(doc, kind)
            if kind == "DaemonSet":
                add_daemon_tolerations(doc.data["spec"])
            workloads[f"{ns}/{name}"] = (kind, WORKLOADS[kind])
        if doc.source == paths[0] and isinstance(doc.data, dict) and doc.data.get("kind") == "Pod":
            meta = doc.data.get("metadata") or {}
            if isinstance(meta, dict):
                first.add(f"{meta.get('namespace') or 'default'}/{meta.get('name')}")
        kept.append(doc)
    try:
        cluster = build_cluster(kept)
    except ManifestError as err:
        raise _renamed(err, workloads) from None
    return cluster, workloads, first


def load_cluster(paths: Sequence[str]) -> Cluster:
    """The cluster of ``paths``; workloads (whose pods are not there yet) are left out."""
    if not paths:
        return build_cluster([])
    cluster, workloads, _ = _read(paths)
    return replace(cluster, pods=tuple(p for p in cluster.pods if object_key(p) not in workloads))


def load_question(
    manifest: str,
    cluster_paths: Sequence[str] = (),
    pod: str | None = None,
    *,
    flag: str = "--pod",
) -> tuple[Cluster, Subject]:
    """The pod ``pod`` ("ns/name", a Pod or a workload of them; None: the only pending pod or
    workload of ``manifest``), pending, and the cluster of ``manifest`` and ``cluster_paths``
    without it."""
    cluster, workloads, first = _read([manifest, *cluster_paths])
    candidates = [object_key(p) for p in cluster.pods]
    if pod is None:
        pending = [k for k in candidates if k in workloads and k in first] or [
            object_key(p) for p in cluster.pending_pods() if object_key(p) in first
        ]
        if len(pending) != 1:
            shown = ", ".join(pending[:8]) or "none"
            raise UsageError(
                f"{manifest}: name the pod with {flag} NS/NAME (pending pods and workloads "
                f"there: {shown})"
            )
        pod = pending[0]
    if "/" not in pod:
        raise UsageError(f"{flag} {pod}: expected NS/NAME (e.g. default/{pod})")
    obj = cluster.find_pod(pod)
    if obj is None:
        known = ", ".join(sorted(candidates)[:10]) or "none"
        raise UsageError(f"{flag} {pod}: no Pod or workload {pod!r} in {manifest} (pods: {known})")
    kind = workloads.get(pod, ("Pod", ()))[0]
    notes: list[str] = []
    if kind == "DaemonSet":
        notes.append(
            "a DaemonSet's pods carry the tolerations its controller adds (not-ready, "
            "unreachable, disk/memory/pid-pressure, unschedulable); the node affinity it adds "
            "per node is left out: the question is whether any node can run one"
        )
    if kind in WORKLOADS and kind != "DaemonSet":
        notes.append(
            f"the {kind}'s pod template stands for its pods; labels its controller computes "
            "(pod-template-hash, controller-revision-hash, job-name) are not added"
        )
    pending = copy.deepcopy(obj)
    bound = pending["spec"].pop("nodeName", None)
    pending.setdefault("status", {})["phase"] = "Pending"
    pending["status"].pop("nominatedNodeName", None)
    if bound:
        notes.append(f"{pod} is bound to {bound}: it is judged as if pending, without itself")
    if pending["spec"].pop("schedulingGates", None):
        notes.append(
            f"{pod}'s spec.schedulingGates are left out: the question is where it may go once "
            "they are removed (a gated pod is not scheduled at all)"
        )
    rest = tuple(p for p in cluster.pods if object_key(p) != pod and object_key(p) not in workloads)
    return replace(cluster, pods=rest), Subject(pod, kind, pending, tuple(notes))
