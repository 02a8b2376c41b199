"""Values and output past the wire's bounds: typed errors that say what was too large, never
``SandboxCrashed`` for a healthy worker, and output past its limit is ``OutputLimit`` with what
was printed before, as in process.

The wire carries lines of at most ``protocol.MAX_LINE`` (16 MiB) bytes. Guest output of any size
is sent in pieces within it (``protocol.PRINT_CHUNK``); a value, an env or a tool result that
would make a larger line is ``SandboxValueError`` from whichever side would have sent it.
"""

from __future__ import annotations

import pytest

import safe_eval
from safe_eval.errors import GuestError, OutputLimit, SandboxValueError
from safe_eval.sandbox import make_backend
from safe_eval.sandbox.bwrap import BwrapBackend
from safe_eval.sandbox.protocol import MAX_LINE

BIG = MAX_LINE + (1 << 20)  # characters: one more MiB than a line may hold
MIB = 1 << 20
needs_bwrap = pytest.mark.skipif(BwrapBackend.unavailable() is not None,
                                 reason=f"bwrap: {BwrapBackend.unavailable()}")


@pytest.fixture(scope="module")
def backend():
    with make_backend("subprocess") as b:
        yield b


def test_one_write_larger_than_a_line_within_the_output_limit_is_output(backend):
    # 17 MiB in one print, under a 20 MiB output limit: in process this is output, not an error
    seen: list[str] = []
    code = f"print('ab')\nprint('x' * {BIG})\nprint('cd')\n1"
    result = backend.run(code, limits={"output": BIG + MIB, "memory": 1 << 30}, on_print=seen.append)
    assert result.value == 1
    assert result.stdout == "ab\n" + "x" * BIG + "\ncd\n"
    # each write is shown whole, once (pieces of one write are joined before they are shown)
    assert max(len(text) for text in seen) >= BIG


def test_one_write_past_the_output_limit_is_output_limit_with_what_came_before(backend):
    code = f"print('ab')\nprint('x' * {BIG})"
    with pytest.raises(OutputLimit) as info:
        backend.run(code, limits={"output": BIG // 2, "memory": 1 << 30})
    assert info.value.stdout == "ab\n"
    inproc = pytest.raises(OutputLimit)
    with inproc as local:
        safe_eval.safe_eval(code, {}, limits={"output": BIG // 2, "memory": 1 << 30})
    assert local.value.stdout == info.value.stdout


@needs_bwrap
@pytest.mark.parametrize("output", [None, 4 * MIB], ids=["default-limit", "limit-after-some-pieces"])
def test_cpython_mode_one_write_past_the_output_limit_is_output_limit(output):
    # the worker sets no output limit in cpython mode: the host alone counts, piece by piece;
    # the pieces of the write that crossed the limit are not shown, as in process
    code = f"print('ab')\nprint('x' * {BIG})"
    limits = {} if output is None else {"output": output}
    with make_backend("bwrap+cpython") as cpy, pytest.raises(OutputLimit) as info:
        cpy.run(code, limits=limits)
    assert info.value.stdout == "ab\n"
    assert info.value.value == (output or safe_eval.Limits().output)


def test_an_env_value_too_large_for_the_wire_is_refused_before_the_run(backend):
    with backend.session() as s:
        s.run("x = 1")
        pid = s.worker_pid
        with pytest.raises(SandboxValueError, match="too large to cross"):
            s.run("len(big)", {"big": "a" * BIG})
        # nothing was sent: the same worker goes on, its state intact
        assert s.worker_pid == pid
        assert s.run("x + 1").value == 2


def test_a_tool_result_too_large_for_the_wire_is_a_value_error(backend):
    with pytest.raises(SandboxValueError, match="too large to cross"):
        backend.run("len(big())", {"big": lambda: "a" * BIG}, limits={"memory": 1 << 30})


def test_a_tool_result_too_large_for_the_wire_can_be_handled_by_the_session(backend):
    with backend.session() as s:
        with pytest.raises(SandboxValueError):
            s.run("len(big())", {"big": lambda: "a" * BIG}, limits={"memory": 1 << 30})
        # the worker read no partial line: the next run is answered normally
        assert s.run("1 + 1").value == 2


@pytest.mark.parametrize(
    ("code", "match"),
    [
        pytest.param(f"'x' * {BIG}", "too large to cross", id="result-too-long"),
        pytest.param("list(range(2_000_000))", "too large to cross", id="result-too-many-items"),
        pytest.param("x = []\nfor _ in range(10_000):\n    x = [x]\nx", "nested deeper", id="result-too-deep"),
    ],
)
def test_a_result_past_the_wires_bounds_is_a_value_error_saying_why(backend, code, match):
    with pytest.raises(SandboxValueError, match=match):
        backend.run(code, limits={"memory": 1 << 30})


def test_a_guest_error_with_a_huge_message_is_that_guest_error(backend):
    # the host keeps 64 KiB of an error's texts: the worker cuts them before they cross
    code = f"raise ValueError('v' * {BIG})"
    with pytest.raises(GuestError) as info:
        backend.run(code, limits={"memory": 1 << 30})
    assert info.value.type_name == "ValueError"
    assert info.value.message.startswith("vvvv") and len(info.value.message) <= 64 * 1024
