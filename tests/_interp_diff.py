"""Differential helper for the interpreter tests: run a snippet under safe_eval and CPython.

The outcome is (printed output, value, (exception type, message) or None), compared exactly.
"""

from __future__ import annotations

import ast
import contextlib
import io
from typing import Any

from safe_eval import Evaluator, GuestError

Outcome = tuple[str, Any, Any]


def cpython(source: str, env: dict[str, Any] | None = None) -> Outcome:
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    g: dict[str, Any] = {"__name__": "__main__", **(env or {})}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(tree, "<cpython>", "exec"), g)
            value = eval(compile(ast.Expression(last.value), "<cpython>", "eval"), g) if last else None
        except (Exception, SystemExit, KeyboardInterrupt) as e:  # the oracle of guest exits too
            return out.getvalue(), None, (type(e).__name__, str(e))
    return out.getvalue(), value, None


def guest(source: str, env: dict[str, Any] | None = None, **kw: Any) -> Outcome:
    try:
        r = Evaluator(**kw).run(source, dict(env or {}))
    except GuestError as e:
        return "", None, (e.type_name, e.message)
    return r.stdout, r.value, None


def same_outcome(source: str, env: dict[str, Any] | None = None) -> tuple[Outcome, Outcome]:
    expected, got = cpython(source, env), guest(source, env)
    if expected[2] is not None:  # output before an uncaught error is not returned by safe_eval
        expected = ("", None, expected[2])
    return expected, got
