"""The scheduling queue (a simple one for now; the real one is the next issue)."""

from schedspec.impl.queue.fifo import SchedulingQueue

__all__ = ["SchedulingQueue"]
