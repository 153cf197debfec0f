"""``schedspec schedule``: JSON shape, human output, reproducibility, exit 2 on bad config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedspec.cli import main

ROOT = Path(__file__).resolve().parents[2]
ZONAL = str(ROOT / "examples" / "zonal-web.yaml")


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schedule", ZONAL, "--json", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"bindings", "unschedulable", "preempted", "nominations"}
    assert out["preempted"] == [] and out["nominations"] == {}
    report = out["unschedulable"]["shop/report-nightly-29301120-7b8j6"]
    assert report["plugins"] == ["NodeResourcesFit", "TaintToleration"]
    assert report["message"] == (
        "0/7 nodes are available: 1 node(s) had untolerated taint(s), 6 Insufficient cpu. "
        "preemption: "
        "0/7 nodes are available: 7 Preemption is not helpful for scheduling."
    )
    assert out["bindings"]["shop/cache-1"].startswith("k8s-worker-")


def test_same_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    main(["schedule", ZONAL, "--json", "--seed", "5"])
    first = capsys.readouterr().out
    main(["schedule", ZONAL, "--json", "--seed", "5"])
    assert capsys.readouterr().out == first


def test_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schedule", ZONAL]) == 0
    out = capsys.readouterr().out
    assert "bound 3 pod(s):" in out
    assert (
        "shop/report-nightly-29301120-7b8j6 [NodeResourcesFit, TaintToleration]: 0/7 nodes" in out
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            "percentageOfNodesToScore: 101\n",
            "ksc.yaml:3: KubeSchedulerConfiguration: percentageOfNodesToScore: invalid value 101",
        ),
        (
            "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeNumbr\n",
            "ksc.yaml:7: KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[0]: plugin "
            '"NodeNumbr" does not exist',
        ),
    ],
    ids=["bad percentage", "unknown plugin"],
)
def test_bad_config_exits_2_with_the_field_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, message: str
) -> None:
    path = tmp_path / "ksc.yaml"
    header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    path.write_text(header + config)
    assert main(["schedule", ZONAL, "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"schedspec schedule: {path}:") and message in err
    assert "KubeSchedulerConfiguration: " in err
