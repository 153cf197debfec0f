"""Point the checker at your own rule: a spec definition over (pod, node) and the impl function
that should mean the same, compared on every pending pod × node of generated clusters.

    from schedspec.checker.conformance import agree

    def gpu_guard(state, pod, node_info):           # your plugin's pure verdict
        ...

    agree("GpuGuardOK", gpu_guard, spec="specs/gpu_guard.tla", examples=200)

``agree`` raises :class:`Disagreed` with the smallest cluster Hypothesis shrinks to, as YAML, and
both verdicts. The pytest plugin (:mod:`schedspec.checker.pytest_plugin`) wraps it in the
``schedspec_agree`` fixture, with ``--schedspec-examples`` and ``--schedspec-seed``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from schedspec.checker.differential import Disagreement, ImplState, SpecState, same
from schedspec.checker.question import Outcomes, Vacuous, in_terms_of, terms
from schedspec.cluster import Cluster, from_objects
from schedspec.errors import ManifestError
from schedspec.impl.api.types import Pod
from schedspec.impl.framework.types import NodeInfo
from schedspec.spec.load import LoadedSpec, load_spec

__all__ = ["Disagreed", "ImplVerdict", "Vacuous", "agree", "disagreements"]

ImplVerdict = Callable[[ImplState, Pod, NodeInfo], object]


class Disagreed(AssertionError):
    """The spec and the impl function differ on a cluster (``objects``)."""

    def __init__(self, found: list[Disagreement], objects: list[dict[str, Any]]) -> None:
        from schedspec.checker.minimise import to_yaml

        self.found = found
        self.objects = objects
        lines = [d.describe() for d in found]
        super().__init__("\n".join(lines) + "\n---\n" + to_yaml(objects))


def disagreements(
    spec: LoadedSpec,
    definition: str,
    impl: ImplVerdict,
    cluster: Cluster,
    outcomes: Outcomes | None = None,
) -> list[Disagreement]:
    """Every (pending pod, node) of ``cluster`` where ``definition`` and ``impl`` differ; each
    value the definition takes is added to ``outcomes``."""
    s = SpecState(spec, cluster)
    i = ImplState(cluster)
    found = []
    for key in s.world.pending:
        pod = i.pending.get(key)
        if pod is None:
            continue
        p = s.world.pods[key]
        for name, n in s.world.nodes.items():
            want = s.call_pod_node(definition, p, n)
            if outcomes is not None:
                outcomes.add(want)
            try:
                got = impl(i, pod, i.by_name[name])
            except Exception as err:  # the user's function crashing is a finding too
                got = f"raised {type(err).__name__}: {err}"
            if not same(want, got):
                found.append(Disagreement(definition, key, name, want, got))
    return found


def agree(
    definition: str,
    impl: ImplVerdict,
    *,
    spec: str | Path | LoadedSpec = "scheduler",
    view: str | None = "scheduler",
    examples: int = 100,
    seed: int = 0,
    strategy: st.SearchStrategy[list[dict[str, Any]]] | None = None,
    accept_vacuous: bool = False,
    keys: Iterable[str] = (),
    values: Iterable[str] = (),
) -> None:
    """Raise :class:`Disagreed` (shrunk) unless ``definition`` and ``impl`` agree on
    ``examples`` generated clusters, and :class:`Vacuous` when ``definition`` took one value on
    every pair checked (unless ``accept_vacuous``). The default strategy draws the label keys
    and values the definition names (:func:`schedspec.checker.question.terms`) and ``keys`` and
    ``values``: those your plugin is configured with (its arguments), which the definition may
    not name."""
    loaded = spec if isinstance(spec, LoadedSpec) else load_spec(str(spec), view)
    if not loaded.program.has(definition):
        raise ValueError(f"{loaded.file}: no definition {definition!r}")
    if strategy is None:
        from schedspec.checker.strategies import cluster_objects

        named_keys, named_values = terms(loaded, definition)
        strategy = in_terms_of(
            cluster_objects(),
            dict.fromkeys([*named_keys, *keys]),
            dict.fromkeys([*named_values, *values]),
        )
    outcomes = Outcomes(definition)

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(strategy)
    def run(objects: list[dict[str, Any]]) -> None:
        try:
            cluster = from_objects(objects)
        except ManifestError:
            return
        found = disagreements(loaded, definition, impl, cluster, outcomes)
        if found:
            raise Disagreed(found, objects)

    run()
    if not accept_vacuous:
        outcomes.check()
