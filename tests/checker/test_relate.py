"""`schedspec relate A B --as equivalent|subsumes|disjoint`: how two pods' placement constraints
relate over the nodes that accept each; a witness node when the relation does not hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedspec.checker.placement_impl import impl_feasible, with_node
from schedspec.checker.placement_input import load_cluster, load_question
from schedspec.cli import main
from schedspec.spec.load import load_spec
from schedspec.spec.place import replay_feasible

EXAMPLES = Path(__file__).parents[2] / "examples" / "questions"
CLUSTER = str(EXAMPLES / "placement.yaml")
QUESTIONS = str(EXAMPLES / "placement-questions.yaml")
REQ = "requiredDuringSchedulingIgnoredDuringExecution"


def _pod(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {**spec, "containers": [{"name": "c", "image": "busybox:1.36"}]},
    }


def _affinity(operator: str) -> dict[str, Any]:
    expr = {"key": "disktype", "operator": operator, "values": ["ssd"]}
    return {"nodeAffinity": {REQ: {"nodeSelectorTerms": [{"matchExpressions": [expr]}]}}}


@pytest.fixture
def variants(tmp_path: Path) -> dict[str, str]:
    """Three ways to say where a pod may go: nodeSelector ssd, affinity In [ssd], NotIn [ssd]."""
    pods = {
        "selector": _pod("by-selector", nodeSelector={"disktype": "ssd"}),
        "in": _pod("by-affinity", affinity=_affinity("In")),
        "notin": _pod("elsewhere", affinity=_affinity("NotIn")),
    }
    out = {}
    for key, pod in pods.items():
        path = tmp_path / f"{key}.yaml"
        path.write_text(yaml.safe_dump(pod), encoding="utf-8")
        out[key] = str(path)
    return out


def relate(
    capsys: pytest.CaptureFixture[str], a: str, b: str, relation: str, *flags: str
) -> tuple[int, dict[str, Any]]:
    code = main(["relate", a, b, "--as", relation, "--json", *flags])
    return code, json.loads(capsys.readouterr().out)


def _check_witness(answer: dict[str, Any], a: str, b: str, flags: tuple[str, ...]) -> None:
    """The witness node, replayed here on the spec's executable backend and on impl."""
    witness = answer["witness"]
    cluster = load_cluster(flags[1:] if flags else ())
    if witness["manifest"] is not None:
        cluster = with_node(cluster, witness["manifest"])
    spec = load_spec("scheduler")
    pod_a = load_question(a, (), answer["a"]["key"])[1].pod
    pod_b = load_question(b, (), answer["b"]["key"])[1].pod
    for which, pod in (("A", pod_a), ("B", pod_b)):
        expected = witness["feasible"][which]
        assert replay_feasible(spec, cluster, pod, witness["node"]) is expected
        assert impl_feasible(cluster, pod, witness["node"]).feasible is expected
    assert answer["spec_impl_agree"]


def test_equivalent(capsys: pytest.CaptureFixture[str], variants: dict[str, str]) -> None:
    code, answer = relate(capsys, variants["selector"], variants["in"], "equivalent")
    assert code == 0 and answer["result"] == "unsat" and answer["holds"] is True
    assert "bounded claim" in answer["message"]
    code, answer = relate(capsys, variants["selector"], variants["notin"], "equivalent")
    assert code == 1 and answer["result"] == "sat" and answer["holds"] is False
    labels = answer["witness"]["manifest"]["metadata"].get("labels", {})
    assert answer["witness"]["feasible"] == {"A": labels.get("disktype") == "ssd",
                                             "B": labels.get("disktype") != "ssd"}  # fmt: skip
    _check_witness(answer, variants["selector"], variants["notin"], ())


def test_subsumes_reads_a_within_b(capsys: pytest.CaptureFixture[str]) -> None:
    # etl (6 CPUs, ssd) is stricter than batch-runner (2 CPUs): every node taking etl takes it
    flags = ("--cluster", CLUSTER)
    code, answer = relate(
        capsys, QUESTIONS, QUESTIONS, "subsumes", "--pod-a", "shop/etl",
        "--pod-b", "shop/batch-runner", *flags,
    )  # fmt: skip
    assert code == 0 and answer["holds"] is True
    assert answer["meaning"] == "every node that accepts A also accepts B"
    code, answer = relate(
        capsys, QUESTIONS, QUESTIONS, "subsumes", "--pod-a", "shop/batch-runner",
        "--pod-b", "shop/etl", *flags,
    )  # fmt: skip
    assert code == 1 and answer["holds"] is False
    assert answer["witness"]["feasible"] == {"A": True, "B": False}
    assert answer["witness"]["node"].startswith("batch-")  # one of the cluster's own nodes
    _check_witness(answer, QUESTIONS, QUESTIONS, flags)


