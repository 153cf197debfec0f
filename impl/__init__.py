"""The operational scheduler, built the way kube-scheduler is built; it never imports
schedspec.spec.

Packages and modules: ``api`` (typed objects), ``framework`` (extension points, Status,
CycleState, NodeInfo, registry, profiles, runtime), ``plugins`` (the default plugins and the
NodeNumber example), ``cache`` (cache, node tree, snapshot), ``queue``, ``scheduler`` (the
scheduling and binding cycles), ``apiserver`` and ``loop`` (the simulated API server and the
virtual-time event loop), ``simulate`` (run a cluster to quiescence), ``report`` (the CLI
command).
"""

from schedspec.impl.simulate import ScheduleResult, Unschedulable, simulate

__all__ = ["ScheduleResult", "Unschedulable", "simulate"]
