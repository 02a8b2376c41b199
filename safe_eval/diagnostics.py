"""Diagnostics: one rule broken at one place, written for a person and for a model.

A ``Diagnostic`` carries a rule code (stage letter + digits: ``P`` parse, ``S`` scrub,
``R`` restrict, ``T`` tool/policy, ``E`` runtime), a kebab-case rule name, a message,
a 1-based span, a hint saying what to do instead, and a severity: an ``"error"`` refuses the
code; a ``"warning"`` (an unknown name, which CPython only reports when the line runs) is
reported by ``check`` and does not stop ``safe_eval`` from running the code.
"""

from __future__ import annotations

import ast
from typing import Any, Literal

from safe_eval._record import Frozen, Record

__all__ = ["Diagnostic", "Severity", "Stage", "span_of"]

Stage = Literal["parse", "scrub", "restrict", "policy", "runtime"]
Severity = Literal["error", "warning"]


class Diagnostic(Frozen, Record):
    """One violation. Lines and columns are 1-based; ``end_col`` is exclusive. A frozen,
    hashable value (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("code", "name", "message", "line", "col", "end_line", "end_col", "stage", "hint", "severity")
    _fields = __slots__
    __match_args__ = ("code", "name", "message", "line", "col", "end_line", "end_col", "stage", "hint",
                      "severity")

    code: str
    name: str
    message: str
    line: int
    col: int
    end_line: int
    end_col: int
    stage: Stage
    hint: str
    severity: Severity

    def __init__(self, code: str, name: str, message: str, line: int, col: int, end_line: int,
                 end_col: int, stage: Stage, hint: str = "", severity: Severity = "error") -> None:
        setattr_ = object.__setattr__
        setattr_(self, "code", code)
        setattr_(self, "name", name)
        setattr_(self, "message", message)
        setattr_(self, "line", line)
        setattr_(self, "col", col)
        setattr_(self, "end_line", end_line)
        setattr_(self, "end_col", end_col)
        setattr_(self, "stage", stage)
        setattr_(self, "hint", hint)
        setattr_(self, "severity", severity)

    def placed(self, line: int, col: int, end_col: int | None = None) -> Diagnostic:
        """This diagnostic at another place on one line (a run-time denial, once the
        interpreter knows where it happened)."""
        return Diagnostic(self.code, self.name, self.message, line, col, line,
                          max(end_col or 0, col + 1), self.stage, self.hint, self.severity)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._fields}

    def render(self, source: str = "", filename: str = "<safe-eval>") -> str:
        """``file:line:col: CODE [name] message``, the source line, a caret span and the hint."""
        level = "warning: " if self.severity == "warning" else ""
        out = [f"{filename}:{self.line}:{self.col}: {level}{self.code} [{self.name}] {self.message}"]
        lines = source.splitlines()
        if 1 <= self.line <= len(lines):
            text = lines[self.line - 1].expandtabs(1)
            if len(text) > 200:
                text = text[:200] + "..."
            start = min(max(self.col - 1, 0), len(text))
            end = self.end_col - 1 if self.end_line == self.line else len(text)
            width = max(1, min(end, len(text)) - start)
            out.append(f"    {text}")
            out.append("    " + " " * start + "^" * width)
        if self.hint:
            out.append(f"    hint: {self.hint}")
        return "\n".join(out)


def span_of(node: ast.AST | None) -> tuple[int, int, int, int]:
    """(line, col, end_line, end_col), 1-based, from an AST node (0-based columns)."""
    line = getattr(node, "lineno", None) or 1
    col = (getattr(node, "col_offset", None) or 0) + 1
    end_line = getattr(node, "end_lineno", None) or line
    end_col = getattr(node, "end_col_offset", None)
    end = end_col + 1 if end_col is not None else col + 1
    return line, col, end_line, end
