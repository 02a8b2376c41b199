"""``python -m tests.fuzz --minutes N``: a fuzz campaign; prints the count and every divergence."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# the helpers shared with the test suite live in tests/ (on the path under pytest too)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from .campaign import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to run")
    parser.add_argument("--seed", type=int, default=int(time.time()), help="first seed (programs use seed, seed+1, ...)")
    parser.add_argument("--out", type=Path, default=None, help="write each diverging program here")
    args = parser.parse_args(argv)
    report = run(args.seed, deadline=time.monotonic() + 60 * args.minutes, out=args.out)
    print(report.summary())
    for seed, (expected, got) in report.divergences[:20]:
        print(f"seed {seed}: CPython {expected!r}\n          safe-eval {got!r}")
    return 1 if report.divergences else 0


if __name__ == "__main__":
    sys.exit(main())
