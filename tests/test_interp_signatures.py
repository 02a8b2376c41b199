"""Guest functions as host callables: real signatures, fresh budgets, typed errors."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import pytest

from safe_eval import GuestError, LimitExceeded, safe_callable, safe_eval, safe_exec
from safe_eval.errors import OpLimit, RecursionLimit

P = inspect.Parameter


def test_signature_names_defaults_and_kinds() -> None:
    ns = safe_exec("def f(a, /, b, c=3, *args, d, e=5, **kw): return a")
    sig = inspect.signature(ns["f"])
    assert [(p.name, p.kind) for p in sig.parameters.values()] == [
        ("a", P.POSITIONAL_ONLY), ("b", P.POSITIONAL_OR_KEYWORD), ("c", P.POSITIONAL_OR_KEYWORD),
        ("args", P.VAR_POSITIONAL), ("d", P.KEYWORD_ONLY), ("e", P.KEYWORD_ONLY), ("kw", P.VAR_KEYWORD),
    ]
    assert sig.parameters["c"].default == 3
    assert sig.parameters["e"].default == 5
    assert sig.parameters["b"].default is P.empty


def test_signature_binds_like_the_function() -> None:
    ns = safe_exec("def f(x, y=2): return x * y")
    bound = inspect.signature(ns["f"]).bind(4)
    bound.apply_defaults()
    assert ns["f"](*bound.args, **bound.kwargs) == 8


def test_signature_annotations_are_resolved_types_never_text() -> None:
    ns = safe_exec("def f(xs: list[int], k: 'int' = 1) -> int: return sum(xs) * k")
    sig = inspect.signature(ns["f"])
    assert sig.parameters["xs"].annotation == list[int]
    assert sig.parameters["k"].annotation is int
    assert sig.return_annotation is int
    assert ns["f"]([1, 2], 3) == 9


def test_host_call_gets_a_fresh_budget_each_time() -> None:
    ns = safe_exec("def spin(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t",
                   limits={"ops": 20_000})
    spin = ns["spin"]
    assert spin(5_000) == sum(range(5_000))
    assert spin(5_000) == sum(range(5_000))  # the first call's ops are not charged again
    with pytest.raises(OpLimit):
        spin(100_000)


def test_host_call_raises_guest_error_with_traceback() -> None:
    ns = safe_exec("def bad(x):\n    return 10 // x")
    with pytest.raises(GuestError) as info:
        ns["bad"](0)
    assert info.value.type_name == "ZeroDivisionError"
    assert info.value.traceback[-1].name == "bad"


def test_host_call_recursion_is_limited() -> None:
    ns = safe_exec("def down(n):\n    return down(n + 1)")
    with pytest.raises(RecursionLimit):
        ns["down"](0)


def test_host_call_wrong_arguments_is_a_guest_type_error() -> None:
    ns = safe_exec("def f(a, b): return a + b")
    with pytest.raises(GuestError) as info:
        ns["f"](1)
    assert info.value.message == "f() missing 1 required positional argument: 'b'"


def test_guest_function_output_is_captured_not_printed(capsys: pytest.CaptureFixture[str]) -> None:
    ns = safe_exec("def shout():\n    print('loud')\n    return 1")
    assert ns["shout"]() == 1
    assert capsys.readouterr().out == ""


def test_guest_functions_work_with_host_functools() -> None:
    ns = safe_exec("def add(a, b): return a + b")
    assert functools.reduce(ns["add"], [1, 2, 3]) == 6
    assert functools.partial(ns["add"], 10)(5) == 15
    assert sorted([3, 1, 2], key=safe_exec("def neg(v): return -v")["neg"]) == [3, 2, 1]


def test_guest_decorator_with_wraps_keeps_metadata() -> None:
    code = (
        "import functools\n"
        "def deco(fn):\n"
        "    @functools.wraps(fn)\n"
        "    def wrapper(*a, **k):\n"
        "        return fn(*a, **k) + 1\n"
        "    return wrapper\n"
        "@deco\n"
        "def base(x, y=1):\n"
        "    return x * y\n"
        "(base.__name__, base(3, 2))"
    )
    assert safe_eval(code) == ("base", 7)


def test_methods_bind_like_python_methods() -> None:
    ns = safe_exec("class C:\n    def __init__(self, k): self.k = k\n    def get(self, add=0): return self.k + add\n"
                   "c = C(5)")
    method = ns["c"].get
    assert method() == 5 and method(add=2) == 7
    assert list(inspect.signature(method).parameters) == ["add"]


def test_safe_callable_checks_expected_type() -> None:
    fn = safe_callable("def total(xs: list[int]) -> int:\n    return sum(xs)", "total",
                       expected=Callable[[list[int]], int])
    assert fn([1, 2, 3]) == 6
    assert list(inspect.signature(fn).parameters) == ["xs"]
    with pytest.raises(TypeError):
        fn(["a"])


def test_safe_callable_refuses_wrong_arity_and_types() -> None:
    with pytest.raises(GuestError):
        safe_callable("def f(a, b): return a", "f", expected=Callable[[int], int])
    with pytest.raises(GuestError):
        safe_callable("def f(a: str) -> int: return 1", "f", expected=Callable[[int], int])


def test_safe_callable_checks_the_result() -> None:
    fn = safe_callable("def f(a):\n    return str(a)", expected=Callable[[int], int])
    with pytest.raises(GuestError):
        fn(3)


def test_safe_callable_calls_are_limited() -> None:
    fn = safe_callable("def f():\n    while True:\n        pass", limits={"time": 0.2})
    with pytest.raises(LimitExceeded):
        fn()


def test_annotations_are_recorded_as_types_in_order() -> None:
    ns = safe_exec("class P:\n    b: int = 0\n    a: 'list[str]'\n    c: dict\n"
                   "def f(x: 'int', y: list[int] = []) -> dict: pass")
    assert list(ns["P"].__annotations__.items()) == [("b", int), ("a", list[str]), ("c", dict)]
    assert ns["f"].__annotations__ == {"x": int, "y": list[int], "return": dict}
