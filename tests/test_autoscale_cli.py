"""``schedspec autoscale``: the bundled example's plan, reasons, scale-down verdicts and after-run
(the figures docs/autoscaler.md computes by hand), and bad input as a clear error with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedspec.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "autoscaling.yaml")
FLAGS = [
    "--node-group-label", "eks.amazonaws.com/nodegroup",
    "--nodes", "1:5:general-m5-large",
    "--nodes", "0:3:compute-c5-2xlarge",
    "--nodes", "0:2:gpu-g5-xlarge",
]  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def autoscale_json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    code, out, err = run(capsys, "autoscale", EXAMPLE, *FLAGS, *extra, "--json")
    assert (code, err) == (0, "")
    document: dict[str, object] = json.loads(out)
    return document


def test_example_plan_reasons_and_after_run(capsys: pytest.CaptureFixture[str]) -> None:
    doc = autoscale_json(capsys)
    up, down, after = doc["scale_up"], doc["scale_down"], doc["after"]
    assert isinstance(up, dict) and isinstance(down, dict) and isinstance(after, dict)
    # least-waste: compute-c5-2xlarge (+1 node for the 6-cpu transcode) wastes least
    assert up["plan"] == {"compute-c5-2xlarge": {"from": 2, "to": 3}}
    pods = up["pods"]
    assert pods["batch/video-transcode-29331852-rjv68"]["triggered"] is True
    assert pods["batch/video-transcode-29331852-rjv68"]["message"] == (
        "pod triggered scale-up: [{compute-c5-2xlarge 2->3 (max: 3)}]"
    )
    arm = pods["analytics/graviton-benchmark-0"]
    assert arm["triggered"] is False
    assert arm["reasons"] == {
        "node(s) had untolerated taint(s)": 2,
        "node(s) didn't match Pod's node affinity/selector": 1,
    }
    assert pods["ci/ci-runner-9f7b5d8c6-m8l6l"]["ignored"] == "expendable"
    verdicts = {name: (v["removable"], v["reason"]) for name, v in down["nodes"].items()}
    assert verdicts == {
        "ip-10-0-1-152.ec2.internal": (False, "BlockedByPod"),
        "ip-10-0-1-23.ec2.internal": (False, "BlockedByPod"),
        "ip-10-0-2-208.ec2.internal": (False, "ScaleDownDisabledAnnotation"),
        "ip-10-0-2-41.ec2.internal": (True, ""),
        "ip-10-0-3-194.ec2.internal": (False, "NotUnderutilized"),
        "ip-10-0-3-77.ec2.internal": (False, "BlockedByPod"),
    }
    assert down["nodes"]["ip-10-0-3-77.ec2.internal"]["blocking_pod"] == [
        "shop/checkout-api-6f8d7c5b4-bhbg5",
        "NotEnoughPdb",
    ]
    assert after["cluster"] == "grown"
    assert after["bindings"] == {
        "batch/video-transcode-29331852-rjv68": "template-node-for-compute-c5-2xlarge-1"
    }
    assert doc["spec_disagreements"] == []


def test_example_with_the_priority_expander(capsys: pytest.CaptureFixture[str]) -> None:
    # the ConfigMap ranks general-* 100 above compute-* 50: four search-indexer pods, two nodes
    doc = autoscale_json(capsys, "--expander", "priority")
    up = doc["scale_up"]
    assert isinstance(up, dict)
    assert up["plan"] == {"general-m5-large": {"from": 3, "to": 5}}
    assert doc["spec_disagreements"] == []


def test_example_text_names_the_plan_and_ca_wording(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "autoscale", EXAMPLE, *FLAGS)
    assert code == 0
    assert "plan: compute-c5-2xlarge 2 → 3 (max 3)" in out
    assert "pod didn't trigger scale-up: 2 node(s) had untolerated taint(s), 1 node(s)" in out
    assert "not enough pod disruption budget to move shop/checkout-api-6f8d7c5b4-bhbg5" in out
    assert "batch/video-transcode-29331852-rjv68 → template-node-for-compute-c5-2xlarge-1" in out


SMALL = """\
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-23.ec2.internal
  labels: {eks.amazonaws.com/nodegroup: general-m5-large, kubernetes.io/hostname: ip-10-0-1-23}
status: {allocatable: {cpu: 1930m, memory: 7146Mi, pods: "29"}}
"""

PRIORITY_BAD_REGEX = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-autoscaler-priority-expander, namespace: kube-system}
data:
  priorities: |
    10:
      - general-(
"""

MD_BAD_CPU = """\
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata:
  name: md-0
  namespace: default
  annotations:
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "0"
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "3"
    capacity.cluster-autoscaler.kubernetes.io/cpu: "four"
    capacity.cluster-autoscaler.kubernetes.io/memory: "16Gi"
spec:
  replicas: 0
"""


@pytest.mark.parametrize(
    ("extra_file", "flags", "message"),
    [
        (None, ["--nodes", "3:1:general-m5-large"],
         "max size must be greater or equal to min size"),
        (None, ["--expander", "cheapest"], "Expander cheapest not supported"),
        (PRIORITY_BAD_REGEX, ["--expander", "priority"],
         "Can't compile regexp rule for priority 10 and rule general-("),
        (MD_BAD_CPU, [], "capacity.cluster-autoscaler.kubernetes.io/cpu"),
    ],
    ids=["min-over-max", "unknown-expander", "bad-priority-regex", "bad-capacity-annotation"],
)  # fmt: skip
def test_bad_input_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    extra_file: str | None,
    flags: list[str],
    message: str,
) -> None:
    files = [str(tmp_path / "cluster.yaml")]
    (tmp_path / "cluster.yaml").write_text(SMALL, encoding="utf-8")
    if extra_file is not None:
        path = tmp_path / "extra.yaml"
        path.write_text(extra_file, encoding="utf-8")
        files.append(str(path))
    base = ["--node-group-label", "eks.amazonaws.com/nodegroup", "--nodes", "1:3:general-m5-large"]
    code, out, err = run(capsys, "autoscale", *files, *base, *flags)
    assert (code, out) == (2, "")
    assert err.startswith("schedspec autoscale: ")
    assert message in err
