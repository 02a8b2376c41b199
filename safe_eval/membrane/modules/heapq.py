"""Curated ``heapq``: the public heap functions (they only move existing references)."""

from __future__ import annotations

import heapq
from typing import Any

from safe_eval.membrane.modules._util import pick


def build() -> dict[str, Any]:
    return pick(heapq, ["heappush", "heappop", "heapify", "heapreplace", "heappushpop",
                        "merge", "nlargest", "nsmallest"])
