"""Decision-level properties: every decision of a real scheduling run judged by ``scheduler.tla``.

The operational scheduler (:mod:`schedspec.impl`) runs a cluster to quiescence; after each
scheduling cycle it hands ``Scheduler.observer`` a :class:`~schedspec.impl.scheduler.CycleRecord`.
A :class:`DecisionRecorder` turns each into a :class:`Decision`: the cluster *as that cycle saw
it*, rebuilt as manifests (the snapshot's nodes, the pods assigned or assumed on them, the
pending pods with their nominations, namespaces, PDBs, and the Services and controllers
PodTopologySpread's default constraints select by) plus what the cycle decided. Objects come
from a watch registered beside the scheduler's, so they are what its informers had delivered;
a nomination the scheduler made counts from the cycle that made it, until its status update is
delivered. (The scheduler's own nominator is not consulted: one that loses track must be seen.)
Pods are shown past priority admission, without ``priorityClassName``. The properties then ask
the spec about that cluster:

========================  ==================================================================
``feasible``              a pod the cycle placed satisfied ``Feasible(p, host)``
``two_pass``              on a host with ``NominatedFor(p, host) ≠ {}``, p fit both with the
                          nominated pods placed and without them (``FiltersIn`` twice)
``unschedulable``         a FitError means ``FeasibleNodes(p) = {}``
``best``                  the host is in ``Best(p)`` — or, when p came with a
                          ``nominatedNodeName`` that is ``Feasible``, that node (upstream
                          ``evaluateNominatedNode`` takes it without scoring)
``preemption``            the victims are on the nominated node, all of lower priority,
                          ``ValidVictims`` and ``MinimalVictims``, and the node is in
                          ``PreemptionNodes(p)``
``no_preemption``         a FitError the cycle did not answer with a nomination: p was not
                          ``EligibleToPreempt``, or ``PreemptionNodes(p) = {}``
``nominations_cleared``   (of the whole run) after p preempts onto n, no pod of
                          ``LowerPriorityNominated(p, n)`` is still nominated to n when the run ends
``victims_evicted``       (of the whole run) no victim of a preemption onto n is still bound to
                          n when the run ends, nor chosen again by the preemptor's next
                          preemption: prepareCandidate evicts every one of them
========================  ==================================================================

What cannot be checked exactly is skipped and counted, never loosened (:class:`PropertyReport`
``.skipped``, keyed ``"<property>: <reason>"``):

- **sampling** (``percentageOfNodesToScore``, ``schedule_one.go numFeasibleNodesToFind``): below
  100 nodes every node is filtered, so ``best`` is exact. From 100 nodes on, the scheduler stops
  after finding ``numFeasibleNodesToFind`` feasible nodes and scores only those, so the host is
  only known to be ``Feasible``: ``best`` is skipped (``best: sampled``). ``unschedulable`` stays
  exact at any size (the search visits every node when it finds none).
- **preemption candidates**: the dry run visits ``max(10 %, 100)`` of the potential nodes
  (``DefaultPreemptionArgs``), so beyond that ``PreemptionNodes(p)`` (over every node) is
  replaced by ``PreemptionCandidate(p, n)`` (``preemption node: preemption-sampled``).
- **MinimalVictims** holds for upstream's greedy reprieve because every Filter is monotone in the
  pods on the node, except InterPodAffinity's "no pod matches anywhere, the pod matches its own
  term" escape; a preemptor with required pod affinity is checked for ``ValidVictims`` only
  (``preemption minimal: minimal-affinity``).
- ``best`` is not asked when the host is not ``Feasible`` (``best: host not Feasible``): ``Best``
  is undefined then, and ``feasible`` already reports the decision.
- cycles that ended in an **error** (a PreFilter/Filter Error) decide nothing
  (``all: error``).

A violation names the spec definition that judged it; when a declared difference
(``checker/declared.py``) covers that definition on the decision's cluster, the violation keeps
its id in ``declared`` and stays in ``violations`` — ``undeclared`` is what must be empty.

Declared differences (``impl/framework/declared.py``) that touch these properties and why they
need no exception here: ``tieBreak`` (``best`` is membership), ``preemption.parallelism`` (the
last tie-break is a member of ``PreemptionNodes``), ``preemption.startTime`` (the spec's ``Now``
is the same "after every recorded start"), ``parallelism`` (visiting order only matters under
sampling, which is skipped).

upstream: pkg/scheduler/schedule_one.go (schedulePod, findNodesThatFitPod, evaluateNominatedNode,
selectHost), framework/runtime/framework.go (RunFilterPluginsWithNominatedPods),
framework/preemption/preemption.go and plugins/defaultpreemption/default_preemption.go.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedspec.checker.declared import Context, covering
from schedspec.checker.differential import Disagreement
from schedspec.cluster import SELECTING_KINDS, Cluster, from_objects
from schedspec.impl.apiserver import WatchEvent
from schedspec.impl.framework.registry import Registry
from schedspec.impl.plugins.default_preemption import DefaultPreemption, calculate_num_candidates
from schedspec.impl.preemption import PreemptionRecord
from schedspec.impl.scheduler import CycleRecord, Scheduler, num_feasible_nodes_to_find
from schedspec.impl.simulate import build
from schedspec.spec.errors import EvalError
from schedspec.spec.kube.scheduler_view import SchedulerWorld
from schedspec.spec.load import LoadedSpec, load_spec
from schedspec.spec.values import Fcn, Value

__all__ = [
    "PROPERTIES",
    "RUN_PROPERTIES",
    "Decision",
    "DecisionRecorder",
    "PropertyReport",
    "PropertyViolation",
    "RunEnd",
    "check_best",
    "check_decision",
    "check_feasible",
    "check_no_preemption",
    "check_nominations_cleared",
    "check_preemption",
    "check_run",
    "check_run_properties",
    "check_two_pass",
    "check_unschedulable",
    "check_victims_evicted",
    "record_run",
    "run_properties",
]

_Obj = Mapping[str, Any]


@dataclass(frozen=True)
class PropertyViolation:
    """A decision the spec does not allow: which property, for which pod (and node), and why.
    ``predicate`` is the spec definition that judged it; ``declared`` the id of the declared
    difference (``checker/declared.py``) covering that definition on this cluster, if any."""

    property: str
    pod: str
    node: str | None
    detail: str
    predicate: str = ""
    declared: str | None = None

    def describe(self) -> str:
        where = f" on {self.node}" if self.node else ""
        tail = f" (declared: {self.declared})" if self.declared else ""
        return f"{self.property}: {self.pod}{where}: {self.detail}{tail}"


@dataclass(frozen=True)
class Decision:
    """One scheduling cycle: the cluster it ran against and what it decided.

    ``host`` is "" unless a node was chosen; ``unschedulable`` is a FitError (no node fit);
    ``preemption`` is the preemption PostFilter made in this cycle; ``sampled`` says the cycle
    stopped filtering after ``numFeasibleNodesToFind`` feasible nodes (see the module docstring);
    ``candidates_sampled`` the same for the preemption dry run."""

    cycle: int
    pod: str
    cluster: Cluster
    host: str = ""
    unschedulable: bool = False
    error: str | None = None
    nominated: str = ""  # the pod's nominatedNodeName when the cycle ran
    preemption: PreemptionRecord | None = None
    sampled: bool = False
    candidates_sampled: bool = False
    _world: list[SchedulerWorld] = field(default_factory=list, repr=False, compare=False)


@dataclass
class PropertyReport:
    """What a run of the properties found: ``checked`` and ``skipped`` count by property (and
    reason), ``violations`` lists every failure."""

    checked: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    violations: list[PropertyViolation] = field(default_factory=list)

    @property
    def undeclared(self) -> list[PropertyViolation]:
        return [v for v in self.violations if v.declared is None]

    def merge(self, other: PropertyReport) -> None:
        self.checked.update(other.checked)
        self.skipped.update(other.skipped)
        self.violations.extend(other.violations)


# ------------------------------------------------------------------------------ recording a run


class _Mirror:
    """The objects the scheduler's informers have seen: a watch registered right after the
    scheduler's own, so at any cycle it holds exactly what the cache was fed."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, _Obj]] = {"Namespace": {}, "Node": {}, "Pod": {}}

    def __call__(self, event: WatchEvent) -> None:
        store, key = self.objects[event.kind], _key(event.obj)
        if event.type == "DELETED":
            store.pop(key, None)
        else:
            store[key] = event.obj


