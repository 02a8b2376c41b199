"""A finished run leaves nothing behind: guest generators suspended anywhere in their bodies,
what their clean-up may do once dropped, and the host-class views a run saw (issue 16).

Each test is written as the attacker (or the careless host) wrote it, through the public API:
a generator left suspended where the interpreter holds something leading back to it (the
iterator of a ``for``, the manager of a ``with``, the delegate of ``yield from``, an operand
evaluated before the ``yield``) must not keep its run's namespace resident once the host drops
everything, and its ``finally`` runs only under the run that made it.
"""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from typing import Any

import greenlet
import pytest

import safe_eval
from safe_eval import Evaluator, expose
from safe_eval.errors import PolicyViolation, SafeEvalError
from safe_eval.policy import parse_policy
from safe_eval.policy.enforce import ToolEvent

MARKER = "class Marker:\n    pass\nmarker = Marker()\n"  # something only the run's namespace holds
PAUSE = "class Pause:\n    def __await__(self):\n        yield 'paused'\n"
CM = ("class CM:\n    def __enter__(self):\n        return self\n"
      "    def __exit__(self, *exc):\n        return False\n")
ACM = ("class ACM:\n    async def __aenter__(self):\n        return self\n"
       "    async def __aexit__(self, *exc):\n        return False\n")
AITER = ("class Feed:\n    def __aiter__(self):\n        return self\n"
         "    async def __anext__(self):\n        await Pause()\n        return marker\n")

# each leaves ``it`` suspended where the interpreter holds something leading back to the run
SUSPENDED_IN = {
    "a-for-loop-over-the-namespace": "def g():\n    for x in [marker, 2]:\n        yield x\n",
    "a-for-loop-iterator-that-is-a-guest-object": (
        "class Box:\n    def __iter__(self):\n        return iter([1, 2])\nbox = Box()\n"
        "def g():\n    for x in box:\n        yield x\n"),
    "a-with-block": CM + "def g():\n    with CM():\n        yield 1\n",
    "a-with-block-bound-with-as": CM + "def g():\n    with CM() as c:\n        yield 1\n",
    "yield-from-a-guest-generator": "def inner():\n    yield 1\ndef g():\n    yield from inner()\n",
    "yield-from-a-list": "def g():\n    yield from [marker, 2]\n",
    "a-call-whose-later-argument-yields": "def f(a, b):\n    return a\ndef g():\n    f(g, (yield 1))\n",
    "a-binary-operation": "def g():\n    x = [marker] + (yield 1)\n",
    "a-subscript-key": "def g():\n    x = {1: marker}[(yield 1)]\n",
    "a-dict-display": "def g():\n    x = {'a': marker, 'b': (yield 1)}\n",
    "an-f-string-format-spec": "def g():\n    x = f'{marker:{(yield 1)}}'\n",
    "an-and-operand": "def g():\n    x = [marker] and (yield 1)\n",
    "an-augmented-assignment": "def g():\n    x = [marker]\n    x += (yield 1)\n",
    "an-if-branch": "def g():\n    if [marker]:\n        yield 1\n",
    "a-match-case": "def g():\n    match [marker]:\n        case [m]:\n            yield 1\n",
    "the-value-it-yielded": "def g():\n    yield marker\n",
    "a-generator-expression": "g = lambda: (x for x in [marker, 2])\n",
    "a-nested-generator-expression": "g = lambda: (x for y in [[marker, 2]] for x in y)\n",
}
# each leaves ``it`` a coroutine suspended in an ``await``
AWAITING_IN = {
    "an-await": PAUSE + "async def c():\n    await Pause()\n",
    "an-await-whose-call-holds-an-argument": PAUSE + "def f(a, b):\n    return a\nasync def c():\n    f(c, await Pause())\n",
    "an-async-for": PAUSE + AITER + "async def c():\n    async for x in Feed():\n        pass\n",
    "an-async-with": PAUSE + ACM + "async def c():\n    async with ACM():\n        await Pause()\n",
    "a-for-loop-of-a-coroutine": PAUSE + "async def c():\n    for x in [marker]:\n        await Pause()\n",
}


