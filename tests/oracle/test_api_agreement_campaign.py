"""The loader against the real API server's validation (checker/api_agreement.py): every
disagreement on mutated Pods and Nodes of the bundled manifests must be one of the declared classes
(docs/reliability.md), and the bundled objects themselves must agree or differ only as declared."""

from __future__ import annotations

import pytest

from schedspec.checker.api_agreement import AGREE_ACCEPT, AGREE_REJECT, base_objects, run
from schedspec.checker.oracle import Oracle

pytestmark = pytest.mark.oracle


def test_a_short_slice_has_no_undeclared_disagreement(oracle: Oracle) -> None:
    result = run(oracle, mutations=2_000, seed=0)
    assert result.mutated == 2_000
    assert result.undeclared() == {}, "\n".join(result.report())
    assert result.verdicts[AGREE_ACCEPT] > 0 and result.verdicts[AGREE_REJECT] > 0
    assert result.agreement > 0.8


def test_every_bundled_pod_and_node_is_taken_and_the_examples_are_valid(oracle: Oracle) -> None:
    bases = base_objects()
    assert {b.kind for b in bases} == {"Pod", "Node"}
    assert len(bases) > 500
    result = run(oracle, mutations=0, bases=[b for b in bases if b.source.startswith("examples/")])
    assert dict(result.base_verdicts) == {AGREE_ACCEPT: result.bases}


@pytest.mark.campaign
def test_ten_thousand_mutated_objects_have_no_undeclared_disagreement(oracle: Oracle) -> None:
    result = run(oracle, mutations=10_000, seed=0)
    assert result.undeclared() == {}, "\n".join(result.report())
