"""How far a batch is: a progress bar on a terminal or a callback, and the summary at the end.

The bar is one line on stderr redrawn in place (at most ten times a second). The project
depends on no terminal library, and a batch does not need one for a line of text.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, Union

from safe_eval._record import Frozen, Record
from safe_eval.errors import LimitExceeded

if TYPE_CHECKING:
    from safe_eval.batch.jobs import Outcome

__all__ = ["Progress", "ProgressLike", "Summary", "Tracker"]


class Progress(Frozen, Record):
    """What a progress callback is given after each finished job."""

    __slots__ = ("done", "total", "failed", "seconds")
    _fields = __slots__

    done: int
    total: int
    failed: int
    seconds: float

    def __init__(self, done: int, total: int, failed: int, seconds: float) -> None:
        object.__setattr__(self, "done", done)
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "failed", failed)
        object.__setattr__(self, "seconds", seconds)


# None: a bar when stderr is a terminal; True/False: a bar or nothing; else a callback
ProgressLike = Union[bool, None, Callable[[Progress], Any]]


class Summary(Frozen, Record):
    """A finished batch: jobs done, how many failed by error class, the limits hit (by limit
    name), wall seconds and throughput."""

    __slots__ = ("total", "done", "ok", "failed", "limits", "seconds")
    _fields = __slots__

    total: int
    done: int
    ok: int
    failed: dict[str, int]
    limits: dict[str, int]
    seconds: float

    def __init__(self, total: int, done: int, ok: int, failed: dict[str, int], limits: dict[str, int],
                 seconds: float) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "total", total)
        setattr_(self, "done", done)
        setattr_(self, "ok", ok)
        setattr_(self, "failed", dict(failed))
        setattr_(self, "limits", dict(limits))
        setattr_(self, "seconds", seconds)

    @property
    def jobs_per_second(self) -> float:
        return self.done / self.seconds if self.seconds > 0 else 0.0

    def render(self) -> str:
        lines = [f"{self.done}/{self.total} jobs in {self.seconds:.2f}s ({self.jobs_per_second:.1f} jobs/s): "
                 f"{self.ok} ok, {self.done - self.ok} failed"]
        lines += [f"  {name}: {count}" for name, count in sorted(self.failed.items())]
        if self.limits:
            lines.append("  limits hit: " + ", ".join(f"{n} {c}" for n, c in sorted(self.limits.items())))
        return "\n".join(lines)


class Tracker:
    """Counts outcomes as they arrive and reports them to the bar or the callback."""

    def __init__(self, total: int, progress: ProgressLike, *, stream: IO[str] | None = None) -> None:
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.callback: Callable[[Progress], Any] | None = None
        self.bar = False
        if callable(progress):
            self.callback = progress
        elif progress is None:
            self.bar = _is_terminal(self.stream)
        else:
            self.bar = bool(progress)
        self.done = self.ok = 0
        self.failed: Counter[str] = Counter()
        self.limits: Counter[str] = Counter()
        self.start = time.perf_counter()
        self._drawn = 0.0

    def update(self, outcome: Outcome) -> None:
        self.done += 1
        if isinstance(outcome, BaseException):
            self.failed[type(outcome).__name__] += 1
            if isinstance(outcome, LimitExceeded):
                self.limits[outcome.limit_name] += 1
        else:
            self.ok += 1
        seconds = time.perf_counter() - self.start
        if self.callback is not None:
            self.callback(Progress(self.done, self.total, self.done - self.ok, seconds))
        elif self.bar and (seconds - self._drawn >= 0.1 or self.done == self.total):
            self._drawn = seconds
            self._draw(seconds)

    def _draw(self, seconds: float) -> None:
        width = 30
        filled = width * self.done // self.total if self.total else width
        rate = self.done / seconds if seconds > 0 else 0.0
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                          f"{self.done - self.ok} failed {rate:.1f} jobs/s")
        self.stream.flush()

    def summary(self) -> Summary:
        if self.bar and self.done:
            self.stream.write("\n")
            self.stream.flush()
        return Summary(self.total, self.done, self.ok, dict(self.failed), dict(self.limits),
                       time.perf_counter() - self.start)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
