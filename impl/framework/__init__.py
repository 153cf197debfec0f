"""The scheduling framework: extension-point protocols, Status, CycleState, NodeInfo, the
registry, profiles from KubeSchedulerConfiguration, and the runtime that runs plugins.

Modules: ``interface`` (one Protocol per extension point, ``Handle``), ``status``,
``cycle_state``, ``types`` (PodInfo, NodeInfo, FitError …), ``registry``, ``config``
(KubeSchedulerConfiguration v1), ``args`` (plugin args helpers), ``runtime`` (``Framework``),
``helpers`` (normalization, tolerations), ``declared`` (what does not run, and why).
"""

from schedspec.impl.framework.cycle_state import CycleState, StateData
from schedspec.impl.framework.interface import (
    BindPlugin,
    FilterPlugin,
    Handle,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from schedspec.impl.framework.status import Code, Status
from schedspec.impl.framework.types import (
    MAX_NODE_SCORE,
    FitError,
    NodeInfo,
    NodeScore,
    PodInfo,
    PreFilterResult,
    QueuedPodInfo,
)

__all__ = [
    "MAX_NODE_SCORE",
    "BindPlugin",
    "Code",
    "CycleState",
    "FilterPlugin",
    "FitError",
    "Handle",
    "NodeInfo",
    "NodeScore",
    "PermitPlugin",
    "Plugin",
    "PodInfo",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
    "StateData",
    "Status",
]
