"""Printing ``schedspec find`` / ``schedspec diff`` answers (the commands are in :mod:`.solve`).

Exit codes: ``find`` 0 found, 1 none within the bounds; ``diff`` 0 the two agree within the
bounds, 1 a disagreement found; both 3 when the solver answered unknown (never read as unsat),
2 for bad input.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from schedspec.errors import UsageError
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.solve import Answer, diff, find, write

__all__ = ["EXIT_UNKNOWN", "run_solver_command"]

EXIT_UNKNOWN = 3


def _bounds(args: argparse.Namespace) -> Bounds:
    try:
        return Bounds(**{name: getattr(args, name) for name in Bounds.__dataclass_fields__})
    except ValueError as err:
        raise UsageError(str(err)) from None


def run_solver_command(args: argparse.Namespace, out: TextIO) -> int:
    bounds = _bounds(args)
    if args.all < 1:
        raise UsageError("--all must be at least 1")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.command == "find":
        answer = find(
            args.formula,
            args.spec,
            bounds,
            minimize=args.minimize,
            count=args.all,
            timeout=args.timeout,
            core=args.core,
        )
        source = f"schedspec find {args.formula!r} --spec {args.spec}"
        codes = {"sat": 0, "unsat": 1}
    else:
        a, _, b = args.predicate.partition("=")
        if not a:
            raise UsageError("--predicate needs a definition name")
        answer = diff(
            args.spec_a,
            args.spec_b,
            a,
            b or None,
            bounds,
            implies=args.implies,
            minimize=args.minimize,
            count=args.all,
            timeout=args.timeout,
            where=args.where,
        )
        source = f"schedspec diff {args.spec_a} {args.spec_b} --predicate {args.predicate}"
        if args.where:
            source += f" --where {args.where!r}"
        codes = {"sat": 1, "unsat": 0}
    written = write(answer, args.out, source=source) if args.out and answer.witnesses else []
    if args.json:
        data = answer.as_json()
        data["files"] = written
        json.dump(data, out, indent=2)
        print(file=out)
    else:
        _print(answer, args.command, written, out)
    return codes.get(answer.result, EXIT_UNKNOWN)


def _print(answer: Answer, command: str, written: list[str], out: TextIO) -> None:
    for note in answer.notes:
        print(f"note: {note}", file=out)
    if answer.result == "unknown":
        if answer.message.startswith("nothing was compared"):
            print(f"unknown: {answer.message} ({answer.seconds:.1f}s)", file=out)
            return
        hint = "; raise --timeout or lower the bounds"
        if "(see the notes)" in answer.message or "float64 rounding" in answer.message:
            hint = ""
        print(
            f"unknown: {answer.message} after {answer.seconds:.1f}s — this is NOT a proof "
            f"that no cluster exists{hint}",
            file=out,
        )
        return
    if answer.result == "unsat":
        print(f"unsat: {answer.message} ({answer.seconds:.2f}s)", file=out)
        if answer.core:
            print("these conjuncts cannot all hold (an unsat core):", file=out)
            for c in answer.core:
                print(f"  {c}", file=out)
        return
    what = "witness" if command == "find" else "disagreement"
    for k, w in enumerate(answer.witnesses, 1):
        head = (
            f"sat: {what} {k} of {len(answer.witnesses)}"
            if len(answer.witnesses) > 1
            else f"sat: {what} found"
        )
        print(f"{head} ({answer.seconds:.2f}s)", file=out)
        for var, obj in w.bindings.items():
            print(f"  {var} = {obj}", file=out)
        for name, verdict in w.verdicts.items():
            print(f"  {name}: {verdict}", file=out)
        if w.minimal:
            levels = ", ".join(
                f"{lvl} {'minimal' if ok else 'not proven minimal (time)'}"
                for lvl, ok in w.minimal.items()
            )
            print(f"  minimised: {levels}", file=out)
        print("---", file=out)
        print(w.yaml(), end="", file=out)
    for f in written:
        print(f"wrote {f}", file=out)
