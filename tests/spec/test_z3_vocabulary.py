"""A query's own strings join the bounded cluster; what the cap leaves out makes `unsat` `unknown`
(spec/kube/symbolic/vocabulary.py). Before, a label key or value outside the fixed lists gave a
plain `unsat`: an artefact of the bounds read as "impossible"."""

from __future__ import annotations

import pytest

from schedspec.cli import main
from schedspec.spec.kube.symbolic.bounds import LABEL_KEYS, LABEL_VALUES, Bounds
from schedspec.spec.kube.symbolic.vocabulary import CAP, literals
from schedspec.spec.parse import parse_expr
from schedspec.spec.solve import diff, find


def test_a_label_the_bounds_do_not_list_is_found() -> None:
    assert "ssd" not in LABEL_VALUES and "disktype" not in LABEL_KEYS[: Bounds().keys]
    answer = find('p.metadata.labels["disktype"] = "ssd" /\\ Feasible(p, n)')
    assert answer.result == "sat"
    pod = next(o for o in answer.objects if o["kind"] == "Pod")
    assert pod["metadata"]["labels"]["disktype"] == "ssd"
    assert answer.notes == [
        "the query's strings join the bounded cluster: label keys 'disktype'; label values 'ssd'"
    ]


def test_a_namespace_named_by_the_query_is_one_the_cluster_can_hold() -> None:
    answer = find('p.metadata.namespace = "payments" /\\ p.spec.nodeName = ""')
    assert answer.result == "sat"
    kinds = {
        (o["kind"], o["metadata"].get("namespace", o["metadata"]["name"])) for o in answer.objects
    }
    assert ("Namespace", "payments") in kinds and ("Pod", "payments") in kinds


def test_beyond_the_cap_unsat_is_unknown_with_the_note(capsys: pytest.CaptureFixture[str]) -> None:
    extra = CAP + 1
    formula = " /\\ ".join(f'p.metadata.labels["k{i}"] = "v{i}"' for i in range(extra))
    code = main(["find", formula])
    out = capsys.readouterr().out
    assert code == 3
    assert f"note: 'k{CAP}' is not a label key of the bounded cluster" in out
    assert f"note: 'v{CAP}' is not a label value of the bounded cluster" in out
    assert "unknown: no cluster within the bounds satisfies the formula" in out
    assert "unsat" not in out


def test_within_the_cap_the_same_question_is_answered() -> None:
    formula = " /\\ ".join(f'p.metadata.labels["k{i}"] = "v{i}"' for i in range(CAP))
    assert find(formula).result == "sat"


def test_diff_where_strings_join_too() -> None:
    answer = diff(
        "scheduler",
        "scheduler",
        "TaintsOK",
        "Feasible",
        implies=True,
        where='n.metadata.labels["pool"] = "gpu"',
    )
    assert answer.result == "sat"
    node = next(o for o in answer.objects if o["kind"] == "Node")
    assert node["metadata"]["labels"]["pool"] == "gpu"


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ('p.metadata.labels["disktype"] = "ssd"', [("disktype", "key"), ("ssd", "value")]),
        ('"gpu" \\in DOMAIN n.metadata.labels', [("gpu", "key")]),
        ('Labels(n)["gpu"] = "a100"', [("gpu", "key"), ("a100", "value")]),
        (
            'p.metadata.namespace \\in {"prod", "dev"}',
            [("prod", "namespace"), ("dev", "namespace")],
        ),
        ('\\E t \\in n.spec.taints : t.key = "dedicated"', [("dedicated", "key")]),
        ('Feasible(p, n) /\\ p.status.phase = "Pending"', [("Pending", "phase")]),
        ('\\E t \\in p.spec.tolerations : t.operator = "Exists"', [("Exists", "operator")]),
        ('AffinityTerms(p, "podAffinity") # {}', [("podAffinity", "any")]),
        ('Get(n.status.allocatable, "nvidia.com/gpu") > 0', [("nvidia.com/gpu", "resource")]),
    ],
)
def test_each_literal_gets_the_role_where_it_stands(
    formula: str, expected: list[tuple[str, str]]
) -> None:
    assert literals(parse_expr(formula, "<formula>")) == expected


def test_an_extended_resource_joins_and_another_resource_makes_unsat_unknown() -> None:
    answer = find('Get(n.status.allocatable, "nvidia.com/gpu") > 0')
    assert answer.result == "sat"
    assert answer.notes == [
        "the query's strings join the bounded cluster: extended resources 'nvidia.com/gpu'"
    ]
    node = next(o for o in answer.objects if o["kind"] == "Node")
    assert node["status"]["allocatable"]["nvidia.com/gpu"] > 0
    answer = find('Get(n.status.allocatable, "hugepages-2Mi") > 0')
    assert answer.result == "unknown"
    assert answer.notes == [
        "'hugepages-2Mi' is not a resource of the bounded cluster (cpu, memory, "
        "example.com/gpu, pods): an answer that needs it is unknown"
    ]


def test_a_field_name_in_no_role_joins_nothing() -> None:
    answer = find('AffinityTerms(p, "podAffinity") # {}')
    assert answer.result == "sat"
    assert answer.notes == []  # "podAffinity" names a field: it is neither a label key nor value
    labels = [o["metadata"].get("labels", {}) for o in answer.objects]
    assert all("podAffinity" not in (*m, *m.values()) for m in labels)


def test_a_phase_outside_the_fixed_list_makes_unsat_unknown() -> None:
    answer = find('p.status.phase = "Runing"')
    assert answer.result == "unknown"
    assert answer.notes == [
        "'Runing' is not a phase the bounded cluster draws ('Pending', 'Running', 'Succeeded', "
        "'Failed'): an answer that needs it is unknown"
    ]
