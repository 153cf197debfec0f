"""The Z3 backend's errors: a construct it cannot compile, a compile past its deadline."""

from __future__ import annotations

from schedspec.spec.errors import SpecError


class Z3Unsupported(SpecError):
    """A construct the Z3 backend cannot compile; the message names it and where it is."""


class CompileTimeout(Exception):
    """Building the formula ran past the caller's deadline (an *unknown*, never an *unsat*)."""
