"""The generated-source backend against the closure backend: two compilers of one AST must agree.

The closure backend's tables (values, short-circuits, errors with their spans) are asked of this
backend too; then random expressions and modules, and the bundled specs on generated clusters,
are evaluated by both and every outcome compared — a value (as TLA+ prints it, so TRUE is not 1
and a set is not a sequence) or an error (message and span). The cases after that pin what a
compiler to Python could get wrong and the closure backend cannot: closures made in a loop,
LET definitions evaluated once, names that are Python keywords, string literals that look like
code.
"""

from __future__ import annotations

from typing import Any

import pytest
from ast_strategies import modules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_compile_python import (
    BOOM,
    ERROR_CASES,
    SHORT_CIRCUIT,
    VALUE_CASES,
    closed_exprs,
    unmark,
)

from schedspec.checker.strategies import cluster_objects, preemption_cluster_objects
from schedspec.cluster import from_objects
from schedspec.errors import UsageError
from schedspec.spec import ast as A
from schedspec.spec.compile.python import Program, compile_module
from schedspec.spec.compile.source import SourceProgram, compile_source, inline_set
from schedspec.spec.errors import EvalError
from schedspec.spec.kube.views import bind_arguments
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.parse import parse
from schedspec.spec.values import Value, record, render


def run(source: str, name: str = "F", *args: Value) -> Value:
    return compile_source(parse(source, "t.tla")).call(name, *args)


def outcome(program: Program | SourceProgram, name: str, *args: Value) -> tuple[str, Any]:
    try:
        return "value", render(program.call(name, *args))
    except EvalError as err:
        return "error", (err.message, err.span)


# -- the closure backend's tables -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in VALUE_CASES], ids=[c[0] for c in VALUE_CASES]
)
def test_value(source: str, expected: Value) -> None:
    value = run(source)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in SHORT_CIRCUIT], ids=[c[0] for c in SHORT_CIRCUIT]
)
def test_short_circuit(source: str, expected: bool) -> None:
    assert run(source) is expected


@pytest.mark.parametrize(
    "source",
    [f"F == TRUE /\\ {BOOM}", f"F == FALSE \\/ {BOOM}", f"F == TRUE => {BOOM}"],
    ids=["and", "or", "implies"],
)
def test_undecided_operand_is_evaluated(source: str) -> None:
    with pytest.raises(EvalError, match="division by zero"):
        run(source)


