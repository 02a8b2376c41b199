"""The watchdog: the backstop that ends an evaluation stuck in host Python code.

The budget is checked from the interpreter's own ticks, and the guards price single C calls
before they run. What neither sees is a long stretch of *host Python* code called by the guest
(``statistics.mean(range(10**9))``, Fraction arithmetic on huge numbers, a deep ``copy``):
no guest tick happens until it returns. The watchdog is one daemon thread for the whole
process that wakes every ``PERIOD`` seconds, and for every running evaluation whose deadline
passed more than ``GRACE`` ago (or whose memory passed its limit while it has not refuelled for
a whole period: a run still ticking checks its memory itself, with the precise error), raises an
asynchronous ``TimeLimit``/``MemoryLimit`` in the evaluating thread
(``PyThreadState_SetAsyncExc``). CPython delivers it at the next bytecode boundary, so any
Python-level host loop stops; a single C call still runs to its end, which is why the guards
exist. It fires again every period until the evaluation ends, so a host library's
``except Exception`` cannot swallow it for good.

An asynchronous exception must never hit the host after the evaluation has returned: ``watch``
is a context manager whose exit, under the same lock the watchdog fires under, clears any
exception still pending for the thread.

Nor may it hit anything but the overdue run. An asynchronous exception targets a thread, and a
thread may interleave several runs and the host's own code (greenlets: a gevent-style server
parks a request inside a tool waiting on I/O and runs another meanwhile). So the watchdog
fires only into a run that is *on the CPU*: ``_oncpu`` records, per thread, the watch of the
run executing there now. A run is put there when it starts and taken off while it is in host
code of the host's own: a tool call, with its audit hook (``policy/enforce.call_tool`` through
``host_code``/``back_in_run``), the one place guest code hands the thread to code that may
switch to another greenlet. Taking a run off clears an exception still pending for it, under
the watchdog's lock. A run that is off the CPU when its deadline passes is stopped by its own
budget check at its next tick after the tool returns (a tool is the host's code: never
interrupted half-way). Guest code the tool calls back is the run's code again: it is put back
on the CPU for the call (``guest_from_host``/``host_code_again``, from ``Function.__call__``).
"""

from __future__ import annotations

import _thread as _lowlevel
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from safe_eval.errors import MemoryLimit, TimeLimit
from safe_eval.limits import memory
from safe_eval.limits.stack import _stack_lock

if TYPE_CHECKING:
    from safe_eval.limits.budget import Budget

__all__ = ["GRACE", "IN_HOST_CODE", "PERIOD", "WatchdogMemoryLimit", "WatchdogTimeLimit", "back_in_run",
           "guest_from_host", "host_code", "host_code_again", "start", "stop", "watch"]

PERIOD = 0.05
# The budget's own tick raises a precise TimeLimit first whenever guest code runs; the watchdog
# only steps in when the thread has been in host code for this long past the deadline.
GRACE = 0.1


