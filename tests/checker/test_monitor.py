"""``checker.monitor`` on recorded watch streams (no server): which decisions it finds, the
state it judges each against, the verdicts, and that a violation's witness reproduces with
``schedspec explain``. The real scheduler on a real API server: tests/live/test_monitor_live.py."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from schedspec.checker.minimise import to_yaml
from schedspec.checker.monitor import Monitor, sampled_scoring
from schedspec.checker.monitor_state import History
from schedspec.cli import main
from schedspec.spec.load import load_spec

Obj = dict[str, Any]
SPEC = load_spec("scheduler")
TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


def node(name: str, zone: str = "a", taints: list[Obj] | None = None, cpu: str = "4") -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "zone": zone}},
        "spec": {"taints": taints or []},
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}},
    }


def pod(name: str, cpu: str = "1", priority: int = 0, app: str = "", **spec: Any) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                     "labels": {"app": app or name}},
        "spec": {"priority": priority,
                 "schedulerName": spec.pop("schedulerName", "default-scheduler"),
                 "containers": [{"name": "c", "image": "pause",
                                 "resources": {"requests": {"cpu": cpu}}}], **spec},
        "status": {"phase": "Pending", "startTime": "2026-01-01T00:00:00Z"},
    }  # fmt: skip


def bound(p: Obj, to: str) -> Obj:
    q = copy.deepcopy(p)
    q["spec"]["nodeName"] = to
    q["status"]["conditions"] = [{"type": "PodScheduled", "status": "True"}]
    return q


def unschedulable(p: Obj, message: str = "0/1 nodes are available", nominated: str = "") -> Obj:
    q = copy.deepcopy(p)
    q["status"]["conditions"] = [{"type": "PodScheduled", "status": "False",
                                  "reason": "Unschedulable", "message": message}]  # fmt: skip
    if nominated:
        q["status"]["nominatedNodeName"] = nominated
    return q


def disrupted(p: Obj) -> Obj:
    q = copy.deepcopy(p)
    q["metadata"]["deletionTimestamp"] = "2026-01-01T00:01:00Z"
    q["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                  "reason": "PreemptionByScheduler"}]  # fmt: skip
    return q


def preempted(victim: str, preemptor: str, on: str) -> Obj:
    return {"reason": "Preempted", "note": f"Preempted by pod uid-{preemptor} on node {on}",
            "regarding": {"kind": "Pod", "namespace": "default", "name": victim},
            "related": {"kind": "Pod", "namespace": "default", "name": preemptor}}  # fmt: skip


def run(stream: list[tuple[str, Obj, bool]], window: int = 4, config: Obj | None = None) -> Monitor:
    monitor = Monitor(SPEC, config, window=window, minimise_steps=150, clock=lambda: 0.0)
    for kind, obj, deleted in stream:
        monitor.feed(kind, obj, deleted)
    monitor.flush()
    return monitor


def added(*objects: Obj) -> list[tuple[str, Obj, bool]]:
    return [(o["kind"], o, False) for o in objects]


def test_sampled_scoring_follows_num_feasible_nodes_to_find() -> None:
    assert not sampled_scoring(99, 0)
    assert not sampled_scoring(100, 0)  # 50 % of 100 is 50: the floor of 100 nodes, all
    assert sampled_scoring(199, 0)  # 49 % of 199 is 97: the first 100 feasible nodes
    assert sampled_scoring(500, 0)  # 46 % of 500 = 230 nodes
    assert sampled_scoring(5000, 0)  # 10 % of 5000
    assert not sampled_scoring(5000, 100)
    assert sampled_scoring(300, 50)


def test_history_gives_the_state_before_any_change_and_pins_override() -> None:
    h = History()
    a = pod("a")
    h.apply("Pod", "default/a", a)
    h.apply("Pod", "default/a", bound(a, "n1"))
    h.apply("Pod", "default/a", None)
    assert h.objects_at(0) == {}
    assert h.objects_at(1)[("Pod", "default/a")] == a
    assert h.objects_at(2)[("Pod", "default/a")]["spec"]["nodeName"] == "n1"
    assert h.objects_at(3) == {}
    assert h.objects_at(3, {("Pod", "default/a"): a}) == {("Pod", "default/a"): a}
    assert h.version_before(("Pod", "default/a"), 2) == bound(a, "n1")
    assert h.version_before(("Pod", "default/a"), 3) is None


def test_a_good_binding_is_judged_without_violation() -> None:
    a = pod("a")
    m = run([*added(node("n1"), node("n2", taints=[TAINT]), a), ("Pod", bound(a, "n1"), False)])
    assert m.summary.judged == {"binding": 1}
    assert m.summary.violations == []


def test_a_binding_to_a_tainted_node_is_a_violation_explain_reproduces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = pod("a"), pod("b")
    stream = [*added(node("n1", taints=[TAINT]), node("n2"), a, b),
              ("Pod", bound(b, "n2"), False), ("Pod", bound(a, "n1"), False)]  # fmt: skip
    m = run(stream)
    [v] = m.summary.violations
    assert (v.kind, v.rule, v.pod, v.node) == ("binding", "Feasible", "default/a", "n1")
    assert v.verdict == "FALSE"
    assert "TaintsOK" in v.reason
    # the witness is small, and explain shows the same verdict on it
    assert {o["kind"] for o in v.objects} == {"Node", "Pod"}
    assert len(v.objects) <= 3
    witness = tmp_path / "w.yaml"
    witness.write_text(to_yaml(list(v.objects)))
    assert main(["explain", str(witness), "--pod", "default/a"]) == 0
    out = capsys.readouterr().out
    assert "n1  ✗ TaintToleration: node(s) had untolerated taint(s)" in out


def test_a_binding_to_a_node_of_lower_score_breaks_best() -> None:
    soft = [{"key": "spot", "value": "yes", "effect": "PreferNoSchedule"}]
    a = pod("a")
    m = run([*added(node("n1", taints=soft), node("n2"), a), ("Pod", bound(a, "n1"), False)])
    [v] = m.summary.violations
    assert (v.rule, v.node) == ("Best", "n1")
    assert "the best (n2)" in v.reason


def test_best_is_not_judged_for_the_nominated_node() -> None:
    soft = [{"key": "spot", "value": "yes", "effect": "PreferNoSchedule"}]
    a = unschedulable(pod("a"), nominated="n1")
    m = run([*added(node("n1", taints=soft), node("n2"), a), ("Pod", bound(a, "n1"), False)])
    assert m.summary.violations == []
    assert m.summary.not_judged == {"binding: Best (the nominated node is taken unscored)": 1}


def test_a_binding_is_judged_against_the_states_around_it() -> None:
    """The client's binding reached the API server before its server's: the scheduler had
    assumed the server in zone a; the state with the next binding assumed explains it."""
    server = pod("server", app="db")
    term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "db"}}}
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    client = pod("client", affinity=affinity)
    stream = [*added(node("n1", "a"), node("n2", "b"), server, client),
              ("Pod", bound(client, "n1"), False), ("Pod", bound(server, "n1"), False)]  # fmt: skip
    m = run(stream, window=2)
    assert m.summary.violations == []
    assert m.summary.explained_by_window == {"binding (state +1)": 1}
    strict = run(stream, window=0)
    [v] = strict.summary.violations
    assert (v.pod, v.rule) == ("default/client", "Feasible")
    assert "InterPodAffinityOK" in v.reason
    # the server's binding lands a few changes later (pending pods created meanwhile): the
    # decision waits AHEAD × window changes, so the later binding it may assume is in
    others = [pod(f"other-{i}") for i in range(3)]
    stream = [*added(node("n1", "a"), node("n2", "b"), server, client),
              ("Pod", bound(client, "n1"), False), *added(*others),
              ("Pod", bound(server, "n1"), False)]  # fmt: skip
    m = run(stream, window=1)
    assert m.summary.violations == []
    assert m.summary.explained_by_window == {"binding (state +1)": 1}


def test_a_binding_in_a_burst_is_judged_on_a_cache_behind_and_ahead_at_once() -> None:
    """n1 emptied (y deleted) and b about to land there: the cycle that sent a to n2 had not
    seen y go and had already assumed b. Neither alone makes n2 the better node."""
    x, y = bound(pod("x", cpu="2"), "n2"), bound(pod("y", cpu="1"), "n1")
    a, b = pod("a", cpu="1"), pod("b", cpu="1500m")
    stream = [*added(node("n1"), node("n2"), x, y, a, b), ("Pod", y, True),
              ("Pod", bound(a, "n2"), False), ("Pod", bound(b, "n1"), False)]  # fmt: skip
    m = run(stream, window=2)
    assert m.summary.violations == []
    assert m.summary.explained_by_window == {"binding (state -1 and +1)": 1}
    strict = run(stream, window=0)
    [v] = strict.summary.violations
    assert (v.pod, v.rule) == ("default/a", "Best")


def test_an_unschedulable_verdict_is_judged() -> None:
    big = pod("big", cpu="8")
    m = run([*added(node("n1"), big), ("Pod", unschedulable(big), False)])
    assert (m.summary.judged, m.summary.violations) == ({"failure": 1}, [])
    small = pod("small", cpu="1")
    m = run([*added(node("n1"), small), ("Pod", unschedulable(small), False)])
    [v] = m.summary.violations
    assert (v.kind, v.rule, v.verdict) == ("failure", "FeasibleNodes", "{n1}")


def preemption_stream(*rounds: list[str], cpu: str = "2") -> list[tuple[str, Obj, bool]]:
    """4 pods of 1 CPU on a 4-CPU node, a ``cpu``-CPU preemptor; each round's victims get their
    DisruptionTarget condition together (kube-scheduler patches them in parallel), then go;
    the Preempted Events arrive after all."""
    low = {f"low-{i}": bound(pod(f"low-{i}", cpu="1"), "n1") for i in range(4)}
    high = pod("high", cpu=cpu, priority=100)
    stream = [*added(node("n1"), *low.values(), high)]
    stream.append(("Pod", unschedulable(high, nominated="n1"), False))
    for victims in rounds:
        stream += [("Pod", disrupted(low[v]), False) for v in victims]
        stream += [("Pod", disrupted(low[v]), True) for v in victims]
    # the Events come later: the broadcaster writes them asynchronously
    stream += [("Event", preempted(v, "high", "n1"), False) for vs in rounds for v in vs]
    return stream


def test_minimal_victims_are_accepted_and_a_needless_one_is_a_violation() -> None:
    m = run(preemption_stream(["low-2", "low-3"]), window=1)
    assert m.summary.judged["preemption"] == 1
    assert m.summary.violations == []
    m = run(preemption_stream(["low-1", "low-2", "low-3"]), window=1)
    [v] = [v for v in m.summary.violations if v.kind == "preemption"]
    assert v.rule == "MinimalVictims"
    assert v.victims == ("default/low-1", "default/low-2", "default/low-3")
    assert "still fits with default/low-1, default/low-2, default/low-3 left" in v.reason


def test_a_preemption_whose_events_come_late_is_judged_whole() -> None:
    """The second victim's Event comes after many other changes (the broadcaster is late):
    still one preemption, not a first one of one victim, which alone would not be enough."""
    stream = preemption_stream(["low-2", "low-3"])
    late = stream.pop()
    others = [pod(f"other-{i}") for i in range(40)]
    stream += [*added(*others), late]
    m = run(stream, window=4)
    assert (m.summary.judged["preemption"], m.summary.violations) == (1, [])


def test_a_last_victim_deleted_after_the_others_is_one_preemption() -> None:
    """v1.34's async preemption (prepareCandidateAsync, preemption.go) evicts every victim but
    the last in parallel and the last once they are gone: a victim whose DisruptionTarget comes
    after the others' deletions is still the same preemption, judged whole."""
    m = run(preemption_stream(["low-2"], ["low-3"]), window=1)
    assert m.summary.judged == {"failure": 1, "preemption": 1}
    assert m.summary.violations == []
    # three victims for 2 CPUs read as one preemption are not minimal, but the last may be a
    # second round's (the preemptor chose again once the first two were gone): each alone
    m = run(preemption_stream(["low-1", "low-2"], ["low-3"]), window=1)
    assert m.summary.violations == []
    assert m.summary.judged == {"failure": 1, "victim": 3}
    assert m.summary.not_judged == {"preemption: minimality (victims handled one by one)": 1}


