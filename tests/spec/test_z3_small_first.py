"""`find`/`diff` look for a witness among the bounded cluster's first objects before all of them
(spec/solve/small_first.py): a stage's sat is a witness within the bounds; its unsat is never the
answer."""

from __future__ import annotations

import pytest
import yaml

from schedspec.cluster import loads
from schedspec.errors import UsageError
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.load import load_spec
from schedspec.spec.solve import diff, find, small_first
from schedspec.spec.values import render


def _kinds(objects: list[dict]) -> list[str]:
    return [o["kind"] for o in objects]


def test_the_ladder_grows_fourfold_and_skips_small_clusters() -> None:
    assert small_first.ladder(70, 70) == [1, 4, 16, 64]
    assert small_first.ladder(20, 5, 2) == [2, 8]
    assert small_first.ladder(4, 4, 1) == []  # the whole cluster is as quick


def test_a_witness_among_the_first_objects_replays_on_the_executable_backend() -> None:
    formula = 'Feasible(p, n) /\\ p.spec.nodeName = ""'
    answer = find(formula, bounds=Bounds(nodes=8, pods=8), timeout=120)
    assert answer.result == "sat", answer.message
    (w,) = answer.witnesses
    kinds = _kinds(w.objects)
    assert kinds.count("Node") == 1 and kinds.count("Pod") == 1, kinds  # the first stage's
    loaded = load_spec("scheduler")
    world = loaded.view.build(loads(yaml.safe_dump_all(w.objects)))
    loaded.program.bind(world.constants)
    pod, node = world.pods[w.bindings["p"]], world.nodes[w.bindings["n"]]
    assert render(loaded.program.call("Feasible", pod, node)) == "TRUE"


def test_a_witness_larger_than_the_stages_comes_from_the_whole_cluster() -> None:
    # stages of 1 and 4 objects cannot hold 5 nodes: their unsat is not the answer
    answer = find(
        "Cardinality(Nodes) = 5 /\\ Cardinality(Pods) = 1", bounds=Bounds(nodes=6, pods=6)
    )
    assert answer.result == "sat", answer.message
    kinds = _kinds(answer.objects)
    assert kinds.count("Node") == 5 and kinds.count("Pod") == 1, kinds


@pytest.mark.parametrize("staged", [True, False])
def test_unsat_is_the_whole_clusters_answer(staged: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(small_first, "STAGED", staged)
    answer = find("Cardinality(Nodes) > 6", bounds=Bounds(nodes=6, pods=6))
    assert answer.result == "unsat", answer.message


def test_a_stage_too_small_for_the_query_moves_on_and_bad_input_is_still_an_error() -> None:
    # two pod variables do not fit the first stage's one pod: that is no usage error of the user's
    answer = find("p.spec.priority > q.spec.priority", bounds=Bounds(nodes=5, pods=5))
    assert answer.result == "sat", answer.message
    assert set(answer.witnesses[0].bindings) == {"p", "q"}
    with pytest.raises(UsageError, match="no definition 'Feasibel'"):
        find("Feasibel(p, n)", bounds=Bounds(nodes=5, pods=5))


def test_diff_finds_its_witness_in_a_small_cluster_too() -> None:
    answer = diff("textbook", "scheduler", "FilterTaints", "TaintsOK", Bounds(nodes=5, pods=5))
    assert answer.result == "sat", answer.message
    (w,) = answer.witnesses
    assert _kinds(w.objects).count("Node") == 1, _kinds(w.objects)  # the first stage's one node
    assert w.verdicts["textbook:FilterTaints"] != w.verdicts["scheduler:TaintsOK"]
