"""The real scheduler's observations read without the oracle (checker/queue_trace_real.py): the
Go recorder's JSON becomes queue_trace Observations, and a failure released by a nomination's
in-flight AssignedPodDelete is found from the run's history."""

from __future__ import annotations

from typing import Any

from schedspec.checker.queue_hints import Delivery
from schedspec.checker.queue_trace_real import observations, replayed_nominations


def _queued(place: str, attempts: int, rejecting: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "place": place, "node": "", "attempts": attempts, "unschedulableCount": len(rejecting) > 0,
        "errorCount": 0, "timestamp": 0.0, "rejecting": rejecting, "pending": [], **extra,
    }  # fmt: skip


BOUND = {"place": "bound", "node": "n1", "prebound": True, "seen": 0.0}

# a pending pod p is in flight when b, a pod bound by someone else, is announced deleted by a
# nomination's AssignedPodDelete (b stays bound); p's failure then goes to backoffQ
TRACE: list[dict[str, Any]] = [
    {"t": 0.0, "records": [], "pods": {"default/b": BOUND}},
    {"t": 0.0, "records": [["move", "default/p", "", "activeQ", "UnschedulablePodAdd"]],
     "pods": {"default/b": BOUND, "default/p": _queued("activeQ", 0, [])}},
    {"t": 0.0, "records": [["move", "default/p", "activeQ", "inFlight", "Pop"]],
     "pods": {"default/b": BOUND, "default/p": _queued("inFlight", 1, [])}},
    {"t": 0.0, "records": [
        ["deliver", "AssignedPodDelete",
         {"old": {"metadata": {"name": "b"}, "spec": {"containers": []}}, "new": None,
          "pods": {}, "prechecked": True}],
        ["event", "AssignedPodDelete"]],
     "pods": {"default/b": BOUND, "default/p": _queued("inFlight", 1, [])}},
    {"t": 0.0, "records": [["move", "default/p", "inFlight", "backoffQ", "ScheduleAttemptFailure"]],
     "pods": {"default/b": BOUND,
              "default/p": _queued("backoffQ", 1, ["NodeResourcesFit"], backoffExpiration=1.0)}},
]  # fmt: skip


def test_the_recorder_json_becomes_observations() -> None:
    obs = observations(TRACE)
    assert obs[4].pods["default/p"]["where"] == "backoffQ"
    assert obs[4].pods["default/p"]["rejecting"] == frozenset({"NodeResourcesFit"})
    assert obs[4].pods["default/p"]["backoffExpiry"] == 1
    assert obs[0].pods["default/b"]["where"] == "bound"
    deliver = obs[3].records[0]
    assert deliver[0] == "deliver" and isinstance(deliver[2], Delivery)
    assert deliver[2].old is not None and deliver[2].old["metadata"]["namespace"] == "default"
    assert deliver[2].prechecked


def test_a_failure_released_by_a_nomination_event_in_flight_is_found() -> None:
    assert replayed_nominations(observations(TRACE)) == {4}


def test_a_real_deletion_in_flight_is_not_a_nomination() -> None:
    # b is really deleted in the same observation: the spec's AssignedPodDeleted covers it
    gone = [dict(o) for o in TRACE]
    gone[3] = {**TRACE[3], "pods": {**TRACE[3]["pods"], "default/b": {**BOUND, "place": "deleted"}}}
    assert replayed_nominations(observations(gone)) == set()
