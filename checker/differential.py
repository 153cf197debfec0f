"""Predicate-level differential checks: the spec and the operational scheduler on the same state.

``Checker(spec).check(cluster)`` shows ``cluster`` to ``spec/kube/scheduler.tla`` (through its view)
and loads it into the operational scheduler (``Scheduler.sync``: the informers' initial list, no
scheduling cycle), then, for every pending pod and node, compares every row of the seam
(:mod:`schedspec.checker.seam`): each Filter plugin alone, the framework's status and feasibility
with nominated pods, each Score plugin's normalised score on the feasible nodes, the weighted total
and the set of best nodes. Each difference is a :class:`Disagreement`; one a declared difference
covers (:mod:`schedspec.checker.declared`) carries its id, and only the others fail a campaign.

The two sides share nothing but ``schedspec.cluster``: the spec sees TLA values built by its view,
impl its own typed objects; a misunderstanding in one cannot hide in both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from schedspec.checker import declared as declared_mod
from schedspec.checker.impl_side import (
    _FILTERS,
    ImplState,
    PodCache,
    _filter_for,
    _PodRun,
    _Raised,
    _run_pod,
)
from schedspec.checker.preemption import dry_run
from schedspec.checker.seam import SEAM, TEXTBOOK_SEAM, Pair
from schedspec.cluster import Cluster, object_key
from schedspec.impl.api.types import Pod
from schedspec.impl.framework.runtime import Framework
from schedspec.impl.framework.types import NodeInfo
from schedspec.spec.compile.source import RECURSED
from schedspec.spec.errors import EvalError
from schedspec.spec.kube.views import bind_arguments
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.values import Fcn, render

__all__ = [
    "PAIRS",
    "Agreement",
    "Checker",
    "ClusterCheck",
    "Disagreement",
    "ImplState",
    "SpecState",
    "same",
]

PAIRS = ("spec↔impl", "spec↔real", "impl↔real", "textbook↔real")
"""The pairs of witnesses the checker tallies agreement for: ``spec`` is the spec checked
(``scheduler.tla`` unless told otherwise), ``real`` the kube-scheduler behind the oracle,
``textbook`` the seed spec, asked alongside when the checker has both an oracle and it."""


@dataclass(frozen=True)
class Disagreement:
    """Spec and impl (and the real scheduler, when asked) differ on ``predicate`` for
    ``pod`` on ``node`` (None: a per-pod comparison such as ``Best``)."""

    predicate: str
    pod: str
    node: str | None
    spec: object
    impl: object
    oracle: object | None = None
    declared: str | None = None

    def describe(self) -> str:
        where = f"{self.pod} on {self.node}" if self.node is not None else self.pod
        sides = f"spec {_show(self.spec)}, impl {_show(self.impl)}"
        if self.oracle is not None:
            sides += f", kube-scheduler {_show(self.oracle)}"
        tail = f" (declared: {self.declared})" if self.declared else ""
        return f"{self.predicate}({where}): {sides}{tail}"


def _show(value: object) -> str:
    if isinstance(value, frozenset):
        return "{" + ", ".join(sorted(map(str, value))) + "}"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


@dataclass
class Agreement:
    """How often two witnesses gave the same answer, per (pair, predicate): every comparison
    counts, declared differences included (they are differences all the same)."""

    compared: Counter[tuple[str, str]] = field(default_factory=Counter)
    agreed: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, pair: str, predicate: str, agree: bool) -> None:
        self.compared[pair, predicate] += 1
        if agree:
            self.agreed[pair, predicate] += 1

    def merge(self, other: Agreement) -> None:
        self.compared.update(other.compared)
        self.agreed.update(other.agreed)

    def table(self) -> dict[str, dict[str, tuple[int, int]]]:
        """pair → predicate → (agreed, compared), pairs in :data:`PAIRS` order."""
        rows: dict[str, dict[str, tuple[int, int]]] = {}
        for pair in PAIRS:
            for (p, predicate), n in sorted(self.compared.items()):
                if p == pair:
                    rows.setdefault(pair, {})[predicate] = (self.agreed[p, predicate], n)
        return rows


@dataclass
class ClusterCheck:
    checked: Counter[str] = field(default_factory=Counter)
    disagreements: list[Disagreement] = field(default_factory=list)
    agreement: Agreement = field(default_factory=Agreement)
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(predicate, "TRUE" | "FALSE" | "other") ↦ how often the spec's side took it."""

    @property
    def undeclared(self) -> list[Disagreement]:
        return [d for d in self.disagreements if d.declared is None]

    def merge(self, other: ClusterCheck) -> None:
        self.checked.update(other.checked)
        self.disagreements.extend(other.disagreements)
        self.agreement.merge(other.agreement)
        self.outcomes.update(other.outcomes)

    def vacuous(self) -> dict[str, tuple[str, int]]:
        """Boolean predicates that took one value on every pair: predicate ↦ (value, pairs)."""
        seen: dict[str, dict[str, int]] = {}
        for (predicate, value), n in self.outcomes.items():
            seen.setdefault(predicate, {})[value] = n
        return {
            predicate: (value, n)
            for predicate, values in sorted(seen.items())
            if len(values) == 1
            for value, n in values.items()
            if value != "other"
        }


