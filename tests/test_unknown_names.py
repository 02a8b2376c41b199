"""Unknown names raise NameError when reached, as in CPython; ``check`` still warns about them."""

from __future__ import annotations

import pytest

from safe_eval import GuestError, check, safe_eval

RUNS = {
    "caught_by_name_error": ("try:\n    missing()\nexcept NameError as e:\n    r = str(e)\nr",
                             "name 'missing' is not defined"),
    "never_reached": ("if False:\n    missing()\n3", 3),
    "defined_later_in_the_program": ("def f():\n    return helper()\ndef helper():\n    return 7\nf()", 7),
    "guarded_by_a_flag": ("use = False\nout = missing() if use else 'skipped'\nout", "skipped"),
}


@pytest.mark.parametrize(("source", "expected"), RUNS.values(), ids=RUNS.keys())
def test_unknown_names_run_as_in_cpython(source: str, expected: object) -> None:
    assert safe_eval(source) == expected


def test_an_unknown_name_that_is_reached_is_a_guest_name_error() -> None:
    with pytest.raises(GuestError) as info:
        safe_eval("x = 1\nmissing(x)")
    assert (info.value.type_name, info.value.message) == ("NameError", "name 'missing' is not defined")


def test_check_warns_about_an_unknown_call_with_a_hint() -> None:
    report = check("resutl = sorted([2, 1])\nprint(sortd([3]))")
    (diag,) = report.diagnostics
    assert (diag.code, diag.severity, diag.message, diag.line, diag.col) == (
        "T002", "warning", "`sortd` is not defined", 2, 7)
    assert diag.hint.startswith("did you mean `sorted`?")
    assert report.ok and report.warnings == (diag,) and report.errors == ()
    assert report.summary() == "<safe-eval>: no violations, 1 warning (T002)"


def test_a_warning_renders_as_a_warning_and_errors_still_refuse() -> None:
    report = check("import os\nmissing()")
    assert not report.ok
    assert [d.severity for d in report.diagnostics] == ["error", "warning"]
    assert "2:1: warning: T002 [unknown-name]" in report.render()
    assert report.summary() == "<safe-eval>: 1 violation (T001), 1 warning (T002)"
