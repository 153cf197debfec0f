"""Effective pod requests: component-helpers ``resource/helpers.go`` (v0.34.0) ``PodRequests``.

For each resource ``r`` (cpu in millicores, everything else in units)::

    app(r)        = Σ containers' requests
    sidecars      = init containers with restartPolicy Always (SidecarContainers, GA 1.33)
    ContainerReq  = max(app + Σ sidecars, max_i InitUse_i)
    InitUse_i     = req_i + Σ sidecars declared before init container i
                    (for a sidecar i itself: the sidecars up to and including i)
    PodLevel(r)   = spec.resources.requests[r] if set and r ∈ {cpu, memory, hugepages-*}
                    (PodLevelResources, beta/on in 1.34) else ContainerReq(r)
    Req(r)        = PodLevel(r) + spec.overhead[r]

``non_zero_requests`` is the same with a missing cpu/memory container request counted as
100m / 200Mi (``pkg/scheduler/util`` ``DefaultMilliCPURequest``/``DefaultMemoryRequest``); with
pod-level requests set, the default applies only to a resource requested nowhere (framework
``types.go`` ``getNonMissingContainerRequests``). Scoring uses it; Filter never does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from schedspec.quantity import milli_value, value

if TYPE_CHECKING:
    from schedspec.impl.api.types import Container, Pod

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "fit_score_requests",
    "is_extended_resource",
    "is_scalar_resource",
    "non_zero_requests",
    "pod_requests",
    "resource_list",
]

DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

CPU, MEMORY = "cpu", "memory"


def resource_list(raw: Mapping[str, object] | None) -> dict[str, int]:
    """Quantities → ints: cpu as ``MilliValue``, the rest as ``Value`` (both round up)."""
    out: dict[str, int] = {}
    for name, quantity in (raw or {}).items():
        q = quantity if isinstance(quantity, str | int | float) else str(quantity)
        out[name] = milli_value(q) if name == CPU else value(q)
    return out


def is_native_resource(name: str) -> bool:
    """No domain, or a ``kubernetes.io/`` domain (``v1helper.IsNativeResource``)."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    """Domain-qualified, not native, not ``requests.``-prefixed (``IsExtendedResourceName``)."""
    return not is_native_resource(name) and not name.startswith("requests.")


def is_scalar_resource(name: str) -> bool:
    """Extended, ``hugepages-*`` or ``attachable-volumes-*`` (``IsScalarResourceName``)."""
    return (
        is_extended_resource(name)
        or name.startswith("hugepages-")
        or name.startswith("attachable-volumes-")
    )


def _is_pod_level_resource(name: str) -> bool:
    return name in (CPU, MEMORY) or name.startswith("hugepages-")


def _add(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        into[name] = into.get(name, 0) + amount


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        if amount > into.get(name, amount - 1):
            into[name] = amount


def _with_defaults(requests: Mapping[str, int], defaults: Mapping[str, int]) -> Mapping[str, int]:
    if not defaults or all(name in requests for name in defaults):
        return requests
    return {**defaults, **requests}


def aggregate_container_requests(
    containers: Iterable[Container],
    init_containers: Iterable[Container],
    defaults: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """``max(app + sidecars, max_i InitUse_i)``; ``defaults`` fill missing container requests."""
    fill = defaults or {}
    total: dict[str, int] = {}
    for c in containers:
        _add(total, _with_defaults(c.requests, fill))
    sidecars: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for c in init_containers:
        reqs = _with_defaults(c.requests, fill)
        if c.is_sidecar:
            _add(total, reqs)
            _add(sidecars, reqs)
            use = dict(sidecars)
        else:
            use = dict(reqs)
            _add(use, sidecars)
        _max(init_peak, use)
    _max(total, init_peak)
    return total


def _finish(pod: Pod, requests: dict[str, int]) -> dict[str, int]:
    if pod.pod_requests:
        for name, amount in pod.pod_requests.items():
            if _is_pod_level_resource(name):
                requests[name] = amount
    _add(requests, pod.overhead)
    return requests


def pod_requests(pod: Pod) -> dict[str, int]:
    """The effective request vector of ``pod`` (``PodRequests`` with default options)."""
    return _finish(pod, aggregate_container_requests(pod.containers, pod.init_containers))


def non_zero_requests(pod: Pod) -> dict[str, int]:
    """Requests with missing cpu/memory container requests defaulted (scoring only)."""
    defaults = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
    if pod.pod_requests and any(_is_pod_level_resource(n) for n in pod.pod_requests):
        plain = pod_requests(pod)
        defaults = {name: amount for name, amount in defaults.items() if name not in plain}
    agg = aggregate_container_requests(pod.containers, pod.init_containers, defaults)
    return _finish(pod, agg)


def fit_score_requests(pod: Pod) -> dict[str, int]:
    """The incoming pod's request vector as NodeResourcesFit's *scorer* computes it in v1.34.2:
    missing cpu/memory container requests defaulted, and pod-level resources *skipped* — the
    scorer that ``nodeResourceStrategyTypeMap`` builds (plugins/noderesources/fit.go) never
    sets ``enablePodLevelResources`` (BalancedAllocation's does), so ``PodRequests`` runs with
    ``SkipPodLevelResources``. Filtering and the node's own totals do honour pod-level requests.
    The spec's twin is ``FitScoreRequest``."""
    defaults = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
    requests = aggregate_container_requests(pod.containers, pod.init_containers, defaults)
    _add(requests, pod.overhead)
    return requests
