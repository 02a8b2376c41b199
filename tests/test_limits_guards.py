"""Guarded builtins, constructors, methods and module functions: identical to CPython on
normal inputs, a limit error before a bomb runs."""

from __future__ import annotations

import builtins
import itertools
import math
import time
from collections.abc import Callable
from typing import Any

import pytest

from safe_eval.context import RunContext, activate
from safe_eval.errors import LimitExceeded, MemoryLimit, OpLimit, RecursionLimit, TimeLimit
from safe_eval.limits import Budget, Limits
from safe_eval.limits.guards import (
    GUARDED_BUILTINS,
    GUARDED_CONSTRUCTORS,
    GUARDED_METHODS,
    GUARDED_MODULE_ATTRS,
)
from safe_eval.policy.model import default_policy


class Fresh:
    """An iterator argument, re-created for each call (an iterator is consumed by the first)."""

    def __init__(self, items: Any) -> None:
        self.items = items


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any]:
    args = tuple(iter(a.items) if isinstance(a, Fresh) else a for a in args)
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # comparing error types and messages
        return (type(exc).__name__, str(exc))


NORMAL: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("sum", ([1, 2, 3],), {}),
    ("sum", ([[1], [2]], []), {}),
    ("sum", ((0.5, 1),), {"start": 2}),
    ("sum", (["a"], ""), {}),
    ("sum", (5,), {}),
    ("min", ([3, 1, 2],), {}),
    ("min", (3, 1), {}),
    ("min", ([],), {}),
    ("min", ([],), {"default": 7}),
    ("max", ("abc",), {"key": ord}),
    ("max", (), {}),
    ("sorted", ({3: 1, 1: 2},), {"reverse": True}),
    ("sorted", ([1, "a"],), {}),
    ("any", ([0, 0, 1],), {}),
    ("all", (Fresh([1, 0]),), {}),
    ("any", (3,), {}),
    ("format", (3.14159, ".2f"), {}),
    ("format", (42, ">8"), {}),
    ("format", (42, "x"), {}),
    ("pow", (3, 4, 5), {}),
    ("pow", (2, -1), {}),
    ("pow", (2.0, 0.5), {}),
    ("divmod", (7, -2), {}),
    ("repr", ([1, "a"],), {}),
    ("ascii", ("é",), {}),
]


