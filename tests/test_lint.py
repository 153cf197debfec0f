"""The project's static rules, run as tests so the README's one test command covers them:
ruff (lint + format), mypy --strict on spec/ and impl/, and the import-linter layer contracts
(impl never imports spec, spec never imports impl).

mypy and import-linter resolve modules by their installed names (``schedspec.spec``), but the
sources live in top-level folders mapped by setuptools' package-dir; both tools are therefore run on
a staged copy laid out as installed (``schedspec/spec/...``), and mypy's paths are mapped back.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = {"schedspec": "schedspec", "spec": "schedspec/spec", "impl": "schedspec/impl",
          "checker": "schedspec/checker"}  # fmt: skip


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("staged")
    for src, rel in LAYOUT.items():
        shutil.copytree(ROOT / src, dest / rel, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


def test_ruff_lint() -> None:
    res = _run([sys.executable, "-m", "ruff", "check", "."], ROOT)
    assert res.returncode == 0, res.stdout + res.stderr


def test_ruff_format() -> None:
    res = _run([sys.executable, "-m", "ruff", "format", "--check", "."], ROOT)
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_strict_on_spec_and_impl(staged: Path) -> None:
    cmd = [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
           "-p", "schedspec.spec", "-p", "schedspec.impl"]  # fmt: skip
    res = _run(cmd, staged)
    report = res.stdout.replace("schedspec/spec/", "spec/").replace("schedspec/impl/", "impl/")
    assert res.returncode == 0, report + res.stderr


def test_import_layers(staged: Path) -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    cmd = [str(lint)] if lint.exists() else [sys.executable, "-m", "importlinter.cli"]
    env = {"PYTHONPATH": str(staged), "PATH": str(Path(sys.executable).parent)}
    res = subprocess.run(cmd, cwd=staged, capture_output=True, text=True, check=False, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Contracts: 2 kept, 0 broken" in res.stdout, res.stdout
