"""AST → :class:`Checked`: names, arity, kinds and lints, each finding a :class:`Diagnostic`.

Scoping. Definitions may be used before they are defined (unlike TLA+, which reads top-down), in
the module and inside one ``LET``. A name in a body resolves innermost first, as the backends do:
bound variables (∀/∃, ``{x ∈ S : P}``, ``{e : x ∈ S}``, ``[x ∈ S ↦ e]``, LAMBDA) and definition
parameters (the innermost binding wins) → LET definitions (innermost LET first) → module
definitions → built-in constants and operators (:mod:`.builtins`) → the constants a view supplies
(:attr:`Schema.constants`). In ``∀ x ∈ S, y ∈ T`` the domain ``T`` already sees ``x``.

Codes (stable; :data:`.errors.CODES`)::

    SPC101 error    Foo(…) where Foo names no definition, built-in or variable
    SPC102 error    a name bound by nothing (both with a "did you mean" hint when one is close)
    SPC103 error    wrong number of arguments; a definition with parameters used without any
    SPC104 error    a module (or LET) definition defined twice
    SPC105 warning  a binder or parameter hiding an enclosing variable/parameter, or repeated
    SPC106 warning  a ∀/∃/set/function/LAMBDA binder never used in its scope (one whose name
                    starts with ``_`` is meant unused: ``[_p ∈ Pods ↦ 0]``)
    SPC107 error    a cycle through definitions (the backends do not support recursion)
    SPC201 error    a known kind where another is required (a light bottom-up inference of
                    boolean/integer/string/set/sequence/record/LAMBDA; unknown never reports)
    SPC202 warning  r.F = "lit" where the schema says field F never takes the value "lit"
    SPC203 warning  r.f where no record has a field f (schema fields and record literals), or
                    where the same variable's field is spelt differently elsewhere (x.key, x.Key)
    SPC204 warning  a CASE arm after a TRUE guard, with a FALSE guard, or repeating a guard
    SPC301 error    an action (a disjunct of Next) leaves a declared variable unconstrained:
                    neither primed-assigned (x' = e, x' ∈ S) nor in UNCHANGED, on some path
    SPC302 error    a primed variable outside an action (in Init or a definition Next does
                    not reach: an invariant is a state predicate)
    SPC303 error    a prime on a name that is not a declared variable
    SPC304 error    Init leaves a declared variable without a value (x = e or x ∈ S)

The SPC3xx checks of state machines live in :mod:`.check_actions`; VARIABLES and CONSTANTS are
names every definition sees, and a primed variable ``x'`` resolves where ``x`` does.

Every node type of :data:`.ast.EXPR_TYPES` has a handler; any other raises
:class:`UnsupportedNode` (a bug in schedspec, never bad input).
"""

from __future__ import annotations

import difflib
import enum
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from schedspec.spec import ast as A
from schedspec.spec.builtins import BUILTINS, CONSTANTS
from schedspec.spec.check_actions import action_diagnostics
from schedspec.spec.errors import Diagnostic, Severity, SpecError

__all__ = ["Checked", "Kind", "Schema", "UnsupportedNode", "check"]


class UnsupportedNode(SpecError):
    """The checker met an AST node type it has no handler for (a bug, never user input)."""


class Kind(enum.Enum):
    """What the checker knows about a value; the value is how messages name it."""

    BOOLEAN = "a boolean"
    INTEGER = "an integer"
    STRING = "a string"
    SET = "a set"
    SEQUENCE = "a sequence"
    RECORD = "a record or function"
    LAMBDA = "a LAMBDA"
    UNKNOWN = "a value of unknown kind"


@dataclass(frozen=True)
class Schema:
    """What a view tells the checker about the values it supplies."""

    fields: frozenset[str] = frozenset()
    enums: Mapping[str, frozenset[str]] = field(default_factory=lambda: MappingProxyType({}))
    constants: frozenset[str] = frozenset()
    name: str = ""

    def __post_init__(self) -> None:
        enums = MappingProxyType({k: frozenset(v) for k, v in self.enums.items()})
        object.__setattr__(self, "fields", frozenset(self.fields))
        object.__setattr__(self, "enums", enums)
        object.__setattr__(self, "constants", frozenset(self.constants))


