"""Z3-generated cluster states: one query per coverage target of the spec's Filter path.

For every target of :class:`schedspec.spec.coverage.Coverage` in the definitions the Filter path
reaches (``NodeStatus``, ``Feasible`` and every ``*OK(p, n)``) and every definition holding a
CASE, the target's own path in the spec text becomes a formula for
:func:`schedspec.spec.solve` — e.g. FilterStatusIn's arm 5 becomes::

    p ∈ PendingPods ∧ (LET W ≝ Snapshot IN
                         ¬(Runs(p, "preFilters", "NodeAffinity") ∧ NodeAffinityConflict(p)) ∧ …
                         ∧ Runs(p, "filters", "NodeUnschedulable") ∧ ¬NodeUnschedulableOK(p, n))

* a definition's parameters ``p``/``q`` are pods (``p`` a pending one), ``n``/``m`` nodes, ``W``
  the cluster's own placement (``Snapshot``);
* a definition with other parameters (``Tolerates(t, x)``) is phrased at a call site: the caller's
  path, then ``LET t ≝ <argument> …`` (the first few call sites are tried in turn);
* binders on the way become ``∃``, LET definitions stay LET, the earlier ∧ items / CASE guards /
  IF condition become conjuncts. A target under a LAMBDA has no domain for the LAMBDA's
  parameters: it is reported as ``not phrased``.

Answers: ``sat`` (a witness cluster), ``unsat`` (none within the bounds), ``unknown`` (the solver
or the compile ran out of time — never read as unsat), ``not solvable`` (the Z3 backend does not
compile a definition on the path: docs/z3.md), ``not phrased``. Each query has its own timeout.
Answers are cached on disk under ``$XDG_CACHE_HOME/schedspec/z3states/<sha256>.json``, keyed by
the spec text, the bounds, the timeout and this module's query format, so a campaign solves once.

:func:`campaign_coverage` evaluates clusters with an instrumented program and returns the
coverage; :func:`z3_coverage` does that for the Z3 states.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import z3

from schedspec.cluster import Cluster, from_objects
from schedspec.errors import SchedspecError
from schedspec.spec import ast as A
from schedspec.spec.compile.z3 import CompileTimeout, Z3Unsupported, as_z3bool
from schedspec.spec.coverage import Coverage, Frame, Site, instrument, reachable
from schedspec.spec.errors import EvalError, SpecError
from schedspec.spec.kube.symbolic import Bounds
from schedspec.spec.load import LoadedSpec, load_spec, read_spec
from schedspec.spec.printer import pretty
from schedspec.spec.solve import Session, approximated, float_notes

if TYPE_CHECKING:
    from schedspec.checker.differential import ClusterCheck

__all__ = [
    "DEFAULT_BOUNDS",
    "WARNED_STATES",
    "Z3State",
    "campaign_coverage",
    "check_states",
    "filter_scope",
    "queries",
    "warned_clusters",
    "z3_coverage",
    "z3_states",
]

FORMAT = 5  # bump when the queries or the symbolic cluster change: part of the cache key
DEFAULT_BOUNDS = Bounds(nodes=2, pods=3, taints=1, tolerations=1, term_values=1)
ROOTS = ("NodeStatus", "Feasible")
_POD, _NODE, _PLACEMENT = {"p", "q"}, {"n", "m"}, {"W"}
_SITES_TRIED = 6


@dataclass
class Z3State:
    """One target's query and answer; ``objects`` is the witness cluster when ``result`` is sat."""

    key: str
    label: str
    where: str
    result: str  # sat | unsat | unknown | not solvable | not phrased
    formula: str = ""
    objects: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    message: str = ""

    def cluster(self) -> Cluster:
        return from_objects(self.objects, source=f"<z3 state {self.label}>")


# ---- which targets, and their formulas ---------------------------------------------------------


def _checked_definitions(spec: LoadedSpec) -> list[str]:
    """The per-(pod, node) predicates a campaign evaluates: every ``*OK(p, n)``."""
    return [
        d.name
        for d in spec.module.definitions
        if d.name.endswith("OK") and [p.name for p in d.params] == ["p", "n"]
    ]