def _dropped_after_the_run(code: str, passes: int = 1) -> weakref.ref[Any]:
    env: dict[str, Any] = {}
    safe_eval.safe_exec(MARKER + code, env)
    alive = weakref.ref(env["marker"])
    env.clear()
    del env
    for _ in range(passes):
        gc.collect()
    return alive


# Every form also on 3.10, whose collector does not see the value stack of an executing frame:
# what a suspension passes (the yielded value, the delegate of ``yield from``, the awaited
# object) is handed over boxed, never as an argument (``generators.yield_value``).
@pytest.mark.parametrize("code", [pytest.param(v, id=k) for k, v in SUSPENDED_IN.items()])
def test_a_generator_suspended_where_the_interpreter_holds_its_run_dies_when_the_host_drops_env(code: str) -> None:
    assert _dropped_after_the_run(code + "it = g()\nnext(it)\n")() is None


@pytest.mark.parametrize("code", [pytest.param(v, id=k) for k, v in AWAITING_IN.items()])
def test_a_coroutine_suspended_where_the_interpreter_holds_its_run_dies_when_the_host_drops_env(code: str) -> None:
    assert _dropped_after_the_run(code + "it = c()\nit.send(None)\n")() is None


# An exception handled or propagating across the suspension: the switch parks it on the body's
# frame, off the thread state greenlet saves with the suspended greenlet
# (``interpreter/handled.py``, ``generators._switch_handling``), and the handler's host frames
# name it in no local (``compile_stmt._try_except_parked``/``_with_finally_parked``); a
# list/set/dict comprehension that suspends parks its own frame with the body's
# (``compiler._comprehension_parked``); a comparison chain keeps its next left operand on the
# tail (``suspension._chain``).
HELD_ACROSS_THE_SUSPENSION = {
    "a-yield-in-an-except-block": (
        "def g():\n    try:\n        raise ValueError(marker)\n    except ValueError:\n        yield 1\n"
        "it = g()\nnext(it)\n"),
    "a-yield-in-a-named-except-block": (
        "def g():\n    try:\n        raise ValueError(marker)\n    except ValueError as e:\n        yield 1\n"
        "it = g()\nnext(it)\n"),
    "a-yield-handling-a-host-raised-exception": (
        "def g():\n    try:\n        {}[marker]\n    except KeyError:\n        yield 1\nit = g()\nnext(it)\n"),
    "a-yield-in-a-finally-run-for-an-exception": (
        "def g():\n    try:\n        raise ValueError(marker)\n    finally:\n        yield 1\n"
        "it = g()\nnext(it)\n"),
    "a-yield-in-an-except-inside-a-with-inside-a-for": (
        CM + "def g():\n    for i in [1]:\n        with CM():\n            try:\n"
        "                raise ValueError(marker)\n            except ValueError:\n                yield i\n"
        "it = g()\nnext(it)\n"),
    "a-yield-in-an-except-block-inside-another": (
        "def g():\n    try:\n        raise ValueError(marker)\n    except ValueError:\n        try:\n"
        "            raise KeyError(1)\n        except KeyError:\n            yield 1\nit = g()\nnext(it)\n"),
    "a-yield-in-a-finally-inside-an-except-block": (
        "def g():\n    try:\n        raise ValueError(marker)\n    except ValueError:\n        try:\n"
        "            raise KeyError(1)\n        finally:\n            yield 1\nit = g()\nnext(it)\n"),
    "a-yield-in-an-except-block-inside-a-finally-run-for-an-exception": (
        "def g():\n    try:\n        raise ValueError(marker)\n    finally:\n        try:\n"
        "            raise KeyError(1)\n        except KeyError:\n            yield 1\nit = g()\nnext(it)\n"),
    "an-await-in-an-except-block-of-a-coroutine": (
        PAUSE + "async def c():\n    try:\n        raise ValueError(marker)\n    except ValueError:\n"
        "        await Pause()\nit = c()\nit.send(None)\n"),
    "a-yield-in-an-except-block-of-an-async-generator": (
        "async def ag():\n    try:\n        raise ValueError(marker)\n    except ValueError:\n        yield 1\n"
        "it = ag()\nstep = it.__anext__().__await__()\ntry:\n    next(step)\nexcept StopIteration:\n    pass\n"),
    "an-await-in-a-finally-of-an-async-generator": (
        PAUSE + "async def ag():\n    try:\n        raise ValueError(marker)\n    finally:\n        await Pause()\n"
        "        yield 1\nit = ag()\nstep = it.__anext__().__await__()\nnext(step)\n"),
    "an-async-with-exit-awaiting-for-an-exception": (
        PAUSE + "class ACM:\n    async def __aenter__(self):\n        return self\n"
        "    async def __aexit__(self, *exc):\n        await Pause()\n"
        "async def c():\n    async with ACM():\n        raise ValueError(marker)\nit = c()\nit.send(None)\n"),
    "an-await-in-a-list-comprehension-of-a-coroutine": (
        PAUSE + "async def c():\n    return [await Pause() for x in [marker]]\nit = c()\nit.send(None)\n"),
    "an-await-in-a-set-comprehension-of-a-coroutine": (
        PAUSE + "async def c():\n    return {await Pause() for x in [marker]}\nit = c()\nit.send(None)\n"),
    "an-await-in-a-dict-comprehension-value": (
        PAUSE + "async def c():\n    return {x: await Pause() for x in [marker]}\nit = c()\nit.send(None)\n"),
    "an-await-in-a-comprehension-holding-its-result-so-far": (
        PAUSE + "async def c():\n    return [(x, await Pause()) for x in [1, 2] if [marker]]\n"
        "it = c()\nit.send(None)\nit.send(None)\n"),
    "an-async-comprehension-of-a-coroutine": (
        PAUSE + AITER + "async def c():\n    return [x async for x in Feed()]\nit = c()\nit.send(None)\n"),
    "a-call-whose-later-argument-is-an-async-comprehension": (
        PAUSE + AITER + "def f(a, b):\n    return a\nasync def c():\n    f([marker], [x async for x in Feed()])\n"
        "it = c()\nit.send(None)\n"),
    "an-await-in-a-later-comparison-operand": (
        PAUSE + "async def c():\n    return [] < [marker] < await Pause()\nit = c()\nit.send(None)\n"),
}
if sys.version_info >= (3, 11):  # 3.11+ syntax: an await in a nested comprehension, except*
    HELD_ACROSS_THE_SUSPENSION["an-await-in-a-nested-comprehension"] = (
        PAUSE + "async def c():\n    return [[await Pause() for y in [x]] for x in [marker]]\n"
        "it = c()\nit.send(None)\n")
    HELD_ACROSS_THE_SUSPENSION["a-yield-in-an-except-star-clause"] = (
        "def g():\n    try:\n        raise ExceptionGroup('e', [ValueError(marker), KeyError(1)])\n"
        "    except* ValueError:\n        yield 1\n    except* KeyError:\n        pass\nit = g()\nnext(it)\n")


