"""A live cluster's objects, read through the official ``kubernetes`` client, as a ``Cluster``.

``read_objects(kubeconfig, context=, namespace=)`` lists every kind of ``READ`` that the loader
accepts (``schedspec.validate.KINDS``), page by page (``limit``/``continue``), and turns each item
into a plain manifest dict (``manifest``): ``apiVersion``/``kind`` set, ``metadata.managedFields``
and the ``last-applied-configuration`` annotation dropped, and of ``status`` only the fields the
loader reads (``schedspec.shapes.SHAPES``). ``read_cluster`` loads those dicts through
``schedspec.cluster.from_docs``, the path the YAML loader takes, so validation, defaulting and
error messages are the same; an error names the object (``Pod shop/web-0``) and the field path,
with the server and context where a file would name its line. Secrets and ConfigMaps are never
read.

Without ``namespace`` every namespace is read (a pod's node is shared with other namespaces'
pods); with it, namespaced kinds come from that namespace only and the cluster says so in a
warning. Cluster-scoped kinds (Nodes, Namespaces, PriorityClasses) are always read whole.

Errors (``LiveError``, a ``SchedspecError``: exit 2 in the CLI): an unreadable or invalid
kubeconfig (its path), an unknown context, an unreachable server, credentials the server
refuses, and a list RBAC forbids — naming the permission missing
(``RBAC: list nodes at cluster scope``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

import yaml

from schedspec.cluster import Cluster, from_docs, load
from schedspec.errors import SchedspecError, UsageError
from schedspec.manifest_yaml import Doc
from schedspec.shapes import SHAPES
from schedspec.validate import KINDS

__all__ = [
    "PAGE_SIZE",
    "READ",
    "LiveError",
    "Read",
    "Source",
    "add_snapshot_parser",
    "add_source_flags",
    "cluster_from_args",
    "manifest",
    "read_cluster",
    "read_objects",
    "run_snapshot",
    "snapshot_list",
    "source_from_args",
]

PAGE_SIZE = 500
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_NEEDS_CLIENT = "--kubeconfig needs the official kubernetes client: pip install 'schedspec[live]'"


class LiveError(SchedspecError):
    """The live cluster cannot be read: bad kubeconfig, unreachable server, refused credentials,
    or a list the credentials' RBAC roles do not allow."""


@dataclass(frozen=True)
class Read:
    """One kind read from the API server, and its plural (the RBAC resource)."""

    api_version: str
    kind: str
    resource: str
    namespaced: bool

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    @property
    def api(self) -> str:
        """The client's API class: ``CoreV1Api``, ``AppsV1Api``, ``SchedulingV1Api``, …"""
        group, version = self.group.split(".")[0] or "core", self.api_version.rpartition("/")[2]
        return f"{group.capitalize()}{version.capitalize()}Api"

    def list_method(self, in_namespace: bool) -> str:
        """The client's list method: ``list_node``, ``list_namespaced_pod``,
        ``list_pod_for_all_namespaces``."""
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", self.kind).lower()
        if not self.namespaced:
            return f"list_{snake}"
        return f"list_namespaced_{snake}" if in_namespace else f"list_{snake}_for_all_namespaces"


READ: tuple[Read, ...] = (
    Read("v1", "Namespace", "namespaces", namespaced=False),
    Read("scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", namespaced=False),
    Read("v1", "Node", "nodes", namespaced=False),
    Read("v1", "Pod", "pods", namespaced=True),
    Read("policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", namespaced=True),
    Read("v1", "Service", "services", namespaced=True),
    Read("v1", "ReplicationController", "replicationcontrollers", namespaced=True),
    Read("apps/v1", "ReplicaSet", "replicasets", namespaced=True),
    Read("apps/v1", "StatefulSet", "statefulsets", namespaced=True),
    Read("apps/v1", "DaemonSet", "daemonsets", namespaced=True),
)
"""What is read, in this order (the order of the snapshot); only kinds the loader accepts."""


# --------------------------------------------------------------------------------- conversion


