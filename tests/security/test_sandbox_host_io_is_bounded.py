"""Invariant: everything the host does with a worker is bounded by the run, whatever the worker does.

- Time: every host <-> worker transfer (the request, each tool answer) and every tool call the
  guest makes count against the run's time limit; past it the worker is killed and ``TimeLimit``
  raised. A worker that stops reading cannot hang the host in a blocking write.
- Size: a line from the worker is bounded before it is decoded, and so is what decoding it
  would build (``protocol.MAX_LINE``, ``protocol.MAX_ITEMS``): ``SandboxCrashed``, worker killed.

The worker here is a script that plays a compromised worker (plain CPython mode, or a bug): it
can write any bytes, or stop reading.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import safe_eval
from safe_eval.errors import SandboxCrashed, SandboxUnavailable, TimeLimit
from safe_eval.sandbox import Backend
from safe_eval.sandbox.bwrap import BwrapBackend
from safe_eval.sandbox.process import tagged_pids

READY = json.dumps({"jsonrpc": "2.0", "method": "ready", "params": {"layers": {}}})
SCRIPT = """
import sys, time
out = sys.stdout.buffer
out.write({ready!r}.encode() + b"\\n"); out.flush()
{body}
"""


class ScriptedBackend(Backend):
    """A backend whose 'worker' runs ``body`` after saying ready."""

    name = "scripted"
    modes = ("interpreter",)

    def __init__(self, body: str) -> None:
        self.body = body
        super().__init__(pool_size=0)

    @classmethod
    def unavailable(cls):
        return None

    def worker_argv(self, workspace, config):
        script = SCRIPT.format(ready=READY, body=self.body)
        return [sys.executable, "-I", "-S", "-c", script, json.dumps(config)], workspace.path


def within(seconds: float, call: Callable[[], Any]) -> BaseException | Any:
    """What ``call`` returned or raised, failing the test if it has not ended in ``seconds``
    (the host hanging is the bug: the test must not hang with it)."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(call())
        except BaseException as exc:  # the outcome under test
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert box, f"the host was still blocked after {seconds}s"
    return box[0]


# -- time ------------------------------------------------------------------------------------

def test_a_worker_that_stops_reading_cannot_hang_the_host_sending_a_request():
    # the request (1 MiB of env) is more than a pipe holds: a blocking write would never return
    with ScriptedBackend("time.sleep(60)") as backend, backend.session() as s:
        outcome = within(15, lambda: s.run("1", {"big": "x" * (1 << 20)}, limits={"time": 0.5}))
        assert isinstance(outcome, TimeLimit)
        assert tagged_pids(s.workspace.path) == []


def test_a_worker_that_stops_reading_cannot_hang_the_host_answering_a_tool_call():
    call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tool", "params": {
        "name": "fetch", "args": {"$": "list", "v": []}, "kwargs": {"$": "dict", "v": []}}})
    body = f"sys.stdin.readline()\nout.write({call!r}.encode() + b'\\n'); out.flush()\ntime.sleep(60)"
    with ScriptedBackend(body) as backend, backend.session() as s:
        outcome = within(15, lambda: s.run("fetch()", {"fetch": lambda: "y" * (1 << 20)}, limits={"time": 0.5}))
        assert isinstance(outcome, TimeLimit)
        assert tagged_pids(s.workspace.path) == []


@pytest.mark.parametrize("sandbox", ["subprocess", "bwrap+cpython"])
def test_time_spent_in_tools_counts_against_the_runs_time_limit(sandbox):
    # plain CPython has no interpreter limit of its own inside: the host's deadline is the limit
    if sandbox.startswith("bwrap") and BwrapBackend.unavailable() is not None:
        pytest.skip(f"bwrap: {BwrapBackend.unavailable()}")

    def slow():
        time.sleep(0.2)
        return 1

    started = time.monotonic()
    with pytest.raises(TimeLimit):
        safe_eval.safe_eval("total = 0\nfor _ in range(20):\n    total += slow()\ntotal", {"slow": slow},
                            sandbox=sandbox, limits={"time": 0.6})
    # ended near the limit (+ grace), not after the 4 s the tools would take
    assert time.monotonic() - started < 2.5