# On 3.10 a generator discarded while handling an exception is freed one collection later (so
# it was before this was closed: 3.10 never kept it for good; its unwinding keeps the cycle
# through that collection); 3.11+ frees it in the first.
_PASSES = 2 if sys.version_info < (3, 11) else 1


@pytest.mark.parametrize("code", [pytest.param(v, id=k) for k, v in HELD_ACROSS_THE_SUSPENSION.items()])
def test_a_body_suspended_while_the_interpreter_holds_an_exception_or_operands_dies_when_the_host_drops_env(
        code: str) -> None:
    assert _dropped_after_the_run(code, _PASSES)() is None


# -- the same generators still behave as CPython's while they are alive -------------------
RESUMED = {
    "a-call-with-spread-and-keywords": (
        "def f(*a, **k):\n    return (a, k)\n"
        "def g():\n    yield f(1, *[2, 3], (yield 'a'), k=(yield 'b'), **{'z': (yield 'c')})\n"
        "it = g()\nout = [next(it), it.send(10), it.send(20), it.send(30)]",
        ['a', 'b', 'c', ((1, 2, 3, 10), {'k': 20, 'z': 30})]),
    "operands-displays-and-f-strings": (
        "def g():\n    x = [1, 2, 3]\n    yield (5 - (yield 1), x[(yield 2)], x[1:(yield 3)],\n"
        "           {'k': (yield 4), (yield 5): 7}, f'{(yield 6)!r:>{(yield 7)}}', (*x, (yield 8)))\n"
        "it = g()\nout = [next(it)] + [it.send(v) for v in (2, 1, 2, 'v', 'kk', 'q', 6, 9)]",
        [1, 2, 3, 4, 5, 6, 7, 8, (3, 2, [2], {'k': 'v', 'kk': 7}, "   'q'", (1, 2, 3, 9))]),
    "short-circuits-and-augmented-assignment": (
        "class O:\n    v = 1\n"
        "def g():\n    a = 0 or (yield 1) or 5\n    b = [] and (yield 99)\n    o = O()\n"
        "    o.v += (yield 2)\n    l = [1, 2]\n    l[(yield 3)] *= (yield 4)\n    yield (a, b, o.v, l)\n"
        "it = g()\nout = [next(it)] + [it.send(v) for v in (0, 10, 1, 5)]",
        [1, 2, 3, 4, (5, [], 11, [1, 10])]),
    "for-else-break-and-with": (
        "log = []\nclass CM:\n    def __enter__(self):\n        log.append('in')\n        return 7\n"
        "    def __exit__(self, t, v, tb):\n        log.append(t.__name__ if t else 'ok')\n        return True\n"
        "def g():\n    for i in range(4):\n        if (yield i) == 'stop':\n            break\n    else:\n"
        "        yield 'else'\n    with CM() as c:\n        yield c\n        raise ValueError\n    yield log\n"
        "it = g()\nout = [next(it), it.send(None), it.send('stop'), next(it)]",
        [0, 1, 7, ['in', 'ValueError']]),
    "yield-from-send-throw-and-return": (
        "def inner():\n    got = yield 1\n    try:\n        yield got\n    except KeyError:\n"
        "        yield 'caught'\n    return 'ret'\n"
        "def g():\n    r = yield from inner()\n    yield r\n"
        "it = g()\nout = [next(it), it.send('s'), it.throw(KeyError('k')), next(it)]",
        [1, 's', 'caught', 'ret']),
    "async-for-with-and-generator-expressions": (
        "import asyncio\n" + "class Pause:\n    def __await__(self):\n        yield\n"
        "class Feed:\n    def __init__(self):\n        self.i = 0\n    def __aiter__(self):\n        return self\n"
        "    async def __anext__(self):\n        await asyncio.sleep(0)\n        self.i += 1\n"
        "        if self.i > 3:\n            raise StopAsyncIteration\n        return self.i\n"
        "class ACM:\n    async def __aenter__(self):\n        return 'm'\n    async def __aexit__(self, *a):\n"
        "        return False\n"
        "async def main():\n    r = []\n    async with ACM() as m:\n        async for v in Feed():\n"
        "            r.append(m + str(v))\n    r.append([x async for x in (v * 2 async for v in Feed())])\n"
        "    r.append(list(x * y for x in [1, 2] if x for y in range(x)))\n    return r\n"
        "out = asyncio.run(main())",
        ['m1', 'm2', 'm3', [2, 4, 6], [0, 0, 2]]),
    "handlers-and-finally-across-suspensions": (
        "def g():\n    try:\n        raise ValueError('v')\n    except ValueError:\n        yield 1\n"
        "        try:\n            int('x')\n        except ValueError as e2:\n            yield repr(e2.__context__)\n"
        "        try:\n            yield 2\n        except KeyError as k:\n            yield repr(k.__context__)\n"
        "        raise\n"
        "def h():\n    try:\n        raise KeyError('f')\n    finally:\n        yield 3\n"
        "def run(gen, throw=None):\n    out = []\n    try:\n        for v in gen:\n            out.append(v)\n"
        "            if v == 2:\n                out.append(gen.throw(KeyError('t')))\n"
        "    except Exception as e:\n        out.append((repr(e), repr(e.__context__)))\n    return out\n"
        "out = run(g()) + run(h())",
        [1, "ValueError('v')", 2, "ValueError('v')", ("ValueError('v')", 'None'), 3, ("KeyError('f')", 'None')]),
    "a-handler-closed-while-suspended": (
        "log = []\ndef g():\n    try:\n        raise ValueError('v')\n    except ValueError:\n        try:\n"
        "            yield 1\n        except GeneratorExit as x:\n            log.append(repr(x.__context__))\n"
        "            raise\nit = g()\nnext(it)\nit.close()\nout = log",
        ["ValueError('v')"]),
    "handlers-inside-handlers-across-suspensions": (
        "log = []\ndef g():\n    try:\n        raise ValueError('a')\n    except ValueError:\n        try:\n"
        "            raise KeyError('b')\n        except KeyError as b:\n            x = yield 1\n"
        "            log.append((x, repr(b.__context__)))\n            try:\n                yield 2\n"
        "            except TypeError as t:\n                log.append(repr(t.__context__))\n"
        "        try:\n            try:\n                raise OSError('c')\n            except IndexError:\n"
        "                yield 'never'\n        except OSError as c:\n            yield repr(c.__context__)\n"
        "        try:\n            raise KeyError('d')\n        finally:\n            yield 3\n"
        "def run():\n    it = g()\n    out = [next(it), it.send('s'), it.throw(TypeError('t')), next(it)]\n"
        "    try:\n        next(it)\n    except KeyError as e:\n"
        "        out.append((repr(e), repr(e.__context__)))\n    return out + log\nout = run()",
        [1, 2, "ValueError('a')", 3, ("KeyError('d')", "ValueError('a')"),
         ('s', "ValueError('a')"), "KeyError('b')"]),
    "an-exception-leaving-a-handler-inside-a-handler-keeps-its-context": (
        "def g():\n    try:\n        raise ValueError('a')\n    except ValueError:\n        try:\n"
        "            try:\n                raise KeyError('e')\n            except KeyError:\n"
        "                yield 1\n                raise TypeError('f')\n        except TypeError as t:\n"
        "            yield repr(t.__context__)\nout = list(g())",
        [1, "KeyError('e')"]),
    "except-star-clauses-across-suspensions": (
        "def g():\n    try:\n        raise OSError('outer')\n    except OSError:\n        try:\n"
        "            raise ExceptionGroup('eg', [ValueError(1), KeyError(2), TypeError(3)])\n"
        "        except* ValueError as eg:\n            x = yield repr(eg.exceptions)\n"
        "            try:\n                yield x\n            except IndexError as i:\n"
        "                yield repr(i.__context__)\n        except* KeyError:\n            yield 'k'\n"
        "            raise\n"
        "def run():\n    it = g()\n    out = [next(it), it.send('s'), it.throw(IndexError('i')), next(it)]\n"
        "    try:\n        next(it)\n    except ExceptionGroup as e:\n"
        "        out.append(repr(e.exceptions))\n    return out\nout = run()",
        ["(ValueError(1),)", 's', "ExceptionGroup('eg', [ValueError(1)])", 'k', "(KeyError(2), TypeError(3))"]),
    "awaits-in-comprehensions-and-comparison-chains": (
        "import asyncio\nasync def v(x):\n    await asyncio.sleep(0)\n    return x\n"
        "async def main():\n    return ([await v(x) for x in range(3)], {await v(x % 2) for x in range(4)},\n"
        "            {x: await v(x * 2) for x in range(2) if await v(x >= 0)},\n"
        "            [0 < x < await v(2) for x in range(4)], 0 < await v(1) < await v(2) < 3)\n"
        "out = asyncio.run(main())",
        ([0, 1, 2], {0, 1}, {0: 0, 1: 2}, [False, True, False, False], True)),
}