def _status_nomination(obj: _Obj | None) -> str:
    """``status.nominatedNodeName`` of a pod object, "" for none."""
    return str(((obj or {}).get("status") or {}).get("nominatedNodeName") or "")


def _key(obj: _Obj) -> str:
    meta = obj["metadata"]
    ns = meta.get("namespace")
    return f"{ns}/{meta['name']}" if ns else str(meta["name"])


@dataclass(frozen=True)
class RunEnd:
    """Where a run left the pods: each pending pod's ``nominatedNodeName`` ("" for none), each
    bound pod's node."""

    nominations: Mapping[str, str]
    bindings: Mapping[str, str]


class DecisionRecorder:
    """Attach to a scheduler before it runs; ``decisions`` fills up as cycles end."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.decisions: list[Decision] = []
        self._mirror = _Mirror()
        self._seen_records: dict[int, int] = {}
        # nominations the scheduler made whose status update the informers have not delivered
        # yet: pod key -> (node, the pod object the mirror held then)
        self._own: dict[str, tuple[str, _Obj | None]] = {}
        scheduler.apiserver.watch(self._mirror)
        scheduler.observer = self._on_cycle

    def _on_cycle(self, record: CycleRecord) -> None:
        pod = record.pod
        cluster = self._cluster(record)
        self.decisions.append(
            Decision(
                cycle=record.cycle,
                pod=pod.key,
                cluster=cluster,
                host=record.host,
                unschedulable=record.diagnosis is not None,
                error=record.error,
                nominated=self._nomination(pod.key, self._mirror.objects["Pod"].get(pod.key)),
                preemption=self._new_preemption(pod.key),
                sampled=self._sampled(record),
                candidates_sampled=self._candidates_sampled(record),
            )
        )
        if record.nomination is not None:
            self._own[pod.key] = (record.nomination, self._mirror.objects["Pod"].get(pod.key))

    def end(self) -> RunEnd:
        """The pods as the informers last delivered them: after a run, the state it ended in."""
        nominations: dict[str, str] = {}
        bindings: dict[str, str] = {}
        for key, obj in self._mirror.objects["Pod"].items():
            if host := obj["spec"].get("nodeName"):
                bindings[key] = host
            else:
                nominations[key] = _status_nomination(obj)
        return RunEnd(nominations, bindings)

    def _nomination(self, key: str, obj: _Obj | None) -> str:
        """The pod's nomination as the scheduler holds it: its own, until the informers deliver
        the pod's next update; then the object's ``status.nominatedNodeName``. Read from the
        API objects, not the scheduler's nominator, so a nominator that loses track is seen."""
        own = self._own.get(key)
        if own is not None and own[1] is obj:
            return own[0]
        self._own.pop(key, None)
        return _status_nomination(obj)

    def _cluster(self, record: CycleRecord) -> Cluster:
        """The cycle's snapshot as manifests (see the module docstring)."""
        mirror = self._mirror.objects
        objects: list[_Obj] = [*mirror["Namespace"].values()]
        objects += [mirror["Node"][ni.name] for ni in record.nodes]
        assigned: set[str] = set()
        for ni in record.nodes:
            for info in ni.pods:
                assigned.add(info.pod.uid)
                obj = mirror["Pod"][info.pod.key]
                objects.append(_admitted(_with(obj, "spec", nodeName=ni.name)))
        for key, obj in mirror["Pod"].items():
            uid = obj["metadata"]["uid"]
            if uid in assigned or obj["spec"].get("nodeName"):
                continue  # assigned to a node the snapshot does not hold: invisible to the cycle
            nominated = self._nomination(key, obj)
            objects.append(_admitted(_with(obj, "status", nominatedNodeName=nominated or None)))
        objects += self.scheduler.apiserver.list("PodDisruptionBudget")
        for kind in SELECTING_KINDS:  # what PodTopologySpread's default constraints select by
            objects += self.scheduler.apiserver.list(kind)
        return from_objects(objects, source=f"cycle {record.cycle}")

    def _new_preemption(self, pod: str) -> PreemptionRecord | None:
        found = None
        for fwk in self.scheduler.profiles.values():
            for plugin in fwk.plugins.values():
                if not isinstance(plugin, DefaultPreemption):
                    continue
                log = plugin.evaluator.log
                seen = self._seen_records.get(id(log), 0)
                for entry in log[seen:]:
                    if entry.preemptor == pod:
                        found = entry
                self._seen_records[id(log)] = len(log)
        return found

    def _sampled(self, record: CycleRecord) -> bool:
        fwk = self.scheduler.profiles[record.pod.scheduler_name]
        pct = fwk.percentage_of_nodes_to_score
        if pct is None:
            pct = self.scheduler.config.percentage_of_nodes_to_score
        n = len(record.nodes)
        to_find = num_feasible_nodes_to_find(pct, n) if fwk.has_score_plugins() else 1
        return to_find < n

    def _candidates_sampled(self, record: CycleRecord) -> bool:
        fwk = self.scheduler.profiles[record.pod.scheduler_name]
        n = len(record.nodes)
        return any(
            calculate_num_candidates(n, pl.percentage, pl.absolute) < n
            for pl in fwk.plugins.values()
            if isinstance(pl, DefaultPreemption)
        )