class SilentStartBackend(Backend):
    """A backend whose 'worker' says ready after ``delay`` seconds (never: None), then answers
    a run ``answer_after`` seconds after it reads it."""

    name = "scripted"
    modes = ("interpreter",)

    def __init__(self, delay: float | None, answer_after: float = 0.0, **options: Any) -> None:
        self.delay, self.answer_after = delay, answer_after
        super().__init__(pool_size=0, **options)

    @classmethod
    def unavailable(cls):
        return None

    def worker_argv(self, workspace, config):
        answer = '{"jsonrpc":"2.0","id":1,"result":{"value":7,"bindings":{}}}'
        script = ("import sys, time\nout = sys.stdout.buffer\n" + (
            "sys.stdin.read()\n" if self.delay is None else  # blocks, never says ready
            f"time.sleep({self.delay})\nout.write({READY!r}.encode() + b'\\n'); out.flush()\n"
            f"sys.stdin.readline()\ntime.sleep({self.answer_after})\n"
            f"out.write({answer!r}.encode() + b'\\n'); out.flush()\nsys.stdin.read()\n"))
        return [sys.executable, "-I", "-S", "-c", script, json.dumps(config)], workspace.path


def test_a_worker_that_never_starts_holds_the_run_no_longer_than_its_time_limit_and_start_up_allowance():
    # the wait for a worker's ready was a fixed 30 s whatever the run's time limit
    from safe_eval.sandbox.session import GRACE

    with SilentStartBackend(None, startup=0.2) as backend, backend.session() as s:
        started = time.monotonic()
        outcome = within(15, lambda: s.run("1", limits={"time": 0.1}))
        took = time.monotonic() - started
        assert isinstance(outcome, SandboxCrashed), outcome
        assert "did not start" in str(outcome)
        assert 0.2 + 0.1 + GRACE - 0.05 < took < 0.2 + 0.1 + GRACE + 1.0
        assert tagged_pids(s.workspace.path) == []


def test_a_start_within_the_allowance_leaves_the_run_its_whole_time():
    # started in 0.4 s (within the 1 s allowance), the run still has its 0.3 s (+ grace) to answer
    with SilentStartBackend(0.4, answer_after=0.6, startup=1.0) as backend, backend.session() as s:
        outcome = within(15, lambda: s.run("1", limits={"time": 0.3}))
        assert not isinstance(outcome, BaseException), outcome
        assert outcome.value == 7


def test_a_start_slower_than_the_allowance_takes_the_rest_from_the_runs_time():
    # started in 0.6 s with a 0.2 s allowance: 0.2 s of the run's 0.3 + 0.5 s are left, the
    # answer after 0.6 s comes too late
    with SilentStartBackend(0.6, answer_after=0.6, startup=0.2) as backend, backend.session() as s:
        started = time.monotonic()
        outcome = within(15, lambda: s.run("1", limits={"time": 0.3}))
        assert isinstance(outcome, TimeLimit), outcome
        assert time.monotonic() - started < 0.2 + 0.3 + 0.5 + 1.0
        assert tagged_pids(s.workspace.path) == []


def test_a_run_the_host_abandons_ends_its_worker_so_its_answer_reaches_no_later_run():
    # an on_print callback that raised mid-run left the worker running that run: the
    # session's next run read its output and answer as its own (value 'first')
    from safe_eval.sandbox import make_backend

    def boom(text):
        raise KeyError("the host's callback failed")

    code = "print('a')\nfor i in range(3):\n    print(i)\n'first'"
    with make_backend("subprocess", pool_size=0) as backend, backend.session() as s:
        with pytest.raises(KeyError):
            s.run(code, on_print=boom)
        assert tagged_pids(s.workspace.path) == []
        got: list[str] = []
        result = s.run("'second'", on_print=got.append)
        assert (result.value, result.stdout, got) == ("second", "", [])


# -- size ------------------------------------------------------------------------------------

def _answer(payload: str) -> str:
    # the payload is built in the worker (an expression): it is too large for a command line
    return f"sys.stdin.readline()\nout.write({payload}); out.flush()\ntime.sleep(60)"