if sys.version_info < (3, 11):  # except* is 3.11+ syntax
    del RESUMED["except-star-clauses-across-suspensions"]


@pytest.mark.parametrize(("code", "expected"), [pytest.param(*v, id=k) for k, v in RESUMED.items()])
def test_a_generator_keeping_its_state_on_its_frame_resumes_as_cpythons_would(code: str, expected: Any) -> None:
    env: dict[str, Any] = {}
    safe_eval.safe_exec(code, env)
    assert env["out"] == expected


# -- what a dropped generator's clean-up may do ---------------------------------------------
MAILER = parse_policy("policy mailer\nallow send_email(*)\nallow collect(*)\nallow Order.total(*)\n")
# a generator suspended in a for loop over a list that leads back to it: a cycle only the
# collector, whenever it runs (the mail goes through an alias: only the gate at run time sees it)
NOTE_IN_A_CYCLE = ("mail = [send_email]\ndef note():\n    try:\n        for x in box:\n            yield 1\n"
                   "    finally:\n        mail[0]('boss@example.com')\n"
                   "box = [0]\ng = note()\nnext(g)\nbox.append(g)\ndel g\n")


SLOW_HOST_WORK = {"time": 60}  # a full collection on a loaded machine is not the run's fault


def collect() -> int:  # host work that runs the collector in the middle of a run
    return gc.collect()


