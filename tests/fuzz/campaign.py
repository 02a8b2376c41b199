"""Run many generated programs; collect the divergences by seed."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .grammar import generate
from .oracle import compare


@dataclass
class Report:
    programs: int = 0
    errors: Counter[str] = field(default_factory=Counter)  # CPython's outcome kinds
    divergences: list[tuple[int, Any]] = field(default_factory=list)

    def summary(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in self.errors.most_common(6))
        return (f"{self.programs} programs, {len(self.divergences)} divergences "
                f"(outcomes: {kinds})")


def run(first_seed: int, *, count: int | None = None, deadline: float | None = None,
        out: Path | None = None) -> Report:
    report = Report()
    seed = first_seed
    while (count is None or report.programs < count) and (deadline is None or time.monotonic() < deadline):
        source = generate(seed)
        try:
            compile(source, "<fuzz>", "exec")
        except SyntaxError as e:  # a bug of the grammar, not a divergence: say so loudly
            raise AssertionError(f"seed {seed} generated invalid Python: {e}\n{source}") from None
        diff = compare(source)
        report.programs += 1
        if diff is None:
            from .oracle import cpython

            exc = cpython(source)[2]
            report.errors[exc[0] if exc else "ok"] += 1
        else:
            report.divergences.append((seed, diff))
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                (out / f"seed_{seed}.py").write_text(source)
        seed += 1
    return report