def test_victims_marked_before_the_first_deletion_may_be_two_rounds() -> None:
    """low-3 was the first round's only victim; the preemptor failed again (its status patched
    once more) before the informer delivered low-3's deletion, and its second cycle took low-2.
    Both got their conditions before any deletion finished, yet together they are one too many:
    read as rounds, each alone. Without the second failure they are one preemption, and not
    minimal."""
    low = {f"low-{i}": bound(pod(f"low-{i}", cpu="1"), "n1") for i in range(4)}
    high = pod("high", cpu="1", priority=100)
    failed_again = unschedulable(high, message="0/1 nodes are available (again)", nominated="n1")

    def stream(again: bool) -> list[tuple[str, Obj, bool]]:
        s = [*added(node("n1"), *low.values(), node("n2", cpu="0"), high),
             ("Pod", unschedulable(high, nominated="n1"), False),
             ("Pod", disrupted(low["low-3"]), False),
             ("Pod", disrupted(low["low-2"]), False)]  # fmt: skip
        if again:
            s.append(("Pod", failed_again, False))
        s += [("Pod", disrupted(low[v]), True) for v in ("low-3", "low-2")]
        return s + [("Event", preempted(v, "high", "n1"), False) for v in ("low-3", "low-2")]

    m = run(stream(again=True), window=1)
    assert m.summary.violations == []
    assert m.summary.not_judged == {"preemption: minimality (victims handled one by one)": 1}
    [v] = run(stream(again=False), window=1).summary.violations
    assert (v.pod, v.rule) == ("default/high", "MinimalVictims")


