"""Limits validation and the Budget's accounting, driven directly (no interpreter needed)."""

from __future__ import annotations

import time

import pytest

from safe_eval.errors import MemoryLimit, OpLimit, OutputLimit, TimeLimit
from safe_eval.limits import Budget, Limits
from safe_eval.limits.budget import depth_limit_of


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("time", 0, ValueError),
        ("time", -1.5, ValueError),
        ("time", float("nan"), ValueError),
        ("time", float("inf"), ValueError),
        ("time", "2s", TypeError),
        ("ops", 0, ValueError),
        ("ops", 1.5, TypeError),
        ("ops", True, TypeError),
        ("memory", -1, ValueError),
        ("memory", None, TypeError),
        ("recursion", 0, ValueError),
        ("output", "64KiB", TypeError),
    ],
)
def test_limits_reject_bad_fields(field: str, value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match=f"Limits.{field}"):
        Limits(**{field: value})  # type: ignore[arg-type]


def test_limits_merge_and_off() -> None:
    base = Limits()
    merged = base.merged({"time": 0.5, "ops": None})
    assert (merged.time, merged.ops) == (0.5, base.ops)
    assert base.merged(None) is base
    with pytest.raises(TypeError, match="unknown limit"):
        base.merged({"cpu": 1})
    off = Limits.off()
    assert off.ops >= 10**18 and off.time >= 1e9 and off.recursion == base.recursion


def test_ops_limit_counts_deterministically() -> None:
    b = Budget(Limits(ops=10_000))
    with pytest.raises(OpLimit) as info:
        for _ in range(20_000):
            b.fuel -= 1
            if b.fuel < 0:
                b.refuel()
    # exactly `ops` operations are allowed; the next one fails
    assert info.value.value == 10_000 and info.value.reached == 10_001


def test_exhausted_budget_stays_exhausted() -> None:
    b = Budget(Limits(ops=100))
    with pytest.raises(OpLimit):
        b.charge(1000)
    for check in (lambda: b.charge(1), lambda: b.check_alloc(10), lambda: b.write("x"), b.check_time):
        with pytest.raises(OpLimit):
            check()


def test_time_limit_from_refuel() -> None:
    b = Budget(Limits(time=0.05))
    start = time.monotonic()
    with pytest.raises(TimeLimit) as info:
        while True:
            b.fuel -= 1
            if b.fuel < 0:
                b.refuel()
    assert time.monotonic() - start < 0.5
    assert info.value.value == 0.05 and info.value.reached >= 0.05


def test_sleep_is_cut_at_the_deadline() -> None:
    b = Budget(Limits(time=0.2))
    b.sleep(0.01)  # fits: no error
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        b.sleep(30)
    assert time.monotonic() - start < 0.4
    with pytest.raises(ValueError):
        Budget(Limits()).sleep(-1)


def test_check_work_refuses_long_host_calls() -> None:
    b = Budget(Limits(time=1.0))
    b.check_work(1e6)  # 1 ms: fine, charged as ops
    assert b.ops_used >= 1e6 // 50
    with pytest.raises(TimeLimit, match="would take too long"):
        b.check_work(5e9)


def test_check_alloc_and_memory_growth() -> None:
    b = Budget(Limits(memory=50 * 1024 * 1024))
    b.check_alloc(1024)
    with pytest.raises(MemoryLimit) as info:
        b.check_alloc(60 * 1024 * 1024)
    assert info.value.value == 50 * 1024 * 1024
    # Growth by many small allocations is seen at the next refuel (RSS sampling).
    b2 = Budget(Limits(memory=30 * 1024 * 1024))
    hoard = []
    with pytest.raises(MemoryLimit):
        for _ in range(10_000):
            hoard.append(bytearray(1024 * 1024))
            b2.charge(4096)
    assert len(hoard) < 200
    del hoard


def test_recursion_and_output() -> None:
    b = Budget(Limits(recursion=3, output=5))
    with pytest.raises(RecursionError) as depth:
        for _ in range(10):
            b.depth += 1
            if b.depth > b.max_depth:
                b.too_deep()
    assert b.depth == 3 and depth_limit_of(depth.value) == 3 and b.exhausted is None
    assert depth_limit_of(RecursionError("guest-made")) is None
    b2 = Budget(Limits(output=5))
    b2.write("abc")
    with pytest.raises(OutputLimit) as info:
        b2.write("def")
    assert info.value.reached == 6 and b2.stdout == "abc"
