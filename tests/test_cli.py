"""The command line's contract (DESIGN.md, "CLI"): exit 0 ok, 2 bad input with a message on stderr
naming the file, object and field, never a traceback; ``--json`` documents of a stable shape."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from schedspec.cli import main
from schedspec.cluster import load, object_key

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TEXTBOOK = (ROOT / "spec" / "kube" / "textbook.tla").read_text(encoding="utf-8")

CLEAN_SPEC = """\
---- MODULE textbook ----
Tolerates(Toleration, Taint) ==
  /\\ Toleration.key = Taint.key
  /\\ Toleration.Effect = Taint.Effect

Filter(Pod, Node) ==
  \\A Taint \\in Node.Spec.Taints :
    \\E Toleration \\in Pod.Spec.Tolerations : Tolerates(Toleration, Taint)
====
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# -- check -----------------------------------------------------------------------------------------


def test_check_textbook_reports_exits(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "textbook")
    assert (code, err) == (2, "")
    line_text = next(t for t in TEXTBOOK.splitlines() if '= "Exits"' in t)
    line = TEXTBOOK.splitlines().index(line_text) + 1
    col = line_text.index('"Exits"') + 1
    lines = out.splitlines()
    head = f'spec/kube/textbook.tla:{line}:{col}: SPC202 warning: "Exits" '
    i = next(i for i, t in enumerate(lines) if t.startswith(head))
    assert lines[i + 1] == f"    {line_text}"
    assert lines[i + 2] == "    " + " " * (col - 1) + "^" * len('"Exits"')
    assert re.fullmatch(r"textbook: \d+ error\(s\), \d+ warning\(s\)", lines[-1])


def test_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--json", "textbook")
    assert code == 2
    doc = json.loads(out)
    assert doc.keys() == {"diagnostics"} and doc["diagnostics"]
    for d in doc["diagnostics"]:
        assert d.keys() == {"file", "line", "col", "code", "severity", "message"}
        assert d["file"] == "spec/kube/textbook.tla"
        assert re.fullmatch(r"SPC\d{3}", d["code"]) and d["severity"] in ("error", "warning")
    assert any(d["code"] == "SPC202" and '"Exits"' in d["message"] for d in doc["diagnostics"])


def test_check_clean_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, "clean.tla", CLEAN_SPEC)
    code, out, err = run(capsys, "check", path)
    assert (code, out, err) == (0, f"{path}: 0 error(s), 0 warning(s)\n", "")
    code, out, _ = run(capsys, "check", "--json", path)
    assert (code, json.loads(out)) == (0, {"diagnostics": []})


@pytest.mark.parametrize(
    ("text", "code", "line", "col"),
    [
        ("F == (1 + 2\n", "SPC003", 1, 12),
        ("F == 1 ) 2\n", "SPC001", 1, 8),
        ("F == 1 $ 2\n", "SPC002", 1, 8),
        ("F ==\n\t1\n", "SPC004", 2, 1),
    ],
    ids=["end-of-input", "token", "character", "tab"],
)
def test_check_syntax_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, code: str, line: int, col: int
) -> None:
    path = write(tmp_path, "bad.tla", text)
    exit_code, out, _ = run(capsys, "check", path)
    assert exit_code == 2
    assert out.startswith(f"{path}:{line}:{col}: {code} error: ")


def test_check_unknown_spec(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "nosuch")
    assert (code, out) == (2, "")
    bundled = "autoscaler, kube, scheduler, textbook"
    assert err == f"schedspec check: nosuch: no such spec file (bundled specs: {bundled})\n"


# -- eval ------------------------------------------------------------------------------------------


def test_eval_prints_each_pending_pod(capsys: pytest.CaptureFixture[str]) -> None:
    example = EXAMPLES / "zonal-web.yaml"
    code, out, err = run(capsys, "eval", str(example), "--spec", "textbook")
    assert (code, err) == (0, "")
    assert out.startswith("spec textbook (spec/kube/textbook.tla): Filter decides feasibility")
    cluster = load(example)
    for pod in cluster.pending_pods():
        assert f"\n{object_key(pod)}: feasible on 0/{len(cluster.nodes)} node(s)\n" in out
    assert "FilterLifecycle: error: free variable 'False' is not bound" in out


def test_eval_json(capsys: pytest.CaptureFixture[str]) -> None:
    example = EXAMPLES / "zonal-web.yaml"
    code, out, _ = run(capsys, "eval", "--json", str(example))
    assert code == 0
    doc = json.loads(out)
    assert doc.keys() == {"spec", "filter", "score", "pods"}
    assert list(doc["pods"]) == sorted(object_key(p) for p in load(example).pending_pods())


