"""Shared plugin helpers: ``DefaultNormalizeScore`` (``plugins/helper/normalize_score.go``),
Go's truncating integer division, and toleration matching (component-helpers v0.34.0
``scheduling/corev1/helpers.go`` and k8s.io/api ``core/v1/toleration.go``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from schedspec.impl.api import Taint, Toleration
from schedspec.impl.framework.types import NodeScore

__all__ = [
    "DO_NOT_SCHEDULE_EFFECTS",
    "default_normalize_score",
    "find_untolerated_taint",
    "go_div",
    "normalized_image_name",
    "tolerates",
    "tolerations_tolerate_taint",
]

DO_NOT_SCHEDULE_EFFECTS = ("NoSchedule", "NoExecute")


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``/`` on ints."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def default_normalize_score(max_priority: int, reverse: bool, scores: Sequence[NodeScore]) -> None:
    """Scale to ``[0, max_priority]`` by the maximum; ``reverse`` flips (max 0 → all max)."""
    top = max((s.score for s in scores), default=0)
    top = max(top, 0)
    if top == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        value = go_div(max_priority * s.score, top)
        s.score = max_priority - value if reverse else value


def tolerates(t: Toleration, taint: Taint) -> bool:
    """``Toleration.ToleratesTaint``: empty effect/key match all; "" operator is Equal."""
    if t.effect and t.effect != taint.effect:
        return False
    if t.key and t.key != taint.key:
        return False
    if t.operator in ("", "Equal"):
        return t.value == taint.value
    return t.operator == "Exists"


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    return any(tolerates(t, taint) for t in tolerations)


def find_untolerated_taint(
    taints: Iterable[Taint], tolerations: Sequence[Toleration], effects: Sequence[str]
) -> Taint | None:
    """The first taint with an effect in ``effects`` that no toleration tolerates."""
    for taint in taints:
        if taint.effect in effects and not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


def normalized_image_name(name: str) -> str:
    """``name:latest`` when ``name`` has no tag (and no digest): ``normalizedImageName``."""
    return name + ":latest" if name.rfind(":") <= name.rfind("/") else name
