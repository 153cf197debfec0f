"""ImageLocality: image sizes scaled by spread, clamped to [23 MiB, 1000 MiB·containers]."""

from __future__ import annotations

import pytest
from impl_builders import node, pod

from schedspec.impl.cache import Cache, Snapshot
from schedspec.impl.plugins import image_locality

MB = 1024 * 1024
CASES = [
    # 500 MiB · (1 of 2 nodes) = 250 MiB → 100·(250 − 23)/(1000 − 23) = 23
    (
        "image on half the nodes counts half its size",
        "nginx",
        [(["nginx:latest"], 500 * MB)],
        2,
        23,
    ),
    ("an untagged name is :latest", "nginx:latest", [(["nginx"], 500 * MB)], 2, 23),
    ("below 23 MiB scores 0", "tiny:1", [(["tiny:1"], 10 * MB)], 1, 0),
    ("above the threshold is clamped to 100", "big:1", [(["big:1"], 4000 * MB)], 1, 100),
    ("no image on the node", "nginx", [], 1, 0),
]


@pytest.mark.parametrize(
    ("name", "image", "images", "total", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_score(
    name: str, image: str, images: list[tuple[list[str], int]], total: int, expected: int
) -> None:
    cache, snapshot = Cache(), Snapshot()
    node_images = [{"names": names, "sizeBytes": size} for names, size in images]
    cache.add_node(node("with", images=node_images))
    for i in range(total - 1):
        cache.add_node(node(f"other-{i}"))
    cache.update_snapshot(snapshot)
    p = pod(spec={"containers": [{"name": "c", "image": image}]})
    ni = snapshot.get("with")
    assert ni is not None
    assert image_locality.score(p, ni, len(snapshot)) == expected