# ------------------------------------------------------------------------------------ the spec


class SpecState:
    """``cluster`` as the spec sees it: one call per (definition, arguments)."""

    def __init__(self, spec: LoadedSpec, cluster: Cluster) -> None:
        self.spec = spec
        self.world = spec.view.build(cluster)
        self.program = spec.runner.bind(self.world.constants, keep=spec.view.shares_values)

    def call(self, name: str, *args: Any) -> Any:
        try:
            return self.program.call(name, *args)
        except EvalError as err:
            return _Raised(err.message)

    def each_node(self, name: str, pod: Fcn, nodes: Iterable[Fcn]) -> list[Any]:
        """``call(name, pod, n)`` for each of ``nodes``, in turn."""
        fn, arity = self.program.function(name)
        if arity != 2:
            return [self.call(name, pod, n) for n in nodes]
        out: list[Any] = []
        for n in nodes:
            try:
                out.append(fn(pod, n))
            except EvalError as err:
                out.append(_Raised(err.message))
            except RecursionError:
                out.append(_Raised(RECURSED))
        return out

    def call_pod_node(self, name: str, pod: Fcn, node: Fcn) -> Any:
        """``name`` with its parameters bound by role (``Pod``/``p``, ``Node``/``n``,
        ``Snapshot``), as ``eval`` binds them: the textbook's definitions take ``Snapshot`` too."""
        try:
            args = bind_arguments(self.program.definition(name), pod, node, self.world)
            return self.program.call(name, *args)
        except EvalError as err:
            return _Raised(err.message)


# ------------------------------------------------------------------------------------ oracle


_NA = object()  # the real scheduler has no answer for this comparison


class OracleAnswer:
    """The real kube-scheduler's ``score`` answer for one pod (``checker/oracle.py``), read
    the way the seam reads impl: per-plugin codes without nominated pods (``Skip`` at PreFilter
    is a pass), the framework's verdict and feasibility with them, normalised scores."""

    def __init__(self, answer: Mapping[str, Any]) -> None:
        self.codes = {
            (f["plugin"], n["node"]): f["code"] for n in answer["nodes"] for f in n["filters"]
        }
        self.verdict = {n["node"]: n["verdict"]["code"] for n in answer["nodes"]}
        self.feasible = frozenset(answer.get("feasible") or ())
        self.scores = {row["node"]: row for row in answer.get("scores") or []}
        self.best = frozenset(answer.get("max_score_nodes") or ())
        self.score_error = "score_error" in answer

    def value(self, row: Pair | None, node: str | None) -> object:
        if row is None:
            return _NA
        if row.point == "filter" and node is not None:
            code = self.codes.get((row.plugin, node))
            return _NA if code is None else code in ("Success", "Skip")
        if row.point == "status" and node is not None:
            return self.verdict.get(node, _NA)
        if row.point == "feasible" and node is not None:
            return node in self.feasible if node in self.verdict else _NA
        if row.point == "scoring":
            return self.score_error
        if not self.scores:
            return _NA  # fewer than two feasible nodes: kube-scheduler does not score
        if row.point == "score" and node in self.scores:
            plugins = {p["plugin"]: p["normalized"] for p in self.scores[node]["plugins"]}
            return plugins.get(row.plugin, 0)
        if row.point == "total" and node in self.scores:
            return self.scores[node]["total"]
        if row.point == "best":
            return self.best
        return _NA

    def decision(self) -> frozenset[str]:
        """Where the cycle may bind the pod: the nodes of highest total, the only feasible node
        (kube-scheduler does not score one), or none."""
        if len(self.feasible) < 2:
            return self.feasible
        return self.best


