"""Issue 12, feedback a model can act on: each reproducer as the user wrote it, with the exact
message, place and shape the user (or the model reading it) gets back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from safe_eval import Evaluator, GuestError, Limits, PolicyViolation, check, safe_eval
from safe_eval import errors as errors_module
from safe_eval.diagnostics import Diagnostic
from safe_eval.errors import (
    ConcurrentCall,
    InternalError,
    LimitExceeded,
    MemoryLimit,
    OpLimit,
    OutputLimit,
    PolicyError,
    RecursionLimit,
    SafeEvalError,
    SandboxCrashed,
    SandboxError,
    SandboxUnavailable,
    SandboxValueError,
    TimeLimit,
)
from safe_eval.rules import IMPORT_NOT_ALLOWED


def search(query: str, limit: int = 10) -> list[str]:
    return [query] * min(limit, 2)


def delete_file(path: str) -> None:
    raise AssertionError("never called: the policy denies it")


def _guest_error(code: str, env: dict[str, Any] | None = None, **kwargs: Any) -> GuestError:
    with pytest.raises(GuestError) as info:
        safe_eval(code, env, **kwargs)
    return info.value


# -- a missing attribute says what CPython says ----------------------------------------------------
MISSING = {
    "list_method_typo": ("[1, 2].apend(3)", "'list' object has no attribute 'apend'. Did you mean: 'append'?"),
    "dict_method_typo": ("{}.iterms()", "'dict' object has no attribute 'iterms'. Did you mean: 'items'?"),
    "str_method_typo": ("'abc'.uper()", "'str' object has no attribute 'uper'. Did you mean: 'upper'?"),
    "type_attribute_typo": ("str.uper", "type object 'str' has no attribute 'uper'. Did you mean: 'upper'?"),
    "no_close_name": ("(1).foo", "'int' object has no attribute 'foo'"),
    "module_class_instance": ("import collections\ncollections.Counter('ab').most_comon(1)",
                              "'Counter' object has no attribute 'most_comon'. Did you mean: 'most_common'?"),
    "regex_pattern": ("import re\nre.compile('a').serch('a')",
                      "'Pattern' object has no attribute 'serch'. Did you mean: 'search'?"),
}


@pytest.mark.parametrize("code, message", MISSING.values(), ids=MISSING.keys())
def test_a_missing_attribute_gets_cpythons_message_and_suggestion(code: str, message: str) -> None:
    err = _guest_error(code)
    assert (err.type_name, err.message) == ("AttributeError", message)


def test_hasattr_on_a_missing_attribute_is_false_as_in_cpython() -> None:
    assert safe_eval("hasattr([1, 2], 'apend'), hasattr([1, 2], 'append')") == (False, True)


def test_only_readable_names_are_suggested() -> None:
    # `__reduce_ex__` is close to `reduce_ex` but is not a name the guest may read
    err = _guest_error("[].reduce_ex")
    assert err.message == "'list' object has no attribute 'reduce_ex'"


def test_an_attribute_that_exists_and_is_refused_keeps_not_accessible() -> None:
    err = _guest_error("def f():\n    pass\nf.foo")
    assert err.message == "'Function' object attribute 'foo' is not accessible in safe-eval"


# -- check(): tools, data, one diagnostic per problem -----------------------------------------------
def test_a_policys_allowed_tools_count_as_defined_in_check() -> None:
    report = check("hits = search('cats', limit=5)\nlen(hits)", "agent")
    assert report.diagnostics == ()


def test_an_allowed_tool_called_with_refused_constants_is_still_reported_without_env() -> None:
    (diag,) = check("search('cats', limit=500)", "agent").diagnostics
    assert (diag.code, diag.line, diag.col) == ("T004", 1, 16)


def test_data_names_are_not_called_available_tools_in_hints() -> None:
    (diag,) = check("summ(rows)", env={"rows": [1, 2], "search": search}).diagnostics
    assert diag.code == "T002"
    assert diag.hint == ("did you mean `sum`? available tools: search; "
                         "other names the host defines: rows")


def test_a_forbidden_builtin_gets_one_diagnostic() -> None:
    report = check("data = open('secrets.txt').read()")
    assert [(d.code, d.name) for d in report.diagnostics] == [("R001", "forbidden-builtin")]


def test_a_call_a_deny_raise_rule_certainly_refuses_is_reported_by_check() -> None:
    code = "try:\n    delete_file('notes.txt')\nexcept PermissionError as e:\n    print(e)"
    report = check(code, "agent", env={"delete_file": delete_file})
    (diag,) = report.diagnostics
    assert (diag.code, diag.name, diag.severity, diag.line, diag.col) == (
        "T005", "tool-call-raises", "warning", 2, 5)
    assert diag.message == ("calling `delete_file` is denied (deleting is never allowed: tell the user which "
                            "file to delete instead); the call raises PermissionError when it runs")
    assert report.ok  # a warning: the code may mean to catch it, and runs


# -- locations ---------------------------------------------------------------------------------------
def test_a_run_time_denial_carries_the_real_line_and_column() -> None:
    code = "query = 'x' * 300\nfor attempt in range(1):\n    hits = search(query)"
    with pytest.raises(PolicyViolation) as info:
        Evaluator("agent", filename="step3.py").run(code, {"search": search})
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.stage, diag.line, diag.col, diag.end_col) == ("T004", "runtime", 3, 5, 25)
    assert str(info.value).splitlines()[:3] == [
        "step3.py:3:5: T004 [tool-argument-denied] `search` call denied: argument `query` must have "
        "length 1..200, got length 300",
        "        hits = search(query)",
        "        " + "^" * len("hits = search(query)"),
    ]
    assert (info.value.filename, info.value.line, info.value.col) == ("step3.py", 3, 5)


def test_a_refused_host_value_is_placed_where_the_guest_touched_it() -> None:
    import os

    with pytest.raises(PolicyViolation) as info:
        safe_eval("x = 1\n\npath = tools.path", {"tools": os})
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.line, diag.col) == ("E401", 3, 1)
    assert "\n    path = tools.path\n    ^^^^^^^^^^^^^^^^^\n" in str(info.value)


def test_a_lambda_frame_shows_its_line_and_source() -> None:
    err = _guest_error("scale = lambda x: 10 / x\n\nscale(0)")
    assert err.render() == "\n".join([
        "Traceback (most recent call last):",
        '  File "<safe-eval>", line 3, in <module>',
        "    scale(0)",
        '  File "<safe-eval>", line 1, in <lambda>',
        "    scale = lambda x: 10 / x",
        "ZeroDivisionError: division by zero",
    ])


def test_raise_from_renders_the_cause() -> None:
    code = ("def parse(text):\n    try:\n        return int(text)\n    except ValueError as e:\n"
            "        raise RuntimeError('bad input') from e\nparse('x')")
    err = _guest_error(code)
    assert err.render() == "\n".join([
        "Traceback (most recent call last):",
        '  File "<safe-eval>", line 3, in parse',
        "    return int(text)",
        "ValueError: invalid literal for int() with base 10: 'x'",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "<safe-eval>", line 6, in <module>',
        "    parse('x')",
        '  File "<safe-eval>", line 5, in parse',
        "    raise RuntimeError('bad input') from e",
        "RuntimeError: bad input",
    ])
    assert err.cause is not None and err.cause.type_name == "ValueError"
    assert err.to_dict()["cause"]["type"] == "ValueError"


def test_the_evaluator_filename_names_static_violations() -> None:
    with pytest.raises(PolicyViolation) as info:
        Evaluator(filename="agent_step_2.py").run("import os")
    assert str(info.value).startswith("agent_step_2.py:1:8: T001 [import-not-allowed]")
    assert info.value.to_dict()["filename"] == "agent_step_2.py"


def test_str_of_a_guest_error_includes_the_location() -> None:
    with pytest.raises(GuestError) as info:
        Evaluator(filename="step.py").run("x = 1\ny = x / 0")
    assert str(info.value) == "step.py:2:1: ZeroDivisionError: division by zero"
    assert (info.value.line, info.value.col) == (2, 1)


def test_a_limit_renders_its_line_with_a_caret() -> None:
    with pytest.raises(OpLimit) as info:
        Evaluator(limits=Limits(ops=5_000), filename="loop.py").run("total = 0\nwhile True:\n    total += 1")
    lines = info.value.render().splitlines()
    assert lines[0].startswith("loop.py:")
    assert lines[0].endswith(": OpLimit: too many operations (limit ops=5000, reached 5001) at line "
                             f"{info.value.line}")
    assert lines[1].strip() in ("while True:", "total += 1")
    assert lines[2].strip() == "^"


# -- every error class renders and serialises -------------------------------------------------------
def _every_error() -> dict[str, SafeEvalError]:
    diag = IMPORT_NOT_ALLOWED.diagnostic((1, 8, 1, 10), what="import of `os`")
    return {
        "PolicyViolation": PolicyViolation([diag], "import os", filename="a.py"),
        "GuestError": GuestError("ValueError", "bad"),
        "LimitExceeded": LimitExceeded("too much", value=1, reached=2, line=3),
        "TimeLimit": TimeLimit(value=1.0),
        "OpLimit": OpLimit(value=10, reached=11),
        "MemoryLimit": MemoryLimit(),
        "RecursionLimit": RecursionLimit(),
        "OutputLimit": OutputLimit(),
        "SandboxError": SandboxError("backend failed"),
        "SandboxUnavailable": SandboxUnavailable("bwrap is not installed"),
        "SandboxCrashed": SandboxCrashed("worker died", signal=9, stderr="oops"),
        "SandboxValueError": SandboxValueError("not plain data"),
        "PolicyError": PolicyError("unexpected ','", filename="p.policy", line=2, col=9,
                                   source_line="imports ,,"),
        "InternalError": InternalError("a bug"),
        "ConcurrentCall": ConcurrentCall("another host call into this run's results is under way"),
        "SafeEvalError": SafeEvalError("generic"),
    }


def test_the_list_above_covers_every_error_class_of_the_module() -> None:
    classes = {name for name in errors_module.__all__
               if isinstance(getattr(errors_module, name), type)
               and issubclass(getattr(errors_module, name), SafeEvalError)}
    assert classes | {"SafeEvalError"} == set(_every_error())


@pytest.mark.parametrize("name", sorted(_every_error()), ids=sorted(_every_error()))
def test_every_error_has_render_and_a_json_able_to_dict_with_the_stable_keys(name: str) -> None:
    err = _every_error()[name]
    data = err.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert {"error", "message", "filename", "line", "col", "stdout"} <= set(data)
    assert (data["error"], data["stdout"]) == (name, "")
    err.stdout = "step 1 done\n"  # what a run sets on the error it raises
    assert err.to_dict()["stdout"] == "step 1 done\n"
    assert isinstance(err.render(), str) and err.render()


def test_to_dict_of_a_failed_run_carries_what_it_printed_before_the_error() -> None:
    with pytest.raises(GuestError) as info:
        safe_eval('print("step 1 done")\n1/0')
    data = info.value.to_dict()
    assert (data["stdout"], data["type"], data["line"]) == ("step 1 done\n", "ZeroDivisionError", 2)


def test_a_policy_error_renders_its_line_and_caret() -> None:
    assert _every_error()["PolicyError"].render() == "\n".join([
        "p.policy:2:9: unexpected ','", "    imports ,,", "            ^"])


def test_a_diagnostic_placed_at_run_time_keeps_its_rule() -> None:
    diag = Diagnostic("T004", "tool-argument-denied", "denied", 0, 0, 0, 0, "runtime")
    assert diag.placed(4, 5, 12) == Diagnostic("T004", "tool-argument-denied", "denied", 4, 5, 4, 12, "runtime")


def test_check_takes_tools_as_safe_eval_does() -> None:
    def search(query: str, limit: int = 10) -> list[str]:
        return []

    # a tool passed as tools= is defined, and its signature places the arguments for the rules
    assert check("search('cats', limit=5)", tools=[search]).ok
    assert check("search('cats', limit=5)", tools={"search": search}).ok
    (diag,) = check("find('cats')", tools=[search]).diagnostics
    assert "find" in diag.message
    (diag,) = check("search('cats', limit=500)", "agent", tools=[search]).diagnostics
    assert "limit" in diag.message
