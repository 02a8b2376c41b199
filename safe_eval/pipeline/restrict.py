"""Stage 3, restrict: our rule set, a subclass of RestrictedPython's ``RestrictingNodeTransformer``.

RestrictedPython (RP) wrote its rules for code that runs as host bytecode, and enforces them by
REWRITING the tree (``a.b`` -> ``_getattr_(a, 'b')``). Our code runs in our interpreter, behind
the membrane, so the tree must stay the original and the rules change. ``SafeEvalRules`` keeps
RP's vocabulary (its ``INSPECT_ATTRIBUTES``, ``visit_<Node>`` per node type, deny-by-default for
node types it does not know) but its ``visit_<Node>`` methods only CHECK one node, never recurse
and never rewrite; ``check()`` drives them over the pre-order node list the parse stage already
built (RP's own traversal costs ~0.7 ms on a 30-line function; ours a tenth of that). Every
violation is collected as a ``Diagnostic`` with its real span (columns in characters).

``restrict`` runs on the node list taken before scrub, so annotations (kept aside, never
evaluated) are checked too: nothing the model wrote escapes the rules.

Rules KEPT from RP:
  - node types without a reviewed handler are refused (R010), e.g. any node type a newer
    Python adds;
  - frame/code/generator internals from ``INSPECT_ATTRIBUTES`` (R004), plus ``mro``;
  - ``metaclass=`` (R007; we refuse every class keyword: they feed ``__init_subclass__``),
    except ``total=`` (``TypedDict``; the interpreter hands it only to that metaclass);
  - star imports (R011); private names in imports (R012);
  - ``breakpoint`` (R001).
Rules RELAXED (safe in our interpreter; the membrane decides at run time):
  - ``_name`` variables, arguments, functions (RP protects its own ``_getattr_`` helpers; we
    have none): only dunder names ``__x__`` are refused (R002), except reading ``__name__``;
  - ``_attr`` attributes: allowed unless the chain starts at a name the code does not own (an
    imported module, an env object, a builtin): ``random._os``, ``account._key`` (R005);
  - dunder attributes in the reviewed set below (R003 otherwise);
  - dunder method definitions in ``membrane.dunders.DEFINABLE_DUNDERS`` (RP allows 8);
  - ``print``/``printed``/``builtins`` as names, ``__roles__`` suffixes (Zope-only meaning);
  - ``nonlocal``, ``async``/``await``, annotated assignments, ``match``, ``eval``/``exec``
    (the guest builtins run the code through safe-eval again; a constant string argument is
    checked here too, R009).
Rules ADDED:
  - refused builtins ``compile open globals locals breakpoint input help memoryview exit quit``
    (R001: read while the code never binds the name itself). ``vars`` is left to the membrane
    (it answers ``vars(obj)`` for guest objects only): conformance code uses ``vars(c)``;
  - constant attribute names are checked wherever they are statically visible: ``getattr(x,
    '__class__')``, ``operator.attrgetter('a.__b__')``, ``reduce(getattr, ['__class__'])``,
    ``match`` class patterns ``case C(__class__=c)``, format templates (``'{0.__globals__}'
    .format``, ``Formatter().vformat``, f-string format specs);
  - forbidden dunder definitions with their reason (R006). ``type(name, bases, dict)`` (R008
    before 0.2) is allowed: it builds a guest class through the class statement's checks;
  - attribute writes on objects the code does not own (R013): ``math.pi = 3``; except an
    attribute of an env object the host declared writable (``expose(order, writable=["status"])``
    lets ``order.status = "paid"`` through, to the membrane's decided write).

Node types newer than 3.10, reviewed one by one (``DENIED_NODES`` holds the refusals):

=============  =======  =======  ==========================================================
node           since    rule     why
=============  =======  =======  ==========================================================
TryStar        3.11     allowed  ``except*``: clauses match parts of a group with the host's
                                 ``BaseExceptionGroup.split`` (``interpreter/exception_star``);
                                 what the guest reads of a group is the membrane's to decide
type_param     3.12     R010     abstract base of the three below
TypeVar        3.12     R010     ``def f[T]``: T is a name the body and bases can evaluate
ParamSpec      3.12     R010     ``def f[**P]``: as TypeVar
TypeVarTuple   3.12     R010     ``def f[*Ts]``: as TypeVar
TypeAlias      3.12     R010     ``type X = ...``: a lazily evaluated ``TypeAliasType``
=============  =======  =======  ==========================================================

Codes R001-R013: their names, messages and hints are defined in ``safe_eval/rules.py``
(``safe-eval rules`` lists them).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from safe_eval import rules
from safe_eval.diagnostics import Diagnostic
from safe_eval.membrane.dunders import DATA_DUNDERS, DEFINABLE_DUNDERS, FORBIDDEN_DUNDERS
from safe_eval.rules import Rule

if TYPE_CHECKING:
    from RestrictedPython.transformer import INSPECT_ATTRIBUTES, RestrictingNodeTransformer
else:  # the same module, loaded without RP's package __init__ (cold start): see _rp_transformer
    from safe_eval.pipeline._rp_transformer import load as _load_rp_transformer

    _rp_transformer = _load_rp_transformer()
    INSPECT_ATTRIBUTES = _rp_transformer.INSPECT_ATTRIBUTES
    RestrictingNodeTransformer = _rp_transformer.RestrictingNodeTransformer

try:  # the C helpers behind string.Formatter.parse: the exact template grammar str.format uses
    from _string import formatter_field_name_split, formatter_parser
except ImportError:  # pragma: no cover - every CPython has _string
    formatter_parser = formatter_field_name_split = None

__all__ = [
    "INTERNAL_ATTRIBUTES",
    "READABLE_DUNDERS",
    "REFUSED_BUILTINS",
    "SafeEvalRules",
    "WRITABLE_DUNDERS",
    "restrict",
]

REFUSED_BUILTINS: dict[str, str] = {
    "compile": "code objects are not available; to run code, call eval()/exec() on a string",
    "open": "files are not available; the host passes data in through variables",
    "globals": "use a dict you create yourself",
    "locals": "use a dict you create yourself",
    "breakpoint": "there is no debugger; print() what you need to see",
    "input": "there is no stdin; the host passes data in through variables",
    "help": "there is no interactive help",
    "memoryview": "use bytes or bytearray",
    "exit": "return a value, or raise an exception, to stop",
    "quit": "return a value, or raise an exception, to stop",
}

# Plain-data dunders that are safe to read (the membrane answers them for guest objects and
# filters host ones), plus every dunder method a guest class may define (calling
# ``super().__init__`` or ``x.__len__()`` is ordinary code).
READABLE_DUNDERS: frozenset[str] = frozenset(
    {"__name__", "__qualname__", "__doc__", "__module__", "__class__", "__dict__", "__mro__",
     "__cause__", "__context__", "__suppress_context__", "__wrapped__", "__slots__",
     "__match_args__", "__notes__"}
) | DEFINABLE_DUNDERS
WRITABLE_DUNDERS: frozenset[str] = frozenset(
    {"__name__", "__qualname__", "__doc__", "__module__", "__wrapped__", "__cause__",
     "__context__", "__suppress_context__"}
) | DEFINABLE_DUNDERS - {"__new__"}
# Dunder names a class body may bind besides definable methods.
_CLASS_DUNDER_ASSIGNMENTS = frozenset({"__slots__", "__match_args__", "__hash__", "__doc__"})
# class keywords a reviewed host metaclass takes (``class D(TypedDict, total=False)``); the
# interpreter passes one on only to a metaclass registered for it, with a plain-data value
_CLASS_KEYWORDS = frozenset({"total"})
INTERNAL_ATTRIBUTES: frozenset[str] = frozenset(INSPECT_ATTRIBUTES) | {
    "mro", "f_lineno", "f_lasti", "f_trace_lines", "co_consts", "co_names", "gi_running",
    "func_globals", "func_code", "func_closure", "im_func", "im_self", "im_class",
}
_ALLOWED_NAME_DUNDERS = frozenset({"__name__"})  # read only: `if __name__ == "__main__":`

_HIERARCHY_HINT = "use isinstance()/issubclass() with classes you have, not the class hierarchy"
_FUNCTION_HINT = "function internals are not accessible; call the function or pass values explicitly"
_DUNDER_HINTS: dict[str, str] = {
    "__subclasses__": _HIERARCHY_HINT, "__bases__": _HIERARCHY_HINT, "__base__": _HIERARCHY_HINT,
    "__globals__": _FUNCTION_HINT, "__code__": _FUNCTION_HINT, "__closure__": _FUNCTION_HINT,
    "__defaults__": _FUNCTION_HINT, "__kwdefaults__": _FUNCTION_HINT, "__self__": _FUNCTION_HINT,
    "__func__": _FUNCTION_HINT, "__builtins__": "builtins are available directly by name",
    "__getattribute__": "use obj.name or getattr(obj, name)",
    "__traceback__": "use str(e) and type(e).__name__ to describe an exception",
    "__import__": "use an import statement for a module the policy allows",
    "__annotations__": "annotations are inert in safe-eval; they cannot be read back",
}
_NAME_HINTS: dict[str, str] = {
    "__import__": "use an import statement for a module the policy allows",
    "__builtins__": "builtins are available directly by name",
    "__loader__": "modules are imported with an import statement",
    "__spec__": "modules are imported with an import statement",
    "__file__": "there is no file; the code runs from a string",
}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

# Node types every check passes without looking: reviewed, nothing to refuse in them.
_PLAIN_NODES: tuple[type[ast.AST], ...] = (
    ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor,
    ast.While, ast.If, ast.With, ast.AsyncWith, ast.withitem, ast.Raise, ast.Try, ast.Assert,
    ast.Delete, ast.Pass, ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom,
    *([ast.TryStar] if hasattr(ast, "TryStar") else []),
    ast.Await, ast.Match, ast.match_case, ast.MatchValue, ast.MatchSingleton,
    ast.MatchSequence, ast.MatchOr, ast.BoolOp, ast.NamedExpr, ast.BinOp, ast.UnaryOp,
    ast.Lambda, ast.IfExp, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.Compare, ast.JoinedStr, ast.Constant, ast.Subscript, ast.Starred,
    ast.List, ast.Tuple, ast.Slice, ast.comprehension, ast.arguments, ast.keyword, ast.alias,
    # operator and context singletons (parse leaves them out of the node list)
    ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
)
# Node types refused on purpose (never produced by exec-mode parsing on 3.11, or unsafe).
DENIED_NODES: dict[str, str] = {
    "Interactive": "only module code is accepted", "Expression": "only module code is accepted",
    "FunctionType": "only module code is accepted", "TypeIgnore": "type comments are ignored",
    "Suite": "obsolete node type", "Param": "obsolete node type", "AugLoad": "obsolete node type",
    "AugStore": "obsolete node type", "Index": "obsolete node type", "ExtSlice": "obsolete node type",
    "Num": "obsolete node type", "Str": "obsolete node type", "Bytes": "obsolete node type",
    "NameConstant": "obsolete node type", "Ellipsis": "obsolete node type",
    # 3.12 (PEP 695). Refused rather than ignored: a type parameter is a NAME the body can use
    # (`class Box[T](Base[T])` evaluates `Base[T]`), and `type X = ...` builds a lazily
    # evaluated typing.TypeAliasType whose value the host would evaluate outside our budgets.
    "type_param": "type parameters (`def f[T]`, `class C[T]`) are not supported",
    "TypeVar": "type parameters (`def f[T]`, `class C[T]`) are not supported",
    "ParamSpec": "type parameters (`def f[**P]`) are not supported",
    "TypeVarTuple": "type parameters (`def f[*Ts]`) are not supported",
    "TypeAlias": "`type` alias statements are not supported",
}
# What to write instead of a refused node type (the generic hint otherwise).
_DENIED_HINTS: dict[str, str] = {
    "TypeVar": "drop the brackets: annotations are never evaluated in safe-eval, `def f(x: T)` "
               "with `T = TypeVar('T')` from typing, or no annotation, runs the same",
    "ParamSpec": "drop the brackets: annotations are never evaluated in safe-eval",
    "TypeVarTuple": "drop the brackets: annotations are never evaluated in safe-eval",
    "TypeAlias": "assign the type to a name instead: `Vector = list[float]`",
}


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _is_private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not _is_dunder(name)


def _root_name(node: ast.expr) -> str | None:
    """The variable an attribute/subscript/call chain starts from: ``a`` in ``a.b[0].c()``."""
    while True:
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Name):
            return node.id
        else:
            return None


class _Spans:
    """1-based character spans from AST positions (which count UTF-8 bytes)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines: list[str] | None = None

    def _line(self, number: int) -> str:
        if self.lines is None:
            self.lines = self.source.split("\n")
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def column(self, line: int, byte_col: int) -> int:
        text = self._line(line)
        if text.isascii():
            return byte_col + 1
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "ignore")) + 1

    def of(self, node: ast.AST) -> tuple[int, int, int, int]:
        line = getattr(node, "lineno", None) or 1
        end_line = getattr(node, "end_lineno", None) or line
        col = self.column(line, getattr(node, "col_offset", 0) or 0)
        end_byte = getattr(node, "end_col_offset", None)
        end_col = self.column(end_line, end_byte) if end_byte is not None else col + 1
        return line, col, end_line, max(end_col, col + 1) if end_line == line else end_col

    def of_attribute(self, node: ast.Attribute) -> tuple[int, int, int, int]:
        """The span of the attribute name only: ``__class__`` in ``x.__class__``."""
        line, col, end_line, end_col = self.of(node)
        value_end_line = getattr(node.value, "end_lineno", line)
        text = self._line(end_line)
        if value_end_line == end_line:
            start = self.column(end_line, node.value.end_col_offset or 0) - 1
        else:
            start = 0
        segment = text[start:end_col - 1]
        dot = segment.find(".")
        if dot >= 0:
            rest = segment[dot + 1:]
            start += dot + 1 + (len(rest) - len(rest.lstrip()))
            return end_line, start + 1, end_line, end_col
        return line, col, end_line, end_col


