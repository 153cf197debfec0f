"""Trace-validation runs made for the QueueingHints: small clusters whose pending pods each get
rejected by one hint-bearing plugin, then a short script of cluster events those plugins
register, so that every hint of ``spec/kube/hints.tla`` is asked — with answers both ways.

A run (:func:`hint_runs`) is two nodes (zone and hostname labels, maybe a NoSchedule taint,
maybe cordoned, a little cpu), at most one pod bound before the run (labelled ``app``, maybe
holding host port 8080), one or two pending pods each carrying one feature — a large cpu
request, a nodeSelector on the zone, a toleration, host port 8080, a required pod
(anti-)affinity or a DoNotSchedule spread constraint on ``app`` (keyed by zone, hostname or a
rack label no node has yet) — and up to three scripted
events at 10 s, 20 s, 30 s: a node update (:mod:`.queue_node_updates`), the bound pod deleted,
or a pod bound by someone else added. The generic campaign clusters
(``strategies.cluster_objects``) rarely reject with InterPodAffinity, PodTopologySpread or
NodePorts (1 run in 20 for the first, none for the others); these runs are about them.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from typing import Any

from hypothesis import given
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from schedspec.checker.queue_node_updates import NODE_UPDATES, RACK, update_node
from schedspec.checker.queue_trace import validate_cluster
from schedspec.cluster import from_objects
from schedspec.impl.scheduler import Scheduler

__all__ = ["FEATURES", "hint_runs", "run_hints"]

_Obj = dict[str, Any]
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
FEATURES = ("spread", "affinity", "anti-affinity", "port", "big", "zone", "toleration")
EVENTS = (*(f"node:{k}" for k in (*NODE_UPDATES, "delete")), "delete-bound", "add-bound")


def _node(i: int, taint: bool, cordoned: bool, cpu: int) -> _Obj:
    name = f"n{i}"
    spec: _Obj = {"unschedulable": cordoned}
    if taint:
        spec["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {HOST: name, ZONE: f"z{i}"}},
        "spec": spec,
        "status": {"allocatable": {"cpu": str(cpu), "memory": "8Gi", "pods": "110"}},
    }


def _pod(name: str, app: str, cpu: str, node: str = "", port: bool = False) -> _Obj:
    container: _Obj = {"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu}}}
    if port:
        container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    spec: _Obj = {"containers": [container]}
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        "spec": spec,
    }


def _term(app: str, key: str) -> _Obj:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


def _pending(name: str, feature: str, app: str, key: str) -> _Obj:
    pod = _pod(name, app, "4" if feature == "big" else "100m", port=feature == "port")
    spec = pod["spec"]
    if feature == "zone":
        spec["nodeSelector"] = {ZONE: "z1-moved"}
    elif feature == "toleration":
        spec["tolerations"] = [{"key": "other", "operator": "Exists", "effect": "NoSchedule"}]
    elif feature == "affinity":
        spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term("a", key)]}}  # fmt: skip
    elif feature == "anti-affinity":
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term("b", key)]}}  # fmt: skip
    elif feature == "spread":
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "a"}}}]  # fmt: skip
    return pod


# the plugins the generic clusters miss, thrice as often
_WEIGHTED = (*FEATURES[:4], *FEATURES[:4], *FEATURES)
_rarely = st.integers(0, 3).map(lambda i: i == 0)


@st.composite
def hint_runs(draw: st.DrawFn) -> tuple[list[_Obj], list[tuple[float, str, int]]]:
    """(the cluster's manifests, the script: (time, event, node or app index))."""
    objs = [_node(i, draw(_rarely), draw(_rarely), draw(st.integers(1, 3))) for i in range(2)]
    apps = ("a", "b")
    if draw(st.booleans()):
        port = draw(st.booleans())
        node = f"n{draw(st.integers(0, 1))}"
        objs.append(_pod("bound", draw(st.sampled_from(apps)), "500m", node, port))
    for i in range(draw(st.integers(1, 2))):
        feature = draw(st.sampled_from(_WEIGHTED))
        key = draw(st.sampled_from((ZONE, HOST, RACK)))
        objs.append(_pending(f"p{i}", feature, draw(st.sampled_from(apps)), key))
    events = draw(st.lists(st.tuples(st.sampled_from(EVENTS), st.integers(0, 1)), max_size=3))
    return objs, [(10.0 * (i + 1), e, x) for i, (e, x) in enumerate(events)]


def _action(event: str, x: int, added: list[int]) -> Callable[[Scheduler], None]:
    def act(sched: Scheduler) -> None:
        api = sched.apiserver
        if event.startswith("node:"):
            update_node(sched, x, event.removeprefix("node:"))
        elif event == "delete-bound":
            if api.get("Pod", "default/bound") is not None:
                api.delete("Pod", "default/bound")
        elif not added:  # add-bound: at most one pod added, keeping the universe small
            added.append(1)
            nodes = sorted(n["metadata"]["name"] for n in api.list("Node"))
            if nodes:
                pod = _pod("added", "ab"[x], "200m", nodes[x % len(nodes)], port=x == 0)
                api.create("Pod", copy.deepcopy(pod))

    return act


def run_hints(runs: int, seed: int = 0) -> Any:
    """``runs`` hint runs, each run and validated: a :class:`~.queue_trace_campaign.Campaign`."""
    from schedspec.checker.queue_trace_campaign import MAX_PODS, Campaign, _settings

    out = Campaign()
    started = time.monotonic()

    @_settings(runs, seed)
    @given(run=hint_runs())
    def one(run: tuple[list[_Obj], list[tuple[float, str, int]]]) -> None:
        objs, script = run
        added: list[int] = []
        actions = [(at, _action(event, x, added)) for at, event, x in script]
        report = validate_cluster(
            from_objects(objs), max_pods=MAX_PODS, idle_timeout=400, late_node_at=40,
            actions=actions,
        )  # fmt: skip
        out.add(report, lambda: json.dumps({"objects": objs, "script": script}))

    (hypothesis_seed(seed)(one) if seed else one)()
    out.seconds = time.monotonic() - started
    return out
