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


# -- one watchdog period, driven at an exact point (``watchdog._period``) ---------------------
# The watchdog thread calls ``_period`` every PERIOD seconds; these tests call it themselves, with
# the delivery recorded instead of raised, so each branch is reached without sleeping for it.


one_period = watchdog._period


@pytest.fixture
def deliveries(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, type[BaseException] | None]]:
    """What the watchdog would raise, recorded; the watchdog thread's own periods paused
    meanwhile (its loop looks ``_period`` up each time), so only the test's periods run."""
    sent: list[tuple[int, type[BaseException] | None]] = []
    monkeypatch.setattr(watchdog, "_period", lambda: None)
    monkeypatch.setattr(watchdog, "_raise_in", lambda tid, exc: sent.append((tid, exc)))
    with watchdog._lock:  # a period the thread began before the patch has ended
        pass
    return sent


def test_a_period_fires_time_into_an_overdue_run_on_the_cpu_and_stop_clears_it(deliveries) -> None:
    budget = Budget(Limits(time=1.0))
    budget.deadline = time.monotonic() - 2 * watchdog.GRACE
    w = watchdog.start(budget)
    assert w is not None
    try:
        one_period()
        assert deliveries == [(threading.get_ident(), watchdog.WatchdogTimeLimit)] and w.fired
    finally:
        watchdog.stop(w)
    # stop clears the exception still pending for the thread (None: PyThreadState_SetAsyncExc's clear)
    assert deliveries[-1] == (threading.get_ident(), None)


def test_a_period_within_grace_of_the_deadline_fires_nothing(deliveries) -> None:
    budget = Budget(Limits(time=1.0))
    budget.deadline = time.monotonic() - watchdog.GRACE / 10  # overdue, not by the grace yet
    w = watchdog.start(budget)
    try:
        one_period()
        one_period()
        assert deliveries == [] and w is not None and not w.fired
    finally:
        watchdog.stop(w)
    assert deliveries == []  # nothing fired: nothing to clear


def test_a_period_fires_nothing_into_a_run_off_the_cpu(deliveries) -> None:
    # a run in a tool call (host code of the host's own, ``host_code``) is never interrupted,
    # overdue or over its memory; back in the run, the overdue run stops at once
    budget = Budget(Limits(time=1.0, memory=2**20))
    budget.deadline = time.monotonic() - 2 * watchdog.GRACE
    budget.mem_used = 2**21
    w = watchdog.start(budget)
    try:
        parked = watchdog.host_code()
        assert parked is w
        one_period()
        one_period()
        assert deliveries == []
        with pytest.raises(watchdog.WatchdogTimeLimit):
            watchdog.back_in_run(parked)
    finally:
        watchdog.stop(w)


def test_a_period_fires_memory_only_into_a_run_that_did_not_refuel_since_the_last(deliveries) -> None:
    budget = Budget(Limits(time=60.0, memory=2**20))
    budget.mem_used = 2**21  # over its limit, as a host library's allocations leave it
    w = watchdog.start(budget)
    assert w is not None
    try:
        one_period()  # the first period only records what the run spent
        assert deliveries == []
        budget.spent += 4096  # the guest ticked: its own budget checks its memory, precisely
        one_period()
        assert deliveries == []
        one_period()  # no tick for a whole period: stuck in host code, stopped here
        assert deliveries == [(threading.get_ident(), watchdog.WatchdogMemoryLimit)] and w.fired
    finally:
        watchdog.stop(w)


def test_a_period_fires_no_memory_limit_into_a_stuck_run_under_its_limit(deliveries) -> None:
    budget = Budget(Limits(time=60.0, memory=2**40))
    w = watchdog.start(budget)
    try:
        one_period()
        one_period()
        assert deliveries == []
    finally:
        watchdog.stop(w)


def test_a_period_fires_into_the_interleaved_run_on_the_cpu_not_the_one_below(deliveries) -> None:
    # a run started inside another on the thread (a tool's own run) holds the CPU: only it is
    # interrupted, and when it stops the outer run is on the CPU again
    outer, inner = Budget(Limits(time=1.0)), Budget(Limits(time=1.0))
    outer.deadline = inner.deadline = time.monotonic() - 2 * watchdog.GRACE
    w = watchdog.start(outer)
    try:
        spare = watchdog.start(inner)
        assert spare is not None and spare.spare
        one_period()
        assert deliveries == [(threading.get_ident(), watchdog.WatchdogTimeLimit)]
        assert spare.fired and w is not None and not w.fired
        watchdog.stop(spare)
        deliveries.clear()
        one_period()
        assert deliveries == [(threading.get_ident(), watchdog.WatchdogTimeLimit)] and w.fired
    finally:
        watchdog.stop(w)


class _Delivered(Exception):
    pass


def _blocked_thread(go: threading.Event, seen: list[str]) -> threading.Thread:
    """A thread blocked in a lock until ``go``: an asynchronous exception set for it is delivered
    at the first bytecode it runs after, never before."""

    def run() -> None:
        try:
            go.wait()
            for _ in range(1000):
                pass
            seen.append("ran to the end")
        except _Delivered:
            seen.append("delivered")

    t = threading.Thread(target=run)
    t.start()
    return t


def test_raise_in_delivers_to_the_thread_and_none_clears_what_is_pending() -> None:
    for clear, expected in ((False, "delivered"), (True, "ran to the end")):
        go, seen = threading.Event(), []
        t = _blocked_thread(go, seen)
        assert t.ident is not None
        watchdog._raise_in(t.ident, _Delivered)
        if clear:
            watchdog._raise_in(t.ident, None)
        go.set()
        t.join(10)
        assert seen == [expected]


def test_a_delivered_watchdog_limit_is_the_public_error_with_its_message() -> None:
    # delivered by class, without arguments (``PyThreadState_SetAsyncExc``): each builds its own
    # message, and the host catches it as the public TimeLimit/MemoryLimit
    from safe_eval.errors import MemoryLimit

    for exc_type, public, text in ((watchdog.WatchdogTimeLimit, TimeLimit, "time limit"),
                                   (watchdog.WatchdogMemoryLimit, MemoryLimit, "memory limit")):
        caught: list[BaseException] = []
        go = threading.Event()

        def run() -> None:
            try:
                go.wait()
                for _ in range(1000):
                    pass
            except public as e:  # this iteration's thread, joined below
                caught.append(e)

        t = threading.Thread(target=run)
        t.start()
        assert t.ident is not None
        watchdog._raise_in(t.ident, exc_type)
        go.set()
        t.join(10)
        assert len(caught) == 1 and type(caught[0]) is exc_type
        assert f"{text} exceeded in host code called by the guest" in str(caught[0])
