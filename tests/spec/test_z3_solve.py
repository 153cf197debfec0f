"""`schedspec find` / `schedspec diff`: witnesses that replay; honest unsat, unknown; errors.

The replay checks here are independent of the command's own: the witness YAML is loaded with
:func:`schedspec.cluster.loads` and each definition evaluated by the executable backend through
:func:`schedspec.spec.load.load_spec`, as a user's cluster would be.
"""

from __future__ import annotations

import json
from pathlib import Path

import itf_py
import pytest
import yaml
import z3

from schedspec.cli import main
from schedspec.cluster import loads
from schedspec.spec.compile.z3 import STRING_BITS, Universe, Z3Unsupported, as_z3bool
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.load import load_spec
from schedspec.spec.solve import Session, diff, find, names_objects
from schedspec.spec.values import render

# textbook definition, real counterpart, whether they differ within the default bounds
FILTER_PAIRS = [
    ("FilterLifecycle", "NodeUnschedulableOK", True),
    ("Resources", "FitOK", True),
    ("FilterNodeSelector", "NodeSelectorOK", False),
    ("FilterTaints", "TaintsOK", True),
    ("FilterAffinity", "RequiredNodeAffinityOK", True),
    ("FilterAffinity", "InterPodAffinityOK", True),
    ("Filter", "Feasible", True),
]


def _executable_verdict(spec: str, objects: list[dict], pred: str, pod: str, node: str) -> str:
    loaded = load_spec(spec)
    world = loaded.view.build(loads(yaml.safe_dump_all(objects)))
    loaded.program.bind(world.constants)
    try:
        return render(loaded.program.call(pred, world.pods[pod], world.nodes[node]))
    except Exception as err:  # an EvalError: the spec cannot evaluate there
        return f"error: {err}"


@pytest.mark.parametrize(("textbook", "real", "differ"), FILTER_PAIRS, ids=lambda x: str(x))
def test_diff_finds_a_minimal_witness_that_replays(textbook: str, real: str, differ: bool) -> None:
    answer = diff("textbook", "scheduler", textbook, real, minimize=True, timeout=120)
    if not differ:
        assert answer.result == "unsat", answer.message
        assert "on every cluster within the bounds" in answer.message
        return
    assert answer.result == "sat", answer.message
    (w,) = answer.witnesses
    assert all(w.minimal.values()), w.minimal
    pod, node = w.bindings["p"], w.bindings["n"]
    a = _executable_verdict("textbook", w.objects, textbook, pod, node)
    b = _executable_verdict("scheduler", w.objects, real, pod, node)
    assert a != b
    assert w.verdicts == {f"textbook:{textbook}": a, f"scheduler:{real}": b}
    # minimal: one node and one pod suffice for a per-(pod, node) disagreement
    kinds = [o["kind"] for o in w.objects]
    assert kinds.count("Node") == 1 and kinds.count("Pod") <= 2, kinds


def test_taints_witness_is_the_prefer_no_schedule_rule() -> None:
    (w,) = diff("textbook", "scheduler", "FilterTaints", "TaintsOK", minimize=True).witnesses
    node = next(o for o in w.objects if o["kind"] == "Node")
    pod = next(o for o in w.objects if o["kind"] == "Pod")
    # The smallest disagreement: one untolerated PreferNoSchedule taint, no tolerations.
    assert [t["effect"] for t in node["spec"]["taints"]] == ["PreferNoSchedule"]
    assert "tolerations" not in pod["spec"]
    assert w.verdicts == {"textbook:FilterTaints": "FALSE", "scheduler:TaintsOK": "TRUE"}


def test_find_witness_satisfies_the_formula_on_the_executable_backend() -> None:
    formula = (
        'p.spec.nodeName = "" /\\ Cardinality(Nodes) = 2 /\\ \\A n \\in Nodes : ~Feasible(p, n)'
    )
    answer = find(formula, bounds=Bounds(nodes=2, pods=2), minimize=True)
    assert answer.result == "sat"
    (w,) = answer.witnesses
    loaded = load_spec("scheduler")
    world = loaded.view.build(loads(w.yaml()))
    loaded.program.bind(world.constants)
    pod = world.pods[w.bindings["p"]]
    assert pod["spec"]["nodeName"] == ""
    assert len(world.nodes) == 2
    assert not any(loaded.program.call("Feasible", pod, n) for n in world.nodes.values())


def test_all_gives_distinct_witnesses() -> None:
    answer = find("TaintsOK(p, n) /\\ ~Feasible(p, n)", bounds=Bounds(nodes=1, pods=1), count=3)
    assert answer.result == "sat"
    texts = [w.yaml() for w in answer.witnesses]
    assert len(texts) == 3 and len(set(texts)) == 3


# Queries over two pods and two nodes whose answer does not depend on which objects the free
# variables are: pinning them to pod-0, pod-1, node-0, node-1 must not change sat to unsat.
SYMMETRIC_QUERIES = [
    ("sat", 'Feasible(p, n) /\\ ~Feasible(q, n) /\\ p.spec.nodeName = "" /\\ q.spec.nodeName = ""'),
    ("sat", 'Feasible(p, m) /\\ ~Feasible(p, n) /\\ p.status.nominatedNodeName = NodeName(n)'),
    ("sat", "q.spec.nodeName = NodeName(n) /\\ ~InterPodAffinityOK(p, n) /\\ "
            "InterPodAffinityOK(p, m)"),
    ("unsat", "Feasible(p, n) /\\ ~TaintsOK(p, n)"),
    ("unsat", "p.spec.nodeName = NodeName(n) /\\ p.spec.nodeName = NodeName(m)"),
]  # fmt: skip