HEAD = "b'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
SIZE_BOMBS = [
    # ~15 MiB, under the line bound: 5 million empty lists would be ~400 MiB in the host
    pytest.param(HEAD + "[' + b'[],' * (5 << 20) + b'[]]}\\n'", id="many-containers"),
    pytest.param(HEAD + "[' + b'{},' * (5 << 20) + b'{}]}\\n'", id="many-objects"),
    # 60 MiB in one line (the red team's: ~1.5 GiB decoded): refused by its length
    pytest.param(HEAD + "[' + b'[],' * (20 << 20) + b'[]]}\\n'", id="a-60-MiB-line"),
]


@pytest.mark.parametrize("payload", SIZE_BOMBS)
def test_a_line_that_would_decode_to_too_much_is_refused_before_it_is_decoded(payload):
    with ScriptedBackend(_answer(payload)) as backend, backend.session() as s:
        tracemalloc.start()
        try:
            outcome = within(60, lambda: s.run("1", limits={"time": 30}))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert isinstance(outcome, SandboxCrashed)
        # the bytes read (up to the line bound) and their copies; nothing decoded from them
        assert peak < 200 << 20
        assert tagged_pids(s.workspace.path) == []


# ints whose hashes are all 0 (multiples of 2**61 - 1): the hashes of ints, floats, Decimals and
# tuples are not randomised, so one line of 60k such keys (2 MiB, within every size bound) made
# the host spend over a minute building the set or dict, past the run's deadline (20k: 7 s)
COLLIDING = ("json.dumps([{'$': 'int', 'v': hex(i * (2**61 - 1))} for i in range(1, 60_000)])")
HASH_BOMBS = [
    pytest.param("b'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"value\":{\"$\":\"set\",\"v\":' + "
                 + COLLIDING + ".encode() + b'},\"bindings\":{}}}\\n'", id="set"),
    pytest.param("b'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"value\":null,\"bindings\":{\"d\":"
                 "{\"$\":\"dict\",\"v\":' + json.dumps([[{'$': 'int', 'v': hex(i * (2**61 - 1))}, 0] "
                 "for i in range(1, 60_000)]).encode() + b'}}}}\\n'", id="dict"),
]


@pytest.mark.parametrize("payload", HASH_BOMBS)
def test_a_value_whose_keys_share_one_hash_is_refused_before_it_is_built(payload):
    from safe_eval.errors import SandboxValueError

    with ScriptedBackend("import json\n" + _answer(payload)) as backend, backend.session() as s:
        started = time.monotonic()
        outcome = within(20, lambda: s.run("1", limits={"time": 10}))
        assert isinstance(outcome, SandboxValueError), outcome
        assert time.monotonic() - started < 10
        assert tagged_pids(s.workspace.path) == []


def test_a_large_set_and_dict_of_ints_still_cross():
    value = safe_eval.safe_eval("[set(range(60_000)), {i * 7: i for i in range(60_000)}]", sandbox="subprocess")
    assert value[0] == set(range(60_000)) and len(value[1]) == 60_000


def test_a_large_value_within_the_bounds_still_crosses():
    value = safe_eval.safe_eval("['x' * 100] * 20_000 + list(range(50_000))", sandbox="subprocess")
    assert len(value) == 70_000 and value[0] == "x" * 100 and value[-1] == 49_999


def test_a_value_too_large_for_the_wire_is_refused_in_the_worker_as_a_value_error():
    from safe_eval.errors import SandboxValueError

    with pytest.raises(SandboxValueError):
        safe_eval.safe_eval("'x' * (20 << 20)", sandbox="subprocess", limits={"memory": 1 << 28})


# -- the zygote's control socket ---------------------------------------------------------------
# The zygote forks every bwrap worker; it runs no guest code, but it shares a pid namespace and
# a file system view with the workers it forks. Whatever it does with its control socket (goes
# silent, answers with garbage, names a worker that is gone), the host gets a typed error in a
# bounded time and the zygote is killed. The "zygote" here is a script playing that part.

