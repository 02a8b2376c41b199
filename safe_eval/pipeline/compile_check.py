"""Compile-time errors: what CPython's compiler refuses in a tree its parser accepted.

    compile_errors(tree, source) -> [Diagnostic]        (stage "parse", code P009)

``ast.parse`` accepts ``break`` outside a loop, ``def f(x, x)``, ``nonlocal x`` at module
level, ``return``/``yield``/``await`` outside a function, a name used before its ``global``
declaration, a starred assignment target outside a list or tuple, a misplaced ``from
__future__`` import, and so on: CPython finds these in its symbol table pass and code
generator, and refuses the whole program before running any of it. We ask the same compiler:
``compile()`` of the parsed tree to bytecode (the bytecode is thrown away; nothing runs), so
the message and position are CPython's own, for every such rule of the running version.

It runs on the tree before scrub (scrub drops docstrings and annotations, which could hide or
move an error). Cost: about as much as ``ast.parse`` of the same text (~50 us for a 30-line
program), paid once per distinct text (``build_program`` memoises). Compiling never runs guest
code: constant folding is bounded by CPython itself (it refuses to fold results over a few KB),
and the parse stage has already bounded the tree's depth and size.

Warnings the compiler emits (``"is" with a literal``, a tuple called as a function) must not
reach the host: they are not errors, and a host running with ``-W error`` would see them turned
into SyntaxErrors. They are not silenced through ``warnings.catch_warnings`` (the filter list is
one for the whole process: runs compiling ``exec`` strings at once restored each other's saved
lists and left ``ignore`` in the host's filters for good, and every host thread lost its
warnings while one compiled). Instead the few tree shapes CPython's code generator warns about
(``compile.c``: ``check_compare``, ``check_caller``, ``check_subscripter``, ``check_index``,
``compiler_assert``) are put in a form it does not warn about for the duration of the compile
(``_quiet``): the operand is wrapped as ``(operand or None)``, which compiles everything inside
it as before, and the tree is put back afterwards.
"""

from __future__ import annotations

import ast

from safe_eval import rules
from safe_eval.diagnostics import Diagnostic

__all__ = ["compile_errors"]


def compile_errors(tree: ast.Module, source: str) -> list[Diagnostic]:
    """The compiler's first error in ``tree`` (CPython stops at the first), or none."""
    undo = _quiet(tree)
    try:
        # a fixed file name: on an error CPython reads the named file for the line's text
        # top-level await is allowed, as IPython and smolagents allow it (the interpreter
        # runs such a module as a coroutine: compiler._async_runner)
        compile(tree, "<safe-eval>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as exc:
        return [_diagnostic(exc, source)]
    except (RecursionError, MemoryError, ValueError) as exc:  # defensive: parse bounds the tree
        return [rules.COMPILE_ERROR.diagnostic((1, 1, 1, 2), hint="send simpler code",
                                               detail=f"the code cannot be compiled: {type(exc).__name__}")]
    finally:
        for node, field, value in undo:
            setattr(node, field, value)
    return []


# what CPython's code generator warns about as the callee of a call, the value of a subscript
_CALLEE_WARNED = (ast.Constant, ast.Tuple, ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set,
                  ast.SetComp, ast.GeneratorExp, ast.JoinedStr, ast.FormattedValue)
_SUBSCRIPTED_WARNED = (ast.Constant, ast.Set, ast.SetComp, ast.GeneratorExp, ast.Lambda, ast.Tuple,
                       ast.List, ast.ListComp, ast.JoinedStr, ast.FormattedValue)
_IS_SINGLETONS = (None, True, False, ...)


def _or_none(e: ast.expr) -> ast.expr:
    """``(e or None)``: compiles ``e`` (its errors included) but is no literal."""
    return ast.copy_location(ast.BoolOp(op=ast.Or(), values=[e, ast.copy_location(ast.Constant(None), e)]), e)


def _quiet(tree: ast.AST) -> list[tuple[ast.AST, str, object]]:
    """Rewrite in place the shapes the code generator warns about (a superset of them);
    returns what to set back: ``(node, field, old value)``."""
    undo: list[tuple[ast.AST, str, object]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                undo.append((node, "left", node.left))
                undo.append((node, "comparators", node.comparators))
                node.left = _quiet_operand(node.left)
                node.comparators = [_quiet_operand(c) for c in node.comparators]
        elif isinstance(node, ast.Call):
            if isinstance(node.func, _CALLEE_WARNED):
                undo.append((node, "func", node.func))
                node.func = _or_none(node.func)
        elif isinstance(node, ast.Subscript):
            if isinstance(node.value, _SUBSCRIPTED_WARNED):
                undo.append((node, "value", node.value))
                node.value = _or_none(node.value)
        elif isinstance(node, ast.Assert) and isinstance(node.test, ast.Tuple) and node.test.elts:
            undo.append((node, "test", node.test))
            node.test = _or_none(node.test)
    return undo


def _quiet_operand(e: ast.expr) -> ast.expr:
    if isinstance(e, ast.Constant) and not any(e.value is v for v in _IS_SINGLETONS):
        return _or_none(e)
    return e


def _diagnostic(exc: SyntaxError, source: str) -> Diagnostic:
    lines = source.split("\n")
    line = exc.lineno or 1
    col = _column(lines, line, exc.offset or 1)
    end_line = exc.end_lineno or line
    end_col = _column(lines, end_line, exc.end_offset) if exc.end_offset else col + 1
    if end_line == line and end_col <= col:
        end_col = col + 1
    return rules.COMPILE_ERROR.diagnostic((line, col, end_line, end_col), detail=exc.msg or "invalid syntax")


def _column(lines: list[str], line: int, byte_col: int) -> int:
    """A 1-based character column from the compiler's 1-based UTF-8 byte offset."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    if text.isascii():
        return byte_col
    return len(text.encode("utf-8")[:byte_col - 1].decode("utf-8", "ignore")) + 1
