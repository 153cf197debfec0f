"""AST mutants of the operational scheduler's plugins and preemption, judged by the checker.

A mutant is one small edit of one module of ``impl/`` — a flipped comparison, a dropped operand of
``and``/``or``, ``and``↔``or``, a removed ``not``, an integer constant ±1, ``return True``↔``return
False``, ``+``↔``-``, ``max``↔``min`` — in the spirit of mutmut and cosmic-ray, written here so that
every mutant applies in a forked child of a warm parent and costs only its campaign::

    mutants = enumerate_mutants()                      # deterministic, in reach and out of reach
    outcome = run_mutant(mutants[0], killer, examples=50, seed=0, timeout=60.0)
    outcome.status                                     # "killed" | "survived" | "timeout" | "error"

**Scope.** The default plugins the checker judges (``SCOPE``) and the preemption package. Sites in
queueing-hint functions (``is_schedulable_after_*``, ``events_to_register``) and in ``raise``
statements (error text) are enumerated but marked *out of reach*: the checker never calls them, so
a score over them would measure nothing. Sites in f-strings, docstrings, annotations, decorators
and ``__repr__``/``__str__`` are not mutated at all.

**Applying a mutant.** The mutated module is compiled from the edited AST (line numbers kept). When
the site lies in a function body, the function's code object is swapped in place
(``live.__code__ = mutated``): every reference to that function object — ``from … import`` names
in other modules, the plugin registry's factories, bound methods of plugins built at warm-up — runs
the mutated code, and nothing needs rebinding. A site outside any function body (a module
constant, a default argument, a class attribute) re-executes the whole mutated module into the
live module's ``__dict__`` and rebinds, in every loaded module, the names that held the replaced
objects. Either way this happens only in the forked child; the parent stays pristine.

**Killing.** A *killer* is ``f(examples, seed) -> problems`` run in the child; the mutant is killed
when the problems differ from the unmutated baseline's (normally none), when the killer raises, or
when the child dies; a child still running after ``timeout`` seconds is killed by the parent and
counted apart (``timeout``). ``campaign_killer`` runs the checker's short campaign
(``schedspec.checker.campaign.run_campaign``, undeclared disagreements are problems);
``preemption_killer`` the campaign and the properties over clusters made for preemption;
``corpus_killer`` the seed corpus (Z3 witness states, the warned states, the hand-checked
scenarios) through the same differential check and the decision-level properties;
``properties_killer`` the decision-level properties; ``pytest_killer`` the impl unit tests (the
stand-in used before the campaign existed).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import functools
import importlib
import io
import json
import os
import selectors
import signal
import sys
import time
import traceback
import types
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "OUT_OF_REACH_FUNCTIONS",
    "SCOPE",
    "Killer",
    "KillerChain",
    "Mutant",
    "Outcome",
    "StaleSource",
    "apply_mutant",
    "campaign_killer",
    "corpus_killer",
    "enumerate_mutants",
    "load_killer",
    "preemption_killer",
    "properties_killer",
    "pytest_killer",
    "run_in_child",
    "run_mutant",
    "run_mutants",
]

_PLUGINS = "schedspec.impl.plugins."
SCOPE: tuple[str, ...] = (
    _PLUGINS + "balanced_allocation",
    _PLUGINS + "default_preemption",
    _PLUGINS + "image_locality",
    _PLUGINS + "inter_pod_affinity",
    _PLUGINS + "node_affinity",
    _PLUGINS + "node_name",
    _PLUGINS + "node_ports",
    _PLUGINS + "node_resources_fit",
    _PLUGINS + "node_unschedulable",
    _PLUGINS + "pod_topology_spread",
    _PLUGINS + "resource_allocation",
    _PLUGINS + "taint_toleration",
    "schedspec.impl.preemption.evaluator",
    "schedspec.impl.preemption.pdb",
)
"""Modules mutated by default. Left out: ``coscheduling`` and ``node_number`` (not in the default
profile), ``default_binder``, ``priority_sort`` and ``scheduling_gates`` (binding, queue order and
PreEnqueue: no spec partner on the seam), the package ``__init__`` files (imports only)."""

OUT_OF_REACH_FUNCTIONS: tuple[str, ...] = (
    "is_schedulable_after_",
    "is_pod_schedulable_after_",
    "events_to_register",
)
"""Name prefixes of functions the checker never calls (queueing hints)."""

_NOT_MUTATED_FUNCTIONS = frozenset({"__repr__", "__str__"})

_CMP_FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_CMP_TEXT: dict[type[ast.cmpop], str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_SEQUENCE_CALLS = frozenset({"tuple", "list", "str", "sorted", "frozenset", "set", "dict"})


@dataclass(frozen=True)
class Mutant:
    """One edit of one module. ``site`` re-locates it: its ordinal among the module's mutations."""

    id: str
    module: str
    file: str
    line: int
    col: int
    operator: str
    original: str
    mutated: str
    function: str | None
    """Qualified name of the enclosing top-level function; None outside any function body."""
    reach: str
    """``""`` when the checker can see the site, else why not (``queueing hint``, …)."""
    site: int

    @property
    def in_reach(self) -> bool:
        return not self.reach

    @property
    def site_key(self) -> tuple[str, int]:
        """Sorts mutants in enumeration order within a file."""
        return (self.file, self.site)

    def describe(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}"
        return f"{where} {self.operator}: {self.original!r} -> {self.mutated!r}"


