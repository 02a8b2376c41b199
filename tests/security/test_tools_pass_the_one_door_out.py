"""Tools given with ``tools=`` (issue 12: tools are not state) pass the one door out like env
callables: every call is bound, normalised, decided by the policy and audited before the host
function runs; the guest never holds the host function itself; a tool is never written into
the caller's ``env``. The attacker is the guest code; the host is honest."""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval import Evaluator, GuestError, PolicyViolation, safe_eval, safe_exec
from safe_eval.policy import parse_policy
from safe_eval.policy.enforce import ToolEvent

CALLED: list[Any] = []


def store(key: str, value: str) -> str:
    CALLED.append((type(key), type(value)))
    return "stored"


def wipe(path: str) -> None:
    CALLED.append(("wipe", path))


ONLY_STORE = parse_policy('allow store(key: str len 1..20, value: str)\ndeny wipe(*) "never"')
TOOLS = {"store": store, "wipe": wipe}


def test_a_denied_tool_given_by_tools_never_runs_its_host_function() -> None:
    CALLED.clear()
    with pytest.raises(PolicyViolation):
        safe_eval("n = 'x'\nwipe('/' + n)", policy=ONLY_STORE, tools=TOOLS)
    assert CALLED == []


def test_a_guest_str_subclass_reaches_a_tool_as_an_exact_str() -> None:
    CALLED.clear()
    code = "class S(str):\n    def __eq__(self, o):\n        return True\nstore(S('k'), S('v'))"
    assert safe_eval(code, policy=ONLY_STORE, tools=TOOLS) == "stored"
    assert CALLED == [(str, str)]


def test_every_tool_call_is_audited_with_the_values_the_host_receives() -> None:
    events: list[Any] = []
    Evaluator(ONLY_STORE, audit=events.append).run("store('k', 'v')", tools=TOOLS)
    assert [(e.name, e.args, e.decision.allowed) for e in events if isinstance(e, ToolEvent)] == [
        ("store", ("k", "v"), True)]


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("store.__wrapped__", id="wrapped"),
        pytest.param("store._fn", id="private_slot"),
        pytest.param("getattr(store, '_fn')", id="getattr_private"),
        pytest.param("store.__globals__", id="globals"),
        pytest.param("type(store)('store', print)", id="construct_a_tool"),
    ],
)
def test_the_guest_cannot_reach_the_host_function_behind_a_tool(code: str) -> None:
    with pytest.raises((PolicyViolation, GuestError)):
        safe_eval(code, policy=ONLY_STORE, tools=TOOLS)


def test_a_tool_is_never_written_into_the_callers_env() -> None:
    env: dict[str, Any] = {}
    safe_exec("alias = store\nkept = [store, wipe]", env, policy=ONLY_STORE, tools=TOOLS)
    assert "store" not in env and "wipe" not in env
    # what the guest stored in its own names is the wrapper, never the host function
    assert env["alias"] is not store and store not in env["kept"] and wipe not in env["kept"]


def test_a_name_the_guest_binds_over_a_tool_is_not_decided_as_that_tool() -> None:
    # the guest's own function under a tool's name runs as guest code, and the host's tool
    # under that name is not reachable through it
    CALLED.clear()
    env: dict[str, Any] = {}
    safe_exec("def wipe(path):\n    return 'guest ' + path", env, policy=ONLY_STORE, tools=TOOLS)
    assert safe_eval("wipe('/')", env, policy=ONLY_STORE, tools=TOOLS) == "guest /"
    assert CALLED == []
