"""Crashes the fuzzing campaign (``schedspec fuzz``, ``schedspec.checker.fuzz``) found, each
pinned by its exact input: bad input ends in exit 2 with a message, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedspec.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---- the crashes found, each pinned by its exact input -----------------------------------------

HUGE_CPU = """\
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-23.ec2.internal
status:
  allocatable:
    cpu: 1e308
    pods: '29'
---
apiVersion: v1
kind: Pod
metadata:
  name: kube-proxy-mzsfc
spec:
  containers:
  - name: kube-proxy
    image: 602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.34.1-minimal-eksbuild.2
    resources:
      requests:
        cpu: 100m
  nodeName: ip-10-0-1-23.ec2.internal
"""


def test_a_quantity_beyond_int64_is_an_error_not_a_float_overflow(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Found as ``explain: OverflowError at spec/builtins.py`` (BalancedScore's float ratio of
    1e311 millicores): Go caps or overflows such a quantity; the loader rejects it."""
    path = tmp_path / "huge.yaml"
    path.write_text(HUGE_CPU, encoding="utf-8")
    for argv in (["eval", str(path)], ["explain", str(path), "--pod", "default/kube-proxy-mzsfc"]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "")
        assert 'status.allocatable.cpu: Invalid value: "1e308": must be at most 2^63-1' in err
    for q in ("9223372036854775807", "7Ei", "9223372036854775807000m"):
        path.write_text(HUGE_CPU.replace("1e308", q), encoding="utf-8")
        assert run(capsys, "eval", str(path))[0] == 0, q
    for q in ("9223372036854775808", "8Ei", "99999999999999999999Ei", "1e19"):
        path.write_text(HUGE_CPU.replace("1e308", q), encoding="utf-8")
        assert run(capsys, "eval", str(path))[0] == 2, q


def test_a_spec_without_the_filter_definition_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Found as ``eval: KeyError at spec/compile/python.py:definition``: scheduler.tla cut
    after its MODULE line checks clean, and eval looked up Feasible."""
    spec = tmp_path / "scheduler.tla"
    spec.write_text("-" * 28 + " MODULE scheduler " + "-" * 28 + "\n", encoding="utf-8")
    assert run(capsys, "check", str(spec))[0] == 0
    code, out, err = run(capsys, "eval", str(ROOT / "examples" / "preemption.yaml"),
                         "--spec", str(spec))  # fmt: skip
    assert (code, out) == (2, "")
    assert "no definition Feasible, with which the scheduler view decides feasibility" in err
