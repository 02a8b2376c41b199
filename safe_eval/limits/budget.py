"""The running budget of one evaluation: operations, time, memory, recursion, output.

Hot-path contract with the interpreter (kept tiny so a tick costs two bytecodes)::

    b.fuel -= 1
    if b.fuel < 0:
        b.refuel()          # accounts the spent chunk, checks ops/time/memory, may raise

    b.depth += 1
    if b.depth > b.max_depth:
        b.too_deep()        # raises a guest-catchable RecursionError (see too_deep)
    ...
    b.depth -= 1

Host code calling back into guest code (``Function.__call__``) also counts ``host_calls``
against ``stack.HOST_CALL_CAP`` the same way (``too_many_host_calls``).

``current()`` returns the budget of the evaluation running on this thread, for builtins and
module wrappers that are shared singletons and must charge whoever calls them;
``current_or_default()`` never returns None (a fresh default budget outside any evaluation).

Slow checks run once per chunk of ``CHUNK`` ops in ``refuel()``: total ops, the clock, and the
memory this run allocated (RSS changes attributed per run, see ``memory.py``). Bulk host work
is charged up front by the guards: ``charge(n)`` for n elements, ``check_alloc(nbytes)`` before
an allocation, ``check_work(ns)`` before a host C call estimated to run ``ns`` nanoseconds
(big-int arithmetic), ``sleep(seconds)`` for ``time.sleep``.

Once a limit is hit the budget stays exhausted: every later tick, charge or check raises the
same kind of error again, so guest ``finally`` blocks (or an ``except`` the interpreter failed
to keep from matching) cannot keep running on a spent budget.
"""

from __future__ import annotations

import time

from safe_eval.context import current_context
from safe_eval.errors import (
    LimitExceeded,
    MemoryLimit,
    OpLimit,
    OutputLimit,
    TimeLimit,
)
from safe_eval.limits import memory
from safe_eval.limits.model import Limits
from safe_eval.limits.stack import HOST_CALL_CAP

__all__ = ["CHUNK", "NS_PER_OP", "Budget", "current", "current_or_default", "depth_limit_of"]

# Ops between two slow checks (clock, total ops, memory): large enough that the clock is
# read rarely, small enough that a time limit is noticed within a few milliseconds.
CHUNK = 4096

# Host work estimated in nanoseconds is charged as ops at this rate (roughly what one guest
# operation costs in the interpreter), so big-int arithmetic counts against ``ops`` too and
# the op count stays deterministic (the estimate depends on operand sizes only).
NS_PER_OP = 50
# ops charged for one RecursionError the depth check raises (about 20 us of work)
_RAISE_OPS = 400

# Allocations below this size skip the fresh RSS read in check_alloc (the next refuel sees them).
_FRESH_RSS_ABOVE = 1 << 20
# More than one thread can make resident in a second (page faults and zeroing run at a few
# GB/s, huge pages and copies at most at memory bandwidth): a run shorter than its headroom
# divided by this cannot have passed its limit, so its end needs no RSS read.
_MAX_GROWTH_PER_S = 64 * 10**9
# Allocations from this size up are announced to the memory ledger, so that another run's sample
# charges them here (``memory.announce``): one dict update, next to a memset of 16 KB or more.
_ANNOUNCE_ABOVE = 1 << 14


