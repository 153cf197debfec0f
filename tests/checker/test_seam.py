"""The seam is complete: every plugin and every (pod, node) rule of scheduler.tla has a partner,
or a written reason why not; every impl name on it resolves."""

from __future__ import annotations

import importlib

import pytest

from schedspec.checker.seam import SEAM, TEXTBOOK_SEAM, UNPAIRED_DEFINITIONS, UNPAIRED_PLUGINS
from schedspec.impl.framework.declared import DECLARED_OUT_OF_SCOPE
from schedspec.impl.plugins import in_tree_registry
from schedspec.spec.load import load_spec


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_every_registered_plugin_has_a_partner_or_a_reason() -> None:
    paired = {row.plugin for row in SEAM}
    missing = set(in_tree_registry()) - paired - set(UNPAIRED_PLUGINS)
    assert missing == set(), f"plugins with no seam row and no reason: {sorted(missing)}"


def test_no_out_of_scope_plugin_is_on_the_seam() -> None:
    assert not {row.plugin for row in SEAM} & set(DECLARED_OUT_OF_SCOPE)


@pytest.mark.parametrize("row", SEAM, ids=lambda r: r.spec)
def test_every_row_names_a_real_definition_and_impl_function(row: object) -> None:
    spec = load_spec("scheduler")
    assert spec.program.has(row.spec)  # type: ignore[attr-defined]
    assert callable(_resolve(row.impl)) or row.point == "decision"  # type: ignore[attr-defined]


def test_every_pod_node_rule_of_the_real_spec_is_paired_or_explained() -> None:
    """A definition ending in OK/Score over (p, n) is a rule; a new one needs a seam row."""
    spec = load_spec("scheduler")
    on_seam = {row.spec for row in SEAM}
    rules = {
        d.name
        for d in spec.module.definitions
        if [p.name for p in d.params][:2] == ["p", "n"]
        and (d.name.endswith(("OK", "Score", "Status")) or d.name in ("Feasible", "Viability"))
    }
    unpaired = rules - on_seam - set(UNPAIRED_DEFINITIONS)
    assert unpaired == set(), f"rules with no seam row and no reason: {sorted(unpaired)}"
    stale = set(UNPAIRED_DEFINITIONS) - {d.name for d in spec.module.definitions}
    assert stale == set(), f"UNPAIRED_DEFINITIONS names definitions that are gone: {stale}"


def test_textbook_pairs_name_textbook_definitions_and_seam_rows() -> None:
    textbook = load_spec("textbook")
    rows = {row.spec for row in SEAM}
    for spec_defs, impl_rows in TEXTBOOK_SEAM:
        assert all(textbook.program.has(d) for d in spec_defs), spec_defs
        assert set(impl_rows) <= rows, impl_rows
