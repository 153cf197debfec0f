"""A fair throughput race: the real kube-scheduler v1.34.2 in its production mode against impl.

The workloads are upstream scheduler_perf's (``test/integration/scheduler_perf`` of
k8s.io/kubernetes v1.34.2: ``misc``, ``affinity`` and ``topology_spreading``'s
``performance-config.yaml`` and ``templates/``), with their templates' requests, affinity and
spread, and their ``500Nodes`` / ``5000Nodes`` parameters (``PreemptionBasic`` has a ``1000Nodes``
case only: 4 low-priority pods per node, 1 high-priority pod per node, kept at that ratio):

- SchedulingBasic: 500 / 1000 init pods (pod-default: 100m, 500Mi), 1000 / 1000 measured;
- SchedulingPodAntiAffinity: 100 / 1000 init pods in sched-0, 400 / 1000 measured in sched-1,
  each with a required anti-affinity to color=green on the hostname (both namespaces);
- SchedulingPodAffinity: every node in zone1; 500 / 5000 init pods in sched-0, 1000 / 1000
  measured in sched-1, each with a required affinity to color=blue on the zone;
- TopologySpreading: zones moon-1..3; 1000 / 5000 init pods (pod-default), 1000 / 2000
  measured with maxSkew 5 on the zone, DoNotSchedule;
- PreemptionBasic: 4 init pods per node (900m, priority 0), 1 measured pod per node (3 CPU,
  PriorityClass high = 10): each preempts 3 pods.

Nodes are upstream's ``node-default`` (4 CPU, 32 GiB, 110 pods, Ready) with the
``kubernetes.io/hostname`` label scheduler_perf's node preparer adds. Init pods are created bound
(``spec.nodeName``, round robin over the nodes): the state the measured pods meet is the same for
both schedulers, and neither spends measured time on it.

**Real.** A fresh ``LiveCluster`` (etcd + kube-apiserver v1.34.2 on loopback) per workload; the
namespaces, their ``default`` ServiceAccounts, PriorityClass ``high``, the nodes (then the
``not-ready`` taint removed, as the node lifecycle controller would for a Ready node), the init
pods and the measured pods are created through the API *with no scheduler running*. Then a watch
on pods starts, the real ``kube-scheduler`` binary starts (default profile: parallelism 16,
asynchronous binding, adaptive ``percentageOfNodesToScore``; leader election off) and the watch
on bound pods stamps each measured pod when its binding arrives. The clock starts at the first
thing the scheduler does that the watch sees: the first binding, or in PreemptionBasic the first
victim's deletion (which comes a whole preemption cycle before the first binding). The figure is
the bindings after that over the time to the last one: the scheduler's start-up and informer sync
are outside it, as creation is. ``--client-qps`` sets the scheduler's
``clientConnection.qps``/``burst``: 5000 by default, as scheduler_perf runs it (``util.go``:
``cfg.QPS = 5000``); ``--client-qps 0`` leaves kube-scheduler's own defaults (qps 50, burst
100), which cap a production scheduler's bindings.

**Impl.** The same objects through ``schedspec.cluster.from_objects`` and
``schedspec.impl.simulate.build``; the initial watch events are delivered, then
``Scheduler.run()`` (every cycle and every asynchronous binding to its API server) is timed:
``bound / elapsed``. Both in the same run, one after the other, on the same machine.

    python3 bench/race.py                          # all five workloads at 500 nodes
    python3 bench/race.py --nodes 5000             # at 5000 nodes
    python3 bench/race.py --only SchedulingBasic --nodes 500 5000 --pods 200
    python3 bench/race.py --impl-only              # no control plane (impl's figure alone)
    python3 bench/race.py --impl-only --profile --only SchedulingBasic   # where impl's time goes
"""

from __future__ import annotations

import argparse
import cProfile
import http.client
import json
import os
import pstats
import re
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from schedspec.cluster import from_objects
from schedspec.impl.scheduler import num_feasible_nodes_to_find
from schedspec.impl.simulate import build, result_of

PAUSE = "registry.k8s.io/pause:3.10.1"
SCHED_NS = ("sched-0", "sched-1")

