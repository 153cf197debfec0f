"""Kubernetes ``resource.Quantity`` parsing: exact values and Go's rounding.

Quantities are kept in manifests as written (string or number); ``schedspec.cluster`` guarantees
they are valid: ``k8s.io/apimachinery`` ``resource.Quantity`` syntax, see ``parse_quantity``.
Deliberate differences from Go: a bare suffix or sign (``Mi``, ``.``, ``-``), which Go reads as 0,
is rejected as a typo; exponents beyond ±1000 are rejected; and the loader
(``schedspec.shapes.quantity_problem``) rejects a value above 2^63-1, which Go caps (binary
suffixes) or lets overflow int64 (decimal ones).
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction

__all__ = ["milli_value", "parse_quantity", "value"]

_QUANTITY = re.compile(
    r"(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?"
    r"(?:(?P<bin>Ki|Mi|Gi|Ti|Pi|Ei)|[eE](?P<exp>[+-]?[0-9]+)|(?P<dec>[numkMGTPE]?))"
)
_BINARY_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_NANO = 10**9


def parse_quantity(q: str | int | float) -> Fraction:
    """The exact value of a ``resource.Quantity``; ValueError if ``q`` is not one.

    Syntax: optional sign, digits with optional fraction (``.5``, ``1.``), then a binary suffix
    (Ki Mi Gi Ti Pi Ei), a decimal suffix (n u m "" k M G T P E) or an exponent (``1e3``,
    ``5E-3``). Numbers count as written. Like Go, a non-zero magnitude below 1n rounds up to 1n.
    """
    return _parse(_checked(q))


def _checked(q: object) -> str | int | float:
    # before a cache: an unhashable non-quantity must still be a ValueError
    if isinstance(q, bool) or not isinstance(q, str | int | float):
        raise ValueError(f"invalid quantity {q!r}")
    return q


@functools.lru_cache(maxsize=4096, typed=True)
def _parse(q: str | int | float) -> Fraction:
    # Cached: generated clusters repeat a few quantities thousands of times. Typed, because a
    # float counts as its repr: 1e23 is "1e+23", not the integer the float equals.
    if isinstance(q, float) and not math.isfinite(q):
        raise ValueError(f"invalid quantity {q!r}")
    text = q if isinstance(q, str) else repr(q)
    m = _QUANTITY.fullmatch(text)
    if m is None or not (m["int"] or m["frac"]):
        raise ValueError(f"invalid quantity {text!r}")
    number = Fraction(f"{m['int'] or '0'}.{m['frac'] or '0'}") * _suffix_factor(m)
    nanos = math.ceil(number * _NANO)
    return Fraction(-nanos if m["sign"] == "-" else nanos, _NANO)


def _suffix_factor(m: re.Match[str]) -> Fraction:
    if m["bin"]:
        return Fraction(2 ** _BINARY_SUFFIX[m["bin"]])
    exponent = int(m["exp"]) if m["exp"] else _DECIMAL_SUFFIX[m["dec"]]
    if abs(exponent) > 1000:
        raise ValueError(f"quantity exponent out of range: {exponent}")
    return Fraction(10) ** exponent


def milli_value(q: str | int | float) -> int:
    """``ceil(q * 1000)``: Go's ``Quantity.MilliValue`` (rounds up)."""
    return _milli_value(_checked(q))


def value(q: str | int | float) -> int:
    """``ceil(q)``: Go's ``Quantity.Value`` (rounds up)."""
    return _value(_checked(q))


# Both sides of a check convert every request of every pod: cached past the parse, as the
# arithmetic on the exact Fraction costs as much again.
@functools.lru_cache(maxsize=4096, typed=True)
def _milli_value(q: str | int | float) -> int:
    return math.ceil(_parse(q) * 1000)


@functools.lru_cache(maxsize=4096, typed=True)
def _value(q: str | int | float) -> int:
    return math.ceil(_parse(q))