def _with(obj: _Obj, part: str, **fields: Any) -> dict[str, Any]:
    """``obj`` with ``obj[part]`` updated (a field given None is removed)."""
    merged = {**(obj.get(part) or {}), **fields}
    return {**obj, part: {k: v for k, v in merged.items() if v is not None}}


def _admitted(pod: _Obj) -> dict[str, Any]:
    """A pod past priority admission, loadable again: ``spec.priority`` and
    ``preemptionPolicy`` are resolved, so the class name goes (admitting it twice would clash
    with a ``globalDefault`` class the first admission applied)."""
    return _with(pod, "spec", priorityClassName=None)


def record_run(
    cluster: Cluster,
    *,
    seed: int = 0,
    registry: Registry | None = None,
    config: Mapping[str, Any] | None = None,
) -> list[Decision]:
    """Schedule ``cluster`` to quiescence and return every cycle's decision."""
    return _recorded(cluster, seed, registry, config).decisions


def _recorded(
    cluster: Cluster, seed: int, registry: Registry | None, config: Mapping[str, Any] | None
) -> DecisionRecorder:
    """The recorder of a run of ``cluster`` to quiescence."""
    scheduler = build(cluster, config, seed, registry)
    recorder = DecisionRecorder(scheduler)
    scheduler.run()
    return recorder


