"""A differential campaign: many generated clusters through the :class:`Checker`, every
undeclared disagreement shrunk to a small cluster a person can read.

0. **Corpus.** Seed clusters (``corpus``, :mod:`schedspec.checker.corpus`: Z3 states, scenario
   files, your manifests) are checked first, each exactly as a generated cluster is.
1. **Generate.** Hypothesis draws ``examples`` clusters from :func:`strategies.cluster_objects`
   under ``seed`` (no example database: a campaign is a function of its arguments) and each one is
   checked; every disagreement is counted per predicate.
2. **Shrink.** For each predicate with an undeclared disagreement, the same generation is replayed
   with the failure as the test condition, so Hypothesis shrinks it; the result is then minimised
   by :func:`minimise.minimise` (drop objects, labels, taints, terms; lower numbers) while the same
   predicate still disagrees on the same kind of verdicts. Without shrinking, the first failing
   cluster of each predicate is reported as drawn. A predicate only a corpus cluster fails is
   reported with that cluster (minimised, unless shrinking is off).
3. **Report.** :class:`Counterexample` carries the objects as YAML, both verdicts and the rule;
   ``write_counterexamples`` writes them to a directory, and with ``regressions=True`` a pytest
   file per counterexample that fails while the disagreement stands.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from schedspec import itf
from schedspec.checker.corpus import Seed
from schedspec.checker.differential import Checker, ClusterCheck, Disagreement
from schedspec.checker.oracle_answers import OneAhead
from schedspec.cluster import Cluster, from_objects
from schedspec.errors import ManifestError

__all__ = [
    "CampaignResult",
    "Counterexample",
    "run_campaign",
    "run_parallel",
    "write_counterexamples",
]

Objects = list[dict[str, Any]]


@dataclass(frozen=True)
class Counterexample:
    predicate: str
    objects: Objects
    disagreements: tuple[Disagreement, ...]
    source: str = ""  # the corpus seed it was minimised from; "" when generated

    @property
    def yaml(self) -> str:
        from schedspec.checker.minimise import to_yaml

        return to_yaml(self.objects)

    def itf(self) -> dict[str, Any]:
        """The cluster as a one-state ITF trace, the verdicts in its ``#meta``."""
        meta = {
            "source": "schedspec crosscheck",
            "description": f"{self.predicate}: spec and impl disagree",
            "disagreements": [d.describe() for d in self.disagreements],
        }
        return itf.document(["nodes", "pods"], [itf.cluster_state(self.objects)], meta)

    def describe(self) -> str:
        lines = [f"# {self.predicate}: spec and impl disagree"]
        if self.source:
            lines.append(f"# from the corpus: {self.source}")
        lines += [f"#   {d.describe()}" for d in self.disagreements]
        return "\n".join(lines) + "\n" + self.yaml


@dataclass
class CampaignResult:
    spec: str
    examples: int = 0
    corpus: int = 0  # seed clusters checked before the generated ones
    seed: int = 0
    nodes: tuple[int, int] = (1, 10)
    pods: tuple[int, int] = (1, 10)
    seconds: float = 0.0
    jobs: int = 1
    strategy: str = "default"  # "preemption", "scoring" (no --nodes/--pods), "profiles"
    shards: int = 1  # run_parallel's plan (checker/shards.py)
    engine: str = "local"
    failing_clusters: int = 0  # clusters with an undeclared disagreement
    totals: ClusterCheck = field(default_factory=ClusterCheck)
    failing_examples: Counter[str] = field(default_factory=Counter)  # predicate → clusters
    counterexamples: list[Counterexample] = field(default_factory=list)

    @property
    def checked(self) -> Counter[str]:
        return self.totals.checked

    @property
    def disagreements(self) -> list[Disagreement]:
        return self.totals.disagreements

    @property
    def undeclared(self) -> list[Disagreement]:
        return self.totals.undeclared

    def by_predicate(self) -> dict[str, dict[str, int]]:
        rows: dict[str, dict[str, int]] = {}
        for predicate, n in sorted(self.checked.items()):
            rows[predicate] = {"checked": n, "disagreements": 0, "declared": 0, "clusters": 0}
        for d in self.disagreements:
            row = rows.setdefault(
                d.predicate, {"checked": 0, "disagreements": 0, "declared": 0, "clusters": 0}
            )
            row["declared" if d.declared else "disagreements"] += 1
        for predicate, n in self.failing_examples.items():
            rows[predicate]["clusters"] = n
        return rows

    def as_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "examples": self.examples,
            "corpus": self.corpus,
            "seed": self.seed,
            "jobs": self.jobs,
            "shards": self.shards,
            "engine": self.engine,
            "strategy": self.strategy,
            "sizes": {"nodes": list(self.nodes), "pods": list(self.pods)},
            "seconds": round(self.seconds, 3),
            "disagreements": len(self.undeclared),
            "declared": len(self.disagreements) - len(self.undeclared),
            "by_predicate": self.by_predicate(),
            "agreement": {
                pair: {
                    predicate: {"agreed": a, "compared": n, "rate": round(a / n, 6)}
                    for predicate, (a, n) in rows.items()
                }
                for pair, rows in self.totals.agreement.table().items()
            },
            "counterexamples": [
                {
                    "predicate": c.predicate,
                    "source": c.source,
                    "verdicts": [d.describe() for d in c.disagreements],
                    "objects": c.objects,
                }
                for c in self.counterexamples
            ],
        }


