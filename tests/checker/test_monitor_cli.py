"""``schedspec monitor``'s errors that need no API server (exit 2, one line), and the watch's
re-list after ``410 Gone`` turning what it missed into changes (a fake list, no client)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from schedspec.checker.live_cluster import free_port
from schedspec.checker.monitor_watch import Watcher, _Kind
from schedspec.cli import main
from schedspec.live import READ


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def kubeconfig(path: Path, server: str) -> Path:
    config = {"apiVersion": "v1", "kind": "Config",
              "clusters": [{"name": "c", "cluster": {"server": server}}],
              "users": [{"name": "u", "user": {"token": "t"}}],
              "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
              "current-context": "ctx"}  # fmt: skip
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "monitor watches a live cluster: give --kubeconfig PATH"),
        (["--kubeconfig", "K", "--duration", "0"], "--duration 0.0: must be more than 0 seconds"),
        (["--kubeconfig", "K", "--window", "-1"], "--window -1: must be at least 0"),
        (["--context", "x"], "--context and --namespace go with --kubeconfig"),
    ],
    ids=["no-kubeconfig", "duration", "window", "context-alone"],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _, err = run(capsys, "monitor", *argv)
    assert (code, err) == (2, f"schedspec monitor: {message}\n")


def test_a_file_without_a_scheduler_configuration(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "ksc.yaml"
    config.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    path = kubeconfig(tmp_path / "k", "https://127.0.0.1:1")
    code, _, err = run(capsys, "monitor", "--kubeconfig", str(path), "--config", str(config))
    assert code == 2
    assert err == f"schedspec monitor: {config}: no KubeSchedulerConfiguration in the file\n"


def test_unreachable_server(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    server = f"https://127.0.0.1:{free_port()}"  # nothing listens there
    path = kubeconfig(tmp_path / "k", server)
    code, _, err = run(capsys, "monitor", "--kubeconfig", str(path), "--duration", "1")
    assert code == 2
    assert err.startswith(f"schedspec monitor: {server} (context ctx): cannot reach the API")
    assert err.count("\n") == 1


def _pod(name: str, node: str = "") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"nodeName": node} if node else {}}  # fmt: skip


def test_a_relist_after_410_puts_what_the_watch_missed_on_the_queue(tmp_path: Path) -> None:
    watcher = Watcher(_source(tmp_path))  # lists nothing until asked
    pods = next(r for r in READ if r.kind == "Pod")
    kind = _Kind(pods, "10", {"ns/a": _pod("a"), "ns/b": _pod("b"), "ns/c": _pod("c")})
    now = [_pod("a"), _pod("b", "n1"), _pod("d")]  # b bound, c deleted, d created meanwhile
    watcher._list = lambda read: ("42", now)  # type: ignore[method-assign]
    watcher._relist(kind)
    items = []
    while (item := watcher.get(0)) is not None:
        items.append((item[0], item[1]["metadata"]["name"], item[2]))
    assert items == [("Pod", "c", True), ("Pod", "b", False), ("Pod", "d", False)]
    assert (kind.version, sorted(kind.seen), watcher.relists) == ("42", ["ns/a", "ns/b", "ns/d"], 1)


def _source(tmp_path: Path) -> Any:
    from schedspec.live import Source

    return Source(str(kubeconfig(tmp_path / "k", "https://127.0.0.1:1")))