# ------------------------------------------------------------------------------ asking the spec


class _Ask:
    """The spec bound to one decision's cluster (rebinding only when the cluster changes)."""

    def __init__(self, spec: LoadedSpec, decision: Decision) -> None:
        if not decision._world:
            world = spec.view.build(decision.cluster)
            assert isinstance(world, SchedulerWorld)
            decision._world.append(world)
        self.world = decision._world[0]
        self.spec = spec
        pods = self.world.constants["Pods"]
        self.program = spec.runner
        if self.program.constants.get("Pods") is not pods:
            self.program.bind(self.world.constants)
        self.pod = self.world.pods[decision.pod]

    def __call__(self, name: str, *args: Value) -> Value:
        return self.program.call(name, *args)

    def node(self, name: str) -> Fcn:
        return self.world.nodes[name]

    def names(self, nodes: Value) -> list[str]:
        assert isinstance(nodes, frozenset)
        return sorted(n["metadata"]["name"] if isinstance(n, Fcn) else str(n) for n in nodes)


Property = Callable[[LoadedSpec, Decision, PropertyReport], None]


def _violate(
    report: PropertyReport,
    name: str,
    d: Decision,
    node: str | None,
    why: str,
    predicate: str,
    per_pod: bool = False,
    judged: Sequence[str] = (),
) -> None:
    """Record a violation, with the declared difference covering ``predicate`` on the
    decision's cluster, if one does: judged per pod, on ``node``, or on every node of
    ``judged`` (covered only if each one is)."""
    context = Context(d.cluster)
    nodes: Sequence[str | None] = judged or [None if per_pod else node]
    ids = [covering(context, Disagreement(predicate, d.pod, n, "spec", "impl")) for n in nodes]
    declared = ids[0] if all(ids) else None
    report.violations.append(PropertyViolation(name, d.pod, node, why, predicate, declared))


def check_feasible(spec: LoadedSpec, d: Decision, report: PropertyReport) -> None:
    """A placed pod satisfied ``Feasible(p, host)`` in the snapshot it was scheduled against."""
    if not d.host:
        return
    ask = _Ask(spec, d)
    report.checked["feasible"] += 1
    if ask("Feasible", ask.pod, ask.node(d.host)) is not True:
        status = ask("NodeStatus", ask.pod, ask.node(d.host))
        why = f"placed, but the spec's NodeStatus is {status}"
        _violate(report, "feasible", d, d.host, why, "Feasible")


