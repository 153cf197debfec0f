"""`schedspec coverage`: which rules of a spec the given (or drawn) clusters exercised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedspec.cli import main

EXAMPLES = Path(__file__).parents[2] / "examples"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_cluster_s_coverage_names_what_it_missed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "coverage", str(EXAMPLES / "gpu-pool.yaml"), "--definition", "TaintsOK",
        "--definition", "NodeUnschedulableOK", "--definition", "UntoleratedTaints",
    )  # fmt: skip
    assert code == 0
    assert out.startswith("coverage of spec/kube/scheduler.tla on 1 cluster(s)")
    rows = {line.split()[0]: line.split()[1:4] for line in out.splitlines()[3:] if "/" in line}
    assert set(rows) >= {"TaintsOK", "NodeUnschedulableOK", "total"}
    assert rows["TaintsOK"] == ["2", "/", "2"]  # the GPU taint rejects, the CPU pool accepts
    assert "missed (" in out and "scheduler.tla:" in out  # each missed target with its line


def test_json_and_fail_under(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "coverage", "--examples", "5", "--json")
    data = json.loads(out)
    assert code == 0 and data["clusters"] == 5
    assert 0 < data["hit"] < data["targets"]
    code, _, _ = run(capsys, "coverage", "--examples", "5", "--fail-under", "99.9")
    assert code == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give manifest files, --examples N, or both"),
        (["--examples", "1", "--definition", "Nope"], "--definition Nope: spec/kube/scheduler.tla"),
        (["--examples", "-1"], "--examples must be at least 0"),
    ],
)
def test_bad_usage_is_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "coverage", *argv)
    assert (code, out) == (2, "") and message in err