# ----------------------------------------------------------------------- workloads (builders)


@dataclass(frozen=True)
class Workload:
    """The objects of one run, in creation order, and the measured pods (``ns/name``)."""

    name: str
    nodes: int
    objects: list[dict[str, Any]]
    measured: frozenset[str]

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == kind]


def node(name: str, zone: str | None = None) -> dict[str, Any]:
    """scheduler_perf's ``node-default`` template, with the hostname (and zone) label."""
    labels = {"kubernetes.io/hostname": name}
    if zone is not None:
        labels["topology.kubernetes.io/zone"] = zone
    resources = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    status = {
        "capacity": resources,
        "allocatable": resources,
        "conditions": [{"type": "Ready", "status": "True"}],
        "phase": "Running",
    }
    meta = {"name": name, "labels": labels}
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": {}, "status": status}


def pod(
    name: str,
    namespace: str = "default",
    *,
    cpu: str = "100m",
    labels: dict[str, str] | None = None,
    node_name: str = "",
    **spec: Any,
) -> dict[str, Any]:
    """scheduler_perf's pod templates: one pause container, requests = limits."""
    amounts = {"cpu": cpu, "memory": "500Mi"}
    container = {
        "name": "pause",
        "image": PAUSE,
        "ports": [{"containerPort": 80}],
        "resources": {"limits": amounts, "requests": amounts},
    }
    body: dict[str, Any] = {
        "containers": [container],
        "automountServiceAccountToken": False,  # no token volume: the same object on both sides
        **spec,
    }
    if node_name:
        body["nodeName"] = node_name
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def _namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _affinity_term(color: str, key: str) -> dict[str, Any]:
    return {
        "labelSelector": {"matchLabels": {"color": color}},
        "topologyKey": key,
        "namespaces": list(reversed(SCHED_NS)),
    }


def _anti_affinity_pod(name: str, namespace: str, node_name: str = "") -> dict[str, Any]:
    term = _affinity_term("green", "kubernetes.io/hostname")
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return pod(name, namespace, labels={"color": "green"}, node_name=node_name, affinity=affinity)


def _affinity_pod(name: str, namespace: str, node_name: str = "") -> dict[str, Any]:
    term = _affinity_term("blue", "topology.kubernetes.io/zone")
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return pod(name, namespace, labels={"color": "blue"}, node_name=node_name, affinity=affinity)


def _spread_pod(name: str) -> dict[str, Any]:
    constraint = {
        "maxSkew": 5,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"color": "blue"}},
    }
    return pod(name, labels={"color": "blue"}, topologySpreadConstraints=[constraint])


_HIGH = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "high"},
    "value": 10,
}

PodMaker = Callable[[str, str], dict[str, Any]]  # (name, nodeName or "") -> Pod


@dataclass(frozen=True)
class Shape:
    """One scheduler_perf workload: its zones, namespaces, pod templates and parameters."""

    zone: Callable[[int], str | None]
    init: PodMaker
    measured: PodMaker
    namespaces: tuple[str, ...] = ()
    extra: tuple[dict[str, Any], ...] = ()
    upstream: tuple[tuple[int, int, int], ...] = ()  # (nodes, init pods, measured pods)


SHAPES: dict[str, Shape] = {
    "SchedulingBasic": Shape(
        zone=lambda i: None,
        init=lambda name, at: pod(name, node_name=at),
        measured=lambda name, at: pod(name),
        upstream=((500, 500, 1000), (5000, 1000, 1000)),
    ),
    "SchedulingPodAntiAffinity": Shape(
        zone=lambda i: None,
        init=lambda name, at: _anti_affinity_pod(name, "sched-0", at),
        measured=lambda name, at: _anti_affinity_pod(name, "sched-1"),
        namespaces=SCHED_NS,
        upstream=((500, 100, 400), (5000, 1000, 1000)),
    ),
    "SchedulingPodAffinity": Shape(
        zone=lambda i: "zone1",
        init=lambda name, at: _affinity_pod(name, "sched-0", at),
        measured=lambda name, at: _affinity_pod(name, "sched-1"),
        namespaces=SCHED_NS,
        upstream=((500, 500, 1000), (5000, 5000, 1000)),
    ),
    "TopologySpreading": Shape(
        zone=lambda i: f"moon-{i % 3 + 1}",
        init=lambda name, at: pod(name, node_name=at),
        measured=lambda name, at: _spread_pod(name),
        upstream=((500, 1000, 1000), (5000, 5000, 2000)),
    ),
    "PreemptionBasic": Shape(
        zone=lambda i: None,
        init=lambda name, at: pod(name, cpu="900m", node_name=at, terminationGracePeriodSeconds=0),
        measured=lambda name, at: pod(name, cpu="3000m", priorityClassName="high"),
        extra=(_HIGH,),
        upstream=((500, 2000, 500), (5000, 20000, 5000)),
    ),
}


