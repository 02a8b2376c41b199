"""``safe-eval policy check``: every error of a policy file, and the rules that can never decide.

    report = lint_policy_file("agent.policy")
    report.ok          # no errors
    report.errors      # PolicyError each, with line and column (the parser stops at the first;
                       # each statement is then parsed alone to find the others)
    report.warnings    # a rule an earlier rule of the same file covers (``coverage.covering``):
                       # it never decides, or an allow decides first what a deny is meant for
    report.policy      # the Policy (None when there is an error)

Statements start with a keyword at the start of a line (``policy``, ``extends``, ``imports``,
``limits``, ``sandbox``, ``allow``, ``deny``); a statement parsed alone keeps its line numbers
(it is preceded by as many empty lines), so every error points into the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from safe_eval.errors import PolicyError
from safe_eval.policy.coverage import covering
from safe_eval.policy.dsl import parse_policy
from safe_eval.policy.model import Policy
from safe_eval.policy.rules import ToolRule

__all__ = ["PolicyReport", "lint_policy", "lint_policy_file"]

_STATEMENT = re.compile(r"[ \t]*(policy|extends|imports|limits|sandbox|allow|deny)\b")


class PolicyReport:
    """What ``policy check`` found in one policy text."""

    __slots__ = ("filename", "policy", "errors", "warnings")

    def __init__(self, filename: str, policy: Policy | None, errors: list[PolicyError],
                 warnings: list[str]) -> None:
        self.filename = filename
        self.policy = policy
        self.errors = tuple(errors)
        self.warnings = tuple(warnings)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        policy = self.policy
        return {
            "ok": self.ok,
            "filename": self.filename,
            "policy": None if policy is None else policy.name,
            "imports": None if policy is None else len(policy.imports),
            "tool_rules": None if policy is None else len(policy.tools),
            "errors": [e.to_dict() for e in self.errors],
            "warnings": list(self.warnings),
            "notes": [] if policy is None else policy.lifted_denials(),
        }


def lint_policy_file(path: str | Path) -> PolicyReport:
    """Check the policy file at ``path`` (``OSError`` when it cannot be read)."""
    text = Path(path).read_text(encoding="utf-8")
    return lint_policy(text, str(path))


def lint_policy(text: str, filename: str = "<policy>") -> PolicyReport:
    statements = _statements(text)
    try:
        policy: Policy | None = parse_policy(text, filename)
    except PolicyError as first:
        return PolicyReport(filename, None, _every_error(statements, filename, first), [])
    return PolicyReport(filename, policy, [], _shadowed(statements, filename))


def _statements(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each statement."""
    out: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if _STATEMENT.match(line) or not out:
            out.append((number, [line]))
        else:
            out[-1][1].append(line)
    return [(start, "\n".join(lines)) for start, lines in out]


def _alone(start: int, statement: str, filename: str) -> Policy:
    return parse_policy("\n" * (start - 1) + statement, filename)


def _every_error(statements: list[tuple[int, str]], filename: str, first: PolicyError) -> list[PolicyError]:
    found: dict[tuple[int | None, int | None, str], PolicyError] = {
        (first.line, first.col, first.message): first}
    for start, statement in statements:
        try:
            _alone(start, statement, filename)
        except PolicyError as exc:
            found.setdefault((exc.line, exc.col, exc.message), exc)
    lines = [text for _, statement in statements for text in statement.splitlines()]
    errors = sorted(found.values(), key=lambda e: (e.line or 0, e.col or 0))
    return [_with_line(e, lines) for e in errors]


def _with_line(error: PolicyError, lines: list[str]) -> PolicyError:
    if error.line is None or error.source_line or not 1 <= error.line <= len(lines):
        return error
    return PolicyError(error.message, filename=error.filename, line=error.line, col=error.col,
                       source_line=lines[error.line - 1])


def _shadowed(statements: list[tuple[int, str]], filename: str) -> list[str]:
    """A warning for each rule an earlier rule of the same file covers (the first matching
    rule decides): the first such earlier rule is named."""
    rules: list[tuple[int, ToolRule]] = []
    for start, statement in statements:
        if statement.lstrip().startswith(("allow", "deny")):
            try:
                rules += [(start, rule) for rule in _alone(start, statement, filename).tools]
            except PolicyError:  # pragma: no cover - the whole file parsed
                continue
    out = []
    for index, (line, rule) in enumerate(rules):
        for earlier_line, earlier in rules[:index]:
            how = covering(earlier, rule)
            if how is None:
                continue
            where = f"{filename}:{line}:1: warning: `{rule.render()}`"
            if how == "never":
                out.append(f"{where} never decides: `{earlier.render()}` (line {earlier_line}) "
                           "matches every call it matches")
            else:
                out.append(f"{where} is shadowed: `{earlier.render()}` (line {earlier_line}) "
                           "matches first, and allows, every call it is meant to deny "
                           "(plain values for the arguments it names)")
            break
    return out
