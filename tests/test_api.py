"""The public API: safe_eval / safe_exec / Evaluator / Result, env write-back and errors."""

from __future__ import annotations

import math

import pytest

import safe_eval as se
from safe_eval import (
    Evaluator,
    GuestError,
    Limits,
    PolicyViolation,
    Result,
    SafeEvalError,
    safe_eval,
    safe_exec,
)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("1 + 1", 2),
        ("x = 3\nx * 2", 6),
        ("x = 3", None),
        ("if True:\n    5", None),  # only a trailing expression statement is the value
        ("", None),
        ("def f(): return 4\nf()", 4),
        ("print('a')", None),
    ],
)
def test_value_is_the_last_expression_statement(code: str, expected: object) -> None:
    assert safe_eval(code) == expected


def test_env_values_are_visible() -> None:
    assert safe_eval("x + 1", {"x": 41}) == 42
    assert safe_eval("sqrt(n)", {"sqrt": math.sqrt, "n": 16}) == 4.0


def test_env_write_back_new_rebound_and_deleted() -> None:
    env = {"a": 1, "b": [1], "gone": 0}
    safe_eval("a = a + 1\nb.append(2)\nc = 'new'\ndel gone", env)
    assert env == {"a": 2, "b": [1, 2], "c": "new"}


def test_repl_loop_keeps_state_in_one_dict() -> None:
    env: dict[str, object] = {}
    safe_eval("def sq(v): return v * v", env)
    safe_eval("acc = []", env)
    for i in range(3):
        safe_eval(f"acc.append(sq({i}))", env)
    assert safe_eval("acc", env) == [0, 1, 4]


def test_env_written_back_even_when_the_code_fails() -> None:
    env: dict[str, object] = {}
    with pytest.raises(GuestError):
        safe_eval("done = 1\nraise ValueError('x')", env)
    assert env["done"] == 1


def test_read_only_mapping_env_is_not_written() -> None:
    from types import MappingProxyType

    env = MappingProxyType({"x": 2})
    assert safe_eval("y = x * 3\ny", env) == 6
    assert dict(env) == {"x": 2}


@pytest.mark.parametrize("env", [[("x", 1)], "x=1", 42])
def test_env_must_be_a_mapping(env: object) -> None:
    with pytest.raises(TypeError):
        safe_eval("1", env)  # type: ignore[arg-type]


def test_env_keys_must_be_str() -> None:
    with pytest.raises(TypeError):
        safe_eval("1", {1: 2})  # type: ignore[dict-item]


def test_safe_exec_returns_the_namespace() -> None:
    ns = safe_exec("a = 1\ndef f(): return a + 1\nb = f()")
    assert ns["a"] == 1 and ns["b"] == 2 and callable(ns["f"])
    assert "__builtins__" not in ns


def test_result_has_value_stdout_ops_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    r = Evaluator().run("for i in range(3):\n    print(i)\n'end'")
    assert isinstance(r, Result)
    assert (r.value, r.stdout) == ("end", "0\n1\n2\n")
    assert r.ops >= 3 and r.seconds >= 0
    assert capsys.readouterr().out == ""  # never written to the host's stdout


def test_echo_writes_to_host_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    r = Evaluator(echo=True).run("print('shown')")
    assert r.stdout == "shown\n"
    assert capsys.readouterr().out == "shown\n"


def test_evaluator_caches_compiled_programs() -> None:
    ev = Evaluator()
    first = ev.compile("x = 1\nx + 1")
    assert ev.compile("x = 1\nx + 1") is first
    assert ev.eval("x = 1\nx + 1") == 2


def test_cache_is_bounded() -> None:
    ev = Evaluator(cache_size=4)
    for i in range(10):
        ev.eval(f"{i} + 1")
    assert len(ev._cache) == 4


def test_limits_precedence_call_over_evaluator_over_policy() -> None:
    ev = Evaluator(limits={"ops": 10_000})
    assert ev.limits.ops == 10_000
    with pytest.raises(se.LimitExceeded):
        ev.eval("while True: pass")
    assert ev.eval("sum(range(10))", limits=Limits(ops=1_000_000)) == 45
    with pytest.raises(se.LimitExceeded):
        safe_eval("while True: pass", limits={"ops": 5_000})


def test_bad_limits_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        safe_eval("1", limits=5)  # type: ignore[arg-type]


@pytest.mark.parametrize("code", ["import os", "open('/etc/passwd')", "x.__subclasses__()", "def f(:"])
def test_static_violations_raise_policy_violation(code: str) -> None:
    with pytest.raises(PolicyViolation) as info:
        safe_eval(code, {"x": 1})
    assert info.value.diagnostics


@pytest.mark.parametrize("code", [None, 12, ["1"]])
def test_non_text_code_is_a_clear_error(code: object) -> None:
    with pytest.raises(SafeEvalError):
        safe_eval(code)


def test_guest_error_renders_like_cpython() -> None:
    with pytest.raises(GuestError) as info:
        safe_eval("def f():\n    raise KeyError('k')\nf()")
    assert info.value.render().splitlines()[-1] == "KeyError: 'k'"
    assert info.value.to_dict()["type"] == "KeyError"


def test_policy_by_name() -> None:
    assert safe_eval("1 + 2", policy="default") == 3


def test_public_exports() -> None:
    for name in ("safe_eval", "safe_exec", "safe_callable", "Evaluator", "Result", "check", "Report"):
        assert name in se.__all__ and hasattr(se, name)


def test_nested_eval_and_exec_builtins_share_the_budget() -> None:
    assert safe_eval("eval('1 + 2')") == 3
    with pytest.raises(se.LimitExceeded):
        safe_eval("exec('while True: pass')", limits={"ops": 5_000})


def test_repl_functions_see_later_bindings() -> None:
    env: dict[str, object] = {}
    safe_eval("def b():\n    return 1\nLIMIT = 10", env)
    safe_eval("def a():\n    return b() + LIMIT", env)
    assert safe_eval("a()", env) == 11
    safe_eval("def b():\n    return 2", env)  # a() sees the rebinding, as with exec(code, env)
    safe_eval("LIMIT = 20", env)
    assert safe_eval("a()", env) == 22


def test_repl_sees_changes_the_host_makes_between_calls() -> None:
    env: dict[str, object] = {"k": 1}
    safe_eval("def get():\n    return k", env)
    env["k"] = 5
    assert safe_eval("get()", env) == 5
    del env["k"]
    with pytest.raises(GuestError):
        safe_eval("get()", env)


def test_safe_exec_without_env_returns_a_fresh_namespace() -> None:
    assert safe_exec("a = 1") == {"a": 1}
    assert safe_exec("b = 2") == {"b": 2}