# ---------------------------------------------------------------- enumeration

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


# ---------------------------------------------------------------- applying


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


# ---------------------------------------------------------------- running


@dataclass(frozen=True)
class Outcome:
    """What became of a mutant: ``killed``, ``survived``, ``timeout`` or ``error`` (not applied)."""

    mutant: Mutant
    status: str
    detail: str
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "mutant": asdict(self.mutant),
            "status": self.status,
            "detail": self.detail,
            "seconds": round(self.seconds, 3),
        }


Killer = Callable[[int, int], list[str]]
"""``killer(examples, seed)``: the problems found (disagreements, failing tests); [] = none."""


def _problems(result: object) -> list[str]:
    undeclared = getattr(result, "undeclared", None)
    if undeclared is not None:
        return [getattr(d, "describe", lambda d=d: str(d))() for d in undeclared]
    if isinstance(result, (list, tuple)):
        return [str(p) for p in result]
    raise TypeError(
        f"a killer returns a list of problems or an object with .undeclared, got {result!r}"
    )


@functools.cache
def _loaded_spec() -> Any:
    """scheduler.tla, parsed once in the parent: children never re-read a file someone may be
    editing, and do not pay for parsing it."""
    from schedspec.spec.load import load_spec

    return load_spec("scheduler")


@functools.cache
def _checker() -> Any:
    from schedspec.checker.differential import Checker

    return Checker(_loaded_spec())


def campaign_killer(examples: int, seed: int) -> list[str]:
    """The checker's short campaign: every undeclared disagreement is a problem."""
    from schedspec.checker.campaign import run_campaign

    # Killing needs detection only: no shrinking, no minimising.
    result = run_campaign(examples=examples, seed=seed, checker=_checker(), shrink=False)
    return _problems(result)


SCENARIOS = "tests/spec/scenarios"


@functools.cache
def _corpus() -> tuple[Any, ...]:
    """The seeds, built once in the parent: the Z3 states (solved or read from the disk cache)
    and the warned states, then the hand-checked scenarios when run from a source tree."""
    import schedspec.impl
    from schedspec.checker.corpus import manifest_seeds, z3_seeds

    seeds = z3_seeds()
    scenarios = _module_file(schedspec.impl).parent.parent / SCENARIOS
    if scenarios.is_dir():
        seeds += manifest_seeds([scenarios])
    return tuple(seeds)


def corpus_killer(examples: int, seed: int) -> list[str]:
    """The seed corpus through the differential check (undeclared disagreements) and the
    decision-level properties (undeclared violations); ``examples`` is unused."""
    from schedspec.checker.campaign import run_campaign

    corpus = _corpus()
    result = run_campaign(examples=0, checker=_checker(), shrink=False, corpus=corpus)
    problems = _problems(result)
    for s in corpus:
        problems += _properties_problems(s.objects, seed)
    return problems


def _properties_problems(objects: list[dict[str, Any]], seed: int) -> list[str]:
    from schedspec.checker.properties import run_properties
    from schedspec.cluster import from_objects
    from schedspec.errors import ManifestError

    try:
        cluster = from_objects(objects)
    except ManifestError:
        return []
    report = run_properties(cluster, seed=seed, spec=_loaded_spec())
    undeclared = [v for v in report.violations if getattr(v, "declared", None) is None]
    return [v.describe() for v in undeclared]


def properties_killer(examples: int, seed: int) -> list[str]:
    """The decision-level properties on scheduling runs of generated clusters: every violation."""
    from schedspec.checker.strategies import cluster_objects

    return _properties_over(cluster_objects(), examples, seed)


def preemption_killer(examples: int, seed: int) -> list[str]:
    """The campaign over preemption clusters (``strategies.preemption_cluster_objects``), then
    the decision-level properties on scheduling runs of the same draws."""
    from schedspec.checker.strategies import preemption_cluster_objects

    return _campaign_and_properties(preemption_cluster_objects(), examples, seed)