class WatchdogTimeLimit(TimeLimit):
    """Raised asynchronously (by class, without arguments) by the watchdog."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__("time limit exceeded in host code called by the guest")


class WatchdogMemoryLimit(MemoryLimit):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__("memory limit exceeded in host code called by the guest")


# ctypes (about 2 ms to import) is loaded at the first firing, on the watchdog thread: an
# evaluation that ends in time never needs it.
_set_async_exc: Any = None
_py_object: Any = None


def _raise_in(thread_id: int, exc_type: type[BaseException] | None) -> None:
    """Schedule ``exc_type`` in the thread, or (None) clear whatever is still pending there:
    an empty ``py_object()`` is the NULL the C API takes for "clear"."""
    global _set_async_exc, _py_object
    if _set_async_exc is None:
        import ctypes

        fn = ctypes.pythonapi.PyThreadState_SetAsyncExc
        fn.argtypes = (ctypes.c_ulong, ctypes.py_object)
        fn.restype = ctypes.c_int
        _py_object, _set_async_exc = ctypes.py_object, fn
    _set_async_exc(thread_id, _py_object() if exc_type is None else exc_type)


class _Watch:
    """The watch of one run. Each thread keeps one, reused by the runs that follow each other on
    it (``active`` while one runs): starting it is a few attribute stores, not an allocation and
    a lock. A run that starts while another is in progress on the same thread (greenlets or
    asyncio tasks interleaving requests: the context is per run, see ``context.py``) gets a
    watch of its own (``spare``), so every run in progress is watched until it ends."""

    __slots__ = ("budget", "thread_id", "fired", "active", "spare", "seen", "below")

    def __init__(self, thread_id: int, spare: bool = False) -> None:
        self.budget: Budget | None = None
        self.thread_id = thread_id
        self.fired = False
        self.active = False
        self.spare = spare
        self.seen = -1  # the budget's ``spent`` at the previous period (memory check)
        # what was on the CPU of this thread when the run started (put back when it stops)
        self.below: _Watch | None = None


_lock = threading.Lock()
_watches: dict[int, _Watch] = {}  # thread id -> its watch (one small object per thread id)
_spares: dict[int, _Watch] = {}  # id(watch) -> watch: runs interleaved with another on a thread
# thread id -> the watch of the run executing on that thread now (absent: host code)
_oncpu: dict[int, _Watch] = {}
_thread = False  # the watchdog thread was started (in this process)
# id(budget) -> the watch ``host_code`` took off the CPU for it (its tool call in progress):
# where guest code a tool calls back finds its run (``guest_from_host``). Never rebound (the
# guest call path tests it for emptiness under the imported name).
IN_HOST_CODE: dict[int, _Watch] = {}


def _loop() -> None:
    while True:
        time.sleep(PERIOD)
        _period()


def _period() -> None:
    """One period of the watchdog: fire into every overdue run on the CPU of its thread (its
    own function, so tests drive a period at an exact point instead of sleeping for one)."""
    with _lock:
        now = time.monotonic()
        for w in [*_watches.values(), *_spares.values()]:
            budget = w.budget
            if not w.active or budget is None:
                continue
            if _oncpu.get(w.thread_id) is not w:
                # the thread runs host code or another run now: an exception raised there
                # would stop the wrong code; the run's own tick stops it when it is back
                continue
            if now > budget.deadline + GRACE:
                _raise_in(w.thread_id, WatchdogTimeLimit)
                w.fired = True
                continue
            spent, w.seen = w.seen, budget.spent
            if spent != budget.spent:
                # guest code refuelled since the last period: the budget samples memory
                # itself, with the precise error; only a run stuck in host code is ours
                continue
            # every watched run: each is measured from its start (``Budget.start_memory``)
            if budget.mem_used + memory.unsampled(budget) > budget.limits.memory:
                _raise_in(w.thread_id, WatchdogMemoryLimit)
                w.fired = True


def _ensure_thread() -> None:
    # a low-level thread: ``threading.Thread.start`` waits until the new thread has run, which
    # on a busy machine costs a scheduler round trip in the first evaluation of a process; it
    # is a daemon by nature (never joined at exit). Called by ``start`` under ``_lock`` once
    # ``_thread`` is false, so at most one thread is started.
    global _thread
    # A stack of its own size, not the default: that is the soft stack limit the process
    # started with, which a child process inherits from a host whose runs raised it
    # (``stackguard``): a sandbox worker's watchdog took gigabytes of its address-space
    # limit that way, and its guest ran out of memory.
    with _stack_lock:
        old = _lowlevel.stack_size(_STACK)
        try:
            _lowlevel.start_new_thread(_loop, ())
        finally:
            _lowlevel.stack_size(old)
    _thread = True


# the watchdog's loop needs little stack (its first firing imports ctypes)
_STACK = 8 * 1024 * 1024


def _forget_thread() -> None:
    global _thread
    _thread = False  # a forked child has no watchdog thread: the next watch starts one


if hasattr(os, "register_at_fork"):  # POSIX only (no fork elsewhere)
    os.register_at_fork(after_in_child=_forget_thread)


def start(budget: Budget) -> _Watch | None:
    """Watch ``budget``'s run on this thread until ``stop``. Called for every run with a budget
    of its own (``session``: the outermost run and a run started inside another, e.g. from a
    tool, which gets a spare watch)."""
    tid = threading.get_ident()
    w = _watches.get(tid)
    if w is None:
        w = _Watch(tid)
        with _lock:
            _watches[tid] = w
            if not _thread:
                _ensure_thread()
    elif w.active:  # another run is in progress on this thread: this one is watched too
        w = _Watch(tid, spare=True)
        w.seen = -1
        w.budget = budget
        w.active = True
        with _lock:
            _spares[id(w)] = w
            w.below = _oncpu.get(tid)
            _oncpu[tid] = w
        return w
    # No lock needed: only this thread writes its watch, and the watchdog reads ``budget``
    # only once ``active`` is set, which comes last (a fresh budget's deadline is ahead).
    w.budget = budget
    w.fired = False
    w.seen = -1
    w.below = _oncpu.get(tid)
    _oncpu[tid] = w
    w.active = True
    return w


def stop(w: _Watch | None) -> None:
    """End a watch; under the lock the watchdog fires under, so nothing is raised after this
    returns (an exception still pending for the thread is cleared). Idempotent: a caller
    interrupted by a delivery in here calls it again (see ``session.run_guarded``)."""
    if w is None:
        return
    with _lock:
        w.active = False
        if w.budget is not None and IN_HOST_CODE.get(id(w.budget)) is w:
            del IN_HOST_CODE[id(w.budget)]
        w.budget = None  # do not keep the finished evaluation's budget (and output) alive
        if w.spare:
            _spares.pop(id(w), None)
        tid = w.thread_id
        if _oncpu.get(tid) is w:
            below = w.below
            if below is None or not below.active:
                _oncpu.pop(tid, None)
            else:
                _oncpu[tid] = below
        w.below = None
        if w.fired:
            _raise_in(tid, None)


def host_code() -> _Watch | None:
    """The run on this thread's CPU hands it to host code of the host's own (a tool call, which
    may switch to another greenlet): from now on the watchdog fires nothing at this thread for
    it, and an exception it has pending is cleared. Returns what ``back_in_run`` takes."""
    tid = _lowlevel.get_ident()
    w = _oncpu.get(tid)
    if w is None:
        return None
    budget = w.budget
    if budget is not None:  # what it grew and announced is settled before it parks
        memory.checkpoint(budget)
    with _lock:
        if _oncpu.get(tid) is w:
            del _oncpu[tid]
        if w.budget is not None:
            IN_HOST_CODE[id(w.budget)] = w
        if w.fired:
            _raise_in(tid, None)
    return w


def back_in_run(w: _Watch | None) -> None:
    """The host code ``host_code`` started returned to the run: it is on the CPU again (if it
    is still watched). A run whose deadline passed meanwhile stops here, its first checkpoint,
    as the watchdog would have stopped it had it stayed on the CPU."""
    if w is None or not w.active:
        return
    _oncpu[w.thread_id] = w
    budget = w.budget
    if budget is not None:
        if IN_HOST_CODE.get(id(budget)) is w:
            del IN_HOST_CODE[id(budget)]
        if time.monotonic() > budget.deadline + GRACE:
            raise WatchdogTimeLimit


def guest_from_host(budget: Budget) -> _Watch | None:
    """Host code its run handed the thread to (a tool) calls guest code back on ``budget``
    (``Function.__call__``): the run is on the CPU again for the call, so the watchdog stops
    host Python code the callback calls as anywhere else in the run (off the CPU, a 0.5 s run
    ran 22 s in a callback). Returns what ``host_code_again`` takes after the call (None:
    nothing changed). A run past its deadline stops here, as at ``back_in_run``."""
    w = IN_HOST_CODE.get(id(budget))
    if w is None or w.budget is not budget or not w.active:
        return None
    tid = _lowlevel.get_ident()
    if w.thread_id != tid or tid in _oncpu:  # another thread's run, or a run on the CPU already
        return None
    if time.monotonic() > budget.deadline + GRACE:
        raise WatchdogTimeLimit
    _oncpu[tid] = w
    return w


def host_code_again(w: _Watch) -> None:
    """The guest call ``guest_from_host`` started returned to the host code that made it: the
    run is off the CPU again, an exception still pending for it cleared (``host_code``)."""
    tid = w.thread_id
    with _lock:
        if _oncpu.get(tid) is w:
            del _oncpu[tid]
        if w.fired:
            _raise_in(tid, None)


@contextmanager
def watch(budget: Budget) -> Iterator[None]:
    """``start``/``stop`` as a context manager."""
    w = start(budget)
    try:
        yield
    finally:
        stop(w)