def test_a_last_victim_another_preemptor_deleted_first_completes_the_set() -> None:
    """``PreemptPod`` records a victim's Preempted Event only once its own deletion succeeded:
    when another preemptor deleted the same pod first, only that one's Event names it. The
    group whose last victim no Event names is judged with that pod added."""
    low = {f"low-{i}": bound(pod(f"low-{i}", cpu="1"), "n1") for i in range(4)}
    high, other = pod("high", cpu="3", priority=100), pod("other", cpu="1", priority=50)
    # n2 comes after the low pods: no informer lag reaches back over a node's arrival
    stream = [*added(node("n1"), *low.values(), node("n2", cpu="0"), high, other),
              ("Pod", unschedulable(other, nominated="n1"), False),
              ("Pod", unschedulable(high, nominated="n1"), False)]  # fmt: skip
    stream += [("Pod", disrupted(low[v]), False) for v in ("low-3", "low-1", "low-2")]
    stream += [("Pod", disrupted(low[v]), True) for v in ("low-3", "low-1", "low-2")]
    events = [("Event", preempted("low-3", "other", "n1"), False),
              ("Event", preempted("low-1", "high", "n1"), False),
              ("Event", preempted("low-2", "high", "n1"), False)]  # fmt: skip
    m = run(stream + events, window=1)
    assert m.summary.violations == []
    assert m.summary.judged["preemption"] == 2
    assert m.summary.explained_by_window == {
        "preemption (state +0, with a last victim no Event of its own names)": 1
    }
    # without the other preemptor's Event, two victims are not enough for 3 CPUs
    m = run(stream + events[1:], window=1)
    [v] = [v for v in m.summary.violations if v.kind == "preemption"]
    assert (v.rule, v.victims) == ("ValidVictims", ("default/low-1", "default/low-2"))


