"""PodTopologySpread's default constraints in impl: the selector deduced from Services and the
pod's controller (helper/spread.go DefaultSelector), the args' validation
(ValidatePodTopologySpreadArgs), and system defaulting's scoring of nodes without the zone
label (scoring.go requireAllTopologies)."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.api.convert import pod_from_dict
from schedspec.impl.apiserver import APIServer
from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.errors import ConfigError
from schedspec.impl.framework import CycleState, NodeScore
from schedspec.impl.loop import EventLoop
from schedspec.impl.plugins.pod_topology_spread import PodTopologySpread
from schedspec.impl.plugins.spread_defaults import default_constraints, default_selector

NS = "shop"


def _api(*objects: tuple[str, dict[str, Any]]) -> APIServer:
    api = APIServer(EventLoop())
    for kind, obj in objects:
        api.create(kind, obj)
    return api


def _service(name: str, selector: dict[str, str] | None, namespace: str = NS) -> dict[str, Any]:
    spec = {} if selector is None else {"selector": selector}
    return {"kind": "Service", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def _owned(labels: dict[str, str], owner: tuple[str, str, str] | None = None) -> Any:
    meta: dict[str, Any] = {"name": "p", "namespace": NS, "labels": labels}
    if owner is not None:
        api_version, kind, name = owner
        meta["ownerReferences"] = [
            {"apiVersion": api_version, "kind": kind, "name": name, "controller": True}
        ]
    return pod_from_dict({"metadata": meta, "spec": {"containers": [{"name": "c"}]}})


RS = ("ReplicaSet", {"metadata": {"name": "web-5d8", "namespace": NS},
      "spec": {"selector": {"matchLabels": {"pod-template-hash": "5d8"}}}})  # fmt: skip
RC = ("ReplicationController", {"metadata": {"name": "legacy", "namespace": NS},
      "spec": {"selector": {"app": "web", "track": "stable"}}})  # fmt: skip
SS = ("StatefulSet", {"metadata": {"name": "db", "namespace": NS}, "spec": {"selector": {
    "matchExpressions": [{"key": "role", "operator": "In", "values": ["primary"]}]}}})  # fmt: skip
LABELS = {"app": "web", "track": "stable", "pod-template-hash": "5d8", "role": "primary"}

# (case, objects, pod's owner, {labels: selected?}); the pod's own labels are LABELS
SELECTOR_CASES: list[tuple[str, list[Any], Any, dict[tuple[tuple[str, str], ...], bool]]] = [
    ("nothing selects the pod: empty", [], None, {}),
    ("a Service's selector", [("Service", _service("web", {"app": "web"}))], None,
     {(("app", "web"),): True, (("app", "db"),): False}),
    ("a Service that does not match the pod is not merged",
     [("Service", _service("web", {"app": "web"})), ("Service", _service("db", {"app": "db"}))],
     None, {(("app", "web"),): True}),
    ("a nil selector selects nothing", [("Service", _service("ext", None))], None, {}),
    ("{} selects every pod and adds nothing", [("Service", _service("all", {}))], None, {}),
    ("another namespace's Service is not read",
     [("Service", _service("web", {"app": "web"}, "default"))], None, {}),
    ("a ReplicaSet adds its requirements", [("Service", _service("web", {"app": "web"})), RS],
     ("apps/v1", "ReplicaSet", "web-5d8"),
     {(("app", "web"), ("pod-template-hash", "5d8")): True, (("app", "web"),): False,
      (("pod-template-hash", "5d8"),): False}),
    ("a ReplicationController's map is merged", [RC], ("v1", "ReplicationController", "legacy"),
     {(("app", "web"), ("track", "stable")): True, (("app", "web"),): False}),
    ("a StatefulSet's expressions are added", [SS], ("apps/v1", "StatefulSet", "db"),
     {(("role", "primary"),): True, (("role", "replica"),): False}),
    ("an owner of another group/version is not looked up", [RS],
     ("extensions/v1beta1", "ReplicaSet", "web-5d8"), {}),
    ("/v1 parses as the core group", [RC], ("/v1", "ReplicationController", "legacy"),
     {(("app", "web"), ("track", "stable")): True}),
    ("an owner that does not exist adds nothing", [], ("apps/v1", "ReplicaSet", "web-5d8"), {}),
]  # fmt: skip


@pytest.mark.parametrize(("objects", "owner", "expect"), [c[1:] for c in SELECTOR_CASES],
                         ids=[c[0] for c in SELECTOR_CASES])  # fmt: skip
def test_default_selector(objects: list[Any], owner: Any, expect: dict[Any, bool]) -> None:
    selector = default_selector(_owned(LABELS, owner), _api(*objects))
    assert selector.empty == (not expect)
    for labels, selected in expect.items():
        assert selector.matches(dict(labels)) == selected, labels


@pytest.mark.parametrize(
    ("args", "path"),
    [
        ({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                  "whenUnsatisfiable": "DoNotSchedule"}]}, "defaultingType"),
        ({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]},
         "defaultConstraints[0].maxSkew"),
        ({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}]},
         "defaultConstraints[0].topologyKey"),
        ({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Sometimes"}]},
         "defaultConstraints[0].whenUnsatisfiable"),
        ({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {}}]}, "defaultConstraints[0].labelSelector"),
        ({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
            {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]},
         "defaultConstraints[1]"),
    ],
)  # fmt: skip
def test_invalid_default_constraints_name_the_field(args: dict[str, Any], path: str) -> None:
    with pytest.raises(ConfigError) as err:
        default_constraints(args)
    assert err.value.path == path


class _Handle:
    def __init__(self, api: APIServer, snapshot: Snapshot) -> None:
        self._api, self._snapshot = api, snapshot

    def client(self) -> APIServer:
        return self._api

    def snapshot_shared_lister(self) -> Snapshot:
        return self._snapshot


def _scores(args: dict[str, Any]) -> dict[str, int]:
    """PreScore/Score/NormalizeScore of a pod a Service selects, on a (zone a, 2 of its pods),
    b (zone b) and c (no zone label)."""
    web = {"app": "web"}
    infos = [
        node_info(node("a", labels={"kubernetes.io/hostname": "a", "zone": "a",
                                    "topology.kubernetes.io/zone": "z1"}),
                  pod("w0", labels=web, ns=NS), pod("w1", labels=web, ns=NS)),
        node_info(node("b", labels={"kubernetes.io/hostname": "b",
                                    "topology.kubernetes.io/zone": "z2"})),
        node_info(node("c", labels={"kubernetes.io/hostname": "c"})),
    ]  # fmt: skip
    cache = Cache()
    for ni in infos:
        assert ni.node is not None
        cache.add_node(ni.node)
        for p in ni.pods:
            cache.add_pod(p.pod)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    handle = _Handle(_api(("Service", _service("web", web))), snapshot)
    plugin = PodTopologySpread.new(args, handle)  # type: ignore[arg-type]
    incoming = pod("w2", labels=web, ns=NS)
    state = CycleState()
    nodes = snapshot.list()
    assert plugin.pre_score(state, incoming, nodes) is None
    scores = [NodeScore(ni.name, plugin.score(state, incoming, ni)[0]) for ni in nodes]
    plugin.normalize_score(state, incoming, scores)
    return {s.name: s.score for s in scores}


def test_system_defaults_score_a_node_without_the_zone_label() -> None:
    # the hand-derived scenario spread-defaults/system-defaults-from-a-service: raw 12, 6, 2
    assert _scores({}) == {"a": 16, "b": 66, "c": 100}


def test_listed_defaults_ignore_a_node_without_their_key() -> None:
    listed = {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
         "whenUnsatisfiable": "ScheduleAnyway"}]}  # fmt: skip
    assert _scores(listed) == {"a": 0, "b": 100, "c": 0}
