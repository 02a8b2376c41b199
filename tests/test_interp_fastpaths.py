"""The interpreter's fast paths for calls and returns behave exactly like the general ones.

Plain function bodies are compiled to closures that return the value (``function_body``:
trailing ``return``, ``if c: return a`` + ``return b``, ``if/else`` returning on both sides),
and a one-argument call of a global guest function is entered inline (``call1_global_closure``).
Each shape is compared with CPython (value, error), tracebacks point at the same lines, and
the budget sees the same ticks as through the general call path.
"""

from __future__ import annotations

import sys
import traceback

import pytest
from _interp_diff import same_outcome

from safe_eval import Evaluator, GuestError, LimitExceeded
from safe_eval.errors import RecursionLimit

SHAPES = {
    "fib": "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\nfib(15)",
    "if_else_both_return": "def g(x):\n    if x:\n        return 1\n    else:\n        return 2\n[g(0), g(3)]",
    "nested_if_returns": (
        "def g(x):\n    if x:\n        return 1\n    else:\n        if x is None:\n            return 2\n"
        "        return 3\n[g(1), g(None), g(0)]"),
    "prefix_then_if_return": (
        "def h(x):\n    y = x + 1\n    if y > 3:\n        return y\n    return -y\n[h(5), h(1)]"),
    "if_body_falls_through": "def m(x):\n    if x > 1:\n        z = 1\n    return x\n[m(3), m(0)]",
    "return_from_loop": (
        "def k(x):\n    for i in range(3):\n        if i == x:\n            return i\n[k(2), k(7)]"),
    "early_return_in_prefix": (
        "def p(x):\n    if x:\n        return 'early'\n    y = 2\n    return y\n[p(1), p(0)]"),
    "bare_return_and_fall_off": "def q(x):\n    if x:\n        return\n    x = 1\n[q(1), q(0)]",
    "return_const_and_local": (
        "def r(x):\n    if x in (1, 2):\n        return 'small'\n    t = x * 2\n    return t\n[r(1), r(5)]"),
    "non_compare_test": "def s(x):\n    if x and x > 2:\n        return x\n    return None\n[s(3), s(0)]",
    "arg_is_call_of_builtin": "def sq(v):\n    return v * v\n[sq(len('abc')), sq(-2), sq(2.5)]",
    "arg_binop_non_int": "def ident(v):\n    return v\n[ident('a' + 'b'), ident(1.5 - 1), ident([1] * 2)]",
    "callee_rebound": "def a(v):\n    return 1\ndef b(v):\n    return 2\nr = [a(0)]\na = b\nr.append(a(0))\nr",
    "one_arg_default_and_cells": (
        "def mk(v):\n    def inner():\n        return v\n    return inner\n"
        "def dflt(v, w=10):\n    return v + w\n[mk(3)(), dflt(1)]"),
    "lambda_one_arg": "inc = lambda v: v + 1\n[inc(1), inc(inc(2))]",
    "builtin_callee": "def f(v):\n    return str(v)\n[f(1), len('xy')]",
    "unknown_callee": "def g(v):\n    return v\ndef f(v):\n    return g(v - 1)\ndel g\nf(1)",
    "error_in_arg": "def f(v):\n    return v\nf(1 // 0)",
    "error_in_test": "def f(v):\n    if v < 'a':\n        return 1\n    return 2\nf(1)",
    "error_in_tail": "def f(v):\n    if v < 1:\n        return 1\n    return v[0]\nf(5)",
    "method_one_arg": "class C:\n    def m(self):\n        return 7\nc = C()\nc.m()",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_same_outcome_as_cpython(name: str) -> None:
    ours, theirs = same_outcome(SHAPES[name])
    assert ours == theirs


def _cpython_lines(source: str) -> list[int]:
    g: dict[str, object] = {}
    try:
        exec(compile(source, "<cpython>", "exec"), g)
    except Exception:
        tb = traceback.extract_tb(sys.exc_info()[2])
        return [fr.lineno for fr in tb if fr.filename == "<cpython>"]
    raise AssertionError("the program should fail")


@pytest.mark.parametrize("name", ["unknown_callee", "error_in_arg", "error_in_test", "error_in_tail"])
def test_traceback_lines_match_cpython(name: str) -> None:
    source = SHAPES[name]
    with pytest.raises(GuestError) as info:
        Evaluator().run(source)
    assert [fr.line for fr in info.value.traceback] == _cpython_lines(source)


def _ops(source: str) -> int:
    return Evaluator().run(source).ops


def test_inline_call_ticks_like_general_call() -> None:
    # one argument: entered inline; two arguments: through the general invoker. Same ticks.
    one = _ops("def f(n):\n    if n < 1:\n        return 0\n    return f(n - 1)\nf(50)")
    two = _ops("def f(n, k):\n    if n < 1:\n        return 0\n    return f(n - 1, k)\nf(50, 0)")
    assert one == two
    assert one == _ops("def f(n):\n    if n < 1:\n        return 0\n    return f(n - 1)\nf(50)")


def test_recursion_limit_through_inline_call() -> None:
    with pytest.raises(RecursionLimit):
        Evaluator(limits={"recursion": 50}).run("def f(n):\n    return f(n + 1)\nf(0)")


def test_depth_restored_after_caught_errors() -> None:
    # each failing call unwinds 30 guest frames; 100 of them must not add up to a recursion error
    source = (
        "def f(n):\n    if n < 1:\n        return 1 // 0\n    return f(n - 1)\n"
        "caught = 0\nfor _ in range(100):\n    try:\n        f(30)\n    except ZeroDivisionError:\n"
        "        caught += 1\ncaught")
    assert Evaluator(limits={"recursion": 50}).run(source).value == 100


def test_op_limit_reached_in_inline_calls() -> None:
    with pytest.raises(LimitExceeded):
        Evaluator(limits={"ops": 1000}).run(
            "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\nfib(25)")