def _mailbox() -> tuple[list[str], Any]:
    sent: list[str] = []

    def send_email(to: str) -> None:
        sent.append(to)
    return sent, send_email


def test_a_generator_collected_inside_its_run_cleans_up_under_that_runs_policy_and_audit() -> None:
    sent, send_email = _mailbox()
    events: list[ToolEvent] = []
    Evaluator(MAILER, audit=events.append).exec(
        NOTE_IN_A_CYCLE + "del box\ncollect()\n", {"send_email": send_email, "collect": collect},
        limits=SLOW_HOST_WORK)
    assert sent == ["boss@example.com"]
    assert [e.name for e in events] == ["collect", "send_email"]


def test_a_generator_collected_inside_its_run_cleans_up_only_if_that_runs_policy_allows_it() -> None:
    sent, send_email = _mailbox()
    events: list[ToolEvent] = []
    strict = parse_policy("policy strict\nallow collect(*)\ndeny send_email(*)\n")
    Evaluator(strict, audit=events.append).exec(NOTE_IN_A_CYCLE + "del box\ncollect()\n",
                                                {"send_email": send_email, "collect": collect},
                                                limits=SLOW_HOST_WORK)
    assert sent == []
    assert [(e.name, e.decision.allowed) for e in events] == [("collect", True), ("send_email", False)]