def test_a_last_victim_without_an_event_completes_the_set_or_leaves_it_unjudged() -> None:
    """A victim someone else deleted first (a rollout) has no Preempted Event at all: a pod
    kube-scheduler marked DisruptionTarget on the node that no Event names may be the group's
    last victim; when adding it does not explain the group, its victims are not known."""
    stream = preemption_stream(["low-1", "low-2"], ["low-3"], cpu="3")
    dropped = [c for c in stream if c[1].get("regarding", {}).get("name") != "low-3"]
    m = run(dropped, window=1)
    assert (m.summary.judged["preemption"], m.summary.violations) == (1, [])
    assert m.summary.explained_by_window == {
        "preemption (state +0, with a last victim no Event of its own names)": 1
    }
    m = run(stream, window=1)  # with its Event, plainly one preemption
    assert (m.summary.judged["preemption"], m.summary.violations) == (1, [])
    assert m.summary.explained_by_window == {}
    # a 4-CPU preemptor: low-1, low-2 and low-3 are not enough; which preemption low-3 (and
    # whatever else) went to is not known, so the group is not judged, and says why
    stream = preemption_stream(["low-1", "low-2"], ["low-3"], cpu="4")
    dropped = [c for c in stream if c[1].get("regarding", {}).get("name") != "low-3"]
    m = run(dropped, window=1)
    assert m.summary.violations == []
    assert "preemption" not in m.summary.judged
    [key] = [k for k in m.summary.not_judged if k.startswith("preemption: victims not known")]
    assert "has no Preempted Event" in key
    m = run(stream, window=1)  # with low-3's Event: too few as one, so read as rounds
    assert m.summary.judged == {"failure": 1, "victim": 3}
    assert m.summary.not_judged == {"preemption: minimality (victims handled one by one)": 1}


