"""``KubeSchedulerConfiguration`` (kubescheduler.config.k8s.io/v1) → validated profiles.

Mirrors ``pkg/scheduler/apis/config/v1`` (defaults, ``default_plugins.go`` ``mergePluginSet``)
and ``apis/config/validation/validation.go``. Every default plugin sits in ``multiPoint``; a
profile's own sets are merged into it: a default disabled by name (or ``"*"``) is dropped, a
default re-listed in ``multiPoint.enabled`` is replaced in place (keeping its position, taking
the new weight), other custom plugins are appended. Per-extension-point sets are kept as given
and the framework expands ``multiPoint`` into them (``runtime.build_plugin_lists``).

Validation reports every problem at once (``ConfigError.errors``), each naming its field path:
``percentageOfNodesToScore`` outside 0..100, ``parallelism`` ≤ 0, duplicate ``schedulerName``,
duplicate ``pluginConfig`` entries, removed plugins (``AzureDiskLimits`` …), a plugin weight that
is negative or not an int32, different queueSort across profiles, unknown fields and extension
points (with the nearest known name: ``unknown field "plugin" (did you mean "plugins"?)``).
Unknown, duplicate and misfit plugin names are found when the framework is built
(``runtime._instantiate``), all at once too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from schedspec.impl.errors import ConfigError, did_you_mean

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

_T = TypeVar("_T")
_NO_FIELDS: Mapping[str, Any] = MappingProxyType({})
_NO_ITEMS: list[Any] = []  # a default, never changed


class _Problems:
    """Every problem found so far: ``check`` runs one check and keeps its ConfigError."""

    def __init__(self) -> None:
        self.errors: list[ConfigError] = []

    def check(self, fn: Callable[..., _T], *args: Any, default: _T) -> _T:
        try:
            return fn(*args)
        except ConfigError as err:
            self.errors.append(err)
            return default

    def add(self, message: str, path: str) -> None:
        self.errors.append(ConfigError(message, path))

    def unknown_fields(self, raw: Mapping[str, Any], known: tuple[str, ...], path: str) -> None:
        """An error for each key of ``raw`` not in ``known``, with the nearest known one."""
        for key in raw:
            if key not in known:
                where = f"{path}.{key}" if path else key
                self.add(f"unknown field {json.dumps(key)}{did_you_mean(key, known)}", where)

    def raise_any(self) -> None:
        if self.errors:
            raise ConfigError.every(self.errors)


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


def _int32(data: Any, path: str) -> int:
    value = _int(data, path)
    if not -(2**31) <= value < 2**31:
        raise ConfigError(f"invalid value {value}: must fit in an int32", path)
    return value


def _percentage(data: Any, path: str) -> int | None:
    if data is None:
        return None
    value = _int(data, path)
    if not 0 <= value <= 100:
        raise ConfigError(f"invalid value {value}: not in valid range [0-100]", path)
    return value


def _name(data: Any, path: str) -> str:
    raw = _mapping(data, path)
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError("a plugin needs a non-empty string name", f"{path}.name")
    if name in _REMOVED:
        raise ConfigError(f'"{name}" was invalid in version "{API_VERSION}"', f"{path}.name")
    return name


def _plugin_ref(item: Any, path: str) -> PluginRef:
    problems = _Problems()
    raw = problems.check(_mapping, item, path, default=_NO_FIELDS)
    problems.unknown_fields(raw, ("name", "weight"), path)
    name = problems.check(_name, item, path, default="")
    weight = problems.check(_int32, raw.get("weight", 0), f"{path}.weight", default=0)
    if weight < 0:
        problems.add(f"invalid weight {weight}: must not be negative", path)
    problems.raise_any()
    return PluginRef(name, weight, path)


def _plugin_set(data: Any, path: str) -> PluginSet:
    problems = _Problems()
    raw = problems.check(_mapping, data, path, default=_NO_FIELDS)
    problems.unknown_fields(raw, ("enabled", "disabled"), path)
    enabled: list[PluginRef] = []
    for i, item in enumerate(
        problems.check(_list, raw.get("enabled"), f"{path}.enabled", default=_NO_ITEMS)
    ):
        ref = problems.check(_plugin_ref, item, f"{path}.enabled[{i}]", default=None)
        if ref is not None:
            enabled.append(ref)
    disabled = []
    for i, item in enumerate(
        problems.check(_list, raw.get("disabled"), f"{path}.disabled", default=_NO_ITEMS)
    ):
        item_path = f"{path}.disabled[{i}]"
        problems.unknown_fields(
            problems.check(_mapping, item, item_path, default=_NO_FIELDS), ("name",), item_path
        )
        if name := problems.check(_name, item, item_path, default=""):
            disabled.append(name)
    problems.raise_any()
    return PluginSet(tuple(enabled), tuple(disabled))


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
    problems = _Problems()
    raw = problems.check(_mapping, data, path, default=_NO_FIELDS)
    points = (*EXTENSION_POINTS, "multiPoint")
    for key in raw:
        if key not in points:
            message = f"unknown extension point {json.dumps(key)}{did_you_mean(key, points)}"
            problems.add(message, f"{path}.{key}")
    sets = {
        point: problems.check(_plugin_set, raw.get(point), f"{path}.{point}", default=PluginSet())
        for point in EXTENSION_POINTS
    }
    custom = problems.check(
        _plugin_set, raw.get("multiPoint"), f"{path}.multiPoint", default=PluginSet()
    )
    sets["multiPoint"] = _merge_defaults(custom, f"{path}.multiPoint")
    problems.raise_any()
    return sets


def _plugin_args(data: Any, path: str) -> dict[str, tuple[Mapping[str, Any], str]]:
    problems = _Problems()
    out: dict[str, tuple[Mapping[str, Any], str]] = {}
    for i, item in enumerate(problems.check(_list, data, path, default=_NO_ITEMS)):
        item_path = f"{path}[{i}]"
        raw = problems.check(_mapping, item, item_path, default=_NO_FIELDS)
        problems.unknown_fields(raw, ("name", "args"), item_path)
        name = problems.check(_name, item, item_path, default="")
        args = problems.check(_mapping, raw.get("args"), f"{item_path}.args", default=None)
        if not name or args is None:
            continue
        if name in out:
            problems.add(f"Duplicate value: {json.dumps(name)}", item_path)
            continue
        out[name] = (args, f"{item_path}.args")
    problems.raise_any()
    return out


_PROFILE_FIELDS = ("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig")


def _profile(data: Any, path: str) -> ProfileConfig:
    problems = _Problems()
    raw = problems.check(_mapping, data, path, default=_NO_FIELDS)
    problems.unknown_fields(raw, _PROFILE_FIELDS, path)
    name = raw.get("schedulerName", DEFAULT_SCHEDULER_NAME)
    if not isinstance(name, str) or not name:
        problems.add("Required value", f"{path}.schedulerName")
        name = DEFAULT_SCHEDULER_NAME
    percentage_path = f"{path}.percentageOfNodesToScore"
    profile = ProfileConfig(
        scheduler_name=name,
        plugins=problems.check(_plugins, raw.get("plugins"), f"{path}.plugins", default=_NO_FIELDS),
        plugin_args=problems.check(
            _plugin_args, raw.get("pluginConfig"), f"{path}.pluginConfig", default={}
        ),
        percentage_of_nodes_to_score=problems.check(
            _percentage, raw.get("percentageOfNodesToScore"), percentage_path, default=None
        ),
        path=path,
    )
    problems.raise_any()
    return profile


def _check_profiles(profiles: list[ProfileConfig]) -> None:
    problems = _Problems()
    seen: dict[str, str] = {}
    for p in profiles:
        if p.scheduler_name in seen:
            message = (
                f"Duplicate value: {json.dumps(p.scheduler_name)} (also {seen[p.scheduler_name]})"
            )
            problems.add(message, f"{p.path}.schedulerName")
        seen[p.scheduler_name] = p.path
    first = profiles[0].plugins["queueSort"]
    for p in profiles[1:]:
        if p.plugins["queueSort"] != first:
            problems.add("must be the same for all profiles", f"{p.path}.plugins.queueSort")
    problems.raise_any()


def _positive(data: Any, path: str, message: str) -> int:
    value = _int(data, path)
    if value <= 0:
        raise ConfigError(f"invalid value {value}: {message}", path)
    return value


def parse_config(raw: Mapping[str, Any] | None) -> SchedulerConfig:
    """The validated configuration; ``None`` gives the default single profile. Every problem
    raises at once, as one ``ConfigError`` (``ConfigError.errors``)."""
    raw = raw or {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration"}
    problems = _Problems()
    if raw.get("apiVersion", API_VERSION) != API_VERSION:
        message = (
            f"apiVersion must be {json.dumps(API_VERSION)}, got {json.dumps(raw['apiVersion'])}"
        )
        problems.add(message, "apiVersion")
    problems.unknown_fields(raw, _TOP_FIELDS, "")
    if problems.check(_list, raw.get("extenders"), "extenders", default=_NO_ITEMS):
        problems.add("scheduler extenders are not supported by schedspec", "extenders")
    parallelism = problems.check(
        _positive,
        raw.get("parallelism", 16),
        "parallelism",
        "should be greater than zero",
        default=16,
    )
    initial = problems.check(
        _positive,
        raw.get("podInitialBackoffSeconds", 1),
        "podInitialBackoffSeconds",
        "must be greater than 0",
        default=1,
    )
    maximum = problems.check(
        _int, raw.get("podMaxBackoffSeconds", 10), "podMaxBackoffSeconds", default=10
    )
    if maximum < initial:
        message = (
            f"invalid value {maximum}: must be greater than or equal to PodInitialBackoffSeconds"
        )
        problems.add(message, "podMaxBackoffSeconds")
    percentage = problems.check(
        _percentage, raw.get("percentageOfNodesToScore"), "percentageOfNodesToScore", default=None
    )
    raw_profiles = problems.check(_list, raw.get("profiles"), "profiles", default=_NO_ITEMS) or [{}]
    profiles = [
        profile
        for i, p in enumerate(raw_profiles)
        if (profile := problems.check(_profile, p, f"profiles[{i}]", default=None)) is not None
    ]
    if profiles and len(profiles) == len(raw_profiles):
        problems.check(_check_profiles, profiles, default=None)
    problems.raise_any()
    return SchedulerConfig(
        profiles=tuple(profiles),
        percentage_of_nodes_to_score=percentage,
        parallelism=parallelism,
        pod_initial_backoff_seconds=initial,
        pod_max_backoff_seconds=maximum,
    )
