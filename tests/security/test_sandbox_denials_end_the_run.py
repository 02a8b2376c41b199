"""Invariant: a denial ends the sandboxed run; guest code cannot catch it and go on.

In ``cpython`` mode the guest is plain CPython: an exception raised into it can be caught
(``except BaseException: pass``). So a denial is never raised into it: the host kills the worker
and raises the denial itself (a tool call the policy denies: ``PolicyViolation``; too much
output: ``OutputLimit``). The interpreter mode keeps its own uncatchable errors; it is held to the
same outcome. A deny rule written with ``raise`` is a ``PermissionError`` the guest may catch,
by design, in both modes.
"""

from __future__ import annotations

import pytest

from safe_eval.errors import OutputLimit, PolicyViolation
from safe_eval.policy import parse_policy
from safe_eval.sandbox import make_backend
from safe_eval.sandbox.bwrap import BwrapBackend

POLICY = parse_policy('policy tools\nallow add(a: int in 0..10, b: int)\ndeny rm(*) raise "no removing"\n')
NAMES = ["bwrap+cpython", "bwrap", "subprocess"]


@pytest.fixture(scope="module", params=NAMES)
def backend(request):
    if request.param.startswith("bwrap") and BwrapBackend.unavailable() is not None:
        pytest.skip(f"bwrap: {BwrapBackend.unavailable()}")
    with make_backend(request.param) as b:
        yield b


SWALLOW = "hits = []\nfor a in (1, int('99'), 2):\n    try:\n        hits.append(add(a, 1))\n    except BaseException:\n        hits.append('swallowed')\nhits"


def test_a_denied_tool_call_ends_the_run_even_when_the_guest_catches_everything(backend):
    calls = []

    def add(a, b):
        calls.append((a, b))
        return a + b

    with pytest.raises(PolicyViolation) as info:
        backend.run(SWALLOW, {"add": add}, policy=POLICY)
    assert [d.code for d in info.value.diagnostics] == ["T004"]
    assert calls == [(1, 1)]  # nothing after the denial ran


def test_too_much_output_ends_the_run_even_when_the_guest_catches_everything(backend):
    code = "for _ in range(3):\n    try:\n        print('x' * 1000)\n    except BaseException:\n        pass\n'went on'"
    with pytest.raises(OutputLimit):
        backend.run(code, limits={"output": 1500})


def test_a_session_goes_on_in_a_fresh_worker_after_a_denial(backend):
    with backend.session() as s:
        with pytest.raises(PolicyViolation):
            s.run(SWALLOW, {"add": lambda a, b: a + b}, policy=POLICY)
        assert s.run("6 * 7").value == 42


def test_a_deny_rule_written_to_raise_stays_catchable(backend):
    code = "try:\n    rm('x')\n    r = 'ran'\nexcept PermissionError as e:\n    r = str(e)\nr"
    assert backend.run(code, {"rm": lambda path: None}, policy=POLICY).value == "calling `rm` is denied (no removing)"
