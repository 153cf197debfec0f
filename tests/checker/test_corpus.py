"""The seed corpus (checker/corpus.py): files and scenario files as clusters, checked first by a
campaign and by `schedspec crosscheck --corpus`, failures reported with the seed they came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedspec.checker.campaign import run_campaign, run_parallel
from schedspec.checker.corpus import Seed, manifest_seeds, warned_seeds
from schedspec.cli import main
from schedspec.errors import ManifestError
from schedspec.impl.plugins import pod_topology_spread

SCENARIOS = Path(__file__).parent.parent / "spec" / "scenarios"

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 500m}}}]
"""


def test_manifest_files_scenario_files_and_directories(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "cluster.yaml").write_text(NODE + "---\n" + POD)
    scenario = {"scenario": "x", "pod": "default/web", "objects": NODE + "---\n" + POD}
    (tmp_path / "scenario.json").write_text(json.dumps(scenario))
    (tmp_path / "notes.txt").write_text("not a manifest")
    seeds = manifest_seeds([tmp_path])
    assert [Path(s.source).name for s in seeds] == ["scenario.json", "cluster.yaml"]
    for s in seeds:
        assert [o["kind"] for o in s.objects] == ["Node", "Pod"]
        assert s.objects[1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "500m"


def test_every_hand_checked_scenario_loads_as_a_seed() -> None:
    seeds = manifest_seeds([SCENARIOS])
    assert len(seeds) == len(list(SCENARIOS.rglob("*.yaml")))
    assert all(any(o["kind"] == "Pod" for o in s.objects) for s in seeds)


@pytest.mark.parametrize(
    ("files", "where"),
    [
        ({"bad.yaml": NODE + "---\n" + POD.replace("[{name: app", "[{nme: app")}, "bad.yaml:10"),
        ({"broken.yaml": "kind: Pod\n  metadata: [\n"}, "broken.yaml:2"),
    ],
)
def test_a_bad_file_is_refused_naming_file_and_line(
    tmp_path: Path, files: dict[str, str], where: str
) -> None:
    (tmp_path / "good.yaml").write_text(NODE)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ManifestError, match=where):
        manifest_seeds([tmp_path])


def test_missing_and_empty_paths_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no such file or directory"):
        manifest_seeds([tmp_path / "nope"])
    with pytest.raises(ManifestError, match=r"no \.yaml, \.yml or \.json file"):
        manifest_seeds([tmp_path])


def test_a_corpus_cluster_catches_what_generated_ones_do_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The strategies never draw a label selector the API server refuses; the warned seeds do.
    # With PodTopologySpread's PreFilter error undone (the selector counting nothing, as the
    # impl once did), the campaign over generated clusters stays clean, the corpus does not.
    monkeypatch.setattr(pod_topology_spread, "_constraints_error", lambda pod, when: None)
    assert run_campaign(examples=20, seed=1, shrink=False).undeclared == []
    result = run_campaign(examples=5, seed=1, corpus=warned_seeds())
    assert result.corpus == 3 and result.examples == 5
    assert {d.predicate for d in result.undeclared} >= {"SpreadOK", "NodeStatus", "Feasible"}
    spread = next(c for c in result.counterexamples if c.predicate == "SpreadOK")
    assert spread.source.startswith("warned: spread selector In without values")
    assert "# from the corpus: warned: spread selector" in spread.describe()
    pods = [o for o in spread.objects if o["kind"] == "Pod"]
    [pod] = pods  # minimised: one pod, its refused selector kept
    [constraint] = pod["spec"]["topologySpreadConstraints"]
    assert constraint["labelSelector"]["matchExpressions"]  # the refused requirement stays


def test_parallel_campaign_checks_every_seed_once() -> None:
    seeds = manifest_seeds([SCENARIOS])[:9] + warned_seeds()
    one = run_campaign(examples=4, seed=0, corpus=seeds)
    two = run_parallel(examples=4, seed=0, jobs=2, corpus=seeds)
    assert one.corpus == two.corpus == 12
    assert one.undeclared == two.undeclared == []


def test_cli_corpus_counts_and_refuses_bad_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the fit scenarios alone leave most predicates one-valued: accepted, the subject is the count
    argv = ["crosscheck", "--examples", "0", "--corpus", str(SCENARIOS / "fit"), "--json"]
    code = main([*argv, "--accept-vacuous", "all"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["examples"] == 0 and data["corpus"] == len(list((SCENARIOS / "fit").glob("*.yaml")))
    assert data["by_predicate"]["FitOK"]["checked"] > 0
    (tmp_path / "bad.yaml").write_text(POD.replace("cpu: 500m", "cpu: lots"))
    assert main(["crosscheck", "--examples", "3", "--corpus", str(tmp_path)]) == 2
    assert f"{tmp_path / 'bad.yaml'}:" in capsys.readouterr().err
    assert main(["crosscheck", "--examples", "0"]) == 2
    assert "or 0 with --corpus/--z3-states" in capsys.readouterr().err


def test_a_hand_built_invalid_seed_is_refused() -> None:
    with pytest.raises(ManifestError, match="<mine>"):
        run_campaign(examples=1, corpus=[Seed("<mine>", [{"kind": "Pod"}])])
