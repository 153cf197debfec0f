"""Pictures of a scheduling run's queue, from its trace (``schedspec schedule --trace FILE``).

``places(records)`` replays the trace's records into *steps*: after each record that moved a pod,
where every pod is — ``activeQ``, ``backoffQ``, ``unschedulablePods``, ``inFlight`` (popped, its
scheduling and binding cycles running) or ``bound`` — and the virtual time. ``timeline`` draws
them as swim lanes (one row a pod, one column a step, the colour its place; the virtual time
written where it moves on, so the many moves of one instant stay apart); ``animate`` moves the
pods between five columns step by step (a ``FuncAnimation``, e.g. for ``to_jshtml()`` in a
notebook). ``--mark T`` outlines the first step at virtual time T in red (a counterexample's
unexplained step). matplotlib is imported when a picture is drawn (the ``test`` extra).

::

    python3 -m schedspec.checker.queue_picture t.jsonl -o timeline.png [--mark 16] [--title TEXT]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["COLOURS", "PLACES", "Step", "animate", "main", "places", "timeline"]

PLACES = ("activeQ", "backoffQ", "unschedulablePods", "inFlight", "bound")
COLOURS = {
    "activeQ": "#43a047",
    "backoffQ": "#fdd835",
    "unschedulablePods": "#e53935",
    "inFlight": "#1e88e5",
    "bound": "#78909c",
}


@dataclass(frozen=True)
class Step:
    """Where every pod is after one record (pods not yet seen, or gone, are absent)."""

    t: float
    where: Mapping[str, str]
    what: str  # the record, in words: "default/p: backoffQ -> activeQ (BackoffComplete)"


def places(records: Iterable[Mapping[str, Any]]) -> list[Step]:
    """The steps of a trace (see the module docstring); cycle records change no place."""
    where: dict[str, str] = {}
    steps: list[Step] = []
    for r in records:
        pod, kind = str(r.get("pod", "")), r.get("type")
        if kind == "queue":
            dst = str(r.get("to") or "")
            if dst:
                where[pod] = dst
            elif where.get(pod) != "inFlight":  # deleted; a bound pod leaves by its bind
                where.pop(pod, None)
            what = f"{pod}: {r.get('from') or '(new)'} -> {dst or '(gone)'} ({r.get('event')})"
        elif kind == "bind" and r.get("result") == "bound":
            where[pod] = "bound"
            what = f"{pod}: bound on {r.get('node')}"
        elif kind == "delete":
            where.pop(pod, None)
            what = f"{pod}: deleted from {r.get('node')}"
        else:
            continue
        steps.append(Step(float(r.get("t", 0.0)), dict(where), what))
    return steps


def read(path: str | Path) -> list[dict[str, Any]]:
    """The records of a trace file (JSON lines)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _pods(steps: Sequence[Step]) -> list[str]:
    seen: dict[str, None] = {}
    for s in steps:
        seen.update(dict.fromkeys(s.where))
    return list(seen)


def _seconds(t: float) -> str:
    return f"{t:g} s"


def _layout(steps: Sequence[Step]) -> list[float]:
    """Where each step starts on the x axis (and where the last ends): one unit a move, plus,
    after an instant's last move, the time to the next instant, scaled so the waits take
    about as much room as the moves."""
    span = steps[-1].t - steps[0].t if steps else 0.0
    scale = len(steps) / span if span else 0.0
    x = [0.0]
    for i, s in enumerate(steps):
        gap = steps[i + 1].t - s.t if i + 1 < len(steps) else 0.0
        x.append(x[-1] + 1.0 + gap * scale)
    return x


