"""Run one program under CPython and under safe-eval; say how the outcomes differ."""

from __future__ import annotations

import ast
import contextlib
import io
import math
from typing import Any

from safe_eval import Evaluator, GuestError

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
        r = Evaluator().run(source, {})
    except GuestError as e:
        return "", None, (e.type_name, e.message)
    return r.stdout, r.value, None


def _plain(v: Any) -> Any:
    """Objects of classes the program defines compare by repr (they differ by identity)."""
    if type(v) in (list, tuple):
        return type(v)(_plain(x) for x in v)
    if type(v) is dict:
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (int, float, complex, str, bytes, bool, type(None), set, frozenset)):
        return v
    return repr(v)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return math.isclose(a, b, rel_tol=1e-9) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def compare(source: str) -> tuple[Outcome, Outcome] | None:
    """(CPython's outcome, safe-eval's) when they differ, else None."""
    expected, got = cpython(source), guest(source)
    if expected[2] is not None or got[2] is not None:
        return None if expected[2] == got[2] else (expected, got)
    if expected[0] != got[0] or not _same(_plain(expected[1]), _plain(got[1])):
        return expected, got
    return None
