"""Witnesses written out: YAML manifests and one-state ITF traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schedspec import itf as itf_format
from schedspec.errors import UsageError
from schedspec.spec.solve.answers import Answer, Witness


def itf(witness: Witness, *, source: str) -> dict[str, Any]:
    """The witness as a one-state ITF trace (the Apalache/Quint trace format)."""
    state = itf_format.cluster_state(witness.objects)
    meta = {
        "source": source,
        "description": "schedspec witness",
        "bindings": witness.bindings,
        "verdicts": witness.verdicts,
    }
    return itf_format.document(["nodes", "pods"], [state], meta)


def write(answer: Answer, out_dir: str, *, source: str) -> list[str]:
    """Write each witness as ``witness-K.yaml`` and ``witness-K.itf.json`` into ``out_dir``."""
    path = Path(out_dir)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {out_dir}: {err}") from None
    written = []
    for k, w in enumerate(answer.witnesses, 1):
        y, j = path / f"witness-{k}.yaml", path / f"witness-{k}.itf.json"
        y.write_text(w.yaml(), encoding="utf-8")
        j.write_text(json.dumps(itf(w, source=source), indent=2), encoding="utf-8")
        written += [str(y), str(j)]
    return written