@dataclass(frozen=True)
class Checked:
    """A module and everything the checker found, sorted by (line, col, code)."""

    module: A.Module
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.WARNING)

    @property
    def ok(self) -> bool:
        return not self.errors


def check(module: A.Module, schema: Schema | None = None) -> Checked:
    """Check ``module`` (against the values ``schema`` describes, when given)."""
    ctx = _Context(module, schema or Schema())
    walker = _Walker(ctx)
    walker.module()
    found = sorted(
        [*walker.diagnostics, *action_diagnostics(module)],
        key=lambda d: (d.span.line, d.span.col, d.code),
    )
    return Checked(module, tuple(found))


# -- tables ---------------------------------------------------------------------------------------

_B, _I, _S = frozenset({Kind.BOOLEAN}), frozenset({Kind.INTEGER}), frozenset({Kind.SET})
_SEQ, _FN = frozenset({Kind.SEQUENCE}), frozenset({Kind.RECORD, Kind.SEQUENCE})
_COLLECTION, _LAMBDA = frozenset({Kind.SET, Kind.SEQUENCE}), frozenset({Kind.LAMBDA})
_RECORD, _ANY = frozenset({Kind.RECORD}), frozenset(Kind)
_STR = frozenset({Kind.STRING})
_WANTED = {_FN: "a function, record or sequence"}

# operator → (left operand, right operand, result); = and ≠ are handled apart.
_BINOPS: dict[A.BinOp, tuple[frozenset[Kind], frozenset[Kind], Kind]] = {
    **dict.fromkeys((A.BinOp.IMPLIES, A.BinOp.EQUIV), (_B, _B, Kind.BOOLEAN)),
    **dict.fromkeys((A.BinOp.LT, A.BinOp.LE, A.BinOp.GT, A.BinOp.GE), (_I, _I, Kind.BOOLEAN)),
    **dict.fromkeys((A.BinOp.IN, A.BinOp.NOTIN), (_ANY, _S, Kind.BOOLEAN)),
    A.BinOp.SUBSETEQ: (_S, _S, Kind.BOOLEAN),
    **dict.fromkeys((A.BinOp.CUP, A.BinOp.CAP, A.BinOp.SETMINUS), (_S, _S, Kind.SET)),
    A.BinOp.RANGE: (_I, _I, Kind.SET),
    **dict.fromkeys((A.BinOp.ADD, A.BinOp.SUB, A.BinOp.MUL, A.BinOp.DIV, A.BinOp.MOD),
                    (_I, _I, Kind.INTEGER)),
}  # fmt: skip

# operator → (operand, result, how the operand is named)
_UNOPS: dict[A.UnOp, tuple[frozenset[Kind], Kind, str]] = {
    A.UnOp.NOT: (_B, Kind.BOOLEAN, "the operand of '¬'"),
    A.UnOp.NEG: (_I, Kind.INTEGER, "the operand of '-'"),
    A.UnOp.DOMAIN: (_FN, Kind.SET, "the operand of DOMAIN"),
}

# (built-in, number of arguments) → what each argument must be
_BUILTIN_ARGS: dict[tuple[str, int], tuple[frozenset[Kind], ...]] = {
    ("Sum", 1): (_COLLECTION,), ("Sum", 2): (_LAMBDA, _COLLECTION), ("Max", 1): (_COLLECTION,),
    ("Min", 1): (_COLLECTION,), ("Cardinality", 1): (_S,), ("Len", 1): (_SEQ,),
    ("Head", 1): (_SEQ,), ("Tail", 1): (_SEQ,), ("Append", 2): (_SEQ, _ANY),
    ("ToInt", 1): (frozenset({Kind.INTEGER, Kind.STRING}),),
    ("FoldLeft", 3): (_LAMBDA, _ANY, _SEQ), ("SortSet", 2): (_S, _LAMBDA),
    ("SumBy", 3): (_LAMBDA, _LAMBDA, _COLLECTION), ("GroupBy", 2): (_LAMBDA, _COLLECTION),
    ("StartsWith", 2): (_STR, _STR), ("Contains", 2): (_STR, _STR),
    ("BeforeSlashIs", 2): (_STR, _STR),
    ("FloatScale", 3): (_I, _I, _I), ("BalancedScore", 1): (_SEQ,),
    ("SpreadScore", 1): (_FN,),
}  # fmt: skip