def _pod_answers(oracle: Any) -> Any:
    """The oracle's answers, one request per cluster (``oracle_answers.PodAnswers``)."""
    if oracle is None:
        return None
    from schedspec.checker.oracle_answers import PodAnswers

    return PodAnswers(oracle)


# ------------------------------------------------------------------------------------ checker


class Checker:
    """Compares ``spec`` (a bundled name or a path) with the operational scheduler on clusters.
    Load once, check many: the spec is parsed and compiled here."""

    def __init__(
        self,
        spec: str | LoadedSpec = "scheduler",
        oracle: Any = None,
        *,
        textbook: str | LoadedSpec | None = None,
    ) -> None:
        self.spec = load_spec(spec) if isinstance(spec, str) else spec
        self.textbook = self.spec.view.name == "textbook"
        self.oracle = oracle
        self.answers = _pod_answers(oracle)
        self.rows = [row for row in SEAM if row.point != "decision"]
        # impl's Pods, kept from one cluster to the next (None: each cluster converts its own)
        self.pods: PodCache | None = PodCache()
        self.by_name = {row.spec: row for row in self.rows}
        # the seed spec, judged against the real scheduler's answers only (it is known wrong)
        self.also_textbook: LoadedSpec | None = None
        if textbook is not None and oracle is not None and not self.textbook:
            self.also_textbook = load_spec(textbook) if isinstance(textbook, str) else textbook
        for loaded in (self.spec, self.also_textbook):
            if loaded is not None:
                loaded.runner  # noqa: B018 -- compiled now, not in the first cluster's check

    def check(self, cluster: Cluster) -> ClusterCheck:
        run = _ClusterRun(self, cluster)
        try:
            run.check()
        finally:
            if self.answers is not None:
                self.answers.forget(cluster)
        return run.out

    def send_ahead(self, cluster: Cluster) -> bool:
        """Sends the oracle's request for ``cluster`` before ``check`` needs it (the child works
        meanwhile: ``oracle_answers.OneAhead``); False without an oracle, or when the checker
        judges the textbook (it asks none)."""
        if self.answers is None or self.textbook:
            return False
        self.answers.send(cluster)
        return True


