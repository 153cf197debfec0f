"""Explanations: the verdict an explanation shows is the fast path's, at every level of the trace.

``explain_call``'s top-level outcome comes from ``Program.call`` by construction, so these tests
also hold the trace *below* it to the fast path: a definition's explained body has the call's
outcome, a junction's outcome is that of its first deciding item, a ∀ witness is the first
counterexample, an ∃ that is FALSE is where :func:`failing_path` stops. Checked on every
(pending pod, node) of every example with the textbook spec, and on generated definitions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedspec.cluster import load, loads
from schedspec.spec import ast as A
from schedspec.spec.compile.explain import Trace, explain_call, failing_path
from schedspec.spec.compile.python import Program, compile_module
from schedspec.spec.errors import EvalError
from schedspec.spec.evaluate import evaluate, reason
from schedspec.spec.kube.views import bind_arguments
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.parse import parse
from schedspec.spec.values import Value, record, render

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.yaml"))


@pytest.fixture(scope="module")
def textbook() -> LoadedSpec:
    return load_spec("textbook")


def fast_outcome(program: Program, name: str, args: tuple[Value, ...]) -> str:
    """What the fast path says, in ``Trace.outcome``'s words."""
    try:
        value = program.call(name, *args)
    except EvalError:
        return "error"
    if value is True or value is False:
        return "true" if value else "false"
    return render(value)


def first_deciding(children: tuple[Trace, ...], stop: bool) -> Trace | None:
    """The item a short-circuiting junction stops at: the first one that is not ``not stop``."""
    return next((c for c in children if c.value is not (not stop)), None)


def assert_consistent(trace: Trace) -> None:
    """Every level of ``trace`` agrees with the values below it, as the fast path computes them."""
    node, kids = trace.node, trace.children
    if trace.definition is not None and kids:  # a call: its body explained under the arguments
        assert kids[0].outcome == trace.outcome
    elif isinstance(node, A.Junction):
        stop = node.op is A.JunctionOp.OR
        deciding = first_deciding(kids, stop)
        if deciding is None:
            assert trace.value is (not stop)
        else:
            assert deciding.outcome == trace.outcome
    elif isinstance(node, A.Unary) and node.op is A.UnOp.NOT and trace.error is None:
        assert kids[0].value is (not trace.value)
    elif isinstance(node, A.Quant) and node.kind is A.QuantKind.FORALL and trace.witnesses:
        assert trace.value is not True
        assert kids[0].value is not True
    elif isinstance(node, A.Quant) and trace.value is False:  # ∃ with no witness
        assert len(kids) <= 3
        assert all(c.value is False for c in kids)
    elif (isinstance(node, A.If) and len(kids) == 2) or (isinstance(node, A.Case) and kids):
        assert kids[-1].outcome == trace.outcome
    for child in kids:
        assert_consistent(child)


def assert_path_well_formed(trace: Trace) -> None:
    path = failing_path(trace)
    assert path[0] is trace
    assert all(t.failed for t in path) or not trace.failed
    if trace.failed:
        leaf = path[-1]
        assert leaf.is_exists or not any(c.failed for c in leaf.children)


# -- every (pending pod, node) of every example ---------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_explain_agrees_with_the_fast_path_on_examples(textbook: LoadedSpec, example: Path) -> None:
    world = textbook.view.build(load(example))
    program = textbook.program.bind(world.constants)
    names = [  # Filter, each filter, Viability, BoundTo, …: whatever takes Pod/Node/Snapshot
        d.name
        for d in textbook.module.definitions
        if {p.name for p in d.params} <= {"Pod", "Node", "Snapshot"}
    ]
    pairs = [(world.pods[p], world.nodes[n]) for p in world.pending for n in world.nodes]
    assert pairs
    for pod, node in pairs:
        for name in names:
            args = bind_arguments(program.definition(name), pod, node, world)
            trace = explain_call(program, name, args)
            assert trace.outcome == fast_outcome(program, name, args), name
            assert_consistent(trace)
            assert_path_well_formed(trace)


# -- generated definitions ------------------------------------------------------------------------

LIBRARY = """\
Pos(n) == n > 0
Small(n) == n < 3
AllPos(S) == \\A x \\in S : Pos(x)
AnyBig(S) == \\E x \\in S : x > 3
Both(a, b) == a /\\ b
Bad == 1 \\div 0 = 0
Sign(n) == CASE n = 0 -> "zero" [] n > 0 -> "pos"
"""

_SETS = st.sampled_from(["{}", "{-1, 2}", "1..4", "{x \\in 0..4 : x % 2 = 0}", "{3, 5}"])


