"""Generators, coroutines and async generators: behaviour matches CPython; no internals leak."""

from __future__ import annotations

import pytest
from _interp_diff import same_outcome

from safe_eval import GuestError, PolicyViolation, safe_eval

PROGRAMS = {
    "send": """
def acc():
    total = 0
    while True:
        x = yield total
        total += x
g = acc(); next(g)
[g.send(i) for i in range(5)]
""",
    "throw_caught": """
def g():
    while True:
        try:
            yield 1
        except ValueError as e:
            yield f"caught {e}"
it = g(); next(it)
(it.throw(ValueError("v")), next(it))
""",
    "throw_uncaught": """
def g():
    yield 1
it = g(); next(it)
it.throw(KeyError("k"))
""",
    "close_runs_finally": """
log = []
def g():
    try:
        yield 1
        yield 2
    finally:
        log.append("fin")
it = g(); next(it); it.close()
(log, list(it))
""",
    "ignored_generator_exit": """
def g():
    try:
        yield 1
    except GeneratorExit:
        yield 2
it = g(); next(it)
it.close()
""",
    "yield_from_return_value": """
def inner():
    yield 1
    yield 2
    return "done"
def outer():
    r = yield from inner()
    yield r
list(outer())
""",
    "yield_from_send_delegates": """
def inner():
    x = yield "a"
    yield x * 2
def outer():
    yield from inner()
g = outer()
(next(g), g.send(21))
""",
    "return_value_in_stopiteration": """
def g():
    yield 1
    return 5
it = g(); next(it)
try:
    next(it)
except StopIteration as e:
    r = e.value
r
""",
    "stopiteration_inside_becomes_runtimeerror": """
def g():
    yield 1
    raise StopIteration
list(g())
""",
    "send_non_none_to_fresh": """
def g():
    yield 1
g().send(3)
""",
    "genexpr_lazy_and_scoped": """
xs = [1, 2, 3]
ge = (x * 10 for x in xs)
xs.append(4)
(list(ge), list(ge))
""",
    "nested_generators": """
def evens(n):
    for i in range(n):
        if i % 2 == 0:
            yield i
def squares(it):
    for x in it:
        yield x * x
sum(squares(evens(10)))
""",
    "generator_in_sorted_key": """
def keys():
    yield from (3, 1, 2)
sorted(keys(), key=lambda v: -v)
""",
    "async_gather_and_tasks": """
import asyncio
async def work(i):
    await asyncio.sleep(0.01 * (3 - i))
    return i
async def main():
    t = asyncio.create_task(work(0))
    rs = await asyncio.gather(work(1), work(2))
    return rs + [await t]
asyncio.run(main())
""",
    "async_generator": """
import asyncio
async def agen(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i
async def main():
    out = [x async for x in agen(3)]
    async for y in agen(2):
        out.append(y * 10)
    return out
asyncio.run(main())
""",
    "async_with": """
import asyncio
class CM:
    async def __aenter__(self):
        return "in"
    async def __aexit__(self, *exc):
        return False
async def main():
    async with CM() as v:
        return v
asyncio.run(main())
""",
    "async_exception_propagates": """
import asyncio
async def bad():
    raise ValueError("nope")
async def main():
    try:
        await bad()
    except ValueError as e:
        return str(e)
asyncio.run(main())
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_generator_behaviour_matches_cpython(name: str) -> None:
    expected, got = same_outcome(PROGRAMS[name])
    assert got == expected


@pytest.mark.parametrize("attr", ["gi_frame", "gi_code", "cr_frame", "ag_frame", "gi_running"])
def test_generator_internals_are_not_reachable(attr: str) -> None:
    code = f"def g():\n    yield 1\ngetattr(g(), {attr!r})"
    with pytest.raises((GuestError, PolicyViolation)):
        safe_eval(code)


def test_coroutine_frame_is_not_reachable() -> None:
    code = "async def c():\n    return 1\nx = c()\ngetattr(x, 'cr_frame')"
    with pytest.raises((GuestError, PolicyViolation)):
        safe_eval(code)


def test_suspended_generator_stored_in_env_resumes_in_a_later_call() -> None:
    env: dict[str, object] = {}
    safe_eval("def count():\n    n = 0\n    while True:\n        n += 1\n        yield n\nc = count()", env)
    assert safe_eval("next(c)", env) == 1
    assert safe_eval("next(c)", env) == 2


def test_endless_generator_hits_the_op_limit() -> None:
    from safe_eval import LimitExceeded

    code = "def g():\n    while True:\n        yield 1\nsum(g())"
    with pytest.raises(LimitExceeded):
        safe_eval(code, limits={"ops": 50_000, "time": 5})


@pytest.mark.parametrize(
    "code",
    [
        "yield 1",
        "x = yield from [1]",
        "class A:\n    v = await g",  # top-level await is allowed, not in a class body
        "class A:\n    v = yield 1",
        "[(yield v) for v in range(3)]",
        "def f():\n    await g",
        "async def f():\n    return lambda: await g",
    ],
)
def test_misplaced_yield_and_await_are_syntax_errors(code: str) -> None:
    with pytest.raises(PolicyViolation) as info:
        safe_eval(code, {"g": 1})
    with pytest.raises(SyntaxError) as cpython:
        compile(code, "<cpython>", "exec")
    diag = info.value.diagnostics[0]
    assert (diag.code, diag.name, diag.message) == ("P009", "compile-error", cpython.value.msg)


def test_guest_code_inside_a_host_greenlet_never_switches_to_it() -> None:
    from greenlet import greenlet

    from safe_eval.interpreter.generators import yield_value

    def host_task() -> object:
        value = safe_eval("def g():\n    yield 1\n    yield 2\nlist(g())")
        with pytest.raises(RuntimeError):
            yield_value("escape")  # a suspension outside a guest greenlet is refused
        return value

    assert greenlet(host_task).switch() == [1, 2]
