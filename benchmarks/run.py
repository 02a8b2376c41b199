"""The benchmark command: ``python -m benchmarks`` or ``python benchmarks/run.py``.

Runs every case for every contender in this one process (``cold`` and the memory probes spawn
fresh processes by design), prints a markdown table of medians and ratios to CPython, then a table
of peak memory. ``--json PATH`` saves everything measured; ``--results PATH`` writes the paragraph
for the README (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``benchmarks`` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import report
from benchmarks.cases import Case, make_cases
from benchmarks.cells import Cell
from benchmarks.coldstart import measure_cold
from benchmarks.contenders import all_contenders
from benchmarks.measure import Settings, measure_case, measure_limits
from benchmarks.memory import measure_memory
from benchmarks.timing import loadavg, wait_for_quiet


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes, one round (the smoke test)")
    p.add_argument("--cases", help="comma-separated case names (default: all)")
    p.add_argument("--contenders", help="comma-separated contender names (default: all)")
    p.add_argument("--rounds", type=int, help="interleaved rounds per case (default 5, quick 1)")
    p.add_argument("--json", metavar="PATH", help="also write every measurement as JSON")
    p.add_argument("--results", metavar="PATH", help="write the README paragraph (markdown)")
    p.add_argument("--memory", action=argparse.BooleanOptionalAction, default=None,
                   help="measure peak RSS per case (default: on, off with --quick)")
    p.add_argument("--max-wait", type=float, default=None,
                   help="total seconds the run may spend waiting for a quiet machine, at most 5 s "
                        "before any one case (default 30, quick 0)")
    return p.parse_args(argv)


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, " \
           f"Python {platform.python_version()}"


def select(cases: list[Case], wanted: str | None) -> list[Case]:
    if not wanted:
        return cases
    names = [w.strip() for w in wanted.split(",") if w.strip()]
    unknown = sorted(set(names) - {c.name for c in cases})
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(c.name for c in cases)}")
    return [c for c in cases if c.name in names]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    quick = args.quick
    rounds = args.rounds or (1 if quick else 5)
    settings = Settings(rounds=rounds, target=0.002 if quick else 0.05, budget=1.0 if quick else 4.5,
                        quick=quick)
    wait_left = args.max_wait if args.max_wait is not None else (0.0 if quick else 30.0)
    cases = select(make_cases(quick), args.cases)
    contenders = all_contenders()
    if args.contenders:
        keep = {n.strip() for n in args.contenders.split(",")}
        contenders = [c for c in contenders if c.name in keep or c.name == "CPython"]
    names = [c.name for c in contenders]
    unavailable = {c.name: c.unavailable() for c in contenders}

    started = time.monotonic()
    load_start = loadavg()
    results: dict[str, dict[str, Cell]] = {}
    loads: dict[str, float] = {}
    try:
        for case in cases:
            loads[case.name], waited = wait_for_quiet(min(wait_left, 5.0))
            wait_left = max(0.0, wait_left - waited)
            print(f"[{time.monotonic() - started:6.1f}s] {case.name} (load {loads[case.name]:.2f})",
                  file=sys.stderr, flush=True)
            if case.kind == "cold":
                results[case.name] = measure_cold(contenders, unavailable, rounds)
            elif case.kind == "limits":
                results[case.name] = measure_limits(case, contenders, unavailable, settings)
            else:
                results[case.name] = measure_case(case, contenders, unavailable, settings)
    finally:
        for c in contenders:
            c.close()
    do_memory = args.memory if args.memory is not None else not quick
    memory: dict[str, dict[str, dict[str, Any]]] = {}
    if do_memory:
        print(f"[{time.monotonic() - started:6.1f}s] memory probes", file=sys.stderr, flush=True)
        memory = measure_memory(cases, names, quick)
    elapsed = time.monotonic() - started

    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = (f"safe-eval benchmarks, {when}, on {machine()}; {rounds} interleaved round(s) per case, "
              f"load average {load_start:.2f} at start, up to {max(loads.values(), default=load_start):.2f} "
              f"before a case, run took {elapsed:.0f} s"
              + (" (--quick sizes: not comparable)" if quick else ""))
    table = report.timing_table(cases, results, names, rounds)
    out = [header, "", "Median time per evaluation · median of per-round ratios to CPython.", "", table]
    if memory:
        out += ["", "Peak RSS rise during one evaluation (process peak in MiB):", "",
                report.memory_table(memory, names)]
    out += ["", "Cases:", report.case_list(cases), "", "Contenders:",
            report.config_list({c.name: c.config for c in contenders})]
    text = "\n".join(out)
    print(text)

    if args.json:
        data = {
            "date": when, "machine": machine(), "rounds": rounds, "quick": quick,
            "loadavg_start": load_start, "loadavg_per_case": loads, "elapsed_s": elapsed,
            "contenders": {c.name: {"config": c.config, "unavailable": unavailable[c.name]}
                           for c in contenders},
            "cases": [{"name": c.name, "kind": c.kind, "description": c.description, "goal": c.goal,
                       "cells": {n: cell.to_dict() for n, cell in results[c.name].items()}}
                      for c in cases],
            "memory": memory,
        }
        with open(args.json, "w") as fh:
            json.dump(data, fh, indent=2, default=repr)
    if args.results:
        with open(args.results, "w") as fh:
            fh.write(results_markdown(text))
    return 0


def results_markdown(text: str) -> str:
    return (
        "## Performance\n\n"
        "Reproduce with `pip install -e '.[bench]' && python -m benchmarks` (one command, under five "
        "minutes on 2 cores; everything is timed in one process except the `cold` row and the memory "
        "probes, which need fresh processes; `--quick` for a smoke run, `--cases a,b`, `--rounds N`, "
        "`--json PATH`, `--results PATH` to rewrite this file). Where the time goes: "
        "`python -m benchmarks.profile` and benchmarks/HOTSPOTS.md. Latest run:\n\n" + text + "\n"
    )


if __name__ == "__main__":
    raise SystemExit(main())