Handler = Callable[["SafeEvalRules", Any], None]


class SafeEvalRules(RestrictingNodeTransformer):
    """Our rule set. ``check(nodes)`` (or ``visit(tree)``) collects every violation in
    ``diagnostics``; the tree is never modified."""

    _table: dict[type[ast.AST], Handler | None] = {}

    def __init__(self, source: str = "", *, nested: int = 0,
                 writable: frozenset[tuple[str, str]] = frozenset()) -> None:
        super().__init__(errors=[], warnings=[], used_names={})
        # (env name, attribute) pairs the host declared writable (``expose(..., writable=)``):
        # ``order.status = v`` on them is the membrane's decided write, not an R013
        self.writable = writable
        self.diagnostics: list[Diagnostic] = []
        self.spans = _Spans(source)
        self.nested = nested
        self.bound: set[str] = set()  # every name the code binds somewhere
        self.imported: set[str] = set()  # names bound by import statements
        self.handled: set[int] = set()  # ids of Name nodes a class-body rule already judged
        self.class_members: set[int] = set()  # ids of defs directly in a class body
        self.class_dunders: set[str] = set()  # dunders some class body binds (`__radd__ = __add__`)
        self.deferred: list[tuple[str, ast.AST, str]] = []  # rules that need `bound`
        self._spans: dict[tuple[int, str], tuple[int, int, int, int]] = {}
        self._roots: dict[tuple[int, str], str] = {}

    # -- driving ------------------------------------------------------------------------

    def check(self, nodes: Iterable[ast.AST]) -> list[Diagnostic]:
        table = self._table
        for node in nodes:
            handler = table.get(node.__class__, _MISSING)
            if handler is None:
                continue
            if handler is _MISSING:
                self.unsupported(node)
            else:
                handler(self, node)
        self._resolve_deferred()
        # one diagnostic per rule and place (a template may name `__globals__` twice)
        unique = {(d.code, d.line, d.col, d.end_line, d.end_col, d.message): d for d in self.diagnostics}
        self.diagnostics = sorted(unique.values(), key=lambda d: (d.line, d.col, d.code))
        return self.diagnostics

    def visit(self, node: ast.AST) -> ast.AST:
        """RP-compatible entry point: check the whole tree (never rewritten), return it."""
        self.check(ast.walk(node))
        return node

    def error(self, node: ast.AST, info: str) -> None:
        """RP's reporting hook: no check of ours calls an inherited helper, but one that did
        must still refuse (as unreviewed syntax), never append to RP's unread error list."""
        self.report(rules.UNSUPPORTED_SYNTAX, node, detail=info)

    def report(self, rule: Rule, node: ast.AST, span: tuple[int, int, int, int] | None = None,
               hint: str | None = None, **fields: Any) -> None:
        self.diagnostics.append(rule.diagnostic(span or self.spans.of(node), hint=hint, **fields))

    def unsupported(self, node: ast.AST) -> None:
        kind = node.__class__.__name__
        reason = DENIED_NODES.get(kind, f"{kind} is not supported: it has not been reviewed for safety")
        self.report(rules.UNSUPPORTED_SYNTAX, node, hint=_DENIED_HINTS.get(kind), detail=reason)

    # -- shared rules ---------------------------------------------------------------------

    def name_rule(self, node: ast.AST, name: str | None, *, load: bool = False) -> None:
        """R002: dunder variables (bound or read)."""
        if name is None or not _is_dunder(name):
            return
        if load and name in _ALLOWED_NAME_DUNDERS:
            return
        self.report(rules.DUNDER_NAME, node, hint=_NAME_HINTS.get(name), name=name)

    def attribute_rule(self, node: ast.AST, attr: str, base: ast.expr | None, *, store: bool,
                       span: tuple[int, int, int, int] | None = None, where: str = "") -> None:
        """R003/R004/R005/R013 for one attribute name (``base`` None: unknown object)."""
        if _is_dunder(attr):
            allowed = WRITABLE_DUNDERS if store else READABLE_DUNDERS
            if attr not in allowed:
                verb = "setting" if store else "reading"
                self.report(rules.DUNDER_ATTRIBUTE, node, span, _DUNDER_HINTS.get(attr),
                            verb=verb, attr=attr, where=where)
            return
        if attr in INTERNAL_ATTRIBUTES:
            hint = _HIERARCHY_HINT if attr == "mro" else "frame, code and generator internals are hidden"
            self.report(rules.INTERNAL_ATTRIBUTE, node, span, hint, attr=attr, where=where)
            return
        if _is_private(attr):
            root = _root_name(base) if base is not None else None
            if base is None or root is not None:
                self.deferred.append(("private", node, attr))
                if span is not None:
                    self._spans[id(node), attr] = span
                if base is not None:
                    self._roots[id(node), attr] = root or ""
            return
        if store and base is not None:
            root = _root_name(base)
            if root is not None:
                self.deferred.append(("write", node, attr))
                self._roots[id(node), attr] = root

    def _resolve_deferred(self) -> None:
        bound, imported = self.bound, self.imported
        for kind, node, name in self.deferred:
            if kind == "builtin":
                if name not in bound:
                    self.report(rules.FORBIDDEN_BUILTIN, node, hint=REFUSED_BUILTINS[name], name=name)
                continue
            root = self._roots.get((id(node), name)) or None
            foreign = root is None or root in imported or root not in bound
            if not foreign or (kind == "write" and _declared_writable(node, root, name, self.writable)):
                continue
            span = self._spans.get((id(node), name))
            if span is None and isinstance(node, ast.Attribute):
                span = self.spans.of_attribute(node)
            owner = "an object the code did not create" if root is None else f'"{root}"'
            if kind == "private":
                self.report(rules.PRIVATE_ATTRIBUTE, node, span, attr=name, owner=owner)
            else:
                self.report(rules.HOST_ATTRIBUTE_WRITE, node, span, attr=name, owner=owner)

    def template_rule(self, node: ast.Constant, where: str) -> None:
        """Attribute names inside a ``str.format``-style template."""
        if not isinstance(node.value, str) or "{" not in node.value or formatter_parser is None:
            return
        self._template(node, node.value, where, 0)

    def _template(self, node: ast.Constant, text: str, where: str, level: int) -> None:
        try:
            for _literal, field, spec, _conv in formatter_parser(text):
                if field:
                    _first, rest = formatter_field_name_split(field)
                    for is_attr, key in rest:
                        if is_attr:
                            self.attribute_rule(node, str(key), None, store=False, where=where)
                if spec and "{" in spec and level < 2:
                    self._template(node, spec, where, level + 1)
        except ValueError:
            return  # not a valid template: str.format would refuse it too

    # -- per-node checks (one node each; no recursion, no rewriting) ------------------------

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if isinstance(node.ctx, ast.Load):
            if name in REFUSED_BUILTINS:
                self.deferred.append(("builtin", node, name))
        else:
            self.bound.add(name)
        if id(node) not in self.handled and name not in self.class_dunders:
            self.name_rule(node, name, load=isinstance(node.ctx, ast.Load))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        store = not isinstance(node.ctx, ast.Load)
        attr = node.attr
        if _is_dunder(attr) or attr in INTERNAL_ATTRIBUTES:
            self.attribute_rule(node, attr, node.value, store=store, span=self.spans.of_attribute(node))
        else:
            self.attribute_rule(node, attr, node.value, store=store)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.bound.add(node.name)
        if id(node) not in self.class_members:
            self.name_rule(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node: ast.arg) -> None:
        self.bound.add(node.arg)
        self.name_rule(node, node.arg)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bound.add(node.name)
        self.name_rule(node, node.name)
        for keyword in node.keywords:
            if keyword.arg in _CLASS_KEYWORDS:
                continue  # passed on only to a metaclass registered for it (interpreter/classes.py)
            label = "metaclass=" if keyword.arg == "metaclass" else (
                f"{keyword.arg}=" if keyword.arg else "**keywords")
            self.report(rules.CLASS_KEYWORD, keyword, label=label)
        for stmt in node.body:
            self._class_member(stmt)

    def _class_member(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, _FUNCTIONS):
            self.class_members.add(id(stmt))
            self._dunder_definition(stmt, stmt.name, method=True)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name) and _is_dunder(target.id):
                    self.handled.add(id(target))
                    self._dunder_definition(target, target.id, method=False)

    def _dunder_definition(self, node: ast.AST, name: str, *, method: bool) -> None:
        if not _is_dunder(name):
            return
        if name in DEFINABLE_DUNDERS:
            self.class_dunders.add(name)
            return
        if not method and name in _CLASS_DUNDER_ASSIGNMENTS:
            return
        reason = FORBIDDEN_DUNDERS.get(name, "it has not been reviewed for safety")
        span = None
        if isinstance(node, _FUNCTIONS):
            line, col, _, _ = self.spans.of(node)
            span = (line, col, line, col + len("async def " if isinstance(node, ast.AsyncFunctionDef)
                                               else "def ") + len(name))
        self.report(rules.FORBIDDEN_DUNDER_DEFINITION, node, span, name=name, reason=reason)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        module = getattr(node, "module", None)
        is_from = isinstance(node, ast.ImportFrom)
        if module and module != "__future__" and any(_is_private(p) or _is_dunder(p)
                                                     for p in module.split(".")):
            self.report(rules.PRIVATE_IMPORT, node, hint="import public modules", kind="module", name=module)
        for alias in node.names:
            if alias.name == "*":
                self.report(rules.STAR_IMPORT, alias, hint=rules.STAR_IMPORT.hint.format(module=module))
                continue
            parts = alias.name.split(".")
            if any(_is_private(p) or _is_dunder(p) for p in parts):
                self.report(rules.PRIVATE_IMPORT, alias, kind="name", name=alias.name)
            bound = alias.asname or (alias.name if is_from else parts[0])
            self.name_rule(alias, alias.asname)
            self.bound.add(bound)
            self.imported.add(bound)

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bound.add(node.name)
            self.name_rule(node, node.name)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self.name_rule(node, name)

    visit_Nonlocal = visit_Global

    def visit_MatchAs(self, node: ast.MatchAs | ast.MatchStar) -> None:
        if node.name:
            self.bound.add(node.name)
            self.name_rule(node, node.name)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.bound.add(node.rest)
            self.name_rule(node, node.rest)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:
            self.attribute_rule(node, attr, None, store=False, where=" (in a class pattern)")

    def visit_FormattedValue(self, node: ast.FormattedValue) -> None:
        spec = node.format_spec
        if isinstance(spec, ast.JoinedStr):
            for part in spec.values:
                if isinstance(part, ast.Constant):
                    self.template_rule(part, " (in a format spec)")

    def visit_Call(self, node: ast.Call) -> None:
        func, args = node.func, node.args
        if isinstance(func, ast.Name):
            self._call_by_name(node, func.id, args)
        elif isinstance(func, ast.Attribute):
            method = func.attr
            if method in ("format", "format_map") and isinstance(func.value, ast.Constant):
                self.template_rule(func.value, " (in a format template)")
            if method in ("format", "vformat") and args and isinstance(args[0], ast.Constant):
                self.template_rule(args[0], " (in a format template)")
            if method in ("attrgetter", "reduce"):
                self._call_by_name(node, method, args)

    def _call_by_name(self, node: ast.Call, name: str, args: list[ast.expr]) -> None:
        if name in ("getattr", "hasattr", "setattr", "delattr") and len(args) >= 2:
            if _const_str(args[1]) is not None:
                self.attribute_rule(args[1], _const_str(args[1]) or "", args[0],
                                    store=name in ("setattr", "delattr"), where=f" (via {name})")
        elif name == "attrgetter":
            for arg in args:
                text = _const_str(arg)
                for part in text.split(".") if text else ():
                    self.attribute_rule(arg, part, None, store=False, where=" (via attrgetter)")
        elif name == "reduce" and len(args) >= 2 and isinstance(args[0], ast.Name) \
                and args[0].id == "getattr" and isinstance(args[1], (ast.List, ast.Tuple)):
            for item in args[1].elts:
                text = _const_str(item)
                if text is not None:
                    self.attribute_rule(item, text, None, store=False, where=" (via reduce(getattr))")
        elif name == "type" and len(args) == 3 and isinstance(args[2], ast.Dict):
            self._dynamic_class_namespace(args[2])
        elif name in ("eval", "exec") and args and _const_str(args[0]) is not None:
            self._code_string(args[0], name, _const_str(args[0]) or "")

    def _dynamic_class_namespace(self, namespace: ast.Dict) -> None:
        """The keys of ``type(name, bases, {...})`` visible in the code, refused early as a class
        body's would be (the class builder checks the real namespace again when it runs)."""
        for key in namespace.keys:
            name = _const_str(key) if key is not None else None
            if key is None or name is None or not _is_dunder(name) or name in DEFINABLE_DUNDERS \
                    or name in DATA_DUNDERS:
                continue
            reason = FORBIDDEN_DUNDERS.get(name, "it has not been reviewed for safety")
            self.report(rules.DYNAMIC_CLASS, key, name=name, reason=reason)

    def _code_string(self, node: ast.expr, name: str, text: str) -> None:
        if self.nested >= 8:
            return
        inner = restrict_text(text, nested=self.nested + 1)
        for diag in inner:
            self.report(rules.CODE_STRING, node, hint=diag.hint, function=name, code=diag.code,
                        name=diag.name, line=diag.line, detail=diag.message)

    # -- table ----------------------------------------------------------------------------

    @classmethod
    def build_table(cls) -> dict[type[ast.AST], Handler | None]:
        """node type -> check (None: reviewed, nothing to check). Node types missing from the
        table are refused by ``check``."""
        table: dict[type[ast.AST], Handler | None] = {}
        for node_type in _all_node_types():
            if node_type.__name__ in DENIED_NODES:
                continue
            own = cls.__dict__.get("visit_" + node_type.__name__)
            if own is not None:
                table[node_type] = own
            elif issubclass(node_type, _PLAIN_NODES):
                table[node_type] = None
        return table


