"""The real scheduler's answers for a three-way check: one request per cluster, sent ahead.

The three-way checker (``differential.Checker`` with an oracle) asks kube-scheduler about every
pending pod of a cluster. :class:`PodAnswers` asks once per cluster, for every pod without a node
(``Oracle.score_pods``: one scheduler answers them all), and can send that request before the
checker needs it (``send``), so the Go child works while Python checks spec and impl::

    answers = PodAnswers(oracle)
    answers.send(cluster)             # the request is on its way; nothing waits
    answers.score(cluster, "ns/pod")  # its answer for the pod (OracleRequestError as score's)
    answers.forget(cluster)           # done with the cluster

:class:`OneAhead` is the campaign's side: each cluster is checked once the next one's request is
sent. Answers and verdicts are those of one ``score`` request per pod (``bench/threeway.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from schedspec.checker.oracle import (
    Oracle,
    OracleRequestError,
    cluster_json,
    score_pods_request,
)
from schedspec.cluster import Cluster, object_key

__all__ = ["OneAhead", "PodAnswers"]

T = TypeVar("T")


@dataclass
class _Asked:
    cluster: Cluster  # held so that its id() is not reused while the request is out
    body: dict[str, Any]
    ticket: int
    pods: list[str]
    answers: dict[str, dict[str, Any]] | None = None
    refused: OracleRequestError | None = None  # the whole request refused (the cluster itself)


class PodAnswers:
    """``score`` answers of one oracle, asked per cluster for all its unbound pods at once."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle
        self._asked: dict[int, _Asked] = {}

    def send(self, cluster: Cluster) -> None:
        """Sends the cluster's request unless it is out already; its answer is read at
        :meth:`score`."""
        if id(cluster) in self._asked:
            return
        body = cluster_json(cluster)
        pods = [object_key(p) for p in cluster.pods if not p.get("spec", {}).get("nodeName")]
        ticket = self.oracle.send(score_pods_request(body, pods))
        self._asked[id(cluster)] = _Asked(cluster, body, ticket, pods)

    def score(self, cluster: Cluster, pod: str) -> dict[str, Any]:
        """The answer ``Oracle.score(cluster, pod)`` gives, or the ``OracleRequestError`` it
        raises (a pod the cluster's request did not name is asked on its own)."""
        self.send(cluster)
        asked = self._received(self._asked[id(cluster)])
        if asked.refused is not None:
            raise asked.refused
        assert asked.answers is not None
        answer = asked.answers.get(pod)
        if answer is None:
            return self.oracle.score(asked.body, pod)
        if not answer.get("ok"):
            raise OracleRequestError(f"the oracle refused the request: {answer.get('error')}")
        return answer

    def forget(self, cluster: Cluster) -> None:
        """Drops the cluster's answers (reading them first if they are still on their way)."""
        asked = self._asked.pop(id(cluster), None)
        if asked is not None:
            self._received(asked)

    def _received(self, asked: _Asked) -> _Asked:
        if asked.answers is None and asked.refused is None:
            try:
                answers = self.oracle.receive(asked.ticket)["answers"]
                asked.answers = dict(zip(asked.pods, answers, strict=True))
            except OracleRequestError as err:
                asked.refused = err
        return asked


class _Sends(Protocol):
    def send_ahead(self, cluster: Cluster) -> bool: ...


@dataclass
class OneAhead(Generic[T]):
    """Holds back each cluster until the next one's request is sent, when the checker has an
    oracle (``checker.send_ahead`` says whether it sent one); otherwise hands it back at once.
    ``push`` and ``drain`` yield the ``(cluster, tag)`` pairs to check now, in push order."""

    checker: _Sends
    _held: list[tuple[Cluster, T]] = field(default_factory=list)

    def push(self, cluster: Cluster, tag: T) -> Iterator[tuple[Cluster, T]]:
        ahead = self.checker.send_ahead(cluster)
        yield from self.drain()
        if ahead:
            self._held.append((cluster, tag))
        else:
            yield cluster, tag

    def drain(self) -> Iterator[tuple[Cluster, T]]:
        while self._held:
            yield self._held.pop(0)
