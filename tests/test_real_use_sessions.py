"""Agent sessions, written the way their users write them (issue 12, "Agent sessions").

Each test is a reproducer from the issue: a multi-step session on one ``env`` under a policy
with tool rules, ``tools=`` kept apart from the session's state, limits merged onto a policy's,
the output printed before an error, ``if __name__ == "__main__":``, the audit hook and the
``safe_eval`` logger. The last test is the scripted five-step agent scenario of the acceptance.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from safe_eval import (
    Evaluator,
    GuestError,
    Limits,
    PolicyViolation,
    check,
    safe_callable,
    safe_eval,
    safe_exec,
)
from safe_eval.audit import Refusal
from safe_eval.cli import main as cli_main
from safe_eval.errors import OpLimit
from safe_eval.policy.enforce import ToolEvent

# -- the host's tools (the agent policy names search, read_file and send_email) ---------------

FILES = {"data/notes.txt": "ship v2 on friday\nask bob about the budget\n"}
SENT: list[tuple[str, str, str]] = []


def search(query: str, limit: int = 5) -> list[str]:
    return [f"{query} result {i}" for i in range(limit)]


def read_file(path: str) -> str:
    return FILES[path]


def send_email(to: str, subject: str, body: str) -> str:
    SENT.append((to, subject, body))
    return "sent"


def delete_file(path: str) -> None:
    raise AssertionError("the policy never lets this run")


TOOLS = {"search": search, "read_file": read_file, "send_email": send_email}

# -- tools are not state -----------------------------------------------------------------------

STEP_1 = "from collections import Counter\ndef norm(s):\n    return s.strip().lower()\nwords = ['A ', 'b', ' a']"
STEP_2 = "Counter(norm(w) for w in words).most_common(1)"


@pytest.mark.parametrize("policy", ["default", "agent"])
def test_a_helper_and_an_import_from_step_one_are_usable_in_step_two(policy: str) -> None:
    env: dict[str, Any] = {"search": search}
    safe_eval(STEP_1, env, policy=policy)
    assert safe_eval(STEP_2, env, policy=policy) == [("a", 2)]


@pytest.mark.parametrize("policy", ["default", "agent"])
def test_a_session_with_tools_given_apart_works_the_same_under_every_policy(policy: str) -> None:
    ev = Evaluator(policy)
    env: dict[str, Any] = {}
    ev.run(STEP_1 + "\nhits = search('q', limit=2)", env, tools=TOOLS)
    assert ev.run(STEP_2 + " + [len(hits)]", env, tools=TOOLS).value == [("a", 2), 2]
    assert sorted(env) == ["Counter", "hits", "norm", "words"]  # no tool was written back


def _via_safe_eval(code: str, env: dict[str, Any]) -> Any:
    return safe_eval(code, env, policy="agent", tools=TOOLS)


def _via_safe_exec(code: str, env: dict[str, Any]) -> Any:
    return safe_exec(code, env, policy="agent", tools=TOOLS)["r"]


def _via_run(code: str, env: dict[str, Any]) -> Any:
    return Evaluator("agent").run(code, env, tools=TOOLS).value


def _via_eval(code: str, env: dict[str, Any]) -> Any:
    return Evaluator("agent").eval(code, env, tools=TOOLS)


def _via_exec(code: str, env: dict[str, Any]) -> Any:
    return Evaluator("agent").exec(code, env, tools=TOOLS)["r"]


def _via_callable(code: str, env: dict[str, Any]) -> Any:
    return safe_callable(f"def f():\n    {code}\n    return r", policy="agent", env=env, tools=TOOLS)()


@pytest.mark.parametrize(
    "call",
    [_via_safe_eval, _via_safe_exec, _via_run, _via_eval, _via_exec, _via_callable],
    ids=["safe_eval", "safe_exec", "Evaluator.run", "Evaluator.eval", "Evaluator.exec", "safe_callable"],
)
def test_every_entry_point_takes_tools_and_keeps_them_out_of_env(call: Callable[..., Any]) -> None:
    env: dict[str, Any] = {"topic": "cats"}
    code = "r = search(topic, limit=1); r"
    assert call(code, env) == ["cats result 0"]
    assert "search" not in env and "read_file" not in env


def test_tools_given_as_a_list_are_named_by_their_function_names() -> None:
    assert safe_eval("search('x', limit=1)", policy="agent", tools=[search]) == ["x result 0"]


def test_a_tool_call_through_tools_is_decided_by_the_policy() -> None:
    with pytest.raises(PolicyViolation) as info:
        safe_eval("search('x', limit=500)", {"n": 1}, policy="agent", tools=TOOLS)
    assert [d.code for d in info.value.diagnostics] == ["T004"]


def test_a_name_env_holds_is_not_shadowed_by_a_tool() -> None:
    env: dict[str, Any] = {"search": "my own data"}
    assert safe_eval("search", env, policy="agent", tools=TOOLS) == "my own data"


def test_a_tool_name_the_guest_rebinds_is_its_own_from_then_on() -> None:
    env: dict[str, Any] = {}
    safe_eval("def search(q, limit=1):\n    return ['mine']", env, policy="agent", tools=TOOLS)
    assert safe_eval("search('x')", env, policy="agent", tools=TOOLS) == ["mine"]


def test_a_tool_the_guest_deleted_comes_back_in_the_next_step() -> None:
    env: dict[str, Any] = {}
    safe_exec("del search", env, policy="agent", tools=TOOLS)
    assert safe_eval("search('x', limit=1)", env, policy="agent", tools=TOOLS) == ["x result 0"]


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        pytest.param({"n": 3}, "tool 'n' must be a host function or class, not int "
                     "(pass data and guest-made functions in env)", id="data"),
        pytest.param({"len": len}, None, id="a_builtin_is_a_host_function"),
        pytest.param({"bad name": search}, "tool names must be identifiers, not 'bad name'", id="bad_name"),
        pytest.param("search", "tools must be a dict of names to functions or a list of functions, not str",
                     id="a_string"),
        pytest.param([3], "a tool given in a list needs a __name__: 3; pass a dict instead", id="nameless"),
    ],
)
def test_host_mistakes_in_tools_are_type_errors(tools: Any, message: str | None) -> None:
    if message is None:
        assert safe_eval("len([1, 2])", tools=tools) == 2
        return
    with pytest.raises(TypeError) as info:
        safe_eval("1", tools=tools)
    assert str(info.value) == message


def test_a_function_the_guest_made_cannot_be_handed_back_as_a_tool() -> None:
    made = safe_callable("def f():\n    return 1")
    with pytest.raises(TypeError, match="tool 'f' must be a host function or class"):
        safe_eval("f()", tools={"f": made})


def test_check_treats_a_session_env_as_the_run_does() -> None:
    env: dict[str, Any] = {"search": search}
    safe_eval(STEP_1, env, policy="agent")
    assert check(STEP_2, "agent", env=env).ok
    report = check("search('q', limit=3)\ndelete_file('x')\nsend_email('a', 'b', 'c')", "agent",
                   env={**env, "send_email": send_email})
    assert [d.code for d in report.diagnostics] == ["T002", "T004"]


# -- limits merge like a dict --------------------------------------------------------------------

STRICT = Limits(time=0.1, ops=100_000, memory=16 * 2**20, recursion=50, output=4096)


@pytest.mark.parametrize(
    "override",
    [Limits(time=1.0), {"time": 1.0}],
    ids=["Limits", "dict"],
)
def test_a_limits_override_keeps_the_policys_other_limits(override: Any) -> None:
    assert Evaluator("strict", override).limits == Limits(
        time=1.0, ops=STRICT.ops, memory=STRICT.memory, recursion=STRICT.recursion, output=STRICT.output)


def test_strict_with_more_time_still_stops_at_its_ops_budget() -> None:
    with pytest.raises(OpLimit):
        Evaluator("strict", Limits(time=5.0)).run("sum(i for i in range(1_000_000))")


def test_a_run_limits_override_merges_onto_the_evaluators() -> None:
    ev = Evaluator("strict", Limits(time=5.0))
    with pytest.raises(OpLimit) as info:
        ev.run("for i in range(1_000_000):\n    pass", limits=Limits(recursion=40))
    assert (info.value.limit_name, info.value.value) == ("ops", 100_000)


# -- output printed before an error ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "error"),
    [
        pytest.param('print("step 1 done")\n1/0', GuestError, id="guest_exception"),
        pytest.param('print("step 1 done")\nwhile True:\n    pass', OpLimit, id="limit"),
        pytest.param('print("step 1 done")\nsearch(q, limit=n)', PolicyViolation, id="run_time_denial"),
    ],
)
def test_the_output_printed_before_an_error_is_kept_on_the_error(code: str, error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        Evaluator("agent", {"ops": 50_000}).run(code, {"q": "x", "n": 99}, tools=TOOLS)
    assert info.value.stdout == "step 1 done\n"


def test_a_static_refusal_has_no_output() -> None:
    with pytest.raises(PolicyViolation) as info:
        safe_eval('print("never")\nimport os')
    assert info.value.stdout == ""


def test_safe_eval_run_prints_the_output_before_the_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "step.py"
    script.write_text('print("step 1 done")\n1/0\n')
    assert cli_main(["run", str(script)]) != 0
    out, err = capsys.readouterr()
    assert out == "step 1 done\n"
    assert err.rstrip().endswith("ZeroDivisionError: division by zero")


def test_safe_eval_run_json_carries_the_output_before_the_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "step.py"
    script.write_text('print("step 1 done")\n1/0\n')
    assert cli_main(["run", "--json", str(script)]) != 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["ok"], answer["stdout"]) == (False, "step 1 done\n")


# -- __name__ --------------------------------------------------------------------------------------

MAIN = 'def main():\n    return 42\nif __name__ == "__main__":\n    result = main()'


def test_the_main_guard_runs_its_block() -> None:
    env: dict[str, Any] = {}
    safe_exec(MAIN, env)
    assert env["result"] == 42
    assert "__name__" not in env
    assert check(MAIN).ok


def test_name_reads_main_in_an_expression_too() -> None:
    assert safe_eval("__name__") == "__main__"


# -- the audit hook and the logger -------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "codes"),
    [
        pytest.param("import os", ["T001"], id="import"),
        pytest.param("type('X', (), {'__del__': len})", ["R008"], id="dynamic_class"),
        pytest.param("search('', limit=3)", ["T004"], id="constant_tool_arguments"),
        pytest.param("exec('import os')", ["T001"], id="a_string_given_to_exec"),
    ],
)
def test_the_audit_hook_sees_static_refusals(code: str, codes: list[str]) -> None:
    events: list[Any] = []
    with pytest.raises(PolicyViolation):
        Evaluator("agent", audit=events.append).run(code, tools=TOOLS)
    refusals = [e for e in events if isinstance(e, Refusal)]
    assert [[d.code for d in r.diagnostics] for r in refusals] == [codes]
    assert refusals[0].filename == "<safe-eval>"


def test_the_audit_hook_sees_tool_calls_and_refusals_in_order() -> None:
    events: list[Any] = []
    ev = Evaluator("agent", audit=events.append)
    ev.run("search('a', limit=1)", tools=TOOLS)
    with pytest.raises(PolicyViolation):
        ev.run("import os")
    assert [type(e).__name__ for e in events] == ["ToolEvent", "Refusal"]
    first = events[0]
    assert isinstance(first, ToolEvent) and (first.name, first.args, dict(first.kwargs)) == ("search", ("a",),
                                                                                             {"limit": 1})


def test_the_safe_eval_logger_records_decisions(caplog: pytest.LogCaptureFixture) -> None:
    ev = Evaluator("agent")
    with caplog.at_level(logging.INFO, logger="safe_eval"):
        ev.run("search('a', limit=1)", tools=TOOLS)
        with pytest.raises(PolicyViolation):
            ev.run("import os")
        with pytest.raises(GuestError):
            ev.run("delete_file('x')", tools={"delete_file": delete_file})
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("safe_eval", "INFO", "tool call allowed: search('a', limit=1)"),
        ("safe_eval", "WARNING",
         "code refused (<safe-eval>): T001 [import-not-allowed] line 1: import of `os` is not allowed"),
        ("safe_eval", "WARNING", "tool call denied: delete_file('x'): calling `delete_file` is denied "
                                 "(deleting is never allowed: tell the user which file to delete instead)"),
    ]


# -- generators and threads -------------------------------------------------------------------


def _in_thread(fn: Callable[[], Any]) -> Any:
    box: list[Any] = []

    def target() -> None:
        try:
            box.append(fn())
        except BaseException as exc:  # the test inspects it
            box.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    return box[0]


def test_a_generator_made_on_one_thread_runs_when_first_resumed_on_another() -> None:
    gen = safe_eval("def g():\n    yield 1\n    yield 2\ng()")
    assert _in_thread(lambda: next(gen)) == 1


def test_a_started_generator_resumed_on_another_thread_is_a_typed_error() -> None:
    gen = safe_eval("def g():\n    yield 1\n    yield 2\ng()")
    assert next(gen) == 1
    error = _in_thread(lambda: next(gen))
    assert isinstance(error, GuestError) and error.type_name == "RuntimeError"
    assert "was started on another thread than this resume runs on" in error.message


# -- the acceptance scenario: a scripted agent session -------------------------------------------


def test_a_five_step_agent_session_with_three_tools() -> None:
    """A scripted model drives one session under the ``agent`` policy: it defines a helper, uses
    it with the tools, gets a call denied and repairs it from the message, and sees what a
    failed step printed."""
    SENT.clear()
    ev = Evaluator("agent")
    env: dict[str, Any] = {}
    step = 0

    def turn(code: str) -> Any:
        nonlocal step
        step += 1
        return ev.run(code, env, tools=TOOLS)

    # 1: a helper for later steps
    turn("def summarize(text, n=1):\n    lines = [l for l in text.splitlines() if l.strip()]\n"
         "    return '; '.join(lines[:n])")
    # 2: search, print progress, then a bug: the printed output survives the failure
    with pytest.raises(GuestError) as failed:
        turn("hits = search('release plan', limit=2)\nprint(f'found {len(hits)} hits')\nhits[5]")
    assert (failed.value.type_name, failed.value.stdout) == ("IndexError", "found 2 hits\n")
    # 3: read a file outside data/: denied, with a message the model acts on
    with pytest.raises(PolicyViolation) as denied:
        turn("notes = read_file('../notes.txt')")
    message = denied.value.diagnostics[0].message
    assert denied.value.diagnostics[0].code == "T004" and "argument `path`" in message and "data/" in message
    # 4: the model repairs the path from the message and uses its step-1 helper
    fixed = "data/notes.txt" if "data/" in message else "../notes.txt"
    result = turn(f"notes = read_file({fixed!r})\nprint(summarize(notes))\nsummarize(notes, 2)")
    assert result.value == "ship v2 on friday; ask bob about the budget"
    assert result.stdout == "ship v2 on friday\n"
    # 5: mail the summary, with state from steps 2 and 4
    sent = turn("send_email('team@example.com', f'{len(hits)} hits', summarize(notes))")
    assert (sent.value, step) == ("sent", 5)
    assert SENT == [("team@example.com", "2 hits", "ship v2 on friday")]
    assert sorted(env) == ["hits", "notes", "summarize"]
