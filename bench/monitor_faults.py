"""How many wrong decisions ``schedspec monitor`` catches: a recorded ``bench/monitor.py`` stream
replayed with some of the real scheduler's bindings judged as if they had gone to another node,
as a faulty scheduler would have bound them.

    python3 bench/monitor.py --record stream.jsonl          # a real run, recorded
    python3 bench/monitor_faults.py stream.jsonl [--every 25] [--seed 1]

Every ``--every``-th binding decision names another node than the stream's (the stream itself is
unchanged, so no other decision is judged on a cluster the real scheduler never made), one of
three kinds of wrong node, in turn:

- **taint**: a node whose ``NoSchedule`` taint the pod does not tolerate (``Feasible`` fails);
- **capacity**: a node without room for the pod's CPU request in the API server's state before
  the binding, by at least 500m (``Feasible`` fails — on the cache too, unless the informer was
  that far behind);
- **score**: the feasible node of lowest ``Viability`` in that state, when it scores at least 60
  below the best (``Best`` fails — unless a state around the decision makes it the best, which
  the monitor allows by design).

A moved binding is caught when the monitor reports a violation for that pod's binding. Printed:
per kind, moves made and caught, and those missed; violations on other decisions (expected 0);
and the baseline, the same stream with nothing moved (0 on the streams docs/live.md lists).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from schedspec.quantity import parse_quantity

Obj = dict[str, Any]
KINDS = ("taint", "capacity", "score")


def _cpu(pod: Obj) -> Fraction:
    """The pod's CPU request in cores (this workload has no init containers or overhead)."""
    return sum(
        (
            parse_quantity(((c.get("resources") or {}).get("requests") or {}).get("cpu", "0"))
            for c in pod["spec"].get("containers") or []
        ),
        Fraction(0),
    )


def _wrong_node(kind: str, pod: Obj, objects: dict[Any, Obj], spec: Any, builder: Any) -> str:
    """A node of ``kind`` for ``pod`` in ``objects`` (the API server's state), or '' — the
    spec's own verdicts pick it: ``TaintsOK`` false; ``FitOK`` false with the CPU short by at
    least 500m; the lowest ``Viability`` among the ``Feasible`` nodes."""
    from schedspec.checker.differential import SpecState
    from schedspec.checker.monitor_state import manifests

    state = SpecState(spec, builder.build(manifests(objects)))
    p = state.world.pods.get(f"{pod['metadata']['namespace']}/{pod['metadata']['name']}")
    if p is None:
        return ""
    nodes = sorted(state.world.nodes.items())
    if kind == "taint":
        return next((name for name, n in nodes if state.call("TaintsOK", p, n) is not True), "")
    if kind == "capacity":
        used = Counter[str]()
        for k, o in objects.items():
            if k[0] == "Pod" and o["spec"].get("nodeName"):
                used[o["spec"]["nodeName"]] += _cpu(o)
        for name, n in nodes:
            free = parse_quantity(objects[("Node", name)]["status"]["allocatable"]["cpu"])
            short = _cpu(pod) - (free - used[name])
            if state.call("FitOK", p, n) is not True and short >= Fraction(1, 2):
                return name
        return ""
    scores = {name: state.call("Viability", p, n) for name, n in nodes
              if state.call("Feasible", p, n) is True}  # fmt: skip
    if len(scores) < 2:
        return ""
    worst = min(scores, key=lambda n: (scores[n], n))
    return worst if max(scores.values()) - scores[worst] >= 60 else ""


def faulty_monitor(every: int) -> Any:
    """A monitor whose every ``every``-th binding decision names a wrong node instead of the
    one the stream shows (``KINDS`` in turn): the stream itself is untouched, so every other
    decision is judged on the cluster the real scheduler made."""
    from schedspec.checker.monitor import Monitor
    from schedspec.spec.load import load_spec

    class Faulty(Monitor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.bindings = 0
            self.moved: dict[str, str] = {}  # pod → the fault's kind

        def _decide(self, kind: str, pod: str, node: str, position: int, pins: Any) -> None:
            if kind == "binding":
                self.bindings += 1
                if self.bindings % every == 0:
                    fault = KINDS[(self.bindings // every) % len(KINDS)]
                    objects = self.history.objects_at(position, pins)
                    target = _wrong_node(fault, pins[("Pod", pod)], objects, self.spec,
                                         self.builder)  # fmt: skip
                    if target and target != node:
                        node, self.moved[pod] = target, fault
            super()._decide(kind, pod, node, position, pins)

    return Faulty(load_spec("scheduler"), minimise_steps=0)  # only whether it is caught


def judge(path: Path, monitor: Any) -> Any:
    for line in path.read_text(encoding="utf-8").splitlines():
        kind, obj, deleted = json.loads(line)
        monitor.feed(kind, obj, deleted)
    monitor.flush()
    return monitor.summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stream", type=Path, help="a bench/monitor.py --record file")
    parser.add_argument("--every", type=int, default=25, help="move every N-th binding")
    args = parser.parse_args()
    from schedspec.checker.monitor import Monitor
    from schedspec.spec.load import load_spec

    started = time.monotonic()
    faulty = faulty_monitor(args.every)
    summary = judge(args.stream, faulty)
    seconds = time.monotonic() - started
    kinds = faulty.moved
    caught = {v.pod for v in summary.violations if v.kind == "binding" and v.pod in kinds}
    others = [v for v in summary.violations if not (v.kind == "binding" and v.pod in kinds)]
    print(f"{args.stream}: every {args.every}th binding judged on a wrong node ({seconds:.0f} s)")
    for fault in KINDS:
        pods = [p for p, k in kinds.items() if k == fault]
        hit = sum(1 for p in pods if p in caught)
        rate = f"{100 * hit / len(pods):.0f} %" if pods else "-"
        print(f"  {fault:9} moved {len(pods):3}, caught {hit:3} ({rate})")
    missed = sorted(p for p in kinds if p not in caught)
    if missed:
        print(f"  missed: {', '.join(f'{p} ({kinds[p]})' for p in missed)}")
    print(f"  violations on other decisions: {len(others)}")
    started = time.monotonic()
    baseline = judge(args.stream, Monitor(load_spec("scheduler"), minimise_steps=0))
    print(f"  baseline, no binding moved: {len(baseline.violations)} violations "
          f"({time.monotonic() - started:.0f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