def test_eval_one_pod_with_a_user_spec(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = write(tmp_path, "mine.tla", CLEAN_SPEC)
    example = str(EXAMPLES / "gpu-pool.yaml")
    pod = "ml/sentiment-inference-5f7d8c9b6-p42cn"  # does not tolerate the GPU nodes' taint
    code, out, _ = run(capsys, "eval", "--json", "--spec", spec, "--pod", pod, example)
    assert code == 0
    doc = json.loads(out)
    assert list(doc["pods"]) == [pod]
    assert doc["pods"][pod]["feasible"] == ["cpu-pool-m6i-1", "cpu-pool-m5-1"]


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: c
    image: busybox
    resources:
      requests:
        cpu: {cpu}
"""

# (id, manifest text, what stderr must name)
BAD_MANIFESTS = [
    ("invalid-yaml", "kind: Pod\nmetadata: {name: a\n", ["bad.yaml:", "invalid YAML"]),
    (
        "bad-quantity",
        POD.format(cpu="12xyz"),
        ["bad.yaml:11:", "Pod default/web", "spec.containers[0].resources.requests.cpu", "12xyz"],
    ),
    (
        "missing-name",
        "apiVersion: v1\nkind: Pod\nmetadata: {namespace: x}\nspec: {containers: []}\n",
        ["bad.yaml:", "Pod", "metadata.name", "is required", "must contain at least one container"],
    ),
    (
        "unknown-kind",
        "apiVersion: v1\nkind: Gizmo\nmetadata: {name: g}\n",
        ["bad.yaml:2:", "kind", 'unsupported kind "Gizmo"'],
    ),
]


@pytest.mark.parametrize(
    ("text", "named"), [c[1:] for c in BAD_MANIFESTS], ids=[c[0] for c in BAD_MANIFESTS]
)
def test_eval_bad_manifest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, named: list[str]
) -> None:
    path = write(tmp_path, "bad.yaml", text)
    code, out, err = run(capsys, "eval", path)
    assert (code, out) == (2, "")
    assert err.endswith("\n")
    assert all(line.startswith("schedspec eval: ") for line in err.splitlines()), err
    assert all(s in err for s in named), err


# Issue 23: bad input in ``status`` reached the rules and crashed them (scheduler_view reading
# ``c.get`` of a string condition, impl's DisruptionTarget handling, values.py hashing a list).
CRASHED = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
status: STATUS
"""
CRASH_SIGNATURES = [
    (
        "conditions-a-string",
        "{conditions: Ready}",
        'bad.yaml:11: Pod default/p1: status.conditions: must be a list, got "Ready"',
    ),
    (
        "condition-status-a-list",
        "{conditions: [{type: DisruptionTarget, status: [True]}]}",
        "bad.yaml:11: Pod default/p1: status.conditions[0].status: must be a string, got a list",
    ),
]


@pytest.mark.parametrize("command", ["eval", "schedule", "explain"])
@pytest.mark.parametrize(
    ("status", "message"), [c[1:] for c in CRASH_SIGNATURES], ids=[c[0] for c in CRASH_SIGNATURES]
)
def test_bad_status_is_bad_input_not_a_crash(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    status: str,
    message: str,
) -> None:
    write(tmp_path, "bad.yaml", CRASHED.replace("STATUS", status))
    monkeypatch.chdir(tmp_path)
    argv = [command, "bad.yaml", *(["--pod", "default/p1"] if command == "explain" else [])]
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (2, "", f"schedspec {command}: {message}\n")


def test_every_problem_is_reported_one_line_each(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status = "\n  phase: Done\n  startTime: yesterday"
    text = CRASHED.replace("STATUS", status).replace("cpu: 100m", "cpu: abc")
    write(tmp_path, "bad.yaml", text)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "eval", "bad.yaml")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "schedspec eval: bad.yaml:10: Pod default/p1: spec.containers[0].resources.requests.cpu: "
        'Invalid value: "abc": must be a quantity',
        'schedspec eval: bad.yaml:12: Pod default/p1: status.phase: unsupported value "Done": '
        'supported values: "Pending", "Running", "Succeeded", "Failed", "Unknown"',
        "schedspec eval: bad.yaml:13: Pod default/p1: status.startTime: "
        'Invalid value: "yesterday": must be an RFC 3339 time such as "2006-01-02T15:04:05Z"',
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "missing.yaml"], "schedspec eval: missing.yaml: cannot read: "),
        (
            ["eval", "--spec", "nosuch", str(EXAMPLES / "gpu-pool.yaml")],
            "schedspec eval: nosuch: no such spec file "
            "(bundled specs: autoscaler, kube, scheduler, textbook)",
        ),
        (
            ["eval", "--pod", "ml/nope", str(EXAMPLES / "gpu-pool.yaml")],
            "schedspec eval: no pod 'ml/nope' in the cluster (pods: ",
        ),
    ],
    ids=["missing-file", "unknown-spec", "unknown-pod"],
)
def test_eval_bad_usage(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1


def test_eval_spec_with_syntax_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = write(tmp_path, "bad.tla", "Filter(Pod, Node) == (1 + \n")
    code, out, err = run(capsys, "eval", "--spec", spec, str(EXAMPLES / "gpu-pool.yaml"))
    assert (code, out) == (2, "")
    assert re.match(rf"schedspec eval: {re.escape(spec)}:1:\d+: SPC003 error: ", err)


def test_console_script() -> None:
    script = shutil.which("schedspec") or str(Path(sys.executable).parent / "schedspec")
    assert Path(script).exists(), "the schedspec console script is not installed"
    done = subprocess.run(
        [script, "eval", "examples/gpu-pool.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    # The default spec is scheduler.tla: the training pod's node affinity asks for A10G nodes,
    # and gpu-a10g-1 has no GPU left, so only gpu-a10g-2 remains.
    assert done.stdout.startswith("spec scheduler (spec/kube/scheduler.tla): Feasible decides")
    assert "\nml/train-resnet50-mkwvp: feasible on 1/5 node(s)\n" in done.stdout
