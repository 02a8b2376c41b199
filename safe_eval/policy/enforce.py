"""The run-time gate of tool calls.

The membrane wraps every env callable as a tool whose ``__call__`` calls ``call_tool``; this
decides the call against the running policy, tells the audit hook, and either calls the host
function (returning its raw result, which the membrane passes back through itself) or refuses:
``PolicyViolation`` at the caller, or a ``PermissionError`` the guest can catch when the rule
says ``raise``. On a denial the host function is never called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from safe_eval.context import current_context
from safe_eval.diagnostics import Diagnostic
from safe_eval.errors import InternalError, PolicyViolation
from safe_eval.policy.model import Decision, Policy

__all__ = ["ToolEvent", "call_tool", "denial_diagnostic"]

_NAMES = {"T003": "tool-not-allowed", "T004": "tool-argument-denied"}


@dataclass(frozen=True, slots=True)
class ToolEvent:
    """One tool call as the audit hook sees it (before the call runs, allowed or not)."""

    name: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]
    decision: Decision


def call_tool(
    name: str,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    *,
    policy: Policy | None = None,
    audit: Callable[[ToolEvent], Any] | None = None,
) -> Any:
    """Call the tool ``name`` (host callable ``fn``) if the running policy allows it.

    The policy and audit hook come from ``current_context()``; ``policy``/``audit`` given here
    take precedence (for hosts that call tools outside an evaluation)."""
    ctx = current_context()
    if policy is None:
        if ctx is None:
            raise InternalError(f"tool `{name}` called outside an evaluation and without a policy")
        policy = ctx.policy
    if audit is None and ctx is not None:
        audit = ctx.audit
    decision = policy.decide(name, args, kwargs, fn)
    if audit is not None:
        audit(ToolEvent(name, tuple(args), dict(kwargs), decision))
    if not decision.allowed:
        if decision.raise_to_guest:
            raise PermissionError(decision.message)
        raise PolicyViolation([denial_diagnostic(decision)])
    return fn(*args, **kwargs)


def denial_diagnostic(decision: Decision, line: int = 0, col: int = 0) -> Diagnostic:
    """The runtime diagnostic of a denied call (line 0: the interpreter may not know it)."""
    code = decision.code or "T003"
    return Diagnostic(
        code,
        _NAMES.get(code, "tool-denied"),
        decision.message,
        line,
        col,
        line,
        col,
        "runtime",
        decision.hint,
    )
