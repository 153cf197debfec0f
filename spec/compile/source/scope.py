"""What a name means at a point of the generated program: the function being generated, its
locals and LET definitions, and the shapes of pure expressions (common sub-expressions)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from schedspec.spec import ast as A

# ---- what a name means at a point of the program ------------------------------------------------


class _Fn:
    """A Python function being generated: its lines, and the outer locals its body uses."""

    def __init__(self, parent: _Fn | None) -> None:
        self.parent = parent
        self.lines: list[str] = []
        self.depth = 1  # indentation of the next line, in levels
        self.loops = 0  # enclosing `for` statements of this function at the current line
        self.free: dict[str, None] = {}  # outer locals used, in first-use order
        # pure expressions computed on every path to the current line: key → the local holding
        # the value; each block (indentation level) lists the keys it added, forgotten when it
        # closes, so a value computed in an IF arm or a short-circuited operand is not reused
        # after it
        self.known: dict[_Key, str] = {}
        self.added: list[list[_Key]] = [[]]

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def open_block(self) -> None:
        self.depth += 1
        self.added.append([])

    def close_blocks(self, n: int) -> None:
        self.depth -= n
        for _ in range(n):
            for key in self.added.pop():
                del self.known[key]


@dataclass(frozen=True)
class _Var:
    py: str
    owner: _Fn


@dataclass
class _LetDef:
    """A LET definition is one of: a local variable, its body compiled where it is first needed
    (``local``); a nested function with a one-element list caching its value (``cell``); a
    nested function (parameters)."""

    definition: A.Definition
    fn: str
    cell: str | None
    owner: _Fn
    local: str | None = None
    scope: _Scope | None = None  # the LET's, for a local's body


@dataclass(frozen=True)
class _Scope:
    variables: Mapping[str, _Var] = field(default_factory=dict)
    lets: Mapping[str, _LetDef] = field(default_factory=dict)

    def bind(self, names: Mapping[str, _Var]) -> _Scope:
        return _Scope({**self.variables, **names}, self.lets)


_Key = tuple[int, tuple[tuple[str, str], ...]]


def _meaning(name: str, scope: _Scope) -> tuple[str, str]:
    """What ``name`` stands for in ``scope``: a local (its Python name), a LET definition, or a
    module definition, constant or built-in (the same throughout)."""
    var = scope.variables.get(name)
    if var is not None:
        return "v", var.py
    let = scope.lets.get(name)
    if let is not None:
        return "l", let.local or let.fn
    return "g", name


_Shape = tuple[int, tuple[str, ...], bool]
_LITERALS = (A.Num, A.Str, A.Bool)


class _Shapes:
    """Each pure, flat expression's shape (spans left out) as a small integer, the names it reads
    in order, and whether its value is worth keeping: two nodes of one shape whose names mean the
    same things compute the same value, or raise, both. Flat: no binder, LET or LAMBDA in it (a
    bound variable is a Python local that changes as the loop runs)."""

    def __init__(self) -> None:
        self._ids: dict[tuple[object, ...], int] = {}
        self._of: dict[int, tuple[A.Expr, _Shape | None]] = {}  # id(node) → (node, shape)

    def of(self, node: A.Expr) -> _Shape | None:
        hit = self._of.get(id(node))
        if hit is not None:
            return hit[1]
        shape = self._shape(node)
        self._of[id(node)] = (node, shape)  # the node kept alive, so its id is not reused
        return shape

    def _all(self, nodes: tuple[A.Expr, ...]) -> list[_Shape] | None:
        shapes = [self.of(n) for n in nodes]
        return None if any(s is None for s in shapes) else shapes  # type: ignore[return-value]

    def _shape(self, node: A.Expr) -> _Shape | None:
        kind = type(node)
        if isinstance(node, _LITERALS):
            return self._intern((kind, type(node.value), node.value)), (), False
        if isinstance(node, A.Name):
            return self._intern((kind,)), (node.name,), True
        parts: tuple[object, ...]
        if isinstance(node, A.Apply):
            items, parts = node.args, ()
        elif isinstance(node, A.Index):
            items, parts = (node.fn, *node.args), ()
        elif isinstance(node, A.TupleLit | A.SetEnum):
            items, parts = node.items, ()
        elif isinstance(node, A.Junction):
            items, parts = node.items, (node.op,)
        elif isinstance(node, A.Field):
            items, parts = (node.record,), (node.name,)
        elif isinstance(node, A.Unary):
            items, parts = (node.operand,), (node.op,)
        elif isinstance(node, A.Binary):
            items, parts = (node.left, node.right), (node.op,)
        elif isinstance(node, A.If):
            items, parts = (node.cond, node.then, node.else_), ()
        elif isinstance(node, A.Case):
            arms = tuple(e for arm in node.arms for e in (arm.guard, arm.body))
            items = arms if node.other is None else (*arms, node.other)
            parts = (node.other is None,)
        elif isinstance(node, A.RecordLit):
            items, parts = tuple(v for _, v in node.fields), tuple(k for k, _ in node.fields)
        else:
            return None
        shapes = self._all(items)
        if shapes is None:
            return None
        names = tuple(n for s in shapes for n in s[1])
        if isinstance(node, A.Apply):
            names = (node.name, *names)
        # a set of literals is built once, a global
        keep = not isinstance(node, A.SetEnum) or not all(isinstance(i, _LITERALS) for i in items)
        sid = self._intern((kind, len(items), *parts, *(s[0] for s in shapes)))
        return sid, names, keep

    def _intern(self, shape: tuple[object, ...]) -> int:
        return self._ids.setdefault(shape, len(self._ids))
