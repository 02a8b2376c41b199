"""The one bound on what the host's handling of a run's results may cost.

A run returns guest objects: decoded functions, instances of guest classes (whose ``repr``,
``==``, ``hash`` and iteration run guest methods), suspended generators. Every later host call
into them runs guest code outside the run. If each such call got a fresh budget, the host's own
handling of a result would be unbounded: ``repr()`` of a returned list of a thousand objects
whose ``__repr__`` spins would cost a thousand time limits.

So each run owns one ``ResultBound`` holding the run's limits for ops and time, and every host
call into any object the run made (``session.call_fresh``, a host resume or close of a guest
generator) draws its budget from that bound and pays back what it used. A sequence of calls
shares the bound: together they never spend more ops or time than one run's limits. Once spent,
every further host call into that run's objects raises the limit error at once, until the host
refills the bound explicitly (``safe_eval.refill(obj)``). Objects made by those host calls (a
returned function that defines and returns another) inherit the same bound, so a chain of
results cannot mint a fresh one either.
"""

from __future__ import annotations

import time

from safe_eval.errors import OpLimit, TimeLimit
from safe_eval.limits.budget import Budget
from safe_eval.limits.model import Limits

__all__ = ["ResultBound"]


class ResultBound:
    """Ops and seconds left for host calls into one run's results."""

    __slots__ = ("limits", "ops_left", "time_left")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.ops_left = limits.ops
        self.time_left = float(limits.time)

    def refill(self) -> None:
        """Give the host calls their full allowance again (the host decides when)."""
        self.ops_left = self.limits.ops
        self.time_left = float(self.limits.time)

    def draw(self) -> Budget:
        """A budget for one host call: what is left of the bound, never more than the limits.
        Raises the limit error when the bound is spent."""
        if self.ops_left <= 0:
            raise OpLimit("host calls into this run's results spent their bound "
                          "(safe_eval.refill() gives them more)", value=self.limits.ops,
                          reached=self.limits.ops - self.ops_left)
        if self.time_left <= 0:
            raise TimeLimit("host calls into this run's results spent their bound "
                            "(safe_eval.refill() gives them more)", value=self.limits.time,
                            reached=round(self.limits.time - self.time_left, 3))
        lim = self.limits
        if self.ops_left < lim.ops or self.time_left < lim.time:
            lim = lim.merged({"ops": self.ops_left, "time": self.time_left})
        return Budget(lim)

    def settle(self, budget: Budget) -> None:
        """Pay back what one host call used, however it ended (a call stopped by its ops or
        time limit used all it was given, so it leaves the bound spent)."""
        self.ops_left -= budget.ops_used
        self.time_left -= time.monotonic() - budget.started
