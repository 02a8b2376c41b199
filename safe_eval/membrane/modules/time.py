"""Curated ``time``: clocks, formatting and a budgeted ``sleep``.

``sleep(s)`` never sleeps past the evaluation's deadline: when ``s`` would cross it, it
raises ``TimeLimit`` at once (the evaluation would have been stopped there anyway).
"""

from __future__ import annotations

import time
from typing import Any

from safe_eval.errors import TimeLimit
from safe_eval.limits.budget import current
from safe_eval.membrane.modules._util import pick

NAMES = ["time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
         "process_time", "process_time_ns", "gmtime", "localtime", "mktime", "strftime", "strptime",
         "asctime", "ctime", "struct_time"]


def sleep(secs: Any, /) -> None:
    if not isinstance(secs, (int, float)) or isinstance(secs, bool):
        raise TypeError(f"'{type(secs).__name__}' object cannot be interpreted as a number")
    if secs < 0:
        raise ValueError("sleep length must be non-negative")
    budget = current()
    if budget is not None:
        now = time.monotonic()
        if now + secs > budget.deadline:
            limit = budget.limits.time
            err = TimeLimit("time limit exceeded (time.sleep would pass the deadline)",
                            value=limit, reached=round(now - budget.started + secs, 3))
            fail = getattr(budget, "_fail", None)
            if fail is not None:
                fail(err)  # stays exhausted, like every other limit
            raise err
    time.sleep(secs)


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    allow_all([time.struct_time])
    attrs = pick(time, [n for n in NAMES if hasattr(time, n)])
    attrs["sleep"] = sleep
    return attrs