def test_a_last_victim_a_rollout_deleted_before_its_turn_completes_the_set() -> None:
    """The last victim goes only once the parallel ones are gone; when a rollout deleted it in
    between, ``PreemptPod``'s patch finds it gone: no DisruptionTarget condition, no Event. A
    pod deleted from the node that way may be the group's last victim; one deleted from
    another node, or long after the parallel victims went, is not."""
    low = {f"low-{i}": bound(pod(f"low-{i}", cpu="1"), "n1") for i in range(4)}
    high = pod("high", cpu="3", priority=100)
    elsewhere = bound(pod("low-9", cpu="1"), "n2")
    # n2 comes after the low pods: no informer lag reaches back over a node's arrival

    def stream(gone: Obj, filler: int = 0) -> list[tuple[str, Obj, bool]]:
        s = [*added(node("n1"), *low.values(), elsewhere, node("n2", cpu="2"), high),
             ("Pod", unschedulable(high, nominated="n1"), False)]  # fmt: skip
        s += [("Pod", disrupted(low[v]), False) for v in ("low-1", "low-2")]
        s += [("Pod", disrupted(low[v]), True) for v in ("low-1", "low-2")]
        s += [*added(*(pod(f"other-{i}") for i in range(filler))), ("Pod", gone, True)]
        return s + [("Event", preempted(v, "high", "n1"), False) for v in ("low-1", "low-2")]

    m = run(stream(low["low-3"]), window=1)
    assert (m.summary.judged["preemption"], m.summary.violations) == (1, [])
    assert m.summary.explained_by_window == {
        "preemption (state +0, with a last victim no Event of its own names)": 1
    }
    # the same pod deleted many changes after the parallel victims: not this preemption's
    m = run(stream(low["low-3"], filler=8), window=1)
    [v] = [v for v in m.summary.violations if v.kind == "preemption"]
    assert (v.rule, v.victims) == ("ValidVictims", ("default/low-1", "default/low-2"))
    # a pod deleted from another node is no victim of a preemption on n1
    m = run(stream(elsewhere), window=1)
    [v] = [v for v in m.summary.violations if v.kind == "preemption"]
    assert v.rule == "ValidVictims"


