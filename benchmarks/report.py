"""Rendering: the markdown tables (timing, then memory), the contenders' configurations, and JSON."""

from __future__ import annotations

from typing import Any

from benchmarks.cases import Case
from benchmarks.cells import Cell, fmt_ratio, fmt_seconds

SAFE_EVAL = "safe-eval"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def goal_status(case: Case, cell: Cell | None) -> str:
    """The goal, and whether safe-eval meets it in this run."""
    if cell is None or cell.seconds is None:
        return case.goal
    if case.max_ratio is not None and cell.ratio is not None:
        verdict = "met" if cell.ratio <= case.max_ratio else "missed"
        return f"{case.goal}: {verdict} ({fmt_ratio(cell.ratio)})"
    if case.max_seconds is not None:
        verdict = "met" if cell.seconds <= case.max_seconds else "missed"
        return f"{case.goal}: {verdict} ({fmt_seconds(cell.seconds)})"
    return case.goal


def timing_table(cases: list[Case], results: dict[str, dict[str, Cell]], names: list[str],
                 rounds: int) -> str:
    head = "| case | " + " | ".join(names) + " | goal (safe-eval) |"
    rule = "|" + "---|" * (len(names) + 2)
    rows = [head, rule]
    for case in cases:
        cells = results[case.name]
        row = [f"`{case.name}`"] + [_md(cells[n].text(rounds)) if n in cells else "" for n in names]
        row.append(_md(goal_status(case, cells.get(SAFE_EVAL))))
        rows.append("| " + " | ".join(row) + " |")
    return "\n".join(rows)


def memory_table(memory: dict[str, dict[str, dict[str, Any]]], names: list[str]) -> str:
    rows = ["| case | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1)]
    for case, per in memory.items():
        row = [f"`{case}`"]
        for n in names:
            r = per.get(n, {})
            if "rise_kib" in r:
                row.append(f"+{r['rise_kib'] / 1024:.1f} MiB (peak {r['peak_kib'] / 1024:.0f})")
            else:
                row.append(_md(str(r.get("reason", ""))))
        rows.append("| " + " | ".join(row) + " |")
    return "\n".join(rows)


def case_list(cases: list[Case]) -> str:
    return "\n".join(f"- `{c.name}`: {c.description}" for c in cases)


def config_list(configs: dict[str, str]) -> str:
    return "\n".join(f"- **{name}**: {text}" for name, text in configs.items())
