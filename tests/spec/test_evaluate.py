"""``evaluate``: the textbook spec's verdicts on the examples are what the reference says the
literal textbook does, and a user's own spec (a ``.tla`` file using the textbook view) evaluates.

Reference, section 2: the literal textbook rejects every node. Here every pair is an *error*, not
FALSE, because ``FilterLifecycle`` is the first conjunct of ``Filter`` and its ``False`` (for
``FALSE``) is an unbound name; ``Resources`` reads the unbound ``p``; ``FilterAffinity``'s ∃ over
required node-selector terms is FALSE when a pod has none (divergence 21) and an error when it has
some (``Match_NS`` is applied to a term, not a requirement: divergence 7); ``FilterTaints`` rejects
a GPU node's taint unless the pod tolerates it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schedspec.cluster import Cluster, load, loads, object_key
from schedspec.errors import UsageError
from schedspec.spec.compile.explain import failing_path
from schedspec.spec.evaluate import Evaluation, PairResult, evaluate, reason
from schedspec.spec.load import LoadedSpec, load_spec

ROOT = Path(__file__).parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
TEXTBOOK_TLA = (ROOT / "spec" / "kube" / "textbook.tla").read_text(encoding="utf-8")


def line_of(needle: str) -> int:
    return TEXTBOOK_TLA[: TEXTBOOK_TLA.index(needle)].count("\n") + 1


@pytest.fixture(scope="module")
def textbook() -> LoadedSpec:
    return load_spec("textbook")


@pytest.fixture(scope="module", params=EXAMPLES, ids=[p.stem for p in EXAMPLES])
def example(request: pytest.FixtureRequest, textbook: LoadedSpec) -> tuple[Cluster, Evaluation]:
    cluster = load(request.param)
    return cluster, evaluate(textbook, cluster)


def conjunct(pair: PairResult, name: str) -> Any:
    return next(c for c in pair.conjuncts if c.label() == name)


def required_node_affinity(cluster: Cluster, key: str) -> Any:
    pod = cluster.find_pod(key)
    assert pod is not None
    affinity = pod["spec"].get("affinity") or {}
    node_affinity = affinity.get("nodeAffinity") or {}
    return node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")


# -- the textbook on the examples -----------------------------------------------------------------


def test_every_pending_pod_is_judged_on_every_node(example: tuple[Cluster, Evaluation]) -> None:
    cluster, result = example
    assert [pod.key for pod in result.pods] == [object_key(p) for p in cluster.pending_pods()]
    nodes = [n["metadata"]["name"] for n in cluster.nodes]
    assert all([p.node for p in pod.pairs] == nodes for pod in result.pods)


def test_every_pair_is_an_error_on_unbound_false(example: tuple[Cluster, Evaluation]) -> None:
    _, result = example
    where = f"spec/kube/textbook.tla:{line_of('Unschedulable = False')}:"
    for pod in result.pods:
        assert pod.feasible == ()
        for pair in pod.pairs:
            assert pair.verdict == "error"
            assert pair.error is not None
            assert "free variable 'False' is not bound" in pair.error and where in pair.error
            assert pair.failures[:2] == ("FilterLifecycle", "Resources")


def test_resources_fails_on_unbound_p(example: tuple[Cluster, Evaluation]) -> None:
    _, result = example
    where = f"spec/kube/textbook.tla:{line_of('DOMAIN p.Spec.InitContainer')}:"
    for pod in result.pods:
        for pair in pod.pairs:
            resources = conjunct(pair, "Resources")
            assert resources.outcome == "error"
            assert "free variable 'p' is not bound" in reason(resources) and where in reason(
                resources
            )


def test_required_node_affinity(example: tuple[Cluster, Evaluation]) -> None:
    """No required affinity: the ∃ over an empty set is FALSE. Some: Match_NS reads the term's
    Operator, which a node-selector term does not have."""
    cluster, result = example
    for pod in result.pods:
        required = required_node_affinity(cluster, pod.key)
        for pair in pod.pairs:
            affinity = conjunct(pair, "FilterAffinity")
            assert "FilterAffinity" in pair.failures
            if required is None:
                assert affinity.outcome == "false"
                leaf = failing_path(affinity)[-1]
                assert leaf.is_exists and leaf.children == ()
                assert reason(affinity).startswith("no NodeSelectorTerm to choose from")
                assert reason(affinity).endswith("is FALSE (the domain is empty)")
            else:
                assert affinity.outcome == "error"
                assert "record has no field 'Operator'" in reason(affinity)


def test_fast_path_agrees(textbook: LoadedSpec, example: tuple[Cluster, Evaluation]) -> None:
    cluster, explained = example
    fast = evaluate(textbook, cluster, explain=False)
    summary = [[(p.node, p.verdict, p.error, p.score) for p in pod.pairs] for pod in fast.pods]
    assert summary == [
        [(p.node, p.verdict, p.error, p.score) for p in pod.pairs] for pod in explained.pods
    ]


def test_gpu_taint_without_toleration(textbook: LoadedSpec) -> None:
    result = evaluate(textbook, load(ROOT / "examples" / "gpu-pool.yaml"))
    pods = {pod.key: pod for pod in result.pods}
    inference = pods["ml/sentiment-inference-5f7d8c9b6-p42cn"]  # no nvidia.com/gpu toleration
    training = pods["ml/train-resnet50-mkwvp"]  # tolerates nvidia.com/gpu (Exists, NoSchedule)
    for pair in inference.pairs:
        assert ("FilterTaints" in pair.failures) is pair.node.startswith("gpu-")
    for pair in inference.pairs:
        if pair.node.startswith("gpu-"):
            text = reason(conjunct(pair, "FilterTaints"))
            assert 'key |-> "nvidia.com/gpu"' in text and "no Toleration satisfies it" in text
    assert all("FilterTaints" not in pair.failures for pair in training.pairs)
    assert any(pair.node.startswith("gpu-") for pair in training.pairs)


# -- the JSON document and --pod ------------------------------------------------------------------


def test_json_shape(textbook: LoadedSpec, example: tuple[Cluster, Evaluation]) -> None:
    cluster, result = example
    doc = json.loads(json.dumps(result.as_json()))
    assert doc.keys() == {"spec", "filter", "score", "pods"}
    assert (doc["spec"], doc["filter"], doc["score"]) == ("textbook", "Filter", "Viability")
    assert list(doc["pods"]) == [pod.key for pod in result.pods]
    nodes = {n["metadata"]["name"] for n in cluster.nodes}
    for entry in doc["pods"].values():
        assert entry.keys() == {"feasible", "failures", "errors", "scores", "score_errors"}
        assert entry["feasible"] == []
        assert entry["failures"].keys() == entry["errors"].keys() == nodes
        assert all(isinstance(v, list) and v for v in entry["failures"].values())
        assert all(isinstance(v, int) for v in entry["scores"].values())
        assert entry["scores"].keys() | entry["score_errors"].keys() == nodes


def test_pod_option(textbook: LoadedSpec) -> None:
    cluster = load(ROOT / "examples" / "gpu-pool.yaml")
    bound = "ml/finetune-llama-worker-0"  # a bound pod can be asked about too
    assert [pod.key for pod in evaluate(textbook, cluster, pod=bound).pods] == [bound]
    with pytest.raises(UsageError, match="no pod 'ml/nope' in the cluster"):
        evaluate(textbook, cluster, pod="ml/nope")


# -- a user's spec --------------------------------------------------------------------------------

TOLERATIONS_SPEC = """\
---- MODULE textbook ----
\\* TaintToleration as kube-scheduler v1.34 filters: only NoSchedule and NoExecute taints count;
\\* an empty effect tolerates every effect, Exists with an empty key every key, "" means Equal.
Tolerates(Toleration, Taint) ==
  /\\ Toleration.Effect = "" \\/ Toleration.Effect = Taint.Effect
  /\\ IF Toleration.Operator = "Exists"
       THEN Toleration.key = "" \\/ Toleration.key = Taint.key
       ELSE Toleration.key = Taint.key /\\ Toleration.value = Taint.value

