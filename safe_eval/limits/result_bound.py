"""The one bound on what the host's handling of a run's results may cost.

A run returns guest objects: decoded functions, instances of guest classes (whose ``repr``,
``==``, ``hash`` and iteration run guest methods), suspended generators. Every later host call
into them runs guest code outside the run. If each such call got a fresh budget, the host's own
handling of a result would be unbounded: ``repr()`` of a returned list of a thousand objects
whose ``__repr__`` spins would cost a thousand time limits.

So each run owns one ``ResultBound`` holding the run's limits for ops, time and memory, and
every host call into any object the run made (``session.call_in_run``: a host call of a
function, a host resume or close of a guest generator) draws its budget from that bound and
pays back what it used. A sequence of calls shares the bound: together they never spend more
ops or time than one run's limits, and the memory they leave allocated (a returned function
appending to a module-level list) is carried from call to call, so together they never hold
more than one run's memory limit. Concurrent calls (host threads, greenlets) cannot each spend
the whole bound: a call reserves all that is left under a lock when it draws and refunds what
it did not use when it settles, and a call drawn while another is under way is refused with
``ConcurrentCall`` (the host serialises calls into one run's objects). Once spent, every
further host call into that run's objects raises the limit error at once, until the host
refills the bound explicitly (``safe_eval.refill(obj)``). Objects made by those host calls (a
returned function that defines and returns another) inherit the same bound, so a chain of
results cannot mint a fresh one either.
"""

from __future__ import annotations

import threading
import time

from safe_eval.errors import ConcurrentCall, MemoryLimit, OpLimit, TimeLimit
from safe_eval.limits.budget import Budget
from safe_eval.limits.model import Limits

__all__ = ["ResultBound"]

_BUSY = ("another host call into this run's results is under way (on another thread or "
         "greenlet): calls into one run's objects share its bound and must not overlap; "
         "serialise them, or give each worker its own run")
_SPENT = "host calls into this run's results spent their bound (safe_eval.refill() gives them more)"


class ResultBound:
    """Ops, seconds and bytes left for host calls into one run's results."""

    __slots__ = ("limits", "ops_left", "time_left", "mem_held", "calls", "_lock")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.ops_left = limits.ops
        self.time_left = float(limits.time)
        # bytes the calls so far allocated and still hold (measured when each call settles)
        self.mem_held = 0
        self.calls = 0  # host calls drawn and not yet settled (at most one)
        self._lock = threading.Lock()

    def refill(self) -> None:
        """Give the host calls their full ops and time allowance again (the host decides when).
        Memory the calls still hold stays charged: it is held, not spent."""
        with self._lock:
            self.ops_left = self.limits.ops
            self.time_left = float(self.limits.time)

    def draw(self) -> Budget:
        """A budget for one host call, reserved from the bound: all that is left, never more
        than the limits. Raises the limit error when the bound is spent, ``ConcurrentCall``
        while another call is under way (every draw is followed by one ``settle``)."""
        lim = self.limits
        with self._lock:
            if self.calls:
                raise ConcurrentCall(_BUSY)
            if self.ops_left <= 0:
                raise OpLimit(_SPENT, value=lim.ops, reached=lim.ops - self.ops_left)
            if self.time_left <= 0:
                raise TimeLimit(_SPENT, value=lim.time, reached=round(lim.time - self.time_left, 3))
            mem = lim.memory - self.mem_held
            if mem <= 0:
                raise MemoryLimit(_SPENT, value=lim.memory, reached=self.mem_held)
            ops, secs = self.ops_left, self.time_left
            self.ops_left -= ops
            self.time_left -= secs
            self.calls += 1
        try:
            if ops < lim.ops or secs < lim.time or mem < lim.memory:
                lim = lim.merged({"ops": ops, "time": secs, "memory": mem})
            budget = Budget(lim)
            budget.memory_used()  # the mark this call's memory is measured from
        except BaseException:  # no settle will follow: give the reservation back
            with self._lock:
                self.ops_left += ops
                self.time_left += secs
                self.calls -= 1
            raise
        return budget

    def settle(self, budget: Budget) -> None:
        """Refund what one host call did not use, however it ended (a call stopped by its time
        limit used all its time, one stopped by another limit all its ops: it leaves the bound
        spent of that), and carry the memory it left allocated to the next calls."""
        given_ops = budget.limits.ops
        # a call stopped by its time limit spent the time, not the ops: the next call is refused
        # with the kind of limit the bound ran out of (it was refused as OpLimit)
        timed_out = isinstance(budget.exhausted, TimeLimit)
        stopped = budget.exhausted is not None and not timed_out
        used_ops = given_ops if stopped else min(budget.ops_used, given_ops)
        refund = 0.0 if timed_out else max(0.0, budget.limits.time - (time.monotonic() - budget.started))
        held = budget.memory_used()
        with self._lock:
            # (never above the limits: the host may have refilled while the call ran)
            self.ops_left = min(self.limits.ops, self.ops_left + given_ops - used_ops)
            self.time_left = min(float(self.limits.time), self.time_left + refund)
            self.mem_held = max(0, self.mem_held + held)
            self.calls -= 1
