"""Invariant: an agent's ``final_answer`` ends the action, whatever the guest wraps it in.

smolagents ends a code action by raising from ``final_answer``; its own executor uses a
``BaseException``, which a guest ``except:`` catches. ``SafeEvalExecutor`` raises a
``SafeEvalError`` (``FinalAnswer``), which no guest handler may catch, suppress or replace. Each
case is guest code that tries to keep running after ``final_answer``; the action must end
with the first answer and nothing after it may run.
"""

from __future__ import annotations

from textwrap import dedent

import pytest

pytest.importorskip("smolagents", reason="smolagents is not installed (pip install -e '.[smolagents]')")

from smolagents.default_tools import FinalAnswerTool

from safe_eval.integrations.smolagents import SafeEvalExecutor

ATTEMPTS = {
    "bare-except": """
        try:
            final_answer("first")
        except:
            print("caught")
        final_answer("second")
    """,
    "except-base-exception": """
        try:
            final_answer("first")
        except BaseException as e:
            print("caught", e)
        final_answer("second")
    """,
    "suppress-context-manager": """
        import contextlib
        with contextlib.suppress(BaseException):
            final_answer("first")
        final_answer("second")
    """,
    "exit-returning-true": """
        class Swallow:
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                return True
        with Swallow():
            final_answer("first")
        final_answer("second")
    """,
    "return-in-finally": """
        def f():
            try:
                final_answer("first")
            finally:
                return "kept running"
        f()
        final_answer("second")
    """,
    "break-in-finally": """
        for _ in range(2):
            try:
                final_answer("first")
            finally:
                break
        final_answer("second")
    """,
    "generator-catching-around-yield": """
        def g():
            try:
                yield final_answer("first")
            except BaseException:
                yield "caught"
        print(list(g()))
        final_answer("second")
    """,
    "except-star": """
        try:
            final_answer("first")
        except* BaseException:
            print("caught")
        final_answer("second")
    """,
    "asyncio-task": """
        import asyncio
        async def main():
            try:
                await asyncio.gather(asyncio.sleep(0, final_answer("first")))
            except BaseException:
                return "caught"
        asyncio.run(main())
        final_answer("second")
    """,
    "sorted-key-callback": """
        try:
            sorted([2, 1], key=lambda v: final_answer("first"))
        except BaseException:
            print("caught")
        final_answer("second")
    """,
}


@pytest.mark.parametrize("code", ATTEMPTS.values(), ids=ATTEMPTS.keys())
def test_guest_code_cannot_catch_or_outlive_final_answer(code):
    import sys

    if "except*" in code and sys.version_info < (3, 11):
        pytest.skip("except* is Python 3.11 syntax")
    executor = SafeEvalExecutor(["contextlib", "asyncio"])
    executor.send_tools({"final_answer": FinalAnswerTool()})
    out = executor(dedent(code))
    assert (out.output, out.is_final_answer, out.logs) == ("first", True, "")
