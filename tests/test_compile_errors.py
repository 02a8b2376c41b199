"""Compile-time errors: what CPython's compiler refuses, safe-eval refuses before running anything,
with CPython's message and position (P009 compile-error)."""

from __future__ import annotations

import pytest

from safe_eval import PolicyViolation, check, safe_exec

PROGRAMS = {
    "break_in_if_at_module_level": "x = 1\nif x:\n    break",
    "continue_in_function_body": "def f():\n    continue",
    "break_in_function_inside_loop": "for i in range(3):\n    def f():\n        break",
    "duplicate_argument": "def f(x, x):\n    return x",
    "duplicate_keyword_only_argument": "def f(a, *, a=1):\n    return a",
    "duplicate_lambda_argument": "g = lambda y, y: y",
    "nonlocal_at_module_level": "nonlocal x",
    "nonlocal_without_binding": "def f():\n    nonlocal q\n    q = 1",
    "return_outside_function": "x = 1\nreturn x",
    "yield_outside_function": "yield 1",
    # top-level await is allowed (as IPython allows it); in a plain function or class body not
    "await_outside_async_function": "def f():\n    await g",
    "await_in_a_class_body": "class A:\n    await g",
    "assigned_before_global": "def f():\n    x = 1\n    global x",
    "used_before_global": "def f():\n    print(x)\n    global x",
    "parameter_declared_global": "def f(x):\n    global x",
    "two_starred_targets": "a, *b, *c = [1, 2, 3]",
    "lone_starred_target": "*a = [1]",
    "future_import_not_first": "x = 1\nfrom __future__ import annotations",
    "future_braces": "from __future__ import braces",
    "default_except_not_last": "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass",
    "return_with_value_in_async_generator": "async def f():\n    yield 1\n    return 2",
    "walrus_in_comprehension_iterable": "[y for x in (y := [1])]",
    "yield_in_comprehension": "def f():\n    return [(yield x) for x in range(3)]",
    "non_ascii_line": "é = 1; break",
}


@pytest.mark.parametrize("source", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_compile_errors_are_refused_with_cpythons_message_and_position(source: str) -> None:
    with pytest.raises(SyntaxError) as cpython:
        compile(source, "<cpython>", "exec", dont_inherit=True)
    with pytest.raises(PolicyViolation) as info:
        safe_exec(source, {"g": 1})
    (diag,) = [d for d in info.value.diagnostics if d.code == "P009"]
    line_text = source.split("\n")[diag.line - 1]
    cpython_col = len(line_text.encode()[: (cpython.value.offset or 1) - 1].decode()) + 1
    assert (diag.name, diag.severity, diag.message, diag.line, diag.col) == (
        "compile-error", "error", cpython.value.msg, cpython.value.lineno, cpython_col)


def test_a_compile_error_stops_the_program_before_its_first_line_runs() -> None:
    env: dict[str, object] = {}
    with pytest.raises(PolicyViolation):
        safe_exec("ran = True\nif ran:\n    break", env)
    assert "ran" not in env


def test_check_reports_a_compile_error_with_the_other_violations() -> None:
    report = check("import os\ndef f(x, x):\n    return x")
    assert [(d.code, d.line) for d in report.diagnostics] == [("T001", 1), ("P009", 2)]


@pytest.mark.parametrize(
    "source",
    ["x = 1\nx is 1", "t = (1, 2)\nok = callable(t)\nif ok:\n    t(1)"],
    ids=["is_with_a_literal", "tuple_called"],
)
def test_compiler_warnings_are_not_errors(source: str) -> None:
    assert check(source).ok
