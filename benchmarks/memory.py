"""Peak memory: each (case, contender) runs once in its own process, which reports how far its
resident set rose above where it stood after set-up (and, for Monty, its worker's too).

Linux lets a process reset its own high-water mark (``/proc/self/clear_refs``, value 5), so the
peak is that of the evaluation alone, not of importing the contender. Probes run two at a time:
memory is not timing, so parallel probes do not disturb each other's result.

``python -m benchmarks.memory CASE CONTENDER [--quick]`` is the probe; it prints one JSON line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from benchmarks.cases import Case
from benchmarks.cells import short_error

MiB = 1024 * 1024


def _status_kib(pid: int | str, field: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak(pid: int | str) -> bool:
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def probe(case_name: str, contender_name: str, quick: bool) -> dict[str, Any]:
    """Run in the probe process: set up, reset the peak, evaluate once, report."""
    from benchmarks.cases import make_cases
    from benchmarks.contenders import all_contenders
    from benchmarks.contenders.base import Unsupported

    case = next(c for c in make_cases(quick) if c.name == case_name)
    contender = next(c for c in all_contenders() if c.name == contender_name)
    reason = contender.unavailable()
    if reason:
        return {"reason": reason}
    try:
        run = contender.prepare(case)
    except Unsupported as exc:
        return {"reason": str(exc)}
    worker = getattr(contender, "worker_pid", lambda: None)()
    if not _reset_peak("self"):
        return {"reason": "n/a: cannot reset the RSS peak (/proc/self/clear_refs)"}
    if worker:
        _reset_peak(worker)
    before = _status_kib("self", "VmRSS") or 0
    worker_before = _status_kib(worker, "VmRSS") or 0 if worker else 0
    try:
        run(0)
    except Exception as exc:
        return {"reason": f"error: {short_error(exc)}"}
    peak = _status_kib("self", "VmHWM") or 0
    out = {"rise_kib": max(0, peak - before), "peak_kib": peak}
    if worker:
        worker_peak = _status_kib(worker, "VmHWM") or 0
        out["rise_kib"] += max(0, worker_peak - worker_before)
        out["peak_kib"] += worker_peak
    contender.close()
    return out


def _run_probe(case: Case, contender: str, quick: bool) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.memory", case.name, contender] + (["--quick"] if quick else [])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=root,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"reason": "error: probe timed out"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"reason": f"error: probe exit {proc.returncode}: {last[:80]}"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def measure_memory(cases: list[Case], contenders: list[str], quick: bool,
                   jobs: int = 2) -> dict[str, dict[str, dict[str, Any]]]:
    """{case: {contender: {"rise_kib", "peak_kib"} or {"reason"}}} for the in-process cases."""
    todo = [(case, name) for case in cases if case.kind == "program" for name in contenders]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda t: _run_probe(t[0], t[1], quick), todo))
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for (case, name), result in zip(todo, results, strict=True):
        table.setdefault(case.name, {})[name] = result
    return table


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    args = [a for a in argv if not a.startswith("--")]
    print(json.dumps(probe(args[0], args[1], quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