class _ClusterRun:
    """One cluster's comparisons: both sides' states, the counts, and the real scheduler's
    answer for the pod being judged (when the checker has an oracle)."""

    def __init__(self, checker: Checker, cluster: Cluster) -> None:
        self.checker = checker
        self.cluster = cluster
        self.out = ClusterCheck()
        self.context = declared_mod.Context(cluster)
        self.s = SpecState(checker.spec, cluster)
        self.i = ImplState(cluster, pods=checker.pods)
        self.t: SpecState | None = None
        if checker.also_textbook is not None:
            self.t = SpecState(checker.also_textbook, cluster)
        self.asked: OracleAnswer | None = None
        # predicate → [compared, agreed, spec TRUE, spec FALSE] between spec and impl, then
        # [compared, spec agreed, impl agreed] with the real scheduler, folded into ``out`` at
        # the end: a cluster makes hundreds of comparisons, and most agree
        self.counts: dict[str, list[int]] = {}

    def check(self) -> None:
        try:
            self.check_pods()
        finally:
            self.fold_counts()

    def fold_counts(self) -> None:
        checked, compared, agreed = (
            self.out.checked,
            self.out.agreement.compared,
            self.out.agreement.agreed,
        )
        outcomes = self.out.outcomes
        for predicate, (n, a, yes, no, real, spec_real, impl_real) in self.counts.items():
            checked[predicate] += n
            compared["spec↔impl", predicate] += n
            if a:
                agreed["spec↔impl", predicate] += a
            if real:
                compared["spec↔real", predicate] += real
                compared["impl↔real", predicate] += real
                if spec_real:
                    agreed["spec↔real", predicate] += spec_real
                if impl_real:
                    agreed["impl↔real", predicate] += impl_real
            if yes:
                outcomes[predicate, "TRUE"] += yes
            if no:
                outcomes[predicate, "FALSE"] += no
            if n - yes - no:
                outcomes[predicate, "other"] += n - yes - no
        self.counts.clear()

    def check_pods(self) -> None:
        world = self.s.world
        deleting = {
            object_key(q) for q in self.cluster.pods if q["metadata"].get("deletionTimestamp")
        }
        for key in world.pending:
            if key in deleting:
                continue  # being deleted: never scheduled (schedule_one.go skipPodSchedule)
            pod = self.i.pending.get(key)
            self.out.checked["Pending"] += 1
            if pod is None:
                self.differ("Pending", key, None, True, False)
                continue
            fwk = self.i.framework(pod)
            if fwk is None:
                continue  # another scheduler's pod
            p = world.pods[key]
            if self.checker.textbook:
                self.check_textbook(fwk, key, p, pod)
            elif self.checker.oracle is None or self.ask_oracle(key):
                self.check_pod(fwk, key, p, pod)
                if self.t is not None and self.asked is not None:
                    self.check_textbook_real(key, self.asked)
                self.asked = None

    def ask_oracle(self, key: str) -> bool:
        """Ask the real scheduler about ``key``; a refusal of a cluster schedspec accepted is
        itself a disagreement (``Admitted``)."""
        from schedspec.checker.oracle import OracleRequestError

        self.out.checked["Admitted"] += 1
        self.asked = None
        assert self.checker.answers is not None
        try:
            self.asked = OracleAnswer(self.checker.answers.score(self.cluster, key))
        except OracleRequestError as err:
            self.differ("Admitted", key, None, True, True, oracle=str(err))
        admitted = self.asked is not None
        for pair in ("spec↔impl", "spec↔real", "impl↔real"):
            self.out.agreement.add(pair, "Admitted", pair == "spec↔impl" or admitted)
        return admitted

    def differ(
        self,
        predicate: str,
        pod: str,
        node: str | None,
        spec: object,
        impl: object,
        oracle: object = None,
    ) -> None:
        d = Disagreement(predicate, pod, node, spec, impl, oracle)
        covering = declared_mod.covering(self.context, d)
        self.out.disagreements.append(d if covering is None else replace(d, declared=covering))

    def compare(
        self,
        predicate: str,
        pod: str,
        node: str | None,
        spec: object,
        impl: object,
        real: object = None,
    ) -> None:
        """One comparison: spec and impl, and the real scheduler's answer when it has one
        (``real``, else read from the oracle's answer through the seam row)."""
        agree = spec == impl and type(spec) is type(impl)  # same(spec, impl), inlined
        counts = self.counts.get(predicate)
        if counts is None:
            counts = self.counts[predicate] = [0, 0, 0, 0, 0, 0, 0]
        counts[0] += 1
        counts[1] += agree
        if spec is True:
            counts[2] += 1
        elif spec is False:
            counts[3] += 1
        if real is None:
            if self.asked is None:
                if not agree:
                    self.differ(predicate, pod, node, _plain(spec), _plain(impl))
                return
            real = self.asked.value(self.checker.by_name.get(predicate), node)
        if real is not _NA:
            counts[4] += 1
            counts[5] += spec == real and type(spec) is type(real)
            counts[6] += impl == real and type(impl) is type(real)
        if not agree or (real is not _NA and not same(real, spec)):
            third = None if real is _NA else _plain(real)
            self.differ(predicate, pod, node, _plain(spec), _plain(impl), third)

    def check_textbook_real(self, key: str, real: OracleAnswer) -> None:
        """The seed spec against the real scheduler's answer for ``key``: each
        ``TEXTBOOK_SEAM`` row on every node, and whether any node is feasible. Only tallied:
        the textbook's differences are the divergence catalogue's (``docs/divergences.md``)."""
        assert self.t is not None
        p = self.t.world.pods.get(key)
        if p is None:
            return
        tally = self.out.agreement.add
        schedulable: object = False
        for spec_defs, impl_rows in TEXTBOOK_SEAM:
            label = " ∧ ".join(spec_defs)
            for name, n in self.t.world.nodes.items():
                answer = _conjoin(real.value(self.checker.by_name[r], name) for r in impl_rows)
                if answer is _NA:
                    continue
                value = _conjoin(self.t.call_pod_node(d, p, n) for d in spec_defs)
                tally("textbook↔real", label, same(value, answer))
                if label == "Filter" and value is True:
                    schedulable = True
        tally("textbook↔real", "Schedulable", same(schedulable, bool(real.feasible)))

    def check_textbook(self, fwk: Framework, key: str, p: Fcn, pod: Pod) -> None:
        s, i = self.s, self.i
        run = _guard_run(fwk, i, pod)
        for spec_defs, impl_rows in TEXTBOOK_SEAM:
            label = " ∧ ".join(spec_defs)
            for name, n in s.world.nodes.items():
                ni = i.by_name[name]
                spec_value = _conjoin(s.call_pod_node(d, p, n) for d in spec_defs)
                if impl_rows == ("Feasible",):
                    impl_value: object = (
                        run if isinstance(run, _Raised) else run.codes[name] == "Success"
                    )
                else:
                    impl_value = _conjoin(_guard(_FILTERS[r], i, pod, ni) for r in impl_rows)
                self.compare(label, key, name, spec_value, impl_value)

    def check_pod(self, fwk: Framework, key: str, p: Fcn, pod: Pod) -> None:
        s, i = self.s, self.i
        nodes = s.world.nodes
        for row in self.checker.rows:
            # a plugin the profile does not build has no arguments to judge it with
            if row.point == "filter" and row.plugin in fwk.plugins:
                impl_fn = _filter_for(row.spec, i, pod)
                spec_values = s.each_node(row.spec, p, nodes.values())
                for name, spec_value in zip(nodes, spec_values, strict=True):
                    impl_value = _guard(impl_fn, i, pod, i.by_name[name])
                    self.compare(row.spec, key, name, spec_value, impl_value)
        run = _guard_run(fwk, i, pod)
        if isinstance(run, _Raised):
            self.compare("Feasible", key, None, "answered", run)
            return
        spec_feasible = set()
        feasibles = s.each_node("Feasible", p, nodes.values())
        statuses = s.each_node("NodeStatus", p, nodes.values())
        for name, feasible, status in zip(nodes, feasibles, statuses, strict=True):
            code = run.codes[name]
            if feasible is True:
                spec_feasible.add(name)
            self.compare("NodeStatus", key, name, status, code)
            self.compare("Feasible", key, name, feasible, code == "Success")
        real_feasible = _NA if self.asked is None else bool(self.asked.feasible)
        self.compare(
            "Schedulable", key, None, bool(spec_feasible), bool(run.feasible), real_feasible
        )
        self.check_preemption(fwk, key, p, pod, run)
        feasible_names = [ni.name for ni in run.feasible]
        spec_best = s.call("Best", p) if spec_feasible else frozenset()
        totals = run.totals
        self.compare("ScoreError", key, None, s.call("ScoreError", p), isinstance(totals, _Raised))
        if (
            run.feasible
            and spec_feasible == set(feasible_names)
            and not isinstance(totals, _Raised)
        ):
            # scores are normalised over the feasible nodes: compared when both sides agree on
            # them, and only when scoring did not fail (a failed PreScore leaves none)
            self.check_scores(key, p, run, totals, feasible_names, spec_best)
        impl_best = _best(run, feasible_names)
        real_best = _NA if self.asked is None else self.asked.decision()
        self.compare("Decision", key, None, spec_best, impl_best, real_best)

    def check_preemption(self, fwk: Framework, key: str, p: Fcn, pod: Pod, run: _PodRun) -> None:
        """DefaultPreemption's dry run after this cycle against the spec's preemption rules."""
        s = self.s
        try:
            impl = dry_run(fwk, run.state, pod, self.i.nodes, run.statuses)
        except Exception as err:  # an impl crash is a finding
            raised = _Raised(f"{type(err).__name__}: {err}")
            self.compare("PreemptionNodes", key, None, s.call("PreemptionNodes", p), raised)
            return
        if impl is None:
            return  # a profile without DefaultPreemption
        self.compare("EligibleToPreempt", key, None, s.call("EligibleToPreempt", p), impl.eligible)
        nodes = s.world.nodes
        candidates = s.each_node("PreemptionCandidate", p, nodes.values())
        for (name, n), candidate in zip(nodes.items(), candidates, strict=True):
            self.compare("PreemptionCandidate", key, name, candidate, name in impl.candidates)
            if candidate is True and name in impl.candidates:
                victims, violations = impl.candidates[name]
                self.compare("Victims", key, name, _pod_keys(s.call("Victims", p, n)), victims)
                spec_violations = s.call("NumPDBViolations", p, n)
                self.compare("NumPDBViolations", key, name, spec_violations, violations)
        self.compare("PreemptionNodes", key, None, s.call("PreemptionNodes", p), impl.nodes)

    def check_scores(
        self,
        key: str,
        p: Fcn,
        run: _PodRun,
        totals: list[int],
        feasible_names: list[str],
        spec_best: object,
    ) -> None:
        s, nodes = self.s, self.s.world.nodes
        feasible = [nodes[name] for name in feasible_names]
        for row in self.checker.rows:
            if row.point == "score" and row.plugin in run.plugin_scores:
                # a plugin the profile does not score with has nothing to compare
                got = run.plugin_scores[row.plugin]
                spec_values = s.each_node(row.spec, p, feasible)
                for idx, name in enumerate(feasible_names):
                    impl_value = got if isinstance(got, _Raised) else got[idx]
                    self.compare(row.spec, key, name, spec_values[idx], impl_value)
        viabilities = s.each_node("Viability", p, feasible)
        for name, total, viability in zip(feasible_names, totals, viabilities, strict=True):
            self.compare("Viability", key, name, viability, total)
        self.compare("Best", key, None, spec_best, _best(run, feasible_names))


