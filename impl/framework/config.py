"""``KubeSchedulerConfiguration`` (kubescheduler.config.k8s.io/v1) → validated profiles.

Mirrors ``pkg/scheduler/apis/config/v1`` (defaults, ``default_plugins.go`` ``mergePluginSet``)
and ``apis/config/validation/validation.go``. Every default plugin sits in ``multiPoint``; a
profile's own sets are merged into it: a default disabled by name (or ``"*"``) is dropped, a
default re-listed in ``multiPoint.enabled`` is replaced in place (keeping its position, taking
the new weight), other custom plugins are appended. Per-extension-point sets are kept as given
and the framework expands ``multiPoint`` into them (``runtime.build_plugin_lists``).

Validation names the field path of the first problem: ``percentageOfNodesToScore`` outside
0..100, ``parallelism`` ≤ 0, duplicate ``schedulerName``, duplicate ``pluginConfig`` entries,
removed plugins (``AzureDiskLimits`` …), different queueSort across profiles, unknown fields.
Unknown, duplicate and misfit plugin names are found when the framework is built.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from schedspec.impl.errors import ConfigError

__all__ = [
    "API_VERSION",
    "DEFAULT_PLUGINS",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "PluginRef",
    "PluginSet",
    "ProfileConfig",
    "SchedulerConfig",
    "parse_config",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
EXTENSION_POINTS = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)

DEFAULT_PLUGINS: tuple[tuple[str, int], ...] = (
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
)
"""The v1.34 default multiPoint list (``default_plugins.go``) without the plugins declared out
of scope (volume plugins, DynamicResources: see ``declared``). Weights are
those of the Score plugins; 0 elsewhere."""

_REMOVED = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
_TOP_FIELDS = (
    "apiVersion",
    "kind",
    "parallelism",
    "leaderElection",
    "clientConnection",
    "healthzBindAddress",
    "metricsBindAddress",
    "enableProfiling",
    "enableContentionProfiling",
    "percentageOfNodesToScore",
    "podInitialBackoffSeconds",
    "podMaxBackoffSeconds",
    "profiles",
    "extenders",
    "delayCacheUntilActive",
)


@dataclass(frozen=True, slots=True)
class PluginRef:
    name: str
    weight: int = 0
    path: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class PluginSet:
    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProfileConfig:
    """One profile: ``plugins`` maps each extension point and ``multiPoint`` to its set."""

    scheduler_name: str
    plugins: Mapping[str, PluginSet]
    plugin_args: Mapping[str, tuple[Mapping[str, Any], str]]  # name → (args, field path)
    percentage_of_nodes_to_score: int | None
    path: str


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    profiles: tuple[ProfileConfig, ...]
    percentage_of_nodes_to_score: int | None = None
    parallelism: int = 16
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10


# ------------------------------------------------------------------------------ readers


def _mapping(data: Any, path: str) -> Mapping[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("must be a mapping", path)
    return data


def _list(data: Any, path: str) -> list[Any]:
    if data is None:
        return []
    if not isinstance(data, list):
        raise ConfigError("must be a list", path)
    return data


def _int(data: Any, path: str) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise ConfigError(f"must be an integer, got {json.dumps(data)}", path)
    return data


def _percentage(data: Any, path: str) -> int | None:
    if data is None:
        return None
    value = _int(data, path)
    if not 0 <= value <= 100:
        raise ConfigError(f"invalid value {value}: not in valid range [0-100]", path)
    return value


def _name(data: Any, path: str) -> str:
    name = _mapping(data, path).get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError("a plugin needs a non-empty string name", f"{path}.name")
    if name in _REMOVED:
        raise ConfigError(f'"{name}" was invalid in version "{API_VERSION}"', f"{path}.name")
    return name


def _plugin_set(data: Any, path: str) -> PluginSet:
    raw = _mapping(data, path)
    for key in raw:
        if key not in ("enabled", "disabled"):
            raise ConfigError(f"unknown field {json.dumps(key)}", f"{path}.{key}")
    enabled = []
    for i, item in enumerate(_list(raw.get("enabled"), f"{path}.enabled")):
        item_path = f"{path}.enabled[{i}]"
        weight = _int(_mapping(item, item_path).get("weight", 0), f"{item_path}.weight")
        if weight < 0:
            raise ConfigError(f"invalid weight {weight}: must not be negative", item_path)
        enabled.append(PluginRef(_name(item, item_path), weight, item_path))
    disabled = tuple(
        _name(item, f"{path}.disabled[{i}]")
        for i, item in enumerate(_list(raw.get("disabled"), f"{path}.disabled"))
    )
    return PluginSet(tuple(enabled), disabled)


def _merge_defaults(custom: PluginSet, path: str) -> PluginSet:
    """``mergePluginSet(defaults, custom)`` for multiPoint."""
    disabled = set(custom.disabled)
    by_name = {ref.name: ref for ref in custom.enabled}
    replaced: set[str] = set()
    merged: list[PluginRef] = []
    if "*" not in disabled:
        for name, weight in DEFAULT_PLUGINS:
            if name in disabled:
                continue
            if name in by_name:
                merged.append(by_name[name])
                replaced.add(name)
            else:
                merged.append(PluginRef(name, weight, f"{path} (default)"))
    merged.extend(ref for ref in custom.enabled if ref.name not in replaced)
    return PluginSet(tuple(merged), custom.disabled)


def _plugins(data: Any, path: str) -> dict[str, PluginSet]:
    raw = _mapping(data, path)
    for key in raw:
        if key not in (*EXTENSION_POINTS, "multiPoint"):
            raise ConfigError(f"unknown extension point {json.dumps(key)}", f"{path}.{key}")
    sets = {point: _plugin_set(raw.get(point), f"{path}.{point}") for point in EXTENSION_POINTS}
    custom = _plugin_set(raw.get("multiPoint"), f"{path}.multiPoint")
    sets["multiPoint"] = _merge_defaults(custom, f"{path}.multiPoint")
    return sets


def _plugin_args(data: Any, path: str) -> dict[str, tuple[Mapping[str, Any], str]]:
    out: dict[str, tuple[Mapping[str, Any], str]] = {}
    for i, item in enumerate(_list(data, path)):
        item_path = f"{path}[{i}]"
        name = _name(item, item_path)
        if name in out:
            raise ConfigError(f"Duplicate value: {json.dumps(name)}", item_path)
        out[name] = (_mapping(item.get("args"), f"{item_path}.args"), f"{item_path}.args")
    return out


def _profile(data: Any, path: str) -> ProfileConfig:
    raw = _mapping(data, path)
    for key in raw:
        if key not in ("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"):
            raise ConfigError(f"unknown field {json.dumps(key)}", f"{path}.{key}")
    name = raw.get("schedulerName", DEFAULT_SCHEDULER_NAME)
    if not isinstance(name, str) or not name:
        raise ConfigError("Required value", f"{path}.schedulerName")
    return ProfileConfig(
        scheduler_name=name,
        plugins=_plugins(raw.get("plugins"), f"{path}.plugins"),
        plugin_args=_plugin_args(raw.get("pluginConfig"), f"{path}.pluginConfig"),
        percentage_of_nodes_to_score=_percentage(
            raw.get("percentageOfNodesToScore"), f"{path}.percentageOfNodesToScore"
        ),
        path=path,
    )


def _check_profiles(profiles: list[ProfileConfig]) -> None:
    seen: dict[str, str] = {}
    for p in profiles:
        if p.scheduler_name in seen:
            message = (
                f"Duplicate value: {json.dumps(p.scheduler_name)} (also {seen[p.scheduler_name]})"
            )
            raise ConfigError(message, f"{p.path}.schedulerName")
        seen[p.scheduler_name] = p.path
    first = profiles[0].plugins["queueSort"]
    for p in profiles[1:]:
        if p.plugins["queueSort"] != first:
            raise ConfigError("must be the same for all profiles", f"{p.path}.plugins.queueSort")


def parse_config(raw: Mapping[str, Any] | None) -> SchedulerConfig:
    """The validated configuration; ``None`` gives the default single profile."""
    raw = raw or {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration"}
    if raw.get("apiVersion", API_VERSION) != API_VERSION:
        message = (
            f"apiVersion must be {json.dumps(API_VERSION)}, got {json.dumps(raw['apiVersion'])}"
        )
        raise ConfigError(message, "apiVersion")
    for key in raw:
        if key not in _TOP_FIELDS:
            raise ConfigError(f"unknown field {json.dumps(key)}", key)
    if _list(raw.get("extenders"), "extenders"):
        raise ConfigError("scheduler extenders are not supported by schedspec", "extenders")
    parallelism = _int(raw.get("parallelism", 16), "parallelism")
    if parallelism <= 0:
        raise ConfigError(
            f"invalid value {parallelism}: should be greater than zero", "parallelism"
        )
    initial = _int(raw.get("podInitialBackoffSeconds", 1), "podInitialBackoffSeconds")
    if initial <= 0:
        raise ConfigError(
            f"invalid value {initial}: must be greater than 0", "podInitialBackoffSeconds"
        )
    maximum = _int(raw.get("podMaxBackoffSeconds", 10), "podMaxBackoffSeconds")
    if maximum < initial:
        message = (
            f"invalid value {maximum}: must be greater than or equal to PodInitialBackoffSeconds"
        )
        raise ConfigError(message, "podMaxBackoffSeconds")
    raw_profiles = _list(raw.get("profiles"), "profiles") or [{}]
    profiles = [_profile(p, f"profiles[{i}]") for i, p in enumerate(raw_profiles)]
    _check_profiles(profiles)
    return SchedulerConfig(
        profiles=tuple(profiles),
        percentage_of_nodes_to_score=_percentage(
            raw.get("percentageOfNodesToScore"), "percentageOfNodesToScore"
        ),
        parallelism=parallelism,
        pod_initial_backoff_seconds=initial,
        pod_max_backoff_seconds=maximum,
    )
