"""The divergence catalogue: for each textbook definition and its real counterpart, the smallest
cluster on which they disagree, as Z3 finds it. Regenerate ``docs/divergences.md`` with::

    PYTHONHASHSEED=0 python3 -m schedspec.spec.catalogue > docs/divergences.md

(the hash seed fixes the order in which Z3's terms are made, which decides how fast a witness is
minimised, so how small it gets within the time allowed).

Part 1 compares the textbook spec as the seed wrote it (``spec/kube/textbook.tla``): several of
its definitions cannot be evaluated at all (an unbound ``p``, ``False``, a term passed where a
requirement is expected), and the witness shows where. Part 2 compares the textbook with those
spelling defects repaired (``bench/textbook_repaired.tla``), one query per rule of the reference
(``kube-scheduler-semantics.md`` §2), narrowed by a ``where`` formula so that the witness shows
that rule and not another. A spelling defect is shown alone by putting the seed's text back into
the repaired textbook (``Entry.put_back``); a conjunction the seed only implies is named by one
added definition (``Entry.adds``). Each rule query takes ``p`` unbound and Pending, the pod the
scheduler would try. The table at the top lists, for each of the reference's 44 divergences, the
queries that show it and what Z3 answered, or why no query can (``NO_WITNESS``): a rule the
textbook has no definition for, or a field the bounded cluster does not draw. Every witness is
minimal (fewest objects, then fewest slots, then the smallest numbers) and was replayed through
``schedspec.cluster.loads`` and the executable backend, whose verdicts are the ones printed.
``tests/spec/test_catalogue.py`` checks that the file is what this module generates.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.solve import diff

__all__ = ["ENTRIES", "FAITHFUL", "NO_WITNESS", "render"]

REPAIRED = str(Path(__file__).resolve().parents[1] / "bench" / "textbook_repaired.tla")

NO_POD_AFFINITY = (
    'AffinityTerms(p, "podAffinity") = {} /\\ AffinityTerms(p, "podAntiAffinity") = {}'
)
NO_NODE_AFFINITY = "~HasRequiredNodeAffinity(p)"
NO_SIDECARS = "Len(p.spec.initContainers) = 0"
PENDING = 'p.spec.nodeName = "" /\\ p.status.phase = "Pending"'
NO_PREFERRED = (
    'WeightedAffinityTerms(p, "podAffinity") = <<>> /\\ '
    'WeightedAffinityTerms(p, "podAntiAffinity") = <<>> /\\ PreferredNodeTerms(p) = <<>>'
)
NODE_TERMS = (  # required node affinity with matchExpressions only (§2 #22, #23 apart)
    "HasRequiredNodeAffinity(p) /\\ "
    "(\\A T \\in RequiredNodeTerms(p) : T.matchExpressions # {} /\\ T.matchFields = {})"
)
ONLY_POD_AFFINITY = (
    f'{NO_NODE_AFFINITY} /\\ AffinityTerms(p, "podAntiAffinity") = {{}} /\\ '
    'AffinityTerms(p, "podAffinity") # {} /\\ '
    "ExistingAntiAffinityOK(p, n)"  # §2 #31 has its own query
)
NAMED_NAMESPACES = (  # and a selector: §2 #27 and #28 have their own queries
    '(\\A t \\in AffinityTerms(p, "podAffinity") : '
    't.namespaces # {} /\\ "labelSelector" \\in DOMAIN t)'
)
NO_TERMINAL = "(\\A m \\in DOMAIN PodsOn : \\A q \\in PodsOn[m] : ~Terminal(q))"
NOT_SELF_AFFINE = "~MatchesAllAffinityTerms(p, p)"
EXISTING_SILENT = (  # no existing pod scores p (the symmetric terms of §2 #39)
    "(\\A m \\in DOMAIN Snapshot : \\A q \\in Snapshot[m] : "
    'WeightedAffinityTerms(q, "podAffinity") = <<>> /\\ '
    'WeightedAffinityTerms(q, "podAntiAffinity") = <<>> /\\ AffinityTerms(q, "podAffinity") = {})'
)
ONLY_PREFERRED = (  # p's score comes from its preferred pod (anti-)affinity terms alone
    f"{NO_NODE_AFFINITY} /\\ {NO_POD_AFFINITY} /\\ PreferredNodeTerms(p) = <<>>"
)
PREFERRED_NAMED = (  # p's preferred affinity terms name namespaces and a selector (#27, #28)
    '(\\A x \\in Elems(WeightedAffinityTerms(p, "podAffinity")) : '
    'x.podAffinityTerm.namespaces # {} /\\ "labelSelector" \\in DOMAIN x.podAffinityTerm)'
)
OTHER_FILTERS = (  # every filter plugin but the one named passes
    "NodeUnschedulableOK(p, n) /\\ FitOK(p, n) /\\ NodeAffinityOK(p, n) /\\ TaintsOK(p, n) /\\ "
    "InterPodAffinityOK(p, n)"
)


@dataclass(frozen=True)
class Entry:
    rule: str
    textbook: str
    real: str
    where: str | None = None
    covers: tuple[int, ...] = ()
    """The reference's §2 numbers this witness shows."""
    put_back: tuple[tuple[str, str], ...] = ()
    """Edits to the repaired textbook that put one of the seed's defects back (old, new)."""
    adds: str = ""
    """A definition added to the repaired textbook, naming a conjunction the seed only implies."""
    bounds: tuple[tuple[str, int], ...] = ()
    """Bounds that differ from the catalogue's (a witness that needs a second term)."""
    implies: bool = False
    """Search for the textbook admitting what the real rule rejects (not any disagreement)."""


