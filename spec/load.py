"""Load a spec: parse → check → compile, plus the view that shows clusters to it.

``load_spec("textbook")`` loads a bundled spec by name; any other argument is a path to a ``.tla``
file, whose view is named by its module name (``---- MODULE textbook ----``) or given explicitly.
Check *errors* do not stop loading: undefined names compile to closures that fail when evaluation
reaches them, so the seed's defective spec can still be evaluated and its defects seen in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path

from schedspec.errors import UsageError
from schedspec.spec.ast import Definition, Module
from schedspec.spec.check import Checked, check
from schedspec.spec.compile.python import Program, compile_module
from schedspec.spec.compile.source import SourceProgram
from schedspec.spec.kube.views import VIEWS, View
from schedspec.spec.parse import parse

__all__ = ["BUNDLED", "LoadedSpec", "load_spec", "read_spec", "with_extended"]

BUNDLED = {
    "scheduler": "scheduler.tla",
    "kube": "scheduler.tla",
    "textbook": "textbook.tla",
    "autoscaler": "autoscaler.tla",
}


@dataclass(frozen=True)
class LoadedSpec:
    name: str
    file: str
    checked: Checked
    program: Program
    view: View

    @property
    def module(self) -> Module:
        return self.checked.module

    @cached_property
    def runner(self) -> SourceProgram:
        """The module compiled to Python source (:mod:`.compile.source`): the same values and
        errors as :attr:`program`, several times faster, no explaining. The checker runs this;
        ``eval``, ``explain`` and coverage run :attr:`program`."""
        return SourceProgram(self.module)


def read_spec(spec: str) -> tuple[str, str]:
    """(file name to show, text) of a bundled spec name or a path."""
    if spec in BUNDLED:
        ref = resources.files("schedspec.spec.kube") / BUNDLED[spec]
        return f"spec/kube/{BUNDLED[spec]}", ref.read_text(encoding="utf-8")
    path = Path(spec)
    if not path.is_file():
        known = ", ".join(sorted(BUNDLED))
        raise UsageError(f"{spec}: no such spec file (bundled specs: {known})")
    try:
        return spec, path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"{spec}: cannot read: {err}") from None


def view_for(module: Module, view: str | None) -> View | None:
    name = view or module.name
    if name is None or name not in VIEWS:
        if view is not None:
            raise UsageError(f"unknown view '{view}' (views: {', '.join(sorted(VIEWS))})")
        return None
    return VIEWS[name]


def with_extended(module: Module, seen: tuple[str, ...] = ()) -> Module:
    """``module`` with the definitions of the bundled modules it EXTENDS put first (recursively),
    as TLA+ merges them; a name defined twice is check's SPC104."""
    if not module.extends:
        return module
    definitions: list[Definition] = []
    variables, constants = list(module.variables), list(module.constants)
    sources = {module.file: module.source}
    for name in module.extends:
        if name not in BUNDLED or name in seen:
            why = "extends itself" if name in seen else f"bundled: {', '.join(sorted(BUNDLED))}"
            raise UsageError(f"{module.file}: EXTENDS {name}: no such module ({why})")
        file, text = read_spec(name)
        base = with_extended(parse(text, file), (*seen, module.name or ""))
        definitions.extend(base.definitions)
        variables[:0], constants[:0] = base.variables, base.constants
        sources.update(base.sources or {base.file: base.source})
    return Module(
        module.name,
        (*definitions, *module.definitions),
        file=module.file,
        source=module.source,
        sources=sources,
        variables=tuple(variables),
        constants=tuple(constants),
    )


def load_spec(spec: str, view: str | None = None) -> LoadedSpec:
    """Parse, check and compile ``spec``; raises SpecSyntaxError / UsageError."""
    file, text = read_spec(spec)
    module = with_extended(parse(text, file))
    chosen = view_for(module, view)
    if chosen is None:
        raise UsageError(
            f"{file}: module {module.name or '(unnamed)'} names no known view; "
            f"pass --view ({', '.join(sorted(VIEWS))})"
        )
    checked = check(module, chosen.schema)
    return LoadedSpec(spec, file, checked, compile_module(module), chosen)
