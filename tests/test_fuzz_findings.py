"""Crashes the fuzzing campaign (``schedspec fuzz``, ``schedspec.checker.fuzz``) found, each
pinned by its exact input: bad input ends in exit 2 with a message, never a traceback."""

from __future__ import annotations

import re
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


SOFT_SPREAD_ON_A_KEY_NO_NODE_HAS = """\
apiVersion: v1
kind: Node
metadata: {name: a1, labels: {kubernetes.io/hostname: a1, topology.kubernetes.io/zone: zone-a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  containers: [{name: c, image: nginx}]
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: example.com/rack
    whenUnsatisfiable: ScheduleAnyway
    labelSelector: {matchLabels: {app: web}}
"""


def test_explain_gives_a_node_the_spread_score_ignores_a_raw_score_of_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Found by fuzzing as ``explain`` exit 2 on an input eval answers (seed 10, manifest:747,
    a unicode topologyKey): explain's per-plugin breakdown asked SpreadRaw of a node without the
    soft constraint's topology key — one PodTopologySpread ignores and scores 0."""
    path = tmp_path / "spread.yaml"
    path.write_text(SOFT_SPREAD_ON_A_KEY_NO_NODE_HAS, encoding="utf-8")
    code, out, err = run(capsys, "explain", str(path), "--pod", "default/web")
    assert (code, err) == (0, "")
    assert re.search(r"PodTopologySpread +0 +0 +2 +0\n", out)


TWO_PODS_ONE_UID = """\
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-2-41.ec2.internal
  labels: {eks.amazonaws.com/nodegroup: general-m5-large,
           kubernetes.io/hostname: ip-10-0-2-41.ec2.internal}
status:
  capacity: {cpu: '2', memory: 7934464Ki, pods: '29'}
---
apiVersion: v1
kind: Pod
metadata: {name: bound-elsewhere, uid: cc53ad8e-0ba3-7b7e-fb61-0ca0c05d0a75}
spec:
  containers: [{name: app, image: app, resources: {requests: {cpu: 1700m, memory: 1Gi}}}]
  nodeName: ip-10-0-1-23.ec2.internal
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  uid: b8d038d6-61e4-1d1b-5228-8e22666257cf
  ownerReferences: [{apiVersion: apps/v1, controller: true, kind: ReplicaSet, name: web,
                     uid: 8c2c3ca3-7fc4-cd8c-5855-9fa040eb30b7}]
spec:
  containers: [{name: app, image: app, resources: {requests: {cpu: 1700m, memory: 1Gi}}}]
  nodeName: ip-10-0-2-41.ec2.internal
---
apiVersion: v1
kind: Pod
metadata:
  name: catalog-sync
  uid: cc53ad8e-0ba3-7b7e-fb61-0ca0c05d0a75
  ownerReferences: [{apiVersion: apps/v1, controller: true, kind: ReplicaSet, name: catalog-sync,
                     uid: b668c41b-c4f8-c63a-16d4-f38e1415d34f}]
spec:
  containers: [{name: app, image: app, resources: {requests: {cpu: 100m, memory: 512Mi}}}]
  initContainers: [{name: migrate, image: app, resources: {requests: {cpu: 1700m, memory: 256Mi}}}]
"""


def test_two_objects_with_one_uid_are_an_error_not_a_cache_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Found as ``autoscale: CacheError at impl/cache/cache.py:assume_pod`` (seed 100,
    manifest:6049, a uid grafted from another pod; reduced): impl's cache knows a pod by its UID,
    so the grown cluster's scheduler found catalog-sync "in the cache" already."""
    path = tmp_path / "dup.yaml"
    path.write_text(TWO_PODS_ONE_UID, encoding="utf-8")
    flags = ["--node-group-label=eks.amazonaws.com/nodegroup", "--nodes=1:3:general-m5-large"]
    for argv in (["autoscale", str(path), *flags], ["schedule", str(path)]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "")
        assert err.endswith(
            "dup.yaml:32: Pod default/catalog-sync: metadata.uid: Duplicate value: "
            '"cc53ad8e-0ba3-7b7e-fb61-0ca0c05d0a75": the UID of Pod default/bound-elsewhere '
            f"({path}:10)\n"
        )