FAITHFUL = [
    Entry("§2 #9, #1-#8 as written", "FilterLifecycle", "NodeUnschedulableOK"),
    Entry("§2 #3 as written", "Resources", "FitOK", covers=(3,)),
    Entry("—", "FilterNodeSelector", "NodeSelectorOK"),
    Entry("§2 #19 as written", "FilterTaints", "TaintsOK"),
    Entry("§2 #7, #21 as written", "FilterAffinity", "RequiredNodeAffinityOK"),
    Entry("§2 #2, #27 as written", "FilterAffinity", "InterPodAffinityOK"),
    Entry("§2 #5 as written", "Filter", "Feasible"),
    Entry("§2 #36-#41 as written", "Viability", "Viability"),
]

PUT_BACK_EXITS = (
    ('NodeSelectorRequirement.Operator = "Exists"', 'NodeSelectorRequirement.Operator = "Exits"'),
)
PUT_BACK_BOUNDTO_NODE = (("BoundTo(Pod, Other, Objects)", "BoundTo(Pod, Node, Objects)"),)
PUT_BACK_BOUNDTO_ARITY = (("BoundTo(Pod, Other, Objects)", "BoundTo(Pod, Other)"),)
PUT_BACK_TERM_AS_REQUIREMENT = (
    (
        "∀ r ∈ NodeSelectorTerm.MatchExpressions : Match_NS(r, Node)",
        "Match_NS(NodeSelectorTerm, Node)",
    ),
)
PUT_BACK_SELECTOR_DOMAIN = (
    (
        "DOMAIN(LabelSelector.MatchLabels) : Key ∈ DOMAIN(Labels) ∧ LabelSelector.MatchLabels[Key]",
        "DOMAIN(LabelSelector) : Key ∈ DOMAIN(Labels) ∧ LabelSelector[Key]",
    ),
)
PUT_BACK_NO_DEFAULT = (
    ("∧ \\/ Pod.Spec.Affinity.NodeAffinity.Required.NodeSelectorTerms = {}\n    \\/ ∃", "∧ ∃"),
)
FOOTER = "\n" + "=" * 77
NODE_FILTERS = "NodeFilters(Pod, Node) ≝ FilterNodeSelector(Pod, Node) ∧ FilterAffinity(Pod, Node)"
FILTER_BUT_PHASE = (  # §2 #9: no node has phase Running, so Filter itself admits no node
    "FilterButPhase(Pod, Node) ≝ Node.Spec.Unschedulable = FALSE ∧ Resources(Pod, Node) ∧ "
    "FilterNodeSelector(Pod, Node) ∧ FilterTaints(Pod, Node) ∧ FilterAffinity(Pod, Node)"
)

