"""The scheduling queue (``pkg/scheduler/backend/queue``): activeQ, backoffQ and unschedulable
pods, QueueingHints, in-flight events, in virtual time. See ``scheduling_queue``."""

from schedspec.impl.queue.scheduling_queue import (
    ACTIVE_Q,
    BACKOFF_Q,
    IN_FLIGHT,
    UNSCHEDULABLE_PODS,
    HintRegistration,
    PodNominator,
    QueueingStrategy,
    SchedulingQueue,
)

__all__ = [
    "ACTIVE_Q",
    "BACKOFF_Q",
    "IN_FLIGHT",
    "UNSCHEDULABLE_PODS",
    "HintRegistration",
    "PodNominator",
    "QueueingStrategy",
    "SchedulingQueue",
]
