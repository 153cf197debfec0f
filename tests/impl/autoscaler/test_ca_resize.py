"""The cluster after the plan: impl's scheduler places the pods CA scaled up for, and the pods of
removed nodes elsewhere."""

from __future__ import annotations

from ca_builders import autoscaling, cluster, group, node, pod

from schedspec.impl import simulate
from schedspec.impl.autoscaler import grown_cluster, run_once, shrunk_cluster


def test_grown_cluster_schedules_the_pods_that_triggered_the_scale_up() -> None:
    ds = pod("agent", "100m", owner="DaemonSet")
    g = group("g", nodes=("n1",), template_pods=(ds,))
    c = cluster(node("n1", "1"), *(pod(f"p{i}", "1500m") for i in range(3)))
    a = autoscaling(g)
    result = run_once(c, a)
    assert result.scale_up.plan == {"g": (1, 4)}
    grown = grown_cluster(c, a, result)
    new = [n["metadata"]["name"] for n in grown.nodes if n["metadata"]["name"] != "n1"]
    assert new == [f"template-node-for-g-{i}" for i in (1, 2, 3)]
    assert all(n["metadata"]["labels"]["kubernetes.io/hostname"] == n["metadata"]["name"]
               for n in grown.nodes)  # fmt: skip
    agents = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in grown.bound_pods()}
    assert agents == {
        f"agent-template-node-for-g-{i}": f"template-node-for-g-{i}" for i in (1, 2, 3)
    }
    bindings = simulate(grown).bindings
    assert sorted(bindings) == ["default/p0", "default/p1", "default/p2"]
    assert len(set(bindings.values())) == 3


def test_shrunk_cluster_reschedules_the_removed_nodes_pods() -> None:
    objects = [
        node("n1"),
        node("n2"),
        pod("web", "200m", on="n1"),
        pod("agent", "50m", on="n1", owner="DaemonSet"),
        pod("busy", "1500m", on="n2"),
    ]
    c = cluster(*objects)
    result = run_once(c, autoscaling(group("g", nodes=("n1", "n2"))))
    assert result.scale_down.removable() == ("n1",)
    shrunk = shrunk_cluster(c, result)
    assert [n["metadata"]["name"] for n in shrunk.nodes] == ["n2"]
    assert [p["metadata"]["name"] for p in shrunk.pending_pods()] == ["web"]
    assert shrunk.find_pod("default/agent") is None
    assert simulate(shrunk).bindings == {"default/web": "n2"}