@pytest.mark.parametrize("collected_by", [
    pytest.param("host", id="the-host-after-the-run"),
    pytest.param("next-run", id="host-work-during-a-later-run-allowed-to-mail"),
])
def test_a_generator_suspended_in_a_loop_sends_nothing_when_collected_outside_its_run(collected_by: str) -> None:
    sent, send_email = _mailbox()
    env: dict[str, Any] = {"send_email": send_email}
    safe_eval.safe_exec(NOTE_IN_A_CYCLE, env, policy=MAILER)
    env.clear()
    if collected_by == "host":
        gc.collect()
    else:
        safe_eval.safe_exec("collect()\nsend_email('mine@example.com')",
                            {"collect": collect, "send_email": send_email}, policy=MAILER, limits=SLOW_HOST_WORK)
    assert sent == ([] if collected_by == "host" else ["mine@example.com"])


def test_a_generator_dropped_by_a_host_call_on_another_thread_never_cleans_up_later_on_its_own() -> None:
    sent, send_email = _mailbox()
    start, drop = safe_eval.safe_eval(
        "box = []\ndef note():\n    try:\n        yield 1\n    finally:\n        send_email('boss@example.com')\n"
        "def start():\n    g = note()\n    next(g)\n    box.append(g)\n"
        "def drop():\n    box.clear()\n(start, drop)", {"send_email": send_email}, policy=MAILER)
    start()  # a host call into the run's results starts the generator on this thread
    t = threading.Thread(target=drop)  # another host call, on another thread, drops it
    t.start()
    t.join()
    greenlet.getcurrent()  # greenlet kills what another thread dropped when this one runs it
    greenlet.greenlet(lambda: None).switch()
    gc.collect()
    assert sent == []


