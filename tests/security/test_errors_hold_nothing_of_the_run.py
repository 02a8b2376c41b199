"""Invariant: the error a run raises to the host holds nothing of the run's insides.

``session._detached`` (for every error of a run) and ``session._without_host_frames`` (the
guest exception inside a ``GuestError``) drop the exception chain the run unwound and the
interpreter's tracebacks: host frames whose locals hold the run's namespace, guest objects and
every guest exception raised before. Kept, they keep a finished run alive as long as the host
keeps its error, and a host formatting the error walks a chain the guest made thousands long.
"""

from __future__ import annotations

import gc
import traceback
import types
from typing import Any

import pytest

from safe_eval import Evaluator, safe_eval
from safe_eval.errors import GuestError, LimitExceeded, SafeEvalError
from safe_eval.limits import Limits

LIMITS = Limits(time=0.5, recursion=200)

RUNS = {
    # each guest exception raised while the previous one is handled: a chain of thousands
    "limit_while_raising_in_finally": "def f():\n    try:\n        f()\n    finally:\n        f()\nf()",
    "guest_error_after_a_long_chain": "def f(n):\n    try:\n        if n:\n            f(n - 1)\n"
                                      "    finally:\n        raise ValueError(n)\nf(150)",
    "guest_error_raised_from": "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise KeyError('k') from e",
    "op_limit_in_a_handler": "try:\n    [][1]\nexcept IndexError:\n    while True:\n        pass",
    "recursion_limit": "def f():\n    return f()\nf()",
}


def _reachable_frames(root: Any, budget: int = 200_000) -> list[types.FrameType]:
    """The frame objects reachable from ``root`` (a bounded walk of the object graph)."""
    todo, seen, frames = [root], {id(root)}, []
    while todo and len(seen) < budget:
        obj = todo.pop()
        if isinstance(obj, types.FrameType):
            frames.append(obj)
            continue  # what a frame holds is already a leak
        for ref in gc.get_referents(obj):
            if id(ref) not in seen and not isinstance(ref, (type, types.ModuleType)):
                seen.add(id(ref))
                todo.append(ref)
    return frames


def _error_of(code: str) -> SafeEvalError:
    with pytest.raises(SafeEvalError) as info:
        safe_eval(code, limits=LIMITS)
    return info.value


@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_error_a_run_raises_reaches_no_frame_of_the_run(name: str) -> None:
    err = _error_of(RUNS[name])
    err.__traceback__ = None  # the frames of this test and pytest, not the run's
    assert err.__context__ is None and err.__cause__ is None
    assert _reachable_frames(err) == []


@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_hosts_traceback_of_a_run_error_stops_at_the_api(name: str) -> None:
    err = _error_of(RUNS[name])
    files = [f.filename for f in traceback.extract_tb(err.__traceback__)]
    assert not any("/interpreter/compile" in f or "/interpreter/functions" in f for f in files)


def test_a_guest_error_keeps_a_short_guest_chain_and_its_cause() -> None:
    err = _error_of(RUNS["guest_error_after_a_long_chain"])
    assert isinstance(err, GuestError) and err.type_name == "ValueError"
    chain, cur = 0, err.exception
    while cur is not None:
        assert cur.__traceback__ is None
        chain, cur = chain + 1, cur.__context__
    assert 1 < chain <= 16
    caused = _error_of(RUNS["guest_error_raised_from"])
    assert isinstance(caused, GuestError) and caused.cause is not None
    assert caused.cause.type_name == "ZeroDivisionError"


def test_formatting_the_error_of_a_run_that_chained_thousands_is_immediate() -> None:
    err = _error_of(RUNS["limit_while_raising_in_finally"])
    assert isinstance(err, LimitExceeded)
    text = "".join(traceback.format_exception(err))
    assert text.count("During handling") == 0 and len(text) < 5_000


def test_a_repl_session_error_leaves_the_sessions_state_usable() -> None:
    ev = Evaluator(limits=LIMITS)
    env: dict[str, Any] = {}
    ev.run("x = 41\ndef g():\n    try:\n        raise KeyError(1)\n    finally:\n        pass", env)
    with pytest.raises(GuestError):
        ev.run("g()", env)
    assert ev.run("x + 1", env).value == 42