class Budget:
    __slots__ = (
        "limits",
        "fuel",
        "_granted",
        "spent",
        "depth",
        "max_depth",
        "host_calls",
        "max_host_calls",
        "started",
        "deadline",
        "out",
        "out_size",
        "echo",
        "exhausted",
        "mem_base",
        "mem_used",
        "mem_peak",
        "mem_lent",
        "mem_since",
    )

    def __init__(self, limits: Limits, *, echo: bool = False) -> None:
        self.limits = limits
        self.spent = 0
        ops = limits.ops
        self._granted = CHUNK if ops > CHUNK else ops  # min() without the builtin call: per evaluation
        self.fuel = self._granted
        self.depth = 0
        self.max_depth = limits.recursion
        self.host_calls = 0
        self.max_host_calls = HOST_CALL_CAP
        self.started = time.monotonic()
        self.deadline = self.started + limits.time
        self.out: list[str] = []
        self.out_size = 0
        self.echo = echo
        self.exhausted: LimitExceeded | None = None
        # memory is sampled lazily, from the first slow check: reading it costs a system call,
        # which would dominate a one-expression evaluation (-1: not sampled yet, else 0)
        self.mem_base = -1
        self.mem_used = 0  # bytes attributed to this run (memory.sample), never below 0
        self.mem_peak = 0  # largest mem_used seen, bytes
        # growth of this run other runs' samples charged here since its own last sample
        # (``memory._own``: the most a fall that spans their activity may credit it)
        self.mem_lent = 0
        # bytes ``check_alloc`` let through since this run's last sample: copies it allows
        # between two samples add up (a loop keeping megabyte slices) instead of each being
        # compared alone with a stale total
        self.mem_since = 0

    # -- operations and time ---------------------------------------------------------------
    def refuel(self) -> None:
        """Account the chunk just spent; raise when ops, time or memory ran out, else grant more."""
        if self.exhausted is not None:
            self.fuel = 0
            raise self._again()
        self.spent += self._granted - self.fuel
        if self.spent >= self.limits.ops:
            self._fail(OpLimit("too many operations", value=self.limits.ops, reached=self.spent))
        now = time.monotonic()
        if now > self.deadline:
            self._fail(self._time_error(now))
        self._check_growth()
        self._granted = min(CHUNK, self.limits.ops - self.spent)
        self.fuel = self._granted

    def charge(self, n: int) -> None:
        """Charge ``n`` operations at once (bulk work done by one host call)."""
        self.fuel -= n
        if self.fuel < 0:
            self.refuel()

    @property
    def ops_used(self) -> int:
        return self.spent + (self._granted - self.fuel)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def remaining_time(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def check_time(self) -> None:
        if self.exhausted is not None:
            raise self._again()
        now = time.monotonic()
        if now > self.deadline:
            self._fail(self._time_error(now))

    def check_work(self, ns: float) -> None:
        """Refuse a host call estimated to take ``ns`` nanoseconds when it would overrun the
        time limit (a C call cannot be interrupted once started); else charge it as ops."""
        if self.exhausted is not None:
            raise self._again()
        seconds = ns / 1e9
        if seconds > self.remaining_time():
            self._fail(
                TimeLimit(
                    "operation would take too long",
                    value=self.limits.time,
                    reached=round(self.elapsed + seconds, 3),
                )
            )
        self.charge(int(ns // NS_PER_OP))

    def sleep(self, seconds: float) -> None:
        """``time.sleep`` for the guest: sleeps at most the time left, then raises TimeLimit
        if the requested sleep was cut short."""
        if self.exhausted is not None:
            raise self._again()
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        left = self.remaining_time()
        if self.mem_base >= 0:  # the thread may go to another run: settle its memory first
            memory.checkpoint(self)
        time.sleep(min(seconds, left))
        if seconds > left:
            self._fail(self._time_error(time.monotonic()))

    def _time_error(self, now: float) -> TimeLimit:
        return TimeLimit("time limit exceeded", value=self.limits.time, reached=round(now - self.started, 3))

    # -- recursion -------------------------------------------------------------------------
    def too_deep(self) -> None:
        """Refuse one guest call past ``max_depth`` with CPython's ``RecursionError``, which the
        guest may catch as in CPython. The run is not exhausted: the depth check holds on every
        call, so a guest that catches it still cannot recurse deeper. Left uncaught it becomes
        ``RecursionLimit`` (``depth_limit_of``, read by the run's error conversion)."""
        self.depth -= 1
        self._raise_recursion_error()

    def too_many_host_calls(self) -> None:
        """Refuse one host-to-guest call nested past ``max_host_calls`` as ``too_deep`` does:
        the host's own recursion limit is never reached, so CPython never swallows it."""
        self.host_calls -= 1
        self._raise_recursion_error()

    def _raise_recursion_error(self) -> None:
        # raising and unwinding a guest exception costs far more than one op: priced so a guest
        # that catches it (``finally: f()`` at the limit, exponential) meets the clock in time
        self.charge(_RAISE_OPS)
        err = RecursionError("maximum recursion depth exceeded")
        err.__dict__[_DEPTH_KEY] = self.max_depth
        try:
            raise err
        finally:  # a local naming the exception its traceback holds is a cycle for the GC
            del err

    # -- memory ----------------------------------------------------------------------------
    def check_alloc(self, nbytes: int) -> None:
        """Refuse an allocation of ``nbytes`` before it happens: it must fit in what the limit
        leaves after the growth already measured."""
        if self.exhausted is not None:
            raise self._again()
        if nbytes <= 0:
            return
        if nbytes > self.limits.memory:  # over the limit alone: no sample, and a reached
            # value that does not depend on the heap's state (the pages the run touched so far)
            self._fail(MemoryLimit("allocation too large", value=self.limits.memory, reached=int(nbytes)))
        since = self.mem_since + nbytes
        if since >= _FRESH_RSS_ABOVE:  # a megabyte let through since the last sample: measure
            used = self._growth()
            since = nbytes
        else:
            used = self.mem_peak + self.mem_since
        self.mem_since = since
        if nbytes + used > self.limits.memory:
            self._fail(
                MemoryLimit("allocation too large", value=self.limits.memory, reached=int(nbytes + used))
            )
        if nbytes >= _ANNOUNCE_ABOVE and self.mem_base >= 0:
            memory.announce(self, nbytes)

    def start_memory(self) -> None:
        """The run starts: its memory is measured from now (one RSS read). Done at every run's
        start, not lazily at its first slow check: a run that never reaches one (a few ops of
        constant-factor C routines) is still seen by the watchdog and checked at its end."""
        if self.mem_base < 0:
            memory.begin(self)
            self.mem_base = 0

    def finish_memory(self) -> None:
        """The run ends: the growth since its last sample is its own (perhaps its result), and
        the limit holds at the end as at every sample: raise ``MemoryLimit`` past it. A run too
        short to have grown past its headroom (``_MAX_GROWTH_PER_S``) is not measured again
        when no other run is in progress (``memory.alone``: what it grew is then no run's; with
        another in progress, that run's next sample would pay it): a one-expression evaluation
        pays one RSS read, at its start."""
        if self.mem_base < 0:
            return
        headroom = self.limits.memory - self.mem_used
        if (time.monotonic() - self.started) * _MAX_GROWTH_PER_S < headroom and memory.alone(self):
            memory.forget(self)
            return
        used = memory.leave(self)
        if used > self.limits.memory and self.exhausted is None:
            self._fail(MemoryLimit("memory limit exceeded", value=self.limits.memory, reached=used))

    def memory_used(self) -> int:
        """The memory this run allocated and still holds, in bytes (sampled now)."""
        return self._growth()

    def _growth(self) -> int:
        self.mem_since = 0  # what was let through is in the sample now
        if self.mem_base < 0:
            memory.mark(self)
            self.mem_base = 0
            return 0
        return self.charge_growth(memory.sample(self))

    def charge_growth(self, nbytes: int) -> int:
        """Add ``nbytes`` (negative: freed) to the memory this run holds; the new total. Called
        by ``memory`` when another run's sample saw an allocation this run announced: the limit
        is checked at this run's own next sample, on its own thread."""
        used = self.mem_used + nbytes
        if used < 0:
            used = 0
        self.mem_used = used
        if used > self.mem_peak:
            self.mem_peak = used
        return used

    def _check_growth(self) -> None:
        grown = self._growth()
        if grown > self.limits.memory:
            self._fail(MemoryLimit("memory limit exceeded", value=self.limits.memory, reached=grown))

    # -- output ----------------------------------------------------------------------------
    def check_output(self, nchars: int) -> None:
        """Refuse output of ``nchars`` more characters before the text is built (``print`` with
        a megabyte ``sep`` would otherwise join a gigabyte string first). The limit is in bytes
        (``write`` counts UTF-8): a character is at least one, so this refusal is never early."""
        if self.exhausted is not None:
            raise self._again()
        if self.out_size + nchars > self.limits.output:
            reached = self.out_size + nchars
            self._fail(OutputLimit("too much output", value=self.limits.output, reached=reached))

    def write(self, text: str) -> None:
        if self.exhausted is not None:
            raise self._again()
        # ``Limits.output`` is bytes of output: UTF-8, as the host delivers it (a JSON response,
        # a log line), not code points (an emoji is four)
        self.out_size += len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        if self.out_size > self.limits.output:
            self._fail(OutputLimit("too much output", value=self.limits.output, reached=self.out_size))
        self.out.append(text)
        if self.echo:
            print(text, end="")

    @property
    def stdout(self) -> str:
        return "".join(self.out)

    # -- failure ---------------------------------------------------------------------------
    def _fail(self, err: LimitExceeded) -> None:
        """Raise ``err`` and stay exhausted: every later tick raises again, so guest
        ``finally`` blocks cannot keep running on a spent budget."""
        self.exhausted = err
        self.fuel = 0
        raise err

    def _again(self) -> LimitExceeded:
        err = self.exhausted
        assert err is not None
        return type(err)(err.detail, value=err.value, reached=err.reached)


# marks a RecursionError raised by the depth check (not the host's own): a key the guest cannot
# name (dunder attributes and ``__dict__`` are refused by restrict)
_DEPTH_KEY = "__safe_eval_depth_limit__"


def depth_limit_of(e: BaseException) -> int | None:
    """The recursion limit ``e`` was raised for, if the depth check raised it; else None."""
    d = getattr(e, "__dict__", None) if type(e) is RecursionError else None
    limit = d.get(_DEPTH_KEY) if d is not None else None
    return limit if type(limit) is int else None


def current() -> Budget | None:
    """The budget of the evaluation running on this thread, if any."""
    ctx = current_context()
    return ctx.budget if ctx is not None else None


def current_or_default() -> Budget:
    """The running budget, or a fresh one with the default ``Limits`` when guarded code runs
    outside any evaluation (host code calling a guard directly)."""
    ctx = current_context()
    return ctx.budget if ctx is not None else Budget(Limits())
