"""Where safe-eval spends its time: ``python -m benchmarks.profile [--cases fib,loop,objects]``.

Runs each case's safe-eval runner under cProfile (after one warm-up run) and prints the functions
with the most own time, paths shortened to the package. The benchmark table says how slow; this
says why.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys

from benchmarks.cases import make_cases
from benchmarks.contenders.base import Unsupported
from benchmarks.contenders.safe_eval_ import SafeEvalContender

DEFAULT = "fib,loop,objects"


def profile_case(name: str, top: int, sort: str, repeat: int, quick: bool) -> str:
    case = next((c for c in make_cases(quick) if c.name == name), None)
    if case is None:
        return f"## {name}: unknown case\n"
    try:
        # Limits effectively off: cProfile slows everything several times, past the 2 s default.
        run = SafeEvalContender().prepare(case, limits=False)
        run(0)
    except Unsupported as exc:
        return f"## {name}: {exc}\n"
    prof = cProfile.Profile()
    prof.enable()
    for i in range(1, repeat + 1):
        run(i)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats(sort).print_stats(top)
    text = out.getvalue().replace(sys.prefix, "<venv>")
    return f"## {name} ({repeat} run(s), sorted by {sort})\n{text}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", default=DEFAULT)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--sort", default="tottime", choices=["tottime", "cumulative", "ncalls"])
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    for name in args.cases.split(","):
        print(profile_case(name.strip(), args.top, args.sort, args.repeat, args.quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
