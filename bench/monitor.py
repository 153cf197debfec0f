"""``schedspec monitor`` against the real kube-scheduler v1.34.2 on a real control plane: a mixed
workload created in waves, every decision judged, the violations counted.

    python3 bench/monitor.py                       # 12 nodes, 16 waves of 90 pods: ≥ 1,000 bound
    python3 bench/monitor.py --waves 2 --per-wave 40 --nodes 6     # a quick look

Each wave creates pods of every shape below, then deletes about half of the pods bound so far
(as a rollout would), so the cluster stays near its capacity and the scheduler keeps deciding:
requests, a zone spread (DoNotSchedule) and a hostname spread (ScheduleAnyway), required and
preferred node affinity, a taint some pods tolerate, required anti-affinity per node, required
pod affinity to a zone holding its server, and from the third wave on, high-priority pods big
enough that most of them preempt. Every pod has ``terminationGracePeriodSeconds: 0``: with no
kubelet, a victim would otherwise stay Terminating forever.

The monitor runs in this process (``checker.monitor_cli.watch_and_judge``) while the waves are
created; the figures: pods bound, decisions judged per kind, violations, seconds for the waves
and for the judging to catch up, and the baseline it is compared with — the same waves with the
monitor not running (``--baseline``; off by default, it doubles the time). Print the load
(``/proc/loadavg``) beside them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

Obj = dict[str, Any]
ZONES = ("zone-a", "zone-b", "zone-c")
NAMESPACE = "shop"
TAINT = {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}


def nodes(count: int) -> list[Obj]:
    """``count`` nodes over three zones; every fourth tainted ``dedicated=batch``, every
    other one ``disktype=ssd``; 4 CPUs, 16 GiB, 110 pods each."""
    out = []
    for i in range(count):
        name = f"node-{i}"
        labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": ZONES[i % 3],
                  "disktype": "ssd" if i % 2 == 0 else "hdd"}  # fmt: skip
        out.append({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "spec": {"taints": [TAINT] if i % 4 == 3 else []},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]},
        })  # fmt: skip
    return out


PRIORITY_CLASSES = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
     "metadata": {"name": name}, "value": value}
    for name, value in (("low", 0), ("high", 1000))
]  # fmt: skip


def _pod(name: str, app: str, cpu: int, priority: str = "low", **spec: Any) -> Obj:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"app": app}},
        "spec": {"priorityClassName": priority, "terminationGracePeriodSeconds": 0,
                 "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": f"{cpu}m",
                                                            "memory": "64Mi"}}}], **spec},
    }  # fmt: skip


def _selector(app: str) -> Obj:
    return {"matchLabels": {"app": app}}


def wave(index: int, count: int, rng: random.Random) -> list[Obj]:
    """``count`` pods of the shapes the module docstring lists, named ``w<index>-<k>``."""
    shapes: list[Callable[[str], Obj]] = [
        lambda n: _pod(n, "web", rng.choice((100, 200, 300)), topologySpreadConstraints=[
            {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone",
             "whenUnsatisfiable": "DoNotSchedule", "labelSelector": _selector("web")},
            {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
             "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": _selector("web")}]),
        lambda n: _pod(n, "db", 250, affinity={"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "disktype", "operator": "In",
                                       "values": ["ssd"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "preference": {"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In",
                     "values": ["zone-a"]}]}}]}}),
        lambda n: _pod(n, "batch", rng.choice((200, 400)), tolerations=[
            {"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]),
        lambda n: _pod(n, f"cache-{index}", 100, affinity={"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "kubernetes.io/hostname",
                 "labelSelector": _selector(f"cache-{index}")}]}}),
        lambda n: _pod(n, "client", 100, affinity={"podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "topology.kubernetes.io/zone",
                 "labelSelector": _selector("db")}]}}),
        lambda n: _pod(n, "plain", rng.choice((50, 150, 500))),
    ]  # fmt: skip
    if index >= 2:
        shapes.append(lambda n: _pod(n, "urgent", 1500, priority="high"))
    return [rng.choice(shapes)(f"w{index}-{k}") for k in range(count)]


# ------------------------------------------------------------------------------- the run


@dataclass
class Result:
    bound: int = 0
    created: int = 0
    deleted: int = 0
    waves_seconds: float = 0.0
    catch_up_seconds: float = 0.0
    summary: Any = None
    violations: list[Any] = field(default_factory=list)


def _client(kubeconfig: Path) -> Any:
    from kubernetes import config

    return config.new_client_from_config(str(kubeconfig))


def prepare(api: Any, node_count: int) -> None:
    """The namespace, its default ServiceAccount (no controller makes it here), the
    PriorityClasses and the nodes, Ready and without the not-ready taint admission adds."""
    from kubernetes import client

    core = client.CoreV1Api(api)
    core.create_namespace({"metadata": {"name": NAMESPACE}})
    core.create_namespaced_service_account(NAMESPACE, {"metadata": {"name": "default"}})
    for pc in PRIORITY_CLASSES:
        client.SchedulingV1Api(api).create_priority_class(pc)
    for node in nodes(node_count):
        core.create_node(node)
        core.patch_node_status(node["metadata"]["name"], {"status": node["status"]})
        core.patch_node(node["metadata"]["name"], {"spec": {"taints": node["spec"]["taints"]}})


def _bound(core: Any) -> list[str]:
    pods = core.list_namespaced_pod(NAMESPACE).items
    return sorted(p.metadata.name for p in pods if p.spec.node_name)


def run_waves(
    api: Any, waves: int, per_wave: int, seed: int, settle: float = 4.0,
    log: Callable[[str], None] | None = None,
) -> tuple[int, int, int]:  # fmt: skip
    """Creates the waves (``settle`` s apart), deleting about half the bound pods after each;
    (pods created, pods deleted, pods ever bound)."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    core, rng = client.CoreV1Api(api), random.Random(seed)
    created = deleted = 0
    ever_bound: set[str] = set()
    for i in range(waves):
        for pod in wave(i, per_wave, rng):
            core.create_namespaced_pod(NAMESPACE, pod)
            created += 1
        time.sleep(settle)
        bound = _bound(core)
        ever_bound.update(bound)
        for name in rng.sample(bound, len(bound) // 2) if i < waves - 1 else []:
            try:
                core.delete_namespaced_pod(name, NAMESPACE, grace_period_seconds=0)
                deleted += 1
            except ApiException as err:
                if err.status != 404:  # preempted meanwhile
                    raise
        if log is not None:
            log(f"wave {i + 1}/{waves}: {len(bound)} bound now, {len(ever_bound)} ever")
    time.sleep(settle)
    ever_bound.update(_bound(core))
    return created, deleted, len(ever_bound)


def run(
    node_count: int, waves: int, per_wave: int, seed: int, *, monitor: bool = True,
    scheduler_config: Obj | None = None, judge_config: Obj | None = None,
    log: Callable[[str], None] | None = None, record: Path | None = None,
) -> Result:  # fmt: skip
    """One control plane, the real scheduler (``scheduler_config`` or its default), the
    monitor judging against ``judge_config`` (or the default profile) while the waves run."""
    from schedspec.checker.live_cluster import LiveCluster
    from schedspec.checker.monitor import Monitor
    from schedspec.checker.monitor_cli import watch_and_judge
    from schedspec.checker.monitor_watch import Watcher
    from schedspec.live import Source
    from schedspec.spec.load import load_spec

    result = Result()
    with LiveCluster() as live:
        api = _client(live.kubeconfig("admin"))
        prepare(api, node_count)
        live.start_scheduler(scheduler_config)
        judge = Monitor(load_spec("scheduler"), judge_config, minimise_steps=200)
        fed = judge if record is None else _Recording(judge, record)
        stop, thread = threading.Event(), None
        watcher = Watcher(Source(str(live.kubeconfig("admin"))))
        if monitor:
            thread = threading.Thread(
                target=watch_and_judge, args=(watcher, fed, result.violations.extend),
                kwargs={"stop": stop}, daemon=True,
            )  # fmt: skip
            thread.start()
        started = time.monotonic()
        result.created, result.deleted, result.bound = run_waves(
            api, waves, per_wave, seed, log=log
        )
        result.waves_seconds = time.monotonic() - started
        if thread is not None:
            _catch_up(judge, watcher, stop, thread)
            result.catch_up_seconds = time.monotonic() - started - result.waves_seconds
        result.summary = judge.summary
    return result


def _catch_up(judge: Any, watcher: Any, stop: threading.Event, thread: threading.Thread) -> None:
    """Lets the monitor read everything the watch delivered, then stops it (the decisions
    still waiting are judged then)."""
    while True:
        size = len(judge.history)
        time.sleep(2.0)
        if watcher.queue.qsize() == 0 and len(judge.history) == size:
            break
    stop.set()
    thread.join()


class _Recording:
    """A monitor that writes each item it is fed to a JSON-lines file (for replaying)."""

    def __init__(self, monitor: Any, path: Path) -> None:
        self.monitor, self.file = monitor, open(path, "w", encoding="utf-8")  # noqa: SIM115

    def __getattr__(self, name: str) -> Any:
        return getattr(self.monitor, name)

    def feed(self, kind: str, obj: Obj, deleted: bool = False) -> Any:
        self.file.write(json.dumps([kind, obj, deleted]) + "\n")
        return self.monitor.feed(kind, obj, deleted)

    def flush(self) -> Any:
        self.file.close()
        return self.monitor.flush()


def replay(path: Path, window: int | None = None, minimise_steps: int = 200) -> Result:
    """The monitor's verdicts on a stream ``--record`` wrote (no server)."""
    from schedspec.checker.monitor import WINDOW, Monitor
    from schedspec.spec.load import load_spec

    judge = Monitor(load_spec("scheduler"), window=WINDOW if window is None else window,
                    minimise_steps=minimise_steps)  # fmt: skip
    result = Result()
    started = time.monotonic()
    with open(path, encoding="utf-8") as f:
        for line in f:
            kind, obj, deleted = json.loads(line)
            result.violations += judge.feed(kind, obj, deleted)
    result.violations += judge.flush()
    result.catch_up_seconds = time.monotonic() - started
    result.summary = judge.summary
    return result


def lines(result: Result, label: str) -> Iterator[str]:
    s = result.summary
    if not result.created:  # a replay
        yield f"{label}: judged in {result.catch_up_seconds:.0f} s"
    else:
        yield (
            f"{label}: {result.created} pods created, {result.deleted} deleted, "
            f"{result.bound} bound; waves {result.waves_seconds:.0f} s"
            + (f", judging caught up {result.catch_up_seconds:.0f} s later" if s.judged else "")
        )
    if s is not None and (s.judged or s.not_judged):
        judged = ", ".join(f"{n} {k}" for k, n in sorted(s.judged.items()))
        yield f"  judged: {judged}; violations: {len(s.violations)}"
        for k, n in sorted(s.explained_by_window.items()):
            yield f"  explained by a state around the decision: {n} {k}"
        for k, n in sorted(s.not_judged.items()):
            yield f"  not judged: {n} × {k}"
        yield "  events: " + ", ".join(f"{k} {n}" for k, n in sorted(s.events.items()))
        rules = Counter(f"{v.kind} {v.rule}" for v in s.violations)
        if rules:
            yield "  violations by rule: " + ", ".join(f"{k} {n}" for k, n in sorted(rules.items()))
        for v in s.violations[:20]:
            yield f"  VIOLATION {v.kind} {v.pod} {v.node}: {v.rule} {v.verdict}: {v.reason}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=12)
    parser.add_argument("--waves", type=int, default=16)
    parser.add_argument("--per-wave", type=int, default=90)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", action="store_true", help="also run without the monitor")
    parser.add_argument(
        "--record", type=Path, help="write the stream the monitor read (JSON lines)"
    )
    parser.add_argument("--replay", type=Path, help="judge a --record file again, no server")
    parser.add_argument("--window", type=int, help="with --replay (default: the monitor's)")
    args = parser.parse_args()
    if args.replay is not None:
        replayed = replay(args.replay, args.window)
        for line in lines(replayed, f"replay of {args.replay}"):
            print(line)
        return 1 if replayed.summary.violations else 0
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"load before: {' '.join(load)}", flush=True)
    result = run(args.nodes, args.waves, args.per_wave, args.seed, record=args.record,
                 log=lambda m: print(m, flush=True))  # fmt: skip
    for line in lines(result, "with the monitor"):
        print(line)
    if args.baseline:
        base = run(args.nodes, args.waves, args.per_wave, args.seed, monitor=False)
        for line in lines(base, "baseline (no monitor)"):
            print(line)
    print(f"load after: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    return 1 if result.summary.violations else 0


if __name__ == "__main__":
    sys.exit(main())
