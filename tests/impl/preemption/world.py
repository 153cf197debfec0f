"""A small cluster for preemption and two-pass tests: API objects, cache, snapshot, nominator and
the default profile's framework, without the scheduler loop (``World``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

from schedspec.impl.api import Pod, node_from_dict, pod_from_dict
from schedspec.impl.apiserver import APIServer
from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.framework.config import parse_config
from schedspec.impl.framework.cycle_state import CycleState
from schedspec.impl.framework.interface import PostFilterResult
from schedspec.impl.framework.nominator import Nominator
from schedspec.impl.framework.runtime import Framework, FrameworkHandle
from schedspec.impl.framework.status import Status
from schedspec.impl.framework.types import Diagnosis, PodInfo
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins import in_tree_registry
from schedspec.impl.plugins.default_preemption import DefaultPreemption
from schedspec.impl.preemption import pdb_from_dict

Obj = dict[str, Any]


def node(name: str, cpu: str = "4", labels: Mapping[str, str] | None = None) -> Obj:
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"}},
    }


def pod(
    name: str,
    cpu: str = "1",
    priority: int = 0,
    node: str = "",
    labels: Mapping[str, str] | None = None,
    start: str | None = None,
    spec: Mapping[str, Any] | None = None,
    status: Mapping[str, Any] | None = None,
    ns: str = "default",
    **meta: Any,
) -> Obj:
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}
    body: Obj = {"containers": [container], "priority": priority, **(spec or {})}
    if node:
        body["nodeName"] = node
    st: Obj = {**(status or {})}
    if start:
        st["startTime"] = start
    uid = f"uid-{ns}-{name}"
    metadata = {"name": name, "namespace": ns, "uid": uid, "labels": dict(labels or {}), **meta}
    return {"metadata": metadata, "spec": body, "status": st}


def pdb(name: str, labels: Mapping[str, str], allowed: int, ns: str = "default") -> Obj:
    return {
        "metadata": {"name": name, "namespace": ns},
        "spec": {"selector": {"matchLabels": dict(labels)}},
        "status": {"disruptionsAllowed": allowed},
    }


def anti_affinity(labels: Mapping[str, str], key: str = "kubernetes.io/hostname") -> Obj:
    term = {"labelSelector": {"matchLabels": dict(labels)}, "topologyKey": key}
    return {
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    }


def affinity(labels: Mapping[str, str], key: str = "kubernetes.io/hostname") -> Obj:
    term = {"labelSelector": {"matchLabels": dict(labels)}, "topologyKey": key}
    return {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}


class World:
    def __init__(
        self, nodes: Sequence[Obj], pods: Sequence[Obj] = (), pdbs: Sequence[Obj] = ()
    ) -> None:
        self.loop = EventLoop()
        self.api = APIServer(self.loop)
        self.cache, self.snapshot = Cache(), Snapshot()
        for n in nodes:
            self.api.create("Node", n)
            self.cache.add_node(node_from_dict(n))
        for p in pods:
            self.api.create("Pod", p)
            if p["spec"].get("nodeName"):
                self.cache.add_pod(pod_from_dict(p))
        for b in pdbs:
            self.api.create("PodDisruptionBudget", b)
        self.cache.update_snapshot(self.snapshot)
        self.nominator = Nominator()
        self.handle = FrameworkHandle(
            self.snapshot, self.loop, self.api, dict, self.nominator, Random(0)
        )
        profile = parse_config(None).profiles[0]
        self.fwk = Framework(profile, in_tree_registry(), self.handle)
        plugin = self.fwk.plugins["DefaultPreemption"]
        assert isinstance(plugin, DefaultPreemption)
        self.preemption = plugin

    def pod(self, name: str, ns: str = "default") -> Pod:
        obj = self.api.get("Pod", f"{ns}/{name}")
        assert obj is not None
        return pod_from_dict(obj)

    def nominate(self, name: str, node_name: str) -> None:
        self.nominator.add_nominated_pod(PodInfo(self.pod(name)), node_name)

    def pre_filter(self, p: Pod) -> CycleState:
        state = CycleState()
        _, status, _ = self.fwk.run_pre_filter_plugins(state, p, self.snapshot.list())
        assert status is None, status
        return state

    def filter(self, p: Pod, node_name: str) -> Status | None:
        """The two-pass filter of ``p`` on one node."""
        ni = self.snapshot.get(node_name)
        assert ni is not None
        return self.fwk.run_filter_plugins_with_nominated_pods(self.pre_filter(p), p, ni)

    def victims(self, p: Pod, node_name: str) -> tuple[list[str], int, Status | None]:
        ni = self.snapshot.get(node_name)
        assert ni is not None
        state = self.pre_filter(p)
        pdbs = [pdb_from_dict(o) for o in self.api.list("PodDisruptionBudget")]
        victims, violations, status = self.preemption.select_victims_on_node(
            state, p, ni.clone(), pdbs
        )
        return [v.name for v in victims], violations, status

    def preempt(self, name: str) -> tuple[PostFilterResult | None, Status | None]:
        """One scheduling cycle's Filter over every node, then PostFilter (synchronous)."""
        p = self.pod(name)
        state = self.pre_filter(p)
        diagnosis = Diagnosis()
        for ni in self.snapshot.list():
            status = self.fwk.run_filter_plugins_with_nominated_pods(state, p, ni)
            assert status is not None, f"{name} fits on {ni.name}: nothing to preempt"
            diagnosis.node_to_status[ni.name] = status
        self.preemption.evaluator.async_preemption = False
        return self.fwk.run_post_filter_plugins(state, p, diagnosis)