def _strategy(
    nodes: tuple[int, int], pods: tuple[int, int], name: str = "default", spec: str = "scheduler"
) -> st.SearchStrategy[Objects]:
    """``default``: :func:`strategies.cluster_objects` of those sizes; ``preemption``:
    :func:`strategies.preemption_cluster_objects` (its own sizes: 1–4 nodes, up to 15 pods);
    ``scoring``: :func:`strategies.scoring_cluster_objects` (2–6 nodes, up to 21 pods);
    ``profiles``: either, with a drawn KubeSchedulerConfiguration (:mod:`.strategies.profiles`). A
    ``spec`` given as a path (a user's own rules) also has the label keys and values its
    definitions name drawn in (:func:`question.spec_terms`), as the pools' would otherwise never
    make a rule over them false."""
    from schedspec.checker.question import in_terms_of, spec_terms
    from schedspec.checker.strategies import (
        cluster_objects,
        preemption_cluster_objects,
        scoring_cluster_objects,
    )

    if name == "preemption":
        base = preemption_cluster_objects()
    elif name == "scoring":
        base = scoring_cluster_objects()
    elif name == "profiles":
        from schedspec.checker.strategies.profiles import with_profiles

        default = cluster_objects(
            min_nodes=nodes[0], max_nodes=nodes[1], min_pods=pods[0], max_pods=pods[1]
        )
        base = with_profiles(st.one_of(default, scoring_cluster_objects()))
    else:
        base = cluster_objects(
            min_nodes=nodes[0], max_nodes=nodes[1], min_pods=pods[0], max_pods=pods[1]
        )
    from schedspec.spec.load import BUNDLED, load_spec

    if spec in BUNDLED:
        return base
    return in_terms_of(base, *spec_terms(load_spec(spec)))


def _settings(examples: int, phases: Sequence[Phase]) -> settings:
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=tuple(phases),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )


def _load(objects: Objects) -> Cluster | None:
    """The cluster, or None when the loader, impl or the spec refuses it (a minimised
    KubeSchedulerConfiguration can lose a field it needs)."""
    from schedspec.impl.errors import ConfigError
    from schedspec.impl.framework.config import parse_config
    from schedspec.spec.kube.profiles import profiles
    from schedspec.spec.kube.scheduler_view import node_affinity_record

    try:
        cluster = from_objects(objects)
        if cluster.scheduler_config is not None:
            parse_config(cluster.scheduler_config)
            profiles(cluster.scheduler_config, node_affinity_record)
        return cluster
    except (ManifestError, ConfigError):
        return None


