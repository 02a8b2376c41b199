"""The running budget of one evaluation: operations, time, memory, recursion, output.

Hot-path contract with the interpreter (kept tiny so a tick costs two bytecodes)::

    b.fuel -= 1
    if b.fuel < 0:
        b.refuel()          # accounts the spent chunk, checks ops/time/memory, may raise

    b.depth += 1
    if b.depth > b.max_depth:
        b.too_deep()        # raises RecursionLimit
    ...
    b.depth -= 1

``current()`` returns the budget of the evaluation running on this thread, for builtins and
module wrappers that are shared singletons and must charge whoever calls them.
"""

from __future__ import annotations

import time

from safe_eval.context import current_context
from safe_eval.errors import MemoryLimit, OpLimit, OutputLimit, RecursionLimit, TimeLimit
from safe_eval.limits.model import Limits

__all__ = ["Budget", "current"]

# Ops between two slow checks (clock, total ops, memory): large enough that the clock is
# read rarely, small enough that a time limit is noticed within a few milliseconds.
CHUNK = 4096


class Budget:
    __slots__ = (
        "limits",
        "fuel",
        "_granted",
        "spent",
        "depth",
        "max_depth",
        "started",
        "deadline",
        "out",
        "out_size",
        "echo",
        "exhausted",
    )

    def __init__(self, limits: Limits, *, echo: bool = False) -> None:
        self.limits = limits
        self.spent = 0
        self._granted = min(CHUNK, limits.ops)
        self.fuel = self._granted
        self.depth = 0
        self.max_depth = limits.recursion
        self.started = time.monotonic()
        self.deadline = self.started + limits.time
        self.out: list[str] = []
        self.out_size = 0
        self.echo = echo
        self.exhausted: BaseException | None = None

    # -- operations and time ---------------------------------------------------------------
    def refuel(self) -> None:
        """Account the chunk just spent; raise when ops or time ran out, else grant more."""
        if self.exhausted is not None:
            self.fuel = 0
            raise self._again()
        self.spent += self._granted - self.fuel
        if self.spent >= self.limits.ops:
            self._fail(OpLimit("too many operations", value=self.limits.ops, reached=self.spent))
        now = time.monotonic()
        if now > self.deadline:
            elapsed = round(now - self.started, 3)
            self._fail(TimeLimit("time limit exceeded", value=self.limits.time, reached=elapsed))
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

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            self._fail(TimeLimit("time limit exceeded", value=self.limits.time))

    # -- recursion -------------------------------------------------------------------------
    def too_deep(self) -> None:
        self.depth -= 1
        self._fail(RecursionLimit("maximum recursion depth exceeded", value=self.max_depth))

    # -- memory ----------------------------------------------------------------------------
    def check_alloc(self, nbytes: int) -> None:
        """Refuse an allocation of ``nbytes`` before it happens."""
        if nbytes > self.limits.memory:
            self._fail(
                MemoryLimit("allocation too large", value=self.limits.memory, reached=int(nbytes))
            )

    # -- output ----------------------------------------------------------------------------
    def write(self, text: str) -> None:
        self.out_size += len(text)
        if self.out_size > self.limits.output:
            self._fail(OutputLimit("too much output", value=self.limits.output, reached=self.out_size))
        self.out.append(text)
        if self.echo:
            print(text, end="")

    @property
    def stdout(self) -> str:
        return "".join(self.out)

    # -- failure ---------------------------------------------------------------------------
    def _fail(self, err: BaseException) -> None:
        """Raise ``err`` and stay exhausted: every later tick raises again, so guest
        ``finally`` blocks cannot keep running on a spent budget."""
        self.exhausted = err
        self.fuel = 0
        raise err

    def _again(self) -> BaseException:
        err = self.exhausted
        assert err is not None
        return type(err)(getattr(err, "detail", str(err)),
                         value=getattr(err, "value", None), reached=getattr(err, "reached", None))


def current() -> Budget | None:
    """The budget of the evaluation running on this thread, if any."""
    ctx = current_context()
    return ctx.budget if ctx is not None else None
