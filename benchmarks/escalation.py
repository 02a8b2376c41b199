"""Escalation rows: what each OS sandbox backend costs.

    python -m benchmarks.escalation [--rounds N] [--backends subprocess,bwrap,container]

Per backend (medians over ``rounds``):

- ``cold``: a worker from nothing to its first answer (process start, imports, lockdown, the
  ``x + 1`` request): what a call pays without the warm pool;
- ``warm x + 1``: one request/answer on a session's worker (the pool's steady state);
- ``fib(20)``: a recursive function, interpreted inside the worker;
- ``tool call``: a guest call of a host tool (worker -> host -> worker) inside one run,
  minus the run without it;
- ``safe_callable``: one call of ``safe_callable(src, sandbox=NAME)`` (arguments and result
  crossing as plain data);
- for bwrap, the cold start without the zygote (a bwrap + Python start + imports per worker)
  and its ratio to the zygote's fork;
- for the container backend, a ``docker run`` per call (what a per-call container costs).

Goals (issue 11): warm round trip under 1 ms for subprocess and bwrap; bwrap cold start under
60 ms.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable

from safe_eval.sandbox.selection import make_backend

FIB = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nfib(20)"
TOOL = "t = 0\nfor i in range(10):\n    t += tool(i)\nt"
NO_TOOL = "t = 0\nfor i in range(10):\n    t += i\nt"


def _median_ms(fn: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def cold_start(name: str, rounds: int, **options: object) -> float:
    with make_backend(name, pool_size=0, **options) as cold_backend:
        def cold() -> None:
            with cold_backend.session(snapshot=False) as s:
                assert s.run("x + 1", {"x": 41}).value == 42

        cold()
        return _median_ms(cold, max(3, rounds // 10))


def measure(name: str, rounds: int) -> dict[str, float]:
    row: dict[str, float] = {}
    with make_backend(name, pool_size=0) as cold_backend:
        def cold() -> None:
            with cold_backend.session(snapshot=False) as s:
                assert s.run("x + 1", {"x": 41}).value == 42

        cold()
        row["cold"] = _median_ms(cold, max(3, rounds // 10))
    with make_backend(name, pool_size=0) as backend, backend.session(snapshot=False) as s:
        s.run("x + 1", {"x": 1})
        row["warm x + 1"] = _median_ms(lambda: s.run("x + 1", {"x": 1}), rounds)
        row["fib(20)"] = _median_ms(lambda: s.run(FIB), max(3, rounds // 20))
        env = {"tool": lambda i: i}
        with_tool = _median_ms(lambda: s.run(TOOL, env), rounds)
        without = _median_ms(lambda: s.run(NO_TOOL, {}), rounds)
        row["tool call"] = max(0.0, (with_tool - without) / 10)
    from safe_eval import safe_callable

    add = safe_callable("def add(a, b):\n    return a + b", sandbox=name)
    try:
        add(1, 2)
        row["safe_callable"] = _median_ms(lambda: add(1, 2), rounds)
    finally:
        add.close()  # type: ignore[attr-defined]
    return row


def docker_run_per_call(rounds: int) -> float | None:
    cli = shutil.which("docker")
    if cli is None:
        return None
    from safe_eval.sandbox.container import IMAGE

    argv = [cli, "run", "--rm", "--network", "none", "--read-only", IMAGE, "/usr/bin/python3", "-I", "-S",
            "-c", "print(41 + 1)"]
    if subprocess.run(argv, capture_output=True).returncode != 0:
        return None
    return _median_ms(lambda: subprocess.run(argv, capture_output=True, check=True), max(3, rounds // 10))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.escalation")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--backends", default="subprocess,bwrap,container")
    args = parser.parse_args(argv)
    columns = ["cold", "warm x + 1", "fib(20)", "tool call", "safe_callable"]
    print("| backend | " + " | ".join(f"{c} (ms)" for c in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name in args.backends.split(","):
        try:
            row = measure(name, args.rounds)
        except Exception as exc:  # a backend not available here: say why, measure the rest
            print(f"| {name} | " + f"not measured: {str(exc).splitlines()[0]} |")
            continue
        print(f"| {name} | " + " | ".join(f"{row[c]:.3f}" for c in columns) + " |")
        if name == "bwrap":
            before = cold_start(name, args.rounds, zygote=False)
            print(f"| bwrap cold, no zygote | {before:.3f} | | | | |")
            print(f"| bwrap cold: no zygote / zygote | {before / row['cold']:.1f}x | | | | |")
        if name.startswith("container"):
            per_call = docker_run_per_call(args.rounds)
            if per_call is not None:
                print(f"| docker run per call | {per_call:.1f} | | | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