def manifest(item: Any, read: Read) -> dict[str, Any]:
    """``item`` (a list item as JSON, or the client's model object, e.g. ``V1Pod``) as a plain
    manifest dict: apiVersion/kind set, managedFields, the last-applied annotation and the
    status fields the loader does not read dropped."""
    if not isinstance(item, Mapping):
        from kubernetes.client import ApiClient

        item = ApiClient().sanitize_for_serialization(item)
    out: dict[str, Any] = {"apiVersion": read.api_version, "kind": read.kind}
    out.update((k, v) for k, v in item.items() if k not in ("apiVersion", "kind", "status"))
    meta = out["metadata"] = dict(out.get("metadata") or {})
    meta.pop("managedFields", None)
    if _LAST_APPLIED in (meta.get("annotations") or {}):
        meta["annotations"] = {k: v for k, v in meta["annotations"].items() if k != _LAST_APPLIED}
    if status := _read_status(read.kind, item.get("status")):
        out["status"] = status
    return out


def _read_status(kind: str, status: Any) -> Any:
    """The fields of ``status`` the loader reads (all of a status that is not a mapping, so the
    loader reports it)."""
    shape = SHAPES.get(kind)
    kept = shape.fields.get("status") if shape is not None else None
    if kept is None or not isinstance(status, Mapping):
        return status if kept is not None else None
    return {k: v for k, v in status.items() if k in kept.fields}


