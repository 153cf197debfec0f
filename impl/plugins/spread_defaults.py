"""PodTopologySpread's default constraints and the selector they take from what selects the pod.

Mirrors ``pkg/scheduler/framework/plugins/helper/spread.go`` (``DefaultSelector``,
``GetPodServices``) and ``podtopologyspread/common.go`` (``buildDefaultConstraints``),
``plugin.go`` (``systemDefaultConstraints``, v1.34):

- the Services of the pod's namespace whose ``spec.selector`` matches the pod's labels (a nil
  selector selects nothing) have their selectors merged into one label set;
- the pod's controller (the ownerReference with ``controller: true``), looked up by namespace
  and name when its group/version and kind are v1 ReplicationController, apps/v1 ReplicaSet or
  apps/v1 StatefulSet: a ReplicationController's selector map is merged over the label set; a
  ReplicaSet's or StatefulSet's label selector adds its requirements (one that does not parse
  adds none);
- an empty result means no default constraint at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.api.convert import label_selector
from schedspec.impl.api.selectors import Selector, compile_label_selector
from schedspec.impl.api.types import TopologySpreadConstraint
from schedspec.impl.errors import ConfigError
from schedspec.impl.framework.interface import APIClient

__all__ = ["SYSTEM_DEFAULT_CONSTRAINTS", "default_constraints", "default_selector"]

SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(3, "kubernetes.io/hostname", "ScheduleAnyway"),
    TopologySpreadConstraint(5, "topology.kubernetes.io/zone", "ScheduleAnyway"),
)

# (group/version, kind) of the controllers DefaultSelector reads
_CONTROLLERS = {
    ("v1", "ReplicationController"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
}


def _group_version(api_version: str) -> str | None:
    """``schema.ParseGroupVersion(...).String()``; None when it does not parse."""
    if api_version.count("/") > 1:
        return None
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}" if group else version


def default_selector(pod: Pod, client: APIClient) -> Selector:
    """``DefaultSelector``: the selector every default constraint of ``pod`` gets."""
    label_set: dict[str, str] = {}
    for svc in client.list("Service"):
        if (svc.get("metadata") or {}).get("namespace", "default") != pod.namespace:
            continue
        selector = (svc.get("spec") or {}).get("selector")
        if selector is None:
            continue
        if all(pod.labels.get(k) == v for k, v in selector.items()):
            label_set.update(selector)
    ref = pod.controller
    extra: Selector | None = None
    if ref is not None and (_group_version(ref.api_version), ref.kind) in _CONTROLLERS:
        owner = client.get(ref.kind, f"{pod.namespace}/{ref.name}")
        spec: Mapping[str, Any] = (owner or {}).get("spec") or {}
        if owner is not None and ref.kind == "ReplicationController":
            label_set.update(spec.get("selector") or {})
        elif owner is not None:
            compiled = compile_label_selector(label_selector(spec.get("selector")))
            extra = None if compiled.nothing else compiled
    merged = Selector(tuple(sorted(label_set.items())), ())
    return merged.and_(extra) if extra is not None else merged


def default_constraints(
    args: Mapping[str, Any],
) -> tuple[tuple[TopologySpreadConstraint, ...], bool]:
    """PodTopologySpreadArgs → (the default constraints, whether they are the system ones),
    checked as ``ValidatePodTopologySpreadArgs`` does."""
    listed: Sequence[Any] = args.get("defaultConstraints") or ()
    if (args.get("defaultingType") or "System") == "System":
        if listed:
            raise ConfigError("Invalid value: when .defaultConstraints are not empty",
                              "defaultingType")  # fmt: skip
        return SYSTEM_DEFAULT_CONSTRAINTS, True
    out: list[TopologySpreadConstraint] = []
    for i, c in enumerate(listed):
        path = f"defaultConstraints[{i}]"
        if not isinstance(c, Mapping):
            raise ConfigError("must be a TopologySpreadConstraint", path)
        skew, key, when = (
            c.get("maxSkew") or 0,
            c.get("topologyKey") or "",
            c.get("whenUnsatisfiable"),
        )
        if not isinstance(skew, int) or skew <= 0:
            raise ConfigError(
                f"Invalid value: {skew}: not in valid range (0, inf)", f"{path}.maxSkew"
            )
        if not key:
            raise ConfigError("Required value: can not be empty", f"{path}.topologyKey")
        if not when:
            raise ConfigError("Required value: can not be empty", f"{path}.whenUnsatisfiable")
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            supported = 'supported values: "DoNotSchedule", "ScheduleAnyway"'
            raise ConfigError(
                f'Unsupported value: "{when}": {supported}', f"{path}.whenUnsatisfiable"
            )
        if c.get("labelSelector") is not None:
            raise ConfigError("Forbidden: constraint must not define a selector, as they deduced "
                              "for each pod", f"{path}.labelSelector")  # fmt: skip
        if any(o.topology_key == key and o.when_unsatisfiable == when for o in out):
            raise ConfigError(f"Duplicate value: {{{key}, {when}}}", path)
        min_domains = c.get("minDomains")
        out.append(
            TopologySpreadConstraint(
                skew,
                str(key),
                str(when),
                None,
                int(min_domains) if min_domains is not None else None,
                str(c.get("nodeAffinityPolicy") or "Honor"),
                str(c.get("nodeTaintsPolicy") or "Ignore"),
            )
        )
    return tuple(out), False
