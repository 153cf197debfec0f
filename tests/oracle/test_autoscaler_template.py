"""The real kube-scheduler answers the autoscaler's template question (does this pod pass
PreFilter and Filter on a new node of this group, in the cluster CA simulates?) and agrees with
autoscaler.tla — on the bundled example and on generated clusters with node groups."""

from __future__ import annotations

from pathlib import Path

from schedspec.autoscaling import node_groups, parse_options
from schedspec.checker.autoscaler import compare
from schedspec.checker.autoscaler_campaign import run_autoscaler_campaign
from schedspec.checker.oracle import Oracle
from schedspec.cluster import load

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "autoscaling.yaml"


def test_example_templates_three_ways(oracle: Oracle) -> None:
    cluster = load(EXAMPLE)
    autoscaling = node_groups(
        cluster,
        nodes=["1:5:general-m5-large", "0:3:compute-c5-2xlarge", "0:2:gpu-g5-xlarge"],
        node_group_label="eks.amazonaws.com/nodegroup",
        options=parse_options(),
    )
    check = compare(cluster, autoscaling, oracle=oracle)
    # 7 unschedulable pods × 3 valid groups, each asked of the real scheduler
    assert check.compared["TemplateAccepts@real"] == 21
    assert check.disagreements == []


def test_generated_templates_three_ways(oracle: Oracle) -> None:
    result = run_autoscaler_campaign(80, seed=11, shrink=False, oracle=oracle)
    assert result.compared["TemplateAccepts@real"] > 20
    assert result.first == {}, [str(d) for _, d in result.first.values()]
