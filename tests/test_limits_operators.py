"""Guarded binary operators: same results and errors as ``operator`` on normal inputs, a limit
error before the host allocates or computes too much."""

from __future__ import annotations

import ast
import operator
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from safe_eval.context import RunContext, activate
from safe_eval.errors import LimitExceeded, MemoryLimit, TimeLimit
from safe_eval.limits import Budget, Limits
from safe_eval.limits.operators import guarded_binop, guarded_contains
from safe_eval.policy.model import default_policy

OPS: dict[tuple[type[ast.operator], bool], Callable[[Any, Any], Any]] = {
    (ast.Mult, False): operator.mul,
    (ast.Mult, True): operator.imul,
    (ast.Pow, False): operator.pow,
    (ast.Pow, True): operator.ipow,
    (ast.LShift, False): operator.lshift,
    (ast.LShift, True): operator.ilshift,
    (ast.Add, False): operator.add,
    (ast.Add, True): operator.iadd,
    (ast.Mod, False): operator.mod,
    (ast.Mod, True): operator.imod,
    (ast.FloorDiv, False): operator.floordiv,
    (ast.FloorDiv, True): operator.ifloordiv,
}


class Weird:
    """A guest-like object with reflected dunders and __index__."""

    def __index__(self) -> int:
        return 2

    def __rmul__(self, other: Any) -> str:
        return "rmul"

    def __radd__(self, other: Any) -> str:
        return "radd"


OPERANDS: list[Any] = [
    0,
    1,
    -3,
    7,
    2**70,
    -(2**65),
    True,
    2.5,
    -0.0,
    1j,
    "ab",
    b"xy",
    bytearray(b"q"),
    [1, 2],
    (3,),
    {1},
    None,
    "%s-%d",
    "%5.2f",
    Weird(),
]
PAIRS = [(a, b) for a in OPERANDS for b in OPERANDS]


def _outcome(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> tuple[str, Any]:
    # Copy mutable operands so in-place forms see the same inputs.
    a = a.copy() if isinstance(a, list | bytearray | set) else a
    try:
        return ("ok", fn(a, b))
    except Exception as exc:  # comparing error types and messages
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("key", list(OPS), ids=lambda k: f"{k[0].__name__}{'=' if k[1] else ''}")
def test_guarded_matches_operator(key: tuple[type[ast.operator], bool]) -> None:
    guarded = guarded_binop(*key)
    assert guarded is not None
    plain = OPS[key]
    mismatches = []
    for a, b in PAIRS:
        if isinstance(a, Weird) or isinstance(b, Weird) and key[0] is not ast.Mult:
            continue
        if key[0] is ast.Pow and isinstance(b, int) and b > 1000 and a not in (0, 1, -1):
            continue  # the plain operator would run for hours: that is what the guard is for
        if _outcome(guarded, a, b) != _outcome(plain, a, b):
            mismatches.append((a, b, _outcome(guarded, a, b), _outcome(plain, a, b)))
    assert mismatches == []


def test_reflected_and_index_on_repeat() -> None:
    mul = guarded_binop(ast.Mult)
    assert mul is not None
    assert mul([1], Weird()) == "rmul"
    assert mul("ab", 3) == "ababab" and mul(2, (1,)) == (1, 1)


# ``-`` and ``/`` are guarded since Fraction/Decimal operands can run a quadratic gcd or an
# exact conversion in one C call (see limits/numbers.py and tests/test_dos_iteration.py).
@pytest.mark.parametrize("op", [ast.BitAnd, ast.MatMult, ast.RShift])
def test_safe_operators_are_not_wrapped(op: type[ast.operator]) -> None:
    assert guarded_binop(op) is None and guarded_binop(op, True) is None


@given(st.integers(), st.integers(min_value=-(2**80), max_value=2**80))
def test_int_mul_add_mod_match(a: int, b: int) -> None:
    for key in [(ast.Mult, False), (ast.Add, False), (ast.Mod, False), (ast.FloorDiv, False)]:
        guarded = guarded_binop(*key)
        assert guarded is not None
        assert _outcome(guarded, a, b) == _outcome(OPS[key], a, b)


@given(st.integers(min_value=-(2**40), max_value=2**40), st.integers(min_value=-5, max_value=200))
def test_int_pow_shift_match(a: int, b: int) -> None:
    for key in [(ast.Pow, False), (ast.LShift, False)]:
        guarded = guarded_binop(*key)
        assert guarded is not None
        assert _outcome(guarded, a, b) == _outcome(OPS[key], a, b)


BOMBS: list[tuple[str, type[ast.operator], Any, Any, type[LimitExceeded]]] = [
    ("str_repeat", ast.Mult, "a", 10**10, MemoryLimit),
    ("list_repeat", ast.Mult, [0], 10**9, MemoryLimit),
    ("repeat_reversed", ast.Mult, 10**9, (0, 1), MemoryLimit),
    ("bytes_repeat", ast.Mult, b"ab", 10**12, MemoryLimit),
    ("pow_huge", ast.Pow, 2, 10**10, MemoryLimit),
    ("pow_slow", ast.Pow, 3, 10**8, TimeLimit),
    ("shift_huge", ast.LShift, 1, 10**11, MemoryLimit),
    ("bigint_mul", ast.Mult, 1 << 2**27, (1 << 2**27) - 1, TimeLimit),
    ("bigint_div", ast.FloorDiv, 1 << 2**28, (1 << 2**27) + 1, TimeLimit),
    ("bigint_mod", ast.Mod, 1 << 2**28, (1 << 2**27) + 1, TimeLimit),
    ("percent_width", ast.Mod, "%1000000000d", 1, MemoryLimit),
    ("percent_star", ast.Mod, "%*d", (10**9, 1), MemoryLimit),
    ("percent_precision", ast.Mod, "%.1000000000f", 1.0, MemoryLimit),
    ("concat_big", ast.Add, "a" * 2**20, "b" * 2**20, MemoryLimit),
]


@pytest.mark.timeout(10)
@pytest.mark.parametrize(("name", "op", "a", "b", "error"), BOMBS, ids=[b[0] for b in BOMBS])
def test_bombs_raise_before_running(
    name: str, op: type[ast.operator], a: Any, b: Any, error: type[LimitExceeded]
) -> None:
    guarded = guarded_binop(op)
    assert guarded is not None
    memory = 2 * 1024 * 1024 if name == "concat_big" else 64 * 1024 * 1024
    budget = Budget(Limits(time=0.5, memory=memory))
    start = time.monotonic()
    with activate(RunContext(budget=budget, policy=default_policy())), pytest.raises(error):
        guarded(a, b)
    # The unguarded operation takes seconds to hours; the guard refuses at once.
    assert time.monotonic() - start < 1.0


def test_inplace_list_extend_is_counted() -> None:
    import itertools

    iadd = guarded_binop(ast.Add, True)
    assert iadd is not None
    budget = Budget(Limits(time=5, ops=50_000))
    target: list[int] = []
    with activate(RunContext(budget=budget, policy=default_policy())), pytest.raises(LimitExceeded):
        iadd(target, itertools.count())
    assert len(target) <= 60_000
    assert iadd([1], (2, 3)) == [1, 2, 3]


def test_contains_on_endless_iterator() -> None:
    import itertools

    budget = Budget(Limits(ops=20_000))
    assert guarded_contains(3, [1, 2, 3]) and not guarded_contains("z", "abc")
    with activate(RunContext(budget=budget, policy=default_policy())):
        assert guarded_contains(5, itertools.count())
        with pytest.raises(LimitExceeded):
            guarded_contains(-1, itertools.count())