def _ints(scope: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(["-1", "0", "2", "4", *scope])


@st.composite
def formulas(draw: st.DrawFn, depth: int = 3, scope: tuple[str, ...] = ()) -> str:
    """A boolean formula over LIBRARY, fully parenthesized; it may fail (``Bad``, CASE)."""
    i, j, s = draw(_ints(scope)), draw(_ints(scope)), draw(_SETS)
    atoms = [
        "TRUE",
        "FALSE",
        f"Pos({i})",
        f"Small({i})",
        f"AllPos({s})",
        f"AnyBig({s})",
        "Bad",
        f'Sign({i}) = "pos"',
        f"{i} < {j}",
        f"{i} \\in {s}",
    ]
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(atoms))
    v = f"v{depth}"

    def sub(inner: tuple[str, ...] = scope) -> str:
        return draw(formulas(depth - 1, inner))

    shape = draw(st.integers(0, 9))
    if shape == 0:
        return f"(~ {sub()})"
    if shape == 1:
        return f"({sub()} => {sub()})"
    if shape == 2:
        op = draw(st.sampled_from(["/\\", "\\/"]))
        return f"({op.join(sub() for _ in range(draw(st.integers(2, 3))))})"
    if shape in (3, 4):
        q = draw(st.sampled_from(["\\A", "\\E"]))
        return f"({q} {v} \\in {s} : {sub((*scope, v))})"
    if shape == 5:
        return f"(IF {sub()} THEN {sub()} ELSE {sub()})"
    if shape == 6:
        other = draw(st.sampled_from(["", f" [] OTHER -> {sub()}"]))
        return f"(CASE {sub()} -> {sub()} [] {sub()} -> {sub()}{other})"
    if shape == 7:
        return f"Both({sub()}, {sub()})"
    return draw(st.sampled_from(atoms))


@st.composite
def modules(draw: st.DrawFn) -> str:
    top = draw(st.integers(0, 2))
    if top == 0:  # an aligned bullet list, the textbook's layout
        items = draw(st.lists(formulas(), min_size=1, max_size=3))
        op = draw(st.sampled_from(["/\\", "\\/"]))
        return LIBRARY + "E ==\n" + "".join(f"  {op} {f}\n" for f in items)
    return LIBRARY + f"E == {draw(formulas())}\n"


@settings(max_examples=200, deadline=None)
@given(source=modules())
def test_explain_agrees_with_the_fast_path_on_generated_definitions(source: str) -> None:
    program = compile_module(parse(source, "gen.tla"))
    trace = explain_call(program, "E", ())
    assert trace.outcome == fast_outcome(program, "E", ())
    assert trace.children[0].outcome == trace.outcome
    assert_consistent(trace)
    assert_path_well_formed(trace)


# -- witnesses and where the failing path stops ---------------------------------------------------


def explain(source: str, name: str = "F", *args: Value) -> Trace:
    return explain_call(compile_module(parse(LIBRARY + source, "t.tla")), name, args)


def test_forall_witness_is_the_first_counterexample() -> None:
    trace = explain("F == \\A x \\in 1..6 : x < 4 \\/ x = 6")
    quant = trace.children[0]
    first = next(x for x in frozenset(range(1, 7)) if not (x < 4 or x == 6))
    assert first == 4  # 5 is a counterexample too, later in the iteration
    assert quant.witnesses == (("x", first),)
    assert quant.children[0].value is False
    assert [c.operands for c in quant.children[0].children] == [(("x", 4),), (("x", 4),)]


def test_forall_witness_binds_every_variable() -> None:
    quant = explain("F == \\A x \\in 1..2, y \\in 1..3 : x + y < 4").children[0]
    expected = next(
        (x, y) for x in frozenset({1, 2}) for y in frozenset({1, 2, 3}) if not x + y < 4
    )
    assert quant.witnesses == (("x", expected[0]), ("y", expected[1]))


def test_forall_witness_may_be_an_error() -> None:
    trace = explain("F == \\A x \\in 1..3 : 10 \\div (2 - x) > 0")
    quant = trace.children[0]
    assert quant.witnesses == (("x", 2),)
    assert trace.outcome == "error" and quant.children[0].outcome == "error"
    assert "division by zero" in reason(trace)
    assert failing_path(trace)[-1].error is not None


