"""The run-time gate of tool calls: the one door out of the guest.

The membrane wraps every env callable (and every exposed method, and every host exception
class) as a tool whose ``__call__`` calls ``call_tool``; nothing else calls a tool's host
function. ``call_tool``:

1. normalises the call (``outbound.OutboundCall``): exact ``str`` keyword names, every value a
   plain copy made without running guest code, the arguments placed by the host function's
   real signature when a rule names them;
2. decides it against the running policy (``Policy.decide_call``) and tells the audit hook and
   the ``safe_eval`` logger what was decided on (``safe_eval.audit.report``);
3. on an allow, calls the host function with exactly the decided values (``host_args()``) and
   returns its raw result (the membrane passes it back through itself); on a denial the host
   function is never called: ``PolicyViolation`` at the caller, or a ``PermissionError`` the
   guest can catch when the rule says ``raise``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from safe_eval import rules
from safe_eval.audit import report
from safe_eval.context import back_from_host, current_context, to_host
from safe_eval.diagnostics import Diagnostic
from safe_eval.errors import InternalError, PolicyViolation
from safe_eval.limits.watchdog import back_in_run, host_code
from safe_eval.policy.binding import BindError
from safe_eval.policy.model import Decision, Policy, unbindable
from safe_eval.policy.outbound import OutboundCall

__all__ = ["ToolEvent", "call_tool", "denial_diagnostic"]

@dataclass(frozen=True, slots=True)
class ToolEvent:
    """One tool call as the audit hook sees it (before the call runs, allowed or not): the
    normalised arguments the policy decided on, which the host function receives if allowed."""

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
    host_args: tuple[Any, ...] = ()
    host_kwargs: dict[str, Any] = {}
    try:
        call = OutboundCall(fn, args, kwargs)
    except BindError as exc:  # a keyword name that is not a str, or two with the same text
        decision = unbindable(name, exc)
    else:
        decision = policy.decide_call(name, call)
        host_args, host_kwargs = call.host_args()
    # the audit hook and the tool are the host's own code: the watchdog never interrupts them
    # (a tool may switch to another greenlet, where an interrupt would hit another request)
    paused = host_code()
    state = to_host()  # the host's own state (its decimal context) for the host's code
    try:
        report(audit, ToolEvent(name, host_args, host_kwargs, decision))  # the hook and the logger
        if not decision.allowed:
            if decision.raise_to_guest:
                raise PermissionError(decision.message)
            raise PolicyViolation([denial_diagnostic(decision)])
        return fn(*host_args, **host_kwargs)
    finally:
        back_from_host(state)
        back_in_run(paused)


def denial_diagnostic(decision: Decision, line: int = 0, col: int = 0) -> Diagnostic:
    """The runtime diagnostic of a denied call (line 0 until the interpreter places it: see
    ``PolicyViolation.locate``)."""
    rule = rules.by_code(decision.code) or rules.TOOL_NOT_ALLOWED
    return rule.diagnostic((line, col, line, col), hint=decision.hint, stage="runtime",
                           detail=decision.message)