def check_two_pass(spec: LoadedSpec, d: Decision, report: PropertyReport) -> None:
    """On a host with nominated pods of ≥ priority, p fit with them placed and without them."""
    if not d.host:
        return
    ask = _Ask(spec, d)
    node = ask.node(d.host)
    nominated = ask("NominatedFor", ask.pod, node)
    if nominated == frozenset():
        return
    report.checked["two_pass"] += 1
    snapshot = ask("Snapshot")
    assert isinstance(nominated, frozenset)
    keys = sorted(f"{q['metadata']['namespace']}/{q['metadata']['name']}" for q in nominated)
    with_them = ask("FiltersIn", ask.pod, node, ask("Place", snapshot, node, nominated))
    if with_them is not True:
        why = f"does not fit with the nominated pods {keys} placed on the node (pass 1)"
        _violate(report, "two_pass", d, d.host, why, "Feasible")
    if ask("FiltersIn", ask.pod, node, snapshot) is not True:
        why = "does not fit without the nominated pods (pass 2)"
        _violate(report, "two_pass", d, d.host, why, "Feasible")


def check_unschedulable(spec: LoadedSpec, d: Decision, report: PropertyReport) -> None:
    """A FitError means no node was ``Feasible`` (exact at any size: see the module docstring)."""
    if not d.unschedulable:
        return
    ask = _Ask(spec, d)
    report.checked["unschedulable"] += 1
    feasible = ask.names(ask("FeasibleNodes", ask.pod))
    if feasible:
        why = f"unschedulable, but Feasible on {feasible}"
        _violate(report, "unschedulable", d, None, why, "Feasible", judged=feasible)


def check_no_preemption(spec: LoadedSpec, d: Decision, report: PropertyReport) -> None:
    """A FitError without a preemption: p could not preempt, or no node would have made room
    (``preemption.go`` Evaluator.Preempt nominates whenever the dry run finds a candidate)."""
    if not d.unschedulable or d.preemption is not None:
        return
    ask = _Ask(spec, d)
    if ask("EligibleToPreempt", ask.pod) is not True:
        report.skipped["no_preemption: not EligibleToPreempt"] += 1
        return
    report.checked["no_preemption"] += 1
    nodes = ask.names(ask("PreemptionNodes", ask.pod))
    if nodes:
        why = f"unschedulable and no preemption, but PreemptionNodes is {nodes}"
        _violate(report, "no_preemption", d, None, why, "PreemptionNodes", per_pod=True)


def check_best(spec: LoadedSpec, d: Decision, report: PropertyReport) -> None:
    """The host is in ``Best(p)``; a feasible ``nominatedNodeName`` is taken as it is."""
    if not d.host:
        return
    ask = _Ask(spec, d)
    nominated = ask.world.nodes.get(d.nominated)
    if nominated is not None and ask("Feasible", ask.pod, nominated) is True:
        report.checked["best"] += 1
        if d.host != d.nominated:
            why = f"its nominated node {d.nominated} is Feasible, yet it went elsewhere"
            _violate(report, "best", d, d.host, why, "Feasible", per_pod=True)
        return
    if ask("Feasible", ask.pod, ask.node(d.host)) is not True:
        report.skipped["best: host not Feasible"] += 1  # ``feasible`` reports it
        return
    if d.sampled:
        report.skipped["best: sampled"] += 1
        return
    report.checked["best"] += 1
    best = ask.names(ask("Best", ask.pod))
    if d.host not in best:
        score = ask("Viability", ask.pod, ask.node(d.host))
        top = ask("BestViability", ask.pod)
        why = f"chose a node of Viability {score}; Best is {best} at {top}"
        _violate(report, "best", d, d.host, why, "Best", per_pod=True)


