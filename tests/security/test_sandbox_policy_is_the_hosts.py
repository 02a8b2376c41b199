"""Invariant: a sandboxed run is decided by the host's policy, whole.

1. The host refuses a sandboxed run before any worker starts whenever ``safe_eval.check(code,
   policy, env=...)`` refuses it: ``PolicyViolation`` with the same diagnostics, the audit hook
   told, no tool called (as in process).
2. The worker runs the code under the same policy, sent whole (tool rules, their conditions,
   the floor), not rebuilt from its name: code the host never saw (a guest ``exec`` string)
   meets the same rules, and a call the worker's copy denies still reaches the host's audit hook.

The red team's form: a policy whose rules refuse the code statically; the worker, holding only
the policy's name and imports, ran the allowed calls before the host denied the first bad one.
"""

from __future__ import annotations

import json

import pytest

import safe_eval
from safe_eval.audit import Refusal
from safe_eval.errors import PolicyViolation
from safe_eval.limits import Limits
from safe_eval.policy import (
    Arg,
    Equals,
    InRange,
    IsType,
    LenRange,
    Matches,
    OneOf,
    Policy,
    allow,
    deny,
    parse_policy,
)
from safe_eval.policy.enforce import ToolEvent
from safe_eval.sandbox import make_backend
from safe_eval.sandbox.bwrap import BwrapBackend

POLICY = parse_policy("policy tools\nimports math\nallow add(a: int in 0..10, b: int)\n")
NAMES = ["subprocess", "bwrap", "bwrap+cpython"]


def _skip(name: str) -> None:
    if name.startswith("bwrap") and BwrapBackend.unavailable() is not None:
        pytest.skip(f"bwrap: {BwrapBackend.unavailable()}")


class Host:
    """The host's tools, recording every call that reached them."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def env(self) -> dict[str, object]:
        def add(a, b):
            self.calls.append(("add", a, b))
            return a + b

        def other():
            self.calls.append(("other",))
            return 1

        return {"add": add, "other": other}


REFUSED = [
    pytest.param("add(1, 2)\nother()", id="a-tool-the-rules-do-not-allow"),
    pytest.param("add(1, 2)\nadd(99, 3)", id="a-constant-argument-the-rules-deny"),
    pytest.param("add(1, 2)\nadd(1, 2, 3)", id="arguments-that-fit-no-signature"),
    pytest.param("add(1, 2)\nimport os", id="an-import-the-policy-refuses"),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("code", REFUSED)
def test_code_check_refuses_is_refused_by_the_host_before_any_worker_starts(name, code, monkeypatch):
    _skip(name)
    host = Host()
    env = host.env()
    expected = safe_eval.check(code, POLICY, env=env)
    assert not expected.ok
    with make_backend(name, pool_size=0) as backend:
        started = []
        real = backend.start_worker
        monkeypatch.setattr(backend, "start_worker", lambda ws: started.append(ws) or real(ws))
        events: list[object] = []
        with pytest.raises(PolicyViolation) as info:
            backend.run(code, env, policy=POLICY, audit=events.append)
    assert [d.code for d in info.value.diagnostics if d.severity == "error"] == [d.code for d in expected.errors]
    assert host.calls == []
    assert started == []
    assert [type(e) for e in events] == [Refusal]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("code", REFUSED)
def test_the_public_api_refuses_the_same_sandboxed_and_in_process(name, code):
    _skip(name)
    outcomes = []
    for sandbox in (None, name):
        host = Host()
        with pytest.raises(PolicyViolation) as info:
            safe_eval.safe_eval(code, host.env(), policy=POLICY, sandbox=sandbox)
        outcomes.append(([d.code for d in info.value.diagnostics], host.calls))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][1] == []


INTERPRETERS = ["subprocess", "bwrap"]


@pytest.mark.parametrize("name", INTERPRETERS)
def test_code_the_host_never_saw_meets_the_same_rules_in_the_worker(name):
    _skip(name)
    host = Host()
    code = 'g = {"add": add, "other": other}\nexec("add(1, 2)\\nother()", g)'
    with pytest.raises(PolicyViolation) as info:
        safe_eval.safe_eval(code, host.env(), policy=POLICY, sandbox=name)
    assert [d.code for d in info.value.diagnostics] == ["T003"]
    assert host.calls == []  # refused whole in the worker, as in process: `add` never ran


@pytest.mark.parametrize("name", INTERPRETERS)
def test_the_workers_stubs_place_arguments_as_the_host_tools_do(name):
    _skip(name)
    host = Host()
    code = 'g = {"add": add}\nexec("r = add(1, 2) + add(3, b=4)", g)\ng["r"]'
    assert safe_eval.safe_eval(code, host.env(), policy=POLICY, sandbox=name) == 10
    assert host.calls == [("add", 1, 2), ("add", 3, 4)]


@pytest.mark.parametrize("name", INTERPRETERS)
def test_a_call_the_workers_policy_denies_reaches_the_hosts_audit_hook(name):
    _skip(name)
    host = Host()
    events: list[object] = []
    ev = safe_eval.Evaluator(POLICY, audit=events.append, sandbox=name)
    with pytest.raises(PolicyViolation):
        ev.run('g = {"add": add}\nexec("add(int(\'42\'), 1)", g)', host.env())
    assert host.calls == []
    assert [(e.name, e.args, e.decision.allowed) for e in events if type(e) is ToolEvent] == [("add", (42, 1), False)]


def test_the_worker_gets_the_whole_policy_not_its_name():
    from safe_eval.sandbox.policywire import from_wire, to_wire

    policy = Policy(
        "whole", frozenset({"math", "re"}), Limits(time=1.5, ops=1234, memory=1 << 24, recursion=99, output=77),
        tools=(
            allow("add", Arg("a", IsType("int"), InRange(0, 10)), Arg("b", OneOf([1, True, "x", None]))),
            allow("get", Arg("url", Matches(r"https://.*", negate=False), LenRange(1, 100)), rest=True),
            allow("put", Arg("key", Equals("k", negate=True)), Arg("n", InRange(0.5, None))),
            deny("rm*", message="no removing", raise_to_guest=True),
        ),
        floor=((deny("drop", Arg("table", Equals("users"))),),),
        sandbox="bwrap",
    )
    sent = json.loads(json.dumps(to_wire(policy)))
    assert from_wire(sent) == policy.replace(sandbox=None)


@pytest.mark.parametrize("name", INTERPRETERS)
def test_code_the_workers_policy_refuses_reaches_the_hosts_audit_hook(name):
    _skip(name)
    host = Host()
    events: list[object] = []
    code = 'g = {"add": add, "other": other}\nexec("add(1, 2)\\nother()", g)'
    ev = safe_eval.Evaluator(POLICY, audit=events.append, sandbox=name)
    with pytest.raises(PolicyViolation):
        ev.run(code, host.env())
    in_process: list[object] = []
    with pytest.raises(PolicyViolation):
        safe_eval.Evaluator(POLICY, audit=in_process.append).run(code, Host().env())
    refusals = [e for e in events if type(e) is Refusal]
    assert [[d.code for d in r.diagnostics] for r in refusals] == [
        [d.code for d in r.diagnostics] for r in in_process if type(r) is Refusal] == [["T003"]]
    assert refusals[0].source == "add(1, 2)\nother()"
