"""The bridge's batched and pipelined requests: ``score`` with ``"pods"`` (one scheduler for every
pod of a cluster) answers each pod as a request for that pod alone does, and requests sent ahead
of their answers are answered in order (``Oracle.send``/``receive``, ``PodAnswers``,
``OneAhead``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from oracle_builders import cluster, node, pod

from schedspec.checker.differential import Checker
from schedspec.checker.oracle import Oracle, OracleRequestError, cluster_json
from schedspec.checker.oracle_answers import OneAhead, PodAnswers
from schedspec.cluster import load, object_key

pytestmark = pytest.mark.oracle

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_one_request_answers_each_pod_as_its_own_request(oracle: Oracle, example: Path) -> None:
    c = load(example)
    body = cluster_json(c)
    pods = [object_key(p) for p in c.pods if not p.get("spec", {}).get("nodeName")]
    if not pods:
        pytest.skip("no pending pod")
    batched = oracle.score_pods(body, pods)
    assert len(batched) == len(pods)
    for key, answer in zip(pods, batched, strict=True):
        alone = oracle.score(body, key)
        assert answer == alone, key


def test_a_bad_pod_in_the_list_fails_alone(oracle: Oracle) -> None:
    c = cluster(node("n"), pod("a"), pod("b"))
    answers = oracle.score_pods(c, ["default/a", "default/ghost", "default/b"])
    assert [a["ok"] for a in answers] == [True, False, True]
    assert "no Pod default/ghost" in answers[1]["error"]
    assert answers[0]["feasible"] == answers[2]["feasible"] == ["n"]


def test_pod_and_pods_together_are_refused(oracle: Oracle) -> None:
    body = {
        "op": "score",
        "cluster": cluster_json(cluster(node("n"), pod("a"))),
        "pod": "default/a",
    }
    with pytest.raises(OracleRequestError, match='give "pod" or "pods", not both'):
        oracle.request({**body, "pods": ["default/a"]})


def test_requests_sent_ahead_are_answered_in_order(oracle: Oracle) -> None:
    small, big = cluster(node("n", cpu="1"), pod("p", cpu="2")), cluster(node("n"), pod("p"))
    tickets = [oracle.send({"op": "filter", "cluster": cluster_json(c), "pod": "default/p"})
               for c in (small, big, small)]  # fmt: skip
    version = oracle.send({"op": "version"})
    # taken out of order: the answers read on the way are kept for their tickets
    assert oracle.receive(version)["kubernetes"] == "v1.34.2"
    assert oracle.receive(tickets[1])["feasible"] == ["n"]
    assert oracle.receive(tickets[0])["feasible"] == []
    assert oracle.receive(tickets[2])["feasible"] == []
    with pytest.raises(ValueError, match="names no request"):
        oracle.receive(tickets[2])


def test_pod_answers_sent_ahead_give_the_checker_the_same_reports(oracle: Oracle) -> None:
    """A short three-way pass over the bundled examples: the checker with its answers sent one
    cluster ahead reports what it reports cluster by cluster."""
    clusters = [load(p) for p in EXAMPLES]
    checker = Checker(oracle=oracle)
    assert isinstance(checker.answers, PodAnswers)
    in_turn = [checker.check(c) for c in clusters]
    ahead: OneAhead[int] = OneAhead(checker)
    order, sent_ahead = [], []
    for i, c in enumerate(clusters):
        for held, tag in ahead.push(c, i):
            order.append(tag)
            sent_ahead.append(checker.check(held))
    for held, tag in ahead.drain():
        order.append(tag)
        sent_ahead.append(checker.check(held))
    assert order == list(range(len(clusters)))
    for a, b in zip(in_turn, sent_ahead, strict=True):
        assert a.checked == b.checked
        assert a.agreement == b.agreement
        assert [d.describe() for d in a.disagreements] == [d.describe() for d in b.disagreements]
    assert sum(r.checked["Admitted"] for r in in_turn) > 0  # the real scheduler was asked
