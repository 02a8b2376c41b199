"""Scope analysis: which names are fast locals, cells, free variables or globals.

The same classification CPython's ``symtable`` makes, computed from the (scrubbed) AST so it
always matches the tree we compile. The compiler asks ``Scope.kind_of(name)`` once per name
node and emits a closure that does exactly one kind of lookup.

Kinds:
    FAST      a local of a function: a slot in the frame list
    CELL      a local captured by an inner function, or a free variable: the slot holds a Cell
    GLOBAL    the module namespace (then builtins)
    NAME      module level, or a class body name: the scope's dict, then globals, then builtins
    CLASSDEREF  a class body reading an enclosing function's variable: class dict, then the cell
"""

from __future__ import annotations

import ast
import sys

__all__ = ["CELL", "CLASSDEREF", "FAST", "GLOBAL", "NAME", "Scope", "analyse_scopes", "FIRST_SLOT",
           "unbound_free", "unbound_local"]

FAST, CELL, GLOBAL, NAME, CLASSDEREF = "fast", "cell", "global", "name", "classderef"

# frame layout: [globals dict, budget, return value, (class ns for class bodies), slots...]
FIRST_SLOT = 3


def unbound_local(name: str) -> UnboundLocalError:
    """The error CPython raises for a local read or deleted before assignment (its wording
    changed in 3.11)."""
    if sys.version_info >= (3, 11):
        return UnboundLocalError(f"cannot access local variable '{name}' where it is not associated "
                                 "with a value")
    return UnboundLocalError(f"local variable '{name}' referenced before assignment")


def unbound_free(name: str) -> NameError:
    """The error for a free variable read before the enclosing function assigned it."""
    if sys.version_info >= (3, 11):
        return NameError(f"cannot access free variable '{name}' where it is not associated with a value "
                         "in enclosing scope")
    return NameError(f"free variable '{name}' referenced before assignment in enclosing scope")


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class Scope:
    """One scope's names and, once resolved, its slots (a plain class rather than a dataclass:
    dataclass creation costs about half a millisecond of every cold start)."""

    __slots__ = ("kind", "node", "parent", "name", "params", "assigned", "used", "deleted", "globals_",
                 "nonlocals", "walrus_out", "children", "is_comprehension", "is_generator", "is_async",
                 "cells", "frees", "slots", "nslots", "class_cell", "parked_inline")

    def __init__(self, kind: str, node: ast.AST, parent: Scope | None, name: str = "<module>") -> None:
        self.kind = kind  # "module" | "class" | "function"
        self.node = node
        self.parent = parent
        self.name = name
        self.params: list[str] = []
        self.assigned: set[str] = set()
        self.used: set[str] = set()
        self.deleted: set[str] = set()
        self.globals_: set[str] = set()
        self.nonlocals: set[str] = set()
        self.walrus_out: set[str] = set()  # comprehension walrus targets
        self.children: list[Scope] = []
        self.is_comprehension = False
        self.is_generator = False
        self.is_async = False
        # a list/set/dict comprehension that suspends in a body whose frame is parked: its own
        # frame is parked with it (``compiler.comprehension``)
        self.parked_inline = False
        # results
        self.cells: set[str] = set()
        self.frees: list[str] = []
        self.slots: dict[str, int] = {}
        self.nslots = FIRST_SLOT
        self.class_cell = False

    def __repr__(self) -> str:
        return f"<Scope {self.kind} {self.name}>"

    # -- resolution ------------------------------------------------------------------------
    def locals_(self) -> set[str]:
        return (self.assigned | set(self.params)) - self.globals_ - self.nonlocals - self.walrus_out

    def kind_of(self, name: str) -> str:
        if self.kind == "module":
            return NAME
        if name in self.globals_:
            return GLOBAL
        if self.kind == "class":
            if name in self.frees and name not in self.assigned:
                return CLASSDEREF
            return NAME
        if name in self.frees or name in self.cells:
            return CELL
        if name in self.slots:
            return FAST
        return GLOBAL

    def add_free(self, name: str) -> None:
        if name not in self.frees:
            self.frees.append(name)


