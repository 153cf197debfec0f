"""The divergence catalogue: for each textbook definition and its real counterpart, the smallest
cluster on which they disagree, as Z3 finds it. Regenerate ``docs/divergences.md`` with::

    python3 -m schedspec.spec.catalogue > docs/divergences.md

Part 1 compares the textbook spec as the seed wrote it (``spec/kube/textbook.tla``): several of
its definitions cannot be evaluated at all (an unbound ``p``, ``False``, a term passed where a
requirement is expected), and the witness shows where. Part 2 compares the textbook with those
spelling defects repaired (``bench/textbook_repaired.tla``), one query per rule of the reference
(``kube-scheduler-semantics.md`` §2), narrowed by a ``where`` formula so that the witness shows
that rule and not another. Every witness is minimal (fewest objects, then fewest slots, then the
smallest numbers) and was replayed through ``schedspec.cluster.loads`` and the executable
backend, whose verdicts are the ones printed. ``tests/spec/test_catalogue.py`` checks that the
file is what this module generates.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.solve import diff

__all__ = ["ENTRIES", "FAITHFUL", "render"]

REPAIRED = str(Path(__file__).resolve().parents[1] / "bench" / "textbook_repaired.tla")

NO_POD_AFFINITY = (
    'AffinityTerms(p, "podAffinity") = {} /\\ AffinityTerms(p, "podAntiAffinity") = {}'
)
NO_NODE_AFFINITY = "~HasRequiredNodeAffinity(p)"
NO_SIDECARS = "Len(p.spec.initContainers) = 0"
NO_PREFERRED = (
    'WeightedAffinityTerms(p, "podAffinity") = <<>> /\\ '
    'WeightedAffinityTerms(p, "podAntiAffinity") = <<>> /\\ PreferredNodeTerms(p) = <<>>'
)


@dataclass(frozen=True)
class Entry:
    rule: str
    textbook: str
    real: str
    where: str | None = None


FAITHFUL = [
    Entry("§2 #9, #1-#8 as written", "FilterLifecycle", "NodeUnschedulableOK"),
    Entry("§2 #3 as written", "Resources", "FitOK"),
    Entry("—", "FilterNodeSelector", "NodeSelectorOK"),
    Entry("§2 #19 as written", "FilterTaints", "TaintsOK"),
    Entry("§2 #7, #21 as written", "FilterAffinity", "RequiredNodeAffinityOK"),
    Entry("§2 #2, #27 as written", "FilterAffinity", "InterPodAffinityOK"),
    Entry("§2 #5 as written", "Filter", "Feasible"),
    Entry("§2 #36-#41 as written", "Viability", "Viability"),
]

ENTRIES = [
    Entry("§2 #9: node phase Running does not exist", "FilterLifecycle", "NodeUnschedulableOK",
          "~n.spec.unschedulable"),
    Entry("§2 #10: an unschedulable node admits pods tolerating its taint", "FilterLifecycle",
          "NodeUnschedulableOK", "n.spec.unschedulable"),
    Entry("§2 #11: free capacity, not allocatable", "Resources", "FitOK",
          f"Cardinality(On(Snapshot, n)) > 0 /\\ {NO_SIDECARS}"),
    Entry("§2 #13: init containers and sidecars", "Resources", "FitOK",
          "On(Snapshot, n) = {} /\\ Len(p.spec.initContainers) > 0"),
    Entry("§2 #16: an empty toleration effect matches every effect", "FilterTaints", "TaintsOK",
          '(\\A t \\in p.spec.tolerations : t.effect = "") /\\ '
          '(\\A x \\in n.spec.taints : x.effect = "NoSchedule")'),
    Entry("§2 #17: an empty key with Exists matches every key", "FilterTaints", "TaintsOK",
          '(\\A t \\in p.spec.tolerations : t.key = "" /\\ t.effect = "NoSchedule") /\\ '
          '(\\A x \\in n.spec.taints : x.effect = "NoSchedule")'),
    Entry("§2 #18: an empty operator means Equal", "FilterTaints", "TaintsOK",
          '(\\A t \\in p.spec.tolerations : t.operator = "" /\\ t.effect = "NoSchedule") /\\ '
          '(\\A x \\in n.spec.taints : x.effect = "NoSchedule")'),
    Entry("§2 #19: PreferNoSchedule taints do not filter", "FilterTaints", "TaintsOK",
          '\\A x \\in n.spec.taints : x.effect = "PreferNoSchedule"'),
    Entry("§2 #21: no required node affinity admits every node", "FilterAffinity",
          "RequiredNodeAffinityOK", f"{NO_NODE_AFFINITY} /\\ {NO_POD_AFFINITY}"),
    Entry("§2 #22: an empty node selector term matches no node", "FilterAffinity",
          "RequiredNodeAffinityOK",
          f"(\\E T \\in Elems(RequiredNodeTerms(p)) : TermEmpty(T)) /\\ {NO_POD_AFFINITY}"),
    Entry("§2 #27: empty namespaces mean the pod's own namespace", "FilterAffinity",
          "InterPodAffinityOK",
          f'{NO_NODE_AFFINITY} /\\ AffinityTerms(p, "podAntiAffinity") = {{}} /\\ '
          '(\\A t \\in AffinityTerms(p, "podAffinity") : t.namespaces = {})'),
    Entry("§2 #30-#31: existing pods' anti-affinity repels the pod", "FilterAffinity",
          "InterPodAffinityOK", f"{NO_NODE_AFFINITY} /\\ {NO_POD_AFFINITY}"),
    Entry("§2 #40: the scorers the textbook lacks (TaintToleration's normalised 100 on an "
          "untainted node, weight 3, among them)", "Viability", "Viability", NO_PREFERRED),
]  # fmt: skip


def _section(entry: Entry, textbook: str, bounds: Bounds) -> list[str]:
    answer = diff(textbook, "scheduler", entry.textbook, entry.real, bounds, minimize=True,
                  timeout=300, where=entry.where)  # fmt: skip
    head = f"### {entry.textbook} vs {entry.real} — {entry.rule}"
    out = [head, ""]
    if entry.where:
        out += [f"Only clusters where `{entry.where}`.", ""]
    if answer.result != "sat":
        out += [f"**{answer.result}**: {answer.message}", ""]
        return out
    (w,) = answer.witnesses
    out += [f"Pod `{w.bindings['p']}`, node `{w.bindings['n']}`:", ""]
    out += ["| definition | verdict |", "|---|---|"]
    for name, verdict in w.verdicts.items():
        out.append(f"| `{name}` | {verdict.replace('|', '/')} |")
    out += ["", "```yaml", w.yaml().rstrip(), "```", ""]
    return out


def render(bounds: Bounds | None = None) -> str:
    bounds = bounds or Bounds()
    lines = [
        "# Textbook vs real: the divergence catalogue",
        "",
        "Generated by `python3 -m schedspec.spec.catalogue > docs/divergences.md` "
        "(see that module); do not edit by hand.",
        f"Bounds: {', '.join(f'{k}={getattr(bounds, k)}' for k in bounds.__dataclass_fields__)}.",
        "Verdicts are the executable backend's, on the witness loaded as a user's cluster.",
        "",
        "## 1. The textbook as the seed wrote it",
        "",
    ]
    for e in FAITHFUL:
        lines += _section(e, "textbook", bounds)
    lines += ["## 2. The textbook with its spelling defects repaired, one rule at a time", ""]
    for e in ENTRIES:
        lines += _section(e, REPAIRED, bounds)
    return "\n".join(lines).replace(REPAIRED, "textbook (repaired)").rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
