"""The scheduling queue's rules, one test each, in virtual time (scheduling_queue.go v1.34)."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, pod

from schedspec.impl.api import Pod
from schedspec.impl.framework.events import ActionType, ClusterEvent
from schedspec.impl.framework.interface import Plugin
from schedspec.impl.framework.types import PodInfo, QueuedPodInfo
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins import priority_sort
from schedspec.impl.plugins.node_resources_fit import NodeResourcesFit
from schedspec.impl.plugins.scheduling_gates import SchedulingGates
from schedspec.impl.queue import ACTIVE_Q, BACKOFF_Q, IN_FLIGHT, UNSCHEDULABLE_PODS, SchedulingQueue
from schedspec.impl.queue.backoff_queue import backoff_duration
from schedspec.impl.queue.hints import build_queueing_hint_map

FIT = "NodeResourcesFit"
NODE_ADD = ClusterEvent("Node", ActionType.ADD)


def make_queue(**options: Any) -> tuple[EventLoop, SchedulingQueue]:
    loop = EventLoop()
    plugins: dict[str, Plugin] = {FIT: NodeResourcesFit(), "SchedulingGates": SchedulingGates()}
    lists = {"filter": [FIT], "preEnqueue": ["SchedulingGates"]}
    queue = SchedulingQueue(
        priority_sort.less,
        loop,
        pre_enqueue={"default-scheduler": [SchedulingGates()]},
        hints={
            "default-scheduler": build_queueing_hint_map(
                plugins, lists, options.get("queueing_hints", True)
            )
        },
        **options,
    )
    return loop, queue


def fail(queue: SchedulingQueue, qpi: QueuedPodInfo, *plugins: str) -> None:
    """End the attempt as kube-scheduler does: rejected by ``plugins`` (none: an Error)."""
    qpi.unschedulable_plugins = set(plugins)
    queue.add_unschedulable_if_not_present(qpi, queue.scheduling_cycle)


def pop(queue: SchedulingQueue) -> QueuedPodInfo:
    qpi = queue.pop()
    assert qpi is not None
    return qpi


BIG = {"cpu": "8"}


# ------------------------------------------------------------------------------ backoff


@pytest.mark.parametrize(
    ("count", "seconds"), [(1, 1), (2, 2), (3, 4), (4, 8), (5, 10), (6, 10), (30, 10)]
)
def test_backoff_doubles_from_1s_to_a_10s_cap_by_unschedulable_count(
    count: int, seconds: float
) -> None:
    assert backoff_duration(count, 1.0, 10.0) == seconds
    _loop, queue = make_queue()
    qpi = QueuedPodInfo(PodInfo(pod("p")), unschedulable_count=count)
    assert queue.backoff_q.backoff_time(qpi) == seconds  # timestamp 0: expiry = duration


def test_consecutive_errors_take_precedence_over_the_unschedulable_count() -> None:
    _loop, queue = make_queue()
    qpi = QueuedPodInfo(PodInfo(pod("p")), unschedulable_count=5, consecutive_errors=1)
    assert queue.backoff_q.backoff_time(qpi) == 1.0


def test_each_failed_attempt_counts_towards_backoff() -> None:
    _loop, queue = make_queue()
    queue.add(pod("p"))
    expiries = []
    for _ in range(6):
        qpi = pop(queue)
        fail(queue, qpi)  # an Error: consecutive errors 1, 2, …
        expiries.append(queue.backoff_q.backoff_time(qpi) - qpi.timestamp)
        queue.activate([qpi.pod])
    assert expiries == [1, 2, 4, 8, 10, 10]


def test_error_backoff_is_kept_apart_and_never_popped_early() -> None:
    _loop, queue = make_queue()
    queue.add(pod("err"))
    fail(queue, pop(queue))  # no rejector plugin: an Error
    assert queue.where("uid-default-err") == BACKOFF_Q
    assert len(queue.backoff_q.pod_error_backoff_q) == 1
    assert len(queue.backoff_q.pod_backoff_q) == 0
    assert queue.pop() is None  # activeQ empty, but error pods wait their backoff out


def test_backoff_flush_runs_on_whole_seconds() -> None:
    loop, queue = make_queue()
    loop.run(until=0.5)
    loop.after(0.5, lambda: None)
    loop.run_one()  # now = 0.5
    queue.add(pod("p"))
    fail(queue, pop(queue))  # error at t=0.5: expiry = window(1.5) = 1.0
    loop.run(until=1.0)
    assert queue.where("uid-default-p") == BACKOFF_Q  # backing off while expiry ≥ window(now)
    loop.run(until=1.99)
    assert queue.where("uid-default-p") == BACKOFF_Q
    loop.run(until=2.0)
    assert queue.where("uid-default-p") == ACTIVE_Q


# ------------------------------------------------------------------------------ the 30 s sweep


def test_sweep_moves_a_pod_unschedulable_for_more_than_5_minutes_and_not_before() -> None:
    loop, queue = make_queue()
    queue.add(pod("big", req=BIG))
    fail(queue, pop(queue), FIT)
    assert queue.where("uid-default-big") == UNSCHEDULABLE_PODS
    loop.run(until=300.0)  # the sweeps at 30 s … 300 s: 300 s is not *more* than 5 min
    assert queue.where("uid-default-big") == UNSCHEDULABLE_PODS
    moves: list[tuple[str, str, str]] = []
    queue.on_move = lambda q, src, dst, event: moves.append((src, dst, event))
    loop.run(until=330.0)
    assert moves[0] == (UNSCHEDULABLE_PODS, ACTIVE_Q, "UnschedulableTimeout")


# ------------------------------------------------------------------------------ gates


def test_gated_pods_are_not_popped_until_ungated_and_no_attempt_is_counted() -> None:
    _loop, queue = make_queue()
    gated = pod("g", spec={"schedulingGates": [{"name": "example.com/quota"}]})
    queue.add(gated)
    assert queue.where(gated.uid) == UNSCHEDULABLE_PODS
    assert queue.gating_status[gated.uid].plugin == "SchedulingGates"
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, node("n"))
    assert queue.pop() is None  # a node event does not interest the gating plugin
    ungated = pod("g")
    queue.update(gated, ungated)
    assert queue.where(gated.uid) == ACTIVE_Q
    qpi = pop(queue)
    assert qpi.attempts == 1  # the time spent gated counted no attempt
    assert qpi.unschedulable_count == 0


# ------------------------------------------------------------------------------ hints


def test_a_node_add_that_cannot_fit_the_pod_does_not_move_it() -> None:
    _loop, queue = make_queue()
    queue.add(pod("big", req=BIG))
    fail(queue, pop(queue), FIT)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, node("small"))
    assert queue.where("uid-default-big") == UNSCHEDULABLE_PODS


def test_a_node_add_that_can_fit_the_pod_moves_it() -> None:
    loop, queue = make_queue(pop_from_backoff=False)
    queue.add(pod("big", req=BIG))
    fail(queue, pop(queue), FIT)
    roomy = node("roomy", alloc={"cpu": "16", "memory": "8Gi", "pods": "110"})
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, roomy)
    assert queue.where("uid-default-big") == BACKOFF_Q  # still backing off (1 s)
    loop.run(until=2.0)
    assert queue.where("uid-default-big") == ACTIVE_Q


def test_an_event_no_rejector_plugin_registered_does_not_move_the_pod() -> None:
    _loop, queue = make_queue()
    queue.add(pod("big", req=BIG))
    fail(queue, pop(queue), "InterPodAffinity")  # not in this queue's hint map
    roomy = node("roomy", alloc={"cpu": "16", "memory": "8Gi", "pods": "110"})
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, roomy)
    assert queue.where("uid-default-big") == UNSCHEDULABLE_PODS


def test_with_hints_off_every_registered_event_moves_the_pod() -> None:
    _loop, queue = make_queue(queueing_hints=False)
    queue.add(pod("big", req=BIG))
    fail(queue, pop(queue), FIT)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, node("small"))
    assert queue.where("uid-default-big") in (ACTIVE_Q, BACKOFF_Q)


# ------------------------------------------------------------------------------ in flight


def test_an_event_during_the_in_flight_cycle_requeues_the_pod() -> None:
    _loop, queue = make_queue()
    queue.add(pod("big", req=BIG))
    qpi = pop(queue)
    assert queue.where(qpi.pod.uid) == IN_FLIGHT
    roomy = node("roomy", alloc={"cpu": "16", "memory": "8Gi", "pods": "110"})
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, roomy)  # while it is scheduled
    fail(queue, qpi, FIT)
    assert queue.where(qpi.pod.uid) == BACKOFF_Q
    assert not queue.active_q.in_flight_events  # done: nothing left to replay


def test_an_event_during_the_cycle_that_cannot_help_leaves_the_pod_unschedulable() -> None:
    _loop, queue = make_queue()
    queue.add(pod("big", req=BIG))
    qpi = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, node("small"))
    fail(queue, qpi, FIT)
    assert queue.where(qpi.pod.uid) == UNSCHEDULABLE_PODS


def test_without_hints_a_move_request_during_the_cycle_requeues_the_pod() -> None:
    _loop, queue = make_queue(queueing_hints=False)
    queue.add(pod("big", req=BIG))
    qpi = pop(queue)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, node("small"))  # moveRequestCycle
    fail(queue, qpi, FIT)
    assert queue.where(qpi.pod.uid) == BACKOFF_Q


# ------------------------------------------------------------------------------ popping


def test_kep_5142_pops_from_backoff_q_when_active_q_is_empty() -> None:
    _loop, queue = make_queue()
    queue.add(pod("big", req=BIG))
    qpi = pop(queue)
    roomy = node("roomy", alloc={"cpu": "16", "memory": "8Gi", "pods": "110"})
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, roomy)
    fail(queue, qpi, FIT)
    assert queue.backoff_q.is_backing_off(qpi)
    again = queue.pop()  # activeQ empty: the backing-off pod is popped at once
    assert again is qpi and again.attempts == 2


def test_without_kep_5142_a_backing_off_pod_is_not_popped() -> None:
    _loop, queue = make_queue(pop_from_backoff=False)
    queue.add(pod("big", req=BIG))
    qpi = pop(queue)
    roomy = node("roomy", alloc={"cpu": "16", "memory": "8Gi", "pods": "110"})
    queue.move_all_to_active_or_backoff_queue(NODE_ADD, None, roomy)
    fail(queue, qpi, FIT)
    assert queue.pop() is None


def _prio(name: str, priority: int) -> Pod:
    return pod(name, spec={"priority": priority})


def test_queue_sort_pops_higher_priority_first_then_the_earlier_timestamp() -> None:
    loop, queue = make_queue()
    queue.add(_prio("low-early", 0))
    loop.after(1.0, lambda: None)
    loop.run_one()
    queue.add(_prio("high-late", 100))
    queue.add(_prio("low-late", 0))
    queue.add(_prio("mid", 50))
    order = [pop(queue).pod.name for _ in range(4)]
    assert order == ["high-late", "mid", "low-early", "low-late"]


def test_deleting_a_pod_removes_it_from_every_sub_queue() -> None:
    _loop, queue = make_queue()
    queue.add(pod("a"))
    queue.add(pod("b", req=BIG))
    fail(queue, pop(queue), FIT)  # a (earlier) is popped and parked
    queue.delete(pod("a"))
    queue.delete(pod("b"))
    assert queue.pending_pods() == [] and queue.pop() is None
