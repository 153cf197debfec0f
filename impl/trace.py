"""Per-cycle traces of the operational scheduler, as JSON lines (``schedspec schedule --trace``).

Not an upstream structure: kube-scheduler's closest things are its V(5) logs of queue moves and
``schedule_one.go``'s per-cycle results. One JSON object per line, in the order things happen;
``t`` is the virtual time in seconds. Record shapes:

``{"type": "queue", "t", "pod", "from", "to", "event"}``
    a pod moved between sub-queues. ``from``/``to`` are ``activeQ``, ``backoffQ``,
    ``unschedulablePods``, ``inFlight`` or ``""`` (outside the queue: new, or deleted / bound);
    ``event`` is what caused it: a cluster event label (``NodeAdd``, ``NodeUpdateNodeLabel``…
    as ``<resource><action>``, ``AssignedPodDelete``, ``UnschedulablePodAdd``,
    ``UnschedulableTimeout``, ``ForceActivate``), or a queue cause (``Pop``,
    ``PopFromBackoffQ``, ``ScheduleAttemptFailure``, ``BackoffComplete``, ``Delete``).
``{"type": "cycle", "t", "cycle", "pod", "attempt", "prefilter", "filters", "scores",
"totals", "decision"}``
    one scheduling cycle. ``prefilter``: ``null``, or the rejecting status
    (``{"plugin", "code", "message"}``) when PreFilter ended the cycle. ``filters``:
    ``{node: {plugin: "Success" | "<Code>: <reasons>"}}`` — every Filter plugin (not skipped by
    PreFilter) evaluated on every node of the cycle's snapshot, for the record, so it covers
    nodes the cycle itself did not reach. ``scores``: ``{node: {plugin: normalized score}}``
    and ``totals``: ``{node: weighted sum}`` over the feasible nodes, empty when fewer than two
    fit (upstream does not score then). ``decision``: ``{"node": name}`` or
    ``{"unschedulable": {"plugins": [...], "message": "0/3 nodes are available: ..."}}``.
``{"type": "bind", "t", "pod", "node", "result", "message"}``
    the end of a binding cycle: ``result`` is ``bound`` or ``failed``.
``{"type": "delete", "t", "pod", "node"}``
    a bound pod left the cluster (a preemption victim evicted, a deletion).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import IO, Any

from schedspec.impl.api import Pod
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.interface import Clock
from schedspec.impl.framework.runtime import Framework
from schedspec.impl.framework.status import Status
from schedspec.impl.framework.types import NodeInfo, NodeScore, QueuedPodInfo

__all__ = ["Tracer"]


def _verdict(status: Status | None) -> str:
    if status is None or status.is_success():
        return "Success"
    return f"{status.code_name}: {status.message()}"


class Tracer:
    """Writes trace records to ``out`` (or keeps them in ``records`` when ``out`` is None)."""

    def __init__(self, clock: Clock, out: IO[str] | None = None) -> None:
        self._clock, self._out = clock, out
        self.records: list[dict[str, Any]] = []

    def _emit(self, record: dict[str, Any]) -> None:
        record = {"type": record.pop("type"), "t": self._clock.now(), **record}
        if self._out is None:
            self.records.append(record)
        else:
            self._out.write(json.dumps(record, sort_keys=False) + "\n")

    def deleted(self, pod: Pod) -> None:
        """A bound pod left the cluster (a preemption victim, a deletion)."""
        self._emit({"type": "delete", "pod": pod.key, "node": pod.node_name})

    def queue_move(self, qpi: QueuedPodInfo, src: str, dst: str, event: str) -> None:
        self._emit({"type": "queue", "pod": qpi.pod.key, "from": src, "to": dst, "event": event})

    def cycle(
        self,
        cycle: int,
        qpi: QueuedPodInfo,
        fwk: Framework,
        state: CycleState,
        nodes: Sequence[NodeInfo],
        decision: dict[str, Any],
        prefilter: Status | None,
    ) -> None:
        pod = qpi.pod
        filters: dict[str, dict[str, str]] = {}
        feasible: list[NodeInfo] = []
        if prefilter is None:
            active = fwk.active_filters(state)
            for ni in nodes:
                verdicts = {name: _verdict(fn(state, pod, ni)) for name, fn in active}
                filters[ni.name] = verdicts
                if all(v == "Success" for v in verdicts.values()):
                    feasible.append(ni)
        scores, totals = self._scores(fwk, state, pod, feasible)
        self._emit(
            {
                "type": "cycle",
                "cycle": cycle,
                "pod": pod.key,
                "attempt": qpi.attempts,
                "prefilter": None
                if prefilter is None
                else {
                    "plugin": prefilter.plugin,
                    "code": prefilter.code_name,
                    "message": prefilter.message(),
                },
                "filters": filters,
                "scores": scores,
                "totals": totals,
                "decision": decision,
            }
        )

    @staticmethod
    def _scores(
        fwk: Framework, state: CycleState, pod: Pod, feasible: Sequence[NodeInfo]
    ) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
        if len(feasible) < 2 or not fwk.has_score_plugins():
            return {}, {}
        scratch = state.clone()
        if fwk.run_pre_score_plugins(scratch, pod, feasible) is not None:
            return {}, {}
        per_node: dict[str, dict[str, int]] = {ni.name: {} for ni in feasible}
        totals = dict.fromkeys(per_node, 0)
        for pl in fwk.score:
            name = pl.name()
            if name in scratch.skip_score_plugins:
                continue
            raw = [pl.score(scratch, pod, ni)[0] for ni in feasible]
            scores = [NodeScore(ni.name, v) for ni, v in zip(feasible, raw, strict=True)]
            ext = pl.score_extensions()
            if ext is not None:
                ext.normalize_score(scratch, pod, scores)
            weight = fwk.score_weights[name]
            for ns in scores:
                per_node[ns.name][name] = ns.score
                totals[ns.name] += ns.score * weight
        return per_node, totals

    def bind(self, pod: Pod, node: str, status: Status | None) -> None:
        self._emit(
            {
                "type": "bind",
                "pod": pod.key,
                "node": node,
                "result": "bound" if status is None else "failed",
                "message": "" if status is None else status.message(),
            }
        )