ENTRIES = [
    Entry("§2 #1: \"Exits\" for Exists (put back)", "FilterAffinity", "RequiredNodeAffinityOK",
          f'{NODE_TERMS} /\\ (\\A T \\in RequiredNodeTerms(p) : \\A r \\in T.matchExpressions : '
          f'r.operator = "Exists") /\\ {NO_POD_AFFINITY}', (1,), PUT_BACK_EXITS),
    Entry("§2 #2, #32: BoundTo(Pod, Node) for BoundTo(Pod, Other) — the domain is the node "
          "alone (put back)", "FilterAffinity", "InterPodAffinityOK",
          f"{ONLY_POD_AFFINITY} /\\ {NAMED_NAMESPACES} /\\ {NOT_SELF_AFFINE} /\\ {NO_TERMINAL}",
          (2, 32),
          PUT_BACK_BOUNDTO_NODE),
    Entry("§2 #6: BoundTo called with two arguments (put back)", "FilterAffinity",
          "InterPodAffinityOK", ONLY_POD_AFFINITY, (6,), PUT_BACK_BOUNDTO_ARITY),
    Entry("§2 #7: Match_NS applied to a term (put back)", "FilterAffinity",
          "RequiredNodeAffinityOK", f"{NODE_TERMS} /\\ {NO_POD_AFFINITY}", (7,),
          PUT_BACK_TERM_AS_REQUIREMENT),
    Entry("§2 #8: Match_LS over DOMAIN(LabelSelector) (put back)", "FilterAffinity",
          "InterPodAffinityOK", f"{ONLY_POD_AFFINITY} /\\ {NAMED_NAMESPACES} /\\ {NO_TERMINAL}",
          (8,),
          PUT_BACK_SELECTOR_DOMAIN),
    Entry("§2 #9: node phase Running does not exist", "FilterLifecycle", "NodeUnschedulableOK",
          "~n.spec.unschedulable", (9,)),
    Entry("§2 #10: an unschedulable node admits pods tolerating its taint", "FilterLifecycle",
          "NodeUnschedulableOK", "n.spec.unschedulable", (10,)),
    Entry("§2 #11: free capacity, not allocatable", "Resources", "FitOK",
          f"Cardinality(On(Snapshot, n)) > 0 /\\ {NO_SIDECARS}", (11,)),
    Entry("§2 #12: the pods already on the node count against allocatable pods", "Resources",
          "FitOK", f'TooManyPods(n, Snapshot) /\\ Allocatable(n, "pods") > 0 /\\ {NO_SIDECARS}',
          (12,)),
    Entry("§2 #13: init containers and sidecars", "Resources", "FitOK",
          "On(Snapshot, n) = {} /\\ Len(p.spec.initContainers) > 0", (13,)),
    Entry("§2 #14: extended resources are checked too", "Resources", "FitOK",
          f'Get(Requests(p), "example.com/gpu") > Allocatable(n, "example.com/gpu") /\\ '
          f'~TooManyPods(n, Snapshot) /\\ {NO_SIDECARS}', (14,)),
    Entry("§2 #16: an empty toleration effect matches every effect", "FilterTaints", "TaintsOK",
          '(\\A t \\in p.spec.tolerations : t.effect = "") /\\ '
          '(\\A x \\in n.spec.taints : x.effect = "NoSchedule")', (16,)),
    Entry("§2 #17: an empty key with Exists matches every key", "FilterTaints", "TaintsOK",
          '(\\A t \\in p.spec.tolerations : t.key = "" /\\ t.effect = "NoSchedule") /\\ '
          '(\\A x \\in n.spec.taints : x.effect = "NoSchedule")', (17,)),
    Entry("§2 #18: an empty operator means Equal", "FilterTaints", "TaintsOK",
          '(\\A t \\in p.spec.tolerations : t.operator = "" /\\ t.effect = "NoSchedule") /\\ '
          '(\\A x \\in n.spec.taints : x.effect = "NoSchedule")', (18,)),
    Entry("§2 #19: PreferNoSchedule taints do not filter", "FilterTaints", "TaintsOK",
          '\\A x \\in n.spec.taints : x.effect = "PreferNoSchedule"', (19,)),
    Entry("§2 #21: no required node affinity admits every node (put back)", "FilterAffinity",
          "RequiredNodeAffinityOK", f"{NO_NODE_AFFINITY} /\\ {NO_POD_AFFINITY}", (21,),
          PUT_BACK_NO_DEFAULT),
    Entry("§2 #22: an empty node selector term matches no node", "FilterAffinity",
          "RequiredNodeAffinityOK",
          f"(\\E T \\in RequiredNodeTerms(p) : TermEmpty(T)) /\\ {NO_POD_AFFINITY}", (22,)),
    Entry("§2 #23: matchFields (metadata.name) is a requirement too", "FilterAffinity",
          "RequiredNodeAffinityOK",
          "HasRequiredNodeAffinity(p) /\\ "
          f"(\\A T \\in RequiredNodeTerms(p) : T.matchFields # {{}}) /\\ {NO_POD_AFFINITY}", (23,)),
    Entry("§2 #24: Gt and Lt compare one integer (the textbook agrees on what the API server "
          "accepts)", "FilterAffinity", "RequiredNodeAffinityOK",
          f'{NODE_TERMS} /\\ (\\A T \\in RequiredNodeTerms(p) : \\A r \\in T.matchExpressions : '
          f'r.operator \\in {{"Gt", "Lt"}}) /\\ {NO_POD_AFFINITY}', (24,)),
    Entry("§2 #25: NotIn and DoesNotExist hold when the key is absent (the textbook agrees)",
          "FilterAffinity", "RequiredNodeAffinityOK",
          f'{NODE_TERMS} /\\ (\\A T \\in RequiredNodeTerms(p) : \\A r \\in T.matchExpressions : '
          f'r.operator \\in {{"NotIn", "DoesNotExist"}} /\\ r.key \\notin DOMAIN Labels(n)) /\\ '
          f"{NO_POD_AFFINITY}", (25,)),
    Entry("§2 #26: nodeSelector and required node affinity are conjoined (the textbook's Filter "
          "agrees)", "NodeFilters", "NodeAffinityOK",
          f"(\\A T \\in RequiredNodeTerms(p) : ~TermEmpty(T) /\\ T.matchFields = {{}}) /\\ "
          f"{NO_POD_AFFINITY} /\\ "
          '(\\A T \\in RequiredNodeTerms(p) : \\A r \\in T.matchExpressions : '
          'r.operator \\notin {"Gt", "Lt"})', (26,), adds=NODE_FILTERS),
    Entry("§2 #27: empty namespaces mean the pod's own namespace", "FilterAffinity",
          "InterPodAffinityOK",
          f'{NO_NODE_AFFINITY} /\\ AffinityTerms(p, "podAntiAffinity") = {{}} /\\ '
          '(\\A t \\in AffinityTerms(p, "podAffinity") : t.namespaces = {})', (27,)),
    Entry("§2 #28: a nil label selector matches no pod", "FilterAffinity", "InterPodAffinityOK",
          f"{ONLY_POD_AFFINITY} /\\ {NO_TERMINAL} /\\ "
          '(\\A t \\in AffinityTerms(p, "podAffinity") : '
          't.namespaces # {} /\\ "labelSelector" \\notin DOMAIN t)',
          (28,)),
    Entry("§2 #29: one existing pod must match every required affinity term", "FilterAffinity",
          "InterPodAffinityOK",
          f'{ONLY_POD_AFFINITY} /\\ {NAMED_NAMESPACES} /\\ {NOT_SELF_AFFINE} /\\ {NO_TERMINAL} /\\ '
          'Cardinality(AffinityTerms(p, "podAffinity")) = 2', (29,), bounds=(("affinity", 2),)),
    Entry("§2 #30-#31: existing pods' anti-affinity repels the pod", "FilterAffinity",
          "InterPodAffinityOK", f"{NO_NODE_AFFINITY} /\\ {NO_POD_AFFINITY}", (30, 31)),
    Entry("§2 #33: a candidate node without the topology key (the textbook agrees)",
          "FilterAffinity", "InterPodAffinityOK",
          f"{NO_NODE_AFFINITY} /\\ ExistingAntiAffinityOK(p, n) /\\ "
          '(\\A t \\in AffinityTerms(p, "podAffinity") \\cup '
          'AffinityTerms(p, "podAntiAffinity") : t.topologyKey \\notin DOMAIN Labels(n))',
          (33,)),
    Entry("§2 #34: terminal pods do not count", "FilterAffinity", "InterPodAffinityOK",
          f"{ONLY_POD_AFFINITY} /\\ {NAMED_NAMESPACES} /\\ {NOT_SELF_AFFINE} /\\ "
          "(\\A m \\in DOMAIN Snapshot : Snapshot[m] = {})", (34,)),
    Entry("§2 #36: raw sums, not normalised scores", "Viability", "InterPodAffinityScore",
          f'{ONLY_PREFERRED} /\\ WeightedAffinityTerms(p, "podAntiAffinity") = <<>> /\\ '
          f"{EXISTING_SILENT} /\\ {PREFERRED_NAMED} /\\ {NO_TERMINAL}", (36,)),
    Entry("§2 #37: preferred affinity adds its weight per matching pod", "Viability",
          "InterPodAffinityRaw",
          f'{ONLY_PREFERRED} /\\ WeightedAffinityTerms(p, "podAntiAffinity") = <<>> /\\ '
          f"{EXISTING_SILENT} /\\ {PREFERRED_NAMED} /\\ {NO_TERMINAL}", (37,)),
    Entry("§2 #38: preferred anti-affinity subtracts", "Viability", "InterPodAffinityRaw",
          f'{ONLY_PREFERRED} /\\ WeightedAffinityTerms(p, "podAffinity") = <<>> /\\ '
          f"{EXISTING_SILENT}", (38,)),
    Entry("§2 #39: existing pods' terms score the pod", "Viability", "InterPodAffinityRaw",
          f"{ONLY_PREFERRED} /\\ {NO_PREFERRED}", (39,)),
    Entry("§2 #40: the scorers the textbook lacks (TaintToleration's normalised 100 on an "
          "untainted node, weight 3, among them)", "Viability", "Viability", NO_PREFERRED, (40,)),
    Entry("§2 #42: NodePorts, a filter the textbook lacks", "FilterButPhase", "PortsOK",
          f"{OTHER_FILTERS} /\\ SpreadOK(p, n)", (42,), adds=FILTER_BUT_PHASE, implies=True),
    Entry("§2 #42: PodTopologySpread, a filter the textbook lacks", "FilterButPhase", "SpreadOK",
          f"{OTHER_FILTERS} /\\ PortsOK(p, n)", (42,), adds=FILTER_BUT_PHASE, implies=True),
]  # fmt: skip

