"""The binpacking estimator: counts, the pod order, the empty-last-node rule and the limiter
(docs/autoscaler.md, scale-up step 4)."""

from __future__ import annotations

from ca_builders import autoscaling, cluster, group, node, pod, run, template

from schedspec.impl.autoscaler.context import AutoscalingContext
from schedspec.impl.autoscaler.estimator import EstimationLimiter, estimate

NEW = "template-node-for-g"


def test_five_600m_pods_fill_two_2cpu_nodes() -> None:
    # 3 × 600m = 1800m ≤ 2000m on the first copy; the 4th opens a second
    up = run([pod(f"p{i}", "600m") for i in range(5)], group("g")).scale_up
    est = up.groups["g"].estimate
    assert est is not None
    assert est.node_count == 2
    assert [est.placements[f"default/p{i}"] for i in range(5)] == [f"{NEW}-1"] * 3 + [
        f"{NEW}-2"
    ] * 2
    assert up.plan == {"g": (0, 2)}


def test_biggest_pods_relative_to_the_template_go_first() -> None:
    # scores on 2 cpu / 4 GiB: big 1.5/2 = .75, mid .5, small .25 (no memory requested)
    objects = [pod("small", "500m"), pod("big", "1500m"), pod("mid", "1")]
    est = run(objects, group("g")).scale_up.groups["g"].estimate
    assert est is not None
    assert est.pods == ("default/big", "default/mid", "default/small")
    assert est.placements == {
        "default/big": f"{NEW}-1",
        "default/mid": f"{NEW}-2",
        "default/small": f"{NEW}-1",  # 1500m + 500m fits the first copy exactly
    }


def test_memory_counts_in_the_order_too() -> None:
    # cpu-light but memory-heavy: 100m/2 + 3Gi/4Gi = .8 beats 1500m/2 = .75
    objects = [pod("cpu", "1500m"), pod("mem", "100m", "3Gi")]
    est = run(objects, group("g")).scale_up.groups["g"].estimate
    assert est is not None and est.pods[0] == "default/mem"


def test_limiter_stops_at_the_groups_headroom() -> None:
    objects = [pod(f"p{i}", "1500m") for i in range(5)]
    up = run(objects, group("g", nodes=(), target=1, max_size=3)).scale_up
    est = up.groups["g"].estimate
    assert est is not None and est.node_count == 2
    assert est.pods == ("default/p0", "default/p1")


def test_limiter_stops_at_max_nodes_total() -> None:
    objects = [node("n1", "1"), *(pod(f"p{i}", "1500m") for i in range(3))]
    up = run(objects, group("g", nodes=("n1",)), max_nodes_total=2).scale_up
    est = up.groups["g"].estimate
    assert est is not None and est.node_count == 1
    assert up.plan == {"g": (1, 2)}


ANTI = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}
        ]
    }
}


def test_a_pod_failing_on_a_fresh_copy_opens_no_more_copies() -> None:
    # every copy is in zone z: a2 fails on the fresh copy -2 (anti-affinity with a1), which
    # stays empty; a3 is skipped without asking the limiter; b then fits the empty copy -2
    objects = [
        *(pod(f"a{i}", "1500m", labels={"app": "x"}, spec={"affinity": ANTI}) for i in (1, 2, 3)),
        pod("b", "1"),
    ]
    g = group("g", tmpl=template("g", labels={"zone": "z"}))
    ctx = AutoscalingContext(cluster(*objects), autoscaling(g), None)
    world = ctx.world()
    pods = [ctx.typed(o) for o in ctx.cluster.pending_pods()]
    limiter = EstimationLimiter(group_headroom=10, max_nodes_total=0, cluster_nodes=0)
    est = estimate(ctx, world, g, pods, limiter)
    assert est.node_count == 2
    assert est.placements == {"default/a1": f"{NEW}-1", "default/b": f"{NEW}-2"}
    assert limiter.added == 2