def test_a_generator_left_suspended_at_interpreter_shutdown_runs_no_guest_code(tmp_path: Any) -> None:
    import subprocess

    script = tmp_path / "host.py"
    script.write_text(
        "import sys\nimport safe_eval\nfrom safe_eval.policy import parse_policy\n"
        "def probe():\n    sys.stdout.write('guest code ran at shutdown\\n')\n"
        "env = {'probe': probe}\n"
        "safe_eval.safe_exec('box = [0]\\ndef note():\\n    try:\\n        for x in box:\\n"
        "            yield 1\\n    finally:\\n        probe()\\n"
        "g = note()\\nnext(g)\\nbox.append(g)\\n', env, policy=parse_policy('policy p\\nallow probe(*)\\n'))\n"
        "print('host done')\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (0, "host done\n")


# -- the views of host classes a run saw ---------------------------------------------------
def _request_model() -> type:
    class Order:  # a host class made per request, as frameworks do
        customer = ["request data kept on the class"]

        def total(self) -> int:
            return 3
    return Order


def test_a_host_class_a_run_looked_at_dies_with_the_hosts_last_reference() -> None:
    order = _request_model()
    cls = weakref.ref(order)
    env = {"o": expose(order(), methods=["total"]), "undeclared": order()}
    assert safe_eval.safe_eval("type(o).__name__, type(o) is type(o), o.total(), undeclared is not None",
                               env) == ("Order", True, 3, True)
    del env
    del order
    gc.collect()
    assert cls() is None


def test_a_later_run_never_sees_a_view_an_earlier_run_held() -> None:
    order = _request_model()
    o = order()
    first = safe_eval.safe_eval("type(o)", {"o": o})
    kept = weakref.ref(first)
    del first
    gc.collect()
    assert kept() is None  # nothing but the run's results kept it
    assert safe_eval.safe_eval("type(o) is type(o) and type(o).__name__ == 'Order'", {"o": o}) is True
    assert safe_eval.safe_exec("t = type(o)\nu = type(o)\nsame = t is u", {"o": o})["same"] is True


# -- an exposed method that parks its request on I/O ---------------------------------------
POLICY_A = parse_policy("policy a\nallow fetch(*)\nallow Client.get(*)\ndeny delete_file(*)\n")
POLICY_B = parse_policy("policy b\nextends default\nallow fetch(*)\nallow Client.get(*)\nallow delete_file(*)\n")


class Client:
    """A host object exposed to the guest whose method waits on I/O as gevent does: it parks
    the request's greenlet and switches to the hub, which runs another request meanwhile."""

    def __init__(self, hub: Any, parked: list[Any]) -> None:
        self._hub, self._parked = hub, parked

    def get(self, url: str) -> str:
        self._parked.append(greenlet.getcurrent())
        self._hub.switch()
        return "page"


@pytest.mark.parametrize("as_tool", [
    pytest.param(False, id="exposed-object-method"),
    pytest.param(True, id="bound-method-as-a-tool"),
])
def test_an_exposed_method_that_switches_requests_mid_call_returns_to_its_own_runs_policy(as_tool: bool) -> None:
    hub, parked, outcome = greenlet.getcurrent(), [], {}
    deleted: list[str] = []

    def delete_file(path: str) -> None:
        deleted.append(path)

    def serve(name: str, code: str, policy: Any) -> None:
        def run() -> None:
            client = Client(hub, parked)
            env = {"client": expose(client, methods=["get"]), "fetch": client.get, "delete_file": delete_file}
            try:
                outcome[name] = safe_eval.safe_eval(code, env, policy=policy)
            except SafeEvalError as e:
                outcome[name] = e
        greenlet.greenlet(run).switch()

    call = "fetch('x')" if as_tool else "client.get('x')"
    serve("a", f"{call}\ntools = [delete_file]\ntools[0]('/srv/important')\n'a done'", POLICY_A)
    serve("b", f"{call}\n'b done'", POLICY_B)  # both requests are parked mid-call
    parked.pop(0).switch()  # A resumes inside the method, then tries to delete
    parked.pop(0).switch()
    assert deleted == []
    assert isinstance(outcome["a"], PolicyViolation)
    assert outcome["b"] == "b done"


def test_the_attribute_decisions_cached_per_host_type_stay_bounded() -> None:
    # a host making classes per request (namedtuples) hands their instances to runs: each
    # (type, name) decision is cached, and the cache is emptied at its bound, not kept growing
    import collections

    from safe_eval.membrane import attributes

    rows = [collections.namedtuple(f"Row{i}", "a")(i) for i in range(4200)]
    code = "sum(r.count(r[0]) + r.index(r[0]) for r in rows)"
    assert safe_eval.safe_eval(code, {"rows": rows}, limits={"ops": 10**7}) == 4200
    assert len(attributes._PUBLIC) <= attributes._PUBLIC_MAX
