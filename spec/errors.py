"""Errors and diagnostics of the spec language.

::

    SchedspecError                    (schedspec.errors)
     └── SpecError                    anything wrong with a spec
          ├── SpecSyntaxError         the text does not parse; .diagnostics (SPC0xx)
          ├── SpecCheckError          the checker found errors; .diagnostics (SPC1xx, SPC2xx)
          └── EvalError               evaluation failed at .span (undefined field, wrong kind, …)

A :class:`Diagnostic` renders as ``file:line:col: CODE severity: message``, then the source line
and a caret under the column. Codes are stable; the table :data:`CODES` names every one.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from schedspec.errors import SchedspecError
from schedspec.spec.ast import Span

__all__ = [
    "CODES",
    "Diagnostic",
    "EvalError",
    "Severity",
    "SpecCheckError",
    "SpecError",
    "SpecSyntaxError",
    "render_all",
]

CODES: dict[str, str] = {
    "SPC001": "unexpected token",
    "SPC002": "unexpected character",
    "SPC003": "unexpected end of input",
    "SPC004": "tab in indentation (junction lists align by column)",
    "SPC005": "expression nested too deeply",
    "SPC101": "undefined operator",
    "SPC102": "free variable",
    "SPC103": "wrong number of arguments",
    "SPC104": "duplicate definition",
    "SPC105": "name bound twice",
    "SPC106": "bound variable never used",
    "SPC107": "recursive definition",
    "SPC201": "type error",
    "SPC202": "string can never equal this field",
    "SPC203": "unknown field",
    "SPC204": "unreachable CASE arm",
    "SPC301": "action leaves a variable unconstrained",
    "SPC302": "prime outside an action",
    "SPC303": "prime on a name that is not a variable",
    "SPC304": "Init leaves a variable without a value",
}


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span

    def render(self, source: str | None = None) -> str:
        head = f"{self.span}: {self.code} {self.severity.value}: {self.message}"
        lines = source.splitlines() if source is not None else []
        if not 1 <= self.span.line <= len(lines):
            return head
        text = lines[self.span.line - 1]
        width = 1
        if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
            width = self.span.end_col - self.span.col
        caret = " " * (self.span.col - 1) + "^" * max(1, min(width, len(text) - self.span.col + 1))
        return f"{head}\n    {text}\n    {caret}"

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.span.file,
            "line": self.span.line,
            "col": self.span.col,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
        }


def render_all(diagnostics: Iterable[Diagnostic], source: str | None) -> str:
    return "\n".join(d.render(source) for d in diagnostics)


class SpecError(SchedspecError):
    """Anything wrong with a spec."""


class _WithDiagnostics(SpecError):
    def __init__(self, diagnostics: tuple[Diagnostic, ...], source: str | None = None) -> None:
        self.diagnostics = diagnostics
        self.source = source
        super().__init__(render_all(diagnostics, source))


class SpecSyntaxError(_WithDiagnostics):
    """The spec text does not parse."""


class SpecCheckError(_WithDiagnostics):
    """The checker found errors."""


class EvalError(SpecError):
    """Evaluating a definition failed at ``span``."""

    def __init__(self, message: str, span: Span) -> None:
        self.message = message
        self.span = span
        super().__init__(f"{span}: {message}")