class _Collector(ast.NodeVisitor):
    """Walk the tree once, building the scope tree and each scope's name sets."""

    def __init__(self, root: Scope) -> None:
        self.scope = root
        self.by_node: dict[int, Scope] = {id(root.node): root}

    def _child(self, kind: str, node: ast.AST, name: str) -> Scope:
        s = Scope(kind, node, self.scope, name)
        self.scope.children.append(s)
        self.by_node[id(node)] = s
        return s

    def _in(self, scope: Scope, nodes: list[ast.AST]) -> None:
        saved, self.scope = self.scope, scope
        for n in nodes:
            self.visit(n)
        self.scope = saved

    def _bind(self, name: str) -> None:
        self.scope.assigned.add(name)

    # -- definitions -----------------------------------------------------------------------
    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        a = node.args
        for d in [*a.defaults, *[k for k in a.kw_defaults if k is not None]]:
            self.visit(d)
        if not isinstance(node, ast.Lambda):
            for d in node.decorator_list:
                self.visit(d)
            self._bind(node.name)
        name = node.name if not isinstance(node, ast.Lambda) else "<lambda>"
        s = self._child("function", node, name)
        s.is_async = isinstance(node, ast.AsyncFunctionDef)
        params = [x.arg for x in [*a.posonlyargs, *a.args]]
        if a.vararg:
            params.append(a.vararg.arg)
        params += [x.arg for x in a.kwonlyargs]
        if a.kwarg:
            params.append(a.kwarg.arg)
        s.params = params
        body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
        self._in(s, body)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function
    visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for n in [*node.bases, *[k.value for k in node.keywords], *node.decorator_list]:
            self.visit(n)
        self._bind(node.name)
        s = self._child("class", node, node.name)
        self._in(s, list(node.body))

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> None:
        gens = node.generators
        self.visit(gens[0].iter)
        s = self._child("function", node, "<" + type(node).__name__.lower() + ">")
        s.is_comprehension = True
        s.is_generator = isinstance(node, ast.GeneratorExp)
        s.params = [".0"]
        parts: list[ast.AST] = []
        for i, g in enumerate(gens):
            parts.append(g.target)
            if i:
                parts.append(g.iter)
            parts += g.ifs
            if g.is_async:
                s.is_async = True
        parts += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        self._in(s, parts)

    visit_ListComp = _comprehension
    visit_SetComp = _comprehension
    visit_DictComp = _comprehension
    visit_GeneratorExp = _comprehension

    # -- names -----------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.scope.used.add(node.id)
            if node.id == "super":
                self._need_class_cell()
        else:
            self._bind(node.id)
            if isinstance(node.ctx, ast.Del):
                self.scope.deleted.add(node.id)
        if node.id == "__class__" and isinstance(node.ctx, ast.Load):
            self._need_class_cell()

    def _need_class_cell(self) -> None:
        if self.scope.kind == "function":
            self.scope.used.add("__class__")

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        name = node.target.id
        s = self.scope
        while s.is_comprehension and s.parent is not None:
            s.walrus_out.add(name)
            s.used.add(name)
            s = s.parent
        s.assigned.add(name)

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.globals_.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.scope.nonlocals.update(node.names)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._bind(a.asname or a.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            if a.name != "*":
                self._bind(a.asname or a.name)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind(node.name)
            self.scope.deleted.add(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self._bind(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._bind(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self._bind(node.rest)
        self.generic_visit(node)

    def visit_Yield(self, node: ast.Yield) -> None:
        self.scope.is_generator = True
        self.generic_visit(node)

    def visit_YieldFrom(self, node: ast.YieldFrom) -> None:
        self.scope.is_generator = True
        self.generic_visit(node)

    def visit_Await(self, node: ast.Await) -> None:
        # an await makes a comprehension asynchronous; a function is async only by ``async def``
        if self.scope.is_comprehension:
            self.scope.is_async = True
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        # the annotation is inert after scrub: never evaluated, so its names are not uses
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    def visit_arg(self, node: ast.arg) -> None:
        return None


def _resolve(scope: Scope) -> None:
    if scope.kind == "function":
        local = scope.locals_()
        wanted = (scope.used - local - scope.globals_) | scope.nonlocals | scope.walrus_out
    elif scope.kind == "class":
        wanted = scope.used - scope.globals_
        wanted |= scope.nonlocals
        local = set()
    else:
        wanted, local = set(), set()
    for name in sorted(wanted):
        _link(scope, name)
    if scope.kind == "function":
        slot = FIRST_SLOT
        for p in scope.params:
            if p not in scope.slots:
                scope.slots[p] = slot
                slot += 1
        for n in sorted(local - set(scope.params)):
            scope.slots[n] = slot
            slot += 1
        scope.nslots = slot
    for child in scope.children:
        _resolve(child)
    # frees get slots after the children told us which of our locals they capture
    # (cells are locals: their slot already exists); free slots come last
    if scope.kind in ("function", "class"):
        base = scope.nslots if scope.kind == "function" else FIRST_SLOT + 1
        if scope.kind == "class" and scope.class_cell:
            scope.slots["__class__"] = base
            base += 1
        for n in scope.frees:
            if n not in scope.slots:
                scope.slots[n] = base
                base += 1
        scope.nslots = base


def _link(scope: Scope, name: str) -> None:
    """Find the scope that binds ``name`` for a use in ``scope``; mark the path free."""
    path = [scope]
    s = scope.parent
    while s is not None and s.kind != "module":
        if s.kind == "function" and name in s.globals_:
            # `global name` in an enclosing function: that function does not bind it, and (as
            # in CPython's symtable, which drops it from the names visible below) neither does
            # any function further out for the scopes inside: it is the module's name. A class
            # body's `global` does not reach its methods (CPython passes the outer names on).
            return
        if s.kind == "class":
            if name == "__class__":
                s.class_cell = True
                for p in path:
                    p.add_free(name)
                return
            path.append(s)
            s = s.parent
            continue
        if name in s.locals_() or name in s.nonlocals or name in s.walrus_out:
            if name in s.locals_():
                s.cells.add(name)
            else:
                _link(s, name)
            for p in path:
                p.add_free(name)
            return
        path.append(s)
        s = s.parent
    # not found: global (nonlocal of a missing name is a SyntaxError caught by the parser)


def analyse_scopes(tree: ast.Module) -> dict[int, Scope]:
    """Scope tree of a module: ``id(node) -> Scope`` for the module and every function,
    lambda, class and comprehension node."""
    root = Scope("module", tree, None)
    c = _Collector(root)
    for stmt in tree.body:
        c.visit(stmt)
    for child in root.children:
        _resolve(child)
    return c.by_node