@pytest.mark.parametrize(
    ("marked", "message"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_error(marked: str, message: str) -> None:
    source, (line, col, end_line, end_col) = unmark(marked)
    with pytest.raises(EvalError) as info:
        run(source)
    assert message in info.value.message
    assert info.value.span == A.Span("t.tla", line, col, end_line, end_col)


def test_call_checks_arity_and_binds_arguments() -> None:
    program = compile_source(parse("G(x, y) == x - y", "t.tla"))
    assert program.call("G", 5, 2) == 3
    with pytest.raises(EvalError, match="'G' takes 2 arguments, given 1"):
        program.call("G", 5)


def test_bind_replaces_constants_and_forgets_memoised_values() -> None:
    program = compile_source(parse("F == Objects + 1", "t.tla"), {"Objects": 1})
    assert program.call("F") == 2
    assert program.bind({"Objects": 41}).call("F") == 42
    with pytest.raises(EvalError, match="free variable 'Objects' is not bound"):
        program.bind({}).call("F")


# -- the two backends on the same input -----------------------------------------------------------


def same_outcomes(module: A.Module, calls: list[tuple[str, tuple[Value, ...]]]) -> None:
    closures, source = compile_module(module), compile_source(module)
    for name, args in calls:
        assert outcome(source, name, *args) == outcome(closures, name, *args), name


@settings(max_examples=400, deadline=None)
@given(expr=closed_exprs)
def test_random_expressions_agree(expr: A.Expr) -> None:
    same_outcomes(A.Module(None, (A.Definition("E", (), expr),)), [("E", ())])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module=modules(), arg=st.sampled_from([1, "a", True]))
def test_random_modules_agree(module: A.Module, arg: Value) -> None:
    """Mostly ill-formed (names bound by nothing, wrong kinds): the errors must agree too."""
    names = {d.name: d for d in module.definitions}  # the last of a duplicated name wins
    same_outcomes(module, [(n, (arg,) * len(d.params)) for n, d in names.items()])


@pytest.fixture(scope="module", params=["scheduler", "textbook"])
def bundled(request: pytest.FixtureRequest) -> LoadedSpec:
    return load_spec(request.param)


def test_bundled_specs_compile_without_falling_back(bundled: LoadedSpec) -> None:
    assert bundled.runner.fallbacks == {}
    assert bundled.runner.inlined  # small definitions are compiled in place


def _check_cluster(spec: LoadedSpec, objects: list[dict[str, Any]]) -> None:
    world = spec.view.build(from_objects(objects))
    closures, source = spec.program.bind(world.constants), spec.runner.bind(world.constants)
    pods = [world.pods[k] for k in world.pending] or list(world.pods.values())
    for d in spec.module.definitions:
        for pod in pods:
            for node in world.nodes.values():
                try:
                    args = bind_arguments(d, pod, node, world)
                except UsageError:
                    break  # a parameter no entry point binds (helpers): called from the others
                assert outcome(source, d.name, *args) == outcome(closures, d.name, *args), d.name
                if not any(p.name in ("n", "Node") for p in d.params):
                    break
            if not d.params:
                break


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(objects=cluster_objects(max_nodes=5, max_pods=6))
def test_bundled_specs_agree_on_generated_clusters(
    bundled: LoadedSpec, objects: list[dict[str, Any]]
) -> None:
    _check_cluster(bundled, objects)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(objects=preemption_cluster_objects())
def test_scheduler_spec_agrees_on_preemption_clusters(objects: list[dict[str, Any]]) -> None:
    _check_cluster(load_spec("scheduler"), objects)


# -- what compiling to Python could get wrong -----------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a LAMBDA keeps the value its variable had when it was made, not the loop's last
        ("F == {f(10) : f \\in {LAMBDA y : x + y : x \\in {1, 2, 3}}}", frozenset({11, 12, 13})),
        # … and so does a LET definition made inside a loop and carried out of it by a LAMBDA
        (
            "F == {f(10) : f \\in {LET a == x * 100 IN LAMBDA y : a + y : x \\in {1, 2}}}",
            frozenset({110, 210}),
        ),
        # a LET definition that is never used is never evaluated
        ("F == LET bad == 1 \\div 0 IN 3", 3),
        # LET definitions using each other, inside a quantifier
        ("F == \\A x \\in 1..3 : LET a == x + 1\n  b == a * a IN b > x", True),
        # names that are Python keywords or built-ins
        ("F == LET class == 2\n  None == 3 IN \\E def \\in {class} : def + None = 5", True),
        # a string literal that reads as Python stays a string
        ("F == \"') or __import__('os') or ('\"", "') or __import__('os') or ('"),
        # Sum(LAMBDA …) compiles to a loop; a later term's error wins over an earlier non-integer
        ("F == Sum(LAMBDA x : x * 2, <<1, 2, 3>>)", 12),
    ],
    ids=["lambda-in-loop", "let-in-loop", "unused-let", "let-in-quantifier", "keywords", "string",
         "sum-loop"],
)  # fmt: skip
def test_python_pitfalls(source: str, expected: Value) -> None:
    assert run(source) == expected
    assert compile_module(parse(source, "t.tla")).call("F") == expected