def filter_scope(spec: LoadedSpec) -> set[str]:
    """The definitions the Filter path reaches, plus every definition holding a CASE."""
    scope = reachable(spec.module, (*ROOTS, *_checked_definitions(spec)))
    scope |= {
        d.name for d in spec.module.definitions if any(isinstance(x, A.Case) for x in A.walk(d))
    }
    return scope


def _object_frames(d: A.Definition, scores: set[str]) -> tuple[Frame, ...] | None:
    """How a definition whose parameters are all cluster objects is entered; None otherwise.
    A score (outside the Filter path) is only evaluated on a feasible node."""
    frames: list[Frame] = []
    names = [p.name for p in d.params]
    if d.name in scores and "p" in names and "n" in names:
        feasible = A.Apply("Feasible", (A.Name("p"), A.Name("n")))
        frames.append(Frame("cond", feasible))
    for param in d.params:
        if param.name == "p":
            frames.append(Frame("cond", _member("p", "PendingPods")))
        elif param.name in _PLACEMENT:
            snapshot = A.Definition(param.name, (), A.Name("Snapshot"))
            frames.append(Frame("let", defs=(snapshot,)))
        elif param.name not in _POD | _NODE:
            return None
    return tuple(frames)


def _member(var: str, domain: str) -> A.Expr:
    return A.Binary(A.BinOp.IN, A.Name(var), A.Name(domain))


def _contexts(cov: Coverage, scope: set[str]) -> dict[str, list[tuple[Frame, ...]]]:
    """definition -> the ways into it (each a tuple of frames), the direct way first."""
    defs = {d.name: d for d in cov.module.definitions}
    scores = set(defs) - reachable(cov.module, ROOTS)
    out: dict[str, list[tuple[Frame, ...]]] = {}
    for name, d in defs.items():
        direct = _object_frames(d, scores)
        if direct is not None:
            out[name] = [direct]
    changed = True
    while changed:  # a callee is phrased through a caller already phrased
        changed = False
        for caller, call, path in cov.call_sites:
            callee = defs[call.name]
            ways = out.get(callee.name, [])
            if caller not in out or caller not in scope or len(ways) >= _SITES_TRIED:
                continue
            if any(f.kind == "opaque" for f in path) or len(call.args) != len(callee.params):
                continue
            if ways and _object_frames(callee, scores) is not None:
                continue  # entered directly already
            binds = tuple(
                A.Definition(param.name, (), arg)
                for param, arg in zip(callee.params, call.args, strict=True)
                if not (isinstance(arg, A.Name) and arg.name == param.name)
            )
            way = (*out[caller][0], *path, *((Frame("let", defs=binds),) if binds else ()))
            out.setdefault(callee.name, []).append(way)
            changed = True
    return out


def _formula(frames: Sequence[Frame], condition: A.Expr) -> A.Expr | None:
    acc = condition
    for f in reversed(frames):
        if f.kind == "opaque":
            return None
        if f.kind == "cond":
            assert f.cond is not None
            acc = A.Junction(A.JunctionOp.AND, (f.cond, acc))
        elif f.kind == "exists":
            acc = A.Quant(A.QuantKind.EXISTS, f.bounds, acc)
        else:
            acc = A.Let(f.defs, acc)
    return acc


def queries(cov: Coverage, scope: set[str]) -> Iterator[tuple[Site, list[str]]]:
    """Each target in ``scope`` with its formulas (one per way into its definition; none when
    it cannot be phrased)."""
    contexts = _contexts(cov, scope)
    for site in cov.sites:
        if site.target.definition not in scope:
            continue
        texts = []
        for way in contexts.get(site.target.definition, []):
            if site.condition is None:
                break
            f = _formula((*way, *site.path), site.condition)
            if f is not None:
                texts.append(pretty(f))
        yield site, texts


# ---- solving ------------------------------------------------------------------------------------


def _cache_file(text: str, bounds: Bounds, timeout: float) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    digest = hashlib.sha256(f"{FORMAT}\n{bounds!r}\n{timeout}\n{text}".encode()).hexdigest()
    return Path(base) / "schedspec" / "z3states" / f"{digest[:32]}.json"


