"""Unit tests of the membrane's entry points, called directly (no interpreter)."""

from __future__ import annotations

import collections
import datetime
import functools
import json
import math
import os
import string
import sys
import types
from typing import Any

import pytest

from safe_eval.interpreter.identity import register_guest_class as mark
from safe_eval.membrane import (
    BUILTINS,
    builtin_names,
    del_attr,
    enter_value,
    expose,
    format_value,
    get_attr,
    guest_exception,
    set_attr,
)
from safe_eval.membrane.formatter import safe_format, safe_format_map
from safe_eval.membrane.typeview import GUARDED_TYPE, OpaqueType

U = "__"


@mark
class Guest:
    """Stands for a class the guest defined."""

    def __init__(self) -> None:
        self.x = 1
        self._private = 2

    def method(self) -> int:
        return self.x


def host_function() -> None:
    pass


# -- get_attr: refused ----------------------------------------------------------------------
REFUSED_READS = [
    ((), "__class__.__base__"),
    (tuple, "__base__"),
    (tuple, "__bases__"),
    (tuple, "__mro__"),
    (object, "__subclasses__"),
    (int, "mro"),
    (object, "__getattribute__"),
    (object, "__init_subclass__"),
    (object, "__reduce_ex__"),
    (host_function, "__globals__"),
    (host_function, "__code__"),
    (host_function, "__closure__"),
    (host_function, "__builtins__"),
    (len, "__self__"),
    (math.sqrt, "__self__"),
    ("abc".upper, "__self__"),
    (functools.partial(print), "func.__self__"),
    (Guest, "__dict__"),
    (Guest, "__subclasses__"),
    (Guest, "__base__"),
    (Guest, "mro"),
    (Guest(), "__init__.__globals__"),
    (Guest(), "method.__func__.__globals__"),
    (Guest(), "__class__.__base__"),
    (Guest(), "__reduce_ex__"),
    (ValueError("x"), "__traceback__"),
    (ValueError("x"), "with_traceback"),
    (AttributeError("x", name="n", obj=os), "obj"),
    ({}.keys(), "mapping"),
    (types.SimpleNamespace(os=os), "os"),
    (json, "codecs"),
    (sys, "modules"),
    (datetime.date(2020, 1, 1), "_year"),
    ("x", "__class__.__subclasses__"),
    ("x", "\uff3f\uff3fclass\uff3f\uff3f"),
]


