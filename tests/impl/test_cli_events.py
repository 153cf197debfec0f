"""``schedspec schedule CLUSTER --events FILE [--until D]``: scripted time, what each entry
released, when pods were bound, and bad scripts refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedspec.cli import main
from schedspec.events import format_duration, parse_duration

ROOT = Path(__file__).resolve().parents[2]
LATE = ROOT / "examples" / "scripted"
CLUSTER, EVENTS = str(LATE / "late-node.yaml"), str(LATE / "late-node.events.yaml")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(["schedule", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_the_seeds_late_node_demo(capsys: pytest.CaptureFixture[str]) -> None:
    """Pods pending on cordoned nodes; node10 joins at 30 s; NodeUnschedulable's NodeAdd hint
    requeues both, pod1 is bound on node10 then, pod2 (too big for it) stays pending."""
    out = _json(capsys, CLUSTER, "--events", EVENTS)
    assert out["bindings"] == {"default/pod1": "node10"}
    assert out["bound_at"] == {"default/pod1": 30.0}
    (event,) = out["events"]
    assert (event["at"], event["did"], event["skipped"]) == (30.0, "create Node node10", "")
    assert event["released"] == [
        {"pod": f"default/{p}", "from": "unschedulablePods", "to": "activeQ", "event": "NodeAdd"}
        for p in ("pod1", "pod2")
    ]
    pending = out["unschedulable"]["default/pod2"]
    assert pending["plugins"] == ["NodeResourcesFit", "NodeUnschedulable"]
    assert pending["message"].startswith(
        "0/11 nodes are available: 1 Insufficient cpu, 10 node(s) were unschedulable."
    )
    assert out["end"] == 90.0  # idle for 60 s after the last entry, as without a script


def test_the_demo_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schedule", CLUSTER, "--events", EVENTS]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [
        "scripted events:",
        "  at 30s     create Node node10: moved 2 pod(s)",
        "    default/pod1: unschedulablePods -> activeQ (NodeAdd)",
        "    default/pod2: unschedulablePods -> activeQ (NodeAdd)",
    ]
    assert "  default/pod1  -> node10  at 30s" in lines
    assert "1 pod(s) pending at the end:" in lines
    assert lines[-1] == "the run ended at 1m30s (virtual time)"


def test_until_runs_past_the_five_minute_flush(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "t.jsonl"
    out = _json(capsys, CLUSTER, "--events", EVENTS, "--until", "6m", "--trace", str(trace))
    assert out["end"] == 360.0
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    flushed = [r for r in records if r["type"] == "queue" and r["event"] == "UnschedulableTimeout"]
    # pod2 failed last at 30 s; the 30 s sweep at 6m is the first to see it parked over 5 min
    assert [(r["pod"], r["t"]) for r in flushed] == [("default/pod2", 360.0)]
    without = _json(capsys, CLUSTER, "--events", EVENTS)
    assert without["end"] < 300  # the default stops idle, long before


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


NODE = (
    "- {apiVersion: v1, kind: Node, metadata: {name: %s}, "
    'status: {allocatable: {cpu: "%s", memory: 8Gi, pods: "110"}}}\n'
)
POD = (
    "- {apiVersion: v1, kind: Pod, metadata: {name: %s}, spec: {%scontainers: [{name: c, "
    'image: app, resources: {requests: {cpu: "%s"}}}]}}\n'
)


def test_update_delete_and_failed_binds(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cluster = _write(
        tmp_path,
        "c.yaml",
        "apiVersion: v1\nkind: List\nitems:\n"
        + NODE % ("small", "2")
        + POD % ("hog", "nodeName: small, ", "2")
        + POD % ("web", "", "1")
        + POD % ("big", "", "3"),
    )
    events = _write(
        tmp_path,
        "e.yaml",
        "- {at: 10s, fail-binds: 1}\n"
        "- {at: 20s, delete: {kind: Pod, name: hog}}\n"
        "- at: 1m\n  update: {apiVersion: v1, kind: Node, metadata: {name: small}, "
        'status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}}\n',
    )
    out = _json(capsys, cluster, "--events", events)
    did = {e["did"]: e for e in out["events"]}
    # the bound hog leaves: AssignedPodDelete releases both pods NodeResourcesFit rejected
    released = did["delete Pod default/hog"]["released"]
    assert {(m["pod"], m["event"]) for m in released} == {
        ("default/web", "AssignedPodDelete"),
        ("default/big", "AssignedPodDelete"),
    }
    # web's first bind (at 20 s) failed; it was bound on a retry after its backoff
    assert 20.0 < out["bound_at"]["default/web"] < 60.0
    # more allocatable: NodeUpdateNodeAllocatable releases big, bound at 1m
    assert {m["event"] for m in did["update Node small"]["released"]} == {
        "NodeUpdateNodeAllocatable"
    }
    assert out["bound_at"]["default/big"] == 60.0
    assert out["unschedulable"] == {}


def test_an_entry_whose_pod_preemption_already_removed_is_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cluster = _write(
        tmp_path,
        "c.yaml",
        "apiVersion: v1\nkind: List\nitems:\n"
        + NODE % ("n", "2")
        + POD % ("low", "nodeName: n, priority: 0, ", "2")
        + POD % ("high", "priority: 1000, ", "2"),
    )
    events = _write(tmp_path, "e.yaml", "- {at: 30s, delete: {kind: Pod, name: low}}\n")
    out = _json(capsys, cluster, "--events", events)
    assert out["preempted"] == ["default/low"]
    assert out["events"][0]["skipped"] == "Pod default/low is gone already"


BAD = [
    ("- at: 30s\n  create: {apiVersion: v1, kind: Node, metadata: {name: node3}}\n",
     "e.yaml:2: events[0].create: Node node3 already exists at 30s (created by the cluster)"),
    ("- {at: 1m, fail-binds: 1}\n- {at: 30s, fail-binds: 1}\n",
     "e.yaml:2: events[1].at: entries go in time order: 30s comes after 1m"),
    ("- {at: 90, fail-binds: 1}\n",
     "e.yaml:1: events[0].at: must be a duration such as 30s or 1m30s, got 90"),
    ("- {at: 5s, delete: {kind: Pod, name: nope}}\n",
     "e.yaml:1: events[0].delete: no Pod default/nope exists at 5s"),
    ("- at: 5s\n  create:\n    apiVersion: v1\n    kind: Pod\n    metadata: {name: p}\n"
     "    spec: {containers: [{name: c, image: 3}]}\n",
     "e.yaml:6: events[0].create Pod default/p: spec.containers[0].image: must be a string"),
    ("- {at: 5s, create: {apiVersion: v1, kind: PriorityClass, metadata: {name: x}}}\n",
     'e.yaml:1: events[0].create.kind: kind "PriorityClass" is not one of Namespace, Node'),
    ("- {at: 5s, scale: 3}\n", "e.yaml:1: events[0].scale: unknown field"),
    ("- {at: 5s}\n", "e.yaml:1: events[0]: an entry does exactly one of create, update"),
    ("at: 5s\n", "an event script is one list of entries, got a mapping"),
    ("- [at, 5s\n", "e.yaml:2:1: invalid YAML"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m[-40:] for _, m in BAD])
def test_a_bad_script_exits_2_and_runs_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    events = _write(tmp_path, "e.yaml", text)
    trace = tmp_path / "t.jsonl"
    assert main(["schedule", CLUSTER, "--events", events, "--trace", str(trace)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not trace.exists()
    assert message in captured.err.replace(str(tmp_path) + "/", "")
    assert "Traceback" not in captured.err


def test_until_before_an_entry_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schedule", CLUSTER, "--events", EVENTS, "--until", "10s"]) == 2
    assert "events[0] (create Node node10) is at 30s, after --until 10s" in capsys.readouterr().err
    assert main(["schedule", CLUSTER, "--until", "soon"]) == 2
    assert '--until: "soon" is not a duration' in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("0", 0.0), ("0s", 0.0), ("30s", 30.0), ("1m30s", 90.0), ("1.5s", 1.5), ("500ms", 0.5),
     ("2h1m", 7260.0), ("1m0.25s", 60.25)],
)  # fmt: skip
def test_durations_read_and_print_back(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds
    assert parse_duration(format_duration(seconds)) == seconds


def test_every_float_time_survives_a_round_trip() -> None:
    for t in (0.1, 12.000000001, 301.5, 1e-9, 86400.25):
        assert parse_duration(format_duration(t)) == t


GATED = (
    "- {apiVersion: v1, kind: Pod, metadata: {name: gated}, spec: {schedulingGates: [{name: "
    'example.com/hold}], containers: [{name: c, image: app, resources: {requests: {cpu: "1"}}}]}}\n'
)


def _gated_update(spec: str) -> str:
    return (
        "- at: 10s\n  update: {apiVersion: v1, kind: Pod, metadata: {name: gated}, "
        f"spec: {{{spec}}}}}\n"
    )


C1 = 'containers: [{name: c, image: app, resources: {requests: {cpu: "1"}}}]'


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"priority: 0, {C1}, nodeName: n", "events[0].update.spec.nodeName: pod updates may not "
         "change fields other than"),
        (f"{C1}, schedulingGates: [{{name: example.com/hold}}, {{name: example.com/more}}]",
         "events[0].update.spec.schedulingGates: only deletion is allowed"),
        (f"{C1}, containers: [{{name: c, image: app}}, {{name: d, image: app}}]",
         "events[0].update.spec.containers: may not add or remove containers"),
    ],
    ids=["nodeName", "a gate added", "a container added"],
)  # fmt: skip
def test_a_pod_update_the_api_server_refuses_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, spec: str, message: str
) -> None:
    cluster = _write(tmp_path, "c.yaml", "apiVersion: v1\nkind: List\nitems:\n"
                     + NODE % ("n", "2") + GATED)  # fmt: skip
    spec = spec.replace(f"{C1}, containers:", "containers:")
    events = _write(tmp_path, "e.yaml", _gated_update(spec))
    assert main(["schedule", cluster, "--events", events]) == 2
    err = capsys.readouterr().err
    assert "e.yaml:2: Pod default/gated: " in err and message in err


def test_a_gate_removed_lets_the_pod_be_scheduled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cluster = _write(tmp_path, "c.yaml", "apiVersion: v1\nkind: List\nitems:\n"
                     + NODE % ("n", "2") + GATED)  # fmt: skip
    events = _write(tmp_path, "e.yaml", _gated_update(f"nodeSelector: {{a: b}}, {C1}"))
    # a gated pod may gain a node selector entry, but still matches no node: pending
    out = _json(capsys, cluster, "--events", events)
    assert "default/gated" in out["unschedulable"]
    events = _write(tmp_path, "e.yaml", _gated_update(C1))
    out = _json(capsys, cluster, "--events", events)
    assert out["bound_at"] == {"default/gated": 10.0}
    moved = out["events"][0]["released"]
    assert [(m["pod"], m["from"], m["to"]) for m in moved] == [
        ("default/gated", "unschedulablePods", "activeQ")
    ]
