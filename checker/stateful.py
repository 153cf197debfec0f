"""Stateful tests of the operational scheduler: a Hypothesis ``RuleBasedStateMachine``.

The machine owns an API server, an event loop and a ``Scheduler`` watching them, and drives them
with rules a cluster lives through: nodes come and go, pods are created (pending, or bound by
someone else) and deleted, virtual time passes, and the API server's fault hooks fire (binds that
fail, a status patch that conflicts, an object deleted at a later time). After every step the
loop is run up to *now* (every event delivered, every binding cycle begun at this instant
finished), and three invariants must hold:

``pod conservation``
    every pod ever created is exactly one of: deleted (gone from the API server and from the
    scheduler), bound (``spec.nodeName`` set, in the cache, not queued), or pending and held by
    the scheduler in exactly one place (activeQ, backoffQ, unschedulablePods, or in flight).
``cache = store``
    once bindings settle (no pod waiting at Permit), the cache holds exactly the API server's
    bound, non-terminal pods, on the same nodes, none still assumed: every assumed pod was
    confirmed by its bind event or forgotten.
``no over-commit``
    on every node, the requests of its bound non-terminal pods fit its allocatable: cpu, memory,
    every extended resource, and the pod count. The requests are the machine's own record of
    what it asked for, not impl's arithmetic, so a wrong ``pod_requests`` cannot hide itself.

Pods bound by "someone else" are only created where they fit (as kubelet admission would refuse
the rest), counting the pods the scheduler has assumed there, so an over-commit is always the
scheduler's.

Subclass to test a variant: set ``registry`` (a plugin registry, e.g. with your plugin) or
``config`` (a KubeSchedulerConfiguration dict); ``SchedulerMachine.TestCase`` is the unittest
case Hypothesis builds, with ``settings`` as usual::

    class MyMachine(SchedulerMachine):
        registry = my_registry()

    TestMyMachine = MyMachine.TestCase
    TestMyMachine.settings = settings(max_examples=50, stateful_step_count=30)

upstream: the invariants restate pkg/scheduler/backend/cache/cache.go (assumed pods are confirmed
or expire), backend/queue/scheduling_queue.go (a pod is in one sub-queue) and the kubelet's
admission (noderesources fit), which kube-scheduler's own integration tests check the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    rule,
)

from schedspec.cluster import from_objects
from schedspec.impl.apiserver import APIServer, ConflictOnce, FailBinds
from schedspec.impl.framework.registry import Registry
from schedspec.impl.loop import EventLoop
from schedspec.impl.queue import ACTIVE_Q, BACKOFF_Q, IN_FLIGHT, UNSCHEDULABLE_PODS
from schedspec.impl.scheduler import Scheduler

__all__ = ["EXTENDED", "InvariantViolation", "SchedulerMachine"]

EXTENDED = "example.com/gpu"
"""The extended resource some nodes offer and some pods request."""

_QUEUED = (ACTIVE_Q, BACKOFF_Q, UNSCHEDULABLE_PODS, IN_FLIGHT)
_RESOURCES = ("cpu", "memory", EXTENDED)

# Requests in the units the machine sums: millicores, MiB, devices; tight on purpose, so pods
# collide on every resource.
_CPU = st.sampled_from([0, 250, 500, 1000, 1500])
_MEMORY = st.sampled_from([0, 256, 512, 1024])
_DEVICES = st.sampled_from([0, 0, 1, 2])


class InvariantViolation(AssertionError):
    """An invariant of the module docstring failed; the message names it and the object."""


def _node_manifest(name: str, cpu: int, memory: int, devices: int, pods: int) -> dict[str, Any]:
    allocatable = {"cpu": f"{cpu}m", "memory": f"{memory}Mi", "pods": str(pods)}
    if devices:
        allocatable[EXTENDED] = str(devices)
    labels = {"kubernetes.io/hostname": name}
    meta = {"name": name, "labels": labels}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta,
        "status": {"allocatable": allocatable},
    }


def _pod_manifest(
    name: str, requests: Mapping[str, int], priority: int, node: str
) -> dict[str, Any]:
    wanted = {"cpu": f"{requests['cpu']}m", "memory": f"{requests['memory']}Mi"}
    if requests[EXTENDED]:
        wanted[EXTENDED] = str(requests[EXTENDED])
    container = {"name": "c", "image": "app:1", "resources": {"requests": wanted}}
    spec: dict[str, Any] = {"containers": [container], "priority": priority}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


class SchedulerMachine(RuleBasedStateMachine):
    """The scheduler under nodes and pods that come and go, time, and API faults."""

    registry: ClassVar[Registry | None] = None
    config: ClassVar[Mapping[str, Any] | None] = None

    nodes = Bundle("nodes")
    pods = Bundle("pods")

    def __init__(self) -> None:
        super().__init__()
        self.loop = EventLoop()
        self.binds = FailBinds(0)
        self.api = APIServer(self.loop, bind_fault=self.binds)
        self.scheduler = Scheduler(self.api, self.loop, self.config, self.registry, seed=0)
        self.created: dict[str, str] = {}  # pod key -> uid, every pod ever created
        self.requests: dict[str, dict[str, int]] = {}  # pod key -> what the machine asked for
        self.allocatable: dict[str, dict[str, int]] = {}  # node name -> what it offers
        self._names = 0

    def _name(self, prefix: str) -> str:
        self._names += 1  # never reused: a node's old pods must not land on a new namesake
        return f"{prefix}{self._names}"

    def _settle(self) -> None:
        """Deliver every event and finish everything due at this instant."""
        self.loop.run(until=self.loop.now())

    def _create(self, kind: str, manifest: dict[str, Any]) -> dict[str, Any]:
        """Validate and default ``manifest`` as a loaded cluster would, then create it."""
        loaded = from_objects([manifest])
        obj = loaded.pods[0] if kind == "Pod" else loaded.nodes[0]
        self.api.create(kind, obj)
        return obj

    # ------------------------------------------------------------------ rules: the cluster

    @initialize(
        target=nodes, cpu=st.sampled_from([1000, 2000]), memory=st.sampled_from([1024, 2048])
    )
    def first_node(self, cpu: int, memory: int) -> str:
        return self._add_node(cpu, memory, 1, 4)

    @rule(target=nodes, cpu=st.sampled_from([500, 1000, 2000]), memory=st.sampled_from([512, 2048]),
          devices=st.sampled_from([0, 1, 2]), pods=st.sampled_from([1, 2, 4]))  # fmt: skip
    def add_node(self, cpu: int, memory: int, devices: int, pods: int) -> str:
        return self._add_node(cpu, memory, devices, pods)

    def _add_node(self, cpu: int, memory: int, devices: int, pods: int) -> str:
        name = self._name("node-")
        self._create("Node", _node_manifest(name, cpu, memory, devices, pods))
        self.allocatable[name] = {"cpu": cpu, "memory": memory, EXTENDED: devices, "pods": pods}
        self._settle()
        return name

    @rule(name=consumes(nodes))
    def remove_node(self, name: str) -> None:
        if self.api.get("Node", name) is not None:
            self.api.delete("Node", name)
        self._settle()

    @rule(
        target=pods,
        cpu=_CPU,
        memory=_MEMORY,
        devices=_DEVICES,
        priority=st.sampled_from([0, 10, 100]),
    )
    def add_pending_pod(self, cpu: int, memory: int, devices: int, priority: int) -> str:
        return self._add_pod({"cpu": cpu, "memory": memory, EXTENDED: devices}, priority, "")

    @rule(target=pods, node=nodes, cpu=_CPU, memory=_MEMORY, devices=_DEVICES)
    def add_bound_pod(self, node: str, cpu: int, memory: int, devices: int) -> str:
        """A pod bound by someone else: only where it fits (kubelet admission)."""
        requests = {"cpu": cpu, "memory": memory, EXTENDED: devices}
        if self.api.get("Node", node) is None or not self._fits(node, requests):
            return self._add_pod(requests, 0, "")
        return self._add_pod(requests, 0, node)

    def _add_pod(self, requests: dict[str, int], priority: int, node: str) -> str:
        name = self._name("pod-")
        obj = self._create("Pod", _pod_manifest(name, requests, priority, node))
        key = f"default/{name}"
        self.created[key], self.requests[key] = obj["metadata"]["uid"], requests
        self._settle()
        return key

    @rule(key=consumes(pods))
    def remove_pod(self, key: str) -> None:
        if self.api.get("Pod", key) is not None:
            self.api.delete("Pod", key)
        self._settle()

    # ------------------------------------------------------------------ rules: time and faults

    @rule(seconds=st.sampled_from([0.5, 1.0, 5.0, 30.0, 120.0]))
    def run_for(self, seconds: float) -> None:
        """Let virtual time pass: backoffs expire, unschedulable pods are flushed and retried."""
        self.loop.run(until=self.loop.now() + seconds)

    @rule(times=st.integers(1, 3))
    def fail_next_binds(self, times: int) -> None:
        """FailBinds: the next ``times`` binds answer InternalError."""
        self.binds.remaining = times

    @rule()
    def conflict_next_status_patch(self) -> None:
        """ConflictOnce: the next status patch (PodScheduled, nominatedNodeName) conflicts."""
        self.api.patch_fault = ConflictOnce()

    @rule(key=pods, delay=st.sampled_from([0.0, 0.5, 2.0]))
    def delete_pod_later(self, key: str, delay: float) -> None:
        """``delete_at``: the pod goes at a later virtual time, whatever it is doing then."""
        self.api.delete_at(self.loop.now() + delay, "Pod", key)

    @rule(name=nodes, delay=st.sampled_from([0.0, 0.5, 2.0]))
    def delete_node_later(self, name: str, delay: float) -> None:
        self.api.delete_at(self.loop.now() + delay, "Node", name)

    # ------------------------------------------------------------------ invariants

    @invariant()
    def pod_conservation(self) -> None:
        s = self.scheduler
        for key, uid in self.created.items():
            obj = self.api.get("Pod", key)
            queued = s.queue.where(uid)
            known = s.cache.get_pod(uid)
            if obj is None:
                places = [queued] if queued else []
                places += ["cache"] * (known is not None) + ["pending"] * (uid in s._queued)
                _require(not places, f"pod {key} was deleted but the scheduler holds it: {places}")
            elif obj["spec"].get("nodeName"):
                _require(known is not None, f"pod {key} is bound but not in the cache")
                held = queued == "" and uid not in s._queued
                _require(held, f"pod {key} is bound and still queued ({queued or 'pending'})")
            else:
                waiting = uid in s.handle.waiting_pods
                assumed = known is not None and s.cache.is_assumed(known)
                _require(uid in s._queued, f"pod {key} is pending but the scheduler lost it")
                held = queued in _QUEUED or assumed or waiting
                _require(held, f"pod {key} is pending but in no queue, not assumed, not waiting")
                _require(known is None or assumed, f"pod {key} is pending yet counted on a node")

    @invariant()
    def cache_matches_store(self) -> None:
        s = self.scheduler
        if s.handle.waiting_pods:
            return  # a binding is still in progress: the cache may be ahead of the store
        bound = {
            obj["metadata"]["uid"]: (object_key(obj), obj["spec"]["nodeName"])
            for obj in self.api.list("Pod")
            if obj["spec"].get("nodeName") and not _terminal(obj)
        }
        for uid, (key, node) in bound.items():
            pod = s.cache.get_pod(uid)
            _require(pod is not None, f"pod {key} is bound to {node} but not in the cache")
            assert pod is not None
            _require(
                pod.node_name == node, f"pod {key} is on {node}, the cache has {pod.node_name}"
            )
            _require(not s.cache.is_assumed(pod), f"pod {key} is bound yet still assumed")
        _require(
            s.cache.pod_count() == len(bound),
            f"the cache holds {s.cache.pod_count()} pods, the store {len(bound)} bound ones: "
            "an assumed pod was neither confirmed nor forgotten",
        )

    @invariant()
    def no_node_overcommitted(self) -> None:
        for name, offer in self.allocatable.items():
            if self.api.get("Node", name) is None:
                continue
            used = self._used(name)
            for resource in (*_RESOURCES, "pods"):
                _require(
                    used[resource] <= offer[resource],
                    f"node {name} is over-committed on {resource}: {used[resource]} requested by "
                    f"its pods, {offer[resource]} allocatable",
                )

    # ------------------------------------------------------------------ helpers

    def _used(self, node: str, *, assumed: bool = False) -> dict[str, int]:
        """What the bound pods on ``node`` request (and the scheduler's assumed ones)."""
        keys = {
            object_key(obj)
            for obj in self.api.list("Pod")
            if obj["spec"].get("nodeName") == node and not _terminal(obj)
        }
        if assumed:
            keys |= {
                key
                for key, uid in self.created.items()
                if (p := self.scheduler.cache.get_pod(uid)) is not None and p.node_name == node
            }
        used = dict.fromkeys((*_RESOURCES, "pods"), 0)
        for key in keys:
            for resource in _RESOURCES:
                used[resource] += self.requests[key][resource]
            used["pods"] += 1
        return used

    def _fits(self, node: str, requests: Mapping[str, int]) -> bool:
        used, offer = self._used(node, assumed=True), self.allocatable[node]
        if used["pods"] + 1 > offer["pods"]:
            return False
        return all(used[r] + requests[r] <= offer[r] for r in _RESOURCES)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InvariantViolation(message)


def _terminal(obj: Mapping[str, Any]) -> bool:
    return (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def object_key(obj: Mapping[str, Any]) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', 'default')}/{meta['name']}"
