"""Per-node answers kept from one cycle to the next for pods that ask the same question.

impl's own optimisation, not upstream's framework (kube-scheduler had an "equivalence cache" of
predicate results per equivalence class of pods until v1.12; v1.34 has none and runs Filter and
Score on every node on 16 goroutines). Here, in one thread, a cycle for a pod shaped like the
previous pods would repeat, for every node whose pods and Node object did not change, the
same Filter verdicts and the same raw Score values. So:

- A Filter plugin may declare itself **node-local** (``NodeLocalFilter``): its verdict on a
  node is a function of ``filter_signature(state, pod)`` and that node's ``NodeInfo`` alone —
  not of the other nodes, not of anything else in the pod or the cycle state. When *every*
  Filter plugin not skipped at PreFilter is node-local, the scheduler's filter loop keeps each
  node's verdict (None, or the rejecting plugin's Status) on the ``NodeInfo``
  (``NodeInfo.derived``) under ``FilterKey``: the plugins themselves and their signatures.
- A ``BatchScorer`` whose raw score is likewise a function of its cycle's plan and the node
  keeps each node's raw score the same way (``scores_kept``); normalisation and weights are
  applied afresh every cycle.

Why a verdict kept cannot differ from one made afresh: ``NodeInfo.derived`` is emptied whenever
the node's pods or its Node object change (``add_pod``, ``remove_pod``, ``set_node``), and the
snapshot replaces a changed NodeInfo by a fresh clone (whose ``derived`` starts empty); the key
holds the plugin instances (a profile's own arguments) and everything of the pod their answer
reads. Nodes with nominated pods are filtered as before (two passes), never from here.
``tests/impl/framework/test_equivalence.py`` compares kept and fresh answers through binds,
deletions and node updates.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from schedspec.impl.framework.types import NodeInfo

__all__ = ["KEEP", "KEEP_LIMIT", "FilterKey", "intern_key", "keep", "scores_kept"]

KEEP = True
"""Off, every cycle filters and scores every node afresh: the tests and ``bench/impl_speed.py``
compare the two ways on the same runs."""
KEEP_LIMIT = 64
"""Entries a NodeInfo keeps in ``derived`` before it is emptied (many pod shapes in turn)."""

_interned: dict[Hashable, object] = {}
_INTERN_LIMIT = 4096


def intern_key(signature: Hashable) -> object:
    """A key equal only to itself standing for ``signature``: hashed by identity, so a
    lookup per node costs no hashing of the signature. Equal signatures get the same key
    while the table holds it (emptied past ``_INTERN_LIMIT``: a key made afresh then only
    misses what the old one kept — entries under the old key stay unreachable until the
    node changes)."""
    key = _interned.get(signature)
    if key is None:
        if len(_interned) >= _INTERN_LIMIT:
            _interned.clear()
        key = _interned[signature] = FilterKey(signature)
    return key


class FilterKey:
    """An interned signature (``intern_key``); its repr shows what it stands for."""

    __slots__ = ("signature",)

    def __init__(self, signature: Hashable) -> None:
        self.signature = signature

    def __repr__(self) -> str:
        return f"FilterKey({self.signature!r})"


def keep(node_info: NodeInfo, key: object, value: Any) -> None:
    """Keep ``value`` on the node under ``key`` (see ``KEEP_LIMIT``)."""
    derived = node_info.derived
    if len(derived) >= KEEP_LIMIT:
        derived.clear()
    derived[key] = value


def scores_kept(
    nodes: Sequence[NodeInfo],
    signature: Hashable,
    score_nodes: Callable[[Sequence[NodeInfo]], list[int]],
) -> list[int]:
    """``score_nodes(nodes)``, with each node's value kept under ``signature`` (which must
    name the plugin instance and everything of the cycle its score reads): only the nodes
    without a kept value are scored."""
    if not KEEP:
        return score_nodes(nodes)
    key = intern_key(signature)
    out: list[int | None] = [ni.derived.get(key) for ni in nodes]
    missing = [i for i, value in enumerate(out) if value is None]
    if missing:
        fresh = score_nodes([nodes[i] for i in missing])
        for i, value in zip(missing, fresh, strict=True):
            out[i] = value
            keep(nodes[i], key, value)
    return out  # type: ignore[return-value]  # every None was filled
