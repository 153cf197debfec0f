"""A campaign over the autoscaler seam: generated clusters with node groups through
:func:`.autoscaler.compare`, counted per row, every rule's coverage reported.

Hypothesis draws ``examples`` cases from :func:`.autoscaler_strategies.autoscaler_cases` under
``seed`` (no example database). Each disagreeing row keeps its first case, shrunk by replaying the
generation with that row's disagreement as the failure. A rule of :data:`RULES` that no case
exercised is listed as **not exercised**: a campaign that never reached a rule says so instead of
passing it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from schedspec.autoscaling import Autoscaling, node_groups, parse_options
from schedspec.checker.autoscaler import AutoscalerCheck, Disagreement, compare
from schedspec.checker.autoscaler_properties import BUGS, FINDINGS, judge
from schedspec.checker.autoscaler_strategies import GROUP_LABEL, AutoscalerCase, autoscaler_cases
from schedspec.cluster import Cluster, from_objects
from schedspec.errors import SchedspecError

if TYPE_CHECKING:
    from schedspec.checker.oracle import Oracle

__all__ = [
    "RULES",
    "AutoscalerCampaign",
    "case_flags",
    "case_yaml",
    "inputs_of",
    "run_autoscaler_campaign",
    "run_parallel",
]

RULES = (
    "dropped:expendable",
    "dropped:nominated",
    "dropped:candidate",
    "dropped:daemonset",
    "filter-out-schedulable placed a pod",
    "skip:valid",
    "skip:max node group size reached",
    "skip:max cluster cpu limit reached",
    "template accepts",
    "template rejects:NodeResourcesFit",
    "template rejects:TaintToleration",
    "template rejects:NodeAffinity",
    "template rejects:PodTopologySpread",
    "template rejects:InterPodAffinity",
    "template rejects:NodePorts",
    "estimate: 1 node",
    "estimate: 2+ nodes",
    "estimate stopped by the limiter",
    "expander chose among 1",
    "expander chose among 2",
    "plan",
    "plan balanced over similar groups",
    "scale-down:removable",
    "scale-down:NotAutoscaled",
    "scale-down:NodeGroupMinSizeReached",
    "scale-down:ScaleDownDisabledAnnotation",
    "scale-down:NotUnderutilized",
    "scale-down:BlockedByPod",
    "scale-down:NoPlaceToMovePods",
    "scale-down:CurrentlyBeingDeleted",
    "scale-down moved pods",
    "drain blocked:NotReplicated",
    "drain blocked:UnmovableKubeSystemPod",
    "drain blocked:NotSafeToEvictAnnotation",
    "drain blocked:LocalStorageRequested",
    "drain blocked:NotEnoughPdb",
)
"""The rules a campaign must reach (``AutoscalerCheck.covered`` keys)."""


@dataclass
class AutoscalerCampaign:
    seed: int = 0
    examples: int = 0
    invalid: int = 0
    seconds: float = 0.0
    compared: Counter[str] = field(default_factory=Counter)
    disagreeing: Counter[str] = field(default_factory=Counter)
    covered: Counter[str] = field(default_factory=Counter)
    first: dict[str, tuple[AutoscalerCase, Disagreement]] = field(default_factory=dict)
    properties: Counter[str] = field(default_factory=Counter)
    property_cases: dict[str, tuple[AutoscalerCase, str]] = field(default_factory=dict)

    def merge(self, other: AutoscalerCampaign) -> None:
        self.examples += other.examples
        self.invalid += other.invalid
        self.compared.update(other.compared)
        self.disagreeing.update(other.disagreeing)
        self.covered.update(other.covered)
        for row, found in other.first.items():
            self.first.setdefault(row, found)
        self.properties.update(other.properties)
        for prop, hit in other.property_cases.items():
            self.property_cases.setdefault(prop, hit)

    @property
    def bugs(self) -> int:
        """Violations of CA's own rules (a group past its max or below its min)."""
        return sum(self.properties[p] for p in BUGS)

    @property
    def not_exercised(self) -> list[str]:
        return [rule for rule in RULES if not self.covered[rule]]

    def as_json(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "invalid": self.invalid,
            "seconds": round(self.seconds, 1),
            "disagreements": sum(self.disagreeing.values()),
            "by_row": {
                r: {"compared": n, "disagreements": self.disagreeing[r]}
                for r, n in sorted(self.compared.items())
            },
            "coverage": dict(sorted(self.covered.items())),
            "not_exercised": self.not_exercised,
            "properties": {
                p: {"clusters": self.properties[p], "first": self.property_cases[p][1]}
                for p in (*FINDINGS, *BUGS)
                if p in self.property_cases
            },
            "counterexamples": {
                r: {"flags": case_flags(c), "disagreement": str(d)}
                for r, (c, d) in sorted(self.first.items())
            },
        }


def case_flags(case: AutoscalerCase) -> list[str]:
    flags = [f"--node-group-label={GROUP_LABEL}", f"--expander={case.expander}"]
    flags += [f"--nodes={f}" for f in case.nodes_flags]
    if case.max_nodes_total:
        flags.append(f"--max-nodes-total={case.max_nodes_total}")
    if case.cores_total:
        flags.append(f"--cores-total={case.cores_total}")
    if case.memory_total:
        flags.append(f"--memory-total={case.memory_total}")
    names = ("system-pods", "local-storage", "custom-controller-pods")
    skips = zip(names, case.skip_nodes, strict=True)
    flags += [f"--skip-nodes-with-{n}=false" for n, on in skips if not on]
    if case.balance:
        flags.append("--balance-similar-node-groups")
    return flags


