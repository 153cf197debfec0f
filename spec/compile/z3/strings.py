"""Symbolic strings: codes into a finite universe of strings, held in Z3 bit-vectors."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import z3

from schedspec.spec.compile.z3.errors import Z3Unsupported


class Universe:
    """The finite set of strings a symbolic string may take, each with an integer code."""

    def __init__(self, strings: Iterable[str] = ()) -> None:
        self.strings: list[str] = []
        self._code: dict[str, int] = {}
        for s in strings:
            self.code(s)

    def code(self, s: str) -> int:
        c = self._code.get(s)
        if c is None:
            if len(self.strings) == 1 << STRING_BITS:
                raise Z3Unsupported(
                    f"more than {1 << STRING_BITS} distinct strings (spec literals and the "
                    f"cluster's label keys and values): the Z3 backend codes strings in "
                    f"{STRING_BITS} bits"
                )
            c = self._code[s] = len(self.strings)
            self.strings.append(s)
        return c

    def known(self, s: str) -> int | None:
        return self._code.get(s)

    def __len__(self) -> int:
        return len(self.strings)


STRING_BITS = 8
"""Strings are codes into the universe, held in Z3 bit-vectors: equalities between them
bit-blast to SAT, which decides these finite-domain problems far faster than integer arithmetic.
Eight bits hold both specs' literals and the bounded cluster's strings (about 70) with room for a
query's own; halving the width from 16 halved the solve time of a 30 × 30 Feasible query."""


def string_var(name: str) -> Any:
    return z3.BitVec(name, STRING_BITS)


@functools.cache
def string_val(code: int) -> Any:
    return z3.BitVecVal(code, STRING_BITS)


class SStr:
    """A symbolic string: ``z`` is a Z3 bit-vector, the code of a string of the universe."""

    __slots__ = ("z",)

    def __init__(self, z: Any) -> None:
        self.z = z

    def __repr__(self) -> str:
        return f"SStr({self.z})"