def timeline(steps: Sequence[Step], *, mark: float | None = None, title: str = "") -> Any:
    """Swim lanes of ``steps``: a matplotlib ``Figure``."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    pods = _pods(steps)
    x = _layout(steps)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.2 * x[-1] + 2.5), 0.55 * len(pods) + 1.9))
    for i, s in enumerate(steps):
        for row, pod in enumerate(pods):
            place = s.where.get(pod)
            if place is not None:
                box = Rectangle((x[i], row - 0.35), x[i + 1] - x[i], 0.7, lw=0.4, ec="white",
                                color=COLOURS.get(place, "#000"))  # fmt: skip
                ax.add_patch(box)
    marked = next((i for i, s in enumerate(steps) if mark is not None and s.t == mark), None)
    if marked is not None:
        ax.add_patch(Rectangle((x[marked], -0.5), 1, len(pods), fill=False, ec="red", lw=2.5))
    ticks = [i for i, s in enumerate(steps) if i == 0 or s.t != steps[i - 1].t]
    ax.set_xticks([x[i] for i in ticks], [_seconds(steps[i].t) for i in ticks], fontsize=8)
    for i in ticks[1:]:
        ax.axvline(x[i], color="#999", lw=0.8, ls=":")
    ax.set_yticks(range(len(pods)), pods)
    ax.set_xlim(0, x[-1])
    ax.set_ylim(len(pods) - 0.5, -0.5)
    ax.set_xlabel("virtual time: each move of an instant one narrow slice, the waits between "
                  "instants as long as they last")  # fmt: skip
    legend = [Patch(color=COLOURS[p], label=p) for p in PLACES]
    if marked is not None:
        legend.append(Patch(fill=False, ec="red", lw=2, label="unexplained step"))
    ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=6,
              fontsize=8, frameon=False)  # fmt: skip
    ax.set_title(title or "where each pod is, step by step")
    fig.tight_layout()
    return fig


def animate(steps: Sequence[Step], *, interval: int = 400) -> Any:
    """A ``FuncAnimation`` of the pods moving between the five places, one frame a step."""
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    pods = _pods(steps)
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(pods) + 1.8), dpi=72)  # frames add up
    ax.set_xlim(-0.5, len(PLACES) - 0.5)
    ax.set_ylim(len(pods) - 0.5, -1.0)
    ax.set_xticks(range(len(PLACES)), PLACES)
    ax.set_yticks([])
    for x, place in enumerate(PLACES):
        ax.axvspan(x - 0.45, x + 0.45, color=COLOURS[place], alpha=0.15)
    dots = {
        pod: ax.text(
            0,
            row,
            pod,
            ha="center",
            va="center",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": "white", "ec": "#555"},
        )
        for row, pod in enumerate(pods)
    }
    caption = ax.set_title("", fontsize=9, loc="left")

    def frame(i: int) -> list[Any]:
        s = steps[i]
        for pod, text in dots.items():
            place = s.where.get(pod)
            text.set_visible(place is not None)
            if place is not None:
                text.set_x(PLACES.index(place) if place in PLACES else -0.4)
        caption.set_text(f"t = {_seconds(s.t)} — step {i + 1}/{len(steps)}: {s.what}")
        return [*dots.values(), caption]

    fig.tight_layout()
    fig.subplots_adjust(top=0.86)  # room for the caption, set frame by frame
    return FuncAnimation(fig, frame, frames=len(steps), interval=interval, blit=False)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m schedspec.checker.queue_picture")
    p.add_argument("trace", help="a trace file: schedspec schedule … --trace FILE")
    p.add_argument("-o", "--out", required=True, help="the PNG to write")
    p.add_argument("--mark", type=float, metavar="T", help="outline the first step at time T")
    p.add_argument("--title", default="")
    args = p.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    try:
        steps = places(read(args.trace))
    except (OSError, json.JSONDecodeError) as err:
        print(f"queue_picture: {args.trace}: {err}", file=sys.stderr)
        return 2
    if not steps:
        print(f"queue_picture: {args.trace}: no queue move in the trace", file=sys.stderr)
        return 2
    fig = timeline(steps, mark=args.mark, title=args.title)
    fig.savefig(args.out, dpi=110)
    print(f"{args.out}: {len(steps)} steps, {len(_pods(steps))} pods")
    return 0


if __name__ == "__main__":
    sys.exit(main())
