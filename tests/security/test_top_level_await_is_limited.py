"""Invariant: a module run as a coroutine (top-level ``await``) is limited like any run: its
steps draw on the run's ops budget, its nesting on the run's recursion limit, and a limit
that fires inside it ends the run with that limit (``compiler._async_runner`` drives it on the
guest's own loop, never the host's ``asyncio``)."""

from __future__ import annotations

import pytest

from safe_eval import Limits, safe_eval
from safe_eval.errors import LimitExceeded, OpLimit, RecursionLimit

RUNAWAYS = {
    "awaiting_forever": ("import asyncio\nwhile True:\n    await asyncio.sleep(0)", OpLimit),
    "spinning_after_an_await": ("import asyncio\nawait asyncio.sleep(0)\nwhile True:\n    pass", OpLimit),
    "recursing_coroutines": ("async def f(n):\n    return await f(n + 1)\nawait f(0)", RecursionLimit),
    "tasks_spawning_tasks": ("import asyncio\nasync def f():\n    asyncio.create_task(f())\n"
                             "    await asyncio.sleep(0)\nawait f()\nwhile True:\n    await asyncio.sleep(0)", OpLimit),
}


@pytest.mark.parametrize(("code", "limit"), RUNAWAYS.values(), ids=RUNAWAYS.keys())
def test_an_awaiting_module_cannot_outrun_its_limits(code: str, limit: type[LimitExceeded]) -> None:
    with pytest.raises(limit):
        safe_eval(code, limits=Limits(ops=20_000, recursion=50, time=30))


def test_the_host_asyncio_loop_is_never_used_by_an_awaiting_module() -> None:
    import asyncio

    async def host() -> object:
        return safe_eval("import asyncio\nawait asyncio.sleep(0)\n'done'")

    assert asyncio.run(host()) == "done"
