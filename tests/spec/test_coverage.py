"""Spec coverage (spec/coverage.py): targets, what instrumented programs record, merge, report."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedspec.cluster import load
from schedspec.spec.coverage import Coverage, instrument, reachable
from schedspec.spec.errors import EvalError
from schedspec.spec.load import load_spec
from schedspec.spec.parse import parse
from schedspec.spec.values import Fcn

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))

SMALL = """
---- MODULE small ----
Fits(req, free) == req <= free

Status(x, req, free) ==
  CASE x < 0          -> "negative"
    [] Fits(req, free) -> "fits"
    [] OTHER          -> IF req = free + 1 THEN "just over" ELSE "over"

Both(a, b) ==
  /\\ a > 0
  /\\ b > 0
====
"""


@pytest.fixture
def small() -> tuple[Coverage, object]:
    module = parse(SMALL, "small.tla")
    cov = Coverage(module)
    return cov, instrument(module, cov)


def _labels(cov: Coverage, hit: bool) -> set[str]:
    return {t.label for t in cov.targets if (t.key in cov.hit) is hit}


def test_targets_have_positions_and_readable_labels(small: tuple[Coverage, object]) -> None:
    cov, _ = small
    arm = next(t for t in cov.targets if t.label == "Status: CASE arm 2 (Fits(req, free))")
    assert (arm.span.file, arm.span.line) == ("small.tla", 7)
    assert arm.where.startswith("small.tla:7:")
    kinds = {t.kind for t in cov.targets}
    assert kinds == {"case", "if", "and", "result", "compare"}


def test_records_the_arm_taken_and_misses_the_others(small: tuple[Coverage, object]) -> None:
    cov, program = small
    assert program.call("Status", 1, 3, 5) == "fits"  # type: ignore[attr-defined]
    hit = _labels(cov, True)
    assert "Status: CASE arm 2 (Fits(req, free))" in hit
    assert "Status: CASE arm 1 (x < 0)" not in hit
    assert "Status: CASE OTHER" not in hit
    assert "Fits: req ≤ free off the boundary (≠)" in hit
    assert "Fits: req ≤ free at the boundary (=)" not in hit
    missed = {t.label for t in cov.missed()}
    assert "Status: CASE OTHER" in missed and "Status: CASE arm 1 (x < 0)" in missed


def test_records_boundaries_and_if_branches(small: tuple[Coverage, object]) -> None:
    cov, program = small
    assert program.call("Status", 1, 5, 5) == "fits"  # type: ignore[attr-defined]
    assert program.call("Status", 1, 6, 5) == "just over"  # type: ignore[attr-defined]
    hit = _labels(cov, True)
    assert "Fits: req ≤ free at the boundary (=)" in hit
    assert "Status: IF req = free + 1 THEN" in hit
    assert "Status: IF req = free + 1 ELSE" not in hit
    assert "Status: req = free + 1 at the boundary (=)" in hit


def test_junction_items_short_circuit(small: tuple[Coverage, object]) -> None:
    cov, program = small
    assert program.call("Both", 0, 1) is False  # type: ignore[attr-defined]
    hit = _labels(cov, True)
    assert "Both: ∧ item 1 (a > 0) FALSE" in hit
    assert not any(label.startswith("Both: ∧ item 2") for label in hit)  # never evaluated
    assert "Both: value (∧ a > 0 ∧ b > 0) FALSE" in hit


def test_merge_unions_hits_and_rejects_another_spec() -> None:
    module = parse(SMALL, "small.tla")
    a, b = Coverage(module), Coverage(module)
    instrument(module, a).call("Status", -1, 0, 0)
    instrument(module, b).call("Status", 1, 9, 0)
    before = len(a.hit)
    a.merge(b)
    assert a.hit == (a.hit | b.hit) and len(a.hit) > before
    assert {"Status: CASE arm 1 (x < 0)", "Status: CASE OTHER"} <= _labels(a, True)
    other = Coverage(parse("---- MODULE o ----\nF(x) == x < 1\n====\n", "o.tla"))
    instrument(other.module, other).call("F", 0)
    with pytest.raises(ValueError, match="different spec"):
        a.merge(other)


def test_report_and_json(small: tuple[Coverage, object]) -> None:
    cov, program = small
    program.call("Status", -1, 0, 0)  # type: ignore[attr-defined]
    text = cov.report(only=["Status"])
    assert "Status" in text and "Both" not in text
    assert "missed" in text and "Status: CASE OTHER" in text
    data = cov.as_json(only=["Status"])
    assert data["hit"] == sum(item["hit"] for item in data["items"])
    assert 0 < data["percent"] < 100


def test_instrument_needs_the_same_module_object() -> None:
    cov = Coverage(parse(SMALL, "small.tla"))
    with pytest.raises(ValueError, match="another module"):
        instrument(parse(SMALL, "small.tla"), cov)


def _verdict(program: object, name: str, pod: Fcn, node: Fcn) -> object:
    try:
        return program.call(name, pod, node)  # type: ignore[attr-defined]
    except EvalError as err:
        return ("error", str(err))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_instrumented_results_equal_uninstrumented(path: Path) -> None:
    spec = load_spec("scheduler")
    cov = Coverage(spec.module)
    instrumented = instrument(spec.module, cov)
    world = spec.view.build(load(path))
    plain = spec.program.bind(world.constants)
    instrumented.bind(world.constants)
    names = ["NodeStatus", "Feasible", "FitOK", "TaintsOK", "SpreadOK", "InterPodAffinityOK"]
    for key in world.pending:
        for node in world.nodes.values():
            for name in names:
                pod = world.pods[key]
                assert _verdict(instrumented, name, pod, node) == _verdict(plain, name, pod, node)
    assert cov.hit  # and it recorded something on the way


def test_reachable_follows_the_call_graph() -> None:
    spec = load_spec("scheduler")
    filters = reachable(spec.module, ["FiltersIn"])
    assert {"FiltersIn", "TaintsOK", "Tolerates", "TooManyPods"} <= filters
    assert "Viability" not in filters and "PreemptionNodes" not in filters
