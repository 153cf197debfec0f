"""Which pods a node's removal would move, and which pod blocks it.

Mirrors ``simulator/drain.go`` (``GetPodsToMove``) and ``simulator/drainability/rules``
(``rules.Default``), in upstream order; the first rule with an outcome decides:

======================  ===============================================  =====================
rule                    when                                             outcome
======================  ===============================================  =====================
mirror                  ``kubernetes.io/config.mirror`` annotation       skipped
longterminating         ``deletionTimestamp + grace + 30 s`` < now       skipped
daemonset               controller of kind DaemonSet                     stays on the node
safetoevict             ``safe-to-evict: "true"``                        moves
replicated              no controller (with ``--skip-nodes-with-         NotReplicated
                        custom-controller-pods``: none of RC/RS/Job/SS)
system                  in kube-system, no matching PDB                  UnmovableKubeSystemPod
notsafetoevict          ``safe-to-evict: "false"``                       NotSafeToEvictAnnotation
localstorage            hostPath / non-memory emptyDir not listed in     LocalStorageRequested
                        ``safe-to-evict-local-volumes``
pdb                     a matching PDB with < 1 disruption left          NotEnoughPdb
(none)                                                                   moves
======================  ===============================================  =====================

``system`` and ``localstorage`` run only with ``--skip-nodes-with-system-pods`` /
``--skip-nodes-with-local-storage`` (both default true). ``replicacount`` needs the controller
objects and ``terminal`` pods are not in the snapshot: both declared out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schedspec.autoscaling import AutoscalingOptions
from schedspec.impl.api import Pod
from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.scaledown.pdb import RemainingPdbTracker

__all__ = [
    "LOCAL_STORAGE_REQUESTED",
    "NOT_ENOUGH_PDB",
    "NOT_REPLICATED",
    "NOT_SAFE_TO_EVICT_ANNOTATION",
    "UNMOVABLE_KUBE_SYSTEM_POD",
    "BlockingPod",
    "DrainResult",
    "get_pods_to_move",
]

NOT_REPLICATED = "NotReplicated"
LOCAL_STORAGE_REQUESTED = "LocalStorageRequested"
NOT_SAFE_TO_EVICT_ANNOTATION = "NotSafeToEvictAnnotation"
UNMOVABLE_KUBE_SYSTEM_POD = "UnmovableKubeSystemPod"
NOT_ENOUGH_PDB = "NotEnoughPdb"

_REPLICATED_KINDS = frozenset({"ReplicationController", "ReplicaSet", "Job", "StatefulSet"})
_SKIP, _STAY, _MOVE = "skip", "stay", "move"

Obj = Mapping[str, Any]


@dataclass(frozen=True)
class BlockingPod:
    pod: str
    reason: str  # a BlockingPodReason name
    message: str


@dataclass(frozen=True)
class DrainResult:
    pods_to_move: tuple[Pod, ...] = ()
    daemonset_pods: tuple[Pod, ...] = ()
    blocking: BlockingPod | None = None


@dataclass(frozen=True)
class _Ctx:
    options: AutoscalingOptions
    pdbs: RemainingPdbTracker
    now: float


_Outcome = str | BlockingPod | None
_Rule = Callable[[_Ctx, Pod, Obj], _Outcome]


def _mirror(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    return _SKIP if podutil.is_mirror_pod(obj) else None


def _long_terminating(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    return _SKIP if podutil.is_long_terminating(obj, ctx.now) else None


def _daemonset(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    return _STAY if podutil.is_daemonset_pod(obj) else None


def _safe_to_evict(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    return _MOVE if podutil.annotations_of(obj).get(podutil.SAFE_TO_EVICT) == "true" else None


def _replicated(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    ref = podutil.controller_ref(obj)
    replicated = ref is not None
    if replicated and ctx.options.skip_nodes_with_custom_controller_pods:
        replicated = ref is not None and ref.get("kind") in _REPLICATED_KINDS
    if replicated:
        return None
    return BlockingPod(pod.key, NOT_REPLICATED, f"{pod.key} is not replicated")


def _system(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    if pod.namespace != "kube-system" or ctx.pdbs.has_matching(pod):
        return None
    message = f"non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: {pod.name}"
    return BlockingPod(pod.key, UNMOVABLE_KUBE_SYSTEM_POD, message)


def _not_safe_to_evict(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    if podutil.annotations_of(obj).get(podutil.SAFE_TO_EVICT) != "false":
        return None
    message = f"pod annotated as not safe to evict present: {pod.name}"
    return BlockingPod(pod.key, NOT_SAFE_TO_EVICT_ANNOTATION, message)


def has_blocking_local_storage(obj: Obj) -> bool:
    """A hostPath or non-memory emptyDir volume not named in ``safe-to-evict-local-volumes``
    (split on ",", no trimming: ``HasBlockingLocalStorage``)."""
    listed = podutil.annotations_of(obj).get(podutil.SAFE_TO_EVICT_LOCAL_VOLUMES, "")
    safe = set(listed.split(",")) if listed else set()
    for volume in (obj.get("spec") or {}).get("volumes") or ():
        empty_dir = volume.get("emptyDir")
        local = "hostPath" in volume or (
            empty_dir is not None and (empty_dir or {}).get("medium") != "Memory"
        )
        if local and volume.get("name") not in safe:
            return True
    return False


def _local_storage(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    if not has_blocking_local_storage(obj):
        return None
    return BlockingPod(
        pod.key, LOCAL_STORAGE_REQUESTED, f"pod with local storage present: {pod.name}"
    )


def _pdb(ctx: _Ctx, pod: Pod, obj: Obj) -> _Outcome:
    if ctx.pdbs.can_disrupt(pod):
        return None
    message = f"not enough pod disruption budget to move {pod.key}"
    return BlockingPod(pod.key, NOT_ENOUGH_PDB, message)


def rules(options: AutoscalingOptions) -> list[_Rule]:
    """``rules.Default``: the rules the flags switch on, in upstream order."""
    out: list[_Rule] = [_mirror, _long_terminating, _daemonset, _safe_to_evict, _replicated]
    if options.skip_nodes_with_system_pods:
        out.append(_system)
    out.append(_not_safe_to_evict)
    if options.skip_nodes_with_local_storage:
        out.append(_local_storage)
    out.append(_pdb)
    return out


def _by_key(pod: Pod) -> tuple[str, str]:
    return pod.namespace, pod.name


def get_pods_to_move(
    pods: Sequence[Pod],
    raw_of: Callable[[Pod], Obj],
    options: AutoscalingOptions,
    pdbs: RemainingPdbTracker,
    now: float,
) -> DrainResult:
    """The node's pods, in namespace/name order, through the rules; the first blocking pod
    stops."""
    ctx = _Ctx(options, pdbs, now)
    chain = rules(options)
    move: list[Pod] = []
    stay: list[Pod] = []
    for pod in sorted(pods, key=_by_key):
        obj = raw_of(pod)
        outcome = next((o for rule in chain if (o := rule(ctx, pod, obj)) is not None), _MOVE)
        if isinstance(outcome, BlockingPod):
            return DrainResult(blocking=outcome)
        if outcome == _MOVE:
            move.append(pod)
        elif outcome == _STAY:
            stay.append(pod)
    return DrainResult(tuple(move), tuple(stay))
