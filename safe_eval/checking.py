"""``check()``: the static pipeline only, for rapid-feedback loops (call it every model turn).

    report = check(code, policy=None, env={"search": search})
    report.ok            # True when the code would be accepted (no errors; warnings allowed)
    report.diagnostics   # every violation: code, name, message, span, hint, severity
    report.render()      # each one with its source line and a caret, then a summary line
    report.to_json()     # the same for machines

Nothing is executed. Diagnostic codes: ``P0xx`` parse (``pipeline/parse.py``), ``R0xx``
restrict (``pipeline/restrict.py``), ``T0xx`` policy and tools (``pipeline/policy_check.py``);
``S0xx`` (scrub) are reserved: scrub never refuses code.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from safe_eval.diagnostics import Diagnostic
from safe_eval.pipeline.parse import decode_source
from safe_eval.pipeline.program import analyse

__all__ = ["Report", "check"]


@dataclass(frozen=True, slots=True)
class Report:
    """The outcome of ``check``: every diagnostic (empty when the code is clean)."""

    source: str
    diagnostics: tuple[Diagnostic, ...] = ()
    filename: str = "<safe-eval>"

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The diagnostics that refuse the code."""
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        """Likely mistakes that do not stop the code (an unknown name raises NameError when
        the line runs, as in CPython)."""
        return tuple(d for d in self.diagnostics if d.severity == "warning")

    def summary(self) -> str:
        errors, warnings = self.errors, self.warnings
        text = _counted(errors, "violation") if errors else "no violations"
        if warnings:
            text += f", {_counted(warnings, 'warning')}"
        return f"{self.filename}: {text}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "filename": self.filename,
            "summary": self.summary(),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def render(self) -> str:
        """Every diagnostic with its source line and caret, then a summary line."""
        parts = [d.render(self.source, self.filename) for d in self.diagnostics]
        parts.append(self.summary())
        return "\n".join(parts)


def _counted(diagnostics: tuple[Diagnostic, ...], noun: str) -> str:
    """``2 violations (R010 x2)``."""
    count = len(diagnostics)
    codes = Counter(d.code for d in diagnostics)
    listed = ", ".join(f"{code} x{n}" if n > 1 else code for code, n in sorted(codes.items()))
    return f"{count} {noun}{'s' if count != 1 else ''} ({listed})"


def check(
    code: Any,
    policy: Any = None,
    *,
    env: Mapping[str, Any] | None = None,
    filename: str = "<safe-eval>",
) -> Report:
    """Run parse, scrub, restrict and the policy check on ``code``; execute nothing.
    ``env`` is what the host would pass to ``safe_eval``: its names are defined, and its host
    callables are the tools held against the policy's tool rules (a function or class the
    guest bound in an earlier step is session data, as at run time)."""
    tools: frozenset[str] | None = None
    writable: frozenset[tuple[str, str]] = frozenset()
    if env:
        from safe_eval.membrane.crossing import enter_env
        from safe_eval.membrane.proxies import static_facts

        tools, writable = static_facts(enter_env(env, policy))
        # a name given without a usable value (``env=dict.fromkeys(names)``) may be a tool:
        # deny when in doubt
        tools |= {k for k, v in env.items() if not callable(v)}
    _program, diagnostics = analyse(code, policy, filename, tuple(env) if env else (), tools, writable)
    text = decode_source(code)
    return Report(text if isinstance(text, str) else "", tuple(diagnostics), filename)
