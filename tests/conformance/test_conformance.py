"""Conformance: the operational scheduler against scheduler.tla on generated clusters.

The default suite runs a short campaign (a few hundred clusters); `pytest -m campaign` runs the
long one. A failure prints the shrunk cluster as YAML with both verdicts and the failing rule.
"""

from __future__ import annotations

import pytest

from schedspec.checker.campaign import CampaignResult, run_campaign
from schedspec.checker.seam import SEAM


def _report(result: CampaignResult) -> str:
    return "\n\n".join(c.describe() for c in result.counterexamples) or "\n".join(
        d.describe() for d in result.undeclared[:20]
    )


def _every_seam_point_checked(result: CampaignResult) -> None:
    per_node = {row.spec for row in SEAM if row.point != "decision"}
    unchecked = {name for name in per_node if not result.checked[name]}
    assert unchecked == set(), f"seam rows the campaign never compared: {sorted(unchecked)}"


def test_short_campaign_finds_no_undeclared_disagreement() -> None:
    result = run_campaign(examples=300, seed=20261121)
    assert result.examples == 300
    assert result.undeclared == [], _report(result)
    _every_seam_point_checked(result)


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