def _load_cache(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_cache(path: Path, states: dict[str, dict[str, Any]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(states), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a cache that cannot be written only costs time


class _Solver:
    """One symbolic cluster reused across queries (rebuilt after a compile timeout)."""

    def __init__(self, spec: str, bounds: Bounds, timeout: float) -> None:
        self.spec, self.bounds, self.timeout = spec, bounds, timeout
        self.session: Session | None = None

    def solve(self, text: str) -> tuple[str, list[dict[str, Any]], str]:
        if self.session is None:
            self.session = Session(self.bounds, [self.spec], self.timeout)
        s = self.session
        s.deadline = time.monotonic() + self.timeout
        for compiled in s.specs.values():
            compiled.compiler.deadline = s.deadline
            compiled.compiler.approximated = set()  # this query's relaxed kernels only
        try:
            _, _, result = s.formula(self.spec, text)
        except CompileTimeout:
            self.session = None
            return "unknown", [], f"building the formula took longer than {self.timeout:g}s"
        except Z3Unsupported as err:
            return "not solvable", [], str(err)
        goal = [as_z3bool(result.value)]
        defined = z3.Not(as_z3bool(result.error)) if result.errors else True
        status, models, reason, _ = s.solve(goal, minimize=False, count=1, defined=defined)
        if status == "unsat" and approximated(s):
            return "unknown", [], "unsat in exact arithmetic; " + " ".join(float_notes(s))
        if status != "sat":
            return status, [], reason
        return "sat", s.cluster.objects(models[0][0]), ""


def z3_states(
    spec: str = "scheduler",
    *,
    timeout: float = 5.0,
    targets: Iterable[str] | None = None,
    bounds: Bounds = DEFAULT_BOUNDS,
    cache: bool = True,
) -> list[Z3State]:
    """A Z3 state per target (keys or labels in ``targets``; default: :func:`filter_scope`)."""
    loaded = load_spec(spec)
    _, text = read_spec(spec)
    cov = Coverage(loaded.module)
    wanted = set(targets) if targets is not None else None
    path = _cache_file(text, bounds, timeout)
    cached = _load_cache(path) if cache else {}
    solver = _Solver(spec, bounds, timeout)
    out: list[Z3State] = []
    for site, formulas in queries(cov, filter_scope(loaded)):
        t = site.target
        if wanted is not None and t.key not in wanted and t.label not in wanted:
            continue
        if t.key in cached:
            out.append(Z3State(**cached[t.key]))
            continue
        state = _solve_target(solver, t.key, t.label, t.where, formulas)
        cached[t.key] = asdict(state)
        out.append(state)
        if cache and state.result != "unknown":
            _save_cache(path, cached)
    return out


def _solve_target(
    solver: _Solver, key: str, label: str, where: str, formulas: list[str]
) -> Z3State:
    if not formulas:
        why = "under a LAMBDA, or its definition's parameters are bound by no phrased caller"
        return Z3State(key, label, where, "not phrased", message=why)
    start = time.monotonic()
    answers: list[tuple[str, list[dict[str, Any]], str]] = []
    for text in formulas:
        try:
            answer = solver.solve(text)
        except (SpecError, SchedspecError) as err:
            answer = ("not phrased", [], f"{type(err).__name__}: {err}")
        answers.append(answer)
        if answer[0] == "sat":
            break
    # sat beats unknown beats unsat: unsat only when every way in is unsat
    rank = {"sat": 0, "unknown": 1, "not solvable": 2, "unsat": 3, "not phrased": 4}
    best = min(range(len(answers)), key=lambda i: rank.get(answers[i][0], 5))
    result, objects, message = answers[best]
    if result == "unsat" and len(formulas) > 1:
        message = f"unsat in each of the {len(formulas)} call contexts tried (within the bounds)"
    return Z3State(
        key, label, where, result, formulas[best], objects, time.monotonic() - start, message
    )


# ---- states outside Z3's bounds -----------------------------------------------------------------

# The symbolic cluster builds only manifests the API server accepts, but ``schedspec.cluster``
# loads label selectors the API server would reject (with a warning), and kube-scheduler has
# defined behaviour for them: PodTopologySpread's PreFilter errors, InterPodAffinity rejects the
# pod as unresolvable, NodeAffinity matches no term. These hand-made clusters reach those CASE arms.
_WARNED_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node-a", "labels": {"topology.kubernetes.io/zone": "a"}},
    "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}},
}


def _warned_pod(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    containers = [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": containers, **spec},
    }


_IN_WITHOUT_VALUES = {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}
_UNKNOWN_OPERATOR = {"matchExpressions": [{"key": "app", "operator": "Near"}]}
WARNED_STATES: tuple[tuple[str, list[dict[str, Any]]], ...] = (
    (
        "spread selector In without values (FilterStatusIn arm 2)",
        [
            _WARNED_NODE,
            _warned_pod(
                "spread-invalid",
                {
                    "topologySpreadConstraints": [
                        {
                            "maxSkew": 1,
                            "topologyKey": "topology.kubernetes.io/zone",
                            "whenUnsatisfiable": "DoNotSchedule",
                            "labelSelector": _IN_WITHOUT_VALUES,
                        }
                    ]
                },
            ),
        ],
    ),
    (
        "pod affinity selector, unknown operator (FilterStatusIn arm 3, SelectorValid OTHER)",
        [
            _WARNED_NODE,
            _warned_pod(
                "affinity-invalid",
                {
                    "affinity": {
                        "podAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": [
                                {
                                    "topologyKey": "topology.kubernetes.io/zone",
                                    "labelSelector": _UNKNOWN_OPERATOR,
                                }
                            ]
                        }
                    }
                },
            ),
        ],
    ),
)


WARNED_STATES += (
    (
        "node affinity requirement, unknown operator (NodeRequirementValid OTHER)",
        [
            _WARNED_NODE,
            _warned_pod(
                "node-affinity-invalid",
                {
                    "affinity": {
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [
                                    {"matchExpressions": [{"key": "zone", "operator": "Near"}]}
                                ]
                            }
                        }
                    }
                },
            ),
        ],
    ),
)


