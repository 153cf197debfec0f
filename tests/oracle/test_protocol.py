"""The bridge as a process: it keeps serving after bad requests, and its death is reported."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from oracle_builders import cluster, node, pod

from schedspec.checker import oracle as oracle_module
from schedspec.checker.oracle import Oracle, OracleError, OracleRequestError, cluster_json
from schedspec.cli import main

pytestmark = pytest.mark.oracle


def test_version_names_the_real_module_and_scheduling_gates(oracle: Oracle) -> None:
    answer = oracle.version()
    assert answer["kubernetes"] == "v1.34.2"
    assert answer["feature_gates"]["SchedulerQueueingHints"] is True
    assert any("volume" in item.lower() for item in answer["declared_out_of_scope"])


def test_malformed_json_is_answered_with_an_error_then_serving_goes_on(oracle: Oracle) -> None:
    answer = oracle.request_line('{"op": "filter", "cluster": ')
    assert answer["ok"] is False
    assert answer["error"].startswith("malformed request")
    assert oracle.request_line('{"op":"version"}')["kubernetes"] == "v1.34.2"


def test_unknown_op_is_an_error(oracle: Oracle) -> None:
    with pytest.raises(OracleRequestError, match='unknown op "bind"'):
        oracle.request({"op": "bind"})


def test_an_object_the_api_would_reject_is_refused(oracle: Oracle) -> None:
    body = cluster_json(cluster(node("n"), pod("p")))
    body["nodes"][0]["metadata"]["labels"]["team"] = "not a valid value!"
    with pytest.raises(OracleRequestError, match=r"invalid Node n: metadata\.labels"):
        oracle.filter(body, "default/p")
    assert oracle.filter(cluster(node("n"), pod("p")), "default/p")["feasible"] == ["n"]


def test_a_missing_pod_is_an_error(oracle: Oracle) -> None:
    with pytest.raises(OracleRequestError, match="no Pod default/ghost"):
        oracle.filter(cluster(node("n"), pod("p")), "default/ghost")


def test_a_child_killed_mid_session_raises_a_clear_oracle_error(oracle: Oracle) -> None:
    with Oracle(binary=oracle.binary) as doomed:
        assert doomed.version()["ok"] is True
        os.kill(doomed.pid, signal.SIGKILL)
        with pytest.raises(OracleError, match="was killed by signal 9") as caught:
            doomed.version()
        assert not isinstance(caught.value, OracleRequestError)


def test_go_missing_is_reported_with_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SCHEDSPEC_ORACLE_BIN", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # nothing cached there
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(OracleError, match=re.escape("go not found on PATH: install Go ≥ 1.24")):
        oracle_module.ensure_binary()


def test_a_failed_build_shows_the_tail_of_its_log(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if shutil.which("go") is None:
        pytest.skip("needs Go")
    origin, src = oracle_module.source_dir(), tmp_path / "oracle"
    for f in (origin / "go.mod", origin / "go.sum", *origin.rglob("*.go")):
        (src / f.relative_to(origin)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, src / f.relative_to(origin))
    (src / "cmd" / "schedspec-oracle" / "broken.go").write_text("package main\n\nfunc (\n")
    monkeypatch.delenv("SCHEDSPEC_ORACLE_BIN", raising=False)
    monkeypatch.setenv("SCHEDSPEC_ORACLE_SRC", str(src))
    # Go's own build cache lives under XDG_CACHE_HOME too: keep it, or everything recompiles.
    gocache = subprocess.run(["go", "env", "GOCACHE"], capture_output=True, text=True, check=True)
    monkeypatch.setenv("GOCACHE", gocache.stdout.strip())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(OracleError, match=r"building the oracle failed[\s\S]*broken\.go:\d+"):
        oracle_module.ensure_binary()


def test_cli_oracle_filter_prints_every_rejecting_plugin(
    oracle: Oracle, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taint = {"key": "k", "effect": "NoSchedule"}
    items = [node("n", cpu="1", taints=[taint]), pod("p", cpu="2")]
    manifest = tmp_path / "c.json"
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    assert main(["oracle", "filter", str(manifest), "--pod", "default/p"]) == 0
    out = capsys.readouterr().out
    assert "TaintToleration: node(s) had untolerated taint(s)" in out
    assert "NodeResourcesFit: Insufficient cpu" in out  # reported although not the first
    assert main(["oracle", "filter", str(manifest), "--pod", "default/ghost"]) == 2
    assert "no such pod" in capsys.readouterr().err
