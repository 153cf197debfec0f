"""``Status``: the result of a plugin at an extension point (kube-scheduler ``fwk.Status``).

As in Go, success is usually ``None`` (Go's nil ``*Status``); a ``Status`` carries a ``Code``,
the reasons (shown to users, e.g. ``"Insufficient cpu"``) and the plugin that produced it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = ["Code", "Status", "is_success", "message_of"]


class Code(IntEnum):
    """The codes of ``k8s.io/kube-scheduler/framework`` (same order, same meaning)."""

    SUCCESS = 0
    ERROR = 1  # internal error; the pod is retried after backoff
    UNSCHEDULABLE = 2  # the pod does not fit; preemption may help
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3  # preemption cannot help on this node
    WAIT = 4  # Permit only: the pod waits for approval
    SKIP = 5  # PreFilter/PreScore: skip this plugin's Filter/Score; Bind: try the next binder
    PENDING = 6  # the pod waits for something outside the scheduler


_NAMES = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


@dataclass(frozen=True, slots=True)
class Status:
    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @staticmethod
    def new(code: Code, *reasons: str) -> Status:
        return Status(code, reasons)

    def with_plugin(self, plugin: str) -> Status:
        # a plain constructor call: this runs for every node a filter rejects
        return self if self.plugin == plugin else Status(self.code, self.reasons, plugin)

    def message(self) -> str:
        """The reasons joined by ``", "`` (``Status.Message``)."""
        return ", ".join(self.reasons)

    @property
    def code_name(self) -> str:
        return _NAMES[self.code]

    def is_success(self) -> bool:
        return self.code is Code.SUCCESS

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending (``IsRejected``)."""
        return self.code in (
            Code.UNSCHEDULABLE,
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            Code.PENDING,
        )

    def __str__(self) -> str:
        where = f" ({self.plugin})" if self.plugin else ""
        return f"{self.code_name}{where}: {self.message()}"


def is_success(status: Status | None) -> bool:
    """None (Go's nil) or a Success status."""
    return status is None or status.code is Code.SUCCESS


def message_of(status: Status | None) -> str:
    return "" if status is None else status.message()
