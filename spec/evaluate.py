"""Evaluate a spec on a cluster: for each pending pod × node, the filter verdict, the failing
conjuncts and the score — what ``schedspec eval`` prints.

The verdict is TLA+'s: the filter definition evaluated left to right with short-circuit, so an error
in a conjunct that a FALSE one before it guards is never reached. The *failing conjuncts* are every
top-level conjunct of the filter definition that is FALSE or an error, each evaluated on its own, so
a user sees all reasons at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schedspec.cluster import Cluster
from schedspec.errors import UsageError
from schedspec.spec import ast as A
from schedspec.spec.compile.explain import Trace, explain_call, failing_path
from schedspec.spec.errors import EvalError
from schedspec.spec.kube.views import World, bind_arguments
from schedspec.spec.load import LoadedSpec
from schedspec.spec.values import Fcn, Value, render

__all__ = ["Evaluation", "PairResult", "PodResult", "evaluate", "reason"]


@dataclass(frozen=True)
class PairResult:
    node: str
    verdict: str  # "true" | "false" | "error"
    failures: tuple[str, ...] = ()
    error: str | None = None
    score: int | None = None
    score_error: str | None = None
    trace: Trace | None = None
    conjuncts: tuple[Trace, ...] = ()


@dataclass(frozen=True)
class PodResult:
    key: str
    pairs: tuple[PairResult, ...]

    @property
    def feasible(self) -> tuple[str, ...]:
        return tuple(p.node for p in self.pairs if p.verdict == "true")


@dataclass(frozen=True)
class Evaluation:
    spec: str
    filter: str
    score: str | None
    pods: tuple[PodResult, ...]

    def as_json(self) -> dict[str, Any]:
        pods: dict[str, Any] = {}
        for pod in self.pods:
            pods[pod.key] = {
                "feasible": list(pod.feasible),
                "failures": {p.node: list(p.failures) for p in pod.pairs if p.verdict != "true"},
                "errors": {p.node: p.error for p in pod.pairs if p.error is not None},
                "scores": {p.node: p.score for p in pod.pairs if p.score is not None},
                "score_errors": {p.node: p.score_error for p in pod.pairs if p.score_error},
            }
        return {"spec": self.spec, "filter": self.filter, "score": self.score, "pods": pods}


def _error_text(err: EvalError) -> str:
    return f"{err.message} ({err.span})"


def reason(trace: Trace) -> str:
    """One line: the chain of failing definitions down to the deepest failing leaf."""
    path = failing_path(trace)
    steps = [t.definition for t in path[1:] if t.definition]
    steps += [f"for {k} = {_short(v)}" for t in path[:-1] for k, v in t.witnesses]
    leaf = path[-1]
    if leaf.error is not None:
        detail = f"error: {_error_text(leaf.error)}"
    elif leaf.is_exists and isinstance(leaf.node, A.Quant):
        detail = _no_witness(leaf.node, leaf)
    else:
        detail = f"{leaf.text} is {leaf.outcome.upper()}"
        shown = [f"{k} = {_short(v)}" for k, v in (*leaf.witnesses, *leaf.operands)]
        if shown:
            detail += f" (where {', '.join(shown)})"
    return " › ".join([*steps, detail])


def _no_witness(node: A.Quant, leaf: Trace) -> str:
    names = ", ".join(b.name for bound in node.bounds for b in bound.names)
    if not leaf.children:
        return f"no {names} to choose from: {leaf.text} is FALSE (the domain is empty)"
    return f"no {names} satisfies it: {leaf.text} is FALSE"


def _short(v: Value) -> str:
    text = render(v)
    return text if len(text) <= 60 else text[:59] + "…"


def _judge(spec: LoadedSpec, world: World, pod: Fcn, node_name: str, explain: bool) -> PairResult:
    program, view = spec.program, spec.view
    node = world.nodes[node_name]
    args = bind_arguments(program.definition(view.filter), pod, node, world)
    if not explain:
        error = None
        try:
            verdict = "true" if program.call(view.filter, *args) is True else "false"
        except EvalError as err:
            verdict, error = "error", _error_text(err)
        score, score_error = _score(spec, world, pod, node, verdict)
        return PairResult(node_name, verdict, error=error, score=score, score_error=score_error)
    trace = explain_call(program, view.filter, args)
    verdict = trace.outcome if trace.outcome in ("true", "false") else "error"
    conjuncts = _top_conjuncts(trace)
    failures = tuple(c.label() for c in conjuncts if c.failed)
    error = _error_text(trace.error) if trace.error is not None else None
    score, score_error = _score(spec, world, pod, node, verdict)
    return PairResult(node_name, verdict, failures, error, score, score_error, trace, conjuncts)


def _top_conjuncts(trace: Trace) -> tuple[Trace, ...]:
    """The filter's conjuncts: below the entry point, through calls of one definition and the
    branch an IF took, down to the first conjunction (the list of rules a user wants to see)."""
    node = trace
    while True:
        if isinstance(node.node, A.Junction) and node.node.op is A.JunctionOp.AND:
            return node.children
        if node.definition is not None and len(node.children) == 1:
            node = node.children[0]
        elif isinstance(node.node, A.If) and len(node.children) == 2:
            node = node.children[1]
        else:
            return (node,) if node is not trace else trace.children


def _score(
    spec: LoadedSpec, world: World, pod: Fcn, node: Fcn, verdict: str
) -> tuple[int | None, str | None]:
    name = spec.view.score
    if name is None or not spec.program.has(name):
        return None, None
    if spec.view.scores_feasible_only and verdict != "true":
        return None, None
    args = bind_arguments(spec.program.definition(name), pod, node, world)
    try:
        value = spec.program.call(name, *args)
    except EvalError as err:
        return None, _error_text(err)
    if value.__class__ is not int:
        return None, f"{name} is not an integer"
    return int(value), None


def evaluate(
    spec: LoadedSpec, cluster: Cluster, *, pod: str | None = None, explain: bool = True
) -> Evaluation:
    """Judge every pending pod (or just ``pod``, "ns/name") against every node."""
    if not spec.program.has(spec.view.filter):
        raise UsageError(
            f"{spec.file}: no definition {spec.view.filter}, with which the {spec.view.name} "
            "view decides feasibility"
        )
    world = spec.view.build(cluster)
    spec.program.bind(world.constants)
    keys = world.pending
    if pod is not None:
        if pod not in world.pods:
            known = ", ".join(sorted(world.pods)[:10]) or "none"
            raise UsageError(f"no pod {pod!r} in the cluster (pods: {known})")
        keys = (pod,)
    results = []
    for key in keys:
        pairs = tuple(_judge(spec, world, world.pods[key], n, explain) for n in world.nodes)
        results.append(PodResult(key, pairs))
    return Evaluation(spec.name, spec.view.filter, spec.view.score, tuple(results))