def test_victims_another_preemption_deleted_first_may_be_several() -> None:
    """``other`` preempted low-0 and low-1 on n1; ``high``, of the same priority, came next:
    its cycle counts other's nomination, and SelectVictimsOnNode takes every lower-priority pod
    of n1, the two already terminating included — all four are its victims. other's goroutine
    deleted low-0 and low-1 first, so high's Events name only low-2 and low-3."""
    low = {f"low-{i}": bound(pod(f"low-{i}", cpu="1"), "n1") for i in range(4)}
    other, high = pod("other", cpu="2", priority=100), pod("high", cpu="2", priority=100)
    stream = [*added(node("n1"), *low.values(), node("n2", cpu="0"), other, high),
              ("Pod", unschedulable(other, nominated="n1"), False)]  # fmt: skip
    stream += [("Pod", disrupted(low[v]), False) for v in ("low-0", "low-1")]
    stream.append(("Pod", unschedulable(high, nominated="n1"), False))
    stream += [("Pod", disrupted(low[v]), False) for v in ("low-2", "low-3")]
    stream += [("Pod", disrupted(low[f"low-{i}"]), True) for i in range(4)]
    stream += [("Event", preempted(v, "other", "n1"), False) for v in ("low-0", "low-1")]
    stream += [("Event", preempted(v, "high", "n1"), False) for v in ("low-2", "low-3")]
    m = run(stream, window=1)
    assert m.summary.violations == []
    assert m.summary.judged["preemption"] == 2
    assert m.summary.explained_by_window == {
        "preemption (state +0, with victims another preemption deleted first)": 1
    }
    # without other's Events no other preemption is known to have deleted them first
    m = run(stream[:-4] + stream[-2:], window=1)
    [v] = m.summary.violations
    assert (v.pod, v.rule) == ("default/high", "ValidVictims")


def test_a_pod_assumed_whose_binding_never_landed_counts_on_its_node() -> None:
    """``ghost`` was assumed on n2 while its binding waited at the rate limiter; a preemption
    chose it there (only pods of a node's NodeInfo are victims: the DisruptionTarget condition
    on a pending pod is the evidence) and deleted it before its binding landed. ``p``'s cycle
    ran with ghost on n2, so n1 scored better — though the API server never had ghost bound.
    A pending pod deleted without that mark is no evidence of anything."""
    busy, ghost = bound(pod("busy", cpu="1"), "n1"), pod("ghost", cpu="2")
    p = pod("p", cpu="1")
    marked = copy.deepcopy(ghost)
    marked["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                       "reason": "PreemptionByScheduler"}]  # fmt: skip
    # n0 comes after the pods: no informer lag reaches back over a node's arrival
    start = [*added(node("n1"), node("n2"), busy, ghost, p, node("n0", cpu="0"))]
    stream = [*start, ("Pod", marked, False), ("Pod", marked, True), ("Pod", bound(p, "n1"), False)]
    m = run(stream, window=4)
    assert m.summary.violations == []
    [label] = m.summary.explained_by_window
    assert "with a pod assumed whose binding had not landed" in label
    # without the preemption's mark, nothing says ghost was ever on n2
    stream = [*start, ("Pod", ghost, True), ("Pod", bound(p, "n1"), False)]
    [v] = run(stream, window=4).summary.violations
    assert (v.pod, v.rule) == ("default/p", "Best")


def test_a_victim_still_pending_in_the_api_server_was_assumed_on_the_node() -> None:
    """A victim whose binding had not landed when it was preempted (the scheduler had assumed
    it on the node; its Preempted Event names the node) is a pod of that node."""
    mid, low = bound(pod("mid", cpu="2"), "n1"), pod("low", cpu="2")
    high = pod("high", cpu="4", priority=100)
    stream = [*added(node("n1"), mid, low, high),
              ("Pod", unschedulable(high, nominated="n1"), False)]  # fmt: skip
    stream += [("Pod", disrupted(v), False) for v in (mid, low)]
    stream += [("Pod", disrupted(v), True) for v in (mid, low)]
    stream += [("Event", preempted(v, "high", "n1"), False) for v in ("mid", "low")]
    m = run(stream, window=1)
    assert m.summary.judged["preemption"] == 1
    assert m.summary.violations == []


def test_victims_handled_one_by_one_are_judged_each_and_minimality_is_not() -> None:
    """Each victim disrupted and deleted before the next is disrupted, three times: not the
    parallel-then-last shape of one preemption, and the stream cannot tell one preemption
    handling its victims in turn from several rounds, so each victim is checked (lower
    priority, on the node) and minimality is counted as not judged."""
    m = run(preemption_stream(["low-1"], ["low-2"], ["low-3"]), window=1)
    assert m.summary.judged == {"failure": 1, "victim": 3}
    assert m.summary.violations == []
    assert m.summary.not_judged == {"preemption: minimality (victims handled one by one)": 1}


def test_a_victim_of_equal_priority_is_a_violation() -> None:
    stream = preemption_stream(["low-1", "low-2"])
    stream = [(k, _priority(o, 100) if o.get("metadata", {}).get("name") == "low-1" else o, d)
              for k, o, d in stream]  # fmt: skip
    m = run(stream, window=1)
    [v] = m.summary.violations
    assert (v.kind, v.rule) == ("preemption", "ValidVictims")
    assert "victims of priority ≥ the preemptor's (100): default/low-1" in v.reason


def _priority(p: Obj, value: int) -> Obj:
    q = copy.deepcopy(p)
    q["spec"]["priority"] = value
    return q


def test_bindings_by_another_scheduler_are_not_judged() -> None:
    a = pod("a", schedulerName="my-scheduler")
    m = run([*added(node("n1", taints=[TAINT]), a), ("Pod", bound(a, "n1"), False)])
    assert m.summary.judged == {}
    assert m.summary.not_judged == {"binding by my-scheduler (no such profile)": 1}


def test_the_judged_profile_comes_from_the_configuration() -> None:
    config = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
              "profiles": [{"schedulerName": "default-scheduler", "plugins": {
                  "filter": {"disabled": [{"name": "TaintToleration"}]}}}]}  # fmt: skip
    a = pod("a")
    stream = [*added(node("n1", taints=[TAINT]), a), ("Pod", bound(a, "n1"), False)]
    assert run(stream, config=config).summary.violations == []
    assert len(run(stream).summary.violations) == 1