@contextlib.contextmanager
def young_collections() -> Iterator[None]:
    """Collect only what a campaign makes. Checking a cluster allocates tens of thousands of
    short-lived objects on top of a large long-lived heap (the compiled specs, Hypothesis's
    choice tree); with CPython's default thresholds the collector re-scans that heap in full
    every few clusters, ≈ 1 ms a cluster of a 10 × 10 campaign (``bench/crosscheck.py``).
    What exists when the campaign starts is frozen (it outlives the campaign), and the young
    generation is collected every 10,000 allocations instead of 700; both are restored after
    (a caller's own frozen heap is left as it is)."""
    thresholds = gc.get_threshold()
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    gc.set_threshold(10_000, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if freeze:
            gc.unfreeze()


def run_campaign(
    examples: int = 200,
    seed: int = 0,
    spec: str = "scheduler",
    *,
    nodes: tuple[int, int] = (1, 10),
    pods: tuple[int, int] = (1, 10),
    strategy: st.SearchStrategy[Objects] | None = None,
    checker: Checker | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    shrink: bool = True,
    minimise: bool = True,
    corpus: Sequence[Seed] = (),
) -> CampaignResult:
    """Check the ``corpus``, then ``examples`` generated clusters; see the module docstring.
    ``progress(done, total, failing)`` follows each cluster (``failing``: those with an
    undeclared disagreement so far)."""
    checker = checker or Checker(spec)
    strategy = strategy if strategy is not None else _strategy(nodes, pods, spec=spec)
    result = CampaignResult(spec, seed=seed, nodes=nodes, pods=pods)
    first: dict[str, Objects] = {}
    seeded: dict[str, Seed] = {}
    total = examples + len(corpus)
    start = time.perf_counter()

    def record(check: ClusterCheck) -> set[str]:
        result.totals.merge(check)
        failing = {d.predicate for d in check.undeclared}
        result.failing_examples.update(failing)
        result.failing_clusters += bool(failing)
        if progress is not None:
            progress(result.corpus + result.examples, total, result.failing_clusters)
        return failing

    for s in corpus:
        cluster = _load(s.objects)
        if cluster is None:  # manifest_seeds validated it: only a hand-built Seed gets here
            raise ManifestError("not a valid cluster", where=s.source)
        result.corpus += 1
        for predicate in record(checker.check(cluster)):
            seeded.setdefault(predicate, s)

    if examples:
        # with an oracle, a cluster is checked once the next one's request is sent (the real
        # scheduler answers it meanwhile); the same clusters, checked in the same order
        ahead: OneAhead[Objects] = OneAhead(checker)

        def check(cluster: Cluster, objects: Objects) -> None:
            for predicate in record(checker.check(cluster)):
                first.setdefault(predicate, objects)

        @hypothesis_seed(seed)
        @_settings(examples, [Phase.generate])
        @given(strategy)
        def generate(objects: Objects) -> None:
            cluster = _load(objects)
            if cluster is None:
                return
            result.examples += 1
            for held in ahead.push(cluster, objects):
                check(*held)

        with young_collections():
            generate()
            for held in ahead.drain():
                check(*held)
    for predicate, objects in first.items():
        if shrink:
            found = _counterexample(checker, strategy, seed, examples, predicate, objects, minimise)
        else:  # the first cluster that failed, as drawn
            found = Counterexample(predicate, objects, _failing(checker, predicate, objects))
        result.counterexamples.append(found)
    for predicate, s in seeded.items():
        if predicate not in first:
            found = _seed_counterexample(checker, predicate, s, shrink and minimise)
            result.counterexamples.append(found)
    result.seconds = time.perf_counter() - start
    return result


def run_parallel(
    examples: int = 200,
    seed: int = 0,
    spec: str = "scheduler",
    *,
    jobs: int = 1,
    nodes: tuple[int, int] = (1, 10),
    pods: tuple[int, int] = (1, 10),
    shrink: bool = True,
    oracle: bool = False,
    textbook: str = "textbook",
    progress: Callable[[int, int, int], None] | None = None,
    corpus: Sequence[Seed] = (),
    strategy: str = "default",
    shard_size: int | None = None,
    engine: str = "local",
    address: str | None = None,
    found: Callable[[Counterexample, int], None] | None = None,
) -> CampaignResult:
    """:func:`run_campaign` in shards (:mod:`.shards`) on ``jobs`` local processes, or on Dask
    (``engine="dask"``, at ``address`` or on a loopback cluster of ``jobs`` workers). The shards
    are a function of ``examples``, ``seed``, the corpus and ``shard_size`` alone, so every
    engine and number of jobs checks the same clusters; a campaign of one shard is exactly
    ``run_campaign(seed=seed)``. Each shard shrinks its own failures; the merged result keeps
    the first counterexample per predicate in shard order. ``found(counterexample, shard)`` is
    called as shards finish, once per predicate, in the order they arrive."""
    from schedspec.checker import shards as sharding

    plan = sharding.plan(examples, seed, corpus, shard_size or sharding.SHARD_SIZE)
    setup = sharding.Setup(spec, nodes, pods, shrink, oracle, textbook, strategy)
    results: dict[int, CampaignResult] = {}
    announced: set[str] = set()

    def done(shard: sharding.Shard, result: CampaignResult) -> None:
        results[shard.id] = result
        for c in result.counterexamples:
            if found is not None and c.predicate not in announced:
                announced.add(c.predicate)
                found(c, shard.id)

    start = time.perf_counter()
    sharding.run_shards(
        setup, plan, done, engine=engine, jobs=jobs, address=address, progress=progress
    )
    merged = CampaignResult(spec, seed=seed, nodes=nodes, pods=pods, jobs=jobs, strategy=strategy)
    merged.shards, merged.engine = len(plan), engine
    for _, r in sorted(results.items()):
        merged.examples += r.examples
        merged.corpus += r.corpus
        merged.failing_clusters += r.failing_clusters
        merged.totals.merge(r.totals)
        merged.failing_examples.update(r.failing_examples)
        have = {c.predicate for c in merged.counterexamples}
        merged.counterexamples += [c for c in r.counterexamples if c.predicate not in have]
    merged.seconds = time.perf_counter() - start
    return merged


def _failing(checker: Checker, predicate: str, objects: Objects) -> tuple[Disagreement, ...]:
    cluster = _load(objects)
    if cluster is None:
        return ()
    return tuple(d for d in checker.check(cluster).undeclared if d.predicate == predicate)


def _seed_counterexample(
    checker: Checker, predicate: str, seed: Seed, minimise: bool
) -> Counterexample:
    objects = seed.objects
    if minimise:
        from schedspec.checker.minimise import minimise as k8s_minimise

        objects = k8s_minimise(objects, lambda objs: bool(_failing(checker, predicate, objs)))
    return Counterexample(predicate, objects, _failing(checker, predicate, objects), seed.source)


def _counterexample(
    checker: Checker,
    strategy: st.SearchStrategy[Objects],
    seed: int,
    examples: int,
    predicate: str,
    found: Objects,
    minimise: bool,
) -> Counterexample:
    """Shrink with Hypothesis (the same seed replays the same draws), then minimise."""
    smallest: list[Objects] = [found]

    @hypothesis_seed(seed)
    @_settings(examples, [Phase.generate, Phase.shrink])
    @given(strategy)
    def replay(objects: Objects) -> None:
        if _failing(checker, predicate, objects):
            smallest[0] = objects
            raise AssertionError(predicate)

    with contextlib.suppress(AssertionError):
        replay()
    objects = smallest[0]
    if minimise:
        from schedspec.checker.minimise import minimise as k8s_minimise

        objects = k8s_minimise(objects, lambda objs: bool(_failing(checker, predicate, objs)))
    return Counterexample(predicate, objects, _failing(checker, predicate, objects))


def write_counterexamples(
    counterexamples: Iterable[Counterexample],
    directory: str | Path,
    *,
    regressions: bool = False,
    spec: str = "scheduler",
) -> list[Path]:
    """``<predicate>-<i>.yaml`` per counterexample (both verdicts in a comment header), and with
    ``regressions`` a ``test_<predicate>_<i>.py`` next to it that fails while they disagree."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    # A spec file is named relative to the tests, so they run wherever the directory is moved
    # along with the spec; a bundled spec is named by its name.
    spec_expr = repr(spec)
    if Path(spec).is_file():
        relative = os.path.relpath(Path(spec).resolve(), out.resolve())
        spec_expr = f"str(Path(__file__).parent / {Path(relative).as_posix()!r})"
    for i, c in enumerate(counterexamples, 1):
        stem = f"{_slug(c.predicate)}-{i}"
        path = out / f"{stem}.yaml"
        path.write_text(c.describe(), encoding="utf-8")
        written.append(path)
        trace = out / f"{stem}.itf.json"
        trace.write_text(json.dumps(c.itf(), indent=1), encoding="utf-8")
        written.append(trace)
        if regressions:
            test = out / f"test_{stem.replace('-', '_')}.py"
            test.write_text(
                _REGRESSION.format(predicate=c.predicate, yaml=path.name, spec=spec_expr),
                encoding="utf-8",
            )
            written.append(test)
    return written


def _slug(predicate: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in predicate).strip("-").lower()


_REGRESSION = '''"""Regression: spec and impl disagreed on {predicate} for the cluster in {yaml}
(written by `schedspec crosscheck --write-regressions`). It passes once they agree."""

from pathlib import Path

from schedspec import cluster
from schedspec.checker.differential import Checker


def test_spec_and_impl_agree() -> None:
    loaded = cluster.load(Path(__file__).with_name("{yaml}"))
    undeclared = [d.describe() for d in Checker({spec}).check(loaded).undeclared]
    assert undeclared == [], "\\n".join(undeclared)
'''
