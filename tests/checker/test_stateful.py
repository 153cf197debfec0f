"""The scheduler as a state machine (checker/stateful.py): the invariants hold under nodes and
pods that come and go, time and API faults; and a scheduler without NodeResourcesFit is caught."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from schedspec.checker.stateful import InvariantViolation, SchedulerMachine
from schedspec.impl.framework.registry import Registry
from schedspec.impl.plugins import in_tree_registry, node_resources_fit

QUICK = settings(
    max_examples=150,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

FIND_ONLY = (Phase.explicit, Phase.generate)

TestSchedulerMachine = SchedulerMachine.TestCase
TestSchedulerMachine.settings = QUICK


class CampaignMachine(SchedulerMachine):
    """The same machine, run longer (``-m campaign``)."""


TestCampaignMachine = pytest.mark.campaign(CampaignMachine.TestCase)
TestCampaignMachine.settings = settings(
    max_examples=2000,
    stateful_step_count=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


# ------------------------------------------------------------------ teeth: a wrong scheduler


class _FitsAnything(node_resources_fit.NodeResourcesFit):
    def filter(self, state: Any, pod: Any, node_info: Any) -> None:
        return None


def _without_fit_filter() -> Registry:
    registry = in_tree_registry()
    original = registry[node_resources_fit.NAME]

    def factory(args: Mapping[str, Any], handle: Any) -> Any:
        plugin = original(args, handle)
        plugin.__class__ = _FitsAnything  # same state, a Filter that always passes
        return plugin

    registry[node_resources_fit.NAME] = factory
    return registry


class IgnoresResources(SchedulerMachine):
    registry = _without_fit_filter()


def test_a_scheduler_ignoring_node_resources_fit_overcommits_a_node() -> None:
    with pytest.raises(InvariantViolation, match="over-committed"):
        run_state_machine_as_test(
            IgnoresResources,
            # found while generating; shrinking it to the two-step story takes longer than
            # the finding, so it is left to a failing campaign's report
            settings=settings(QUICK, max_examples=200, database=None, phases=FIND_ONLY),
        )


def test_a_deleted_pod_left_in_the_queue_breaks_conservation() -> None:
    machine = SchedulerMachine()
    machine.first_node(1000, 1024)
    key = str(machine.add_pending_pod(2000, 0, 0, 0))  # too big: stays unschedulable
    machine.pod_conservation()
    uid = machine.created[key]
    # the API server forgets the pod behind the scheduler's back (no watch event)
    machine.api._store["Pod"].pop(key)
    with pytest.raises(
        InvariantViolation, match=f"pod {key} was deleted but the scheduler holds it"
    ):
        machine.pod_conservation()
    assert machine.scheduler.queue.where(uid) != ""
    machine.teardown()


def test_an_assumed_pod_never_confirmed_breaks_cache_equals_store() -> None:
    machine = SchedulerMachine()
    machine.first_node(1000, 1024)
    key = str(machine.add_pending_pod(500, 0, 0, 0))
    machine.cache_matches_store()
    # the bind happened, yet the cache is told it was forgotten: store and cache now differ
    pod = machine.scheduler.cache.get_pod(machine.created[key])
    assert pod is not None
    machine.scheduler.cache.remove_pod(pod)
    with pytest.raises(
        InvariantViolation, match=f"pod {key} is bound to node-1 but not in the cache"
    ):
        machine.cache_matches_store()
    machine.teardown()
