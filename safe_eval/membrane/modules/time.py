"""Curated ``time``: clocks, formatting and a budgeted ``sleep``.

``sleep(s)`` never sleeps past the evaluation's deadline: when ``s`` would cross it, it
raises ``TimeLimit`` at once (the evaluation would have been stopped there anyway).
"""

from __future__ import annotations

import time
from typing import Any

from safe_eval.errors import TimeLimit
from safe_eval.limits.budget import current
from safe_eval.limits.indices import as_index
from safe_eval.membrane.modules._util import pick

NAMES = ["time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
         "process_time", "process_time_ns", "gmtime", "localtime", "mktime", "strftime", "strptime",
         "asctime", "ctime", "struct_time"]


def _seconds(secs: Any) -> float | int:
    """``secs`` as the plain number C ``time.sleep`` reads (a float's stored value, else
    ``__index__``; CPython's TypeError otherwise): the deadline check below and the sleep see
    that one number, never a guest subclass's arithmetic or comparison overrides (a float
    subclass whose ``__radd__`` returned 0.0 slept past the deadline)."""
    if isinstance(secs, float):
        return float.__float__(secs)
    return as_index(secs)


def sleep(secs: Any, /) -> None:
    secs = _seconds(secs)
    if secs < 0:
        raise ValueError("sleep length must be non-negative")
    budget = current()
    if budget is not None:
        now = time.monotonic()
        if now + secs > budget.deadline:
            # raised by the budget, which stays exhausted like every other limit
            budget._fail(TimeLimit("time limit exceeded (time.sleep would pass the deadline)",
                                   value=budget.limits.time, reached=round(now - budget.started + secs, 3)))
    time.sleep(secs)


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    allow_all([time.struct_time])
    attrs = pick(time, [n for n in NAMES if hasattr(time, n)])
    attrs["sleep"] = sleep
    return attrs
