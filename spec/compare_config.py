"""``schedspec compare-config``: a bounded cluster on which two KubeSchedulerConfigurations decide
differently, asked of Z3 over ``scheduler.tla`` compiled twice, once under each profile.

Per scheduler name the two configurations both define, the question is first "is there a pending
pod p and a node n that one profile finds feasible and the other does not?" and, when no such
cluster exists within the bounds, "is there one where n is among the best nodes under one profile
and not under the other?" (``Best``: the feasible nodes of highest weighted score, a tie broken
at random by selectHost). The symbolic pods all name the compared profile. The literals of the
configurations' ``addedAffinity`` join the bounded cluster's vocabulary.

``unsat`` is a bounded claim: no cluster within the bounds tells the two apart. Plugin order is
not in the spec (spec/kube/profiles.py), so two configurations that differ only in order have the
same ``Profiles``, and Z3 proves them equal over the whole bounded cluster. A scheduler name only
one configuration defines is a difference without a solver: pods naming it are left to another
scheduler by the other.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import yaml
import z3

from schedspec.cluster import Cluster
from schedspec.errors import UsageError
from schedspec.spec.compile.z3 import CompileTimeout, as_z3bool
from schedspec.spec.kube.profiles import profile_literals, profiles
from schedspec.spec.kube.scheduler_view import node_affinity_record
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.solve import (
    Session,
    _bounds_text,
    _load_witness,
    approximated,
    float_notes,
    vocabulary_notes,
)
from schedspec.spec.values import Fcn

__all__ = ["ConfigAnswer", "Decision", "changes", "compare_configs", "decisions"]

_A, _B = "scheduler@A", "scheduler@B"
_STAGE_SECONDS = 15.0
"""The most a small, restricted stage may take before the next stage is asked."""
# a pod the scheduler would take: unbound, Pending, ungated, not being deleted (schedule_one.go
# skipPodSchedule)
_PENDING = (
    'p.spec.nodeName = "" /\\ p.status.phase = "Pending" /\\ p.spec.schedulingGates = {}'
    ' /\\ p.metadata.deletionTimestamp = ""'
)
_SYMBOLIC_SCHEDULER = "default-scheduler"  # what every pod of the symbolic cluster names


@dataclass
class Decision:
    """One configuration's decision for the pod: its feasible nodes and its best ones."""

    feasible: tuple[str, ...]
    best: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"feasible": list(self.feasible), "best": list(self.best)}


@dataclass
class ConfigAnswer:
    result: str  # sat (a difference) | unsat (none within the bounds) | unknown
    message: str
    seconds: float
    profile: str = ""
    kind: str = ""  # "feasible" | "decision" | "profile"
    objects: list[dict[str, Any]] = field(default_factory=list)
    pod: str = ""
    node: str = ""
    decisions: dict[str, Decision] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    """What differs between the compared profiles, as the spec reads them."""

    def as_json(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "message": self.message,
            "seconds": round(self.seconds, 3),
            "profile": self.profile,
            "kind": self.kind,
            "pod": self.pod,
            "node": self.node,
            "decisions": {k: d.as_json() for k, d in self.decisions.items()},
            "objects": self.objects,
            "notes": self.notes,
            "changes": self.changes,
        }


def decisions(cluster: Cluster, pod: str, spec: LoadedSpec | None = None) -> Decision:
    """``pod``'s feasible and best nodes under ``scheduler.tla`` (``spec``, loaded if not given;
    executable backend) on ``cluster``, with the cluster's own KubeSchedulerConfiguration."""
    spec = spec or load_spec("scheduler")
    world = spec.view.build(cluster)
    spec.program.bind(world.constants)
    p = world.pods[pod]
    feasible = tuple(
        sorted(name for name, n in world.nodes.items() if spec.program.call("Feasible", p, n))
    )
    best = spec.program.call("Best", p) if feasible else frozenset()
    assert isinstance(best, frozenset)
    return Decision(feasible, tuple(sorted(best)))