_BUILTIN_RESULTS: dict[str, Kind] = {
    **dict.fromkeys(
        (
            "Sum",
            "Max",
            "Min",
            "Cardinality",
            "Len",
            "ToInt",
            "FloatScale",
            "BalancedScore",
            "SpreadScore",
        ),
        Kind.INTEGER,
    ),
    **dict.fromkeys(("Tail", "Append", "SortSet"), Kind.SEQUENCE),
    "SumBy": Kind.RECORD,
    "GroupBy": Kind.RECORD,
    **dict.fromkeys(
        ("IsInt", "IsLabelKey", "IsLabelValue", "StartsWith", "Contains", "BeforeSlashIs"),
        Kind.BOOLEAN,
    ),
}

_CONSTANT_ELEMENTS = {"Int": Kind.INTEGER, "Nat": Kind.INTEGER, "BOOLEAN": Kind.BOOLEAN,
                      "STRING": Kind.STRING}  # fmt: skip
_WARNINGS = frozenset({"SPC105", "SPC106", "SPC202", "SPC203", "SPC204"})
_LITERALS = ("TRUE", "FALSE")


# -- scopes ---------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Var:
    """A bound variable or parameter; identity, not name, tells two bindings apart."""

    binder: A.Binder
    role: str  # "variable" | "parameter"
    kind: Kind = Kind.UNKNOWN
    used: bool = False


@dataclass(eq=False)
class _Def:
    """A module or LET definition; ``kind`` is its body's kind once inferred."""

    definition: A.Definition
    is_let: bool = False
    kind: Kind | None = None

    @property
    def name(self) -> str:
        return self.definition.name


@dataclass(frozen=True)
class _Scope:
    variables: Mapping[str, _Var] = field(default_factory=dict)
    lets: tuple[Mapping[str, _Def], ...] = ()

    def bind(self, new: Iterable[_Var]) -> _Scope:
        return replace(self, variables={**self.variables, **{v.binder.name: v for v in new}})

    def with_lets(self, defs: Mapping[str, _Def]) -> _Scope:
        return replace(self, lets=(defs, *self.lets))

    def let(self, name: str) -> _Def | None:
        return next((defs[name] for defs in self.lets if name in defs), None)

    def let_names(self) -> set[str]:
        return {name for defs in self.lets for name in defs}


_nodes = A.walk


class _Context:
    """Module-wide facts shared by every walker: definitions, record literals, inferred kinds."""

    def __init__(self, module: A.Module, schema: Schema) -> None:
        self.module, self.schema = module, schema
        self.entries = [_Def(d) for d in module.definitions]
        self.defs: dict[str, _Def] = {}
        for entry in self.entries:
            self.defs.setdefault(entry.name, entry)
        self.records = [
            frozenset(k for k, _ in n.fields) for n in _nodes(module.definitions)
            if isinstance(n, A.RecordLit)
        ]  # fmt: skip
        self.literal_fields = frozenset().union(*self.records)
        declared = (*module.variables, *module.constants)
        self.declared = frozenset(b.name for b in declared) | schema.constants
        self._pending: set[_Def] = set()

    def result_kind(self, entry: _Def) -> Kind:
        """The kind a definition's body evaluates to, inferred on first use (cycles: unknown)."""
        if entry.kind is not None or entry.is_let or entry in self._pending:
            return entry.kind or Kind.UNKNOWN
        self._pending.add(entry)
        entry.kind = _Walker(self, quiet=True).definition(entry, _Scope())
        self._pending.discard(entry)
        return entry.kind