NO_WITNESS = {
    4: "a spelling of field names only: the textbook view reads `podAntiAffinity` and the "
       "`…DuringScheduling…` lists under the textbook's names (docs/textbook-view.md), so no "
       "verdict can differ",
    5: "edit E3 of spec/kube/textbook.tla renames the five definitions named `Filter` and "
       "conjoins them; as the seed wrote them the module does not load (`schedspec check`: SPC104 "
       "duplicate definition 'Filter'), so there is nothing to evaluate — the conjunction of the "
       "node rules is #26's query",
    15: "outside the bounded cluster: the symbolic cluster draws no container statuses, so "
        "`status.containerStatuses[*].resources`/`allocatedResources` are never set; the rule is "
        "in scheduler.tla (`ContainerRequest`) and exercised by the checker's concrete clusters",
    20: "no verdict to compare: tolerationSeconds is read by neither rule, the API server rejects "
        "the tolerations the validation rules forbid, and toleration Gt/Lt does not exist before "
        "1.35",
    35: "the textbook has no status codes, so no textbook definition answers Unschedulable vs "
        "UnschedulableAndUnresolvable (scheduler.tla's `FilterStatusIn` does)",
    41: "the textbook defines no choice of node (there is no textbook definition to compare with "
        "scheduler.tla's `Best`); the random tie-break has no finite witness as a single pair",
    43: "preemption, queueing and binding are runs, not a (pod, node) predicate; the textbook "
        "has no definition of them to compare with (`PreemptionNodes`, `MinimalVictims` in "
        "scheduler.tla; the queue in issue 25)",
    44: "outside the bounded cluster: every pod the symbolic cluster binds names one of its "
        "nodes, so a pod bound to a missing node cannot be drawn",
}  # fmt: skip


