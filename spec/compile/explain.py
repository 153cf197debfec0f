"""Why a definition is TRUE, FALSE or an error: a trace over the compiled closures.

The verdict at every level comes from the same compiled closure the fast path runs, so an
explanation can never disagree with the evaluation it explains; the trace only adds *where*:

- a conjunction/disjunction lists every item with its own outcome (all items, even those a
  short-circuit would skip, so a user sees every failing conjunct);
- a call to a definition descends into that definition's body with its arguments bound;
- ``∀`` that is not TRUE names the first counterexample binding (the *witness*) and explains the
  body under it; ``∃`` that is FALSE explains the body for the first few bindings;
- ``¬``, ``IF`` and ``CASE`` descend into the operand, the branch or the arm taken;
- any other node is a leaf: its value, and for a comparison the values of its operands.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from schedspec.spec import ast as A
from schedspec.spec.compile.python import Env, Program, iterate
from schedspec.spec.errors import EvalError
from schedspec.spec.values import Value, render

__all__ = ["Trace", "explain_call", "failing_path"]

_MAX_EXISTS_SHOWN = 3


@dataclass(frozen=True)
class Trace:
    """One evaluated node: its text, outcome, witnesses and the traces below it."""

    text: str
    span: A.Span
    value: Value = None
    error: EvalError | None = None
    definition: str | None = None
    witnesses: tuple[tuple[str, Value], ...] = ()
    operands: tuple[tuple[str, Value], ...] = ()
    children: tuple[Trace, ...] = field(default=())
    node: A.Expr | None = field(default=None, compare=False, repr=False)

    @property
    def is_exists(self) -> bool:
        return isinstance(self.node, A.Quant) and self.node.kind is A.QuantKind.EXISTS

    @property
    def outcome(self) -> str:
        """``"true"``, ``"false"``, ``"error"`` or the rendered value."""
        if self.error is not None:
            return "error"
        if self.value is True or self.value is False:
            return "true" if self.value else "false"
        return render(self.value)

    @property
    def failed(self) -> bool:
        return self.error is not None or self.value is False

    def label(self) -> str:
        return self.definition or self.text


def _text(program: Program, node: A.Expr | A.Definition, limit: int = 100) -> str:
    span = node.span
    lines = program.module.source_of(span.file).splitlines()
    if not 1 <= span.line <= len(lines):
        return type(node).__name__
    if span.end_line == span.line:
        text = lines[span.line - 1][span.col - 1 : span.end_col - 1]
    else:
        text = lines[span.line - 1][span.col - 1 :].rstrip() + " …"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Explainer:
    def __init__(self, program: Program) -> None:
        self.program = program

    def evaluate(self, node: A.Expr, env: Env) -> tuple[Value, EvalError | None]:
        try:
            return self.program.closure(node)(env), None
        except EvalError as err:
            return None, err

    def leaf(self, node: A.Expr, env: Env, **extra: Any) -> Trace:
        value, err = self.evaluate(node, env)
        return Trace(_text(self.program, node), node.span, value, err, node=node, **extra)

    def explain(self, node: A.Expr, env: Env) -> Trace:
        if isinstance(node, A.Junction):
            return self.junction(node, env)
        if isinstance(node, A.Apply | A.Name):
            return self.call(node, env)
        if isinstance(node, A.Unary) and node.op is A.UnOp.NOT:
            return self.leaf(node, env, children=(self.explain(node.operand, env),))
        if isinstance(node, A.Quant):
            return self.quant(node, env)
        if isinstance(node, A.If):
            return self.if_(node, env)
        if isinstance(node, A.Case):
            return self.case(node, env)
        if isinstance(node, A.Binary):
            return self.leaf(node, env, operands=self.operands(node, env))
        return self.leaf(node, env)

    def implies(self, node: A.Binary, env: Env) -> Trace:
        """A FALSE conjunct ``A ⇒ B`` is ``B`` (``A`` holds): the profile's guards
        (``∧ Runs(p, "filters", x) ⇒ …``) are transparent, the rule is the reason."""
        value, err = self.evaluate(node, env)
        if err is None and value is False:
            return self.explain(node.right, env)
        return self.leaf(node, env, operands=self.operands(node, env))

    def junction(self, node: A.Junction, env: Env) -> Trace:
        children = tuple(
            self.implies(item, env)
            if isinstance(item, A.Binary) and item.op is A.BinOp.IMPLIES
            else self.explain(item, env)
            for item in node.items
        )
        return self.leaf(node, env, children=children)

    def call(self, node: A.Apply | A.Name, env: Env) -> Trace:
        name = node.name
        if name in env or not self.program.has(name):
            return self.leaf(node, env)
        definition = self.program.definition(name)
        args = node.args if isinstance(node, A.Apply) else ()
        if len(args) != definition.arity:
            return self.leaf(node, env)
        inner: Env = {}
        for param, arg in zip(definition.params, args, strict=True):
            value, err = self.evaluate(arg, env)
            if err is not None:
                return self.leaf(node, env)
            inner[param.name] = value
        body = self.explain(definition.body, inner)
        return self.leaf(node, env, definition=name, children=(body,))

    def quant(self, node: A.Quant, env: Env) -> Trace:
        value, err = self.evaluate(node, env)
        base = Trace(_text(self.program, node), node.span, value, err, node=node)
        binds = self._binds(node)
        forall = node.kind is A.QuantKind.FORALL
        if forall and value is not True:
            return self._counterexample(base, node, binds, env)
        if not forall and value is False:
            return self._no_witness(base, node, binds, env)
        return base

    def _binds(self, node: A.Quant) -> list[tuple[str, Any, A.Bound]]:
        out: list[tuple[str, Any, A.Bound]] = []
        for b in node.bounds:
            domain = self.program.closure(b.domain)
            out.extend((binder.name, domain, b) for binder in b.names)
        return out

    def _each(self, binds: list[tuple[str, Any, A.Bound]], env: Env) -> Iterator[Env]:
        local = dict(env)
        try:
            for _ in iterate(binds, local, "a quantifier domain"):
                yield dict(local)
        except EvalError:
            return

    def _counterexample(self, base: Trace, node: A.Quant, binds: list[Any], env: Env) -> Trace:
        for inner in self._each(binds, env):
            body = self.explain(node.body, inner)
            if body.value is not True:
                witnesses = tuple((name, inner[name]) for name, _, _ in binds)
                return Trace(**{**_fields(base), "witnesses": witnesses, "children": (body,)})
        return base

    def _no_witness(self, base: Trace, node: A.Quant, binds: list[Any], env: Env) -> Trace:
        children = []
        for inner in self._each(binds, env):
            children.append(self.explain(node.body, inner))
            if len(children) == _MAX_EXISTS_SHOWN:
                break
        return Trace(**{**_fields(base), "children": tuple(children)})

    def if_(self, node: A.If, env: Env) -> Trace:
        cond, err = self.evaluate(node.cond, env)
        if err is not None or cond not in (True, False):
            return self.leaf(node, env, children=(self.explain(node.cond, env),))
        branch = node.then if cond else node.else_
        return self.leaf(
            node, env, children=(self.explain(node.cond, env), self.explain(branch, env))
        )

    def case(self, node: A.Case, env: Env) -> Trace:
        for arm in node.arms:
            guard, err = self.evaluate(arm.guard, env)
            if err is not None:
                return self.leaf(node, env, children=(self.explain(arm.guard, env),))
            if guard is True:
                return self.leaf(node, env, children=(self.explain(arm.body, env),))
        if node.other is not None:
            return self.leaf(node, env, children=(self.explain(node.other, env),))
        return self.leaf(node, env)

    def operands(self, node: A.Binary, env: Env) -> tuple[tuple[str, Value], ...]:
        out = []
        for side in (node.left, node.right):
            if isinstance(side, A.Num | A.Str | A.Bool):
                continue
            value, err = self.evaluate(side, env)
            if err is None:
                out.append((_text(self.program, side, 60), value))
        return tuple(out)


def _fields(t: Trace) -> dict[str, Any]:
    return {
        "text": t.text,
        "span": t.span,
        "value": t.value,
        "error": t.error,
        "definition": t.definition,
        "witnesses": t.witnesses,
        "operands": t.operands,
        "children": t.children,
        "node": t.node,
    }


def explain_call(program: Program, name: str, args: tuple[Value, ...]) -> Trace:
    """Evaluate definition ``name`` on ``args`` and explain the outcome."""
    definition = program.definition(name)
    env = {p.name: a for p, a in zip(definition.params, args, strict=True)}
    try:
        value, error = program.call(name, *args), None
    except EvalError as err:
        value, error = None, err
    try:
        body = _Explainer(program).explain(definition.body, env)
    except RecursionError:  # a recursive definition; program.call has reported it as an error
        body = Trace(_text(program, definition.body), definition.body.span, value, error)
    return Trace(name, definition.span, value, error, definition=name, children=(body,))


def failing_path(trace: Trace) -> list[Trace]:
    """The chain of failing traces from ``trace`` down to the deepest failing leaf; it stops at an
    ``∃`` that is FALSE (every candidate failed: descending into one would mislead). In a FALSE
    ``∨`` every item failed; the path follows the last one — the specs list a rule's shortcut arms
    (``InterPodAffinitySkippedAt``, "no terms") before the rule itself, and the rule is the reason
    (an error, if one item erred, is followed first)."""
    path = [trace]
    while not (path[-1].is_exists and path[-1].error is None):
        here = path[-1]
        failed = [c for c in here.children if c.failed]
        if not failed:
            break
        node = here.node
        disjunction = isinstance(node, A.Junction) and node.op is A.JunctionOp.OR
        erred = [c for c in failed if c.error is not None]
        path.append((erred or failed)[-1] if disjunction else failed[0])
    return path
