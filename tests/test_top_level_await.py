"""Top-level ``await`` (and ``async for``/``async with``/async comprehensions at module level),
as IPython and smolagents run model code: the module runs as a coroutine on the guest's
``asyncio`` loop (``interpreter/compiler._async_runner``). A module without them runs as before."""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval import Evaluator, safe_eval
from safe_eval.errors import GuestError, PolicyViolation

PRELUDE = (
    "import asyncio\n"
    "async def double(n):\n    await asyncio.sleep(0)\n    return n * 2\n"
    "async def count(n):\n    for i in range(n):\n        await asyncio.sleep(0)\n        yield i\n"
)

PROGRAMS = {
    "await_a_sleep": ("await asyncio.sleep(0)\n5", 5),
    "await_a_coroutine_result": ("x = await double(21)\nx", 42),
    "await_gather": ("await asyncio.gather(double(1), double(2))", [2, 4]),
    "await_in_the_last_expression": ("await double(4)", 8),
    "async_comprehension": ("[i async for i in count(3)]", [0, 1, 2]),
    "async_for_statement": ("out = []\nasync for i in count(2):\n    out.append(i)\nout", [0, 1]),
    "await_in_a_loop_and_branch": ("t = 0\nfor i in range(3):\n    if i:\n        t += await double(i)\nt", 6),
    "task_created_at_top_level": ("t = asyncio.create_task(double(5))\nawait t", 10),
}


@pytest.mark.parametrize(("code", "expected"), PROGRAMS.values(), ids=PROGRAMS.keys())
def test_top_level_await_runs_the_module_as_a_coroutine(code: str, expected: Any) -> None:
    assert safe_eval(PRELUDE + code) == expected


def test_an_exception_raised_by_an_awaited_coroutine_reaches_the_caller_with_its_line() -> None:
    with pytest.raises(GuestError, match=r"<safe-eval>:3:\d+: ValueError: boom"):
        safe_eval("import asyncio\nasync def f():\n    raise ValueError('boom')\nawait f()")


def test_names_bound_by_an_awaiting_module_stay_in_its_env() -> None:
    ev, env = Evaluator(), {}
    ev.run(PRELUDE + "x = await double(3)", env)
    assert ev.run("x + 1", env).value == 7


def test_asyncio_run_inside_an_awaiting_module_is_refused_as_in_a_running_loop() -> None:
    with pytest.raises(GuestError, match="asyncio.run\\(\\) cannot be called from a running event loop"):
        safe_eval(PRELUDE + "await asyncio.sleep(0)\nasyncio.run(double(1))")


REFUSED = {
    "lambda": ("f = lambda: await g", "'await' outside async function"),
    "plain_function": ("def f():\n    await g", "'await' outside async function"),
    "class_body": ("class A:\n    await g", "'await' outside function"),
}


@pytest.mark.parametrize(("code", "message"), REFUSED.values(), ids=REFUSED.keys())
def test_await_outside_the_module_scope_and_async_functions_is_still_a_compile_error(code: str, message: str) -> None:
    with pytest.raises(PolicyViolation, match=f"P009 .*{message}"):
        safe_eval(code)
