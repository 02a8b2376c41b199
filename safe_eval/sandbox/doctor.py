"""``safe-eval sandbox doctor``: which backends work on this machine, and why not.

A backend counts as usable only when a worker really starts and answers ``1 + 1``; the report
lists the isolation layers that worker said were in force, or the reason with the command
that installs what is missing.
"""

from __future__ import annotations

from typing import Any

from safe_eval.errors import SafeEvalError

__all__ = ["NAMES", "diagnose"]

NAMES = ("subprocess", "bwrap", "bwrap+cpython", "container", "container:runsc")
# the ones that are an OS sandbox in the sense of the exit status (not just another process)
OS_SANDBOXES = frozenset({"bwrap", "bwrap+cpython", "container", "container:runsc"})


def diagnose(names: tuple[str, ...] = NAMES) -> list[dict[str, Any]]:
    """One row per backend: name, usable, layers (when usable) or why (when not)."""
    from safe_eval.sandbox.selection import make_backend

    rows = []
    for name in names:
        row: dict[str, Any] = {"name": name, "usable": False}
        try:
            with make_backend(name, pool_size=0) as backend, backend.session(snapshot=False) as s:
                value = s.run("1 + 1").value
                proc = s._proc
                row["layers"] = dict(proc.layers) if proc is not None else {}
                row["isolation"] = backend.isolation
                row["usable"] = value == 2
                if not row["usable"]:
                    row["why"] = f"the worker answered {value!r} to 1 + 1"
        except SafeEvalError as exc:
            row["why"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        rows.append(row)
    return rows


def render(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        if row["usable"]:
            layers = ", ".join(k for k, v in sorted(row.get("layers", {}).items()) if v) or "none"
            lines.append(f"  ok    {row['name']:<16} {row.get('isolation', '')}; in the worker: {layers}")
        else:
            lines.append(f"  no    {row['name']:<16} {row.get('why', '')}")
    return "\n".join(lines)