def scoring_killer(examples: int, seed: int) -> list[str]:
    """The campaign over scoring clusters (``strategies.scoring_cluster_objects``: most pending
    pods feasible on several nodes, so every Score plugin ranks them), then the decision-level
    properties on scheduling runs of the same draws."""
    from schedspec.checker.strategies import scoring_cluster_objects

    return _campaign_and_properties(scoring_cluster_objects(), examples, seed)


def _campaign_and_properties(strategy: Any, examples: int, seed: int) -> list[str]:
    from schedspec.checker.campaign import run_campaign

    result = run_campaign(examples, seed, checker=_checker(), shrink=False, strategy=strategy)
    return _problems(result) + _properties_over(strategy, examples, seed)


def _properties_over(strategy: Any, examples: int, seed: int) -> list[str]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    problems: list[str] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(strategy)
    def judge(objects: list[dict[str, Any]]) -> None:
        problems.extend(_properties_problems(objects, seed))

    judge()
    return problems


PYTEST_TARGETS = ("tests/impl/plugins", "tests/impl/preemption")


def pytest_killer(examples: int, seed: int) -> list[str]:
    """Stand-in: the impl unit tests of plugins and preemption, in-process (arguments unused)."""
    import pytest

    import schedspec.impl

    root = _module_file(schedspec.impl).parent.parent
    targets = [str(root / t) for t in PYTEST_TARGETS]
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main([*targets, "-q", "-x", "-p", "no:cacheprovider", "-o", "addopts="])
    return [] if code == 0 else [f"pytest exit {int(code)}"]


_BUILTIN_KILLERS: dict[str, Killer] = {
    "campaign": campaign_killer,
    "corpus": corpus_killer,
    "preemption": preemption_killer,
    "properties": properties_killer,
    "pytest": pytest_killer,
    "scoring": scoring_killer,
}


def load_killer(spec: str) -> Killer:
    """A built-in killer (``campaign``, ``corpus``, ``preemption``, ``properties``, ``pytest``,
    ``scoring``) or ``module:function``, optionally ``@N``: always ``N`` examples for that
    killer (``properties@10`` beside a longer campaign)."""
    name, at, count = spec.partition("@")
    if at:
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"killer={spec!r}: the count after @ must be a positive integer")
        inner = load_killer(name)
        return lambda examples, seed: inner(int(count), seed)
    if spec in _BUILTIN_KILLERS:
        return _BUILTIN_KILLERS[spec]
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(
            f"killer={spec!r}: expected {', '.join(_BUILTIN_KILLERS)} or module:function"
        )
    killer = getattr(importlib.import_module(module_name), attr)
    if not callable(killer):
        raise ValueError(f"killer={spec!r}: {attr} is not callable")
    return lambda examples, seed: _problems(killer(examples=examples, seed=seed))


@dataclass
class KillerChain:
    """Killers run in order, each judged against its own unmutated baseline.

    ``warm_up`` runs every killer in the (unmutated) parent: it records the baseline problems and
    leaves imports, the loaded spec and the strategies warm for the forked children. A call
    returns ``["<name>: <first new problem>"]`` for the first killer whose problems differ from its
    baseline (a killer that raises differs), or ``[]``."""

    killers: Sequence[tuple[str, Killer]]
    baselines: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def warm_up(self, examples: int, seed: int) -> dict[str, float]:
        """Seconds each killer took on the unmutated code; raises if one of them raises."""
        seconds = {}
        for name, killer in self.killers:
            start = time.perf_counter()
            self.baselines[name] = sorted(killer(examples, seed))
            seconds[name] = time.perf_counter() - start
        return seconds

    def __call__(self, examples: int, seed: int) -> list[str]:
        for name, killer in self.killers:
            try:
                problems = sorted(killer(examples, seed))
            except Exception as exc:  # the mutant broke the code under test
                return [f"{name}: raised {type(exc).__name__}: {exc}"]
            baseline = self.baselines.get(name, [])
            if problems != baseline:
                new = [p for p in problems if p not in baseline]
                return [f"{name}: {new[0]}" if new else f"{name}: a baseline problem went away"]
        return []


def _child(mutant: Mutant | None, body: Callable[[], object], quiet: bool, write_fd: int) -> None:
    """Runs in the forked child: never returns."""
    status = 0
    try:
        if quiet:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
        try:
            if mutant is not None:
                apply_mutant(mutant)
        except Exception:
            payload: dict[str, object] = {"applied": False, "error": traceback.format_exc(limit=3)}
        else:
            try:
                payload = {"applied": True, "value": body()}
            except BaseException as exc:  # the mutant broke the code under test
                payload = {"applied": True, "raised": f"{type(exc).__name__}: {exc}"[:500]}
        data = json.dumps(payload, default=repr).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view) :]
    except BaseException:
        status = 1
    finally:
        os._exit(status)


@dataclass
class _Running:
    pid: int
    fd: int
    started: float
    buffer: bytearray


