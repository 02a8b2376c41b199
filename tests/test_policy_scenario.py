"""An agent-style snippet under the shipped agent policy: three tool calls, one denied by an
argument rule, seen before running (``check``) and while running (``safe_eval``).

A denial the static check can prove (constant arguments) stops the program before anything
runs; one that depends on run-time data (here a recipient read from a file) is caught when
the call happens, after the earlier calls have run.
"""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval.errors import PolicyViolation

# the recipient is a constant: the static check sees the denial
CONSTANT = """\
hits = search("quarterly report", limit=5)
text = read_file(hits[0])
send_email(to="boss@corp.com", subject="report", body=text)
"""

# the recipient comes from the file: only the run-time check can see it
FROM_DATA = """\
hits = search("quarterly report", limit=5)
text = read_file(hits[0])
send_email(to=text.split()[0], subject="report", body=text)
"""


class Tools:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def env(self) -> dict[str, Any]:
        def search(query: str, limit: int = 10) -> list[str]:
            self.calls.append("search")
            return ["data/report.txt"]

        def read_file(path: str) -> str:
            self.calls.append("read_file")
            return "boss@corp.com: the numbers are up"

        def send_email(to: str, subject: str, body: str) -> None:
            self.calls.append("send_email")

        return {"search": search, "read_file": read_file, "send_email": send_email}


def test_check_reports_the_denied_call_before_running() -> None:
    from safe_eval.checking import check

    tools = Tools()
    report = check(CONSTANT, "agent", env=tools.env())
    assert [(d.code, d.line, d.stage) for d in report.diagnostics] == [("T004", 3, "policy")]
    (diag,) = report.diagnostics
    assert "argument `to` must match" in diag.message and "boss@corp.com" in diag.message
    assert diag.hint.startswith("allowed calls: send_email(")
    assert check(FROM_DATA, "agent", env=tools.env()).diagnostics == ()
    assert tools.calls == []


def test_a_statically_denied_program_runs_nothing() -> None:
    from safe_eval.api import safe_eval

    tools = Tools()
    with pytest.raises(PolicyViolation) as info:
        safe_eval(CONSTANT, tools.env(), policy="agent")
    assert [d.code for d in info.value.diagnostics] == ["T004"]
    assert tools.calls == []


def test_running_executes_the_allowed_calls_and_stops_at_the_denied_one() -> None:
    from safe_eval.api import safe_eval

    tools = Tools()
    with pytest.raises(PolicyViolation) as info:
        safe_eval(FROM_DATA, tools.env(), policy="agent")
    assert tools.calls == ["search", "read_file"]
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.stage) == ("T004", "runtime")
    assert "argument `to` must match" in diag.message


def test_a_guest_can_catch_a_raise_denial() -> None:
    from safe_eval.api import safe_eval

    calls: list[str] = []

    def delete_file(path: str) -> None:
        calls.append(path)

    code = "try:\n    delete_file('data/x')\n    r = 'deleted'\nexcept PermissionError as e:\n    r = str(e)\nr"
    result = safe_eval(code, {"delete_file": delete_file}, policy="agent")
    assert "deleting is never allowed" in result
    assert calls == []
