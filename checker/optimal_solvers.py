"""The optimum's model (:mod:`schedspec.checker.optimal_model`) handed to a solver: OR-Tools'
CP-SAT (the default) or Z3's ``Optimize``. Both answer the same model; bench/optimal.py measures
them side by side and docs/optimal.md has the figures (CP-SAT proves in well under a second
optimums that Z3 does not reach in a minute at 20 nodes × 40 pods: why the dependency is there).

CP-SAT: 0/1 variables are Boolean variables, the spread floors bounded integers, an enforced
constraint is ``OnlyEnforceIf``, the objective a linear sum to maximise; one worker, so the same
input gives the same answer.

Z3: 0/1 variables are Z3 Booleans, the spread floors bounded integers; a linear constraint over
Booleans alone is a pseudo-Boolean one (``PbLe``), one that names an integer is arithmetic over
``If(b, c, 0)``; an enforced one is an implication. The objective is a set of weighted soft
constraints (a positive weight on ``b``, a negative one as the same weight on ``¬b``), which
Z3 solves by core-guided MaxSAT (MaxRes) rather than by linear search on the sum. Cuts (a
placement the replay refused) are clauses added between calls: ``solve`` then starts again
from the new constraints.

bench/optimal.py measures this against OR-Tools' CP-SAT on the same models (docs/optimal.md).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import z3

from schedspec.checker.optimal_model import Implies, Lin, Problem, Var

__all__ = ["SOLVERS", "CpSatBackend", "Solution", "Z3Backend", "backend"]

SOLVERS = ("cpsat", "z3")


@dataclass(frozen=True, slots=True)
class Solution:
    """``status``: optimal (for the model and cuts so far), feasible (a model found, not proven
    best: timeout), infeasible, unknown (nothing found in time). ``true``: the placement
    variables set to 1."""

    status: str
    true: frozenset[Var]
    seconds: float
    bound: float | None = None  # the solver's proven upper bound on the objective, if any


class Z3Backend:
    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.opt = z3.Optimize()
        self.vars: list[z3.ExprRef] = []
        for v in range(problem.n_vars):
            if v in problem.ints:
                lo, hi = problem.ints[v]
                iv = z3.Int(f"m{v}")
                self.opt.add(iv >= lo, iv <= hi)
                self.vars.append(iv)
            else:
                self.vars.append(z3.Bool(f"b{v}"))
        for c in problem.constraints:
            self.opt.add(self._constraint(c))
        for weight, v in problem.objective:
            if weight > 0:
                self.opt.add_soft(self.vars[v], weight)
            elif weight < 0:
                self.opt.add_soft(z3.Not(self.vars[v]), -weight)

    def _constraint(self, c: Lin | Implies) -> z3.BoolRef:
        if isinstance(c, Implies):
            body = z3.Or([self.vars[v] for v in c.any_of]) if c.any_of else z3.BoolVal(False)
            return z3.Implies(self.vars[c.when], body)
        if any(v in self.problem.ints for _, v in c.terms):
            total = z3.Sum(
                [
                    coef * self.vars[v] if v in self.problem.ints else z3.If(self.vars[v], coef, 0)
                    for coef, v in c.terms
                ]
            )
            body = total <= c.rhs
        elif c.terms:
            body = z3.PbLe([(self.vars[v], coef) for coef, v in c.terms], c.rhs)
        else:
            body = z3.BoolVal(c.rhs >= 0)
        return body if c.when is None else z3.Implies(self.vars[c.when], body)

    def hint(self, true: Iterable[Var]) -> None:
        """A known placement to start from: Z3's Optimize takes none."""

    def cut(self, true: Iterable[Var]) -> None:
        """Exclude exactly this placement (its placement variables, all of them)."""
        chosen = set(true)
        lits = [
            z3.Not(self.vars[v]) if v in chosen else self.vars[v] for v in self.problem.x.values()
        ]
        self.opt.add(z3.Or(lits))

    def solve(self, timeout: float) -> Solution:
        start = time.perf_counter()
        self.opt.set("timeout", max(1, int(timeout * 1000)))
        answer = self.opt.check()
        seconds = time.perf_counter() - start
        if answer == z3.unsat:
            return Solution("infeasible", frozenset(), seconds)
        status = "optimal" if answer == z3.sat else "feasible"
        try:
            model = self.opt.model()
        except z3.Z3Exception:
            return Solution("unknown", frozenset(), seconds)
        true = frozenset(
            v
            for v in self.problem.x.values()
            if z3.is_true(model.eval(self.vars[v], model_completion=True))
        )
        if answer != z3.sat and not len(model):
            return Solution("unknown", frozenset(), seconds)
        return Solution(status, true, seconds)


class CpSatBackend:
    def __init__(self, problem: Problem, workers: int = 1) -> None:
        from ortools.sat.python import cp_model

        self._cp = cp_model
        self.problem = problem
        self.workers = workers
        self.model = cp_model.CpModel()
        m = self.model
        self.vars: list[Any] = []
        for v in range(problem.n_vars):
            if v in problem.ints:
                lo, hi = problem.ints[v]
                self.vars.append(m.new_int_var(lo, hi, f"m{v}"))
            else:
                self.vars.append(m.new_bool_var(f"b{v}"))
        for c in problem.constraints:
            if isinstance(c, Implies):
                if c.any_of:
                    m.add_bool_or([self.vars[v] for v in c.any_of]).only_enforce_if(
                        self.vars[c.when]
                    )
                else:
                    m.add(self.vars[c.when] == 0)
                continue
            ct = m.add(sum(coef * self.vars[v] for coef, v in c.terms) <= c.rhs)
            if c.when is not None:
                ct.only_enforce_if(self.vars[c.when])
        m.maximize(sum(w * self.vars[v] for w, v in problem.objective))

    def hint(self, true: Iterable[Var]) -> None:
        """Start the search from this placement (greedy's, when valid)."""
        chosen = set(true)
        for v in self.problem.x.values():
            self.model.add_hint(self.vars[v], v in chosen)

    def cut(self, true: Iterable[Var]) -> None:
        chosen = set(true)
        lits = [
            self.vars[v].Not() if v in chosen else self.vars[v] for v in self.problem.x.values()
        ]
        self.model.add_bool_or(lits)

    def solve(self, timeout: float) -> Solution:
        cp = self._cp
        solver = cp.CpSolver()
        solver.parameters.max_time_in_seconds = max(timeout, 0.001)
        solver.parameters.num_workers = self.workers
        start = time.perf_counter()
        status = solver.solve(self.model)
        seconds = time.perf_counter() - start
        if status == cp.INFEASIBLE:
            return Solution("infeasible", frozenset(), seconds)
        if status not in (cp.OPTIMAL, cp.FEASIBLE):
            return Solution("unknown", frozenset(), seconds)
        true = frozenset(v for v in self.problem.x.values() if solver.boolean_value(self.vars[v]))
        found = "optimal" if status == cp.OPTIMAL else "feasible"
        return Solution(found, true, seconds, solver.best_objective_bound)


def backend(name: str, problem: Problem) -> Z3Backend | CpSatBackend:
    """The named solver on ``problem``."""
    if name == "z3":
        return Z3Backend(problem)
    if name == "cpsat":
        return CpSatBackend(problem)
    raise ValueError(name)