def _start(mutant: Mutant | None, body: Callable[[], object], quiet: bool) -> _Running:
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(mutant, body, quiet, write_fd)
    os.close(write_fd)
    return _Running(pid, read_fd, time.monotonic(), bytearray())


def _finish(run: _Running, timed_out: bool) -> dict[str, Any]:
    if timed_out:
        os.kill(run.pid, signal.SIGKILL)
    os.close(run.fd)
    _, status = os.waitpid(run.pid, 0)
    if timed_out:
        return {"timeout": True}
    if not run.buffer:
        return {"applied": True, "raised": f"child died (wait status {status})"}
    result: dict[str, Any] = json.loads(bytes(run.buffer))
    return result


def _pool(
    jobs: Sequence[tuple[Mutant | None, Callable[[], object]]],
    *,
    timeout: float,
    parallel: int,
    quiet: bool,
) -> Iterator[tuple[Mutant | None, dict[str, Any], float]]:
    """Run each (mutant, body) in its own forked child, ``parallel`` at a time."""
    pending = list(jobs)[::-1]
    running: dict[int, tuple[Mutant | None, _Running]] = {}
    selector = selectors.DefaultSelector()
    try:
        while pending or running:
            while pending and len(running) < parallel:
                mutant, body = pending.pop()
                run = _start(mutant, body, quiet)
                running[run.fd] = (mutant, run)
                selector.register(run.fd, selectors.EVENT_READ)
            now = time.monotonic()
            wait = min(run.started + timeout for _, run in running.values()) - now
            for key, _ in selector.select(max(wait, 0.0)):
                mutant, run = running[int(key.fd)]
                chunk = os.read(run.fd, 1 << 16)
                if chunk:
                    run.buffer.extend(chunk)
                    continue
                selector.unregister(run.fd)
                del running[run.fd]
                yield mutant, _finish(run, False), time.monotonic() - run.started
            now = time.monotonic()
            for fd, (mutant, run) in list(running.items()):
                if now - run.started >= timeout:
                    selector.unregister(fd)
                    del running[fd]
                    yield mutant, _finish(run, True), now - run.started
    finally:
        for _, run in running.values():
            _finish(run, True)
        selector.close()


def run_in_child(
    mutant: Mutant | None, body: Callable[[], object], timeout: float = 60.0
) -> object:
    """``body()``'s (JSON-able) value with ``mutant`` applied (None: a control run, unmutated),
    computed in a forked child; raises what went wrong there as RuntimeError/TimeoutError."""
    name = mutant.id if mutant is not None else "control"
    for _, result, _ in _pool([(mutant, body)], timeout=timeout, parallel=1, quiet=False):
        if result.get("timeout"):
            raise TimeoutError(f"{name}: still running after {timeout}s")
        if not result.get("applied"):
            raise RuntimeError(f"{name} did not apply:\n{result.get('error')}")
        if "raised" in result:
            raise RuntimeError(f"{name}: {result['raised']}")
        return result["value"]
    raise AssertionError("unreachable")


def _outcome(mutant: Mutant, result: dict[str, Any], seconds: float) -> Outcome:
    if result.get("timeout"):
        return Outcome(mutant, "timeout", "", seconds)
    if not result.get("applied"):
        return Outcome(mutant, "error", str(result.get("error", "")), seconds)
    if "raised" in result:
        return Outcome(mutant, "killed", f"raised {result['raised']}", seconds)
    problems = result["value"]
    if problems:
        return Outcome(mutant, "killed", str(problems[0]).splitlines()[0][:300], seconds)
    return Outcome(mutant, "survived", "", seconds)


def run_mutants(
    mutants: Sequence[Mutant],
    killer: Killer,
    *,
    examples: int,
    seed: int,
    timeout: float,
    parallel: int = 1,
    quiet: bool = True,
) -> Iterator[Outcome]:
    """Each mutant's outcome under ``killer`` (run in forked children), in completion order.

    The mutant is killed when ``killer`` reports a problem; wrap killers whose unmutated run is not
    clean in a :class:`KillerChain`, which reports only differences from the baseline."""
    jobs: list[tuple[Mutant | None, Callable[[], object]]] = [
        (m, lambda: killer(examples, seed)) for m in mutants
    ]
    for mutant, result, seconds in _pool(jobs, timeout=timeout, parallel=parallel, quiet=quiet):
        assert mutant is not None
        yield _outcome(mutant, result, seconds)


def run_mutant(
    mutant: Mutant, killer: Killer, *, examples: int, seed: int, timeout: float
) -> Outcome:
    """One mutant's outcome (see :func:`run_mutants`)."""
    return next(run_mutants([mutant], killer, examples=examples, seed=seed, timeout=timeout))