def snapshot_list(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """The objects as one ``kind: List`` manifest (what ``kubectl get -o yaml`` prints)."""
    return {"apiVersion": "v1", "kind": "List", "items": objects}


# ------------------------------------------------------------------------------------ reading


@dataclass(frozen=True)
class Source:
    """Where objects are read from: a kubeconfig file, a context (its current one when None), a
    namespace (every one when None)."""

    kubeconfig: str
    context: str | None = None
    namespace: str | None = None


def read_objects(source: Source, *, page_size: int = PAGE_SIZE) -> tuple[list[dict[str, Any]], str]:
    """The manifests of every kind of ``READ`` the loader accepts, and a description of where
    they came from (``https://host:port (context NAME)``)."""
    if page_size < 1:
        raise ValueError(f"page_size={page_size!r} must be at least 1")
    client, where = _api_client(source)
    with client:
        objects = [
            manifest(item, read)
            for read in READ
            if read.kind in KINDS
            for item in _list(client, read, source, where, page_size)
        ]
    return objects, where


def read_cluster(source: Source) -> Cluster:
    """The live cluster loaded as ``schedspec.cluster.load`` loads files (same validation,
    same errors, each naming the server and context, the object and the field path)."""
    objects, where = read_objects(source)
    cluster = from_docs([Doc(obj, where, {}) for obj in objects])
    if source.namespace is None:
        return cluster
    note = (
        f"only namespace {source.namespace} was read: pods of other namespaces on these nodes "
        "(their requests, host ports, (anti-)affinity terms and spread) are not counted"
    )
    return dataclasses.replace(cluster, warnings=(*cluster.warnings, note))


def _api_client(source: Source) -> tuple[Any, str]:
    try:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException
    except ImportError:
        raise UsageError(_NEEDS_CLIENT) from None
    try:
        with open(source.kubeconfig, "rb"):
            pass
    except OSError as err:
        raise LiveError(f"{source.kubeconfig}: cannot read: {err.strerror or err}") from None
    configuration = client.Configuration()
    try:
        config.load_kube_config(
            config_file=source.kubeconfig,
            context=source.context,
            client_configuration=configuration,
            persist_config=False,
        )
    except yaml.MarkedYAMLError as err:
        mark, where = err.problem_mark, source.kubeconfig
        if mark is not None:
            where = f"{where}:{mark.line + 1}:{mark.column + 1}"
        raise LiveError(f"{where}: invalid YAML: {err.problem}") from None
    except (ConfigException, OSError, yaml.YAMLError, ValueError, TypeError) as err:
        message = " ".join(str(err).split()) or type(err).__name__
        raise LiveError(f"{source.kubeconfig}: invalid kubeconfig: {message}") from None
    configuration.retries = 0  # an unreachable server is reported at once, not after back-off
    context = source.context or _current_context(source.kubeconfig)
    where = f"{configuration.host} (context {context})" if context else configuration.host
    return client.ApiClient(configuration), where


def _current_context(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except (OSError, yaml.YAMLError):
        return ""
    return str(data.get("current-context") or "") if isinstance(data, dict) else ""


def _list(client: Any, read: Read, source: Source, where: str, page_size: int) -> Iterator[Any]:
    """Every item of ``read``'s kind, one page of ``page_size`` at a time."""
    import kubernetes.client

    api = getattr(kubernetes.client, read.api)(client)
    in_namespace = source.namespace is not None and read.namespaced
    method = getattr(api, read.list_method(in_namespace))
    args = (source.namespace,) if in_namespace and source.namespace else ()
    token: str | None = None
    while True:
        options: dict[str, Any] = {"limit": page_size, "_preload_content": False}
        if token:
            options["_continue"] = token
        page = _call(method, args, options, read, source, where)
        yield from page.get("items") or []
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return


def _call(
    method: Any, args: tuple[str, ...], options: dict[str, Any], read: Read, source: Source,
    where: str,
) -> dict[str, Any]:  # fmt: skip
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    try:
        response = method(*args, _request_timeout=(10, 60), **options)  # connect, read
        page = json.loads(response.data)
    except ApiException as err:
        raise _api_error(err, read, source, where) from None
    except (HTTPError, OSError) as err:
        reason = getattr(err, "reason", None) or err
        raise LiveError(f"{where}: cannot reach the API server: {reason}") from None
    except ValueError as err:  # not JSON: not an API server
        raise LiveError(f"{where}: listing {read.resource}: not a JSON answer ({err})") from None
    if not isinstance(page, dict):
        raise LiveError(f"{where}: listing {read.resource}: not a list answer")
    return page


def _api_error(err: Any, read: Read, source: Source, where: str) -> LiveError:
    try:
        message = json.loads(err.body).get("message") or err.reason
    except (TypeError, ValueError, AttributeError):
        message = err.reason
    if err.status == 403:
        scope = (
            f"in namespace {source.namespace}"
            if source.namespace is not None and read.namespaced
            else "at cluster scope"
        )
        group = f" (API group {read.group})" if read.group else ""
        return LiveError(
            f"{where}: {message} (RBAC: list {read.resource}{group} {scope} is needed)"
        )
    if err.status == 401:
        return LiveError(f"{where}: the API server refused the credentials: {message}")
    return LiveError(f"{where}: listing {read.resource}: {err.status} {message}")


# ------------------------------------------------------------------------------------ the CLI


def add_source_flags(parser: argparse.ArgumentParser) -> None:
    """``--kubeconfig PATH [--context NAME] [--namespace NS]`` (instead of CLUSTER files)."""
    group = parser.add_argument_group("a live cluster (instead of CLUSTER files)")
    group.add_argument("--kubeconfig", metavar="PATH", help="read the API server of this file")
    group.add_argument("--context", metavar="NAME", help="the kubeconfig context (else current)")
    group.add_argument(
        "--namespace", metavar="NS", help="read namespaced objects of NS only (else all)"
    )


def cluster_from_args(args: argparse.Namespace) -> Cluster:
    """The cluster of the CLUSTER files, or of the live cluster ``--kubeconfig`` names."""
    source = source_from_args(args)
    return load(*args.cluster) if source is None else read_cluster(source)


def source_from_args(args: argparse.Namespace) -> Source | None:
    """The live source of ``args`` (None: read the CLUSTER files); usage errors raised."""
    files = list(getattr(args, "cluster", None) or [])
    if args.kubeconfig is None:
        if args.context is not None or args.namespace is not None:
            raise UsageError("--context and --namespace go with --kubeconfig")
        if not files and hasattr(args, "cluster"):
            raise UsageError("no cluster: give CLUSTER manifest files or --kubeconfig PATH")
        return None
    if files:
        raise UsageError("give CLUSTER manifest files or --kubeconfig, not both")
    return Source(args.kubeconfig, args.context, args.namespace)


def add_snapshot_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sn = sub.add_parser("snapshot", help="write a live cluster's objects as a manifest List")
    add_source_flags(sn)
    sn.add_argument("-o", "--output", metavar="FILE", help="write here (else standard output)")
    sn.add_argument("--json", action="store_true", help="JSON instead of YAML")


def run_snapshot(args: argparse.Namespace, out: TextIO) -> int:
    """``schedspec snapshot``: the objects read, validated as a cluster, written as a List."""
    source = source_from_args(args)
    if source is None:
        raise UsageError("snapshot reads a live cluster: give --kubeconfig PATH")
    objects, where = read_objects(source)
    from_docs([Doc(obj, where, {}) for obj in objects])  # what is written must load
    document = snapshot_list(objects)
    if args.json:
        text = json.dumps(document, indent=2) + "\n"
    else:
        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    if args.output is None:
        out.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as err:
        raise UsageError(f"{args.output}: cannot write: {err.strerror or err}") from None
    print(f"{len(objects)} object(s) from {where} written to {args.output}", file=sys.stderr)
    return 0
