"""Run one program under CPython and under safe-eval; say how the outcomes differ."""

from __future__ import annotations

import ast
import contextlib
import io
from typing import Any

from _interp_diff import comparable, same_value

from safe_eval import Evaluator, GuestError, Limits

Outcome = tuple[str, Any, "tuple[str, str] | None"]


def cpython(source: str) -> Outcome:
    """exec all but the last statement, eval the last expression (safe-eval's REPL rule)."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    g: dict[str, Any] = {"__name__": "__main__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(tree, "<fuzz>", "exec"), g)
            value = eval(compile(ast.Expression(last.value), "<fuzz>", "eval"), g) if last else None
        except Exception as e:  # the oracle of a guest error
            return "", None, (type(e).__name__, str(e))
    return out.getvalue(), value, None


def guest(source: str) -> Outcome:
    try:
        r = Evaluator(limits=Limits(time=60)).run(source, {})  # semantics, not speed
    except GuestError as e:
        return "", None, (e.type_name, e.message)
    return r.stdout, r.value, None


def compare(source: str) -> tuple[Outcome, Outcome] | None:
    """(CPython's outcome, safe-eval's) when they differ, else None."""
    expected, got = cpython(source), guest(source)
    if expected[2] is not None or got[2] is not None:
        return None if expected[2] == got[2] else (expected, got)
    if expected[0] != got[0] or not same_value(comparable(expected[1]), comparable(got[1])):
        return expected, got
    return None