def _with_config(objects: list[dict[str, Any]], config: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [*objects, dict(config)]


# What the bounded cluster must hold for each plugin's rules to differ (Bounds fields).
_FEATURES: Mapping[str, Mapping[str, int]] = {
    "TaintToleration": {"taints": 1, "tolerations": 1},
    "NodeAffinity": {"keys": 2, "values": 2, "terms": 1, "term_values": 2},
    "PodTopologySpread": {"keys": 2, "values": 2, "spread": 1, "services": 1},
    "InterPodAffinity": {"keys": 2, "values": 2, "affinity": 1, "preferred": 1},
    "NodePorts": {"ports": 1},
}
_LEAN = {
    "keys": 1, "values": 1, "namespaces": 1, "taints": 0, "tolerations": 0, "init_containers": 0,
    "ports": 0, "terms": 0, "exprs": 1, "term_values": 1, "affinity": 0, "preferred": 0,
    "spread": 0, "services": 0,
}  # fmt: skip


# Each plugin argument of a profile record: its plugin, and its name in the configuration.
_ARGS = {
    "fitStrategy": ("NodeResourcesFit", "scoringStrategy.type"),
    "fitResources": ("NodeResourcesFit", "scoringStrategy.resources"),
    "fitShape": ("NodeResourcesFit", "scoringStrategy.requestedToCapacityRatio.shape"),
    "ignoredResources": ("NodeResourcesFit", "ignoredResources"),
    "ignoredResourceGroups": ("NodeResourcesFit", "ignoredResourceGroups"),
    "addedAffinity": ("NodeAffinity", "addedAffinity"),
    "hardPodAffinityWeight": ("InterPodAffinity", "hardPodAffinityWeight"),
    "ignorePreferredTermsOfExistingPods": (
        "InterPodAffinity",
        "ignorePreferredTermsOfExistingPods",
    ),
    "spreadDefaults": ("PodTopologySpread", "defaultConstraints"),
    "spreadSystemDefaulted": ("PodTopologySpread", "defaultingType"),
}


def _differing(a: Fcn, b: Fcn) -> set[str]:
    """The plugins whose enablement, weight or arguments differ between profiles a and b."""
    out: set[str] = set()
    for point in _POINT_NAMES:
        out |= set(a[point]) ^ set(b[point])
    sa, sb = a["scores"], b["scores"]
    assert isinstance(sa, Fcn) and isinstance(sb, Fcn)
    out |= {x for x in set(sa) | set(sb) if sa.get(x) != sb.get(x)}
    return out | {plugin for f, (plugin, _) in _ARGS.items() if a[f] != b[f]}


_POINT_NAMES = {"preFilters": "preFilter", "filters": "filter", "postFilters": "postFilter",
                "preScores": "preScore"}  # fmt: skip


def changes(a: Fcn, b: Fcn) -> list[str]:
    """What differs between two profiles as the spec reads them, one line each."""
    from schedspec.spec.values import render

    out = []
    for field_, point in _POINT_NAMES.items():
        sa, sb = set(a[field_]), set(b[field_])
        for x in sorted(sa - sb):
            out.append(f"{x} runs at {point} under A only")
        for x in sorted(sb - sa):
            out.append(f"{x} runs at {point} under B only")
    wa, wb = a["scores"], b["scores"]
    assert isinstance(wa, Fcn) and isinstance(wb, Fcn)
    for x in sorted(set(wa) | set(wb)):
        if wa.get(x) != wb.get(x):
            before = wa.get(x, "not scoring")
            after = wb.get(x, "not scoring")
            out.append(f"{x} score weight: {before} → {after}")
    for field_, (plugin, arg) in _ARGS.items():
        if a[field_] != b[field_]:
            shown = _SHOWN.get(field_, render)
            out.append(f"{plugin} {arg}: {shown(a[field_])} → {shown(b[field_])}")
    return out


def _shown_constraints(cs: Any) -> str:
    return (
        "["
        + ", ".join(
            f"{c['topologyKey']} maxSkew {c['maxSkew']} {c['whenUnsatisfiable']}" for c in cs
        )
        + "]"
    )


# How an argument is said when the spec's value is not the configuration's spelling.
_SHOWN: Mapping[str, Callable[[Any], str]] = {
    "spreadSystemDefaulted": lambda system: "System" if system else "List",
    "spreadDefaults": _shown_constraints,
}


# Settings the spec does not read, and what they change instead of a cycle's verdict.
_UNREAD = {
    "percentageOfNodesToScore": "which nodes are looked at in clusters over 100 nodes",
    "parallelism": "how many nodes are filtered at once",
    "podInitialBackoffSeconds": "the queue's backoff",
    "podMaxBackoffSeconds": "the queue's backoff",
}


def _unread(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """A note per setting the two configurations differ in that the spec does not read."""
    out = []
    pa = {p.get("schedulerName"): p for p in a.get("profiles") or ()}
    pb = {p.get("schedulerName"): p for p in b.get("profiles") or ()}
    for key, what in _UNREAD.items():
        differ = a.get(key) != b.get(key) or any(
            pa[n].get(key) != pb[n].get(key) for n in set(pa) & set(pb)
        )
        if differ:
            out.append(f"{key} differs; the spec does not read it (it changes {what})")
    return out


def _resources(profile: Fcn) -> set[str]:
    """The resource names a profile's NodeResourcesFit arguments name."""
    named = {str(r["name"]) for r in profile["fitResources"]}
    return named | set(profile["ignoredResources"])


def _deepening(bounds: Bounds, plugins: set[str]) -> list[Bounds]:
    """Small clusters holding only what the differing plugins read first (a witness found there
    is small and quick to find: scores divide by symbolic allocatables, and every field the
    question does not need makes the solver slower), then the bounds themselves, which alone make
    an ``unsat``."""
    lean = dict(_LEAN)
    for plugin in plugins:
        for f, v in _FEATURES.get(plugin, {}).items():
            lean[f] = max(lean[f], v)
    capped = {f: min(v, getattr(bounds, f)) for f, v in lean.items()}
    sizes = [
        replace(bounds, **capped, nodes=min(bounds.nodes, 2), pods=min(bounds.pods, p))
        for p in (1, 2)
    ]
    out: list[Bounds] = []
    for b in [*sizes, bounds]:
        if b not in out:
            out.append(b)
    return out


def compare_configs(
    config_a: Mapping[str, Any],
    config_b: Mapping[str, Any],
    bounds: Bounds | None = None,
    *,
    minimize: bool = False,
    timeout: float = 60.0,
    staged: bool = True,
) -> ConfigAnswer:
    """The first difference between ``config_a`` and ``config_b`` (KubeSchedulerConfiguration
    mappings): a profile only one defines, else a witness cluster per shared profile.
    ``staged=False`` asks the full bounds at once (the baseline ``bench/compare_config.py``
    measures the staged search against)."""
    start = time.monotonic()
    pa = profiles(config_a, node_affinity_record)
    pb = profiles(config_b, node_affinity_record)
    for name in sorted(set(pa) ^ set(pb)):
        has, lacks = ("A", "B") if name in pa else ("B", "A")
        msg = (
            f"profile {name!r} is in {has} only: pods naming schedulerName {name!r} are "
            f"scheduled under {has} and left to another scheduler under {lacks}"
        )
        return ConfigAnswer("sat", msg, time.monotonic() - start, name, "profile")
    notes = _unread(config_a, config_b)
    if bounds is None:
        bounds = Bounds()
    spread_defaults = any(
        pa[n][f] != pb[n][f] for n in pa for f in ("spreadDefaults", "spreadSystemDefaulted")
    )
    if spread_defaults and bounds.services == 0:
        # PodTopologySpread's default constraints apply only to pods a Service or a controller
        # selects: without one the bounded cluster could not tell the profiles apart
        bounds = replace(bounds, services=1)
        notes.append("the bounds hold a Service (--services 1): the default spread constraints "
                     "apply only to pods something selects")  # fmt: skip
    deadline = start + timeout
    for name in sorted(pa):
        a, b = pa[name], pb[name]
        assert isinstance(a, Fcn) and isinstance(b, Fcn)
        stages = (
            _deepening(bounds or Bounds(), _differing(a, b))
            if a != b and staged
            else [bounds or Bounds()]
        )
        for size in stages:
            left = deadline - time.monotonic()
            if left <= 0:
                return ConfigAnswer("unknown", "the solver ran out of time",
                                    time.monotonic() - start, name, notes=notes)  # fmt: skip
            final = size == (bounds or Bounds())
            # a small stage that stalls (Z3's speed varies run to run) leaves time to the next
            budget = left if final else min(left, _STAGE_SECONDS)
            answer = _compare_profile(
                name, a, b, config_a, config_b, size, minimize, budget, restrict=not final
            )
            notes += [n for n in answer.notes if n not in notes]
            if answer.result != "unsat":
                answer.seconds = time.monotonic() - start
                answer.changes = changes(a, b)
                answer.notes = notes  # the configurations' own notes too, not only the stage's
                return answer
    names = ", ".join(sorted(pa))
    msg = (
        f"no difference within the bounds ({_bounds_text(bounds or Bounds())}): every pending pod "
        f"is feasible on the same nodes and has the same best nodes under both (profiles: {names})"
    )
    return ConfigAnswer("unsat", msg, time.monotonic() - start, names, notes=notes)


def _compare_profile(
    name: str,
    a: Fcn,
    b: Fcn,
    config_a: Mapping[str, Any],
    config_b: Mapping[str, Any],
    bounds: Bounds,
    minimize: bool,
    timeout: float,
    *,
    restrict: bool,
) -> ConfigAnswer:
    """``restrict``: a search for a witness only, in small numbers (``Session.solve``)."""
    start = time.monotonic()
    literals = [
        *profile_literals(config_a),
        *profile_literals(config_b),
        *((r, "resource") for r in sorted(_resources(a) | _resources(b))),
    ]
    session = Session(
        bounds,
        [_A, _B],
        timeout,
        literals=literals,
        profiles={_A: Fcn({_SYMBOLIC_SCHEDULER: a}), _B: Fcn({_SYMBOLIC_SCHEDULER: b})},
    )
    notes = vocabulary_notes(session) + float_notes(session)
    carried = session.vocabulary.resources
    absent = sorted((_resources(a) | _resources(b)) - {*carried, "pods"})
    if absent:
        notes.append(
            f"the configurations name resources the bounded cluster's pods and nodes cannot carry "
            f"({', '.join(absent)}; it has {', '.join(carried)}): what they change about them "
            "is not asked"
        )
    try:
        pending = session.formula(_A, _PENDING)[2]
        questions = []
        for kind, text in (
            ("feasible", "Feasible(p, n)"),
            ("decision", "NodeName(n) \\in Best(p)"),
        ):
            ra, rb = session.formula(_A, text)[2], session.formula(_B, text)[2]
            questions.append((kind, ra, rb))
    except CompileTimeout:
        return ConfigAnswer("unknown", "the solver ran out of time compiling the question",
                            time.monotonic() - start, name, notes=notes)  # fmt: skip
    for kind, ra, rb in questions:
        defined = z3.And(
            z3.Not(as_z3bool(pending.error)),
            z3.Not(as_z3bool(ra.error)),
            z3.Not(as_z3bool(rb.error)),
        )
        goal = [as_z3bool(pending.value), defined, as_z3bool(ra.value) != as_z3bool(rb.value)]
        status, models, reason, _ = session.solve(
            goal, minimize=minimize, count=1, restrict=restrict
        )
        if status == "unknown" and restrict:
            continue  # a quick search that found nothing: the next stage asks again
        if status == "unknown":
            return ConfigAnswer("unknown", f"the solver gave up: {reason}",
                                time.monotonic() - start, name, kind, notes=notes)  # fmt: skip
        if status == "sat":
            model, _ = models[0]
            return _witness(session, model, name, kind, config_a, config_b, start, notes)
    if restrict:
        return ConfigAnswer("unsat", "", time.monotonic() - start, name, notes=notes)
    # Equal profiles compile to the same terms: no rounding or string can tell them apart.
    if a != b and (session.vocabulary.outside or approximated(session) or absent):
        msg = (
            f"profile {name!r}: no difference within the bounds, but the answer depends on what "
            "the bounded cluster cannot hold or on float64 rounding (see the notes)"
        )
        return ConfigAnswer("unknown", msg, time.monotonic() - start, name, notes=notes)
    return ConfigAnswer("unsat", "", time.monotonic() - start, name, notes=notes)


def _witness(
    session: Session,
    model: z3.ModelRef,
    name: str,
    kind: str,
    config_a: Mapping[str, Any],
    config_b: Mapping[str, Any],
    start: float,
    notes: list[str],
) -> ConfigAnswer:
    objects = session.cluster.objects(model)
    if name != _SYMBOLIC_SCHEDULER:  # the symbolic pods name the default; the profile is name's
        for obj in objects:
            if obj.get("kind") == "Pod":
                obj.setdefault("spec", {})["schedulerName"] = name
    bindings = session.bindings(model)
    pod, node = bindings["p"], bindings["n"]
    spec = session.specs[_A].loaded  # re-bound to each witness: its program is the executable
    found = {
        label: decisions(_load_witness(_with_config(objects, config)), pod, spec)
        for label, config in (("A", config_a), ("B", config_b))
    }
    differs = (
        (node in found["A"].feasible) != (node in found["B"].feasible)
        if kind == "feasible"
        else (node in found["A"].best) != (node in found["B"].best)
    )
    if not differs and approximated(session):
        msg = "the solver's witness differs only in exact arithmetic; Go's float64 rounding agrees"
        return ConfigAnswer("unknown", msg, time.monotonic() - start, name, kind, notes=notes)
    if not differs:
        raise UsageError(
            "internal: the solver's witness does not tell the configurations apart on the "
            "executable backend; please report it with the witness:\n" + yaml.safe_dump_all(objects)
        )
    what = "feasible" if kind == "feasible" else "among the best nodes"
    msg = f"profile {name!r}: pod {pod} is {what} on {node} under one configuration only"
    return ConfigAnswer(
        "sat", msg, time.monotonic() - start, name, kind, objects, pod, node, found, notes
    )