def test_failing_path_descends_through_calls_and_witnesses() -> None:
    trace = explain("F == AllPos({3, -1})")
    path = failing_path(trace)
    assert [t.definition for t in path if t.definition] == ["F", "AllPos", "Pos"]
    assert path[-1].text == "n > 0" and path[-1].operands == (("n", -1),)
    assert reason(trace) == "AllPos › Pos › for x = -1 › n > 0 is FALSE (where n = -1)"


def test_exists_false_stops_the_path() -> None:
    trace = explain("F == \\E x \\in 1..6 : x > 10")
    path = failing_path(trace)
    assert path[-1] is trace.children[0] and path[-1].is_exists
    assert [c.operands for c in path[-1].children] == [(("x", 1),), (("x", 2),), (("x", 3),)]
    assert reason(trace) == "no x satisfies it: \\E x \\in 1..6 : x > 10 is FALSE"


def test_exists_false_inside_a_call() -> None:
    path = failing_path(explain("F == Pos(1) /\\ AnyBig({1, 2})"))
    assert [t.definition for t in path if t.definition] == ["F", "AnyBig"]
    assert path[-1].is_exists and len(path[-1].children) == 2


def test_exists_over_empty_domain() -> None:
    trace = explain("F == \\E x \\in {} : x = 1")
    assert failing_path(trace)[-1].children == ()
    assert reason(trace).endswith("is FALSE (the domain is empty)")


def test_a_false_disjunction_is_explained_by_its_rule_not_its_shortcut_arm() -> None:
    trace = explain("F ==\n  \\/ Skipped\n  \\/ /\\ Pos(1)\n     /\\ Pos(-2)\nSkipped == 1 > 2")
    assert reason(trace) == "Pos › n > 0 is FALSE (where n = -2)"


def test_the_scheduler_s_anti_affinity_reason_is_named_not_the_skip_arm(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from schedspec.cli import main

    example = Path(__file__).resolve().parents[2] / "examples" / "zonal-web.yaml"
    assert main(["eval", str(example), "--pod", "shop/web-6c8d9f7b4d-gwjzg"]) == 0
    why = next(line for line in capsys.readouterr().out.splitlines() if "4 node(s)" in line)
    assert "InterPodAffinityOKAt: PodAntiAffinityOKAt ›" in why
    assert "InterPodAffinitySkippedAt" not in why


def test_every_conjunct_is_explained_even_after_a_false_one() -> None:
    trace = explain("F ==\n  /\\ FALSE\n  /\\ Bad\n  /\\ Pos(1)")
    assert [c.outcome for c in trace.children[0].children] == ["false", "error", "true"]
    assert trace.outcome == "false"


def test_a_recursive_definition_is_an_error_not_a_crash() -> None:
    trace = explain("F == G\nG == F")
    assert trace.outcome == "error"
    assert "recursed too deeply" in reason(trace)


def test_a_definition_with_arguments() -> None:
    trace = explain("F(r) == r.a > 1 /\\ Pos(r.a)", "F", record(a=1))
    assert trace.outcome == "false"
    assert reason(trace) == "r.a > 1 is FALSE (where r.a = 1)"


# -- reason() on the textbook spec ----------------------------------------------------------------

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: plain}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: gpu}
spec:
  taints: [{key: gpu, value: "yes", effect: NoSchedule}]
status: {phase: Pending, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: t}
spec:
  containers: [{name: c, image: busybox}]
"""


def test_reason_names_the_untolerated_taint(textbook: LoadedSpec) -> None:
    result = evaluate(textbook, loads(CLUSTER), pod="t/web")
    pair = next(p for p in result.pods[0].pairs if p.node == "gpu")
    taints = next(c for c in pair.conjuncts if c.label() == "FilterTaints")
    assert taints.outcome == "false"
    text = reason(taints)
    assert text.startswith('for Taint = [Effect |-> "NoSchedule", key |-> "gpu", value |-> "yes"]')
    assert "no Toleration to choose from" in text
    plain = next(p for p in result.pods[0].pairs if p.node == "plain")
    assert "FilterTaints" not in plain.failures


@pytest.mark.parametrize(("node", "phase"), [("plain", '""'), ("gpu", '"Pending"')])
def test_reason_shows_the_node_phase(textbook: LoadedSpec, node: str, phase: str) -> None:
    world = textbook.view.build(loads(CLUSTER))
    program = textbook.program.bind(world.constants)
    trace = explain_call(program, "FilterLifecycle", (world.pods["t/web"], world.nodes[node]))
    unschedulable, running = trace.children[0].children
    assert "free variable 'False' is not bound" in reason(unschedulable)
    assert (
        reason(running)
        == f'Node.Status.Phase = "Running" is FALSE (where Node.Status.Phase = {phase})'
    )
