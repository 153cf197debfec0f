"""AST mutants of the operational scheduler's plugins and preemption, judged by the checker.

A mutant is one small edit of one module of ``impl/`` — a flipped comparison, a dropped operand of
``and``/``or``, ``and``↔``or``, a removed ``not``, an integer constant ±1, ``return True``↔``return
False``, ``+``↔``-``, ``max``↔``min`` — in the spirit of mutmut and cosmic-ray, written here so that
every mutant applies in a forked child of a warm parent and costs only its campaign::

    mutants = enumerate_mutants()                      # deterministic, in reach and out of reach
    outcome = run_mutant(mutants[0], killer, examples=50, seed=0, timeout=60.0)
    outcome.status                                     # "killed" | "survived" | "timeout" | "error"

**Scope.** The default plugins the checker judges (``SCOPE``) and the preemption package. Sites in
queueing-hint functions (``is_schedulable_after_*``, ``events_to_register``) and in ``raise``
statements (error text) are enumerated but marked *out of reach*: the checker never calls them, so
a score over them would measure nothing (``bench/mutation.py --hints`` runs the queueing-hint
ones with ``queue_trace_killer``: queue trace validation with the verdicts pinned to
``spec/kube/hints.tla``). Sites in f-strings, docstrings, annotations, decorators
and ``__repr__``/``__str__`` are not mutated at all.

**Applying a mutant.** The mutated module is compiled from the edited AST (line numbers kept). When
the site lies in a function body, the function's code object is swapped in place
(``live.__code__ = mutated``): every reference to that function object — ``from … import`` names
in other modules, the plugin registry's factories, bound methods of plugins built at warm-up — runs
the mutated code, and nothing needs rebinding. A site outside any function body (a module
constant, a default argument, a class attribute) re-executes the whole mutated module into the
live module's ``__dict__`` and rebinds, in every loaded module, the names that held the replaced
objects. Either way this happens only in the forked child; the parent stays pristine.

**Killing.** A *killer* is ``f(examples, seed) -> problems`` run in the child; the mutant is killed
when the problems differ from the unmutated baseline's (normally none), when the killer raises, or
when the child dies; a child still running after ``timeout`` seconds is killed by the parent and
counted apart (``timeout``). ``campaign_killer`` runs the checker's short campaign
(``schedspec.checker.campaign.run_campaign``, undeclared disagreements are problems);
``preemption_killer`` the campaign and the properties over clusters made for preemption;
``corpus_killer`` the seed corpus (Z3 witness states, the warned states, the hand-checked
scenarios) through the same differential check and the decision-level properties;
``properties_killer`` the decision-level properties; ``pytest_killer`` the impl unit tests (the
stand-in used before the campaign existed).
"""

from __future__ import annotations

from schedspec.checker.mutants.applying import StaleSource, apply_mutant
from schedspec.checker.mutants.enumeration import _source as _source
from schedspec.checker.mutants.enumeration import enumerate_mutants
from schedspec.checker.mutants.running import (
    Killer,
    KillerChain,
    Outcome,
    campaign_killer,
    corpus_killer,
    load_killer,
    preemption_killer,
    properties_killer,
    pytest_killer,
    queue_trace_killer,
    run_in_child,
    run_mutant,
    run_mutants,
)
from schedspec.checker.mutants.running import scoring_killer as scoring_killer
from schedspec.checker.mutants.scope import OUT_OF_REACH_FUNCTIONS, SCOPE, Mutant

__all__ = [
    "OUT_OF_REACH_FUNCTIONS",
    "SCOPE",
    "Killer",
    "KillerChain",
    "Mutant",
    "Outcome",
    "StaleSource",
    "apply_mutant",
    "campaign_killer",
    "corpus_killer",
    "enumerate_mutants",
    "load_killer",
    "preemption_killer",
    "properties_killer",
    "pytest_killer",
    "queue_trace_killer",
    "run_in_child",
    "run_mutant",
    "run_mutants",
]
