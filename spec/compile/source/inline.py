"""Which module definitions are compiled in place at each call (``inline_set``)."""

from __future__ import annotations

from schedspec.spec import ast as A

# ---- which definitions are compiled in place ----------------------------------------------------

# Node types a definition compiled in place may contain: no loop, no nested function.
_FLAT = (
    A.Num, A.Str, A.Bool, A.Name, A.Apply, A.Field, A.Index, A.Unary, A.Binary, A.Junction,
    A.If, A.Case, A.TupleLit, A.RecordLit, A.SetEnum,
)  # fmt: skip
# Built-ins that do not walk a collection (one that does is worth its definition's memo).
_FLAT_BUILTINS = frozenset(
    {"Cardinality", "Len", "Head", "Tail", "Append", "IsInt", "ToInt", "IsLabelKey",
     "IsLabelValue", "StartsWith", "Contains", "BeforeSlashIs", "FloatScale"}
)  # fmt: skip
_INLINE_NODES = 40


def inline_set(module: A.Module) -> frozenset[str]:
    """Module definitions small and flat enough to compile in place: at most ``_INLINE_NODES``
    nodes, none of them a loop, LET or LAMBDA, calling only built-ins that do not walk a
    collection and definitions that qualify themselves (never through a cycle)."""
    defs = {d.name: d for d in module.definitions}
    verdict: dict[str, bool] = {}

    def flat(name: str, visiting: frozenset[str]) -> bool:
        if name in verdict:
            return verdict[name]
        if name in visiting:
            return False
        d = defs[name]
        params = {p.name for p in d.params}
        nodes = [n for n in A.walk(d.body) if isinstance(n, A.EXPR_TYPES)]
        ok = len(nodes) <= _INLINE_NODES and all(isinstance(n, _FLAT) for n in nodes)
        for n in nodes:
            if ok and isinstance(n, A.Apply | A.Name) and n.name not in params:
                if n.name in defs:
                    ok = flat(n.name, visiting | {name})
                elif isinstance(n, A.Apply):
                    ok = n.name in _FLAT_BUILTINS
        verdict[name] = ok
        return ok

    return frozenset(name for name in defs if flat(name, frozenset()))