def _walk(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = get_attr(obj, part)
    return obj


@pytest.mark.parametrize(("obj", "path"), REFUSED_READS, ids=[p for _, p in REFUSED_READS])
def test_refused_reads(obj: Any, path: str) -> None:
    with pytest.raises(AttributeError):
        _walk(obj, path)


# -- get_attr: allowed ----------------------------------------------------------------------
ALLOWED_READS = [
    ("abc", "upper", lambda v: v() == "ABC"),
    (str, "upper", lambda v: v("a") == "A"),
    (int, "__name__", lambda v: v == "int"),
    (host_function, "__name__", lambda v: v == "host_function"),
    (3, "__class__", lambda v: v is int),
    (3, "real", lambda v: v == 3),
    ([1], "append", callable),
    ({"a": 1}, "items", lambda v: list(v()) == [("a", 1)]),
    (dict, "fromkeys", lambda v: v("ab", 0) == {"a": 0, "b": 0}),
    (Guest(), "x", lambda v: v == 1),
    (Guest(), "_private", lambda v: v == 2),
    (Guest(), "__class__", lambda v: v is Guest),
    (Guest(), "__dict__", lambda v: v == {"x": 1, "_private": 2}),
    (Guest(), "method", lambda v: v() == 1),
    (Guest, "__name__", lambda v: v == "Guest"),
    (Guest, "__mro__", lambda v: v == (Guest, object)),
    (ValueError("m"), "args", lambda v: v == ("m",)),
    (StopIteration(5), "value", lambda v: v == 5),
    (datetime.date(2020, 1, 2), "year", lambda v: v == 2020),
    (collections.Counter("aab"), "most_common", lambda v: v(1) == [("a", 2)]),
    (1, "__add__", lambda v: v(2) == 3),
]


@pytest.mark.parametrize(("obj", "name", "check"), ALLOWED_READS, ids=[n for _, n, _ in ALLOWED_READS])
def test_allowed_reads(obj: Any, name: str, check: Any) -> None:
    assert check(get_attr(obj, name))


def test_type_of_type_is_the_guarded_type() -> None:
    assert get_attr(int, "__class__") is GUARDED_TYPE
    assert get_attr(Guest, "__class__") is GUARDED_TYPE
    with pytest.raises(TypeError, match="class X cannot derive from type"):
        GUARDED_TYPE("X", (type,), {})  # the three-argument form builds guest classes only
    assert GUARDED_TYPE(3) is int
    assert isinstance(int, GUARDED_TYPE)  # type: ignore[misc, arg-type]


def test_attribute_name_must_be_a_string() -> None:
    with pytest.raises(TypeError):
        get_attr("x", 3)  # type: ignore[arg-type]


def test_unbound_object_setattr_is_guarded() -> None:
    setter = get_attr(object, U + "setattr" + U)
    g = Guest()
    setter(g, "y", 5)
    assert g.y == 5  # type: ignore[attr-defined]
    ns = types.SimpleNamespace()
    with pytest.raises(AttributeError):
        setter(ns, "y", 5)
    with pytest.raises(AttributeError):
        setter(g, U + "class" + U, int)


# -- set_attr / del_attr --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("obj", "name"),
    [
        (math, "pi"),
        (types.SimpleNamespace(a=1), "a"),
        (int, "x"),
        (host_function, "__code__"),
        (host_function, "attr"),
        (Guest(), "__class__"),
        (Guest, "__getattribute__"),
        (Guest, "__init_subclass__"),
        (Guest, "__bases__"),
        (Guest, "__del__"),
    ],
)
def test_refused_writes(obj: Any, name: str) -> None:
    with pytest.raises(AttributeError):
        set_attr(obj, name, 0)
    with pytest.raises(AttributeError):
        del_attr(obj, name)


def test_guest_objects_are_writable() -> None:
    g = Guest()
    set_attr(g, "y", 2)
    set_attr(g, "_z", 3)
    assert (g.y, g._z) == (2, 3)  # type: ignore[attr-defined]
    del_attr(g, "y")
    assert not hasattr(g, "y")
    with pytest.raises(AttributeError, match="function the code defined"):
        set_attr(Guest, "__eq__", lambda a, b: True)  # host-callable: a type slot would run it unbudgeted
    set_attr(Guest, "__hash__", None)
    assert Guest.__hash__ is None
    del_attr(Guest, "__hash__")
    assert "__eq__" not in Guest.__dict__ and "__hash__" not in Guest.__dict__


# -- enter_value ----------------------------------------------------------------------------
def test_plain_data_enters_as_is() -> None:
    data = {"a": [1, 2.0, "s", (None, True)], "b": {1, 2}, "c": frozenset({b"x"})}
    assert enter_value(data) is data
    big = list(range(100_000))
    assert enter_value(big) is big


@pytest.mark.parametrize(
    "value",
    [exec, eval, compile, open, getattr, vars, os.system, os.path.join, sys.exit, type, types.FunctionType,
     functools.partial(exec, "1"), string.Formatter().vformat, os, os.path, sys._getframe(), host_function.__code__],
    ids=lambda v: getattr(v, "__name__", type(v).__name__),
)
def test_dangerous_values_are_refused(value: Any) -> None:
    from safe_eval.errors import PolicyViolation

    entered = enter_value(value)
    if value is type:
        assert entered is GUARDED_TYPE
        return
    with pytest.raises(PolicyViolation):
        entered()
    with pytest.raises(PolicyViolation):
        get_attr(entered, "anything")


def test_containers_holding_host_values_are_copied_with_wrapped_items() -> None:
    funcs = [exec, 1]
    entered = enter_value(funcs)
    assert entered is not funcs and entered[1] == 1 and "refused" in repr(entered[0])


