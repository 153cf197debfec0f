"""``schedspec find`` and ``schedspec diff``: ask Z3 for a cluster.

A :class:`Session` builds one bounded symbolic cluster (:mod:`.kube.symbolic`) and compiles the
chosen specs over it (:mod:`.compile.z3`). A query's free variables name objects of the cluster:
``p``, ``q`` (and ``p1``, ``q2``, …) are pods, ``n``, ``m`` (and ``n1``, …) nodes, distinct
variables distinct objects.

The bounded cluster's nodes are interchangeable, and so are its pods: every one has the same
fields under the same constraints, only its name differs, and the specs compare names for
equality, never order them. Renaming a witness's objects (and the node names its pods are bound
or nominated to) gives another witness. So unless the query itself names an object (``node-2``,
``pod-0`` or a pod's uid), the free variables are *pinned*: the first pod variable is ``pod-0``,
the second ``pod-1``, the first node variable ``node-0``, and so on — a query has a witness iff
it has one with them pinned, and a pinned record is a plain record where an open choice would be
an IF-chain over every object (on 20 nodes × 20 pods, ``Feasible(p, n)`` compiles to 28 thousand
terms in 1.2 s pinned, to a million in 28 s open). A query that names an object keeps each
variable an open *choice*, an index into the pods or nodes.

Answers are ``sat`` (a witness cluster, written as Kubernetes manifests and as an ITF trace),
``unsat`` (no cluster within the bounds — never more than that), or ``unknown`` (the solver gave
up or ran out of time: exit 3, never reported as ``unsat``). Every witness is replayed through
:func:`schedspec.cluster.loads` and the executable backend; the verdicts printed are the
executable backend's, and a witness on which they differ from the solver's is an internal error,
reported loudly.

``--minimize`` tightens the witness level by level — fewest objects, then fewest labels, taints,
tolerations, terms, expressions and other slots, then the smallest integers — by binary search on
each measure, each level fixed before the next; a level the time budget cuts short is reported
as not proven minimal.
"""

from __future__ import annotations

from schedspec.spec.solve.answers import (
    Answer,
    SolverUnknown,
    Witness,
    free_names,
    names_objects,
)
from schedspec.spec.solve.commands import InternalDisagreement, diff, find
from schedspec.spec.solve.notes import (
    _bounds_text,
    approximated,
    bounds_notes,
    float_notes,
    reached,
    vocabulary_notes,
)
from schedspec.spec.solve.output import itf, write
from schedspec.spec.solve.replay import _load_witness
from schedspec.spec.solve.session import Session, _solver

__all__ = [
    "Answer",
    "InternalDisagreement",
    "Session",
    "SolverUnknown",
    "Witness",
    "_bounds_text",
    "_load_witness",
    "_solver",
    "approximated",
    "bounds_notes",
    "diff",
    "find",
    "float_notes",
    "free_names",
    "itf",
    "names_objects",
    "reached",
    "vocabulary_notes",
    "write",
]
