"""InterPodAffinity's PreFilter counts and PreScore topology scores, kept from one cycle to the
next.

Upstream (``interpodaffinity/filtering.go`` ``getExistingAntiAffinityCounts``,
``getIncomingAffinityAntiAffinityCounts``; ``scoring.go`` ``PreScore``/``processExistingPod``;
v1.34) walks every existing pod of every node each cycle, on 16 goroutines. Both results are sums
over nodes of what one node's pods contribute, and a node's contribution depends only on its
pods, its labels and the incoming pod's *question*: its namespace, labels, its namespace's
labels and its own terms (namespaces resolved). So per question the sums are kept, and each
cycle only the nodes the snapshot replaced since (``Snapshot.changed_since``) are taken out
and counted again. A node's contribution is a list of ``(entry, amount)``; an entry is present
in a sum exactly when some node contributed to it, as in a full walk. Entries are
``(group, item)``, the sums kept as group → item → sum: the plugin copies a group in one call.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Protocol, runtime_checkable

from schedspec.impl.api import Pod
from schedspec.impl.framework.types import AffinityTerm, NodeInfo, PodInfo

__all__ = [
    "ChangeLog",
    "NodeSums",
    "Share",
    "filter_share",
    "score_share",
    "term_key",
]

Share = list[tuple[tuple[Hashable, Hashable], int]]  # ((group, item), amount)


@runtime_checkable
class ChangeLog(Protocol):
    """A snapshot that says which NodeInfos it replaced (``impl.cache.Snapshot``)."""

    generation: int

    def list(self) -> Iterable[NodeInfo]: ...

    def get(self, node_name: str) -> NodeInfo | None: ...

    def changed_since(self, generation: int) -> set[str] | None: ...


def term_key(term: AffinityTerm) -> Hashable:
    """Equal for terms that match the same pods in the same domains."""
    return (term.namespaces, term.selector.key, term.namespace_selector.key, term.topology_key)


def _label(node_labels: Mapping[str, str], key: str) -> tuple[str, str] | None:
    value = node_labels.get(key)
    return None if value is None else (key, value)


def filter_share(info: PodInfo, ns_labels: Mapping[str, str]) -> Callable[[NodeInfo], Share]:
    """One node's part of PreFilter's three counts: ``("x", pair)`` an existing pod's required
    anti-affinity term matching the incoming pod; ``("a", pair)`` an existing pod matching all
    the incoming pod's affinity terms (once per term); ``("n", pair)`` one matching one of its
    anti-affinity terms."""
    pod = info.pod
    affinity, anti = info.required_affinity_terms, info.required_anti_affinity_terms
    own_terms = bool(affinity or anti)

    def share(ni: NodeInfo) -> Share:
        node = ni.node
        out: Share = []
        if node is None:
            return out
        labels = node.labels
        for existing in ni.pods_with_required_anti_affinity:
            for term in existing.required_anti_affinity_terms:
                if term.matches(pod, ns_labels):
                    pair = _label(labels, term.topology_key)
                    if pair is not None:
                        out.append((("x", pair), 1))
        if own_terms:
            for other in ni.pods:
                existing_pod = other.pod
                if affinity and all(t.matches(existing_pod, None) for t in affinity):
                    for term in affinity:
                        pair = _label(labels, term.topology_key)
                        if pair is not None:
                            out.append((("a", pair), 1))
                for term in anti:
                    if term.matches(existing_pod, None):
                        pair = _label(labels, term.topology_key)
                        if pair is not None:
                            out.append((("n", pair), 1))
        return out

    return share


def score_share(
    info: PodInfo, ns_labels: Mapping[str, str], hard_weight: int, every_pod: bool
) -> Callable[[NodeInfo], Share]:
    """One node's part of PreScore's topology score (``processExistingPod`` over the node's
    pods, or its pods with affinity): ``(pair, ±weight)`` per matching term."""
    pod = info.pod

    def share(ni: NodeInfo) -> Share:
        node = ni.node
        out: Share = []
        if node is None or not node.labels:
            return out
        labels = node.labels

        def add(term: AffinityTerm, weight: int, target: Pod, ns: Mapping[str, str] | None) -> None:
            if term.matches(target, ns):
                pair = _label(labels, term.topology_key)
                if pair is not None:
                    out.append((pair, weight))

        for existing in ni.pods if every_pod else ni.pods_with_affinity:
            for w in info.preferred_affinity_terms:
                add(w.term, w.weight, existing.pod, None)
            for w in info.preferred_anti_affinity_terms:
                add(w.term, -w.weight, existing.pod, None)
            if hard_weight > 0:
                for t in existing.required_affinity_terms:
                    add(t, hard_weight, pod, ns_labels)
            for w in existing.preferred_affinity_terms:
                add(w.term, w.weight, pod, ns_labels)
            for w in existing.preferred_anti_affinity_terms:
                add(w.term, -w.weight, pod, ns_labels)
        return out

    return share


class _Sum:
    """group → item → sum, an item present while some node contributes to it."""

    __slots__ = ("contributions", "generation", "share", "values")

    def __init__(self) -> None:
        self.values: dict[Hashable, dict[Hashable, int]] = {}
        self.contributions: dict[Hashable, dict[Hashable, int]] = {}
        self.share: dict[str, Share] = {}
        self.generation = -1

    def add(self, name: str, share: Share, sign: int) -> None:
        if not share:
            return
        if sign > 0:
            self.share[name] = share
        values, contributions = self.values, self.contributions
        for (group, item), amount in share:
            by_item = values.get(group)
            if by_item is None:
                by_item = values[group] = {}
                contributions[group] = {}
            count = contributions[group]
            left = count.get(item, 0) + sign
            if left == 0:
                del count[item], by_item[item]
                if not by_item:
                    del values[group], contributions[group]
            else:
                count[item] = left
                by_item[item] = by_item.get(item, 0) + sign * amount


class NodeSums:
    """The sums of the questions asked lately (at most ``limit``), by question."""

    def __init__(self, limit: int = 16) -> None:
        self._sums: dict[Hashable, _Sum] = {}
        self._limit = limit

    def totals(
        self, question: Hashable, snapshot: ChangeLog, share_of: Callable[[NodeInfo], Share]
    ) -> dict[Hashable, dict[Hashable, int]]:
        """group → item → sum over ``snapshot``'s nodes (read only: it is kept)."""
        kept = self._sums.get(question)
        changed = None if kept is None else snapshot.changed_since(kept.generation)
        if kept is None or changed is None:
            kept = _Sum()
            for ni in snapshot.list():
                kept.add(ni.name, share_of(ni), 1)
        else:
            for name in changed:
                kept.add(name, kept.share.pop(name, []), -1)
                fresh = snapshot.get(name)
                if fresh is not None:
                    kept.add(name, share_of(fresh), 1)
        kept.generation = snapshot.generation
        if question not in self._sums and len(self._sums) >= self._limit:
            self._sums.clear()
        self._sums[question] = kept
        return kept.values
