"""Effective pod requests (component-helpers resource/helpers.go v0.34.0)."""

from __future__ import annotations

from typing import Any

import pytest

from schedspec.impl.api import pod_from_dict


def c(name: str, cpu: str | None = None, restart: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "image": "i"}
    if cpu is not None:
        out["resources"] = {"requests": {"cpu": cpu}}
    if restart:
        out["restartPolicy"] = restart
    return out


CASES: list[tuple[str, dict[str, Any], int]] = [
    ("app containers add up", {"containers": [c("a", "100m"), c("b", "200m")]}, 300),
    (
        "a larger init container wins",
        {"containers": [c("a", "300m")], "initContainers": [c("i", "500m")]},
        500,
    ),
    (
        "sidecar adds to the app and to later init containers",
        {
            "containers": [c("a", "300m")],
            "initContainers": [c("s", "100m", "Always"), c("i", "400m")],
        },
        500,
    ),
    (
        "a sidecar after an init container does not add to it",
        {
            "containers": [c("a", "300m")],
            "initContainers": [c("i", "400m"), c("s", "100m", "Always")],
        },
        400,
    ),
    ("overhead is added", {"containers": [c("a", "300m")], "overhead": {"cpu": "50m"}}, 350),
    (
        "pod-level requests override the containers (PodLevelResources, beta 1.34)",
        {
            "containers": [c("a", "300m")],
            "resources": {"requests": {"cpu": "2"}},
            "overhead": {"cpu": "10m"},
        },
        2010,
    ),
]


@pytest.mark.parametrize(("name", "spec", "cpu"), CASES, ids=[x[0] for x in CASES])
def test_pod_requests_cpu(name: str, spec: dict[str, Any], cpu: int) -> None:
    pod = pod_from_dict({"metadata": {"name": "p"}, "spec": spec})
    assert pod.requests.get("cpu", 0) == cpu


def test_non_zero_requests_default_missing_cpu_and_memory_per_container() -> None:
    spec = {"containers": [c("a"), c("b", "0"), c("d", "250m")]}
    pod = pod_from_dict({"metadata": {"name": "p"}, "spec": spec})
    assert pod.requests == {"cpu": 250}
    # a: 100m default; b: explicit 0 stays 0; d: 250m. memory: 200Mi for each of the three.
    assert pod.non_zero_requests == {"cpu": 350, "memory": 3 * 200 * 1024 * 1024}


def test_quantities_round_up_like_go() -> None:
    spec = {
        "containers": [
            {
                "name": "a",
                "image": "i",
                "resources": {"requests": {"cpu": "0.0001", "memory": "1.5"}},
            }
        ]
    }
    pod = pod_from_dict({"metadata": {"name": "p"}, "spec": spec})
    assert pod.requests == {"cpu": 1, "memory": 2}