def sizes(name: str, nodes: int, pods: int | None = None) -> tuple[int, int]:
    """(init pods, measured pods) for ``nodes``: upstream's parameters at the nearest size,
    scaled to ``nodes``; ``pods`` caps the measured pods. Capacity-bound workloads stay
    feasible: anti-affinity needs a node per pod, preemption one node per preemptor."""
    ref_nodes, ref_init, ref_measured = min(SHAPES[name].upstream, key=lambda u: abs(u[0] - nodes))
    init = max(1, round(ref_init * nodes / ref_nodes))
    measured = max(1, round(ref_measured * nodes / ref_nodes))
    if pods is not None:
        measured = min(measured, pods)
    if name == "SchedulingPodAntiAffinity":
        init = min(init, max(nodes - 1, 1))
        measured = min(measured, nodes - init)
    if name == "PreemptionBasic":
        init, measured = 4 * nodes, min(measured, nodes)
    return init, measured


def workload(name: str, nodes: int, pods: int | None = None) -> Workload:
    """The objects of ``name`` at ``nodes`` nodes (see ``sizes``)."""
    shape = SHAPES[name]
    init, measured = sizes(name, nodes, pods)
    objects: list[dict[str, Any]] = [_namespace(ns) for ns in shape.namespaces]
    objects += [dict(o) for o in shape.extra]
    names = [f"node-{i}" for i in range(nodes)]
    objects += [node(n, shape.zone(i)) for i, n in enumerate(names)]
    objects += [shape.init(f"init-{i}", names[i % nodes]) for i in range(init)]
    pending = [shape.measured(f"pod-{i}", "") for i in range(measured)]
    objects += pending
    keys = frozenset(f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in pending)
    return Workload(name, nodes, objects, keys)


# ---------------------------------------------------------------------------------- impl side


@dataclass(frozen=True)
class Figure:
    """``bound`` measured pods; ``counted`` of them bound in ``seconds`` (the real side counts
    the intervals between its first and last binding: ``bound - 1``)."""

    bound: int
    counted: int
    seconds: float
    note: str = ""

    @property
    def rate(self) -> float:
        return self.counted / self.seconds if self.seconds > 0 else 0.0


def run_impl(load: Workload, profile: bool = False) -> Figure:
    scheduler = build(from_objects(load.objects))
    # Deliver the initial watch events (informer sync) before the clock starts.
    while scheduler.loop.pending() and not scheduler.queue.pending():
        scheduler.loop.run_one()
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if profiler is not None:
        profiler.runcall(scheduler.run)
    else:
        scheduler.run()
    elapsed = time.perf_counter() - start
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    bindings = result_of(scheduler).bindings
    bound = sum(1 for key in bindings if key in load.measured)
    pct = scheduler.config.percentage_of_nodes_to_score
    scored = num_feasible_nodes_to_find(pct, load.nodes)
    note = f"percentageOfNodesToScore={pct} (adaptive: finds {scored} feasible nodes)"
    return Figure(bound, bound, elapsed, note)


# ---------------------------------------------------------------------------------- real side


