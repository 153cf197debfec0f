"""A module compiled to Python source (``SourceProgram``, ``compile_source``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

from schedspec.spec import ast as A
from schedspec.spec.compile import python as P
from schedspec.spec.compile.source.generator import _Generator
from schedspec.spec.compile.source.inline import inline_set
from schedspec.spec.compile.source.runtime import _MISS, _RUNTIME
from schedspec.spec.compile.source.scope import _Shapes
from schedspec.spec.errors import EvalError
from schedspec.spec.values import Value

# ---- the program --------------------------------------------------------------------------------


RECURSED = "evaluation recursed too deeply (recursive definition?)"
_KEPT = 256  # memoised values a definition keeps across binds that leave its constants alone
_ANY = "*"  # read by a definition on the closure backend: any constant, changed at every bind


def _constants_reached(
    reads: Mapping[int, set[str]], calls: Mapping[int, set[int]]
) -> dict[int, frozenset[str]]:
    """Per definition, the constants it reads or a definition it calls reads, directly or not."""
    out = {i: set(r) for i, r in reads.items()}
    grew = True
    while grew:
        grew = False
        for i, callees in calls.items():
            for j in callees:
                if not out[j] <= out[i]:
                    out[i] |= out[j]
                    grew = True
    return {i: frozenset(r) for i, r in out.items()}


class SourceProgram:
    """A module compiled to Python source: :meth:`bind`, :meth:`call`, :meth:`has` and
    :meth:`definition` as :class:`.python.Program` has them (no closures by node: explaining
    and coverage stay on the closure backend)."""

    def __init__(self, module: A.Module) -> None:
        self.module = module
        self.constants: dict[str, Value] = {}
        self.sources: dict[str, str] = {}
        self.fallbacks: dict[str, str] = {}  # definition → why it runs on the closure backend
        self._definitions = {d.name: d for d in module.definitions}
        self._ns: dict[str, Any] = {**_RUNTIME, "CONSTS": self.constants}
        self._memos: list[dict[Any, Value]] = []
        self._closures: P.Program | None = None
        names = {d.name: (f"d{i}", d) for i, d in enumerate(module.definitions)}
        self.inlined = inline_set(module)
        shapes = _Shapes()  # inlined bodies are shared between definitions
        self._fns: dict[str, tuple[Any, int]] = {}
        reads: dict[int, set[str]] = {}  # the constants each definition reads itself
        calls: dict[int, set[int]] = {}
        for i, d in enumerate(module.definitions):
            py, memo = f"d{i}", f"m{i}"
            self._ns[memo] = {}
            self._memos.append(self._ns[memo])
            try:
                gen = _Generator(self._ns, names, self.inlined, shapes)
                text = gen.module_definition(py, memo, d)
                with warnings.catch_warnings():
                    # ``(1) is True``: a literal where a value is checked to be a boolean
                    # (``~1``) is deliberate, and its answer (no) is the one meant
                    warnings.simplefilter("ignore", SyntaxWarning)
                    code = compile(text, f"<spec {d.name}>", "exec")
            except (P.UnsupportedNode, SyntaxError, RecursionError, MemoryError) as err:
                self.fallbacks[d.name] = f"{type(err).__name__}: {err}"
                self._ns[py] = self._fallback(d.name)
                reads[i] = {_ANY}
                continue
            self.sources[d.name] = text
            exec(code, self._ns)  # generated from the AST: no spec text in it
            reads[i] = gen.constants_read
            calls[i] = {int(names[n][0][1:]) for n in gen.calls}
        for name, (py, d) in names.items():
            self._fns[name] = (self._ns[py], len(d.params))
        reached = _constants_reached(reads, calls)
        self.reads = {d.name: reached[i] for i, d in enumerate(module.definitions)}
        """Per definition, the free constants its value may depend on besides its arguments."""
        # With ``bind(…, keep=True)`` a definition keeps its memo from one binding to the next
        # while the constants it reads are bound to the same objects (a checker's clusters share
        # most pods, and the scheduler view gives an unchanged constant its old object): ``bind``
        # empties the others, and a kept memo once it has grown past ``_KEPT``.
        groups: dict[frozenset[str], list[dict[Any, Value]]] = {}
        for i, table in enumerate(self._memos):
            groups.setdefault(reached[i], []).append(table)
        self._groups = list(groups.items())
        self._read = frozenset().union(*groups) - {_ANY}

    def _fallback(self, name: str) -> Any:
        if self._closures is None:
            self._closures = P.compile_module(self.module, self.constants)
        invoke = self._closures._targets[name].invoke
        return lambda *args: invoke(args)

    def bind(self, constants: Mapping[str, Value], *, keep: bool = False) -> SourceProgram:
        """Set the free constants a view provides; forgets every memoised value, or with
        ``keep`` only those that may depend on a constant bound to another object than before
        (:attr:`reads`). Keeping pays for a view that gives an equal value of the next cluster
        the same object, as the scheduler view does: a memo's lookups then stop at identity,
        where an equal copy would be compared field by field."""
        old = self.constants
        changed = {_ANY} | {
            n for n in self._read if constants.get(n, _MISS) is not old.get(n, _MISS)
        }
        self.constants.clear()
        self.constants.update(constants)
        for read, memos in self._groups:
            if keep and changed.isdisjoint(read):
                for memo in memos:
                    if len(memo) > _KEPT:
                        memo.clear()
            else:
                for memo in memos:
                    memo.clear()
        if self._closures is not None:
            self._closures.bind(constants)
        return self

    def forget(self) -> SourceProgram:
        """Forget every memoised value (``bind`` keeps those of definitions whose constants
        stayed the same objects)."""
        for memo in self._memos:
            memo.clear()
        return self

    def has(self, name: str) -> bool:
        return name in self._definitions

    def definition(self, name: str) -> A.Definition:
        return self._definitions[name]

    def call(self, name: str, *args: Value) -> Value:
        """Evaluate definition ``name`` on ``args``; raises :class:`EvalError`."""
        fn, arity = self._fns[name]
        if len(args) != arity:
            d = self._definitions[name]
            raise EvalError(P._arity_message(name, arity, len(args)), d.span)
        try:
            return fn(*args)
        except RecursionError:
            d = self._definitions[name]
            raise EvalError(RECURSED, d.span) from None

    def function(self, name: str) -> tuple[Callable[..., Value], int]:
        """The function :meth:`call` runs for ``name``, and how many arguments it takes: a caller
        that calls it many times checks the count once, and turns a ``RecursionError`` into
        the error :data:`RECURSED` says as ``call`` does."""
        return self._fns[name]


def compile_source(module: A.Module, constants: Mapping[str, Value] | None = None) -> SourceProgram:
    """Compile every definition of ``module`` to Python source; ``constants`` as in
    :func:`.python.compile_module`."""
    program = SourceProgram(module)
    if constants:
        program.bind(constants)
    return program
