"""Golden-fixture plumbing shared by the spec's golden tests: ``<dir>/<name>.tla`` inputs, each with
``<name>.expected`` holding the exact rendered output. Set ``SCHEDSPEC_REGEN=1`` (or run the test
module with ``--regen``) to rewrite the ``.expected`` files, then review their diff."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REGEN = os.environ.get("SCHEDSPEC_REGEN") == "1"


@dataclass(frozen=True)
class Golden:
    folder: Path  # relative to the repository root, as file names appear in messages
    render: Callable[[Path], str]

    @property
    def fixtures(self) -> list[Path]:
        return sorted((ROOT / self.folder).glob("*.tla"))

    def expected_text(self) -> str:
        return "\n".join(p.read_text("utf-8") for p in (ROOT / self.folder).glob("*.expected"))

    def write(self, fixture: Path) -> None:
        out = self.render(fixture)
        fixture.with_suffix(".expected").write_text(out + "\n" if out else "", "utf-8")

    def assert_matches(self, fixture: Path) -> None:
        if REGEN:
            self.write(fixture)
        expected = fixture.with_suffix(".expected").read_text("utf-8").rstrip("\n")
        assert self.render(fixture) == expected

    def main(self, module: str) -> None:
        if sys.argv[1:] != ["--regen"]:
            sys.exit(f"usage: python3 -m {module} --regen")
        for fixture in self.fixtures:
            self.write(fixture)
            print(f"wrote {fixture.with_suffix('.expected').relative_to(ROOT)}")