FAKE_ZYGOTE = """
import json, os, socket, sys, time
control = socket.socket(fileno=int(json.loads(sys.argv[1])["control"]))
control.send(b'{"ready": 1}')
def request():
    data, fds, _, _ = socket.recv_fds(control, 1 << 16, 3)
    return json.loads(data), fds
BODY
"""
# answers a spawn with a real child that ends at once (its output closes), then never answers
_SPAWN_ONE = """
msg, fds = request()
pid = os.fork()
if pid == 0:
    os._exit(3)
for fd in fds:
    os.close(fd)
pidfd = os.pidfd_open(pid)
"""
ZYGOTE_BODIES = {
    "silent": "request()\ntime.sleep(120)",
    "garbage": "request()\ncontrol.send(b'not json')\ntime.sleep(120)",
    "reaped-worker": _SPAWN_ONE + "os.waitpid(pid, 0)\n"
                     "socket.send_fds(control, [json.dumps({'pid': pid}).encode()], [pidfd])\ntime.sleep(120)",
    "silent-on-wait": _SPAWN_ONE + "socket.send_fds(control, [json.dumps({'pid': pid}).encode()], [pidfd])\n"
                      "request()\ntime.sleep(120)",
}


class FakeZygoteBackend(BwrapBackend):
    """The bwrap backend's zygote path, with a scripted zygote (no bubblewrap needed)."""

    def __init__(self, body: str) -> None:
        from safe_eval.sandbox.forkserver import Zygote

        script = FAKE_ZYGOTE.replace("BODY", body)
        self.fake = Zygote(lambda root, control: [sys.executable, "-I", "-S", "-c", script,
                                                  json.dumps({"control": control})])
        super().__init__(pool_size=0)

    @classmethod
    def unavailable(cls):
        return None

    def _zygote(self):
        return self.fake

    def close(self) -> None:
        # the script dies first: a host thread still blocked on it (the bug) then sees the
        # socket close, so the test fails instead of hanging with it
        proc = self.fake._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        super().close()
        self.fake.close()


@pytest.fixture
def short_control_bounds(monkeypatch):
    from safe_eval.sandbox import forkserver

    monkeypatch.setattr(forkserver, "SPAWN_SECONDS", 1.0)
    monkeypatch.setattr(forkserver, "REAP_SECONDS", 0.5)


@pytest.mark.parametrize(("body", "error"), [
    pytest.param("silent", SandboxUnavailable, id="silent-on-spawn"),
    pytest.param("garbage", SandboxUnavailable, id="garbage"),
    pytest.param("reaped-worker", SandboxUnavailable, id="names-a-reaped-worker"),
    pytest.param("silent-on-wait", SandboxCrashed, id="silent-on-wait"),
])
def test_a_zygote_gone_wrong_cannot_hang_the_host(short_control_bounds, body, error):
    with FakeZygoteBackend(ZYGOTE_BODIES[body]) as backend:
        outcome = within(10, lambda: backend.run("1", limits={"time": 1}))
        assert isinstance(outcome, error), outcome
        # the zygote was killed, not left holding the lock for the next spawn
        zygote = backend.fake
        assert zygote._proc is None or zygote._proc.poll() is not None


# -- what the host decodes from a worker: text, numbers, output ---------------------------------
# The host's JSON reader is the one place a worker's bytes become host values: it accepts only
# what the protocol writes (UTF-8, lone surrogates passed through as Python str holds them, no
# NaN/Infinity literals) and anything else is SandboxCrashed, the worker gone.

def _send(line: bytes) -> str:
    return f"sys.stdin.readline()\nout.write({line!r}); out.flush()\ntime.sleep(60)"


def _print(text_json: str, more: bool = False) -> bytes:
    tail = ',"more":true' if more else ""
    return ('{"jsonrpc":"2.0","method":"print","params":{"text":' + text_json + tail + "}}\n").encode()


ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"value":null,"bindings":{}}}\n'


@pytest.mark.parametrize("line", [
    pytest.param(_print('"a\\ud800b"'), id="escaped-lone-surrogate"),
    pytest.param(_print('"a\\ud800b"').replace(b"\\ud800", b"\xed\xa0\x80"), id="raw-lone-surrogate"),
])
def test_guest_output_with_a_lone_surrogate_reaches_on_print_as_the_str_it_is(line):
    # a guest's print('a\ud800b') reaches the host's on_print as that str, as in process
    with ScriptedBackend(_send(line + ANSWER)) as backend, backend.session() as s:
        got: list[str] = []
        result = within(15, lambda: s.run("1", on_print=got.append, limits={"time": 5}))
        assert not isinstance(result, BaseException), result
        assert got == ["a\ud800b"] and result.stdout == "a\ud800b"


