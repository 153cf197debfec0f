"""Enumeration: every mutable site of a module's AST in source order, each with its edits, as
``Mutant``s (deterministic)."""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import types
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedspec.checker.mutants.scope import (
    _CMP_FLIPS,
    _CMP_TEXT,
    _NOT_MUTATED_FUNCTIONS,
    _SEQUENCE_CALLS,
    OUT_OF_REACH_FUNCTIONS,
    SCOPE,
    Mutant,
)

_Edit = tuple[str, Callable[[Any], ast.AST]]
"""An operator's name and a function building the replacement of a (deep-copied) node."""


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _sequence_like(node: ast.AST) -> bool:
    """Operands for which ``+`` is not integer addition (as far as the AST can tell)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, (ast.JoinedStr, ast.List, ast.Tuple, ast.ListComp, ast.Set, ast.Dict)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _SEQUENCE_CALLS
    if isinstance(node, ast.BinOp):
        return _sequence_like(node.left) or _sequence_like(node.right)
    return False


def _cmp_edits(node: ast.Compare) -> Iterator[_Edit]:
    for i, op in enumerate(node.ops):
        flipped = _CMP_FLIPS.get(type(op))
        if flipped is None:
            continue

        def edit(n: ast.Compare, i: int = i, flipped: type[ast.cmpop] = flipped) -> ast.AST:
            n.ops[i] = flipped()
            return n

        yield f"cmp {_CMP_TEXT[type(op)]} -> {_CMP_TEXT[flipped]}", edit


def _boolop_edits(node: ast.BoolOp) -> Iterator[_Edit]:
    other = ast.Or if isinstance(node.op, ast.And) else ast.And
    word = "and" if isinstance(node.op, ast.And) else "or"

    def swap(n: ast.BoolOp) -> ast.AST:
        n.op = other()
        return n

    yield f"{word} -> {'or' if word == 'and' else 'and'}", swap
    for i in range(len(node.values)):

        def drop(n: ast.BoolOp, i: int = i) -> ast.AST:
            rest = n.values[:i] + n.values[i + 1 :]
            return rest[0] if len(rest) == 1 else ast.BoolOp(op=n.op, values=rest)

        yield f"drop {word}-operand {i + 1}", drop


def _edits(node: ast.AST) -> Iterator[_Edit]:
    """Every mutation of ``node`` itself, in a fixed order."""
    if isinstance(node, ast.Compare):
        yield from _cmp_edits(node)
    elif isinstance(node, ast.BoolOp):
        yield from _boolop_edits(node)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "remove not", lambda n: n.operand
    elif _is_int(node):
        yield "int +1", lambda n: ast.Constant(n.value + 1)
        yield "int -1", lambda n: ast.Constant(n.value - 1)
    elif isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
        if type(node.value.value) is bool:
            flipped = not node.value.value
            yield f"return {flipped}", lambda n: ast.Return(ast.Constant(flipped))
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Add, ast.Sub)):
        operands = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.value,)
        if not any(_sequence_like(o) for o in operands):
            minus = isinstance(node.op, ast.Sub)

            def arith(n: Any, minus: bool = minus) -> ast.AST:
                n.op = ast.Add() if minus else ast.Sub()
                return n  # type: ignore[no-any-return]

            yield ("arith - -> +" if minus else "arith + -> -"), arith
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("max", "min")
    ):
        other = "min" if node.func.id == "max" else "max"

        def swap_call(n: ast.Call, other: str = other) -> ast.AST:
            n.func = ast.Name(other, ast.Load())
            return n

        yield f"{node.func.id} -> {other}", swap_call


@dataclass
class _Site:
    node: ast.AST
    parent: ast.AST
    field: str
    index: int | None
    function: str | None
    reach: str


def _children(node: ast.AST) -> Iterator[tuple[str, int | None, ast.AST]]:
    for name, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            yield name, None, value
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield name, i, item


def _skipped_field(node: ast.AST, field: str) -> bool:
    if field in ("annotation", "returns", "decorator_list", "type_comment"):
        return True
    return isinstance(node, ast.Expr) and field == "value" and isinstance(node.value, ast.Constant)


def _guards_raise_only(node: ast.AST) -> bool:
    """``if bad: raise …``: the test only decides whether bad input (a config) is reported."""
    return (
        isinstance(node, ast.If)
        and not node.orelse
        and all(isinstance(s, ast.Raise) for s in node.body)
    )


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Module-level functions and methods of module-level classes, by qualified name."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}.{item.name}", item


def _hint_helpers(tree: ast.Module) -> frozenset[str]:
    """Private helpers (``_name``) that only queueing hints — or other such helpers — use.

    A name counts as used by a function when the function's body mentions it (``_f(…)``,
    ``self._f``); mentions at module or class level count as uses by the scheduling path."""
    users: dict[str, set[str]] = {}
    in_functions: set[int] = set()
    functions = dict(_functions(tree))
    for qual, fn in functions.items():
        for node in ast.walk(fn):
            in_functions.add(id(node))
            name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
            if isinstance(name, str):
                users.setdefault(name, set()).add(qual)
    for node in ast.walk(tree):
        if id(node) in in_functions:
            continue
        if isinstance(node, ast.Name):
            users.setdefault(node.id, set()).add("")
        elif isinstance(node, ast.Attribute):
            users.setdefault(node.attr, set()).add("")
    out = {q for q in functions if q.rsplit(".", 1)[-1].startswith(OUT_OF_REACH_FUNCTIONS)}
    changed = True
    while changed:
        changed = False
        for qual in functions:
            name = qual.rsplit(".", 1)[-1]
            if qual in out or not name.startswith("_") or name.startswith("__"):
                continue
            callers = users.get(name, set()) - {qual}
            if callers and callers <= out:
                out.add(qual)
                changed = True
    return frozenset(out)


def _walk(tree: ast.Module) -> Iterator[_Site]:
    """Every mutable node in source order, with where it hangs and whether the checker sees it."""
    hint_helpers = _hint_helpers(tree)

    def visit(node: ast.AST, qual: list[str], function: str | None, reach: str) -> Iterator[_Site]:
        # A def's default arguments run where the def runs: outside its own body.
        outer = function
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and len(qual)
            and (function == ".".join(qual))
        ):
            outer = None
        for field, index, child in _children(node):
            if _skipped_field(node, field) or isinstance(child, ast.JoinedStr):
                continue
            c_qual, c_function, c_reach = qual, function if field == "body" else outer, reach
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if child.name in _NOT_MUTATED_FUNCTIONS:
                    continue
                c_qual = [*qual, child.name]
                if not isinstance(child, ast.ClassDef) and c_function is None:
                    c_function = ".".join(c_qual)
                if (
                    child.name.startswith(OUT_OF_REACH_FUNCTIONS)
                    or ".".join(c_qual) in hint_helpers
                ):
                    c_reach = "queueing hint"
            elif isinstance(child, ast.Raise):
                c_reach = reach or "error text"
            elif field == "test" and _guards_raise_only(node):
                c_reach = reach or "error path"
            yield _Site(child, node, field, index, c_function, c_reach)
            yield from visit(child, c_qual, c_function, c_reach)

    return visit(tree, [], None, "")


def _module_file(module: types.ModuleType) -> Path:
    if module.__file__ is None:
        raise ValueError(f"module {module.__name__} has no source file")
    return Path(module.__file__)


def _display_path(path: Path) -> str:
    import schedspec.impl

    root = _module_file(schedspec.impl).parent.parent
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _segment(lines: Sequence[str], node: ast.AST, replacement: ast.AST) -> tuple[str, str]:
    """The original source line and that line with ``node`` replaced (unparsed if multi-line)."""
    lineno, end = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0)
    if lineno and lineno == end:
        raw = lines[lineno - 1].encode()
        col, end_col = getattr(node, "col_offset", 0), getattr(node, "end_col_offset", 0)
        new = raw[:col].decode() + ast.unparse(replacement) + raw[end_col:].decode()
        return lines[lineno - 1].strip(), new.strip()
    return ast.unparse(node), ast.unparse(replacement)


@functools.cache
def _source(name: str) -> str:
    """The module's source as first read: later edits of the file (by anyone) are not seen, and a
    mismatch with the imported code is caught when a mutant is applied (``StaleSource``)."""
    return _module_file(importlib.import_module(name)).read_text()


@functools.cache
def _module_mutants(name: str) -> tuple[Mutant, ...]:
    module = importlib.import_module(name)
    path = _module_file(module)
    source = _source(name)
    lines = source.splitlines()
    display = _display_path(path)
    out: list[Mutant] = []
    seen: Counter[str] = Counter()
    for site in _walk(ast.parse(source)):
        for operator, edit in _edits(site.node):
            replacement = edit(copy.deepcopy(site.node))
            original, mutated = _segment(lines, site.node, replacement)
            line, col = getattr(site.node, "lineno", 0), getattr(site.node, "col_offset", 0)
            key = f"{display}:{line}:{col}:{operator}"
            seen[key] += 1  # `1 <= w <= 100`: two flips of one node read alike
            out.append(
                Mutant(
                    id=key if seen[key] == 1 else f"{key}#{seen[key]}",
                    module=name,
                    file=display,
                    line=line,
                    col=col,
                    operator=operator,
                    original=original,
                    mutated=mutated,
                    function=site.function,
                    reach=site.reach,
                    site=len(out),
                )
            )
    return tuple(out)


def enumerate_mutants(modules: Sequence[str] = SCOPE) -> list[Mutant]:
    """Every mutant of ``modules``, in module order then source order (deterministic)."""
    return [m for name in modules for m in _module_mutants(name)]
