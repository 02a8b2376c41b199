"""The interface the compiler mixins (expressions, statements, patterns, scopes) share.

``Compiler`` combines the mixins; each mixin calls the others' entry points through ``self``.
The declarations below exist for the type checker only.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from safe_eval.interpreter.runtime import Frame

__all__ = ["CompilerBase", "Ev", "St", "Store"]

Ev = Callable[[Frame], Any]
St = Callable[[Frame], Any]
Store = Callable[[Frame, Any], None]


class CompilerBase:
    if TYPE_CHECKING:
        from safe_eval.interpreter.scopes import Scope
        from safe_eval.interpreter.specialize import Operand

        scope: Scope
        scopes: dict[int, Scope]
        filename: str
        lines: tuple[str, ...]
        qualname: list[str]
        annotations: dict[int, dict[str, ast.expr]]

        def expr(self, node: ast.expr) -> Ev: ...
        def operand(self, node: ast.expr) -> Operand: ...
        def load_name(self, name: str) -> Ev: ...
        def _elts(self, elts: list[ast.expr]) -> Callable[[Frame], list[Any]]: ...
        def block(self, nodes: list[ast.stmt]) -> St: ...
        def function_body(self, nodes: list[ast.stmt]) -> St: ...
        def stmt(self, node: ast.stmt) -> St: ...
        def store(self, t: ast.expr) -> Store: ...
        def store_name(self, name: str, walrus: bool = False) -> Store: ...
        def delete(self, t: ast.expr, quiet: bool = False) -> St: ...
        def pattern(self, p: ast.pattern) -> Callable[[Frame, Any], bool]: ...
        def make_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> Ev: ...
        def comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> Ev: ...
