"""``check_solutions``: completions run against their problem's tests, for pass@k.

    checks = check_solutions(prompts, samples, tests)    # samples[i]: the completions of problem i
    checks[i][j].passed, checks[i][j].error              # the j-th sample of problem i
    pass_at_k(checks, k=1)

Each program is ``problem + completion + "\\n" + test``, run as one batch job: a sample passes
when the program runs to its end (a failing ``assert`` is a ``GuestError``, a runaway
completion a ``LimitExceeded``, a forbidden import a ``PolicyViolation``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from safe_eval._record import Frozen, Record
from safe_eval.batch.jobs import Job
from safe_eval.batch.run import evaluate
from safe_eval.errors import SafeEvalError

__all__ = ["Check", "check_solutions", "pass_at_k"]


class Check(Frozen, Record):
    """One completion checked: whether it passed, and the error when it did not."""

    __slots__ = ("passed", "error")
    _fields = __slots__

    passed: bool
    error: SafeEvalError | None

    def __init__(self, passed: bool, error: SafeEvalError | None = None) -> None:
        object.__setattr__(self, "passed", passed)
        object.__setattr__(self, "error", error)


def check_solutions(problems: Sequence[str], completions: Sequence[str | Sequence[str]],
                    tests: Sequence[str], **options: Any) -> list[list[Check]]:
    """For each problem, a ``Check`` per completion (a single string is one completion).
    ``options`` are ``evaluate``'s (``policy``, ``limits``, ``executor``, ``progress`` ...)."""
    if not len(problems) == len(completions) == len(tests):
        raise ValueError(f"problems, completions and tests differ in length "
                         f"({len(problems)}, {len(completions)}, {len(tests)})")
    jobs: list[Job] = []
    shape: list[int] = []
    for i, (problem, samples, test) in enumerate(zip(problems, completions, tests, strict=True)):
        samples = [samples] if isinstance(samples, str) else list(samples)
        shape.append(len(samples))
        for j, sample in enumerate(samples):
            jobs.append(Job(f"{problem}{sample}\n{test}", id=(i, j)))
    outcomes = iter(evaluate(jobs, **options))
    checks: list[list[Check]] = []
    for count in shape:
        row = []
        for _ in range(count):
            outcome = next(outcomes)
            row.append(Check(False, outcome) if isinstance(outcome, SafeEvalError) else Check(True))
        checks.append(row)
    return checks


def pass_at_k(checks: Sequence[Sequence[Check]], k: int) -> float:
    """The unbiased pass@k estimate (Chen et al., 2021) averaged over problems: for a problem
    with n samples of which c passed, 1 - C(n - c, k) / C(n, k)."""
    if not checks:
        raise ValueError("pass@k of no problems")
    total = 0.0
    for row in checks:
        n, c = len(row), sum(check.passed for check in row)
        if n < k:
            raise ValueError(f"pass@{k} needs at least {k} samples per problem (one has {n})")
        total += 1.0 if n - c < k else 1.0 - math.comb(n - c, k) / math.comb(n, k)
    return total / len(checks)