def inputs_of(case: AutoscalerCase) -> tuple[Cluster, Autoscaling] | None:
    """The cluster and node groups ``schedspec autoscale`` builds from ``case``; None when the
    loader rejects the draw (a generated cluster can be invalid on purpose)."""
    try:
        cluster = from_objects(case.objects)
        options = parse_options(
            expander=case.expander,
            max_nodes_total=case.max_nodes_total,
            cores_total=case.cores_total,
            memory_total=case.memory_total,
            skip_nodes_with_system_pods=case.skip_nodes[0],
            skip_nodes_with_local_storage=case.skip_nodes[1],
            skip_nodes_with_custom_controller_pods=case.skip_nodes[2],
            balance_similar_node_groups=case.balance,
            balancing_ignore_labels=(GROUP_LABEL,),
        )
        return cluster, node_groups(
            cluster, nodes=case.nodes_flags, node_group_label=GROUP_LABEL, options=options
        )
    except SchedspecError:
        return None


def _settings(examples: int, phases: tuple[Phase, ...]) -> settings:
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )


def run_autoscaler_campaign(
    examples: int = 200,
    seed: int = 0,
    *,
    max_nodes: int = 5,
    max_pods: int = 8,
    shrink: bool = True,
    progress: Callable[[int], None] | None = None,
    oracle: Oracle | None = None,
) -> AutoscalerCampaign:
    """Check ``examples`` generated cases; see the module docstring. With ``oracle``, the real
    kube-scheduler also answers every template question (rows ``…@real``)."""
    result = AutoscalerCampaign(seed=seed)
    strategy = autoscaler_cases(max_nodes=max_nodes, max_pods=max_pods)
    start = time.perf_counter()

    @hypothesis_seed(seed)
    @_settings(examples, (Phase.generate,))
    @given(strategy)
    def generate(case: AutoscalerCase) -> None:
        inputs = inputs_of(case)
        if inputs is None:
            result.invalid += 1
            return
        check = compare(*inputs, oracle=oracle)
        result.examples += 1
        _record(result, check, case)
        if check.result is not None:
            for prop, what in judge(*inputs, check.result).items():
                result.properties[prop] += 1
                result.property_cases.setdefault(prop, (case, what))
        if progress is not None:
            progress(result.examples)

    generate()
    if shrink:
        for row in list(result.first):
            result.first[row] = _shrunk(strategy, seed, examples, row, result.first[row])
    result.seconds = time.perf_counter() - start
    return result


def _record(result: AutoscalerCampaign, check: AutoscalerCheck, case: AutoscalerCase) -> None:
    result.compared.update(check.compared)
    result.covered.update(check.covered)
    for d in check.disagreements:
        result.disagreeing[d.row] += 1
        result.first.setdefault(d.row, (case, d))


def _shrunk(
    strategy: Any, seed: int, examples: int, row: str, found: tuple[AutoscalerCase, Disagreement]
) -> tuple[AutoscalerCase, Disagreement]:
    smallest = [found]

    @hypothesis_seed(seed)
    @_settings(examples, (Phase.generate, Phase.shrink))
    @given(strategy)
    def replay(case: AutoscalerCase) -> None:
        inputs = inputs_of(case)
        if inputs is None:
            return
        hits = [d for d in compare(*inputs).disagreements if d.row == row]
        if hits:
            smallest.append((case, hits[0]))
            raise AssertionError(row)

    with contextlib.suppress(AssertionError):
        replay()
    return smallest[-1]


def _part(args: tuple[int, int, int, int]) -> AutoscalerCampaign:
    examples, seed, max_nodes, max_pods = args
    return run_autoscaler_campaign(examples, seed, max_nodes=max_nodes, max_pods=max_pods)


def run_parallel(
    examples: int, seed: int, jobs: int, *, max_nodes: int = 5, max_pods: int = 8
) -> AutoscalerCampaign:
    """``examples`` split over ``jobs`` processes, each its own seed (``seed + i``)."""
    start = time.perf_counter()
    shares = [examples // jobs + (i < examples % jobs) for i in range(jobs)]
    parts = [(n, seed + i, max_nodes, max_pods) for i, n in enumerate(shares) if n]
    total = AutoscalerCampaign(seed=seed)
    with multiprocessing.get_context("fork").Pool(len(parts)) as pool:
        for part in pool.imap_unordered(_part, parts):
            total.merge(part)
    total.seconds = time.perf_counter() - start
    return total


def case_yaml(case: AutoscalerCase) -> str:
    """The case's manifests as one multi-document YAML stream."""
    from schedspec.checker.minimise import to_yaml

    return to_yaml(case.objects)


def mutation_killer(examples: int, seed: int) -> list[str]:
    """A mutation-bench killer (``bench/mutation_autoscaler.py``): the seam campaign's
    disagreements and the decision properties' bugs, as lines (none: the mutant survived)."""
    result = run_autoscaler_campaign(examples, seed, shrink=False)
    problems = [str(d) for _, d in result.first.values()]
    problems += [f"{p}: {what}" for p, (_, what) in result.property_cases.items() if p in BUGS]
    return problems
