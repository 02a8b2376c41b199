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
import types
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
    tools: Any = None,
) -> Report:
    """Run parse, scrub, restrict and the policy check on ``code``; execute nothing.
    ``env`` is what the host would pass to ``safe_eval``: its host functions are the tools
    (their signatures place constant arguments for the tool rules), its other values are data
    (a function or class the guest bound in an earlier step too, as at run time); a policy's
    allowed tools count as defined even when ``env`` does not name them; an attribute of an
    exposed object declared writable may be assigned (no R013). ``tools`` is ``safe_eval``'s
    ``tools=`` (a dict of names to functions, or a list of functions), beneath ``env`` as there."""
    from safe_eval.api import tool_mapping

    tool_map = tool_mapping(tools) or {}
    static = _static_env({**tool_map, **(env or {})})
    tools = frozenset(k for k, v in static.items() if v is not None)
    writable: frozenset[tuple[str, str]] = frozenset()
    if env:
        from safe_eval.membrane.crossing import enter_value
        from safe_eval.membrane.proxies import Exposed, static_facts

        exposed = {k: enter_value(v, policy, name=k) for k, v in env.items() if isinstance(v, Exposed)}
        writable = static_facts(exposed)[1]
    _program, diagnostics = analyse(code, policy, filename, static, tools, writable)
    text = decode_source(code)
    return Report(text if isinstance(text, str) else "", tuple(diagnostics), filename)


_HOST_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _static_env(env: Mapping[str, Any]) -> dict[str, Any]:
    """What the static check may look at: host functions (the host's tools; their signatures
    are read), and for every other name only the name. Nothing guest-made is introspected:
    a session's env holds the guest's own functions and objects from earlier steps."""
    from safe_eval.interpreter.identity import is_guest_made

    return {name: value if type(value) in _HOST_FUNCTIONS and not is_guest_made(value) else None
            for name, value in env.items()}
