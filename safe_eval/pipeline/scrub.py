"""Stage 2, scrub: make annotations inert and drop docstrings, in place.

Why: nothing may evaluate model-written text later (``typing.get_type_hints``, ``dataclasses``,
doctest). After scrub:

- Function annotations (parameters and return) are moved out of the tree into the
  annotations map, keyed by ``id(FunctionDef | AsyncFunctionDef)``, ``"return"`` for the
  return annotation; the nodes' ``annotation``/``returns`` fields become ``None``.
- Every ``AnnAssign`` stays an ``AnnAssign`` (so the interpreter sees class fields in order
  and function-local declarations such as ``x: int`` that make ``x`` local), but its
  ``annotation`` becomes an inert ``ast.Constant`` holding the annotation's source text,
  which is never evaluated. At module and function level it means a plain assignment (or
  nothing when there is no value). The original annotation expressions of class-level fields
  are kept in the annotations map too, keyed by ``id(ClassDef)``, field name -> expression.
- Docstrings (a first-statement string constant of a module, function or class) are dropped,
  replaced by ``pass`` when they were the only statement. Exception: a module consisting of
  a single string expression keeps it, because it is the value ``safe_eval`` returns.

Scrub walks statements only (expressions cannot hold annotations or docstrings); statement
nesting is bounded by the parser (100 indentation levels), so recursion here is safe.
The scrubbed tree still unparses and compiles.

Codes: scrub never refuses code; the ``S0xx`` codes are reserved.
"""

from __future__ import annotations

import ast
import re

__all__ = ["Annotations", "scrub"]

Annotations = dict[int, dict[str, ast.expr]]

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NESTED_BODIES = ("body", "orelse", "finalbody")
# the line breaks the tokenizer counts (str.splitlines also splits on \f, \x1c, ... : wrong here)
_LINE_BREAK = re.compile("\r\n|\r|\n")


def _is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def _drop_docstring(body: list[ast.stmt]) -> None:
    if body and _is_docstring(body[0]):
        if len(body) == 1:
            body[0] = ast.copy_location(ast.Pass(), body[0])
        else:
            del body[0]


class _Scrubber:
    def __init__(self, source: str) -> None:
        self.source = source
        self.lines: list[str] | None = None
        self.annotations: Annotations = {}

    def text_of(self, node: ast.expr) -> str:
        """The annotation's source text (cheap slice for one-line annotations)."""
        if not self.source:
            return ast.unparse(node)
        if self.lines is None:
            self.lines = _LINE_BREAK.split(self.source)
        line = node.lineno
        if line == node.end_lineno and line <= len(self.lines):
            raw = self.lines[line - 1].encode("utf-8")  # AST columns are UTF-8 byte offsets
            return raw[node.col_offset:node.end_col_offset].decode("utf-8", "replace")
        return ast.unparse(node)

    def body(self, stmts: list[ast.stmt], owner: ast.ClassDef | None = None) -> None:
        for stmt in stmts:
            if isinstance(stmt, _FUNCTIONS):
                self.function(stmt)
            elif isinstance(stmt, ast.ClassDef):
                _drop_docstring(stmt.body)
                self.body(stmt.body, owner=stmt)
            elif isinstance(stmt, ast.AnnAssign):
                self.ann_assign(stmt, owner)
            else:
                self.nested(stmt)

    def nested(self, stmt: ast.stmt) -> None:
        for field in _NESTED_BODIES:
            inner = getattr(stmt, field, None)
            if inner:
                self.body(inner)
        for handler in getattr(stmt, "handlers", ()):
            self.body(handler.body)
        for case in getattr(stmt, "cases", ()):
            self.body(case.body)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        kept: dict[str, ast.expr] = {}
        args = node.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if args.vararg is not None:
            every.append(args.vararg)
        if args.kwarg is not None:
            every.append(args.kwarg)
        for arg in every:
            if arg.annotation is not None:
                kept[arg.arg] = arg.annotation
                arg.annotation = None
        if node.returns is not None:
            kept["return"] = node.returns
            node.returns = None
        if kept:
            self.annotations[id(node)] = kept
        _drop_docstring(node.body)
        self.body(node.body)

    def ann_assign(self, node: ast.AnnAssign, owner: ast.ClassDef | None) -> None:
        annotation = node.annotation
        if owner is not None and isinstance(node.target, ast.Name):
            self.annotations.setdefault(id(owner), {})[node.target.id] = annotation
        node.annotation = ast.copy_location(ast.Constant(self.text_of(annotation)), annotation)


def scrub(tree: ast.Module, source: str = "") -> Annotations:
    """Scrub ``tree`` in place; return the function (and class field) annotations kept aside."""
    scrubber = _Scrubber(source)
    if len(tree.body) > 1:
        _drop_docstring(tree.body)
    scrubber.body(tree.body)
    return scrubber.annotations
