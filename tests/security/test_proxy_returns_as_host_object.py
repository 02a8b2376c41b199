"""Invariant: a proxy the guest hands to a tool reaches the host as the host's own object, and
only where the rule places no condition on that argument.

A tool's result that is not plain data (an image, a connection) is an opaque ``HostProxy`` in
the guest. Passed back to a tool, the one door out (``policy/plain.py``) gives the host the
object it handed out, never the proxy; the value stays "not plain data" for the rules, so a
condition on it cannot be evaluated and denies (deny when in doubt).
"""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval import safe_eval
from safe_eval.errors import PolicyViolation
from safe_eval.policy import parse_policy


class Handle:
    """A host object with nothing exposed: the guest sees ``<Handle object>`` only."""


def tools() -> tuple[dict[str, Any], list[Any], Handle]:
    handle = Handle()
    received: list[Any] = []

    def use(x: Any) -> None:
        received.append(x)

    return {"open_handle": lambda: handle, "use": use}, received, handle


@pytest.mark.parametrize(
    "code, expected",
    [
        ("use(open_handle())", lambda h: [h]),
        ("h = open_handle()\nuse([h, 1])", lambda h: [[h, 1]]),
        ("use({'handle': open_handle()})", lambda h: [{"handle": h}]),
        ("use((open_handle(),))", lambda h: [(h,)]),
    ],
    ids=["bare", "in-a-list", "in-a-dict", "in-a-tuple"],
)
def test_a_proxy_passed_to_a_tool_arrives_as_the_host_object_it_stands_for(code, expected):
    env, received, handle = tools()
    safe_eval(code, env)
    assert received == expected(handle)
    assert type(received[0]) is not str and "Proxy" not in type(received[0]).__name__


def test_a_rule_with_a_condition_on_a_proxy_argument_denies_it():
    env, received, _ = tools()
    policy = parse_policy("allow open_handle()\nallow use(x: str)")
    with pytest.raises(PolicyViolation, match="not plain data"):
        safe_eval("use(open_handle())", env, policy=policy)
    assert received == []


def test_the_guest_cannot_read_the_host_object_behind_a_proxy():
    env, _, _ = tools()
    with pytest.raises(PolicyViolation):
        safe_eval("open_handle()._obj", env)
