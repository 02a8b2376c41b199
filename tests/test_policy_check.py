"""The static policy check: imports, unknown names, tool calls, all reported at once."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from safe_eval.diagnostics import Diagnostic
from safe_eval.pipeline.policy_check import check_policy, defined_names
from safe_eval.policy import parse_policy, shipped_policy


def search(query: str, limit: int = 10) -> list[str]:
    return []


def read_file(path: str) -> str:
    return ""


def delete_file(path: str) -> None:
    return None


ENV: dict[str, Any] = {"search": search, "read_file": read_file, "delete_file": delete_file, "data": [1, 2]}


def check(code: str, policy: Any = "agent", env: Any = ENV) -> list[Diagnostic]:
    return check_policy(ast.parse(code), policy, env)


def codes(code: str, policy: Any = "agent", env: Any = ENV) -> list[tuple[str, int, int]]:
    return [(d.code, d.line, d.col) for d in check(code, policy, env)]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import os", [("T001", 1, 8)]),
        ("import math, subprocess", [("T001", 1, 14)]),
        ("from os import path", [("T001", 1, 1)]),
        ("from . import x", [("T001", 1, 1)]),
        ("import collections.abc\nfrom collections.abc import Mapping", []),
        ("import math\nfrom json import dumps", []),
    ],
)
def test_imports(code: str, expected: list[tuple[str, int, int]]) -> None:
    assert codes(code, "default") == expected


def test_imports_follow_the_policy() -> None:
    assert [d.code for d in check("import math", "strict")] == ["T001"]
    assert check("import math", parse_policy("imports math")) == []
    (diag,) = check("import re", parse_policy("imports math"))
    assert diag.hint == "importable modules under policy `custom`: math"


DEFINERS = {
    "assign": "f = len\nf(1)",
    "def": "def f(): pass\nf()",
    "async def": "async def f(): pass\nf()",
    "class": "class f: pass\nf()",
    "import": "import math as f\nf()",
    "from import": "from math import sqrt as f\nf(1)",
    "param": "def g(f):\n    return f()",
    "lambda param": "g = lambda f: f()",
    "for": "for f in [len]:\n    f(1)",
    "comprehension": "[f(1) for f in [len]]",
    "with": "with open_it() as f:\n    f()",
    "except": "try:\n    pass\nexcept Exception as f:\n    f()",
    "walrus": "(f := len)\nf(1)",
    "match capture": "match 1:\n    case f:\n        f()",
    "match star": "match [1]:\n    case [*f]:\n        f()",
    "match mapping rest": "match {}:\n    case {**f}:\n        f()",
    "global": "def g():\n    global f\n    f()",
    "tuple target": "a, (b, f) = 1, (2, len)\nf(1)",
    "kwonly and varargs": "def g(*f, h, **k):\n    f(); h(); k()",
}


@pytest.mark.parametrize("code", DEFINERS.values(), ids=DEFINERS.keys())
def test_names_the_code_defines_are_not_unknown(code: str) -> None:
    names = [d for d in check(code, "default", {"open_it": None}) if d.code == "T002"]
    assert names == []
    assert "f" in defined_names(ast.parse(code))[0]


def test_unknown_names_are_reported_with_a_suggestion() -> None:
    (diag,) = check("x = serch('cats')")
    assert (diag.code, diag.name, diag.line, diag.col, diag.end_col) == ("T002", "unknown-name", 1, 5, 10)
    assert diag.message == "`serch` is not defined"
    # data names are listed apart, never as tools
    assert diag.hint == ("did you mean `search`? available tools: search, read_file; "
                         "other names the host defines: data")


def test_builtins_and_star_imports_are_not_unknown() -> None:
    assert check("print(len([1]), sorted([2]), super, isinstance(1, int))", "default") == []
    assert check("from math import *\nsqrt(2)", "default") == []


def test_tool_calls_with_constant_arguments_are_checked() -> None:
    diags = check('search("cats", 100)\nsearch("cats", 5)\nread_file("/etc/passwd")\nread_file(p)')
    # the caret points at the offending argument
    assert [(d.code, d.line, d.col, d.end_col) for d in diags] == [("T004", 1, 16, 19), ("T004", 3, 11, 24)]
    assert diags[0].message == "`search` call denied: argument `limit` must be a number in 1..50, got 100"
    assert diags[0].hint == "allowed calls: search(query: str len 1..200, limit: int in 1..50)"


def test_unknown_argument_values_are_left_to_run_time() -> None:
    assert check("search(q, n)\nsearch(q, limit=n)\nsearch(*xs)\nsearch(**kw)") == []
    # a known bad value is a denial even if others are unknown
    assert [d.code for d in check("search(q, limit=500)")] == ["T004"]
    # an argument the rule does not allow is a denial whatever its value
    assert [d.code for d in check("search(q, lang=x)")] == ["T004"]


def test_denied_tools_are_reported_whatever_the_arguments() -> None:
    policy = parse_policy('allow search(*)\ndeny delete_*(*) "deleting is never allowed"')
    (diag,) = check("delete_file(x)", policy)
    assert (diag.code, diag.name) == ("T003", "tool-not-allowed")
    assert diag.message == "calling `delete_file` is denied (deleting is never allowed)"
    assert diag.hint == 'rule: deny delete_*(*) "deleting is never allowed"'


def test_raise_denials_are_warnings_the_guest_may_still_catch_at_run_time() -> None:
    # the agent policy says `deny delete_*(*) raise "..."`: certain to refuse, so reported, but
    # as a warning (the code runs and meets a PermissionError it may catch)
    (diag,) = check("try:\n    delete_file('x')\nexcept PermissionError:\n    pass")
    assert (diag.code, diag.name, diag.severity, diag.line) == ("T005", "tool-call-raises", "warning", 2)
    assert diag.message.endswith("; the call raises PermissionError when it runs")


def test_env_tools_matching_no_allow_rule() -> None:
    env = {**ENV, "format_disk": lambda: None}
    (diag,) = check("format_disk()", env=env)
    assert diag.code == "T003"
    assert diag.message == "`format_disk` is not an allowed tool; allowed tools: search, read_file"
    assert diag.hint == "call only these tools: search, read_file"


def test_keyword_arguments_are_pointed_at() -> None:
    (diag,) = check('search(limit=0, query="q")')
    assert (diag.col, diag.end_col) == (8, 15)


def test_env_names_alone_are_enough() -> None:
    diags = check('search("x", 999)\nsend_email(to="a@b.c")', env=["search", "send_email"])
    assert [d.code for d in diags] == ["T004", "T004"]


def test_without_tool_rules_env_callables_are_granted() -> None:
    assert check("delete_file('x')", "default") == []


def test_all_violations_are_reported_at_once_in_source_order() -> None:
    code = "import os\nhelper()\nsearch('x', 0)\ndelete_file('y')\nimport subprocess"
    policy = parse_policy("extends agent\ndeny delete_*")
    assert [(d.code, d.line) for d in check(code, policy)] == [
        ("T001", 1), ("T002", 2), ("T004", 3), ("T003", 4), ("T001", 5)
    ]
    assert all(d.stage == "policy" for d in check(code, policy))


def test_shadowed_tools_are_the_guests_own() -> None:
    assert check("def delete_file(p): pass\ndelete_file('x')") == []


def test_shipped_default_is_resolved_from_none() -> None:
    assert check("import math", None) == []
    assert shipped_policy("default").tools == ()