_MISSING: Any = object()


def _const_str(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _all_node_types() -> list[type[ast.AST]]:
    seen: list[type[ast.AST]] = []
    todo: list[type[ast.AST]] = [ast.AST]
    while todo:
        current = todo.pop()
        for sub in current.__subclasses__():
            if sub not in seen and sub.__module__ == "ast":
                seen.append(sub)
                todo.append(sub)
    return seen


SafeEvalRules._table = SafeEvalRules.build_table()


def restrict(nodes: Iterable[ast.AST], source: str = "", *, nested: int = 0,
             writable: frozenset[tuple[str, str]] = frozenset()) -> list[Diagnostic]:
    """Check parsed nodes (pre-order, as ``parse`` returns them); every violation, sorted.
    ``writable``: (env name, attribute) pairs the host declared writable."""
    return SafeEvalRules(source, nested=nested, writable=writable).check(nodes)


def _declared_writable(node: ast.AST, root: str | None, name: str,
                       writable: frozenset[tuple[str, str]]) -> bool:
    """``root.name = v`` written directly on an env name whose ``name`` the host declared
    writable (the run-time write is still decided by the policy: ``HostProxy``)."""
    return (root is not None and (root, name) in writable and isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == root)


def restrict_text(text: str, *, nested: int = 0) -> list[Diagnostic]:
    """Parse and check a code string (for eval/exec arguments); parse errors are not reported
    here (the guest's eval() raises its own SyntaxError at run time)."""
    from safe_eval.pipeline.parse import parse

    parsed, _ = parse(text)
    if parsed is None:
        return []
    return restrict(parsed.nodes, parsed.source, nested=nested)
