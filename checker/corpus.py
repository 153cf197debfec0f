"""A campaign's seed corpus: fixed clusters checked before the generated ones.

Generated clusters find what is common; some rules only show on clusters a strategy rarely
draws — a selector the API server would refuse, a request exactly at a node's free capacity, the
one CASE arm three conditions deep. A corpus carries those, as a fuzzer's seed corpus does:

* :func:`z3_seeds` — the Z3 states (:mod:`schedspec.checker.z3states`): a witness cluster per
  coverage target of the spec's Filter path (each conjunct true and false, each CASE arm),
  solved once and cached on disk, and :func:`warned_seeds`, the hand-made clusters outside Z3's
  bounds;
* :func:`manifest_seeds` — clusters from files: Kubernetes manifests (YAML, multi-document,
  ``kind: List``, JSON), or scenario files whose ``objects:`` holds the manifests
  (``tests/spec/scenarios/``), one cluster per file; a directory is read recursively.

Every seed is checked exactly as a generated cluster is (:meth:`Checker.check`): the corpus
supplies inputs, the verdicts still come from the spec and the impl independently.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedspec.cluster import loads
from schedspec.errors import ManifestError
from schedspec.manifest_yaml import expand, parse

__all__ = ["Seed", "manifest_seeds", "warned_seeds", "z3_seeds"]

Objects = list[dict[str, Any]]
SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Seed:
    """One corpus cluster: where it came from and its objects (manifests as dicts)."""

    source: str
    objects: Objects


def z3_seeds(spec: str = "scheduler", *, timeout: float = 5.0) -> list[Seed]:
    """A seed per Z3 state with a witness (``sat``), then :func:`warned_seeds`. The first call
    on a machine solves every target (minutes); later calls read the disk cache."""
    from schedspec.checker.z3states import z3_states

    states = z3_states(spec, timeout=timeout)
    return [Seed(f"z3: {s.label}", s.objects) for s in states if s.result == "sat"] + warned_seeds()


def warned_seeds() -> list[Seed]:
    """The hand-made clusters beyond Z3's bounds: label selectors the API server would refuse
    (the loader warns), which kube-scheduler answers with Error or Unresolvable."""
    from schedspec.checker.z3states import WARNED_STATES

    return [Seed(f"warned: {what}", objects) for what, objects in WARNED_STATES]


def _files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file())
            if not found:
                raise ManifestError("no .yaml, .yml or .json file in this directory", where=str(p))
            files += found
        elif p.is_file():
            files.append(p)
        else:
            raise ManifestError("no such file or directory", where=str(p))
    return files


def _scenario_objects(data: Any) -> str | None:
    """The manifests text of a scenario file (a mapping with ``objects: |`` and no ``kind``)."""
    if isinstance(data, dict) and "kind" not in data and isinstance(data.get("objects"), str):
        return str(data["objects"])
    return None


def manifest_seeds(paths: Iterable[str | os.PathLike[str]]) -> list[Seed]:
    """A seed per file of ``paths`` (files, or directories read recursively). Raises
    :class:`ManifestError` naming the file (and line) for a file that is not a valid cluster,
    before any seed is returned: a corpus loads whole or not at all."""
    seeds: list[Seed] = []
    for f in _files(paths):
        source = str(f)
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise ManifestError(f"cannot read: {err}", where=source) from None
        docs = parse(text, source)
        inner = _scenario_objects(docs[0].data) if len(docs) == 1 else None
        if inner is not None:
            text, source = inner, f"{source} (objects:)"
            docs = parse(text, source)
        loads(text, source=source)  # validated as `schedspec explain` would: file:line errors
        seeds.append(Seed(str(f), [d.data for doc in docs for d in expand(doc)]))
    return seeds
