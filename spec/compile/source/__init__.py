"""The generated-source backend: every module definition becomes one Python function.

The closure backend (:mod:`.python`) walks a tree of closures and keeps every binding in a dict;
that is what lets :mod:`.explain` and :mod:`.coverage` re-run any sub-expression, and it is what
costs the checker most of its time. This backend compiles the same AST to Python *source*, one
function per definition: parameters and bound variables are Python locals, ``∧``/``∨``, CASE and
IF are ``if`` statements, quantifiers and comprehensions are ``for`` loops, and each operator
checks the common case inline (two integers, a set, a record with the field) before handing
anything unusual to the closure backend's own checks. Values, evaluation order and every
:class:`EvalError` (message and span) are the closure backend's; ``tests/spec/
test_compile_source.py`` holds the two to that on random expressions and modules, the scenario
files and the bundled specs over generated clusters.

No spec text reaches the generated source. Names are replaced by generated identifiers
(``a3``, ``x7``), literals are written with :func:`repr`, and everything else the code needs (AST
nodes for error spans, built-in implementations, messages) is a global of the generated module.

Module definitions are memoised per argument tuple, as in :class:`.python.Program`, until the
next :meth:`SourceProgram.bind`; ``bind(…, keep=True)`` forgets only the values of the
definitions that read (themselves or through the definitions they call) a constant it binds to
another object than before: a checker's clusters share most pods, so ``Requests(p)`` or
``TaintsOK(p, n)`` of one cluster is often the next one's. A zero-parameter LET definition is
evaluated at most once per evaluation of its LET (the closure backend evaluates it at each use;
the value is the same, definitions being pure, and an error surfaces at the first use either
way). A LAMBDA captures the values of the variables it uses when it is made; a LET inside a loop
gets a function of its own, so the definitions it makes keep the bindings of their iteration.

A pure, flat sub-expression (no binder, LET or LAMBDA in it) already computed on every path to a
point of a function is not computed again there: same shape, spans aside, and its names meaning
the same locals, definitions or constants (``p.spec.schedulerName``, ``Profiles``, a definition
compiled in place with the same arguments). What an IF or CASE arm, a short-circuited operand or
a loop body computed is forgotten when that block ends. Reusing a value that was computed
without error changes no value and no error: the second evaluation would have given the same.

Should a definition not compile (an expression nested past Python's limits), that one definition
runs on the closure backend; :attr:`SourceProgram.fallbacks` names them.
"""

from schedspec.spec.compile.source.inline import inline_set
from schedspec.spec.compile.source.program import RECURSED, SourceProgram, compile_source

__all__ = ["RECURSED", "SourceProgram", "compile_source", "inline_set"]
