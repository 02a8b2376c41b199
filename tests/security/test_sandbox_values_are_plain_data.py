"""Invariant: only plain data crosses the sandbox boundary, by exact type, as tagged JSON
(never pickle). Objects with behaviour, from either side, are refused with a typed error."""

from __future__ import annotations

import pytest

from safe_eval import Evaluator, safe_eval
from safe_eval.errors import SandboxValueError


class EvilStr(str):
    def __eq__(self, other):
        raise RuntimeError("host code ran guest-chosen behaviour")

    __hash__ = str.__hash__


class Reducer:
    def __reduce__(self):
        return (print, ("unpickled!",))


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(EvilStr("x"), id="str-subclass"),
        pytest.param(Reducer(), id="object-with-reduce"),
        pytest.param({"k": [1, Reducer()]}, id="nested-object"),
        pytest.param(True.__class__, id="a-type"),
    ],
)
def test_a_host_value_with_behaviour_is_refused_at_the_boundary(value):
    with pytest.raises(SandboxValueError):
        safe_eval("v", {"v": value}, sandbox="subprocess")


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("class P:\n    pass\nP()", id="guest-instance"),
        pytest.param("class S(str):\n    pass\nS('x')", id="guest-str-subclass"),
        pytest.param("(lambda: 1)", id="guest-lambda"),
        pytest.param("x = [1]\nx.append(x)\nx", id="guest-cycle"),
        pytest.param("[[1] * 1000] * 400", id="more-items-than-the-wire-allows"),
    ],
)
def test_a_guest_result_with_behaviour_or_unbounded_size_is_refused(code):
    with pytest.raises(SandboxValueError):
        safe_eval(code, sandbox="subprocess")


@pytest.mark.parametrize("text", ["\ud800", "a\udcff\U0001f600", "\x00\u2028"])
def test_a_str_with_a_lone_surrogate_crosses_both_ways_as_in_process(text):
    # a Python str may hold a lone surrogate: it crossed neither way (the host raised
    # UnicodeEncodeError sending it; a worker answering with it crashed)
    env = {"v": text}
    assert safe_eval("w = v\nv", env, sandbox="subprocess") == text
    assert env["w"] == text


def test_guest_output_with_a_lone_surrogate_is_output_as_in_process():
    from safe_eval.sandbox.subprocess import SubprocessBackend

    code = "print('a\\ud800b')\n1"
    assert Evaluator().run(code).stdout == "a\ud800b\n"
    got: list[str] = []
    with SubprocessBackend(pool_size=0) as backend:
        result = backend.run(code, on_print=got.append)
    assert (result.value, result.stdout, "".join(got)) == (1, "a\ud800b\n", "a\ud800b\n")


@pytest.mark.parametrize("text", ["1e4299", "-1.5e-4299", "9" * 4300, "NaN", "-Infinity", "0e-4300"])
def test_a_decimal_within_the_digit_bound_crosses_both_ways(text):
    from decimal import Decimal

    value = Decimal(text)
    env = {"v": value}
    got = safe_eval("w = v\nv", env, sandbox="subprocess")
    assert str(got) == str(value) and str(env["w"]) == str(value)


@pytest.mark.parametrize("text", ["1e100000000", "1e4300", "1e-4301", "1" * 4301])
def test_a_decimal_with_too_many_digits_is_refused_both_ways(text):
    # the host's env, and what a guest computes (its context's exponent range reaches 10**9)
    from decimal import Decimal

    with pytest.raises(SandboxValueError):
        safe_eval("v", {"v": Decimal(text)}, sandbox="subprocess")
    with pytest.raises(SandboxValueError):
        safe_eval(f"import decimal\nc = decimal.getcontext()\nc.Emax = 10**9\nc.Emin = -10**9\n"
                  f"decimal.Decimal('1e4000').scaleb({Decimal(text).adjusted() - 4000})", sandbox="subprocess")


def test_a_guest_binding_of_a_decimal_with_too_many_digits_stays_in_the_worker():
    # refused where it is encoded, as a binding that is not plain data is: the run's answer
    # still crosses, without it (decoded in the host it would end the run)
    env: dict = {}
    code = ("import decimal\nc = decimal.getcontext()\nc.Emax = 10**9\n"
            "big = decimal.Decimal('1e4000').scaleb(10**6)\nsmall = 2\nbig.adjusted()")
    assert safe_eval(code, env, sandbox="subprocess") == 1_004_000
    assert env["small"] == 2 and "big" not in env
