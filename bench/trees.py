"""Another checkout of schedspec, importable beside this one: the bench scripts that compare this
checkout with a baseline (``git worktree add /tmp/base <commit>``) run the baseline in a child
process that imports ``schedspec`` from it.

The editable install maps ``schedspec.spec``, ``.impl`` and ``.checker`` to top-level folders
(``package-dir``); :func:`package_of` lays a tree out as installed, in a temporary folder of
symlinks that goes first on the child's ``sys.path``, so the install's finder never answers. The
child runs from ``/``: from a checkout, the current folder's own ``schedspec/`` would win.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

_PACKAGES = {"impl": "impl", "spec": "spec", "checker": "checker"}


def package_of(tree: Path, into: Path) -> None:
    """``into/schedspec``: ``tree``'s front door with its three subpackages linked under it."""
    pkg = into / "schedspec"
    pkg.mkdir()
    for item in (tree / "schedspec").iterdir():
        (pkg / item.name).symlink_to(item)
    for name, folder in _PACKAGES.items():
        (pkg / name).symlink_to(tree / folder)


_LAUNCH = """\
import os, runpy, sys
script = sys.argv[2]
sys.path[:0] = [sys.argv[1], os.path.dirname(script)]
sys.argv = [script, *sys.argv[3:]]
runpy.run_path(script, run_name="__main__")
"""


def run_script_with(tree: Path, script: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """``python3 script *args`` with ``schedspec`` imported from ``tree``; output captured."""
    with tempfile.TemporaryDirectory(prefix="schedspec-tree-") as tmp:
        package_of(tree, Path(tmp))
        argv = [sys.executable, "-c", _LAUNCH, tmp, str(script.resolve()), *args]
        return subprocess.run(argv, capture_output=True, text=True, cwd="/", check=False)