def test_disjoint(capsys: pytest.CaptureFixture[str], variants: dict[str, str]) -> None:
    code, answer = relate(capsys, variants["in"], variants["notin"], "disjoint")
    assert code == 0 and answer["holds"] is True
    code, answer = relate(capsys, variants["in"], variants["selector"], "disjoint")
    assert code == 1 and answer["witness"]["feasible"] == {"A": True, "B": True}
    assert answer["witness"]["manifest"]["metadata"]["labels"]["disktype"] == "ssd"
    _check_witness(answer, variants["in"], variants["selector"], ())


def test_text_output_and_bad_input(
    capsys: pytest.CaptureFixture[str], variants: dict[str, str]
) -> None:
    code = main(["relate", variants["selector"], variants["notin"], "--as", "subsumes"])
    out = capsys.readouterr().out
    assert code == 1
    assert "A subsumes B: every node that accepts A also accepts B?" in out
    assert "A on schedspec-new-node: spec feasible; impl feasible" in out
    assert "kind: Node" in out
    assert main(["relate", variants["selector"], "/nonexistent.yaml", "--as", "disjoint"]) == 2
    assert "/nonexistent.yaml: cannot read" in capsys.readouterr().err
    assert main(["relate", QUESTIONS, variants["in"], "--as", "disjoint"]) == 2
    assert "name the pod with --pod-a NS/NAME" in capsys.readouterr().err


def test_witnesses_need_integers_between_the_named_ones_and_taints(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def write(name: str, **spec: Any) -> str:
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(_pod(name, **spec)), encoding="utf-8")
        return str(path)

    def gen(operator: str, *values: str) -> dict[str, Any]:
        expr = {"key": "gen", "operator": operator, "values": list(values)}
        return {"nodeAffinity": {REQ: {"nodeSelectorTerms": [{"matchExpressions": [expr]}]}}}

    newer = write("newer", affinity=gen("Gt", "3"))
    listed = write("listed", affinity=gen("In", "4", "5"))
    code, answer = relate(capsys, newer, listed, "subsumes")  # gen=6: above 3, not listed
    assert code == 1
    assert int(answer["witness"]["manifest"]["metadata"]["labels"]["gen"]) > 5
    _check_witness(answer, newer, listed, ())
    assert relate(capsys, listed, newer, "subsumes")[0] == 0
    toleration = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
    tolerant = write("tolerant", tolerations=[toleration])
    plain = write("plain")
    code, answer = relate(capsys, tolerant, plain, "subsumes")  # a node tainted dedicated=gpu
    assert code == 1
    (taint,) = answer["witness"]["manifest"]["spec"]["taints"]
    assert taint == {"key": "dedicated", "effect": "NoSchedule", "value": "gpu"}
    _check_witness(answer, tolerant, plain, ())
    assert relate(capsys, plain, tolerant, "subsumes")[0] == 0


def test_pods_of_the_cluster_are_judged_without_themselves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # web-…-2lvw8 is bound to k8s-worker-a-1 with a hostname anti-affinity to web pods: judged
    # where it stands it would repel itself (the solver and the replay once disagreed on this)
    zonal = str(EXAMPLES.parent / "zonal-web.yaml")
    flags = ("--cluster", zonal)
    code, answer = relate(
        capsys, zonal, zonal, "subsumes", "--pod-a", "shop/api-84f5c7d9b8-th5lx",
        "--pod-b", "shop/web-6c8d9f7b4d-2lvw8", *flags,
    )  # fmt: skip
    assert code == 1 and answer["witness"]["feasible"] == {"A": True, "B": False}
    assert any("judged as if pending, without itself" in n for n in answer["notes"])
    _check_witness(answer, zonal, zonal, flags)
