"""A ``KubeSchedulerConfiguration`` (kubescheduler.config.k8s.io/v1) as ``scheduler.tla`` reads it.

The spec's constant ``Profiles`` maps each ``schedulerName`` to one record::

    [preFilters ↦ {…}, filters ↦ {…}, postFilters ↦ {…}, preScores ↦ {…},
     scores ↦ [plugin ↦ weight],
     fitStrategy ↦ "LeastAllocated" | "MostAllocated" | "RequestedToCapacityRatio",
     fitResources ↦ ⟨[name ↦ r, weight ↦ w], …⟩,
     fitShape ↦ ⟨[utilization ↦ u, score ↦ s], …⟩ (RequestedToCapacityRatio's, else ⟨⟩),
     ignoredResources ↦ {…}, ignoredResourceGroups ↦ {…},
     addedAffinity ↦ a nodeAffinity record as the view builds a pod's (no required key if none),
     hardPodAffinityWeight ↦ 0..100, ignorePreferredTermsOfExistingPods ↦ BOOLEAN,
     spreadDefaults ↦ ⟨TSC without labelSelector, with defaulted ↦ TRUE, …⟩ (PodTopologySpread's
       default constraints: the system ones, or defaultConstraints under defaultingType List),
     spreadSystemDefaulted ↦ BOOLEAN (defaultingType System)]

Read independently of impl's reader (impl/framework), from the upstream rules: the v1 defaults put
every default plugin in ``multiPoint`` (``pkg/scheduler/apis/config/v1/default_plugins.go``
``getDefaultPlugins``, ``mergePluginSet``: a default disabled by name or ``"*"`` is dropped, one
re-listed is replaced in place with its new weight); the framework expands ``multiPoint`` into
each extension point the plugin implements unless that point disables it or ``"*"``
(``pkg/scheduler/framework/runtime/framework.go`` ``expandMultiPointPlugins``); a Score plugin's
weight is the one in ``score.enabled`` if listed there, else its ``multiPoint`` weight, and 0
counts as 1 (``getScoreWeights``). Plugin arguments are the v1 defaults
(``pkg/scheduler/apis/config/v1/defaults.go``) overlaid with ``pluginConfig``.

Plugin order is not read: which plugin rejects first changes a status message, never a verdict
(every Filter must pass; scores are summed). Validation is impl's and the API's; this reader
refuses, with the field path, only what the spec does not model:
``NodeResourcesBalancedAllocation`` resources other than cpu and memory, a Filter plugin
whose PreFilter is disabled and a Score plugin whose PreScore is disabled (upstream: the plugin
fails reading its cycle state), and plugins outside the default set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from schedspec.errors import ManifestError
from schedspec.spec.values import Fcn, record

__all__ = [
    "DEFAULT_PLUGINS",
    "DEFAULT_SCHEDULER_NAME",
    "PLUGIN_POINTS",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "profile_literals",
    "profiles",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# podtopologyspread/plugin.go systemDefaultConstraints (defaultingType: System, the v1 default)
SYSTEM_DEFAULT_CONSTRAINTS: tuple[Mapping[str, Any], ...] = (
    {"topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 3},
    {"topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
     "maxSkew": 5},
)  # fmt: skip

# Which extension points each in-scope default plugin implements (v1.34 plugin sources).
PLUGIN_POINTS: Mapping[str, frozenset[str]] = {
    "SchedulingGates": frozenset({"preEnqueue"}),
    "PrioritySort": frozenset({"queueSort"}),
    "NodeUnschedulable": frozenset({"filter"}),
    "NodeName": frozenset({"filter"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "NodeAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodePorts": frozenset({"preFilter", "filter"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter", "preScore", "score"}),
    "PodTopologySpread": frozenset({"preFilter", "filter", "preScore", "score"}),
    "InterPodAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "DefaultPreemption": frozenset({"postFilter"}),
    "NodeResourcesBalancedAllocation": frozenset({"preScore", "score"}),
    "ImageLocality": frozenset({"score"}),
    "DefaultBinder": frozenset({"bind"}),
}

# default_plugins.go's multiPoint list (in scope), with the Score plugins' weights.
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

# The spec's record field per extension point it reads.
_POINTS = {
    "preFilter": "preFilters",
    "filter": "filters",
    "postFilter": "postFilters",
    "preScore": "preScores",
}
# A Filter (Score) plugin reads the state its PreFilter (PreScore) wrote.
_NEEDS = {"filter": "preFilter", "score": "preScore"}
_DEFAULT_FIT = (("cpu", 1), ("memory", 1))

_Obj = Mapping[str, Any]


def _err(message: str, path: str) -> ManifestError:
    return ManifestError(message, obj="KubeSchedulerConfiguration", path=path)


def _refs(raw: Any) -> list[tuple[str, int]]:
    return [(str(r.get("name", "")), int(r.get("weight") or 0)) for r in raw or ()]


def _names(raw: Any) -> set[str]:
    return {str(r.get("name", "")) for r in raw or ()}


def _multi_point(plugins: _Obj) -> list[tuple[str, int]]:
    """``mergePluginSet(defaults, custom)`` for multiPoint."""
    custom = plugins.get("multiPoint") or {}
    disabled = _names(custom.get("disabled"))
    enabled = _refs(custom.get("enabled"))
    by_name = dict(enabled)
    merged: list[tuple[str, int]] = []
    if "*" not in disabled:
        merged = [
            (name, by_name.get(name, weight))
            for name, weight in DEFAULT_PLUGINS
            if name not in disabled
        ]
    seen = {name for name, _ in merged}
    return merged + [(n, w) for n, w in enabled if n not in seen]


def _point(plugins: _Obj, multi: list[tuple[str, int]], point: str) -> set[str]:
    """The plugins at ``point`` after ``expandMultiPointPlugins``."""
    own = plugins.get(point) or {}
    names = {n for n, _ in _refs(own.get("enabled"))}
    disabled = _names(own.get("disabled"))
    if "*" in disabled:
        return names
    return names | {n for n, _ in multi if point in PLUGIN_POINTS[n] and n not in disabled}


def _weights(plugins: _Obj, multi: list[tuple[str, int]], scores: set[str]) -> Fcn:
    weights: dict[str, int] = {}
    for name, weight in _refs((plugins.get("score") or {}).get("enabled")) + multi:
        if name in scores and name not in weights:
            weights[name] = weight or 1
    return Fcn(weights)


def _args(raw: _Obj, path: str) -> dict[str, tuple[_Obj, str]]:
    out = {}
    for i, item in enumerate(raw.get("pluginConfig") or ()):
        out[str(item.get("name", ""))] = (item.get("args") or {}, f"{path}.pluginConfig[{i}].args")
    return out


def _profile(raw: _Obj, path: str, node_affinity: Callable[[_Obj], Fcn]) -> Fcn:
    plugins = raw.get("plugins") or {}
    multi = _multi_point(plugins)
    for name, _ in multi:
        if name not in PLUGIN_POINTS:
            raise _err(f'plugin "{name}" is not one the spec models', f"{path}.plugins.multiPoint")
    for point in (*_POINTS, "score"):
        for name, _ in _refs((plugins.get(point) or {}).get("enabled")):
            if name not in PLUGIN_POINTS:
                raise _err(f'plugin "{name}" is not one the spec models', f"{path}.plugins.{point}")
    at = {point: _point(plugins, multi, point) for point in (*_POINTS, "score")}
    for point, before in _NEEDS.items():
        for name in sorted(at[point] - at[before]):
            if before in PLUGIN_POINTS[name]:
                raise _err(
                    f"{name} is enabled at {point} but disabled at {before}: upstream its "
                    f"{point} fails reading the state {before} writes; the spec does not model it",
                    f"{path}.plugins.{before}",
                )
    args = _args(raw, path)
    fit, fit_path = args.get("NodeResourcesFit", ({}, ""))
    strategy = fit.get("scoringStrategy") or {}
    kind = str(strategy.get("type") or "LeastAllocated")
    if kind not in ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"):
        raise _err(f"{kind} is not modelled by the spec", f"{fit_path}.scoringStrategy.type")
    shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape") or ()
    if kind == "RequestedToCapacityRatio" and not shape:
        # v1.34.2 fit.go reads the shape without a nil check; validation asks for a point
        raise _err("Required value: at least one point must be specified",
                   f"{fit_path}.scoringStrategy.requestedToCapacityRatio.shape")  # fmt: skip
    # defaults.go: no resources (or an empty list) is cpu and memory; a weight of 0 is 1
    resources = _refs(strategy.get("resources")) or list(_DEFAULT_FIT)
    balanced, balanced_path = args.get("NodeResourcesBalancedAllocation", ({}, ""))
    named = [(n, w or 1) for n, w in _refs(balanced.get("resources"))] or list(_DEFAULT_FIT)
    if sorted(named) != sorted(_DEFAULT_FIT):
        raise _err("resources other than cpu and memory (weight 1) are not modelled by the spec",
                   f"{balanced_path}.resources")  # fmt: skip
    spread, _ = args.get("PodTopologySpread", ({}, ""))
    system = (spread.get("defaultingType") or "System") == "System"
    defaults = SYSTEM_DEFAULT_CONSTRAINTS if system else spread.get("defaultConstraints") or ()
    node_aff, _ = args.get("NodeAffinity", ({}, ""))
    ipa, _ = args.get("InterPodAffinity", ({}, ""))
    hard = ipa.get("hardPodAffinityWeight")
    sets = {field: frozenset(at[point]) for point, field in _POINTS.items()}
    return record(
        **sets,
        scores=_weights(plugins, multi, at["score"]),
        fitStrategy=kind,
        fitResources=tuple(record(name=n, weight=w or 1) for n, w in resources),
        fitShape=tuple(
            record(utilization=int(pt.get("utilization") or 0), score=int(pt.get("score") or 0))
            for pt in shape
        ),
        ignoredResources=frozenset(str(r) for r in fit.get("ignoredResources") or ()),
        ignoredResourceGroups=frozenset(str(g) for g in fit.get("ignoredResourceGroups") or ()),
        addedAffinity=node_affinity(node_aff.get("addedAffinity") or {}),
        hardPodAffinityWeight=1 if hard is None else int(hard),
        ignorePreferredTermsOfExistingPods=bool(ipa.get("ignorePreferredTermsOfExistingPods")),
        spreadDefaults=tuple(_default_constraint(c) for c in defaults),
        spreadSystemDefaulted=system,
    )


def _default_constraint(c: _Obj) -> Fcn:
    """A default constraint as the view shows a pod's (TSC), with no labelSelector (each pod's
    is deduced) and ``defaulted`` instead; matchLabelKeys are moot (the deduced selector
    replaces the merged one)."""
    return record(
        maxSkew=int(c.get("maxSkew") or 1),
        topologyKey=str(c.get("topologyKey") or ""),
        whenUnsatisfiable=str(c.get("whenUnsatisfiable") or "DoNotSchedule"),
        minDomains=int(c.get("minDomains") or 1),
        nodeAffinityPolicy=str(c.get("nodeAffinityPolicy") or "Honor"),
        nodeTaintsPolicy=str(c.get("nodeTaintsPolicy") or "Ignore"),
        matchLabelKeys=frozenset(),
        defaulted=True,
    )


def profiles(config: _Obj | None, node_affinity: Callable[[_Obj], Fcn]) -> Fcn:
    """``Profiles``: schedulerName ↦ profile record; the default profile when ``config`` is None.
    ``node_affinity`` builds a nodeAffinity record as the view builds a pod's."""
    raw_profiles = list((config or {}).get("profiles") or ()) or [{}]
    out = {}
    for i, raw in enumerate(raw_profiles):
        name = str(raw.get("schedulerName") or DEFAULT_SCHEDULER_NAME)
        out[name] = _profile(raw, f"profiles[{i}]", node_affinity)
    return Fcn(out)


def profile_literals(config: _Obj | None) -> list[tuple[str, str]]:
    """The label keys and values a configuration's ``addedAffinity`` and default spread
    constraints name, as a query's literals
    ((text, role), :meth:`Vocabulary.of`): a bounded cluster must be able to carry them."""
    out: list[tuple[str, str]] = []
    for raw in (config or {}).get("profiles") or ():
        for item in raw.get("pluginConfig") or ():
            added = (item.get("args") or {}).get("addedAffinity") or {}
            required = added.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
            preferred = added.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
            terms = [*(required.get("nodeSelectorTerms") or ()),
                     *((w.get("preference") or {}) for w in preferred)]  # fmt: skip
            for term in terms:
                for req in term.get("matchExpressions") or ():
                    out.append((str(req.get("key", "")), "key"))
                    out.extend((str(v), "value") for v in req.get("values") or ())
            for c in (item.get("args") or {}).get("defaultConstraints") or ():
                out.append((str(c.get("topologyKey", "")), "key"))
    return out
