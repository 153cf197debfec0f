"""The three-way crosscheck: spec, impl and the real kube-scheduler on the same clusters, with
agreement tallied per pair of witnesses, and the seed spec judged against the real scheduler."""

from __future__ import annotations

import json

import pytest
from oracle_builders import cluster, node, pod

from schedspec.checker.campaign import run_campaign
from schedspec.checker.differential import PAIRS, Checker
from schedspec.checker.oracle import Oracle
from schedspec.cli import main

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def test_an_empty_key_exists_toleration_splits_the_textbook_from_the_real_scheduler(
    oracle: Oracle,
) -> None:
    """kube-scheduler tolerates every taint with `{operator: Exists}` and no key; the seed's
    Match does not (docs/divergences.md). scheduler.tla and impl side with the real one."""
    tolerant = pod("web", tolerations=[{"operator": "Exists"}])
    check = Checker("scheduler", oracle=oracle, textbook="textbook").check(
        cluster(node("gpu-1", taints=[GPU_TAINT]), node("cpu-1"), tolerant)
    )
    table = check.agreement.table()
    assert list(table) == list(PAIRS)
    assert check.disagreements == []
    for pair in ("spec↔impl", "spec↔real", "impl↔real"):
        assert all(agreed == n for agreed, n in table[pair].values()), pair
        assert table[pair]["TaintsOK"] == (2, 2)
        assert table[pair]["Decision"] == (1, 1)
    assert table["textbook↔real"]["FilterTaints"] == (1, 2)  # agree on cpu-1 only


def test_a_short_three_way_campaign_has_no_undeclared_disagreement(oracle: Oracle) -> None:
    checker = Checker("scheduler", oracle=oracle, textbook="textbook")
    result = run_campaign(40, seed=8, checker=checker, shrink=False)
    assert [d.describe() for d in result.undeclared] == []
    table = result.totals.agreement.table()
    # every predicate compared with the real scheduler as often as with impl, bar the
    # scores kube-scheduler skips with one feasible node
    for predicate in ("TaintsOK", "FitOK", "SpreadOK", "InterPodAffinityOK", "Feasible"):
        assert table["spec↔real"][predicate][1] == table["spec↔impl"][predicate][1] > 100
    assert table["impl↔real"]["Decision"][1] > 40
    # the seed spec as written is far from the real scheduler: it finds the divergences
    assert table["textbook↔real"]["Filter"][0] < table["textbook↔real"]["Filter"][1]


def test_crosscheck_prints_and_serialises_the_agreement(
    oracle: Oracle, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["crosscheck", "--oracle", "kube", "--examples", "5", "--seed", "2", "--no-shrink",
            "--accept-vacuous", "all"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "\nagreement\n" in out and "the seed spec against the real scheduler" in out
    header = next(line for line in out.splitlines() if "spec↔real" in line)
    assert header.split()[1:] == ["spec↔impl", "spec↔real", "impl↔real"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["agreement"]) == set(PAIRS)
    decision = data["agreement"]["impl↔real"]["Decision"]
    assert 0 < decision["agreed"] <= decision["compared"]
    assert decision["rate"] == round(decision["agreed"] / decision["compared"], 6)
