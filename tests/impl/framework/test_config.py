"""Profiles from KubeSchedulerConfiguration: defaults, multiPoint expansion, weights, and
errors naming the field path — every one at once."""

from __future__ import annotations

from typing import Any

import pytest

from schedspec.cluster import loads
from schedspec.impl.errors import ConfigError
from schedspec.impl.simulate import build

KSC = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
EMPTY = loads("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")


def profile(**plugins: Any) -> dict[str, Any]:
    return {**KSC, "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}]}


def framework(config: dict[str, Any] | None) -> Any:
    return build(EMPTY, config).profiles["default-scheduler"]


def test_default_profile_order_and_weights() -> None:
    fwk = framework(None)
    assert fwk.lists["filter"] == [
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "PodTopologySpread",
        "InterPodAffinity",
    ]
    assert fwk.score_weights == {
        "TaintToleration": 3,
        "NodeAffinity": 2,
        "NodeResourcesFit": 1,
        "PodTopologySpread": 2,
        "InterPodAffinity": 2,
        "NodeResourcesBalancedAllocation": 1,
        "ImageLocality": 1,
    }
    assert fwk.lists["queueSort"] == ["PrioritySort"] and fwk.lists["bind"] == ["DefaultBinder"]
    assert fwk.lists["preEnqueue"] == ["SchedulingGates", "DefaultPreemption"]
    assert fwk.lists["postFilter"] == ["DefaultPreemption"]


def test_weight_zero_counts_as_one_and_explicit_score_weight_wins() -> None:
    fwk = framework(
        profile(
            score={
                "enabled": [
                    {"name": "TaintToleration", "weight": 0},
                    {"name": "NodeAffinity", "weight": 7},
                ]
            }
        )
    )
    assert fwk.score_weights["TaintToleration"] == 1
    assert fwk.score_weights["NodeAffinity"] == 7


def test_disable_star_then_enable_keeps_only_the_listed_plugins() -> None:
    fwk = framework(
        profile(score={"disabled": [{"name": "*"}], "enabled": [{"name": "ImageLocality"}]})
    )
    assert fwk.lists["score"] == ["ImageLocality"]
    assert "TaintToleration" in fwk.lists["filter"]  # other points keep their defaults


def test_multipoint_enables_a_custom_plugin_everywhere_it_fits() -> None:
    fwk = framework(profile(multiPoint={"enabled": [{"name": "NodeNumber", "weight": 5}]}))
    assert fwk.lists["score"][-1] == "NodeNumber" and fwk.lists["permit"] == ["NodeNumber"]
    assert fwk.score_weights["NodeNumber"] == 5


ERRORS: list[tuple[str, dict[str, Any], str]] = [
    (
        "unknown plugin",
        profile(filter={"enabled": [{"name": "Nope"}]}),
        'profiles[0].plugins.filter.enabled[0]: plugin "Nope" does not exist',
    ),
    (
        "plugin at an extension point it does not implement",
        profile(filter={"enabled": [{"name": "ImageLocality"}]}),
        "profiles[0].plugins.filter.enabled[0]: "
        'plugin "ImageLocality" does not extend FilterPlugin plugin',
    ),
    (
        "double registration",
        profile(score={"enabled": [{"name": "ImageLocality"}, {"name": "ImageLocality"}]}),
        "profiles[0].plugins.score.enabled[1]: "
        'plugin "ImageLocality" already registered as "ScorePlugin"',
    ),
    (
        "percentage out of range",
        {**KSC, "percentageOfNodesToScore": 101},
        "percentageOfNodesToScore: invalid value 101: not in valid range [0-100]",
    ),
    (
        "profile percentage out of range",
        {**KSC, "profiles": [{"percentageOfNodesToScore": -1}]},
        "profiles[0].percentageOfNodesToScore: invalid value -1",
    ),
    (
        "bad plugin args",
        {
            **KSC,
            "profiles": [
                {
                    "pluginConfig": [
                        {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 101}}
                    ]
                }
            ],
        },
        "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: invalid value 101",
    ),
    (
        "unknown args field",
        {
            **KSC,
            "profiles": [
                {"pluginConfig": [{"name": "NodeResourcesFit", "args": {"ignoredResource": []}}]}
            ],
        },
        'profiles[0].pluginConfig[0].args.ignoredResource: unknown field "ignoredResource"',
    ),
    (
        "duplicate schedulerName",
        {**KSC, "profiles": [{}, {}]},
        'profiles[1].schedulerName: Duplicate value: "default-scheduler"',
    ),
    (
        "no queue sort",
        profile(queueSort={"disabled": [{"name": "*"}]}),
        "profiles[0].plugins.queueSort: no queue sort plugin is enabled",
    ),
    (
        "no binder",
        profile(bind={"disabled": [{"name": "DefaultBinder"}]}),
        "profiles[0].plugins.bind: at least one bind plugin is needed",
    ),
    (
        "removed plugin",
        profile(filter={"enabled": [{"name": "EBSLimits"}]}),
        'profiles[0].plugins.filter.enabled[0].name: "EBSLimits" was invalid',
    ),
    (
        "declared out of scope",
        profile(filter={"enabled": [{"name": "VolumeBinding"}]}),
        'profiles[0].plugins.filter.enabled[0]: plugin "VolumeBinding" is declared out of scope',
    ),
]


