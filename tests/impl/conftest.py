"""Makes ``impl_builders`` importable from every test module under tests/impl."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