@pytest.mark.parametrize(("expected", "formula"), SYMMETRIC_QUERIES)
def test_pinned_variables_answer_as_open_choices(expected: str, formula: str) -> None:
    """The differential for pinning: each query solved with its free variables open (an index
    into the objects, the solver choosing) and pinned to the first objects."""
    bounds = Bounds(nodes=2, pods=2)
    results = {}
    for pinned in (False, True):
        session = Session(bounds, ["scheduler"], timeout=120, pinned=pinned)
        _, _, result = session.formula("scheduler", formula)
        defined = z3.Not(as_z3bool(result.error)) if result.errors else True
        goal = [as_z3bool(result.value)]
        results[pinned] = session.solve(goal, minimize=False, count=1, defined=defined)[0]
    assert results == {False: expected, True: expected}


def test_a_query_that_names_an_object_is_not_pinned() -> None:
    formula = 'n.metadata.name = "node-1" /\\ p.spec.nodeName = NodeName(n)'
    assert names_objects(formula) and not names_objects("Feasible(p, n)")
    answer = find(formula, bounds=Bounds(nodes=2, pods=2))
    assert answer.result == "sat", answer.message
    (w,) = answer.witnesses
    assert w.bindings["n"] == "node-1"
    pod = next(o for o in w.objects if f"{o['metadata'].get('namespace')}/{o['metadata']['name']}"
               == w.bindings["p"])  # fmt: skip
    assert pod["spec"]["nodeName"] == "node-1"


def test_implies_proves_a_conjunct_and_refutes_the_converse() -> None:
    b = Bounds(nodes=2, pods=2)
    assert diff("scheduler", "scheduler", "Feasible", "TaintsOK", b, implies=True).result == "unsat"
    back = diff("scheduler", "scheduler", "TaintsOK", "Feasible", b, implies=True)
    assert back.result == "sat"
    assert back.witnesses[0].verdicts == {
        "scheduler:TaintsOK": "TRUE",
        "scheduler:Feasible": "FALSE",
    }


def test_unsat_core_names_the_conflicting_conjuncts(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["find", "p.spec.priority > 5 /\\ NodeNameOK(p, n) /\\ p.spec.priority < 3",
                 "--nodes", "1", "--pods", "1", "--core"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert "unsat: no cluster within the bounds" in out
    core = out.split("unsat core):")[1]
    assert "p.spec.priority > 5" in core and "p.spec.priority < 3" in core
    assert "NodeNameOK" not in core


def test_unknown_is_exit_3_and_never_called_unsat(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["find", "\\A n \\in Nodes : ~Feasible(p, n)", "--nodes", "8", "--pods", "8",
                 "--timeout", "0.01"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 3
    assert out.startswith("unknown:") and "NOT a proof" in out and "unsat" not in out


def test_find_writes_yaml_and_itf_that_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["find", "~TaintsOK(p, n)", "--nodes", "1", "--pods", "1", "--minimize",
                 "--out", str(tmp_path), "--json"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["result"] == "sat"
    cluster = loads((tmp_path / "witness-1.yaml").read_text())
    assert len(cluster.nodes) == 1 and len(cluster.pods) == 1
    trace = itf_py.trace_from_json(json.loads((tmp_path / "witness-1.itf.json").read_text()))
    (state,) = trace.states
    assert "node-0" in state.values["nodes"]
    assert data["objects"] == data["witnesses"][0]["objects"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["find", "Feasibel(p, n)"], "no definition 'Feasibel'"),
        (["find", "TaintsOK(x, n)"], "free variable(s) x not covered by the bounds"),
        (["find", "TaintsOK(p, n)", "--nodes", "0"], "names 1 nodes (n) but --nodes is 0"),
        (["find", "TaintsOK(p, q)", "--pods", "1"], "names 2 pods"),
        (["find", "TaintsOK(p, n", "--pods", "1"], "<formula>:1:"),
        (["find", "TaintsOK(p, n)", "--taints", "-1"], "--taints must be a non-negative integer"),
        (
            ["diff", "textbook", "scheduler", "--predicate", "Taints=TaintsOK"],
            "no definition 'Taints'",
        ),
        (
            ["diff", "scheduler", "scheduler", "--predicate", "Tolerates"],
            "diff binds a pod p and a node n; Tolerates takes (t, x)",
        ),
        (["diff", "textbook", "nosuch.tla", "--predicate", "Filter"], "no such spec file"),
    ],
)
def test_bad_input_is_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert "Traceback" not in err


def test_more_strings_than_the_codes_hold_is_a_clear_error() -> None:
    universe = Universe(f"s{i}" for i in range(1 << STRING_BITS))
    assert universe.code("s7") == 7  # a known string keeps its code
    with pytest.raises(Z3Unsupported, match=f"more than {1 << STRING_BITS} distinct strings"):
        universe.code("one-too-many")