def test_tools_hide_the_function_and_enter_results() -> None:
    calls = []

    def search(q: str) -> Any:
        calls.append(q)
        return os

    tool = enter_value(search, name="search")
    assert get_attr(tool, "__name__") == "search"
    for name in (U + "globals" + U, U + "code" + U, U + "closure" + U, U + "wrapped" + U, "func"):
        with pytest.raises(AttributeError):
            get_attr(tool, name)
    from safe_eval.context import RunContext, activate
    from safe_eval.limits.budget import Budget
    from safe_eval.limits.model import Limits
    from safe_eval.policy import default_policy

    with activate(RunContext(Budget(Limits()), default_policy())):
        result = tool("q")
    assert calls == ["q"] and "refused" in repr(result)


def test_host_objects_are_opaque_unless_exposed() -> None:
    class Account:
        def __init__(self) -> None:
            self.owner = "alice"
            self._key = "secret"

        def deposit(self, n: int) -> int:
            return n

    hidden = enter_value(Account())
    assert repr(hidden) == "<Account object>"
    with pytest.raises(AttributeError):
        get_attr(hidden, "owner")
    shown = enter_value(expose(Account(), attrs=["owner"], writable=["owner"]))
    assert get_attr(shown, "owner") == "alice"
    # assigning a writable attribute is a tool call: decided by the running policy
    from safe_eval.context import RunContext, activate
    from safe_eval.limits.budget import Budget
    from safe_eval.limits.model import Limits
    from safe_eval.policy import default_policy

    with activate(RunContext(Budget(Limits()), default_policy())):
        set_attr(shown, "owner", "bob")
    assert get_attr(shown, "owner") == "bob"
    with pytest.raises(AttributeError):
        get_attr(shown, "_key")
    with pytest.raises(ValueError):
        expose(Account(), attrs=[U + "dict" + U])
    assert isinstance(GUARDED_TYPE(shown), OpaqueType)
    with pytest.raises(TypeError):
        GUARDED_TYPE(shown)(Account())


# -- exceptions -----------------------------------------------------------------------------
def test_guest_exception_strips_host_state() -> None:
    try:
        try:
            raise KeyError(os)
        except KeyError as inner:
            raise AttributeError("x", name="n", obj=os) from inner
    except AttributeError as exc:
        err = guest_exception(exc)
    assert err.__traceback__ is None and err.obj is None  # type: ignore[attr-defined]
    cause = err.__cause__
    assert isinstance(cause, KeyError) and cause.__traceback__ is None
    assert cause.args == ("<module object>",)


# -- formatting -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("template", "args"),
    [
        ("{0.__globals__}", (host_function,)),
        ("{0.__class__}", (1,)),
        ("{0._private}", (Guest(),)),
        ("{0[__builtins__]}", ({"__builtins__": 1},)),
        ("{0.os}", (types.SimpleNamespace(os=os),)),
        ("{0[0]}", (collections.OrderedDict({0: 1}),)),
    ],
)
def test_format_refuses_walking(template: str, args: tuple[Any, ...]) -> None:
    with pytest.raises((ValueError, AttributeError)):
        safe_format(template, *args)
    with pytest.raises((ValueError, AttributeError)):
        get_attr(template, "format")(*args)


def test_format_plain_fields_work() -> None:
    assert safe_format("{0} {x[1]} {y[k]} {g.x:>3}", 1, x=[0, 2], y={"k": "v"}, g=Guest()) == "1 2 v   1"
    assert safe_format_map("{a!r:>5}", {"a": "s"}) == "  's'"
    assert format_value(3.14159, ".2f") == "3.14"


# -- builtins -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["open", "compile", "__import__", "globals", "locals", "breakpoint", "input", "help",
             "memoryview", "exit", "quit", "__build_class__"]
)
def test_builtin_absent(name: str) -> None:
    assert name not in BUILTINS and name not in builtin_names()


def test_builtin_names_include_super_and_guarded_ones() -> None:
    names = builtin_names()
    assert {"super", "getattr", "len", "print", "eval", "exec", "type", "ValueError"} <= names


def test_builtin_getattr_goes_through_the_membrane() -> None:
    ga = BUILTINS["getattr"]
    with pytest.raises(AttributeError):
        ga((), U + "class" + U + "x")
    assert ga((), "nope", 5) == 5
    assert BUILTINS["hasattr"](object, U + "subclasses" + U) is False
    with pytest.raises(TypeError):
        BUILTINS["vars"]()
    with pytest.raises(TypeError, match="class X may not define __del__"):
        BUILTINS["type"]("X", (), {"__del__": print})
