"""Z3 states (checker/z3states.py): queries phrased from the spec text, answers, cache, coverage."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedspec.checker import z3states
from schedspec.checker.z3states import (
    campaign_coverage,
    filter_scope,
    queries,
    warned_clusters,
    z3_coverage,
    z3_states,
)
from schedspec.cluster import loads
from schedspec.spec.coverage import Coverage
from schedspec.spec.load import load_spec

ARM = "FilterStatusIn: CASE arm {}"


@pytest.fixture(scope="module")
def spec_cov() -> tuple[object, Coverage]:
    spec = load_spec("scheduler")
    return spec, Coverage(spec.module)


def _label(cov: Coverage, prefix: str) -> str:
    return next(t.label for t in cov.targets if t.label.startswith(prefix))


def test_queries_are_phrased_from_the_definitions_text(spec_cov: tuple[object, Coverage]) -> None:
    spec, cov = spec_cov
    formulas = {s.target.label: f for s, f in queries(cov, filter_scope(spec))}  # type: ignore[arg-type]
    arm3 = formulas[_label(cov, ARM.format(5))][0]
    assert "p \\in PendingPods" in arm3 and "LET W == Snapshot" in arm3
    assert "~NodeUnschedulableOK(p, n)" in arm3 and "AffinityTermsValid(p)" in arm3
    # Tolerates(t, x) takes no cluster objects: phrased at a call site, its arguments LET-bound
    tol = formulas[_label(cov, "Tolerates: CASE arm 2")][0]
    assert "\\E t \\in p.spec.tolerations" in tol and "LET x ==" in tol
    # a target under a LAMBDA cannot be phrased
    assert any(not f for label, f in formulas.items() if label.startswith("SidecarRequestsBefore"))


def test_two_targets_solved_cached_and_replayed(
    spec_cov: tuple[object, Coverage], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, cov = spec_cov
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    wanted = [_label(cov, ARM.format(7)), _label(cov, ARM.format(6))]
    states = {s.label: s for s in z3_states(targets=wanted, timeout=10)}
    taints, node_name = states[wanted[0]], states[wanted[1]]
    assert taints.result == "sat" and any(o["kind"] == "Node" for o in taints.objects)
    assert node_name.result == "unsat"  # a pending pod has no spec.nodeName: NodeNameOK holds
    # the witness, evaluated by the executable backend, takes the arm it was asked for
    assert taints.key in z3_coverage([taints], warned=False).hit
    assert list((tmp_path / "schedspec" / "z3states").glob("*.json"))

    def no_solver(*args: object) -> object:
        raise AssertionError("the cache should have answered")

    monkeypatch.setattr(z3states._Solver, "solve", no_solver)
    again = {s.label: s.result for s in z3_states(targets=wanted, timeout=10)}
    assert again == {wanted[0]: "sat", wanted[1]: "unsat"}


def test_unknown_is_never_unsat(
    spec_cov: tuple[object, Coverage], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, cov = spec_cov
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(z3states._Solver, "solve", lambda self, text: ("unknown", [], "timeout"))
    [state] = z3_states(targets=[_label(cov, ARM.format(9))], timeout=1)
    assert state.result == "unknown"
    assert not list((tmp_path / "schedspec" / "z3states").glob("*.json"))  # not cached


BOUNDARY = """
apiVersion: v1
kind: Node
metadata: {name: small, labels: {kubernetes.io/hostname: small}}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "2"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default}
spec: {nodeName: small, containers: [{name: c, image: pause}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default}
spec: {containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]}
"""


def test_campaign_coverage_hits_the_pod_count_and_request_boundaries(
    spec_cov: tuple[object, Coverage],
) -> None:
    cov = campaign_coverage([loads(BOUNDARY)])
    hit = {t.label for t in cov.targets if t.key in cov.hit}
    pods_at = _label(cov, "TooManyPods: Cardinality(On(W, n)) + 1 > Allocatable")
    assert pods_at.endswith("at the boundary (=)") and pods_at in hit  # 1 + 1 = 2 pods
    request = "Requests(p)[r] > Allocatable(n, r) - Requested(n, W, r) at the boundary (=)"
    assert any(label.endswith(request) for label in hit)  # cpu: 1 = 1 - 0
    assert ARM.format(10) not in " ".join(hit)  # it fits: FitOKIn's arm is not taken


def test_warned_states_reach_the_prefilter_arms() -> None:
    cov = campaign_coverage(warned_clusters())
    hit = {t.label for t in cov.targets if t.key in cov.hit}
    assert any(label.startswith(ARM.format(2) + " ") for label in hit)
    assert any(label.startswith(ARM.format(3) + " ") for label in hit)
