"""The watchdog: host Python code called by the guest is interrupted past the deadline, on the
main thread and on others; a watch is per thread, reused, and leaves nothing pending."""

from __future__ import annotations

import sys
import threading
import time

import pytest

import safe_eval
from safe_eval.errors import TimeLimit
from safe_eval.limits import watchdog
from safe_eval.limits.budget import Budget
from safe_eval.limits.model import Limits

SLOW_HOST = "import statistics\nstatistics.mean(range(10**8))"


def test_host_loop_interrupted_then_next_run_is_clean() -> None:
    start = time.monotonic()
    with pytest.raises(TimeLimit) as info:
        safe_eval.safe_eval(SLOW_HOST, limits={"time": 0.2})
    assert time.monotonic() - start < 5
    assert info.value.value == 0.2


def test_a_watchdog_limit_reaches_the_host_as_the_public_error_with_its_setting() -> None:
    # a tool is the host's code, never interrupted: the run overdue when it returns is
    # stopped by the watchdog, and the host gets the public class with the setting, what the
    # run reached and the line, as from the budget's own check
    def spin(seconds: float) -> int:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass
        return 1

    with pytest.raises(TimeLimit) as info:
        safe_eval.safe_eval("x = 1\nspin(0.6)", {"spin": spin}, limits={"time": 0.2})
    err = info.value
    assert type(err) is TimeLimit
    assert err.value == 0.2 and err.reached is not None and err.reached >= 0.6
    assert err.line == 2
    time.sleep(2 * watchdog.PERIOD)  # a stray asynchronous exception would land here
    assert safe_eval.safe_eval("x + 1", {"x": 41}) == 42


def test_host_loop_interrupted_on_another_thread() -> None:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            safe_eval.safe_eval(SLOW_HOST, limits={"time": 0.2})
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    t = threading.Thread(target=work)
    t.start()
    t.join(10)
    assert not t.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], TimeLimit)


def test_a_run_interleaved_on_the_thread_gets_its_own_watch_and_stop_releases_the_budget() -> None:
    outer, inner = Budget(Limits()), Budget(Limits())
    w = watchdog.start(outer)
    try:
        assert w is not None and w.active and w.budget is outer
        spare = watchdog.start(inner)
        assert spare is not None and spare is not w and spare.active and spare.budget is inner
        watchdog.stop(spare)
        assert not spare.active and spare.budget is None and w.active
    finally:
        watchdog.stop(w)
    assert not w.active and w.budget is None
    again = watchdog.start(inner)
    try:
        assert again is w and again.budget is inner and not again.fired
    finally:
        watchdog.stop(again)


@pytest.mark.timeout(60)
def test_watchdog_never_fires_into_the_host_after_a_run() -> None:
    """Many runs stopped by the watchdog in host Python code (statistics iterates in Python);
    afterwards the host runs Python code for longer than the watchdog period and is never
    interrupted, and the per-thread state (context stack, recursion limit) is restored."""
    from safe_eval import context

    limit = sys.getrecursionlimit()
    code = "import statistics\nstatistics.mean(x * 1.0 for x in range(10**9))"
    for _ in range(12):
        with pytest.raises(TimeLimit):
            safe_eval.safe_eval(code, limits=Limits(time=0.02, ops=10**12))
        deadline = time.monotonic() + 0.15  # > PERIOD + GRACE of host-only work
        n = 0
        while time.monotonic() < deadline:
            n += 1
        assert n > 0
        assert context.current_context() is None
        assert sys.getrecursionlimit() == limit


@pytest.mark.parametrize("outcome", ["returns", "raises"])
def test_a_delivery_right_after_the_context_is_reset_leaves_the_run_ended_cleanly(
    monkeypatch: pytest.MonkeyPatch, outcome: str
) -> None:
    """The watchdog's exception can land between any two steps of a run's clean-up, including
    just after the context was reset and before the run forgot its token (the 3.12 interpreter
    checks for it after the reset's C call returns): the retried clean-up must not reset the
    used token again, which raised a host RuntimeError out of ``eval``."""
    from safe_eval import context

    real = context.exit_outermost
    fired: list[bool] = []

    def reset_then_interrupted(token: object) -> None:
        real(token)
        if not fired:
            fired.append(True)
            raise watchdog.WatchdogTimeLimit

    monkeypatch.setattr(context, "exit_outermost", reset_then_interrupted)
    if outcome == "returns":
        assert safe_eval.safe_eval("1 + 1") == 2
    else:
        with pytest.raises(safe_eval.errors.SafeEvalError):
            safe_eval.safe_eval("1 / 0")
    assert fired
    assert context.current_context() is None
    monkeypatch.undo()
    assert safe_eval.safe_eval("2 + 2") == 4