def _spec(entry: Entry, base: str, scratch: Path) -> str:
    """The spec an entry queries: ``base``, or the repaired textbook with one defect put back."""
    if not entry.put_back and not entry.adds:
        return base
    text = Path(REPAIRED).read_text(encoding="utf-8")
    edits = [*entry.put_back, *([(FOOTER, f"\n{entry.adds}\n{FOOTER}")] if entry.adds else [])]
    for old, new in edits:
        if text.count(old) != 1:
            raise ValueError(f"{entry.rule}: the repaired textbook does not hold {old!r} once")
        text = text.replace(old, new)
    path = scratch / f"variant_{len(list(scratch.iterdir()))}.tla"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _section(
    entry: Entry, textbook: str, bounds: Bounds, pending: bool = False
) -> tuple[list[str], str]:
    """The entry's section and what Z3 answered (sat, unsat, unknown). ``pending``: only a pod
    the scheduler would try, unbound and Pending, is ``p``."""
    if pending:
        entry = replace(entry, where=f"{PENDING} /\\ {entry.where}" if entry.where else PENDING)
    if entry.bounds:
        bounds = replace(bounds, **dict(entry.bounds))
    answer = diff(textbook, "scheduler", entry.textbook, entry.real, bounds, minimize=True,
                  timeout=300, where=entry.where, implies=entry.implies)  # fmt: skip
    head = f"### {entry.textbook} vs {entry.real} — {entry.rule}"
    out = [head, ""]
    if entry.put_back:
        out += ["The repaired textbook with the seed's text put back:", ""]
        out += [f"- `{old}` → `{new}`" for old, new in entry.put_back]
        out += [""]
    if entry.adds:
        out += [f"The repaired textbook with one definition added: `{entry.adds}`.", ""]
    if entry.bounds:
        out += [f"Bounds: {', '.join(f'{k}={v}' for k, v in entry.bounds)}.", ""]
    if entry.where:
        only = (
            "Only clusters where the textbook admits and the real rule rejects, and "
            if (entry.implies)
            else "Only clusters where "
        )
        out += [f"{only}`{entry.where}`.", ""]
    if answer.result != "sat":
        out += [f"**{answer.result}**: {answer.message}", ""]
        return out, answer.result
    (w,) = answer.witnesses
    out += [f"Pod `{w.bindings['p']}`, node `{w.bindings['n']}`:", ""]
    out += ["| definition | verdict |", "|---|---|"]
    for name, verdict in w.verdicts.items():
        out.append(f"| `{name}` | {verdict.replace('|', '/')} |")
    out += ["", "```yaml", w.yaml().rstrip(), "```", ""]
    return out, answer.result


