"""Curated ``bisect``: binary search and insertion (C, no allocation beyond one slot)."""

from __future__ import annotations

import bisect
from typing import Any

from safe_eval.membrane.modules._util import pick


def build() -> dict[str, Any]:
    return pick(bisect, ["bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right"])
