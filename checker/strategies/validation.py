"""Checks of the strategies' arguments when a strategy is built: a bad one raises
``hypothesis.errors.InvalidArgument``, as Hypothesis's own do."""

from __future__ import annotations

from hypothesis.errors import InvalidArgument


def _check_count(name: str, given: object) -> int:
    if isinstance(given, bool) or not isinstance(given, int):
        raise InvalidArgument(f"{name}={given!r} must be an integer")
    if given < 0:
        raise InvalidArgument(f"{name}={given!r} must be at least 0")
    return given


def _check_range(low_name: str, low: object, high_name: str, high: object) -> None:
    lo, hi = _check_count(low_name, low), _check_count(high_name, high)
    if lo > hi:
        raise InvalidArgument(f"{low_name}={lo} must be at most {high_name}={hi}")


def _check_name(argument: str, name: object) -> str:
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"{argument}={name!r} must be a non-empty string")
    return name