@pytest.mark.parametrize(("name", "config", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_configuration_fails_fast_naming_the_field(
    name: str, config: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        framework(config)
    assert message in str(err.value)
    assert str(err.value).startswith("KubeSchedulerConfiguration: ")


def test_disabling_a_declared_plugin_is_accepted() -> None:
    fwk = framework(
        profile(
            postFilter={"disabled": [{"name": "DefaultPreemption"}]},
            filter={"disabled": [{"name": "VolumeBinding"}]},
        )
    )
    assert fwk.lists["postFilter"] == []


def test_every_problem_at_once_with_suggestions() -> None:
    config = {
        **KSC,
        "percentageOfNodesToScore": 101,
        "profile": [],
        "profiles": [
            {
                "plugin": {},
                "plugins": {
                    "scor": {},
                    "score": {
                        "enabled": [
                            {"name": "ImageLocality", "weight": 2**31},
                            {"name": "TaintToleration", "wieght": 1, "weight": -1},
                        ]
                    },
                },
            }
        ],
    }
    with pytest.raises(ConfigError) as err:
        framework(config)
    assert str(err.value).splitlines() == [
        'KubeSchedulerConfiguration: profile: unknown field "profile" (did you mean "profiles"?)',
        "KubeSchedulerConfiguration: percentageOfNodesToScore: invalid value 101: "
        "not in valid range [0-100]",
        'KubeSchedulerConfiguration: profiles[0].plugin: unknown field "plugin" '
        '(did you mean "plugins"?)',
        'KubeSchedulerConfiguration: profiles[0].plugins.scor: unknown extension point "scor" '
        '(did you mean "score"?)',
        "KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[0].weight: "
        "invalid value 2147483648: must fit in an int32",
        "KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[1].wieght: "
        'unknown field "wieght" (did you mean "weight"?)',
        "KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[1]: "
        "invalid weight -1: must not be negative",
    ]
    assert len(err.value.errors) == 7


def test_every_unknown_plugin_at_once_with_suggestions() -> None:
    config = profile(
        filter={"enabled": [{"name": "NodeAfinity"}]},
        score={"enabled": [{"name": "ImageLocalty"}, {"name": "Zzz"}]},
    )
    with pytest.raises(ConfigError) as err:
        framework(config)
    assert [e.render() for e in err.value.errors] == [
        "KubeSchedulerConfiguration: profiles[0].plugins.filter.enabled[0]: "
        'plugin "NodeAfinity" does not exist (did you mean "NodeAffinity"?)',
        "KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[0]: "
        'plugin "ImageLocalty" does not exist (did you mean "ImageLocality"?)',
        'KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[1]: plugin "Zzz" does '
        "not exist",
    ]