class Rest:
    """Plain JSON over HTTPS to the API server, one connection per thread (the kubernetes
    client's model (de)serialisation would make the creating process the bottleneck)."""

    def __init__(self, kubeconfig: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        server = config["clusters"][0]["cluster"]["server"]
        self.host, self.port = server.removeprefix("https://").split(":")
        cafile = config["clusters"][0]["cluster"]["certificate-authority"]
        self.context = ssl.create_default_context(cafile=cafile)
        self.headers = {"Authorization": f"Bearer {config['users'][0]['user']['token']}"}
        self.local = threading.local()

    def connect(self, timeout: float = 30.0) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(
            self.host, int(self.port), context=self.context, timeout=timeout
        )

    def call(
        self, method: str, path: str, body: Any = None, kind: str = "json", accept: str = ""
    ) -> Any:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = self.connect()
        headers = {**self.headers, "Content-Type": f"application/{kind}"}
        if accept:
            headers["Accept"] = accept
        data = json.dumps(body) if body is not None else None
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        payload = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {payload[:300]!r}")
        return json.loads(payload) if payload else None


def _create_node(rest: Rest, obj: dict[str, Any]) -> None:
    rest.call("POST", "/api/v1/nodes", obj)
    # The TaintNodesByCondition admission plugin gave it node.kubernetes.io/not-ready; the
    # node lifecycle controller (not running here) removes it from a Ready node.
    rest.call("PATCH", f"/api/v1/nodes/{obj['metadata']['name']}", {"spec": {"taints": None}},
              "merge-patch+json")  # fmt: skip


def _create_pod(rest: Rest, obj: dict[str, Any]) -> None:
    rest.call("POST", f"/api/v1/namespaces/{obj['metadata']['namespace']}/pods", obj)


def _parallel(fn: Callable[[Any], None], items: Iterable[Any], threads: int) -> None:
    with ThreadPoolExecutor(threads) as pool:
        for _ in pool.map(fn, items):
            pass


def create(rest: Rest, load: Workload, threads: int) -> None:
    """Everything of ``load`` through the API, as the missing controllers would leave it."""
    namespaces = {"default", *(o["metadata"]["name"] for o in load.of_kind("Namespace"))}
    for ns in sorted(namespaces - {"default"}):
        rest.call("POST", "/api/v1/namespaces", _namespace(ns))
    for ns in sorted(namespaces):  # the ServiceAccount admission plugin looks it up
        body = {"metadata": {"name": "default"}}
        rest.call("POST", f"/api/v1/namespaces/{ns}/serviceaccounts", body)
    for pc in load.of_kind("PriorityClass"):
        rest.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", pc)
    _parallel(lambda o: _create_node(rest, o), load.of_kind("Node"), threads)
    _parallel(lambda o: _create_pod(rest, o), load.of_kind("Pod"), threads)


class BindingWatch(threading.Thread):
    """Stamps each measured pod (``perf_counter``) when a watch event shows it bound.

    The watch selects bound pods (``spec.nodeName!=``), so a binding arrives as ``ADDED``, and
    asks for metadata only (``PartialObjectMetadata``), read in blocks: on two loaded cores a
    slow reader falls behind and the API server closes its stream. If it does, the pods are
    listed again: a binding first seen by that list is stamped at the list's time (``late``)
    and the watch resumes from the list's resourceVersion."""

    _BOUND = "/api/v1/pods?fieldSelector=spec.nodeName%21%3D"
    _META = "application/json;as=PartialObjectMetadata{};g=meta.k8s.io;v=v1"

    def __init__(self, rest: Rest, measured: frozenset[str]) -> None:
        super().__init__(daemon=True)
        self.rest, self.measured = rest, measured
        self.bound: dict[str, float] = {}
        self.late = self.reconnects = 0
        self.gap = 0.0  # the longest time from a stream's end to the re-list's answer
        # The first event of any kind: a binding, or for preemption a victim's deletion (its
        # preemptor's first cycle), which comes before the first binding.
        self.first: float | None = None
        self.first_is_binding = False
        self.events = 0  # progress: the events seen (bindings, victims' updates and deletions)
        self.done = threading.Event()
        self.version = rest.call("GET", "/api/v1/pods?limit=1")["metadata"]["resourceVersion"]

    def run(self) -> None:
        while not self.done.is_set():
            self._follow()
            if not self.done.is_set():
                ended = time.perf_counter()
                self.reconnects += 1
                self._relist()
                self.gap = max(self.gap, time.perf_counter() - ended)

    def _follow(self) -> None:
        conn = self.rest.connect(timeout=3600)
        path = f"{self._BOUND}&watch=1&resourceVersion={self.version}&timeoutSeconds=3600"
        conn.request("GET", path, headers={**self.rest.headers, "Accept": self._META.format("")})
        response, rest = conn.getresponse(), b""
        while not self.done.is_set():
            block = response.read1(1 << 16)
            if not block:
                break
            *lines, rest = (rest + block).split(b"\n")
            now = time.perf_counter()
            for line in lines:
                event = json.loads(line)
                if event["type"] == "ERROR":  # e.g. 410 Gone: the version is too old
                    conn.close()
                    return
                self.events += 1
                if self.first is None:
                    self.first = now
                if event["type"] == "ADDED":
                    self._stamp(event["object"], now)
        conn.close()

    def _relist(self) -> None:
        listed = self.rest.call("GET", self._BOUND, accept=self._META.format("List"))
        now, before = time.perf_counter(), len(self.bound)
        if self.first is None:
            self.first = now
        for obj in listed["items"]:
            self._stamp(obj, now)
        self.late += len(self.bound) - before
        self.version = listed["metadata"]["resourceVersion"]

    def _stamp(self, obj: dict[str, Any], now: float) -> None:
        meta = obj["metadata"]  # every object seen is bound (the field selector)
        key = f"{meta.get('namespace')}/{meta['name']}"
        if key in self.measured and key not in self.bound:
            self.first_is_binding |= not self.bound and self.first == now
            self.bound[key] = now
            if len(self.bound) == len(self.measured):
                self.done.set()


def scheduler_config(client_qps: int) -> dict[str, Any] | None:
    if client_qps <= 0:
        return None
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"qps": client_qps, "burst": client_qps},
    }


