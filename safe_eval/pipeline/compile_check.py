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

Warnings the compiler emits (``"is" with a literal``, a tuple called as a function) are
silenced: they are not errors, and a host running with ``-W error`` would otherwise see them
turned into SyntaxErrors.
"""

from __future__ import annotations

import ast
import warnings

from safe_eval import rules
from safe_eval.diagnostics import Diagnostic

__all__ = ["compile_errors"]


def compile_errors(tree: ast.Module, source: str) -> list[Diagnostic]:
    """The compiler's first error in ``tree`` (CPython stops at the first), or none."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # a fixed file name: on an error CPython reads the named file for the line's text
            # top-level await is allowed, as IPython and smolagents allow it (the interpreter
            # runs such a module as a coroutine: compiler._async_runner)
            compile(tree, "<safe-eval>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as exc:
        return [_diagnostic(exc, source)]
    except (RecursionError, MemoryError, ValueError) as exc:  # defensive: parse bounds the tree
        return [rules.COMPILE_ERROR.diagnostic((1, 1, 1, 2), hint="send simpler code",
                                               detail=f"the code cannot be compiled: {type(exc).__name__}")]
    return []


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