@pytest.mark.parametrize(
    ("source", "message", "col"),
    [
        ("F == Sum(LAMBDA x : IF x = 1 THEN TRUE ELSE 1 \\div 0, <<1, 2>>)", "by zero", 45),
        ("F == Sum(LAMBDA x : IF x = 1 THEN TRUE ELSE x, <<1, 2>>)", "Sum expects integers", 6),
        ("F == Sum(LAMBDA x : x, 3)", "Sum expects a set or a sequence, got integer 3", 6),
    ],
    ids=["term-error-wins", "non-integer", "not-a-collection"],
)
def test_sum_loop_errors_as_the_builtin(source: str, message: str, col: int) -> None:
    for compile_ in (compile_source, compile_module):
        with pytest.raises(EvalError, match=message) as info:
            compile_(parse(source, "t.tla")).call("F")
        assert info.value.span.col == col


def test_inline_set_takes_small_flat_definitions_only() -> None:
    module = parse(
        "Get(f, k) == IF k \\in DOMAIN f THEN f[k] ELSE 0\n"
        'Alloc(n) == Get(n, "cpu")\n'
        "Loop(S) == \\A x \\in S : x > 0\n"
        "UsesLoop(S) == Loop(S)\n"
        "Rec(x) == Rec(x)\n",
        "t.tla",
    )
    assert inline_set(module) == {"Get", "Alloc"}


def test_a_definition_too_deep_for_python_falls_back_to_closures() -> None:
    deep = "F == " + "IF TRUE THEN " * 120 + "1" + " ELSE 0" * 120
    program = compile_source(parse(deep, "t.tla"))
    assert "F" in program.fallbacks
    assert program.call("F") == 1


def test_a_literal_checked_to_be_a_boolean_compiles_without_warnings() -> None:
    # ``~1`` and ``1 ∧ TRUE`` check a literal with ``is``: Python warns of that at compile time,
    # which a user loading such a spec would see on stderr (and, under ``-W error``, the
    # definitions would silently fall back to the closure backend)
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program = compile_source(parse("F == ~1\nG == 1 /\\ TRUE\n", "t.tla"))
    assert [str(w.message) for w in caught] == []
    assert program.fallbacks == {}
    assert outcome(program, "F")[0] == outcome(program, "G")[0] == "error"


# -- values reused, within a definition and from one binding to the next --------------------------


def test_a_pure_expression_computed_on_every_path_is_computed_once() -> None:
    program = compile_source(parse("F(p) == p.spec.x + p.spec.x * K + K", "t.tla"), {"K": 2})
    text = program.sources["F"]
    assert text.count(".get('spec'") == 1
    assert text.count("CONSTS.get('K'") == 1
    assert program.call("F", record(spec=record(x=3))) == 3 + 3 * 2 + 2


@pytest.mark.parametrize("arg", [True, False])
def test_a_value_computed_in_one_branch_is_computed_again_after_it(arg: bool) -> None:
    """``R.a`` computed in an IF or CASE arm, or in an operand a junction may skip, is not reused
    after it: where the first evaluation did not run, the second raises, at its own span."""
    module = parse(
        "R == [b |-> 1]\n"
        "F(c) == (IF c THEN R.a ELSE 0) + R.a\n"
        "G(c) == (c /\\ R.a = 1) \\/ R.a = 2\n"
        "H(c) == CASE c -> R.a [] OTHER -> R.b + R.a\n"
        "J(c) == \\A x \\in IF c THEN {} ELSE {1} : R.b = x\n",
        "t.tla",
    )
    same_outcomes(module, [(name, (arg,)) for name in "FGHJ"])


def test_bind_forgets_the_values_of_definitions_whose_constants_changed() -> None:
    program = compile_source(
        parse("F(x) == x + K\nG(x) == F(x) * 2\nH(x) == x * 3\nI(x) == H(x) + L", "t.tla"),
        {"K": 1, "L": 5},
    )
    assert program.reads == {
        "F": {"K"},
        "G": {"K"},  # through F
        "H": frozenset(),
        "I": {"L"},
    }
    assert (program.call("G", 1), program.call("I", 1)) == (4, 8)
    rebound = program.bind({"K": 10, "L": 5}, keep=True)
    assert (rebound.call("G", 1), rebound.call("I", 1)) == (22, 8)
    assert program.bind({"K": 10, "L": 6}, keep=True).call("I", 1) == 9
    assert program.forget().call("G", 2) == 24
