"""Quantities in ``request_vector``'s units (cpu in millicores, the rest in units): how a
quantity is spelled, and the effective requests of a pod manifest."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from schedspec.cluster import milli_value, value

_GI, _MI = 1024**3, 1024**2


def spell_quantity(resource: str, amount: int) -> str:
    """``amount`` of ``resource`` as a quantity, in ``request_vector``'s units (``cpu`` in
    millicores, the rest in units): cpu ``1500`` → ``"1500m"``, memory ``2**30`` → ``"1Gi"``."""
    if resource == "cpu":
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    for suffix, size in (("Gi", _GI), ("Mi", _MI)):
        if amount and amount % size == 0:
            return f"{amount // size}{suffix}"
    return str(amount)


@functools.lru_cache(maxsize=1024)
def _amount(resource: str, quantity: str | int | float) -> int:
    return milli_value(quantity) if resource == "cpu" else value(quantity)


def _amounts(quantities: Mapping[str, Any] | None) -> dict[str, int]:
    return {r: _amount(r, q) for r, q in (quantities or {}).items()}


def _container_requests(container: Mapping[str, Any]) -> dict[str, int]:
    resources = container.get("resources") or {}
    return _amounts({**(resources.get("limits") or {}), **(resources.get("requests") or {})})


def _add(into: dict[str, int], more: Mapping[str, int]) -> None:
    for r, amount in more.items():
        into[r] = into.get(r, 0) + amount


def request_vector(pod: Mapping[str, Any]) -> dict[str, int]:
    """The effective requests of a pod manifest (cpu in millicores, the rest in units): app
    containers and sidecars summed, each init container with the sidecars started before it, the
    larger wins; pod-level cpu/memory replace the containers'; overhead added. Container statuses
    of an in-place resize are not read (the bias only needs to be close)."""
    spec = pod["spec"]
    total: dict[str, int] = {}
    for c in spec["containers"]:
        _add(total, _container_requests(c))
    sidecars: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for c in spec.get("initContainers") or ():
        use = _container_requests(c)
        if c.get("restartPolicy") == "Always":
            _add(total, use)
            _add(sidecars, use)
            use = dict(sidecars)
        else:
            _add(use, sidecars)
        for r, amount in use.items():
            init_peak[r] = max(init_peak.get(r, 0), amount)
    for r, amount in init_peak.items():
        total[r] = max(total.get(r, 0), amount)
    pod_level = _amounts((spec.get("resources") or {}).get("requests"))
    total.update({r: a for r, a in pod_level.items() if r in ("cpu", "memory")})
    _add(total, _amounts(spec.get("overhead")))
    return total
