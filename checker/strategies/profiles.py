"""``scheduler_configs``: KubeSchedulerConfigurations a user would write, and ``with_profiles``,
which puts one into a drawn cluster.

Each drawn configuration changes the default profile where a profile decides: a Score plugin
disabled at ``score`` (its PreScore still runs), a Filter plugin disabled at ``filter`` (its
PreFilter still runs: NodeAffinity's node names, PodTopologySpread's and InterPodAffinity's
parse errors) or at ``multiPoint`` (every point), Score weights changed (re-listed in
``multiPoint`` or in ``score.enabled``), NodeResourcesFit's ``scoringStrategy`` (MostAllocated,
RequestedToCapacityRatio with a drawn shape, resources with weights, an extended resource among
them), ``ignoredResources`` and
``ignoredResourceGroups``, NodeAffinity's ``addedAffinity`` (required and preferred),
InterPodAffinity's ``hardPodAffinityWeight`` and ``ignorePreferredTermsOfExistingPods``,
DefaultPreemption disabled, and now and then a second profile that some pending pods name.
Only what the spec models is drawn (spec/kube/profiles.py lists what it refuses).
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from schedspec.checker.strategies.pools import (
    EXTENDED_RESOURCES,
    LABEL_KEYS,
    LABEL_VALUES,
    TOPOLOGY_KEYS,
    ZONES,
    Obj,
)

__all__ = ["SECOND_SCHEDULER", "scheduler_configs", "with_profiles"]

SECOND_SCHEDULER = "batch-scheduler"

_SCORES = (
    "TaintToleration",
    "NodeAffinity",
    "PodTopologySpread",
    "InterPodAffinity",
    "NodeResourcesFit",
    "NodeResourcesBalancedAllocation",
    "ImageLocality",
)
# Filter plugins without a PreFilter, and those whose PreFilter stays when disabled at filter.
_FILTER_ONLY = ("NodeUnschedulable", "NodeName", "TaintToleration")
_FILTER_WITH_PRE = ("NodeAffinity", "NodePorts", "NodeResourcesFit")
_ANY_POINT = (*_FILTER_ONLY, *_FILTER_WITH_PRE, "PodTopologySpread", "InterPodAffinity")


def _names(items: list[str]) -> list[Obj]:
    return [{"name": n} for n in items]


@st.composite
def _added_affinity(draw: DrawFn) -> Obj:
    def requirement() -> Obj:
        key = draw(st.sampled_from((*LABEL_KEYS, TOPOLOGY_KEYS[1])))
        op = draw(st.sampled_from(("In", "NotIn", "Exists", "DoesNotExist")))
        req: Obj = {"key": key, "operator": op}
        if op in ("In", "NotIn"):
            values = tuple(sorted(ZONES)) if key == TOPOLOGY_KEYS[1] else LABEL_VALUES
            req["values"] = draw(st.lists(st.sampled_from(values), min_size=1, max_size=2,
                                          unique=True))  # fmt: skip
        return req

    added: Obj = {}
    if draw(st.booleans()):
        added["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchExpressions": [requirement()]}]
        }
    if draw(st.booleans()) or not added:
        added["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {
                "weight": draw(st.integers(1, 100)),
                "preference": {"matchExpressions": [requirement()]},
            }
        ]
    return added


@st.composite
def _spread_defaults(draw: DrawFn) -> Obj:
    """PodTopologySpreadArgs: defaultingType List with zero to two default constraints (the
    system defaults are the v1 default, drawn whenever this is not)."""
    constraints = []
    keys = draw(st.lists(st.sampled_from(TOPOLOGY_KEYS), max_size=2, unique=True))
    for key in keys:
        when = draw(st.sampled_from(("DoNotSchedule", "ScheduleAnyway")))
        c: Obj = {"maxSkew": draw(st.integers(1, 3)), "topologyKey": key,
                  "whenUnsatisfiable": when}  # fmt: skip
        if when == "DoNotSchedule" and draw(st.integers(0, 3)) == 0:
            c["minDomains"] = draw(st.integers(1, 3))
        if draw(st.integers(0, 3)) == 0:
            c["nodeTaintsPolicy"] = "Honor"
        if draw(st.integers(0, 4)) == 0:
            c["nodeAffinityPolicy"] = "Ignore"
        constraints.append(c)
    return {"defaultingType": "List", "defaultConstraints": constraints}


@st.composite
def _profile(draw: DrawFn, name: str) -> Obj:
    plugins: dict[str, Any] = {}
    args: dict[str, Obj] = {}
    if draw(st.booleans()):
        plugins["score"] = {"disabled": _names(draw(st.lists(st.sampled_from(_SCORES),
                                                              min_size=1, max_size=2,
                                                              unique=True)))}  # fmt: skip
    if draw(st.integers(0, 3)) == 0:
        disabled = draw(st.sampled_from(_FILTER_WITH_PRE + _FILTER_ONLY))
        plugins["filter"] = {"disabled": _names([disabled])}
    if draw(st.integers(0, 4)) == 0:
        plugins["multiPoint"] = {"disabled": _names([draw(st.sampled_from(_ANY_POINT))])}
    if draw(st.booleans()):
        reweighted = draw(st.lists(st.sampled_from(_SCORES), min_size=1, max_size=3, unique=True))
        refs = [{"name": n, "weight": draw(st.integers(0, 10))} for n in reweighted]
        if draw(st.booleans()):
            multi = plugins.setdefault("multiPoint", {})
            disabled = {d["name"] for d in multi.get("disabled", ())}
            multi["enabled"] = [r for r in refs if r["name"] not in disabled]
        else:
            score = plugins.setdefault("score", {})
            disabled = {d["name"] for d in score.get("disabled", ())}
            score["enabled"] = [r for r in refs if r["name"] not in disabled]
    if draw(st.integers(0, 5)) == 0:
        plugins["postFilter"] = {"disabled": _names(["DefaultPreemption"])}
    fit: Obj = {}
    if draw(st.booleans()):
        kinds = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
        strategy: Obj = {"type": draw(st.sampled_from(kinds))}
        if strategy["type"] == "RequestedToCapacityRatio":
            utilizations = draw(st.lists(st.integers(0, 100), min_size=1, max_size=4, unique=True))
            strategy["requestedToCapacityRatio"] = {
                "shape": [
                    {"utilization": u, "score": draw(st.integers(0, 10))}
                    for u in sorted(utilizations)
                ]
            }
        if draw(st.booleans()):
            resources = draw(st.lists(st.sampled_from(("cpu", "memory", *EXTENDED_RESOURCES)),
                                      min_size=0, max_size=3, unique=True))  # fmt: skip
            strategy["resources"] = [  # an empty list and a weight of 0 take the v1 defaults
                {"name": r, "weight": draw(st.integers(0, 100))} for r in resources
            ]
        fit["scoringStrategy"] = strategy
    if draw(st.integers(0, 3)) == 0:
        fit["ignoredResources"] = [draw(st.sampled_from(EXTENDED_RESOURCES))]
    if draw(st.integers(0, 3)) == 0:
        fit["ignoredResourceGroups"] = [draw(st.sampled_from(("nvidia.com", "example.com")))]
    if fit:
        args["NodeResourcesFit"] = fit
    if draw(st.integers(0, 2)) == 0:
        args["NodeAffinity"] = {"addedAffinity": draw(_added_affinity())}
    ipa: Obj = {}
    if draw(st.integers(0, 2)) == 0:
        ipa["hardPodAffinityWeight"] = draw(st.sampled_from((0, 1, 5, 100)))
    if draw(st.integers(0, 3)) == 0:
        ipa["ignorePreferredTermsOfExistingPods"] = True
    if ipa:
        args["InterPodAffinity"] = ipa
    if draw(st.integers(0, 3)) == 0:
        args["PodTopologySpread"] = draw(_spread_defaults())
    profile: Obj = {"schedulerName": name}
    if plugins:
        profile["plugins"] = plugins
    if args:
        profile["pluginConfig"] = [{"name": k, "args": v} for k, v in args.items()]
    return profile


@st.composite
def scheduler_configs(draw: DrawFn) -> Obj:
    """A ``KubeSchedulerConfiguration`` (v1) with one or two profiles; the first is the
    default scheduler's."""
    profiles = [draw(_profile("default-scheduler"))]
    if draw(st.integers(0, 4)) == 0:
        profiles.append(draw(_profile(SECOND_SCHEDULER)))
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": profiles,
    }


def with_profiles(base: SearchStrategy[list[Obj]]) -> SearchStrategy[list[Obj]]:
    """``base``'s clusters with a drawn configuration; with two profiles, some pending pods name
    the second."""

    @st.composite
    def draw_one(draw: DrawFn) -> list[Obj]:
        objects = copy.deepcopy(draw(base))
        config = draw(scheduler_configs())
        if len(config["profiles"]) > 1:
            for obj in objects:
                pending = obj.get("kind") == "Pod" and not (obj.get("spec") or {}).get("nodeName")
                if pending and draw(st.booleans()):
                    obj["spec"]["schedulerName"] = SECOND_SCHEDULER
        return [*objects, config]

    return draw_one()