Filter(Pod, Node) ==
  \\A Taint \\in {t \\in Node.Spec.Taints : t.Effect \\in {"NoSchedule", "NoExecute"}} :
    \\E Toleration \\in Pod.Spec.Tolerations : Tolerates(Toleration, Taint)
====
"""


def _node(name: str, taint: str = "") -> str:
    taints = f"\nspec:\n  taints: [{taint}]" if taint else ""
    return f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}{taints}\n"


def _pod(name: str, toleration: str = "") -> str:
    tolerations = f"\n  tolerations: [{toleration}]" if toleration else ""
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: t}}\n"
        f"spec:\n  containers: [{{name: c, image: busybox}}]{tolerations}\n"
    )


TAINTED = "\n---\n".join(
    [
        _node("plain"),
        _node("gpu", "{key: gpu, value: 'yes', effect: NoSchedule}"),
        _node("soft", "{key: x, effect: PreferNoSchedule}"),
        _node("evict", "{key: maint, effect: NoExecute}"),
        _pod("web"),
        _pod("gpu-equal", "{key: gpu, operator: Equal, value: 'yes', effect: NoSchedule}"),
        _pod("gpu-other-value", "{key: gpu, operator: Equal, value: 'no', effect: NoSchedule}"),
        _pod("gpu-any-effect", "{key: gpu, value: 'yes'}"),
        _pod("tolerate-all", "{operator: Exists}"),
        _pod("maint-exists", "{key: maint, operator: Exists, effect: NoExecute}"),
    ]
)

FEASIBLE = {
    "t/web": ("plain", "soft"),
    "t/gpu-equal": ("plain", "gpu", "soft"),
    "t/gpu-other-value": ("plain", "soft"),
    "t/gpu-any-effect": ("plain", "gpu", "soft"),
    "t/tolerate-all": ("plain", "gpu", "soft", "evict"),
    "t/maint-exists": ("plain", "soft", "evict"),
}


def test_a_user_spec_file(tmp_path: Path) -> None:
    path = tmp_path / "tolerations.tla"
    path.write_text(TOLERATIONS_SPEC, encoding="utf-8")
    spec = load_spec(str(path))
    assert spec.view.name == "textbook" and spec.checked.diagnostics == ()
    result = evaluate(spec, loads(TAINTED))
    assert {pod.key: pod.feasible for pod in result.pods} == FEASIBLE
    gpu = next(p for p in result.pods[0].pairs if p.node == "gpu")
    assert (gpu.verdict, gpu.error, gpu.score) == ("false", None, None)
    assert len(gpu.failures) == 1 and gpu.failures[0].startswith("\\A Taint \\in")  # not a ∧
    assert "for Taint = " in reason(gpu.conjuncts[0])
    doc = result.as_json()
    assert doc["spec"] == str(path) and doc["pods"]["t/web"]["scores"] == {}