# ---- the state the scheduler decided on: its cache, not the API server's state


def test_a_failure_is_judged_on_the_cycles_cache_deletion_unseen_binding_assumed() -> None:
    """The failure's status patch waited at the client's rate limiter: meanwhile a pod was
    deleted from n1 (the cycle's snapshot still had it) and the binding of ``filler`` to n2
    (assumed in an earlier cycle) landed. No API server state explains the verdict — n1 or n2
    had room in each — but the cache the cycle began with, after the loop's previous status
    write (``q``'s), does: n1 still full, n2 holding the assumed pod."""
    gone, other = bound(pod("gone", cpu="3"), "n1"), bound(pod("other", cpu="1"), "n2")
    urgent, q = pod("urgent", cpu="2"), pod("q", cpu="9")
    filler = pod("filler", cpu="3", nodeSelector={"zone": "b"})
    start = added(node("n1"), node("n2", "b"), gone, other, urgent, filler, q)
    tail = [("Pod", bound(filler, "n2"), False), ("Pod", unschedulable(urgent), False)]
    q_failed, gone_deleted = ("Pod", unschedulable(q), False), ("Pod", gone, True)
    m = run([*start, q_failed, gone_deleted, *tail], window=0)
    assert m.summary.judged["failure"] == 2
    assert m.summary.violations == []
    assert m.summary.explained_by_window == {"failure (state -1)": 1}
    # the deletion landed before q's status patch: the cycle began after both, so with no
    # informer lag allowed (window 0) its cache had the pod gone — a violation; one change of
    # lag (window 1) explains it again
    stream = [*start, gone_deleted, q_failed, *tail]
    [v] = run(stream, window=0).summary.violations
    assert (v.pod, v.rule, v.verdict) == ("default/urgent", "FeasibleNodes", "{n1}")
    assert run(stream, window=1).summary.violations == []


