"""Differential helper for the interpreter tests: run a snippet under safe_eval and CPython.

The outcome is (printed output, value, (exception type, message) or None), compared exactly.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
from typing import Any

from safe_eval import Evaluator, GuestError
from safe_eval.limits import Limits

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


SEMANTICS_LIMITS = Limits(time=60)


def guest(source: str, env: dict[str, Any] | None = None, **kw: Any) -> Outcome:
    try:
        # the subject is what the program computes: a loaded machine must not time it out
        kw.setdefault("limits", SEMANTICS_LIMITS)
        r = Evaluator(**kw).run(source, dict(env or {}))
    except GuestError as e:
        return "", None, (e.type_name, e.message)
    return r.stdout, r.value, None


def same_outcome(source: str, env: dict[str, Any] | None = None) -> tuple[Outcome, Outcome]:
    expected, got = cpython(source, env), guest(source, env)
    if expected[2] is not None:  # output before an uncaught error is not returned by safe_eval
        expected = ("", None, expected[2])
    return expected, got


def comparable(v: Any) -> Any:
    """Objects of classes a program defines compare by repr across the two runs (they differ
    by identity), also inside the containers a program returns."""
    if type(v) in (list, tuple):
        return type(v)(comparable(x) for x in v)
    if type(v) is dict:
        return {k: comparable(x) for k, x in v.items()}
    if isinstance(v, (int, float, complex, str, bytes, bool, type(None), set, frozenset)):
        return v
    return repr(v)


def same_value(a: Any, b: Any) -> bool:
    """Equal values of the same type; floats within rounding, NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return math.isclose(a, b, rel_tol=1e-9) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return bool(a == b)
