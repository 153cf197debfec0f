"""The generator: one Python function per module definition, from its AST (``_Generator``)."""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any

from schedspec.spec import ast as A
from schedspec.spec.compile import python as P
from schedspec.spec.compile.source.handlers import _HANDLERS
from schedspec.spec.compile.source.scope import _Fn, _Key, _meaning, _Scope, _Shapes, _Var


class _Generator:
    """Source for one module definition (and the globals it needs, in ``ns``)."""

    def __init__(
        self,
        ns: dict[str, Any],
        defs: Mapping[str, tuple[str, A.Definition]],
        inline: frozenset[str] = frozenset(),
        shapes: _Shapes | None = None,
    ) -> None:
        self.ns = ns
        self.defs = defs  # module definition name → (function name, definition)
        self.inline = inline  # definitions compiled in place at each call
        self.shapes = shapes if shapes is not None else _Shapes()
        self.fn = _Fn(None)
        self._counter = 0
        self._consts: dict[int, str] = {}
        # what the definition's value may depend on besides its arguments
        self.constants_read: set[str] = set()  # free constants (``CONSTS``)
        self.calls: set[str] = set()  # module definitions called (not compiled in place)

    # -- names ------------------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def const(self, obj: Any) -> str:
        """A global of the generated module holding ``obj`` (an AST node, a built-in, …)."""
        name = self._consts.get(id(obj))
        if name is None:
            name = self._consts[id(obj)] = f"k{len(self.ns)}"
            self.ns[name] = obj
        return name

    def use(self, py: str, owner: _Fn) -> str:
        """``py`` read in the current function: every function between here and its owner
        needs it from outside."""
        fn: _Fn | None = self.fn
        while fn is not None and fn is not owner:
            fn.free.setdefault(py)
            fn = fn.parent
        return py

    def emit(self, line: str) -> None:
        self.fn.emit(line)

    def tmp(self, expr: str) -> str:
        t = self.fresh("t")
        self.emit(f"{t} = {expr}")
        return t

    def indent(self) -> None:
        self.fn.open_block()

    def dedent(self, n: int = 1) -> None:
        self.fn.close_blocks(n)

    # -- definitions ------------------------------------------------------------------------------
    def module_definition(self, py: str, memo: str, d: A.Definition) -> str:
        params = [self.fresh("a") for _ in d.params]
        scope = _Scope({p.name: _Var(a, self.fn) for p, a in zip(d.params, params, strict=True)})
        # TRUE == 1 in Python: a key holding a boolean tags it, so f(1) never answers f(TRUE)
        tagged = [f"({a} if {a}.__class__ is not bool else (bool, {a}))" for a in params]
        key = "()" if not params else tagged[0] if len(params) == 1 else ", ".join(tagged)
        self.emit(f"key = {key}")
        self.emit(f"r = {memo}.get(key, MISS)")
        self.emit("if r is not MISS:")
        self.emit("    return r")
        value = self.expr(d.body, scope)
        self.emit(f"{memo}[key] = {value}")
        self.emit(f"return {value}")
        header = f"def {py}({', '.join(params)}):"
        return "\n".join([header, *self.fn.lines]) + "\n"

    # -- expressions: each emits statements and returns a side-effect-free expression -------------
    def expr(self, node: A.Expr, scope: _Scope) -> str:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise P.UnsupportedNode(f"no source handler for {type(node).__name__}")
        key = self.key(node, scope)
        if key is None:
            return handler(self, node, scope)
        known = self.fn.known.get(key)
        if known is not None:
            return known
        value = handler(self, node, scope)
        self.remember(key, value)
        return value

    # -- common sub-expressions -------------------------------------------------------------------
    def key(self, node: A.Expr, scope: _Scope) -> _Key | None:
        """What ``node`` computes in ``scope``, for reuse: its shape and what each name in it
        means here; None for a node not worth keeping or not pure and flat (a literal, a bound
        variable, anything with a binder, LET or LAMBDA)."""
        shape = self.shapes.of(node)
        if shape is None or not shape[2]:
            return None
        if isinstance(node, A.Name) and node.name in scope.variables:
            return None  # a local already
        return shape[0], tuple(_meaning(name, scope) for name in shape[1])

    def remember(self, key: _Key, value: str) -> None:
        """``value`` (a local of this function, assigned by now on every path that gets here)
        holds ``key`` until the current block closes."""
        if not value.isidentifier() or keyword.iskeyword(value):
            return  # a literal, or None after code that always raises
        self.fn.known[key] = value
        self.fn.added[-1].append(key)

    def fail(self, message: str, node: A.Expr) -> str:
        self.emit(f"_raise({message!r}, {self.const(node.span)})")
        return "None"

    def boolean(self, v: str, node: A.Expr, what: str) -> str:
        """``v`` as a boolean, or the closure backend's error for ``what``."""
        check = f"_boolean({v}, {self.const(node)}, {what!r})"
        return f"({v} if {v} is True or {v} is False else {check})"

    def loops(self, binds: list[tuple[str, A.Expr, _Scope]], what: str) -> int:
        """Open one ``for`` per binder, each domain checked to be a finite set; returns how many."""
        for py, domain, scope in binds:
            d = self.expr(domain, scope)
            self.emit(f"if {d}.__class__ is not frozenset:")
            self.emit(f"    _finite_set({d}, {self.const(domain)}, {what!r})")
            self.emit(f"for {py} in {d}:")
            self.indent()
            self.fn.loops += 1
        return len(binds)

    def close_loops(self, n: int) -> None:
        self.dedent(n)
        self.fn.loops -= n

    def bindings(
        self, bounds: tuple[A.Bound, ...], scope: _Scope
    ) -> tuple[list[tuple[str, A.Expr, _Scope]], _Scope]:
        """``x, y ∈ S, z ∈ T``: each domain sees the variables of the bounds before it."""
        out: list[tuple[str, A.Expr, _Scope]] = []
        for b in bounds:
            names = {n.name: _Var(self.fresh("x"), self.fn) for n in b.names}
            out.extend((var.py, b.domain, scope) for var in names.values())
            scope = scope.bind(names)
        return out, scope
