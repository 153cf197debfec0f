"""The schedspec pytest plugin (entry point ``schedspec`` in ``pytest11``): fixtures to run the
checker's comparisons from your own test suite.

- ``schedspec_agree(definition, impl, spec=…, view=…, strategy=…, keys=…, values=…)``: compare
  a spec definition over (pod, node) with your plugin's verdict function on generated clusters
  (:func:`schedspec.checker.conformance.agree`), drawn in the definition's own label keys and
  values and in ``keys``/``values`` your plugin is configured with; fails with the shrunk
  cluster as YAML.
- ``schedspec_checker``: a session-wide :class:`~schedspec.checker.differential.Checker` for the
  bundled ``scheduler.tla`` (``checker.check(cluster).undeclared`` should be empty).
- ``schedspec_examples`` / ``schedspec_seed``: from ``--schedspec-examples N`` (default 100) and
  ``--schedspec-seed S`` (default 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

__all__ = [
    "pytest_addoption",
    "schedspec_agree",
    "schedspec_checker",
    "schedspec_examples",
    "schedspec_seed",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("schedspec", "schedspec conformance checks")
    group.addoption(
        "--schedspec-examples",
        type=int,
        default=100,
        metavar="N",
        help="generated clusters per schedspec_agree call (default 100)",
    )
    group.addoption(
        "--schedspec-seed", type=int, default=0, metavar="S", help="Hypothesis seed (default 0)"
    )


@pytest.fixture(scope="session")
def schedspec_examples(request: pytest.FixtureRequest) -> int:
    return int(request.config.getoption("--schedspec-examples"))


@pytest.fixture(scope="session")
def schedspec_seed(request: pytest.FixtureRequest) -> int:
    return int(request.config.getoption("--schedspec-seed"))


@pytest.fixture(scope="session")
def schedspec_checker() -> Any:
    from schedspec.checker.differential import Checker

    return Checker()


@pytest.fixture
def schedspec_agree(schedspec_examples: int, schedspec_seed: int) -> Callable[..., None]:
    from schedspec.checker.conformance import agree

    def run(definition: str, impl: Any, **kwargs: Any) -> None:
        kwargs.setdefault("examples", schedspec_examples)
        kwargs.setdefault("seed", schedspec_seed)
        agree(definition, impl, **kwargs)

    return run
