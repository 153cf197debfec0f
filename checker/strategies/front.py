"""The front door: the public strategies ``nodes``, ``pods``, ``cluster_objects`` and
``clusters``."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import DrawFn, SearchStrategy

from schedspec.checker.strategies.boundary import (
    _at_the_boundary,
    _by_preemption,
    _free_capacity,
    _pods_allocatable_at_the_edge,
)
from schedspec.checker.strategies.kinds import (
    _namespace,
    _namespace_of,
    _pdb,
    _priority_classes,
    _selecting,
)
from schedspec.checker.strategies.node import _node
from schedspec.checker.strategies.pod import _pod
from schedspec.checker.strategies.pools import NAMESPACES, Obj
from schedspec.checker.strategies.primitives import _BYTES, _Choices
from schedspec.checker.strategies.validation import _check_name, _check_range
from schedspec.cluster import Cluster, from_objects


def _choices(draw: DrawFn) -> _Choices:
    return _Choices(draw(_BYTES))


@st.composite
def _one_node(draw: DrawFn, name: str) -> Obj:
    return _node(_choices(draw), name)


def nodes(*, name: str = "node-0") -> SearchStrategy[Obj]:
    """One Node manifest named ``name`` (its ``kubernetes.io/hostname`` label too): zone and
    region labels (sometimes missing), labels from ``LABEL_KEYS``, sometimes unschedulable,
    taints from the taint pools, allocatable cpu/memory/pods and sometimes ephemeral-storage and
    an extended resource, sometimes ``status.images``."""
    return _one_node(_check_name("name", name))


@st.composite
def _one_pod(draw: DrawFn, name: str, namespace: str | None, node_names: tuple[str, ...],
             bound: bool | None, priority_classes: tuple[str, ...],
             in_place_resize: bool) -> Obj:  # fmt: skip
    ch = _choices(draw)
    is_bound = bound if bound is not None else bool(node_names) and ch.chance(50)
    return _pod(
        ch,
        name,
        namespace or ch.one(NAMESPACES),
        node_names=node_names,
        node_name=ch.one(node_names) if is_bound else None,
        priority_classes=priority_classes,
        in_place_resize=in_place_resize,
    )


def pods(
    *,
    name: str = "pod-0",
    namespace: str | None = None,
    node_names: Sequence[str] = (),
    bound: bool | None = None,
    priority_classes: Sequence[str] = (),
    in_place_resize: bool = True,
) -> SearchStrategy[Obj]:
    """One Pod manifest named ``name`` (in ``namespace``, else one of ``NAMESPACES``).

    ``node_names`` are the nodes it may be bound to, nominated to or select by name; ``bound``
    forces it bound (needs ``node_names``) or pending, None lets Hypothesis choose.
    ``priority_classes`` are the PriorityClass names it may use (they must exist in the cluster
    it joins). Without cluster context there is no free-capacity bias; ``cluster_objects`` has it.
    """
    names = tuple(node_names)
    if bound and not names:
        raise InvalidArgument("bound=True needs node_names to bind the pod to")
    for n in names:
        _check_name("node_names[...]", n)
    return _one_pod(_check_name("name", name), namespace, names, bound,
                    tuple(priority_classes), in_place_resize)  # fmt: skip


@st.composite
def _cluster_objects(
    draw: DrawFn, nodes: tuple[int, int], pods: tuple[int, int], min_pending: int, extras: bool,
    in_place_resize: bool,
) -> list[Obj]:  # fmt: skip
    node_choices = [_choices(draw) for _ in range(draw(st.integers(*nodes)))]
    node_list = [_node(ch, f"node-{i}") for i, ch in enumerate(node_choices)]
    node_names = [n["metadata"]["name"] for n in node_list]
    ch = _choices(draw)
    classes = _priority_classes(ch) if extras else []
    class_names = [pc["metadata"]["name"] for pc in classes]
    pod_choices = [
        _choices(draw) for _ in range(draw(st.integers(max(pods[0], min_pending), pods[1])))
    ]
    pending_flags = [
        i < min_pending or not node_names or pch.chance(50) for i, pch in enumerate(pod_choices)
    ]
    bound: list[Obj] = []
    pending: list[Obj] = []
    free: dict[str, dict[str, int]] | None = None
    for i in sorted(range(len(pod_choices)), key=lambda i: pending_flags[i]):
        pch, is_pending = pod_choices[i], pending_flags[i]
        pod = _pod(
            pch,
            f"pod-{i}",
            pch.one(NAMESPACES),
            node_names=node_names,
            node_name=None if is_pending else pch.one(node_names),
            priority_classes=class_names,
            in_place_resize=in_place_resize,
        )
        (pending if is_pending else bound).append(pod)
        if is_pending and node_names and pch.chance(50):
            free = free or _free_capacity(node_list, bound)  # every bound pod is drawn by now
            if bound and pch.chance(50):
                by_name = {n["metadata"]["name"]: n for n in node_list}
                _by_preemption(pch, pod, free, bound, classes, by_name)
            else:
                _at_the_boundary(pch, pod, free)
    _pods_allocatable_at_the_edge(node_choices, node_list, bound)
    all_pods = [*bound, *pending]
    others = _others(ch, all_pods) if extras else []
    pdbs = _pdbs(ch, all_pods) if extras else []
    # the same choices as the other extras: a Hypothesis draw of its own made Hypothesis draw
    # fewer of the selectors the loader warns about (clusters with a warning, 6 seeds × 300:
    # mean 24 before, 15 with one more draw per cluster)
    selecting = _selecting(ch, all_pods) if extras else []
    return [*classes, *others, *node_list, *all_pods, *pdbs, *selecting]


def _others(ch: _Choices, all_pods: Sequence[Obj]) -> list[Obj]:
    """Namespace objects for some of the namespaces in use (the rest are implied)."""
    used = sorted({_namespace_of(p) for p in all_pods})
    return [_namespace(ch, ns) for ns in used if ch.chance(60)]


def _pdbs(ch: _Choices, all_pods: Sequence[Obj]) -> list[Obj]:
    if not all_pods or not ch.chance(40):
        return []
    out = []
    for i in range(ch.integer(1, 2)):
        namespace = ch.one(sorted({_namespace_of(p) for p in all_pods}))
        pods = [p for p in all_pods if _namespace_of(p) == namespace]
        out.append(_pdb(ch, f"pdb-{i}", namespace, pods))
    return out


def cluster_objects(
    *,
    min_nodes: int = 1,
    max_nodes: int = 5,
    min_pods: int = 1,
    max_pods: int = 8,
    min_pending: int = 1,
    extras: bool = True,
    in_place_resize: bool = True,
) -> SearchStrategy[list[Obj]]:
    """A list of manifests that ``from_objects`` loads: nodes ``node-0``…, pods ``pod-0``… (at
    least ``min_pending`` of them pending; the others bound to existing nodes or pending), and
    with ``extras`` PriorityClasses, Namespace objects, PodDisruptionBudgets, Services and pod
    controllers (ReplicaSets, StatefulSets, ReplicationControllers named by the pods' owner
    references).

    Pending pods are biased to request exactly a node's free capacity, or one unit more or less;
    nodes' ``pods`` allocatable to their pod count or one more. ``in_place_resize=False`` leaves
    out containers' resize statuses (``status.containerStatuses[].resources``)."""
    _check_range("min_nodes", min_nodes, "max_nodes", max_nodes)
    _check_range("min_pods", min_pods, "max_pods", max_pods)
    _check_range("min_pending", min_pending, "max_pods", max_pods)
    return _cluster_objects((min_nodes, max_nodes), (min_pods, max_pods), min_pending,
                            bool(extras), bool(in_place_resize))  # fmt: skip


def clusters(
    *,
    min_nodes: int = 1,
    max_nodes: int = 5,
    min_pods: int = 1,
    max_pods: int = 8,
    min_pending: int = 1,
    extras: bool = True,
    in_place_resize: bool = True,
) -> SearchStrategy[Cluster]:
    """``cluster_objects(...)`` loaded by ``schedspec.cluster.from_objects``: a ``Cluster``."""
    objects = cluster_objects(min_nodes=min_nodes, max_nodes=max_nodes, min_pods=min_pods,
                              max_pods=max_pods, min_pending=min_pending, extras=extras,
                              in_place_resize=in_place_resize)  # fmt: skip
    return objects.map(from_objects)
