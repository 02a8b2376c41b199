"""How a cell is timed: wait for a quiet machine, warm up, calibrate a batch size, then sample.

Every sample runs a batch of ``n`` evaluations back to back and divides (like ``timeit``, with the
cyclic GC collected before and paused during the batch), so that µs-scale cases are not measured
at timer resolution. The harness interleaves contenders within each round so that drift of the
machine hits them all alike.
"""

from __future__ import annotations

import gc
import math
import os
import time
from collections.abc import Callable
from typing import Any


def loadavg() -> float:
    """The 1-minute load average (0.0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def wait_for_quiet(max_wait: float, threshold: float | None = None, poll: float = 1.0) -> tuple[float, float]:
    """Wait (at most ``max_wait`` s) until the load average is below ``threshold`` (default: half
    the cores). Returns (load average at the end, seconds waited): the report prints both, so a
    busy machine is visible next to the numbers it produced."""
    if threshold is None:
        threshold = max(0.5, (os.cpu_count() or 1) / 2)
    start = time.monotonic()
    load = loadavg()
    while load >= threshold and time.monotonic() - start < max_wait:
        time.sleep(poll)
        load = loadavg()
    return load, time.monotonic() - start


class Counter:
    """Hands out iteration numbers, so no two evaluations of a cache-defeating case share a text."""

    def __init__(self) -> None:
        self.i = 0

    def take(self, n: int) -> int:
        start = self.i
        self.i += n
        return start


def time_batch(run: Callable[[int], Any], n: int, counter: Counter) -> float:
    """Seconds per evaluation over a batch of ``n``."""
    start_i = counter.take(n)
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for i in range(start_i, start_i + n):
            run(i)
        elapsed = time.perf_counter() - t0
    finally:
        gc.enable()
    return elapsed / n


def batch_size(single: float, target: float, cap: int = 1_000_000) -> int:
    """How many evaluations make a sample of about ``target`` seconds."""
    if single <= 0:
        return cap
    return max(1, min(cap, math.ceil(target / single)))


def median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