def _configz(rest: Rest, argv: list[str]) -> str:
    """What the running kube-scheduler says of its percentageOfNodesToScore and client QPS."""
    port = next(a.split("=", 1)[1] for a in argv if a.startswith("--secure-port="))
    insecure = ssl.create_default_context()
    insecure.check_hostname, insecure.verify_mode = False, ssl.CERT_NONE  # self-signed
    try:
        conn = http.client.HTTPSConnection("127.0.0.1", int(port), context=insecure, timeout=10)
        conn.request("GET", "/configz", headers=rest.headers)
        config = json.loads(conn.getresponse().read())["componentconfig"]
    except (OSError, ValueError, KeyError) as err:
        return f"/configz unreadable: {err}"
    # /configz prints the internal (Go field name) form: 0 / null percentage means adaptive.
    pct = config["Profiles"][0]["PercentageOfNodesToScore"]
    if pct is None:
        pct = config["PercentageOfNodesToScore"]
    client = config["ClientConnection"]
    return (
        f"percentageOfNodesToScore={pct} parallelism={config['Parallelism']} "
        f"qps={client['QPS']} burst={client['Burst']}"
    )


# klog's header: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg
_KLOG = re.compile(r'^I(\d{4}) (\d\d):(\d\d):(\d\d\.\d+)\s+\d+ \S+\] "([^"]+)" (.*)$')
_BOUND_MSG = "Successfully bound pod to node"
_PREEMPT_MSG = "Preemptor Pod preempted victim Pod"


def log_stamps(lines: Iterable[str], measured: frozenset[str]) -> tuple[dict[str, float], float]:
    """From kube-scheduler's ``-v=2`` log: each measured pod's binding time (seconds of the
    day, microsecond resolution) and the time of the first binding or preemption."""
    bound: dict[str, float] = {}
    first = float("inf")
    for line in lines:
        match = _KLOG.match(line)
        if match is None or match[5] not in (_BOUND_MSG, _PREEMPT_MSG):
            continue
        stamp = int(match[2]) * 3600 + int(match[3]) * 60 + float(match[4])
        first = min(first, stamp)
        pod = re.search(r'pod="([^"]+)"', match[6])
        if match[5] == _BOUND_MSG and pod is not None and pod[1] in measured:
            bound.setdefault(pod[1], stamp)
    return bound, first


