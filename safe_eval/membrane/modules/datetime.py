"""Curated ``datetime``: the C classes date/time/datetime/timedelta/timezone (plain data)."""

from __future__ import annotations

import datetime
from typing import Any

from safe_eval.membrane.modules._util import pick


def build() -> dict[str, Any]:
    return pick(datetime, ["date", "time", "datetime", "timedelta", "timezone", "tzinfo",
                           "MINYEAR", "MAXYEAR"])
