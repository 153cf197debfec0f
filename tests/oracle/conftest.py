"""One real kube-scheduler for the whole session (the Go build happens once per machine).

Also makes ``oracle_builders`` importable from the test modules here.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from schedspec.checker.oracle import Oracle, OracleError, binary_path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/oracle/" in item.nodeid:
            item.add_marker(pytest.mark.oracle)


@pytest.fixture(scope="session")
def oracle() -> Iterator[Oracle]:
    if shutil.which("go") is None and not binary_path().is_file():
        pytest.skip("Go is not installed and no oracle binary is cached")
    try:
        running = Oracle()
    except OracleError as err:  # a broken build is a failure, not a skip
        pytest.fail(str(err))
    with running:
        yield running
