"""Conformance: the operational scheduler against scheduler.tla on generated clusters.

The default suite runs a short campaign (a few hundred clusters, after the seed corpus: the Z3
witness states, the warned states and the hand-checked scenarios); `pytest -m campaign` runs the
long one. A failure prints the shrunk cluster as YAML with both verdicts and the failing rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schedspec.checker.campaign import CampaignResult, run_campaign
from schedspec.checker.corpus import manifest_seeds, z3_seeds
from schedspec.checker.seam import SEAM
from schedspec.checker.strategies import preemption_cluster_objects, scoring_cluster_objects


def _report(result: CampaignResult) -> str:
    return "\n\n".join(c.describe() for c in result.counterexamples) or "\n".join(
        d.describe() for d in result.undeclared[:20]
    )


def _every_seam_point_checked(result: CampaignResult) -> None:
    per_node = {row.spec for row in SEAM if row.point != "decision"}
    unchecked = {name for name in per_node if not result.checked[name]}
    assert unchecked == set(), f"seam rows the campaign never compared: {sorted(unchecked)}"


SCENARIOS = Path(__file__).parent.parent / "spec" / "scenarios"


def test_short_campaign_finds_no_undeclared_disagreement() -> None:
    corpus = z3_seeds() + manifest_seeds([SCENARIOS])
    result = run_campaign(examples=300, seed=20261121, corpus=corpus)
    assert result.examples == 300 and result.corpus == len(corpus) > 115
    assert result.undeclared == [], _report(result)
    _every_seam_point_checked(result)


def test_short_preemption_campaign_finds_no_undeclared_disagreement() -> None:
    result = run_campaign(examples=150, seed=20261121, strategy=preemption_cluster_objects())
    assert result.undeclared == [], _report(result)
    assert result.checked["NumPDBViolations"] > 0 and result.checked["Victims"] > 0


def test_short_scoring_campaign_finds_no_undeclared_disagreement() -> None:
    result = run_campaign(examples=150, seed=20261121, strategy=scoring_cluster_objects())
    assert result.undeclared == [], _report(result)
    assert result.checked["PodTopologySpreadScore"] > 0.5 * result.checked["Feasible"]


def test_short_profiles_campaign_finds_no_undeclared_disagreement() -> None:
    """Drawn KubeSchedulerConfigurations: disabled plugins, weights, scoring strategies, plugin
    args, two profiles; the configuration must change decisions, or nothing was asked."""
    from schedspec.checker.strategies.profiles import with_profiles

    base = scoring_cluster_objects()
    result = run_campaign(examples=200, seed=20261125, strategy=with_profiles(base))
    assert result.undeclared == [], _report(result)
    assert result.checked["NodeResourcesFitScore"] > 0 and result.checked["Victims"] >= 0


@pytest.mark.campaign
@pytest.mark.parametrize("seed", range(4))
def test_long_campaign_finds_no_undeclared_disagreement(seed: int) -> None:
    result = run_campaign(examples=5000, seed=seed)
    assert result.undeclared == [], _report(result)
    _every_seam_point_checked(result)


@pytest.mark.campaign
def test_long_campaign_on_ten_by_ten_clusters() -> None:
    result = run_campaign(examples=3000, seed=7, nodes=(10, 10), pods=(10, 10))
    assert result.undeclared == [], _report(result)