@pytest.mark.parametrize(
    ("name", "args", "kwargs"), NORMAL, ids=[f"{n}{i}" for i, (n, _, _) in enumerate(NORMAL)]
)
def test_builtins_match(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    assert _outcome(GUARDED_BUILTINS[name], args, kwargs) == _outcome(getattr(builtins, name), args, kwargs)


CONSTRUCT: list[tuple[type, tuple[Any, ...], dict[str, Any]]] = [
    (list, (), {}),
    (list, ("ab",), {}),
    (list, (range(5),), {}),
    (list, (1,), {}),
    (tuple, ({1: 2},), {}),
    (set, ([1, 1],), {}),
    (frozenset, (Fresh("ab"),), {}),
    (dict, ([(1, 2)],), {"a": 3}),
    (dict, ({"a": 1},), {}),
    (dict, ([1],), {}),
    (bytes, (3,), {}),
    (bytes, ([65, 66],), {}),
    (bytes, ("é", "utf-8"), {}),
    (bytes, (-1,), {}),
    (bytearray, (b"x",), {}),
    (str, (), {}),
    (str, (123,), {}),
    (str, (b"ab", "ascii"), {}),
    (int, ("42",), {}),
    (int, ("ff", 16), {}),
    (int, ("x",), {}),
    (int, (3.9,), {}),
]


@pytest.mark.parametrize(
    ("cls", "args", "kwargs"), CONSTRUCT, ids=[f"{c.__name__}{i}" for i, (c, _, _) in enumerate(CONSTRUCT)]
)
def test_constructors_match(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    assert _outcome(GUARDED_CONSTRUCTORS[cls], args, kwargs) == _outcome(cls, args, kwargs)


METHODS: list[tuple[Any, str, tuple[Any, ...]]] = [
    ("ab", "ljust", (5, "*")),
    ("ab", "rjust", (1,)),
    ("ab", "center", (6,)),
    ("-5", "zfill", (4,)),
    ("a\tb", "expandtabs", (4,)),
    (",", "join", (["a", "b"],)),
    (",", "join", (Fresh(["0", "1"]),)),
    (",", "join", ([1],)),
    ("aXbX", "replace", ("X", "yy")),
    ("aaa", "replace", ("", "-", 2)),
    ("a b  c", "split", ()),
    ("a,b", "rsplit", (",", 1)),
    ("abc", "translate", ({97: "zz"},)),
    (b"ab", "ljust", (4,)),
    (b"a,b", "split", (b",",)),
    (b",", "join", ([b"x", b"y"],)),
    ([1], "extend", (range(3),)),
    ([3, 1], "sort", ()),
    ({1}, "union", ([2], (3,))),
    ({1, 2}, "issubset", (range(5),)),
    (frozenset({1}), "union", ("ab",)),
    ({}, "update", ([(1, 2)],)),
    ({}, "fromkeys", ("ab", 0)),
    (5, "to_bytes", (2, "big")),
]


@pytest.mark.parametrize(
    ("obj", "name", "args"), METHODS, ids=[f"{type(o).__name__}.{n}" for o, n, _ in METHODS]
)
def test_methods_match(obj: Any, name: str, args: tuple[Any, ...]) -> None:
    guarded = GUARDED_METHODS[type(obj)][name]
    mine = obj.copy() if hasattr(obj, "copy") else obj
    theirs = obj.copy() if hasattr(obj, "copy") else obj
    assert _outcome(guarded, (mine, *args), {}) == _outcome(getattr(theirs, name), args, {})
    assert mine == theirs


def test_module_attrs_match() -> None:
    m, it = GUARDED_MODULE_ATTRS["math"], GUARDED_MODULE_ATTRS["itertools"]
    assert m["factorial"](20) == math.factorial(20) and m["comb"](10, 3) == math.comb(10, 3)
    assert m["perm"](5) == math.perm(5) and m["perm"](5, 2) == math.perm(5, 2)
    assert m["prod"]([2, 3], start=2) == math.prod([2, 3], start=2)
    assert list(it["product"]("ab", repeat=2)) == list(itertools.product("ab", repeat=2))
    assert list(it["permutations"]([1, 2, 3], 2)) == list(itertools.permutations([1, 2, 3], 2))
    assert list(it["combinations"](range(4), 2)) == list(itertools.combinations(range(4), 2))
    cwr = it["combinations_with_replacement"]
    assert list(cwr("ab", 2)) == list(itertools.combinations_with_replacement("ab", 2))


def _deep() -> list[Any]:
    a: list[Any] = []
    for _ in range(100_000):
        a = [a]
    return a


BOMBS: list[tuple[str, Callable[[], Any], type[LimitExceeded]]] = [
    ("sum_count", lambda: GUARDED_BUILTINS["sum"](itertools.count()), LimitExceeded),
    ("max_range", lambda: GUARDED_BUILTINS["max"](range(10**18)), OpLimit),
    ("any_count", lambda: GUARDED_BUILTINS["any"](itertools.repeat(0)), LimitExceeded),
    ("sum_lists", lambda: GUARDED_BUILTINS["sum"]([[0] * 10_000] * 10_000, []), LimitExceeded),
    ("format_width", lambda: GUARDED_BUILTINS["format"](1, ">1000000000"), MemoryLimit),
    ("pow_mod_huge", lambda: GUARDED_BUILTINS["pow"](3, 1 << 10**5, (1 << 10**6) + 1), TimeLimit),
    ("repr_deep", lambda: GUARDED_BUILTINS["repr"](_deep()), RecursionLimit),
    ("list_range", lambda: GUARDED_CONSTRUCTORS[list](range(10**18)), LimitExceeded),
    ("tuple_count", lambda: GUARDED_CONSTRUCTORS[tuple](itertools.count()), LimitExceeded),
    ("bytes_huge", lambda: GUARDED_CONSTRUCTORS[bytes](10**10), MemoryLimit),
    (
        "dict_count",
        lambda: GUARDED_CONSTRUCTORS[dict](zip(itertools.count(), itertools.count())),
        LimitExceeded,
    ),
    ("ljust", lambda: GUARDED_METHODS[str]["ljust"]("a", 10**10), MemoryLimit),
    ("zfill", lambda: GUARDED_METHODS[bytes]["zfill"](b"1", 10**10), MemoryLimit),
    ("expandtabs", lambda: GUARDED_METHODS[str]["expandtabs"]("\t" * 1000, 10**7), MemoryLimit),
    ("join_count", lambda: GUARDED_METHODS[str]["join"]("", map(str, itertools.count())), LimitExceeded),
    ("replace", lambda: GUARDED_METHODS[str]["replace"]("a" * 10**5, "a", "b" * 10**5), MemoryLimit),
    ("extend_count", lambda: GUARDED_METHODS[list]["extend"]([], itertools.count()), LimitExceeded),
    ("set_update", lambda: GUARDED_METHODS[set]["update"](set(), itertools.count()), LimitExceeded),
    ("to_bytes", lambda: GUARDED_METHODS[int]["to_bytes"](1, 10**10, "big"), MemoryLimit),
    ("factorial", lambda: GUARDED_MODULE_ATTRS["math"]["factorial"](10**8), LimitExceeded),
    ("comb", lambda: GUARDED_MODULE_ATTRS["math"]["comb"](10**9, 10**8), LimitExceeded),
    ("product", lambda: GUARDED_MODULE_ATTRS["itertools"]["product"](range(10), repeat=10**8), MemoryLimit),
    ("product_count", lambda: GUARDED_MODULE_ATTRS["itertools"]["product"](itertools.count()), LimitExceeded),
    (
        "cwr",
        lambda: GUARDED_MODULE_ATTRS["itertools"]["combinations_with_replacement"]("ab", 10**9),
        MemoryLimit,
    ),
]


@pytest.mark.timeout(20)
@pytest.mark.parametrize(("name", "bomb", "error"), BOMBS, ids=[b[0] for b in BOMBS])
def test_bombs_hit_a_limit(name: str, bomb: Callable[[], Any], error: type[LimitExceeded]) -> None:
    limits = Limits(time=0.5, memory=64 * 1024 * 1024)
    budget = Budget(limits)
    start = time.monotonic()
    with activate(RunContext(budget=budget, policy=default_policy())), pytest.raises(error):
        bomb()
    assert time.monotonic() - start < limits.time + 1.0
