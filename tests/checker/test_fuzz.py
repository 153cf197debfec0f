"""The fuzzing campaign (``schedspec.checker.fuzz``): a short slice in the default run, the long
one behind the ``campaign`` marker. The crashes it found are pinned in test_fuzz_findings.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from schedspec.checker import fuzz
from schedspec.cli import main


@pytest.fixture(autouse=True)
def _entry() -> None:
    fuzz.use_entry(main)


def _assert_clean(campaign: fuzz.Campaign) -> None:
    found = [f"{f.count} × {f.signature} [{f.first.kind}:{f.first.index}]"
             for f in campaign.findings.values()]  # fmt: skip
    assert not found, "\n".join(found)


# ---- the campaign itself ------------------------------------------------------------------------


def test_seeds_cover_examples_and_test_manifests() -> None:
    sources = {s.source.split("/")[0] + "/" + s.source.split("/")[1] for s in fuzz.manifest_seeds()}
    assert {"examples/autoscaling.yaml", "tests/spec", "tests/autoscaler_scenarios",
            "tests/golden"} <= sources  # fmt: skip
    flagged = [s for s in fuzz.manifest_seeds() if s.flags]
    assert any(s.source == "examples/autoscaling.yaml" for s in flagged)


def test_an_input_depends_only_on_seed_kind_and_index() -> None:
    corpus, specs = fuzz.manifest_seeds(), fuzz.spec_seeds()
    a, b = fuzz.manifest_input(7, 42, corpus), fuzz.manifest_input(7, 42, corpus)
    assert (a.text, a.mutations) == (b.text, b.mutations)
    assert fuzz.spec_input(7, 3, specs).text == fuzz.spec_input(7, 3, specs).text
    assert fuzz.manifest_input(7, 43, corpus).text != a.text


def test_every_manifest_operator_applies() -> None:
    seed = next(s for s in fuzz.manifest_seeds() if s.source == "examples/preemption.yaml")
    for name, _ in fuzz._Mutator.OPERATORS:
        applied = 0
        for k in range(20):
            objs = [dict(o) for o in fuzz.copy.deepcopy(seed.objects)]
            mutator = fuzz._Mutator(random.Random(k), objs, fuzz.manifest_seeds()[:10])
            applied += getattr(mutator, name)() is not None
        assert applied, name


def test_a_crash_is_classified_with_its_signature(tmp_path: Path) -> None:
    inp = fuzz.FuzzInput("spec", 0, "x", "", ())

    def boom(*_: object) -> fuzz.Outcome:
        raise fuzz._Stage(fuzz.Outcome("crash", "check", "sig"))

    original = fuzz._run_spec
    fuzz._run_spec = boom  # type: ignore[assignment]
    try:
        assert fuzz.run_input(inp, tmp_path, 5, tmp_path).signature == "sig"
    finally:
        fuzz._run_spec = original


def test_a_hang_is_over_the_limit(tmp_path: Path) -> None:
    inp = fuzz.FuzzInput("spec", 0, "x", "", ())
    original = fuzz._run_spec

    def spin(*_: object) -> fuzz.Outcome:
        while True:
            pass

    fuzz._run_spec = spin  # type: ignore[assignment]
    try:
        outcome = fuzz.run_input(inp, tmp_path, 0.2, tmp_path)
    finally:
        fuzz._run_spec = original
    assert outcome.kind == "hang"
    assert outcome.signature == "hang (over 0.2 s) at test_fuzz.py:spin"


def test_short_slice_no_crash_no_hang() -> None:
    """A few hundred inputs in this process: 0 crashes, 0 hangs."""
    campaign = fuzz.run_campaign(150, 60, seed=0, jobs=0, timeout=30)
    assert campaign.total("inputs") == 210
    _assert_clean(campaign)
    # the mutations reach past the loader, and specs past the parser
    assert campaign.counts["manifest"]["ok"] > 10
    assert campaign.counts["spec"]["eval 0"] > 0


@pytest.mark.campaign
def test_long_campaign_no_crash_no_hang() -> None:
    """The long campaign on two workers (docs/reliability.md, "Fuzzing", has the full-size runs)."""
    campaign = fuzz.run_campaign(10_000, 3_000, seed=1, jobs=2, timeout=30)
    _assert_clean(campaign)
