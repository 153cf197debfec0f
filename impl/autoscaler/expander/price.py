"""The price expander (``expander/price/price.go``, ``preferred.go``), impl only: its formula
needs a pricing model and ``tanh``, which the spec does not model.

Pricing model (upstream asks the cloud provider's; ``gce_price_model.go``'s rates here):

- a node costs its group's ``price`` per hour (``--price NAME=PRICE``, ``NodeGroup.price``);
- a pod costs 0.033174 per vCPU-hour + 0.004446 per GiB-hour of its regular containers'
  requests (GCE's on-demand rates; GPUs and other resources cost nothing);
- the stabilisation pod, 500m / 500MiB, is priced the same.

An option's score, over one hour (lowest wins, equal scores are all kept)::

    preferred     = the preferred node for the cluster's size (table below)
    unfitness     = max(preferred cpu / node cpu, node cpu / preferred cpu)   (capacity, milli)
    suppressed    = (unfitness − 1) · (1 − tanh((count − 1) / 15)) + 1,  or 1000 with a GPU
    price_score   = (node price · count + stab) / (Σ pod prices + stab)
    score         = suppressed · price_score       (× 2 for a group that does not exist: never
                                                    here, every group exists)

Preferred node (``SimplePreferredNodeProvider``), by the number of nodes in the cluster: ≤ 2 →
1 cpu, ≤ 6 → 2, ≤ 20 → 4, ≤ 60 → 8, ≤ 200 → 16, else 32 (memory is not used by the score).
An option whose group has no price, or whose template has no cpu, is dropped (upstream skips an
option whose price fails); if no option has a price the expander keeps them all (upstream
refuses to start without a pricing model: **declared**).
"""

from __future__ import annotations

import math

from schedspec.impl.api.resources import resource_list
from schedspec.impl.autoscaler import podutil
from schedspec.impl.autoscaler.expander.option import ExpansionContext, Option

__all__ = ["NAME", "best_options", "preferred_cpu", "score"]

NAME = "price"
CPU_PRICE_PER_HOUR = 0.033174  # per vCPU
MEMORY_PRICE_PER_HOUR = 0.004446  # per GiB
GPU_UNFITNESS = 1000.0
GPU = "nvidia.com/gpu"
_PREFERRED_CPU = ((2, 1000), (6, 2000), (20, 4000), (60, 8000), (200, 16000))


def preferred_cpu(cluster_nodes: int) -> int:
    """The preferred node's cpu (millicores) for a cluster of ``cluster_nodes`` nodes."""
    return next((cpu for size, cpu in _PREFERRED_CPU if cluster_nodes <= size), 32000)


def pod_price(milli_cpu: int, memory_bytes: int) -> float:
    return (
        milli_cpu / 1000 * CPU_PRICE_PER_HOUR + memory_bytes / podutil.GIB * MEMORY_PRICE_PER_HOUR
    )


STABILIZATION_PRICE = pod_price(500, 500 << 20)


def _has_gpu(option: Option) -> bool:
    status = option.group.template.get("status") or {}
    alloc = resource_list(status.get("allocatable") or status.get("capacity"))
    return alloc.get(GPU, 0) > 0


def score(option: Option, ctx: ExpansionContext) -> float | None:
    """The option's score; None if it cannot be priced."""
    node_cpu = podutil.capacity(option.group.template).get("cpu", 0)
    if option.group.price is None or node_cpu <= 0:
        return None
    preferred = preferred_cpu(ctx.cluster_nodes)
    unfitness = max(preferred / node_cpu, node_cpu / preferred)
    suppressed = (unfitness - 1.0) * (1.0 - math.tanh((option.node_count - 1) / 15.0)) + 1.0
    if _has_gpu(option):
        suppressed = GPU_UNFITNESS
    pods = sum(pod_price(r.get("cpu", 0), r.get("memory", 0)) for r in option.requests)
    nodes = float(option.group.price) * option.node_count
    return suppressed * (nodes + STABILIZATION_PRICE) / (pods + STABILIZATION_PRICE)


def best_options(options: list[Option], ctx: ExpansionContext) -> list[Option]:
    scored = [(o, s) for o in options if (s := score(o, ctx)) is not None]
    if not scored:
        return list(options)
    least = min(s for _, s in scored)
    return [o for o, s in scored if s == least]