def check_preemption(spec: LoadedSpec, d: Decision, report: PropertyReport) -> None:
    """Victims on the node, of lower priority, ``ValidVictims``, ``MinimalVictims``; the node in
    ``PreemptionNodes(p)`` (``PreemptionCandidate`` when the dry run is sampled)."""
    rec = d.preemption
    if rec is None:
        return
    ask = _Ask(spec, d)
    report.checked["preemption"] += 1
    if rec.node not in ask.world.nodes:
        why = "nominated to a node the snapshot lacks"
        _violate(report, "preemption", d, rec.node, why, "PreemptionNodes", per_pod=True)
        return
    node, priority = ask.node(rec.node), ask.pod["spec"]["priority"]
    victims = []
    for key in rec.victims:
        q = ask.world.pods.get(key)
        if q is None or q["spec"]["nodeName"] != rec.node:
            why = f"victim {key} is not on the node"
            _violate(report, "preemption", d, rec.node, why, "ValidVictims")
            return
        if q["spec"]["priority"] >= priority:
            why = f"victim {key} has priority {q['spec']['priority']} ≥ the preemptor's {priority}"
            _violate(report, "preemption", d, rec.node, why, "ValidVictims")
        victims.append(q)
    chosen = frozenset(victims)
    if ask("ValidVictims", ask.pod, node, chosen) is not True:
        why = f"victims {list(rec.victims)} do not make room (ValidVictims is FALSE)"
        _violate(report, "preemption", d, rec.node, why, "ValidVictims")
    elif _has_required_pod_affinity(ask.pod):
        report.skipped["preemption minimal: minimal-affinity"] += 1
    elif ask("MinimalVictims", ask.pod, node, chosen) is not True:
        spared = [
            k
            for k, q in zip(rec.victims, victims, strict=True)
            if ask("ValidVictims", ask.pod, node, chosen - {q}) is True
        ]
        why = f"victims {spared} could have been reprieved (MinimalVictims is FALSE)"
        _violate(report, "preemption", d, rec.node, why, "MinimalVictims")
    _check_preemption_node(ask, d, report)


def _check_preemption_node(ask: _Ask, d: Decision, report: PropertyReport) -> None:
    assert d.preemption is not None
    node = d.preemption.node
    if d.candidates_sampled:
        report.skipped["preemption node: preemption-sampled"] += 1
        if ask("PreemptionCandidate", ask.pod, ask.node(node)) is not True:
            why = "the node is no PreemptionCandidate"
            _violate(report, "preemption", d, node, why, "PreemptionNodes", per_pod=True)
        return
    best = ask.names(ask("PreemptionNodes", ask.pod))
    if node not in best:
        why = f"the spec's PreemptionNodes are {best}"
        _violate(report, "preemption", d, node, why, "PreemptionNodes", per_pod=True)


def _has_required_pod_affinity(pod: Fcn) -> bool:
    affinity = pod["spec"]["affinity"]["podAffinity"]
    return bool(affinity["requiredDuringSchedulingIgnoredDuringExecution"])


PROPERTIES: Mapping[str, Property] = {
    "feasible": check_feasible,
    "two_pass": check_two_pass,
    "unschedulable": check_unschedulable,
    "best": check_best,
    "preemption": check_preemption,
    "no_preemption": check_no_preemption,
}
"""Every property by name, in the order they run."""


def check_nominations_cleared(
    spec: LoadedSpec, decisions: Sequence[Decision], end: RunEnd, report: PropertyReport
) -> None:
    """A run-level property: a preemption by p onto n takes the nomination to n from every pod
    in ``LowerPriorityNominated(p, n)`` (in the cluster p's cycle saw). The API calls run after p's
    cycle (async preemption, upstream too), and a status-only update requeues nothing, so the
    pod's later cycles may never see the change: it is judged on the pending pods'
    ``nominatedNodeName`` when the run ended. A pod that nominates itself again by its own
    preemption owes nothing more; one bound or deleted by then is skipped."""
    owed: dict[str, tuple[Decision, str]] = {}  # pod -> (the preemption's decision, its node)
    for d in decisions:
        if d.pod in owed and d.preemption is not None:
            del owed[d.pod]
            report.skipped["nominations_cleared: nominated again by its own preemption"] += 1
        if d.preemption is None or d.error is not None:
            continue
        ask = _Ask(spec, d)
        lower = ask("LowerPriorityNominated", ask.pod, ask.node(d.preemption.node))
        assert isinstance(lower, frozenset)
        for q in lower:
            owed[f"{q['metadata']['namespace']}/{q['metadata']['name']}"] = (d, d.preemption.node)
    for key, (by, node) in owed.items():
        if key not in end.nominations:
            report.skipped["nominations_cleared: bound or deleted"] += 1
            continue
        report.checked["nominations_cleared"] += 1
        if end.nominations[key] == node:
            why = (
                f"still nominated to {node} when the run ended, though the higher-priority "
                f"{by.pod} preempted there in cycle {by.cycle}"
            )
            # judged in the cluster the preemption saw, about the pod that kept its nomination
            at = dataclasses.replace(by, pod=key)
            _violate(report, "nominations_cleared", at, node, why, "LowerPriorityNominated")


