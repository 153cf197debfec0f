"""A green plugin test must mean the question was asked (issue "No silent vacuity"): a rule over
the label key `gpu`, which the checker's pools never drew, and a plugin that always says yes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from schedspec.checker.conformance import Disagreed, Vacuous
from schedspec.checker.differential import ImplState
from schedspec.checker.question import terms
from schedspec.checker.strategies import cluster_objects
from schedspec.impl.api.types import Pod
from schedspec.impl.framework.types import NodeInfo
from schedspec.spec.load import load_spec

GPU_GUARD = str(Path(__file__).with_name("gpu_guard.tla"))


def always_yes(state: ImplState, pod: Pod, node_info: NodeInfo) -> bool:
    return True


def gpu_guard(state: ImplState, pod: Pod, node_info: NodeInfo) -> bool:
    assert node_info.node is not None
    return "gpu" not in node_info.node.labels or "gpu" in (pod.node_selector or {})


def test_the_rule_names_its_key() -> None:
    assert terms(load_spec(GPU_GUARD, "scheduler"), "GpuGuardOK") == (("gpu",), ())


def test_the_always_true_plugin_is_caught_on_clusters_drawn_in_the_rules_terms(
    schedspec_agree: Callable[..., None],
) -> None:
    with pytest.raises(Disagreed) as caught:
        schedspec_agree("GpuGuardOK", always_yes, spec=GPU_GUARD)
    assert {(d.spec, d.impl) for d in caught.value.found} == {(False, True)}
    assert "gpu" in str(caught.value)


def test_on_the_old_pools_it_fails_as_vacuous_instead_of_passing(
    schedspec_agree: Callable[..., None],
) -> None:
    with pytest.raises(Vacuous, match=r"vacuous: GpuGuardOK was TRUE on all [\d,]+ \(pod, node\)"):
        schedspec_agree("GpuGuardOK", always_yes, spec=GPU_GUARD, strategy=cluster_objects())


def test_vacuity_can_be_accepted_explicitly(schedspec_agree: Callable[..., None]) -> None:
    schedspec_agree(
        "GpuGuardOK", always_yes, spec=GPU_GUARD, strategy=cluster_objects(), accept_vacuous=True
    )


def test_the_faithful_plugin_passes_and_the_rule_took_both_values(
    schedspec_agree: Callable[..., None],
) -> None:
    schedspec_agree("GpuGuardOK", gpu_guard, spec=GPU_GUARD)


def ignores_accelerator(state: ImplState, pod: Pod, node_info: NodeInfo) -> bool:
    """NodeSelector as a plugin configured with ``labelKey: accelerator`` might get it wrong:
    it skips its own key."""
    assert node_info.node is not None
    labels = node_info.node.labels
    wanted = pod.node_selector or {}
    return all(labels.get(k) == v for k, v in wanted.items() if k != "accelerator")


def test_the_plugins_own_arguments_are_drawn_in_too(
    schedspec_agree: Callable[..., None],
) -> None:
    """NodeSelectorOK names no label key, so only the plugin's argument brings "accelerator"
    into the clusters; without it the bug is never drawn."""
    schedspec_agree("NodeSelectorOK", ignores_accelerator)  # the pools never hold the key
    with pytest.raises(Disagreed) as caught:
        schedspec_agree("NodeSelectorOK", ignores_accelerator, keys=["accelerator"])
    assert "accelerator" in str(caught.value)
