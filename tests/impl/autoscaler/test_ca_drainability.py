"""The drain rules, in upstream order, with CA's BlockingPodReason names and messages
(docs/autoscaler.md, scale-down step 3). Each case: node n1 (a candidate, nearly idle) holds the
pod under test; n2 (not autoscaled) has room for anything that moves."""

from __future__ import annotations

from typing import Any

import pytest
from ca_builders import autoscaling, cluster, group, node, pdb, pod, run

from schedspec.impl.autoscaler import NodeScaleDown, run_once

EMPTY_DIR = {"volumes": [{"name": "scratch", "emptyDir": {}}]}
SAFE = "cluster-autoscaler.kubernetes.io/safe-to-evict"
LOCAL_OK = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"


def _verdict(*objects: dict[str, Any], **options: Any) -> NodeScaleDown:
    base = [node("n1"), node("n2", "8", "16Gi"), *objects]
    return run(base, group("g", nodes=("n1",)), **options).scale_down.nodes["n1"]


@pytest.mark.parametrize(
    ("p", "blocking", "message"),
    [
        (pod("p", owner=None), "NotReplicated", "default/p is not replicated"),
        (pod("p", owner="CronTab"), "NotReplicated", "default/p is not replicated"),
        (
            pod("p", ns="kube-system"),
            "UnmovableKubeSystemPod",
            "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: p",
        ),
        (
            pod("p", annotations={SAFE: "false"}),
            "NotSafeToEvictAnnotation",
            "pod annotated as not safe to evict present: p",
        ),
        (pod("p", spec=EMPTY_DIR), "LocalStorageRequested", "pod with local storage present: p"),
        (
            pod("p", spec={"volumes": [{"name": "h", "hostPath": {"path": "/x"}}]}),
            "LocalStorageRequested",
            "pod with local storage present: p",
        ),
        # no controller AND not safe to evict: replicated comes first
        (pod("p", owner=None, annotations={SAFE: "false"}), "NotReplicated", None),
    ],
    ids=[
        "no-owner",
        "custom-controller",
        "kube-system",
        "not-safe",
        "emptydir",
        "hostpath",
        "order",
    ],
)
def test_blocking_rules(p: dict[str, Any], blocking: str, message: str | None) -> None:
    on_n1 = {**p, "spec": {**p["spec"], "nodeName": "n1"}}
    verdict = _verdict(on_n1)
    assert verdict.reason == "BlockedByPod"
    assert verdict.blocking_pod == (f"{p['metadata']['namespace']}/p", blocking)
    if message is not None:
        assert verdict.message == message
    assert not verdict.removable


@pytest.mark.parametrize(
    ("p", "options"),
    [
        (pod("p", owner=None, annotations={SAFE: "true"}, spec=EMPTY_DIR), {}),
        (pod("p", owner="CronTab"), {"skip_nodes_with_custom_controller_pods": False}),
        (pod("p", ns="kube-system"), {"skip_nodes_with_system_pods": False}),
        (pod("p", spec=EMPTY_DIR), {"skip_nodes_with_local_storage": False}),
        (pod("p", spec={"volumes": [{"name": "m", "emptyDir": {"medium": "Memory"}}]}), {}),
        (pod("p", spec=EMPTY_DIR, annotations={LOCAL_OK: "other,scratch"}), {}),
    ],
    ids=[
        "safe-to-evict-true",
        "custom-allowed",
        "system-allowed",
        "local-allowed",
        "memory-emptydir",
        "listed-volume",
    ],
)
def test_movable(p: dict[str, Any], options: dict[str, Any]) -> None:
    on_n1 = {**p, "spec": {**p["spec"], "nodeName": "n1"}}
    verdict = _verdict(on_n1, **options)
    assert verdict.removable
    assert verdict.destinations == {f"{p['metadata']['namespace']}/p": "n2"}


def test_kube_system_pod_with_a_pdb_moves() -> None:
    p = pod("p", ns="kube-system", on="n1", labels={"app": "dns"})
    verdict = _verdict(p, pdb("dns", {"app": "dns"}, 1, ns="kube-system"))
    assert verdict.removable


def test_pdb_without_budget_blocks() -> None:
    p = pod("p", on="n1", labels={"app": "web"})
    verdict = _verdict(p, pdb("web", {"app": "web"}, 0))
    assert verdict.blocking_pod == ("default/p", "NotEnoughPdb")
    assert verdict.message == "not enough pod disruption budget to move default/p"


@pytest.mark.parametrize(
    "p",
    [
        pod("m", on="n1", owner=None, annotations={"kubernetes.io/config.mirror": "x"}),
        pod("ds", on="n1", owner="DaemonSet"),
    ],
    ids=["mirror", "daemonset"],
)
def test_mirror_and_daemonset_pods_do_not_move(p: dict[str, Any]) -> None:
    verdict = _verdict(p)
    assert verdict.removable
    assert verdict.pods_to_move == ()
    assert verdict.message == "node may be removed (empty)"


@pytest.mark.parametrize(("after", "skipped"), [(61, True), (60, False)])
def test_long_terminating_pod_is_skipped(after: int, skipped: bool) -> None:
    # deleted at T with the default 30 s grace: skipped once T + 30 + 30 is strictly past
    deleted = "2025-01-01T00:00:00Z"
    t = 1735689600
    p = pod("p", on="n1", owner=None, meta={"deletionTimestamp": deleted})
    objects = [node("n1"), node("n2", "8", "16Gi"), p]
    result = run_once(cluster(*objects), autoscaling(group("g", nodes=("n1",))), now=t + after)
    verdict = result.scale_down.nodes["n1"]
    assert verdict.removable is skipped
    assert verdict.reason == ("" if skipped else "BlockedByPod")


def test_first_blocking_pod_in_namespace_name_order() -> None:
    objects = [pod("z", on="n1", owner=None, ns="a"), pod("a", on="n1", owner=None, ns="b")]
    assert _verdict(*objects).blocking_pod == ("a/z", "NotReplicated")