def test_the_window_counts_changes_the_scheduler_caches() -> None:
    """Pending pods created (and conditions written) between the scheduler's snapshot and its
    verdict change nothing it caches: one cache change of informer lag, window 1."""
    gone, urgent = bound(pod("gone", cpu="3"), "n1"), pod("urgent", cpu="2")
    created = [pod(f"new-{i}") for i in range(10)]
    stream = [*added(node("n1"), gone, urgent), ("Pod", gone, True), *added(*created),
              ("Pod", unschedulable(urgent), False)]  # fmt: skip
    m = run(stream, window=1)
    assert m.summary.violations == []
    assert m.summary.explained_by_window == {"failure (state -1)": 1}
    [v] = run(stream, window=0).summary.violations
    assert v.rule == "FeasibleNodes"


def test_a_preemption_is_judged_from_the_preemptors_nomination_on_the_cycles_cache() -> None:
    """The cycle that nominated n1 chose low-2 and low-3 while ``gone`` was still on n1 (it
    was deleted after the loop's previous status write, before the nomination landed): two
    victims were needed then, one would do in the API server's state at the nomination."""
    gone = bound(pod("gone", cpu="1"), "n1")
    low = {f"low-{i}": bound(pod(f"low-{i}", cpu="1"), "n1") for i in range(4)}
    high, q = pod("high", cpu="2", priority=100), pod("q", cpu="9")
    others = [pod(f"other-{i}") for i in range(5)]
    q_failed, gone_deleted = ("Pod", unschedulable(q), False), ("Pod", gone, True)
    victims = ("low-2", "low-3")
    tail = [*added(*others), ("Pod", unschedulable(high, nominated="n1"), False)]
    tail += [("Pod", disrupted(low[v]), False) for v in victims]
    tail += [("Pod", disrupted(low[v]), True) for v in victims]
    tail += [("Event", preempted(v, "high", "n1"), False) for v in victims]
    start = added(node("n1", cpu="5"), gone, *low.values(), high, q)
    m = run([*start, q_failed, gone_deleted, *tail], window=1)
    assert m.summary.judged["preemption"] == 1
    assert m.summary.violations == []
    # the loop's previous status patch after the deletion: the cycle saw n1 with one CPU
    # free, and two victims are one too many
    [v] = run([*start, gone_deleted, q_failed, *tail], window=0).summary.violations
    assert (v.kind, v.rule) == ("preemption", "MinimalVictims")


def test_a_binding_chosen_before_a_nomination_landed_is_judged_without_it() -> None:
    """``low`` was assumed on n1 and its binding waited at the rate limiter; meanwhile the loop
    failed ``high``, nominated n1 (its status patch landed first) and preempted there. In the
    API server's state before the binding, high's nomination reserves n1's room — but the
    cycle that chose n1 for ``low`` ran before the loop recorded it. A binding to a node whose
    room a nomination held all along stays a violation."""
    low, high = pod("low", cpu="1"), pod("high", cpu="3500m", priority=100)
    start = added(node("n1"), low, high)
    nominated = ("Pod", unschedulable(high, nominated="n1"), False)
    m = run([*start, nominated, ("Pod", bound(low, "n1"), False)], window=4)
    assert m.summary.violations == []
    assert m.summary.explained_by_window == {
        "failure (state +1)": 1,  # high's cycle had low assumed on n1
        "binding (state +0, before a nomination)": 1,
    }
    # high's preemption chose low on n1 (the cache held it assumed there) and patched its
    # DisruptionTarget condition before low's binding landed: a change of low's, but after
    # the cycle that bound it, so the cycle still ran before the nomination
    marked = copy.deepcopy(low)
    marked["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                       "reason": "PreemptionByScheduler"}]  # fmt: skip
    stream = [*start, nominated, ("Pod", marked, False), ("Pod", bound(marked, "n1"), False)]
    m = run(stream, window=4)
    assert m.summary.violations == []
    assert m.summary.explained_by_window["binding (state +0, before a nomination)"] == 1
    # the nomination landed before low was even created: no cycle of low's ran without it
    late = pod("late", cpu="1")
    stream = [*start, ("Pod", bound(low, "n1"), False), nominated, *added(late),
              ("Pod", bound(late, "n1"), False)]  # fmt: skip
    [v] = run(stream, window=4).summary.violations
    assert (v.pod, v.rule) == ("default/late", "Feasible")
