"""The autoscaler seam: autoscaler.tla against impl/autoscaler on generated clusters with node
groups — a short slice by default, the long campaign behind ``-m campaign`` — and proof that the
comparison has teeth: a one-token bug in impl is found."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schedspec.checker.autoscaler import AUTOSCALER_SEAM, loaded_spec
from schedspec.checker.autoscaler_campaign import RULES, run_autoscaler_campaign, run_parallel

ROOT = Path(__file__).resolve().parents[2]


def test_every_seam_row_names_a_definition_of_the_spec() -> None:
    spec = loaded_spec()
    missing = [row for row in AUTOSCALER_SEAM if not spec.program.has(row)]
    assert missing == []


def test_every_covered_rule_is_a_rule_the_checker_can_report() -> None:
    text = (ROOT / "checker" / "autoscaler.py").read_text(encoding="utf-8")
    literal_prefixes = set(re.findall(r'cover\(f?"([a-z -]+)', text))
    for rule in RULES:
        assert any(rule.startswith(prefix) for prefix in literal_prefixes), rule


def test_short_campaign_agrees() -> None:
    result = run_autoscaler_campaign(60, seed=7, shrink=False)
    assert result.examples >= 50
    assert result.first == {}, [str(d) for _, d in result.first.values()]
    assert sum(result.compared.values()) > 1000


def test_a_one_token_bug_in_impl_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The expendable cutoff made inclusive (priority ≤ -10 dropped): the campaign must say so."""
    from schedspec.impl.autoscaler import context

    real = context.AutoscalingContext.is_expendable

    def inclusive(self: context.AutoscalingContext, obj: object) -> bool:
        cutoff = self.autoscaling.options.expendable_pods_priority_cutoff
        return bool(real(self, obj)) or _priority(obj) == cutoff

    monkeypatch.setattr(context.AutoscalingContext, "is_expendable", inclusive)
    result = run_autoscaler_campaign(300, seed=3, shrink=False)
    assert "ScaleUpDropped" in result.first


def _priority(obj: object) -> int | None:
    spec = obj.get("spec") if isinstance(obj, dict) else None
    return spec.get("priority") if isinstance(spec, dict) else None


@pytest.mark.campaign
@pytest.mark.parametrize(("seed", "nodes", "pods"), [(1, 5, 8), (2, 10, 10)])
def test_long_campaign_agrees_and_reaches_every_rule(seed: int, nodes: int, pods: int) -> None:
    result = run_parallel(10_000, seed, 2, max_nodes=nodes, max_pods=pods)
    assert result.first == {}, [str(d) for _, d in result.first.values()]
    assert result.bugs == 0
    assert result.not_exercised == []
