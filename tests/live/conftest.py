"""A real etcd + kube-apiserver v1.34.2 for the tests under ``tests/live/`` marked ``apiserver``
(deselected by default: ``python3 -m pytest -m apiserver tests/live``).

``live_cluster`` is a fresh control plane per test (the first run builds the binaries:
``schedspec.checker.live_cluster``); ``live_objects.apply(live, objects)`` creates manifests in
it as ``kubectl create`` would, then does what the missing controllers would have done.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from schedspec.checker.live_cluster import (
    BINARIES,
    LiveCluster,
    LiveClusterError,
    binary_dir,
    ensure_binaries,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))  # live_objects, for the test modules


@pytest.fixture(scope="session")
def live_binaries() -> None:
    """The binaries, built once (a broken build is a failure, not a skip)."""
    pytest.importorskip("kubernetes")
    built = all((binary_dir() / name).is_file() for name in BINARIES)
    if shutil.which("go") is None and not built:
        pytest.skip("Go is not installed and no live-cluster binaries are cached")
    try:
        ensure_binaries()
    except LiveClusterError as err:
        pytest.fail(str(err))


@pytest.fixture
def live_cluster(live_binaries: None) -> Iterator[LiveCluster]:
    """A fresh, empty control plane for one test (a warm start takes about 2.5 s)."""
    cluster = LiveCluster()
    try:
        cluster.start()
    except LiveClusterError as err:
        cluster.close()
        pytest.fail(str(err))
    try:
        yield cluster
    finally:
        cluster.close()
