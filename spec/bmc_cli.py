"""``schedspec bmc``: bounded model checking of a state-machine spec (``spec/kube/queue.tla``).

Exit codes: 0 every invariant holds for every behaviour of at most ``--steps`` steps within the
bounds, 1 a counterexample (printed as a trace: each step's action and what it changed), 2 bad
input (a spec that does not check, an unknown invariant), 3 the solver answered unknown (a
timeout), never read as holding.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import TextIO

from schedspec.errors import UsageError
from schedspec.spec import ast as A
from schedspec.spec.check import check
from schedspec.spec.compile.z3.bmc import BmcResult, bmc
from schedspec.spec.errors import SpecCheckError, SpecError
from schedspec.spec.kube.queue_view import PLUGINS, queue_constants
from schedspec.spec.parse import parse, parse_expr
from schedspec.spec.values import Fcn, Value, render

__all__ = ["add_parser", "run_bmc"]

EXIT_OK, EXIT_VIOLATED, EXIT_UNKNOWN = 0, 1, 3
_BUNDLED = {"queue": "queue.tla"}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bmc", help="bounded model checking of a state machine's invariants (queue.tla)"
    )
    p.add_argument("spec", metavar="SPEC", help="queue, or a .tla path of MODULE queue")
    p.add_argument("--steps", type=int, default=8, help="behaviours of at most K steps")
    p.add_argument("--pods", type=int, default=3, help="pods in the universe")
    p.add_argument("--nodes", type=int, default=2, help="nodes in the universe")
    p.add_argument("--plugins", type=int, default=2, help=f"the first N of {', '.join(PLUGINS)}")
    p.add_argument(
        "--inv",
        action="append",
        metavar="NAME|FORMULA",
        help="an invariant to check (default: every definition whose name ends in Inv)",
    )
    p.add_argument(
        "--no-pop-from-backoff",
        action="store_true",
        help="SchedulerPopFromBackoffQ off (KEP-5142; on by default in v1.34)",
    )
    p.add_argument(
        "--incremental",
        action="store_true",
        help="depth by depth: a shortest counterexample and the time per depth",
    )
    p.add_argument("--timeout", type=float, default=120.0, help="seconds for the whole run")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _read(spec: str) -> tuple[str, str]:
    if spec in _BUNDLED:
        ref = resources.files("schedspec.spec.kube") / _BUNDLED[spec]
        return f"spec/kube/{_BUNDLED[spec]}", ref.read_text(encoding="utf-8")
    path = Path(spec)
    if not path.is_file():
        raise UsageError(f"{spec}: no such spec file (bundled: {', '.join(_BUNDLED)})")
    return spec, path.read_text(encoding="utf-8")


def run_bmc(args: argparse.Namespace, out: TextIO) -> int:
    if args.steps < 0 or args.timeout <= 0:
        raise UsageError("--steps must be at least 0 and --timeout positive")
    file, text = _read(args.spec)
    module = parse(text, file)
    checked = check(module)
    if checked.errors:
        raise SpecCheckError(checked.errors, text)
    if module.name != "queue":
        raise UsageError(f"{file}: bmc knows the constants of MODULE queue only")
    try:
        constants = queue_constants(
            args.pods, args.nodes, args.plugins, pop_from_backoff=not args.no_pop_from_backoff
        )
    except ValueError as err:
        raise UsageError(str(err)) from None
    invariants = args.inv or [d.name for d in module.definitions if d.name.endswith("Inv")]
    for inv in invariants:
        _check_invariant(module, inv)
    started = time.monotonic()
    try:
        result = bmc(
            module,
            constants,
            invariants,
            args.steps,
            timeout=args.timeout,
            incremental=args.incremental,
        )
    except SpecError as err:
        raise UsageError(str(err)) from None
    seconds = time.monotonic() - started
    if args.json:
        doc = {**result.as_json(), "invariants": invariants, "seconds": round(seconds, 3)}
        json.dump(doc, out, indent=2)
        print(file=out)
    else:
        _print(file, args, invariants, result, seconds, out)
    return {"holds": EXIT_OK, "violated": EXIT_VIOLATED}.get(result.verdict, EXIT_UNKNOWN)


def _check_invariant(module: A.Module, text: str) -> None:
    """A definition's name, or a formula that checks in the module's scope (else exit 2)."""
    if any(d.name == text and not d.params for d in module.definitions):
        return
    if text.isidentifier():
        raise UsageError(f"--inv {text}: no definition of that name without parameters")
    expr = parse_expr(text, "<inv>")
    probe = A.Definition("$inv", (), expr, expr.span)
    module = replace(module, definitions=(*module.definitions, probe))
    errors = [d for d in check(module).errors if d.span.file == "<inv>"]
    if errors:
        raise SpecCheckError(tuple(errors), text)


def _print(
    file: str,
    args: argparse.Namespace,
    invariants: list[str],
    result: BmcResult,
    seconds: float,
    out: TextIO,
) -> None:
    bounds = f"{args.pods} pods, {args.nodes} nodes, {args.plugins} plugins"
    if result.verdict == "holds":
        names = ", ".join(invariants)
        print(
            f"{file}: {names} hold for every behaviour of k ≤ {result.steps} steps "
            f"within the bounds ({bounds}) [{seconds:.1f} s]",
            file=out,
        )
        return
    if result.verdict == "unknown":
        print(
            f"{file}: unknown at depth {result.steps} ({result.reason}); "
            f"nothing is claimed [{seconds:.1f} s]",
            file=out,
        )
        return
    print(
        f"{file}: {result.invariant} is violated after {result.steps} steps ({bounds}) "
        f"[{seconds:.1f} s]",
        file=out,
    )
    before: dict[str, Value] = {}
    for i, step in enumerate(result.trace):
        print(f"  {i:>2} {step.action}", file=out)
        for line in _changes(before, step.state):
            print(f"       {line}", file=out)
        before = step.state


def _changes(before: dict[str, Value], after: dict[str, Value]) -> list[str]:
    """``x = v`` for each variable that changed; a function's changed entries one by one."""
    lines = []
    for name, value in after.items():
        old = before.get(name, _NONE)
        if old == value:
            continue
        if isinstance(value, Fcn) and isinstance(old, Fcn) and old.keys() == value.keys():
            for k, v in value.items():
                if old[k] != v:
                    lines.append(f"{name}[{render(k)}] = {render(v)}")
        else:
            lines.append(f"{name} = {render(value)}")
    return lines


_NONE = object()
