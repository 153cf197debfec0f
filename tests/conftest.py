"""Shared fixtures: the repository root and its bundled examples; and the one slow subprocess a
test waits for, started when the session's tests are known so it runs beside them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


# tests/spec/test_catalogue.py regenerates docs/divergences.md in a fresh process (about a minute
# and a half of Z3 on one core). Started as soon as the session knows it will run that test, it
# works on the second core while the rest of the suite runs on the first; the test then only
# waits for what is left of it.
CATALOGUE_TEST = "test_catalogue_is_up_to_date"
_CATALOGUE = pytest.StashKey[subprocess.Popen[str]]()


def _start_catalogue() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "schedspec.spec.catalogue"],
        env={**os.environ, "PYTHONHASHSEED": "0"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if any(item.name == CATALOGUE_TEST for item in items):
        config.stash[_CATALOGUE] = _start_catalogue()


def pytest_unconfigure(config: pytest.Config) -> None:
    child = config.stash.get(_CATALOGUE, None)
    if child is not None and child.poll() is None:
        child.kill()
        child.communicate()


@pytest.fixture
def catalogue_output(request: pytest.FixtureRequest) -> str:
    """The regenerated catalogue's standard output (started at collection, else now)."""
    child = request.config.stash.get(_CATALOGUE, None)
    if child is None:
        child = _start_catalogue()
    out, err = child.communicate(timeout=3600)
    assert child.returncode == 0, err
    return out
