"""The pytest plugin's fixtures, used the way a plugin author would: a rule written as a spec
definition, the plugin's verdict function, and `schedspec_agree` to compare them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from schedspec.checker.conformance import Disagreed
from schedspec.checker.differential import ImplState
from schedspec.impl.api.types import Pod
from schedspec.impl.framework.types import NodeInfo

POOL_GUARD = str(Path(__file__).with_name("pool_guard.tla"))
KEY = "example.com/pool"


def pool_guard(state: ImplState, pod: Pod, node_info: NodeInfo) -> bool:
    assert node_info.node is not None
    return KEY not in node_info.node.labels or KEY in (pod.node_selector or {})


def pool_guard_forgets_selector(state: ImplState, pod: Pod, node_info: NodeInfo) -> bool:
    assert node_info.node is not None
    return KEY not in node_info.node.labels


def test_a_plugin_that_matches_its_rule_passes(schedspec_agree: Callable[..., None]) -> None:
    schedspec_agree("PoolGuardOK", pool_guard, spec=POOL_GUARD)


def test_a_plugin_that_drifts_from_its_rule_fails_with_a_small_cluster(
    schedspec_agree: Callable[..., None],
) -> None:
    with pytest.raises(Disagreed) as caught:
        schedspec_agree("PoolGuardOK", pool_guard_forgets_selector, spec=POOL_GUARD)
    err = caught.value
    assert {(d.spec, d.impl) for d in err.found} == {(True, False)}
    assert "kind: Node" in str(err) and KEY in str(err)
    assert sum(1 for o in err.objects if o["kind"] == "Node") == 1  # shrunk


def test_the_session_checker_fixture_is_the_real_spec(schedspec_checker: object) -> None:
    assert schedspec_checker.spec.file == "spec/kube/scheduler.tla"  # type: ignore[attr-defined]
