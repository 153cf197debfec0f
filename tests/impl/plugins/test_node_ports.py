"""NodePorts: host port conflicts (0.0.0.0 vs specific IPs, protocols, sidecars)."""

from __future__ import annotations

from typing import Any

import pytest
from impl_builders import node, node_info, pod

from schedspec.impl.framework import Code, CycleState
from schedspec.impl.plugins import node_ports
from schedspec.impl.plugins.node_ports import NodePorts


def ports(*entries: tuple[str, str, int]) -> dict[str, Any]:
    return {
        "containers": [
            {
                "name": "c",
                "image": "i",
                "ports": [
                    {"containerPort": 80, "hostIP": ip, "protocol": proto, "hostPort": port}
                    for ip, proto, port in entries
                ],
            }
        ]
    }


CASES: list[tuple[str, dict[str, Any], dict[str, Any], bool]] = [
    ("no host ports", ports(), ports(("", "TCP", 80)), True),
    ("same port and protocol on 0.0.0.0", ports(("", "TCP", 80)), ports(("", "TCP", 80)), False),
    ("different protocol", ports(("", "UDP", 80)), ports(("", "TCP", 80)), True),
    ("different ports", ports(("", "TCP", 81)), ports(("", "TCP", 80)), True),
    (
        "0.0.0.0 conflicts with a specific IP",
        ports(("0.0.0.0", "TCP", 80)),
        ports(("10.0.0.1", "TCP", 80)),
        False,
    ),
    (
        "a specific IP conflicts with 0.0.0.0",
        ports(("10.0.0.1", "TCP", 80)),
        ports(("0.0.0.0", "TCP", 80)),
        False,
    ),
    (
        "two different specific IPs do not conflict",
        ports(("10.0.0.1", "TCP", 80)),
        ports(("10.0.0.2", "TCP", 80)),
        True,
    ),
    (
        "containerPort without hostPort is not a host port",
        ports(("", "TCP", 0)),
        ports(("", "TCP", 80)),
        True,
    ),
]


@pytest.mark.parametrize(("name", "want", "used", "fits"), CASES, ids=[c[0] for c in CASES])
def test_filter(name: str, want: dict[str, Any], used: dict[str, Any], fits: bool) -> None:
    p = pod("new", spec=want)
    ni = node_info(node(), pod("old", spec=used))
    assert node_ports.fits(p, ni) is fits
    plugin, state = NodePorts(), CycleState()
    _, pre = plugin.pre_filter(state, p, [ni])
    if pre is not None:
        assert pre.code is Code.SKIP and fits
        return
    status = plugin.filter(state, p, ni)
    assert (status is None) is fits
    if status is not None:
        assert status.code is Code.UNSCHEDULABLE
        assert status.reasons == ("node(s) didn't have free ports for the requested pod ports",)


def test_sidecar_host_ports_count_but_plain_init_containers_do_not() -> None:
    def init(restart: str | None) -> dict[str, Any]:
        c: dict[str, Any] = {
            "name": "i",
            "image": "i",
            "ports": [{"containerPort": 1, "hostPort": 9000}],
        }
        if restart:
            c["restartPolicy"] = restart
        return {"initContainers": [c]}

    used = node_info(node(), pod("old", spec=ports(("", "TCP", 9000))))
    assert node_ports.fits(pod("plain", spec=init(None)), used)
    assert not node_ports.fits(pod("sidecar", spec=init("Always")), used)
