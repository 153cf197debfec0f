"""Filter verdicts and raw scores kept on a node for the next pod of the same shape
(``impl/framework/equivalence.py``) decide exactly what fresh ones decide: runs with
``equivalence.KEEP`` on and off, through bindings, deletions, node updates, additions and
removals between cycles, bind the same pods to the same nodes and leave the same pods pending
with the same messages."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from schedspec.cluster import Cluster, loads
from schedspec.impl import scheduler as scheduler_module
from schedspec.impl.framework import equivalence
from schedspec.impl.simulate import build, result_of

SHAPES: list[dict[str, Any]] = [
    {"cpu": "500m"},
    {"cpu": "500m", "tolerate": True},  # the same requests; only the tolerations differ
    {"cpu": "1500m"},
    {"cpu": "500m", "port": 8080},  # the same requests again, with a host port
    {"cpu": "500m", "port": 9090},  # and with another one
    {"cpu": "3"},
]


def _node(i: int, rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if rng.random() < 0.3:
        spec["taints"] = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"node-{i}", "labels": {"kubernetes.io/hostname": f"node-{i}"}},
        "spec": spec,
        "status": {
            "allocatable": {
                "cpu": rng.choice(["2", "4", "6"]),
                "memory": rng.choice(["8Gi", "16Gi"]),
                "pods": "110",
            }
        },
    }


def _pod(i: int, shape: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "c",
        "image": "app:1",
        "resources": {"requests": {"cpu": shape["cpu"], "memory": "1Gi"}},
    }
    if "port" in shape:
        container["ports"] = [{"containerPort": 80, "hostPort": shape["port"]}]
    spec: dict[str, Any] = {"containers": [container]}
    if shape.get("tolerate"):
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pod-{i}"}, "spec": spec}


def _cluster(seed: int) -> Cluster:
    rng = random.Random(seed)
    docs = [_node(i, rng) for i in range(6)]
    docs += [_pod(i, rng.choice(SHAPES)) for i in range(80)]
    return loads(yaml.safe_dump_all(docs))


def _changes(seed: int) -> Iterator[tuple[str, Any]]:
    """The changes made between cycles, the same sequence for both runs."""
    rng = random.Random(seed * 7919)
    added = 6
    while True:
        kinds = ["taint", "untaint", "resize", "cordon", "delete-pod", "delete-pod", "add"]
        kind = rng.choice(kinds)
        kind = "remove" if kind == "add" and rng.random() < 0.5 else kind
        if kind == "add":
            yield kind, _node(added, rng)
            added += 1
        else:
            yield kind, rng.random()


def _apply(api: Any, change: tuple[str, Any]) -> None:
    kind, arg = change
    if kind == "add":
        api.create("Node", arg)
        return
    if kind == "delete-pod":
        bound = sorted(
            f"{p['metadata'].get('namespace', 'default')}/{p['metadata']['name']}"
            for p in api.list("Pod")
            if p["spec"].get("nodeName")
        )
        if bound:
            api.delete("Pod", bound[int(arg * len(bound))])
        return
    nodes = sorted(n["metadata"]["name"] for n in api.list("Node"))
    if not nodes:
        return
    name = nodes[int(arg * len(nodes))]
    if kind == "remove":
        api.delete("Node", name)
        return
    node = copy.deepcopy(api.get("Node", name))
    spec = node.setdefault("spec", {})
    if kind == "taint":
        spec["taints"] = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
    elif kind == "untaint":
        spec.pop("taints", None)
    elif kind == "cordon":
        spec["unschedulable"] = not spec.get("unschedulable", False)
    else:  # resize
        node["status"]["allocatable"]["cpu"] = "8" if arg < 0.5 else "1"
    api.update("Node", node)


def _run(seed: int, keep: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, int]:
    """The run's result and how many times a node went through the Filter plugins."""
    monkeypatch.setattr(equivalence, "KEEP", keep)
    filtered = 0
    run_filters = scheduler_module._run_filters

    def counting(*args: Any) -> Any:
        nonlocal filtered
        filtered += 1
        return run_filters(*args)

    monkeypatch.setattr(scheduler_module, "_run_filters", counting)
    scheduler = build(_cluster(seed), seed=seed)
    changes = _changes(seed)
    steps = 0
    loop = scheduler.loop
    while loop.next_time() is not None and steps < 4000:
        loop.run_one()
        steps += 1
        if steps % 15 == 0 and steps <= 1500:
            _apply(scheduler.apiserver, next(changes))
    return result_of(scheduler).as_json(), filtered


@pytest.mark.parametrize("seed", range(12))
def test_kept_answers_decide_as_fresh_ones(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh, filtered_fresh = _run(seed, False, monkeypatch)
    kept, filtered_kept = _run(seed, True, monkeypatch)
    assert kept == fresh
    assert fresh["bindings"] and fresh["unschedulable"]  # both outcomes were reached
    assert filtered_kept < filtered_fresh  # verdicts were kept and used


NO_NODE_UNSCHEDULABLE = {  # its signature, the tolerations too, would tell the pods apart
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"filter": {"disabled": [{"name": "NodeUnschedulable"}]}},
        }
    ],
}


@pytest.mark.parametrize("config", [None, NO_NODE_UNSCHEDULABLE], ids=["default", "no-cordon"])
def test_same_requests_other_tolerations_are_not_one_shape(
    config: dict[str, Any] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On one tainted node, a pod that tolerates the taint fits and the next one, with the same
    requests and no toleration, does not: the kept verdict of the first is not the second's."""
    docs = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "node-0"},
            "spec": {"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
        },
        _pod(0, SHAPES[1]),
        _pod(1, SHAPES[0]),
        _pod(2, SHAPES[1]),
    ]
    monkeypatch.setattr(equivalence, "KEEP", True)
    result = result_of(_ran(build(loads(yaml.safe_dump_all(docs)), config)))
    assert result.bindings == {"default/pod-0": "node-0", "default/pod-2": "node-0"}
    assert list(result.unschedulable) == ["default/pod-1"]
    assert "untolerated taint" in result.unschedulable["default/pod-1"].message


def _ran(scheduler: Any) -> Any:
    scheduler.run()
    return scheduler
