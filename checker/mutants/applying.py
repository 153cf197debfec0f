"""Applying a mutant in this process: the function's code object swapped in place, or the
whole mutated module re-executed and what other modules imported rebound."""

from __future__ import annotations

import ast
import copy
import importlib
import sys
import types
from collections.abc import Iterator
from typing import Any

from schedspec.checker.mutants.enumeration import _edits, _module_file, _source, _walk
from schedspec.checker.mutants.scope import Mutant


def _mutated_tree(mutant: Mutant) -> ast.Module:
    tree = ast.parse(_source(mutant.module))
    ordinal = 0
    for site in _walk(tree):
        for _, edit in _edits(site.node):
            if ordinal == mutant.site:
                new = edit(copy.deepcopy(site.node))
                ast.copy_location(new, site.node)
                if site.index is None:
                    setattr(site.parent, site.field, new)
                else:
                    getattr(site.parent, site.field)[site.index] = new
                return ast.fix_missing_locations(tree)
            ordinal += 1
    raise LookupError(f"mutant {mutant.id} not found in {mutant.file} (source changed?)")


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _code_objects(const)


def _live_functions(module: types.ModuleType, qualname: str) -> list[types.FunctionType]:
    """The function objects of ``module`` named ``qualname`` (a property may hold several)."""
    obj: Any = module
    parts = qualname.split(".")
    for part in parts[:-1]:
        obj = vars(obj)[part]
    raw = vars(obj)[parts[-1]]
    candidates = [raw]
    if isinstance(raw, (staticmethod, classmethod)):
        candidates = [raw.__func__]
    elif isinstance(raw, property):
        candidates = [f for f in (raw.fget, raw.fset, raw.fdel) if f is not None]
    found = []
    for f in candidates:
        while hasattr(f, "__wrapped__"):
            f = f.__wrapped__
        if isinstance(f, types.FunctionType):
            found.append(f)
    return found


class StaleSource(LookupError):
    """The module imported in this process is not the source the mutants were made from."""


def _code_named(code: types.CodeType, qualname: str) -> types.CodeType | None:
    name = qualname.split(".")[-1]
    return next(
        (c for c in _code_objects(code) if c.co_qualname == qualname and c.co_name == name), None
    )


def _swap_code(module: types.ModuleType, qualname: str, code: types.CodeType) -> None:
    target = _code_named(code, qualname)
    pristine = _code_named(compile(_source(module.__name__), code.co_filename, "exec"), qualname)
    if target is None or pristine is None:
        raise LookupError(f"no code object {qualname} in the mutated {module.__name__}")
    for live in _live_functions(module, qualname):
        if live.__code__.co_firstlineno == target.co_firstlineno:
            if live.__code__.co_code != pristine.co_code:
                raise StaleSource(f"{module.__name__}.{qualname} changed since it was imported")
            live.__code__ = target
            return
    raise LookupError(
        f"no live function {module.__name__}.{qualname} at line {target.co_firstlineno}"
    )


def _reexec(module: types.ModuleType, code: types.CodeType) -> None:
    """Run the mutated module in the live namespace and rebind what other modules imported."""
    before = dict(vars(module))
    exec(code, vars(module))
    changed = {
        name: (old, vars(module)[name])
        for name, old in before.items()
        if name in vars(module) and vars(module)[name] is not old and not name.startswith("__")
    }
    by_identity = {id(old): new for old, new in changed.values() if callable(old)}
    for other in list(sys.modules.values()):
        if other is None or other is module:
            continue
        namespace = getattr(other, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for attr, value in list(namespace.items()):
            if id(value) in by_identity:
                namespace[attr] = by_identity[id(value)]
            elif attr in changed and value is changed[attr][0]:
                namespace[attr] = changed[attr][1]


def apply_mutant(mutant: Mutant) -> None:
    """Make ``mutant`` live in this process. Irreversible: call it in a forked child only."""
    module = importlib.import_module(mutant.module)
    code = compile(_mutated_tree(mutant), str(_module_file(module)), "exec")
    if mutant.function is not None:
        _swap_code(module, mutant.function, code)
    else:
        _reexec(module, code)