def warned_clusters() -> list[Cluster]:
    """The :data:`WARNED_STATES` as clusters."""
    return [from_objects(objs, source=f"<{what}>") for what, objs in WARNED_STATES]


# ---- coverage of clusters -----------------------------------------------------------------------


def campaign_coverage(clusters: Iterable[Cluster], spec: str = "scheduler") -> Coverage:
    """The coverage of ``spec`` when every pending pod × node of each cluster is judged: the
    node's status (``NodeStatus``), ``Feasible``, every ``*OK(p, n)``, and ``Viability`` on
    the feasible nodes. Evaluation errors are part of the run, not failures."""
    loaded = load_spec(spec)
    cov = Coverage(loaded.module)
    program = instrument(loaded.module, cov)
    predicates = [d for d in ("NodeStatus", "Feasible") if program.has(d)]
    predicates += _checked_definitions(loaded)
    score = loaded.view.score
    for cluster in clusters:
        world = loaded.view.build(cluster)
        program.bind(world.constants)
        for key in world.pending:
            pod = world.pods[key]
            for node in world.nodes.values():
                verdicts = {name: _call(program, name, pod, node) for name in predicates}
                if score and verdicts.get("Feasible") is True and program.has(score):
                    _call(program, score, pod, node)
    return cov


def _call(program: Any, name: str, pod: Any, node: Any) -> Any:
    try:
        return program.call(name, pod, node)
    except EvalError:
        return None


def z3_coverage(
    states: Iterable[Z3State], spec: str = "scheduler", *, warned: bool = True
) -> Coverage:
    """The coverage of the sat states' witness clusters (and of :data:`WARNED_STATES`)."""
    clusters: list[Cluster] = [s.cluster() for s in states if s.result == "sat"]
    if warned:
        clusters += warned_clusters()
    return campaign_coverage(clusters, spec)


def check_states(states: Iterable[Z3State], spec: str = "scheduler") -> ClusterCheck:
    """Every sat state's cluster through the differential checker (spec vs impl), merged."""
    from schedspec.checker.differential import Checker, ClusterCheck

    checker, out = Checker(spec), ClusterCheck()
    for state in states:
        if state.result == "sat":
            out.merge(checker.check(state.cluster()))
    return out
