"""The ``cold`` case: a fresh process imports a contender and evaluates ``x + 1`` once.

Each sample is one ``python -c`` process; a bare ``python -c pass`` is timed in the same round and
subtracted, so the cell is what the contender adds to a process start. Rounds interleave all
contenders and the baseline.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from benchmarks.cells import Cell
from benchmarks.contenders.base import Contender
from benchmarks.timing import median

BARE = "pass"


def _spawn(snippet: str, timeout: float = 60.0) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"exit {proc.returncode}: {last[:80]}")
    return elapsed, proc.stdout


def measure_cold(contenders: list[Contender], unavailable: dict[str, str | None], rounds: int) -> dict[str, Cell]:
    cells: dict[str, Cell] = {}
    active = [c for c in contenders if not unavailable[c.name]]
    for c in contenders:
        reason = unavailable[c.name]
        if reason:
            cells[c.name] = Cell(reason=reason)
    _spawn(BARE)  # warm the OS caches for the interpreter itself
    for c in list(active):  # warm-up: also proves the snippet prints the right value
        try:
            _, out = _spawn(c.cold)
        except Exception as exc:
            cells[c.name] = Cell(reason=f"error: {exc}")
            active.remove(c)
            continue
        if out.strip().splitlines()[-1:] != ["42"]:
            cells[c.name] = Cell(reason=f"wrong result: {out.strip()[-40:]!r}")
            active.remove(c)
    deltas: dict[str, list[float]] = {c.name: [] for c in active}
    for r in range(rounds):
        order = active[r % len(active):] + active[: r % len(active)] if active else []
        bare, _ = _spawn(BARE)
        for c in order:
            elapsed, _ = _spawn(c.cold)
            deltas[c.name].append(max(0.0, elapsed - bare))
    for c in active:
        cells[c.name] = Cell(seconds=median(deltas[c.name]), samples=deltas[c.name],
                             rounds=len(deltas[c.name]))
    return cells