# -- hints ----------------------------------------------------------------------------------------


def _suggest(name: str, candidates: Iterable[str], variables: Iterable[str] = ()) -> str | None:
    """The name the author probably meant, or None."""
    pool = sorted(set(candidates) - {name})
    if name.upper() in _LITERALS and name.upper() != name:
        return name.upper()
    folded = [c for c in pool if c.casefold() == name.casefold()]
    stripped = name.lstrip("_")
    initials = {v for v in variables if v[:1].casefold() == name.casefold()}
    if len(folded) == 1:
        return folded[0]
    if stripped != name and stripped in pool:
        return stripped
    if len(name) == 1 and len(initials) == 1:
        return initials.pop()
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
    return close[0] if close else None


def _did_you_mean(hint: str | None, quote: str = "'") -> str:
    return f" (did you mean {quote}{hint}{quote}?)" if hint is not None else ""


def _quoted(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _arguments(n: int) -> str:
    return "no arguments" if n == 0 else "1 argument" if n == 1 else f"{n} arguments"


def _at(span: A.Span) -> str:
    return f"{span.line}:{span.col}"


# -- the walker -----------------------------------------------------------------------------------


class _Walker:
    """One pass over definitions: resolves names, infers kinds, collects diagnostics.

    A ``quiet`` walker only infers (a definition's result kind, on demand) and reports nothing.
    """

    def __init__(self, ctx: _Context, quiet: bool = False) -> None:
        self.ctx, self.schema, self.quiet = ctx, ctx.schema, quiet
        self.diagnostics: list[Diagnostic] = []
        self.edges: list[tuple[_Def, _Def, A.Span]] = []
        self.owners: list[_Def] = []
        self.accesses: list[tuple[_Var, A.Field]] = []
        self.reported_fields: set[int] = set()

    def emit(self, code: str, message: str, span: A.Span) -> None:
        if not self.quiet:
            severity = Severity.WARNING if code in _WARNINGS else Severity.ERROR
            self.diagnostics.append(Diagnostic(code, severity, message, span))

    def require(self, got: Kind, allowed: frozenset[Kind], node: A.Expr, what: str) -> None:
        if got is not Kind.UNKNOWN and got not in allowed:
            wanted = _WANTED.get(allowed) or " or ".join(k.value for k in Kind if k in allowed)
            self.emit("SPC201", f"{what} must be {wanted}, got {got.value}", node.span)

    # -- module and definitions -----------------------------------------------------------------
    def module(self) -> None:
        self.duplicates(self.ctx.module.definitions)
        for entry in self.ctx.entries:
            entry.kind = self.definition(entry, _Scope())
        self.recursion()
        self.spellings()

    def duplicates(self, definitions: Iterable[A.Definition]) -> None:
        first: dict[str, A.Definition] = {}
        for d in definitions:
            if d.name in first:
                where = _at(first[d.name].span)
                self.emit("SPC104", f"duplicate definition '{d.name}' (first at {where})", d.span)
            first.setdefault(d.name, d)

    def definition(self, entry: _Def, scope: _Scope) -> Kind:
        params = self.bind_group(entry.definition.params, scope, "parameter")
        self.owners.append(entry)
        kind = self.expr(entry.definition.body, scope.bind(params))
        self.owners.pop()
        return kind

    def reference(self, target: _Def, span: A.Span) -> Kind:
        if self.owners:
            self.edges.append((self.owners[-1], target, span))
        return self.ctx.result_kind(target)

    def lookup(self, name: str, scope: _Scope) -> _Def | None:
        return scope.let(name) or self.ctx.defs.get(name)

    # -- binders --------------------------------------------------------------------------------
    def bind_group(self, binders: Iterable[A.Binder], scope: _Scope, role: str) -> list[_Var]:
        """Binders introduced together (parameters, one ``x, y ∈ S``): SPC105 on hiding/repeats."""
        group: list[_Var] = []
        for b in binders:
            old = scope.variables.get(b.name)
            if any(v.binder.name == b.name for v in group):
                self.emit("SPC105", f"'{b.name}' is repeated in this {role} list", b.span)
            elif old is not None:
                where = _at(old.binder.span)
                self.emit("SPC105", f"'{b.name}' hides the {old.role} bound at {where}", b.span)
            group.append(_Var(b, role))
        return group

    def bind_bounds(self, bounds: Iterable[A.Bound], scope: _Scope) -> tuple[_Scope, list[_Var]]:
        """``x ∈ S, y ∈ T``: each domain sees the variables bound before it."""
        bound: list[_Var] = []
        for b in bounds:
            self.require(self.expr(b.domain, scope), _S, b.domain, "a bound's domain")
            group = self.bind_group(b.names, scope, "variable")
            for var in group:
                var.kind = self.element_kind(b.domain, scope)
            scope, bound = scope.bind(group), bound + group
        return scope, bound

    def element_kind(self, domain: A.Expr, scope: _Scope) -> Kind:
        if isinstance(domain, A.Binary) and domain.op is A.BinOp.RANGE:
            return Kind.INTEGER
        if not isinstance(domain, A.Name) or domain.name in scope.variables:
            return Kind.UNKNOWN
        if self.lookup(domain.name, scope) is not None:
            return Kind.UNKNOWN
        return _CONSTANT_ELEMENTS.get(domain.name, Kind.UNKNOWN)

    def unused(self, bound: Iterable[_Var]) -> None:
        for var in bound:
            if not var.used and not var.binder.name.startswith("_"):
                name = var.binder.name
                self.emit("SPC106", f"bound variable '{name}' is never used", var.binder.span)

    # -- dispatch -------------------------------------------------------------------------------
    def expr(self, e: A.Expr, scope: _Scope) -> Kind:
        handler = _HANDLERS.get(type(e))
        if handler is None:
            raise UnsupportedNode(f"the checker has no handler for {type(e).__name__}")
        return handler(self, e, scope)

    # -- names ----------------------------------------------------------------------------------
    def name(self, e: A.Name, scope: _Scope) -> Kind:
        if (var := scope.variables.get(e.name)) is not None:
            var.used = True
            return var.kind
        if (target := self.lookup(e.name, scope)) is not None:
            kind = self.reference(target, e.span)
            if target.definition.params:  # an operator, not a value: no kind to cascade
                self.arity(target.definition, 0, e.span)
                return Kind.UNKNOWN
            return kind
        if e.name in BUILTINS:
            self.builtin_arity(e.name, 0, e.span)
        elif e.name in CONSTANTS:
            return Kind.SET
        elif e.name not in self.ctx.declared and A.unprimed(e.name) is None:
            hint = _did_you_mean(_suggest(e.name, self.value_names(scope), scope.variables))
            self.emit("SPC102", f"free variable '{e.name}' is not bound here{hint}", e.span)
        return Kind.UNKNOWN

    def value_names(self, scope: _Scope) -> set[str]:
        names = {*scope.variables, *scope.let_names(), *self.ctx.defs, *CONSTANTS}
        return names | self.ctx.declared

    def apply(self, e: A.Apply, scope: _Scope) -> Kind:
        kinds = [self.expr(a, scope) for a in e.args]
        if (var := scope.variables.get(e.name)) is not None:
            var.used = True
            self.require(var.kind, _LAMBDA, e, f"'{e.name}', applied to arguments,")
            return Kind.UNKNOWN
        if (target := self.lookup(e.name, scope)) is not None:
            self.arity(target.definition, len(e.args), e.span)
            return self.reference(target, e.span)
        if e.name in BUILTINS:
            return self.builtin(e, kinds)
        if e.name in CONSTANTS or e.name in self.ctx.declared:
            self.emit("SPC103", f"'{e.name}' takes no arguments, given {len(e.args)}", e.span)
            return Kind.UNKNOWN
        operators = {*scope.variables, *scope.let_names(), *self.ctx.defs, *BUILTINS}
        hint = _did_you_mean(_suggest(e.name, operators, scope.variables))
        self.emit("SPC101", f"undefined operator '{e.name}'{hint}", e.span)
        return Kind.UNKNOWN

    def arity(self, d: A.Definition, given: int, span: A.Span) -> None:
        if given != d.arity:
            names = f" ({', '.join(p.name for p in d.params)})" if d.params else ""
            used = f"given {given}" if given else "used without any"
            self.emit("SPC103", f"'{d.name}' takes {_arguments(d.arity)}{names}, {used}", span)

    def builtin_arity(self, name: str, given: int, span: A.Span) -> bool:
        b = BUILTINS[name]
        if b.min_arity <= given <= b.max_arity:
            return True
        takes = _arguments(b.min_arity)
        if b.max_arity != b.min_arity:
            takes = f"{b.min_arity} to {b.max_arity} arguments"
        used = f"given {given}" if given else "used without any"
        self.emit("SPC103", f"'{name}' takes {takes}, {used}", span)
        return False

    def builtin(self, e: A.Apply, kinds: list[Kind]) -> Kind:
        if self.builtin_arity(e.name, len(e.args), e.span):
            wanted = _BUILTIN_ARGS.get((e.name, len(e.args)), ())
            for i, (arg, kind, allowed) in enumerate(zip(e.args, kinds, wanted, strict=False)):
                self.require(kind, allowed, arg, f"argument {i + 1} of '{e.name}'")
        return _BUILTIN_RESULTS.get(e.name, Kind.UNKNOWN)

    # -- records and functions ------------------------------------------------------------------
    def index(self, e: A.Index, scope: _Scope) -> Kind:
        self.require(self.expr(e.fn, scope), _FN, e.fn, "what is applied with [ ]")
        for a in e.args:
            self.expr(a, scope)
        return Kind.UNKNOWN

    def field(self, e: A.Field, scope: _Scope) -> Kind:
        self.require(self.expr(e.record, scope), _RECORD, e.record, "what has fields")
        if isinstance(e.record, A.Name) and (var := scope.variables.get(e.record.name)):
            self.accesses.append((var, e))
        known = self.schema.fields | self.ctx.literal_fields
        if self.schema.fields and e.name not in known:
            owner = self.schema.name or "the view"
            hint = _did_you_mean(_suggest(e.name, known))
            self.emit("SPC203", f"no record of {owner} has a field '{e.name}'{hint}", e.span)
            self.reported_fields.add(id(e))
        return Kind.UNKNOWN

    def spellings(self) -> None:
        """SPC203 for ``x.key`` when the same variable is read as ``x.Key`` more often."""
        groups: defaultdict[tuple[_Var, str], list[A.Field]] = defaultdict(list)
        for var, f in self.accesses:
            groups[var, f.name.casefold()].append(f)
        for (var, _), group in groups.items():
            counts = Counter(f.name for f in group)  # most_common: ties go to the first seen
            if len(counts) < 2 or any(set(counts) <= r for r in self.ctx.records):
                continue
            major = counts.most_common(1)[0][0]
            line = next(f.span.line for f in group if f.name == major)
            for f in (f for f in group if f.name != major and id(f) not in self.reported_fields):
                msg = f"field '{f.name}' of '{var.binder.name}' is spelt '{major}' on line {line}"
                self.emit("SPC203", msg + _did_you_mean(major), f.span)

    # -- operators ------------------------------------------------------------------------------
    def unary(self, e: A.Unary, scope: _Scope) -> Kind:
        allowed, result, what = _UNOPS[e.op]
        self.require(self.expr(e.operand, scope), allowed, e.operand, what)
        return result

    def binary(self, e: A.Binary, scope: _Scope) -> Kind:
        left, right = self.expr(e.left, scope), self.expr(e.right, scope)
        if e.op in (A.BinOp.EQ, A.BinOp.NEQ):
            return self.equality(e, left, right)
        want_left, want_right, result = _BINOPS[e.op]
        sym = e.op.unicode
        self.require(left, want_left, e.left, f"the left operand of '{sym}'")
        self.require(right, want_right, e.right, f"the right operand of '{sym}'")
        return result

    def equality(self, e: A.Binary, left: Kind, right: Kind) -> Kind:
        mixed = {left, right} - {Kind.UNKNOWN}
        if len(mixed) == 2 and mixed != {Kind.RECORD, Kind.SEQUENCE}:
            message = f"'{e.op.unicode}' compares {left.value} with {right.value}"
            self.emit("SPC201", message, e.span)
        self.enum_literal(e.left, e.right)
        self.enum_literal(e.right, e.left)
        return Kind.BOOLEAN

    def enum_literal(self, f: A.Expr, s: A.Expr) -> None:
        """SPC202: ``r.F = "lit"`` where the schema says F never takes the value "lit"."""
        if not isinstance(f, A.Field) or not isinstance(s, A.Str):
            return
        values = self.schema.enums.get(f.name)
        if values is None or s.value in values:
            return
        listed = ", ".join(_quoted(v) for v in sorted(values))
        where = f"values in {self.schema.name}" if self.schema.name else "possible values"
        hint = _suggest(s.value, values)
        msg = f"{_quoted(s.value)} can never equal field '{f.name}' ({where}: {listed})"
        self.emit("SPC202", msg + (f"; did you mean {_quoted(hint)}?" if hint else ""), s.span)

    def junction(self, e: A.Junction, scope: _Scope) -> Kind:
        for item in e.items:
            self.require(self.expr(item, scope), _B, item, f"an operand of '{e.op.unicode}'")
        return Kind.BOOLEAN

    # -- binding forms --------------------------------------------------------------------------
    def quant(self, e: A.Quant, scope: _Scope) -> Kind:
        inner, bound = self.bind_bounds(e.bounds, scope)
        self.require(self.expr(e.body, inner), _B, e.body, f"the body of '{e.kind.unicode}'")
        self.unused(bound)
        return Kind.BOOLEAN

    def set_filter(self, e: A.SetFilter, scope: _Scope) -> Kind:
        inner, bound = self.bind_bounds((A.Bound((e.var,), e.domain, e.span),), scope)
        self.require(self.expr(e.pred, inner), _B, e.pred, "the predicate of {x ∈ S : P}")
        self.unused(bound)
        return Kind.SET

    def binding(self, bounds: Iterable[A.Bound], body: A.Expr, scope: _Scope, result: Kind) -> Kind:
        inner, bound = self.bind_bounds(bounds, scope)
        self.expr(body, inner)
        self.unused(bound)
        return result

    def lambda_(self, e: A.Lambda, scope: _Scope) -> Kind:
        params = self.bind_group(e.params, scope, "parameter")
        self.expr(e.body, scope.bind(params))
        self.unused(params)
        return Kind.LAMBDA

    def let(self, e: A.Let, scope: _Scope) -> Kind:
        self.duplicates(e.defs)
        entries = [_Def(d, is_let=True) for d in e.defs]
        defs: dict[str, _Def] = {}
        for entry in entries:
            defs.setdefault(entry.name, entry)
        inner = scope.with_lets(defs)
        for entry in entries:
            entry.kind = self.definition(entry, inner)
        return self.expr(e.body, inner)

    def items(self, items: Iterable[A.Expr], scope: _Scope, result: Kind) -> Kind:
        for item in items:
            self.expr(item, scope)
        return result

    # -- conditionals ---------------------------------------------------------------------------
    def if_(self, e: A.If, scope: _Scope) -> Kind:
        self.require(self.expr(e.cond, scope), _B, e.cond, "the IF condition")
        return _join(self.expr(e.then, scope), self.expr(e.else_, scope))

    def case(self, e: A.Case, scope: _Scope) -> Kind:
        kinds = []
        for arm in e.arms:
            self.require(self.expr(arm.guard, scope), _B, arm.guard, "a CASE guard")
            kinds.append(self.expr(arm.body, scope))
        if e.other is not None:
            kinds.append(self.expr(e.other, scope))
        self.unreachable(e)
        return _join(*kinds)

    def unreachable(self, e: A.Case) -> None:
        """SPC204: arms after a TRUE guard, FALSE guards, guards equal to an earlier one."""
        always: A.Span | None = None
        for i, arm in enumerate(e.arms):
            if reason := _unreachable(arm, e.arms[:i], always):
                self.emit("SPC204", f"unreachable CASE arm: {reason}", arm.guard.span)
            if always is None and arm.guard == A.Bool(True):
                always = arm.guard.span
        if e.other is not None and always is not None:
            reason = f"unreachable OTHER: the guard at {_at(always)} is TRUE"
            self.emit("SPC204", reason, e.other.span)

    # -- recursion ------------------------------------------------------------------------------
    def recursion(self) -> None:
        """SPC107 once per cycle, at the first reference (in source order) that closes it."""
        graph: defaultdict[_Def, list[_Def]] = defaultdict(list)
        for caller, callee, _ in self.edges:
            graph[caller].append(callee)
        reported: set[_Def] = set()
        for caller, callee, span in sorted(self.edges, key=lambda t: (t[2].line, t[2].col)):
            path = None if caller in reported else _path(graph, callee, caller)
            if path is not None:
                reported.update(path)
                cycle = " → ".join(d.name for d in (caller, *path))
                msg = f"'{caller.name}' is recursive ({cycle})"
                self.emit("SPC107", msg + "; the backends do not support recursion", span)


# node type → handler(walker, node, scope) -> the node's kind
_HANDLERS: dict[type, Callable[[_Walker, Any, _Scope], Kind]] = {
    A.Num: lambda w, e, s: Kind.INTEGER,
    A.Str: lambda w, e, s: Kind.STRING,
    A.Bool: lambda w, e, s: Kind.BOOLEAN,
    A.Name: _Walker.name,
    A.Apply: _Walker.apply,
    A.Index: _Walker.index,
    A.Field: _Walker.field,
    A.Unary: _Walker.unary,
    A.Binary: _Walker.binary,
    A.Junction: _Walker.junction,
    A.Quant: _Walker.quant,
    A.SetEnum: lambda w, e, s: w.items(e.items, s, Kind.SET),
    A.SetFilter: _Walker.set_filter,
    A.SetMap: lambda w, e, s: w.binding(e.bounds, e.expr, s, Kind.SET),
    A.TupleLit: lambda w, e, s: w.items(e.items, s, Kind.SEQUENCE),
    A.RecordLit: lambda w, e, s: w.items([v for _, v in e.fields], s, Kind.RECORD),
    A.FnCons: lambda w, e, s: w.binding(e.bounds, e.body, s, Kind.RECORD),
    A.If: _Walker.if_,
    A.Case: _Walker.case,
    A.Let: _Walker.let,
    A.Lambda: _Walker.lambda_,
}


def _unreachable(arm: A.CaseArm, earlier: Iterable[A.CaseArm], always: A.Span | None) -> str:
    """Why a CASE arm can never be chosen (guards are tried in order), or ""."""
    if always is not None:
        return f"the guard at {_at(always)} is TRUE"
    if arm.guard == A.Bool(False):
        return "its guard is FALSE"
    same = next((a for a in earlier if a.guard == arm.guard), None)
    return f"same guard as at {_at(same.guard.span)}" if same is not None else ""


def _join(*kinds: Kind) -> Kind:
    distinct = set(kinds)
    return distinct.pop() if len(distinct) == 1 else Kind.UNKNOWN


def _path(graph: Mapping[_Def, list[_Def]], start: _Def, goal: _Def) -> list[_Def] | None:
    """Definitions from ``start`` to ``goal`` along references (breadth first), or None."""
    parents: dict[_Def, _Def | None] = {start: None}
    queue = [start]
    for node in queue:
        if node is goal:
            path = [node]
            while (parent := parents[path[-1]]) is not None:
                path.append(parent)
            return path[::-1]
        for nxt in graph.get(node, ()):
            if nxt not in parents:
                parents[nxt] = node
                queue.append(nxt)
    return None
