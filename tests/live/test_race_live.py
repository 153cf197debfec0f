"""bench/race.py's real side on a tiny workload: objects created through the API, the real
kube-scheduler started after, every measured pod's binding seen by the watch."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.apiserver


def _race():  # type: ignore[no-untyped-def]
    path = Path(__file__).resolve().parents[2] / "bench" / "race.py"
    spec = importlib.util.spec_from_file_location("bench_race", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_race"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["SchedulingBasic", "PreemptionBasic"])
def test_real_scheduler_binds_every_measured_pod(live_binaries: None, name: str) -> None:
    race = _race()
    load = race.workload(name, 5)
    figure = race.run_real(load, client_qps=5000, threads=4, stall=30.0)
    assert figure.bound == len(load.measured)
    assert "percentageOfNodesToScore=0 parallelism=16" in figure.note
