"""The distribution installs ``schedspec`` with its subpackages and data: a built wheel, imported on
its own (not through the editable install), loads the grammar and the bundled specs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
           "-q", "-w", str(out), str(ROOT)]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    (built,) = out.glob("schedspec-*.whl")
    return built


def test_wheel_holds_subpackages_and_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in ("schedspec/cli.py", "schedspec/py.typed", "schedspec/spec/parse.py",
                     "schedspec/spec/grammar/tla.lark", "schedspec/spec/kube/textbook.tla",
                     "schedspec/spec/kube/scheduler.tla",
                     "schedspec/spec/py.typed", "schedspec/impl/__init__.py",
                     "schedspec/checker/__init__.py"):  # fmt: skip
        assert required in names, f"{required} missing from {wheel.name}"
    assert not any(n.startswith(("spec/", "impl/", "checker/")) for n in names), "bare top-level"


def test_wheel_imports_and_loads_the_textbook_spec(wheel: Path) -> None:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import schedspec, schedspec.spec.load as L;"
        "assert schedspec.__file__.startswith(sys.argv[1]), schedspec.__file__;"
        "s = L.load_spec('textbook'); print(len(s.module.definitions))"
    )
    res = subprocess.run([sys.executable, "-c", code, str(wheel)], capture_output=True,
                         text=True, check=False, cwd="/")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert int(res.stdout) >= 10