def _figure(stamps: list[float], first: float, note: str) -> Figure:
    if len(stamps) < 2:
        return Figure(len(stamps), 0, 0.0, note)
    counted = len(stamps) - 1 if stamps[0] <= first else len(stamps)
    return Figure(len(stamps), counted, stamps[-1] - first, note)


def run_real(load: Workload, client_qps: int, threads: int, stall: float) -> Figure:
    from schedspec.checker.live_cluster import LiveCluster

    with LiveCluster() as live:
        rest = Rest(live.kubeconfig("admin"))
        started = time.perf_counter()
        create(rest, load, threads)
        created = time.perf_counter() - started
        watch = BindingWatch(rest, load.measured)
        watch.start()
        child = live.start_scheduler(scheduler_config(client_qps), ["-v=2"])
        said = _configz(rest, [str(a) for a in child.proc.args])  # type: ignore[union-attr]
        seen, last_change = 0, time.perf_counter()
        while not watch.done.wait(1.0):
            if watch.events != seen:
                seen, last_change = watch.events, time.perf_counter()
            elif time.perf_counter() - last_change > stall:
                break
            if not child.alive():
                raise child.died()
        watch.done.set()
        time.sleep(0.5)  # the last lines reach the log
        with open(child.log, errors="replace") as log:
            bound, first = log_stamps(log, load.measured)
    note = f"{said}; created in {created:.0f} s"
    watched = sorted(watch.bound.values())
    if watch.first is not None and len(watched) >= 2:
        seen_rate = _figure(watched, watch.first, "").rate
        note += f"; the watch saw {seen_rate:.0f} pods/s"
        if watch.reconnects:
            note += f" ({watch.late} bindings stamped up to {watch.gap * 1000:.0f} ms late)"
    return _figure(sorted(bound.values()), first, note)


# ---------------------------------------------------------------------------------------- main


def _line(who: str, load: Workload, figure: Figure) -> str:
    return (
        f"  {who:<16} bound {figure.bound:>5}/{len(load.measured):<5} in {figure.seconds:7.2f} s "
        f"{figure.rate:8.1f} pods/s   {figure.note}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, nargs="+", default=[500], help="node counts")
    parser.add_argument("--pods", type=int, default=None, help="at most this many measured pods")
    parser.add_argument("--only", nargs="+", choices=sorted(SHAPES), default=list(SHAPES))
    qps_help = "kube-scheduler's clientConnection qps and burst (0: its defaults, 50 and 100)"
    parser.add_argument("--client-qps", type=int, default=5000, help=qps_help)
    parser.add_argument("--threads", type=int, default=8, help="threads creating objects")
    stall_help = "give up on the real scheduler after this many seconds without an event"
    parser.add_argument("--stall", type=float, default=60.0, help=stall_help)
    parser.add_argument("--impl-only", action="store_true", help="no control plane")
    parser.add_argument("--profile", action="store_true", help="cProfile impl's run (slower)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    rows = []
    for nodes in args.nodes:
        for name in args.only:
            load = workload(name, nodes, args.pods)
            init, measured = sizes(name, nodes, args.pods)
            print(f"{name} nodes={nodes} init={init} measured={measured}", flush=True)
            real = None if args.impl_only else run_real(load, args.client_qps, args.threads,
                                                         args.stall)  # fmt: skip
            if real is not None:
                print(_line("kube-scheduler", load, real), flush=True)
            impl = run_impl(load, args.profile)
            print(_line("impl", load, impl), flush=True)
            ratio = impl.rate / real.rate if real is not None and real.rate else float("nan")
            print(f"  ratio impl/real {ratio:.3f}", flush=True)
            rows.append((name, nodes, measured, real, impl, ratio))
    print("\n| workload | nodes | measured | real pods/s | impl pods/s | impl/real |")
    print("|---|---|---|---|---|---|")
    for name, nodes, measured, real, impl, ratio in rows:
        shown = f"{real.rate:.0f}" if real is not None else "-"
        print(f"| {name} | {nodes} | {measured} | {shown} | {impl.rate:.0f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