def _pod_keys(pods: object) -> object:
    """A spec set of pod records as ``ns/name`` keys (an error answer unchanged)."""
    if not isinstance(pods, frozenset):
        return pods
    return frozenset(f"{q['metadata']['namespace']}/{q['metadata']['name']}" for q in pods)


def _best(run: _PodRun, feasible_names: list[str]) -> object:
    """Where the cycle may bind the pod: the feasible nodes of highest total (selectHost
    breaks the tie at random); a lone feasible node, which schedulePod binds unscored; none
    when no node is feasible or scoring failed the cycle."""
    totals = run.totals
    if len(feasible_names) <= 1:
        return frozenset(feasible_names)
    if isinstance(totals, _Raised):
        return frozenset()
    top = max(totals)
    return frozenset(n for n, t in zip(feasible_names, totals, strict=True) if t == top)


def same(a: object, b: object) -> bool:
    """Two verdicts agree: equal and of the same type (``1`` is not ``TRUE``)."""
    return a == b and type(a) is type(b)


def _conjoin(values: Iterable[object]) -> object:
    """TLA+'s ∧ on answers: FALSE wins over a later error, an error over a later TRUE."""
    for v in values:
        if v is not True:
            return v
    return True


def _plain(value: object) -> object:
    return render(value) if isinstance(value, Fcn) else value


def _guard(
    fn: Callable[[ImplState, Pod, NodeInfo], bool], i: ImplState, pod: Pod, ni: NodeInfo
) -> object:
    try:
        return fn(i, pod, ni)
    except Exception as err:  # an impl crash is a finding, reported like any other
        return _Raised(f"{type(err).__name__}: {err}")


def _guard_run(fwk: Framework, i: ImplState, pod: Pod) -> _PodRun | _Raised:
    try:
        return _run_pod(fwk, i, pod)
    except Exception as err:
        return _Raised(f"{type(err).__name__}: {err}")