@pytest.mark.parametrize("line", [
    pytest.param(_print('"\\u00e9"').replace(b'"\\u00e9"', b'"\xff\xfe"'), id="invalid-utf-8"),
    pytest.param(_print("NaN"), id="NaN-as-output"),
    pytest.param(b'{"jsonrpc":"2.0","id":1,"result":{"value":NaN,"bindings":{}}}\n', id="NaN-literal"),
    pytest.param(b'{"jsonrpc":"2.0","id":1,"result":{"value":-Infinity,"bindings":{}}}\n', id="Infinity-literal"),
    pytest.param(b'{"jsonrpc":"2.0","id":1,"error":{"data":{"kind":"TimeLimit","detail":"d","value":NaN}}}\n',
                 id="NaN-in-an-error"),
])
def test_json_the_protocol_never_writes_is_sandbox_crashed(line):
    with ScriptedBackend(_send(line)) as backend, backend.session() as s:
        outcome = within(15, lambda: s.run("1", limits={"time": 5}))
        assert isinstance(outcome, SandboxCrashed), outcome
        assert tagged_pids(s.workspace.path) == []


def test_a_number_that_overflows_to_infinity_is_a_value_error_not_a_value():
    # ``1e999`` is valid JSON that reads as inf; an encoder sends every non-finite float tagged
    from safe_eval.errors import SandboxValueError

    line = b'{"jsonrpc":"2.0","id":1,"result":{"value":{"$":"list","v":[1.5,1e999]},"bindings":{}}}\n'
    with ScriptedBackend(_send(line)) as backend, backend.session() as s:
        outcome = within(15, lambda: s.run("1", limits={"time": 5}))
        assert isinstance(outcome, SandboxValueError), outcome
        assert tagged_pids(s.workspace.path) == []


def test_a_flood_of_empty_output_is_sandbox_crashed_not_collected_until_the_deadline():
    # empty pieces count nothing against the output limit: 100k of them were held in the host
    # (and with "more" never shown) until the time limit; a worker never writes an empty piece
    body = "sys.stdin.readline()\nfor _ in range(100_000):\n    out.write(" + repr(_print('""', more=True)) + ")\n" \
           "out.flush()\ntime.sleep(60)"
    with ScriptedBackend(body) as backend, backend.session() as s:
        started = time.monotonic()
        outcome = within(20, lambda: s.run("1", limits={"time": 10}))
        assert isinstance(outcome, SandboxCrashed), outcome
        assert time.monotonic() - started < 5
        assert tagged_pids(s.workspace.path) == []


def test_a_number_too_long_to_parse_in_linear_time_is_refused_before_it_is_decoded():
    # CPython parses a decimal int in time quadratic in its digits: bounded by the host's
    # int_max_str_digits, which an application may turn off (0); 4M digits were then minutes
    import sys

    line = "b'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"value\":' + b'7' * (4 << 20) + b',\"bindings\":{}}}\\n'"
    saved = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        with ScriptedBackend(_answer(line)) as backend, backend.session() as s:
            started = time.monotonic()
            outcome = within(30, lambda: s.run("1", limits={"time": 20}))
            assert isinstance(outcome, SandboxCrashed), outcome
            assert time.monotonic() - started < 10
            assert tagged_pids(s.workspace.path) == []
    finally:
        sys.set_int_max_str_digits(saved)


# a Decimal's text is short whatever its exponent: ``1e100000000`` is 11 bytes on the wire, and
# int() of it in the host builds a 10**8-digit int (int() of 1e1000000 took 68 s), its
# fixed-point text is 100 MB; a coefficient of 10**6 digits is as slow to convert
HUGE_DECIMALS = ["1e100000000", "1e-999999999999999999", "1e4300", "1" * 5000, "1e-4301", "NaN" + "1" * 5000]


@pytest.mark.parametrize("text", HUGE_DECIMALS)
def test_a_decimal_whose_exact_value_has_too_many_digits_is_refused_at_decode(text):
    from safe_eval.errors import SandboxValueError

    value = json.dumps({"$": "decimal", "v": text})
    line = ('{"jsonrpc":"2.0","id":1,"result":{"value":' + value + ',"bindings":{}}}\n').encode()
    with ScriptedBackend(_send(line)) as backend, backend.session() as s:
        outcome = within(15, lambda: s.run("1", limits={"time": 5}))
        assert isinstance(outcome, SandboxValueError), outcome
        assert tagged_pids(s.workspace.path) == []
