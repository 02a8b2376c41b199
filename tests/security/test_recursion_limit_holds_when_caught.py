"""Invariant: the guest recursion limit holds even when the guest catches its RecursionError.

The depth check (``Budget.too_deep``) raises CPython's ``RecursionError``, which guest code may
catch as in CPython; it must never let a guest that catches it recurse deeper, nor let guest
code forge the mark that turns an uncaught one into ``RecursionLimit``.
"""

from __future__ import annotations

import pytest

from safe_eval import safe_exec
from safe_eval.errors import GuestError, PolicyViolation, RecursionLimit
from safe_eval.limits import Limits

LIMITS = Limits(recursion=8, time=10)

DEEPEST = (
    "depth = 0\n"
    "def down(n):\n"
    "    global depth\n"
    "    depth = max(depth, n)\n"
    "    try:\n"
    "        down(n + 1)\n"
    "    except RecursionError:\n"
    "        down(n + 1)\n"  # retry deeper from inside the handler
)


def test_a_guest_that_catches_recursion_error_and_retries_cannot_go_deeper() -> None:
    # every retry from a handler is refused by the same depth check; the last one escapes the
    # outermost handler and ends the run as RecursionLimit, the deepest frame never past 8
    code = DEEPEST + "try:\n    down(1)\nexcept RecursionError as e:\n    r = (depth, str(e))\n"
    assert safe_exec(code, limits=LIMITS)["r"] == (8, "maximum recursion depth exceeded")
    with pytest.raises(RecursionLimit) as info:
        safe_exec(DEEPEST + "down(1)\n", limits=LIMITS)
    assert info.value.value == 8


def test_the_deepest_frame_a_catching_guest_reaches_is_the_limit() -> None:
    code = (
        "depth = 0\n"
        "def down(n):\n"
        "    global depth\n"
        "    depth = max(depth, n)\n"
        "    try:\n"
        "        down(n + 1)\n"
        "    except RecursionError:\n"
        "        pass\n"
        "down(1)\n"
    )
    assert safe_exec(code, limits=LIMITS)["depth"] == 8


@pytest.mark.parametrize(
    "code",
    [
        "e = RecursionError('x')\ne.__safe_eval_depth_limit__ = 5\nraise e",
        "e = RecursionError('x')\nsetattr(e, '__safe_eval_depth_limit__', 5)\nraise e",
        "e = RecursionError('x')\ne.__dict__['__safe_eval_depth_limit__'] = 5\nraise e",
    ],
    ids=["attribute", "setattr", "dict"],
)
def test_guest_code_cannot_forge_the_depth_mark(code: str) -> None:
    # a guest RecursionError stays a guest error; forging the mark is refused before or at run
    with pytest.raises((GuestError, PolicyViolation)) as info:
        safe_exec(code, limits=LIMITS)
    assert not isinstance(info.value, RecursionLimit)


def test_a_guest_cannot_catch_the_hosts_own_recursion_error_and_go_on() -> None:
    # with a guest limit far above what the host stack holds, the host's RecursionError trips
    # somewhere in host code (maybe half-way through the membrane's bookkeeping): it ends the
    # run as RecursionLimit instead of reaching the guest's handler
    code = (
        "n = 0\ndef f():\n    global n\n    n += 1\n    f()\n"
        "try:\n    f()\nexcept RecursionError:\n    caught = n\n"
    )
    with pytest.raises(RecursionLimit) as info:
        safe_exec(code, limits=Limits(recursion=1_000_000, time=10))
    assert "host stack exhausted" in str(info.value)


def test_a_recursion_error_the_guest_raises_itself_is_still_its_own_to_catch() -> None:
    code = "try:\n    raise RecursionError('mine')\nexcept RecursionError as e:\n    r = str(e)\n"
    assert safe_exec(code)["r"] == "mine"
