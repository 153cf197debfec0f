"""What the checker keeps from one cluster to the next, and makes once for many nodes, changes no
report: impl's Pods (``PodCache``), the view's records (one builder for every cluster), the memos
of definitions whose constants stayed the same objects (``SourceProgram.bind``), and what a
filter reads of the pod alone (``fits_on``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedspec import cluster
from schedspec.checker.differential import Checker, ClusterCheck, ImplState, PodCache
from schedspec.checker.strategies import cluster_objects
from schedspec.cluster import Cluster, from_objects
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.types import NodeInfo
from schedspec.impl.plugins import node_affinity, node_resources_fit
from schedspec.spec.kube import scheduler_view

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
SCENARIOS = sorted((ROOT / "tests" / "spec" / "scenarios").rglob("*.yaml"))


def _report(out: ClusterCheck) -> tuple[Any, ...]:
    return (
        sorted(out.checked.items()),
        sorted(out.agreement.compared.items()),
        sorted(out.agreement.agreed.items()),
        sorted(out.outcomes.items()),
        [d.describe() for d in out.disagreements],
    )


@pytest.fixture(scope="module")
def warm() -> Checker:
    return Checker()


@pytest.fixture(scope="module")
def cold() -> Checker:
    checker = Checker()
    checker.pods = None
    return checker


def _cold_report(cold: Checker, c: Cluster) -> tuple[Any, ...]:
    """``c`` checked with nothing kept from an earlier cluster."""
    cold.spec.runner.forget()
    shared = scheduler_view._shared
    scheduler_view._shared = lambda: scheduler_view._SharedBuilder()  # type: ignore[assignment]
    try:
        return _report(cold.check(c))
    finally:
        scheduler_view._shared = shared  # type: ignore[assignment]


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(drawn=st.lists(cluster_objects(max_nodes=5, max_pods=6), min_size=2, max_size=5))
def test_a_checker_that_kept_values_reports_as_one_that_did_not(
    warm: Checker, cold: Checker, drawn: list[list[dict[str, Any]]]
) -> None:
    clusters = [c for c in map(from_objects, drawn) if c is not None]
    for c in [*clusters, *reversed(clusters)]:  # each again, after the others
        assert _report(warm.check(c)) == _cold_report(cold, c)


def _clusters() -> Iterator[Cluster]:
    for path in SCENARIOS:
        yield cluster.loads(yaml.safe_load(path.read_text())["objects"], source=str(path))
    for path in EXAMPLES:
        yield cluster.load(path)


def _states() -> Iterator[tuple[ImplState, Any]]:
    for c in _clusters():
        state = ImplState(c)
        for pod in state.pending.values():
            yield state, pod


def test_a_pod_cache_tells_apart_what_equality_does_not() -> None:
    pods = PodCache()
    manifest = {"metadata": {"name": "p", "uid": "u", "labels": {"a": "1"}}, "spec": {}}
    again = {"metadata": {"name": "p", "uid": "u", "labels": {"a": "1"}}, "spec": {}}
    assert pods(manifest) is pods(again)
    priority = {"metadata": {"name": "q", "uid": "v"}, "spec": {"priority": 1}}
    as_bool = {"metadata": {"name": "q", "uid": "v"}, "spec": {"priority": True}}
    assert priority == as_bool
    assert pods(priority) is not pods(as_bool)


def test_filters_made_once_per_pod_answer_as_made_per_node() -> None:
    checked = 0
    for state, pod in _states():
        fwk = state.framework(pod)
        plugin = fwk.plugins.get("NodeAffinity") if fwk is not None else None
        if not isinstance(plugin, node_affinity.NodeAffinity):
            continue
        fit = node_resources_fit.fits_on(pod)
        affinity = plugin.fits_on(pod)
        for ni in state.nodes:
            assert fit(ni) == (not node_resources_fit.insufficient_resources(pod, ni))
            assert ni.node is not None
            bare = NodeInfo(ni.node)
            assert affinity(bare) == (plugin.filter(CycleState(), pod, bare) is None)
            checked += 1
    assert checked > 50
