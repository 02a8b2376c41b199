"""Batch throughput: HumanEval's 164 reference solutions with their tests, repeated.

    python -m benchmarks.throughput [--repeat 20] [--workers N] [--no-ray] [--problems K]

Rows, each over the same ``164 x repeat`` jobs (default 3280), in jobs per second:

- ``one process``: ``Evaluator.run`` of each job in turn, in this process (the GIL: one core);
- ``local pool, 1 worker`` and ``local pool, N workers``: ``safe_eval.batch.evaluate`` on a
  ``LocalPool`` of warm ``subprocess`` workers (N: one per core by default);
- ``Ray local, N workers``: the same on ``RayExecutor`` over ``ray.init(num_cpus=N)``.

The scaling columns divide by the one-process row, and by the 1-worker pool (what each added
worker brings). Goal (issue 15): at least 1.8x over one process on 2 cores. Measured on a
shared machine, the ratios are only as good as the cores were free: run it on a quiet one.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path
from typing import Any

from safe_eval import Evaluator
from safe_eval.batch import Job, LocalPool, evaluate
from safe_eval.batch.executors import default_workers
from safe_eval.errors import SafeEvalError

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "humaneval" / "HumanEval.jsonl.gz"
# the slowest reference (HumanEval/75) takes seconds on a loaded machine: as in test_humaneval
LIMITS = {"time": 60.0}


def programs(count: int | None = None) -> list[str]:
    """The first ``count`` problems (all 164 when None), each a program that returns 'ok'."""
    problems = [json.loads(line) for line in gzip.open(DATA, "rt")][:count]
    return [p["prompt"] + p["canonical_solution"] + "\n" + p["test"] + f"\ncheck({p['entry_point']})\n'ok'\n"
            for p in problems]


def _check(outcomes: list[Any]) -> None:
    bad = [o for o in outcomes if isinstance(o, SafeEvalError) or o.value != "ok"]
    if bad:
        raise SystemExit(f"{len(bad)} jobs did not pass, e.g. {bad[0]!r}")


def one_process(jobs: list[str]) -> float:
    ev = Evaluator(limits=LIMITS)
    start = time.perf_counter()
    outcomes = []
    for code in jobs:
        try:
            outcomes.append(ev.run(code))
        except SafeEvalError as exc:
            outcomes.append(exc)
    seconds = time.perf_counter() - start
    _check(outcomes)
    return len(jobs) / seconds


def batch(jobs: list[str], executor: Any) -> float:
    evaluate(["1"] * 8, executor=executor, progress=False)  # the workers warm, as in steady use
    start = time.perf_counter()
    outcomes = evaluate([Job(code) for code in jobs], executor=executor, limits=LIMITS, progress=False)
    seconds = time.perf_counter() - start
    _check(list(outcomes))
    return len(jobs) / seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="copies of the 164 programs (default 20)")
    parser.add_argument("--workers", type=int, default=default_workers(), help="pool size (default: cores)")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray row")
    parser.add_argument("--problems", type=int, default=None, metavar="K",
                        help="only the first K problems (a smoke run; default all 164)")
    args = parser.parse_args(argv)
    jobs = programs(args.problems) * args.repeat
    rows: list[tuple[str, float]] = [("one process", one_process(jobs))]
    with LocalPool(1) as pool:
        rows.append(("local pool, 1 worker", batch(jobs, pool)))
    with LocalPool(args.workers) as pool:
        rows.append((f"local pool, {args.workers} workers", batch(jobs, pool)))
    if not args.no_ray:
        try:
            import ray
        except ImportError:
            rows.append(("Ray local (not installed)", 0.0))
        else:
            from safe_eval.batch import RayExecutor

            ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
            try:
                with RayExecutor(num_workers=args.workers) as executor:
                    rows.append((f"Ray local, {args.workers} workers", batch(jobs, executor)))
            finally:
                ray.shutdown()
    base, single = rows[0][1], rows[1][1]
    which = "HumanEval" if args.problems is None else f"HumanEval[:{args.problems}]"
    print(f"{len(jobs)} jobs ({which} x {args.repeat}), {default_workers()} cores\n")
    print("| executor | jobs/s | vs one process | vs 1-worker pool |")
    print("|---|---|---|---|")
    for name, rate in rows:
        if rate:
            print(f"| {name} | {rate:.1f} | {rate / base:.2f}x | {rate / single:.2f}x |")
        else:
            print(f"| {name} | - | - | - |")


if __name__ == "__main__":
    main()
