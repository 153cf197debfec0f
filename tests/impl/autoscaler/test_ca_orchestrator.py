"""Scale-up: skip checks, template verdicts, the plan's caps and CA's event wording
(docs/autoscaler.md, scale-up steps 2, 3, 6, 7)."""

from __future__ import annotations

import pytest
from ca_builders import group, node, pod, run, template

AFFINITY = "node(s) didn't match Pod's node affinity/selector"
TAINTS = "node(s) had untolerated taint(s)"
MAX_SIZE = "max node group size reached"
SSD = {"nodeSelector": {"disk": "ssd"}}
NO_SCHEDULE = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]


def test_group_at_max_is_skipped_and_the_pod_says_why() -> None:
    result = run(
        [node("n1"), node("n2"), pod("p", "3")],
        group("full", nodes=("n1", "n2"), max_size=2),
    ).scale_up
    assert result.groups["full"].skip_reason == MAX_SIZE
    assert result.groups["full"].template == {}
    assert result.options == ()
    assert result.pods["default/p"].message == f"pod didn't trigger scale-up: 1 {MAX_SIZE}"


@pytest.mark.parametrize(
    ("cores", "memory", "reason"),
    [
        ((0, 5), (0, 6400000), "max cluster cpu limit reached"),
        ((0, 320000), (0, 9), "max cluster memory limit reached"),
        ((0, 5), (0, 9), "max cluster cpu, memory limit reached"),
        ((0, 6), (0, 12), None),  # exactly one template's worth left: allowed
    ],
    ids=["cpu", "memory", "both", "exactly-enough"],
)
def test_cluster_resource_limits(
    cores: tuple[int, int], memory: tuple[int, int], reason: str | None
) -> None:
    # counted: g's target 1 × template (2 cores, 4 GiB) + the ungrouped node u (2, 4 GiB)
    objects = [node("n1"), node("u"), pod("p", "3")]
    result = run(
        objects, group("g", nodes=("n1",)), cores_total=cores, memory_total=memory
    ).scale_up
    assert result.groups["g"].skip_reason == reason


def test_template_rejections_are_counted_in_the_event() -> None:
    groups = (
        group("a", tmpl=template("a")),
        group("b", tmpl=template("b", labels={"disk": "ssd"}, taints=NO_SCHEDULE)),
        group("c", nodes=("n1",), max_size=1),
    )
    result = run([node("n1"), pod("p", spec=SSD)], *groups).scale_up
    verdicts = {name: g.template.get("default/p") for name, g in result.groups.items()}
    assert verdicts["a"] is not None and verdicts["a"].plugin == "NodeAffinity"
    assert verdicts["a"].reasons == (AFFINITY,)
    assert verdicts["b"] is not None and verdicts["b"].plugin == "TaintToleration"
    assert verdicts["c"] is None
    assert result.pods["default/p"].reasons == {AFFINITY: 1, TAINTS: 1, MAX_SIZE: 1}
    assert result.pods["default/p"].message == (
        f"pod didn't trigger scale-up: 1 {MAX_SIZE}, 1 {AFFINITY}, 1 {TAINTS}"
    )


def test_event_counts_ordered_by_count_then_text() -> None:
    groups = (
        group("a"),
        group("b"),
        group("small", tmpl=template("small", cpu="1", labels={"disk": "ssd"})),
    )
    result = run([pod("p", "1500m", spec=SSD)], *groups).scale_up
    assert result.pods["default/p"].message == (
        f"pod didn't trigger scale-up: 2 {AFFINITY}, 1 Insufficient cpu"
    )


def test_prefilter_rejection_gives_no_reason() -> None:
    bad = {"matchExpressions": [{"key": "app", "operator": "Bogus", "values": ["x"]}]}
    spread = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": bad,
    }
    result = run([pod("p", spec={"topologySpreadConstraints": [spread]})], group("g")).scale_up
    verdict = result.groups["g"].template["default/p"]
    assert (verdict.accepted, verdict.plugin, verdict.reasons) == (False, None, ())
    assert result.pods["default/p"].message == "pod didn't trigger scale-up: "


def test_triggered_event_names_group_sizes() -> None:
    result = run([node("n1", "1"), pod("p", "1500m")], group("g", nodes=("n1",), max_size=5))
    up = result.scale_up
    assert up.chosen == "g"
    assert up.plan == {"g": (1, 2)}
    assert up.pods["default/p"].triggered
    assert up.pods["default/p"].message == "pod triggered scale-up: [{g 1->2 (max: 5)}]"


def test_pod_another_template_accepts_gets_no_event() -> None:
    # "ssd" fits only b, "plain" only a; most-pods keeps a (2 pods) over b (1)
    b = group("b", tmpl=template("b", labels={"disk": "ssd"}, taints=NO_SCHEDULE))
    toleration = {"tolerations": [{"key": "dedicated", "operator": "Exists"}], **SSD}
    objects = [pod("plain1", "1"), pod("plain2", "1"), pod("ssd", "1", spec=toleration)]
    up = run(objects, group("a"), b, expander=("most-pods",)).scale_up
    assert up.chosen == "a"
    assert up.pods["default/ssd"].triggered is False
    assert up.pods["default/ssd"].message == ""
    assert up.pods["default/plain1"].triggered


def test_plan_capped_by_cores_left() -> None:
    # 4 pods of 1500m need 4 new 2-cpu nodes (8 cores); --cores-total 0:7 less g's 1 × 2 cores
    # leaves 5: 5 ÷ 2 = 2 nodes
    objects = [node("n1", "1"), *(pod(f"p{i}", "1500m") for i in range(4))]
    up = run(objects, group("g", nodes=("n1",)), cores_total=(0, 7)).scale_up
    assert up.groups["g"].estimate is not None and up.groups["g"].estimate.node_count == 4
    assert up.plan == {"g": (1, 3)}


def test_plan_capped_by_max_nodes_total_is_nothing_when_full() -> None:
    objects = [node("n1", "1"), node("n2", "1"), pod("p", "1500m")]
    up = run(objects, group("g", nodes=("n1",)), max_nodes_total=2).scale_up
    assert up.groups["g"].estimate is not None and up.groups["g"].estimate.node_count == 0
    assert up.plan == {}
    assert up.chosen is None