def check_victims_evicted(
    spec: LoadedSpec, decisions: Sequence[Decision], end: RunEnd, report: PropertyReport
) -> None:
    """A run-level property: every victim of a preemption by p onto n is evicted by it.
    prepareCandidate deletes each victim (one waiting at Permit is rejected instead, and goes
    back to the queue), so p's own next preemption never chooses it again and it is off n when
    the run ends. Another preemptor may choose it again: with async preemption its cycle can run
    before the deletions (upstream too). A victim that has a cycle after the preemption was not
    deleted and may rightly be placed anywhere, n included: skipped."""
    evicted: dict[str, tuple[Decision, str]] = {}  # victim -> (the preemption's decision, node)
    for d in decisions:
        if d.pod in evicted:
            del evicted[d.pod]
            report.skipped["victims_evicted: scheduled again"] += 1
        if d.preemption is None or d.error is not None:
            continue
        for key in d.preemption.victims:
            if key in evicted and evicted[key][0].pod == d.pod:
                again = f"chosen again by its next preemption, in cycle {d.cycle}"
                _left_behind(report, key, *evicted[key], again)
            evicted[key] = (d, d.preemption.node)
    for key, (by, node) in evicted.items():
        report.checked["victims_evicted"] += 1
        if end.bindings.get(key) == node:
            _left_behind(report, key, by, node, "still bound there when the run ended")


def _left_behind(report: PropertyReport, victim: str, by: Decision, node: str, what: str) -> None:
    why = f"{what}, though {by.pod} preempted it on {node} in cycle {by.cycle}"
    # no declared difference excuses it: evicting does not depend on how the spec and impl
    # count the pods on a node
    report.violations.append(PropertyViolation("victims_evicted", victim, node, why, "Victims"))


RunProperty = Callable[[LoadedSpec, Sequence[Decision], RunEnd, PropertyReport], None]

RUN_PROPERTIES: Mapping[str, RunProperty] = {
    "nominations_cleared": check_nominations_cleared,
    "victims_evicted": check_victims_evicted,
}
"""The properties of a whole run (its decisions, and where it left the pods), by name; they run
after the per-decision ones."""


def check_decision(
    spec: LoadedSpec, d: Decision, report: PropertyReport | None = None
) -> PropertyReport:
    """Judge one decision by every property; an evaluation error is a violation of its own."""
    report = report if report is not None else PropertyReport()
    if d.error is not None:
        report.skipped["all: error"] += 1
        return report
    for name, prop in PROPERTIES.items():
        try:
            prop(spec, d, report)
        except EvalError as err:
            why = f"the spec failed to evaluate: {err}"
            _violate(report, name, d, d.host or None, why, "Feasible")
    return report


def run_properties(
    cluster: Cluster,
    *,
    seed: int = 0,
    spec: LoadedSpec | None = None,
    registry: Registry | None = None,
    config: Mapping[str, Any] | None = None,
) -> PropertyReport:
    """Schedule ``cluster`` and judge every cycle's decision (see the module docstring)."""
    loaded = spec if spec is not None else load_spec("scheduler")
    report = PropertyReport()
    recorder = _recorded(cluster, seed, registry, config)
    for decision in recorder.decisions:
        check_decision(loaded, decision, report)
    check_run_properties(loaded, recorder.decisions, recorder.end(), report)
    return report


def check_run_properties(
    spec: LoadedSpec, decisions: Sequence[Decision], end: RunEnd, report: PropertyReport
) -> PropertyReport:
    """Judge a run by every run-level property (``RUN_PROPERTIES``)."""
    for name, prop in RUN_PROPERTIES.items():
        try:
            prop(spec, decisions, end, report)
        except EvalError as err:
            _violate(report, name, decisions[-1], None, f"the spec failed to evaluate: {err}", name)
    return report


def check_run(
    cluster: Cluster,
    *,
    seed: int = 0,
    spec: LoadedSpec | None = None,
    registry: Registry | None = None,
) -> list[PropertyViolation]:
    """Every property violation of one scheduling run of ``cluster``."""
    return run_properties(cluster, seed=seed, spec=spec, registry=registry).violations
