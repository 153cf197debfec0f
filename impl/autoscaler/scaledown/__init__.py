"""Scale-down: which nodes could go (``core/scaledown``): ``eligibility`` (utilization and the
node-level checks), ``drainability`` (the per-pod rules), ``pdb`` (the disruption budgets left)
and ``planner`` (the cumulative removal simulation and the min-size check)."""

from schedspec.impl.autoscaler.scaledown.planner import scale_down

__all__ = ["scale_down"]
