"""The run-time gate: call_tool decides, audits, and never calls the host function on denial."""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval.context import RunContext, activate
from safe_eval.errors import InternalError, PolicyViolation
from safe_eval.limits.budget import Budget
from safe_eval.limits.model import Limits
from safe_eval.policy import Policy, parse_policy, shipped_policy
from safe_eval.policy.enforce import ToolEvent, call_tool


class Recorder:
    """A fake tool that records every call it receives."""

    def __init__(self, result: Any = "ok") -> None:
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.result = result

    def __call__(self, path: str, mode: str = "r") -> Any:
        self.calls.append(((path, mode), {}))
        return self.result


def _run(policy: Policy, name: str, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[ToolEvent]]:
    events: list[ToolEvent] = []
    ctx = RunContext(Budget(Limits()), policy, audit=events.append)
    with activate(ctx):
        return call_tool(name, fn, args, kwargs), events


AGENT = shipped_policy("agent")


def test_allowed_call_runs_and_returns_the_raw_result() -> None:
    tool = Recorder(result={"raw": [1, 2]})
    result, events = _run(AGENT, "read_file", tool, ("data/a.txt",), {})
    assert result is tool.result
    assert tool.calls == [(("data/a.txt", "r"), {})]
    assert len(events) == 1 and events[0].decision.allowed
    assert events[0] == ToolEvent("read_file", ("data/a.txt",), {}, events[0].decision)


def test_argument_denial_raises_policy_violation_and_never_calls_the_tool() -> None:
    tool = Recorder()
    with pytest.raises(PolicyViolation) as info:
        _run(AGENT, "read_file", tool, ("/etc/passwd",), {})
    assert tool.calls == []
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.name, diag.stage) == ("T004", "tool-argument-denied", "runtime")
    assert "argument `path` must match" in diag.message
    assert diag.hint.startswith("allowed calls: read_file(")


def test_unlisted_tool_is_denied_and_audited() -> None:
    tool = Recorder()
    events: list[ToolEvent] = []
    ctx = RunContext(Budget(Limits()), AGENT, audit=events.append)
    with activate(ctx), pytest.raises(PolicyViolation) as info:
        call_tool("format_disk", tool, ("c",), {})
    assert tool.calls == []
    assert info.value.diagnostics[0].code == "T003"
    assert [e.decision.allowed for e in events] == [False]
    assert events[0].name == "format_disk"


def test_deny_raise_gives_the_guest_a_permission_error() -> None:
    tool = Recorder()
    with pytest.raises(PermissionError, match="deleting is never allowed"):
        _run(AGENT, "delete_file", tool, ("data/a.txt",), {})
    assert tool.calls == []


def test_no_tool_rules_grants_env_callables() -> None:
    tool = Recorder()
    result, events = _run(shipped_policy("default"), "anything", tool, ("x",), {"mode": "w"})
    assert result == "ok" and tool.calls == [(("x", "w"), {})]
    assert events[0].decision.allowed


def test_strict_policy_refuses_every_tool() -> None:
    tool = Recorder()
    with pytest.raises(PolicyViolation):
        _run(shipped_policy("strict"), "read_file", tool, ("data/a",), {})
    assert tool.calls == []


def test_explicit_policy_works_outside_an_evaluation() -> None:
    tool = Recorder()
    policy = parse_policy("allow t(path: str)")
    assert call_tool("t", tool, ("p",), {}, policy=policy) == "ok"
    with pytest.raises(PolicyViolation):
        call_tool("t", tool, (1,), {}, policy=policy)
    assert len(tool.calls) == 1


def test_no_context_and_no_policy_is_an_internal_error() -> None:
    with pytest.raises(InternalError):
        call_tool("t", Recorder(), (), {})


def test_signature_mismatch_is_catchable_by_the_guest() -> None:
    tool = Recorder()
    with pytest.raises(PermissionError, match="unexpected keyword argument 'bogus'"):
        _run(parse_policy("allow t(path: str)"), "t", tool, ("p",), {"bogus": 1})
    assert tool.calls == []
