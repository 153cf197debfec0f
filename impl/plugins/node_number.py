"""NodeNumber: the "write your own plugin" example (seed 002, after sanposhiho's
mini-kube-scheduler); not part of the default profile.

- Score: 10 when the last character of the pod's name and of the node's name are the same digit,
  else 0. PreScore parses the pod's digit once and leaves it in the CycleState.
- Permit: holds the pod for as many seconds as the node's last digit, then allows it through the
  handle (timeout 10 s); a node whose name does not end in a digit is approved at once.

Enable it with a KubeSchedulerConfiguration (see docs/writing-a-plugin.md)::

    profiles:
    - plugins:
        multiPoint:
          enabled:
          - name: NodeNumber
            weight: 1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schedspec.impl.api import Pod
from schedspec.impl.framework.args import check_fields
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.interface import Handle
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import NodeInfo

__all__ = ["MATCH_SCORE", "NAME", "NodeNumber", "last_digit", "score"]

NAME = "NodeNumber"
MATCH_SCORE = 10
PERMIT_TIMEOUT = 10.0


def last_digit(name: str) -> int | None:
    return int(name[-1]) if name and name[-1].isdigit() else None


def score(pod_name: str, node_name: str) -> int:
    """10 when both names end in the same digit, else 0."""
    digit = last_digit(pod_name)
    return MATCH_SCORE if digit is not None and digit == last_digit(node_name) else 0


class _PreScoreState:
    __slots__ = ("pod_digit",)

    def __init__(self, pod_digit: int | None) -> None:
        self.pod_digit = pod_digit

    def clone(self) -> _PreScoreState:
        return self


_STATE_KEY = "PreScore" + NAME


class NodeNumber:
    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def name(self) -> str:
        return NAME

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(_STATE_KEY, _PreScoreState(last_digit(pod.name)))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.read_as(_STATE_KEY, _PreScoreState)
        digit = s.pod_digit if s else last_digit(pod.name)
        if digit is None or digit != last_digit(node_info.name):
            return 0, None
        return MATCH_SCORE, None

    def score_extensions(self) -> None:
        return None

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        digit = last_digit(node_name)
        if digit is None:
            return None, 0.0
        handle = self._handle

        def allow() -> None:
            waiting = handle.get_waiting_pod(pod.uid)
            if waiting is not None:
                waiting.allow(NAME)

        handle.clock().after(float(digit), allow)
        return Status(Code.WAIT), PERMIT_TIMEOUT

    @staticmethod
    def new(args: Mapping[str, Any], handle: Handle) -> NodeNumber:
        check_fields(args, "NodeNumberArgs", ())
        return NodeNumber(handle)