def _coverage(shown: list[tuple[Entry, str]]) -> list[str]:
    """Each of the reference's 44 divergences: the queries that show it (with what Z3 answered:
    a witness, or agreement within the bounds), or why no query can."""
    out = ["## Every divergence of the reference's §2", "",
           "| §2 | query | answer |", "|---|---|---|"]  # fmt: skip
    for number in range(1, 45):
        rows = [(e, r) for e, r in shown if number in e.covers]
        if not rows:
            out.append(f"| #{number} | none | {NO_WITNESS[number]} |")
        for e, result in rows:
            answer = {"sat": "witness", "unsat": "agree within the bounds"}.get(result, result)
            out.append(f"| #{number} | {e.textbook} vs {e.real} — {e.rule} | {answer} |")
    return [*out, ""]


def render(bounds: Bounds | None = None) -> str:
    bounds = bounds or Bounds()
    shown: list[tuple[Entry, str]] = []
    part1: list[str] = []
    for e in FAITHFUL:
        section, result = _section(e, "textbook", bounds)
        shown.append((e, result))
        part1 += section
    part2: list[str] = []
    with tempfile.TemporaryDirectory(prefix="schedspec-catalogue-") as tmp:
        scratch = Path(tmp)
        for e in ENTRIES:
            spec = _spec(e, REPAIRED, scratch)
            section, result = _section(e, spec, bounds, pending=True)
            if spec != REPAIRED:
                name = "textbook (put back)" if e.put_back else "textbook (added to)"
                section = [line.replace(spec, name) for line in section]
            shown.append((e, result))
            part2 += section
    lines = [
        "# Textbook vs real: the divergence catalogue",
        "",
        "Generated by `PYTHONHASHSEED=0 python3 -m schedspec.spec.catalogue > "
        "docs/divergences.md` (see that module); do not edit by hand.",
        f"Bounds: {', '.join(f'{k}={getattr(bounds, k)}' for k in bounds.__dataclass_fields__)}.",
        "Verdicts are the executable backend's, on the witness loaded as a user's cluster.",
        "",
        *_coverage(shown),
        "## 1. The textbook as the seed wrote it",
        "",
        *part1,
        "## 2. The textbook with its spelling defects repaired, one rule at a time",
        "",
        *part2,
    ]
    return "\n".join(lines).replace(REPAIRED, "textbook (repaired)").rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
