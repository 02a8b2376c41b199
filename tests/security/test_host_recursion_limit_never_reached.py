"""Invariant: nested host-to-guest calls stop at the budget's cap, never at CPython's own limit.

When CPython's recursion limit trips inside a type slot's method lookup it clears the error and
falls back (a recursive ``__eq__`` answers False, ``__repr__`` gives the default repr): a silent
wrong answer. ``Function.__call__`` (every host call back into guest code) counts the nesting
in ``Budget.host_calls`` and raises the guest's ``RecursionError`` at ``stack.HOST_CALL_CAP``,
well before the host's limit, whatever ``Limits.recursion`` allows.
"""

from __future__ import annotations

import pytest

from safe_eval import safe_eval
from safe_eval.errors import RecursionLimit
from safe_eval.limits import Limits
from safe_eval.limits.stack import HOST_CALL_CAP

# the guest depth limit far above any host limit: only the host-call cap can stop these
DEEP = Limits(recursion=100_000, time=30)

# each recurses through a C routine that calls back into guest code; ``n`` counts the levels
REENTRANT = {
    "eq_dunder": "class A:\n    def __eq__(self, other):\n        bump()\n        return self == other\n"
                 "A() == A()",
    "lt_dunder": "class A:\n    def __lt__(self, other):\n        bump()\n        return self < other\n"
                 "A() < A()",
    "init_dunder": "class A:\n    def __init__(self):\n        bump()\n        A()\nA()",
    "bool_dunder": "class A:\n    def __bool__(self):\n        bump()\n        return bool(self)\nbool(A())",
    "len_dunder": "class A:\n    def __len__(self):\n        bump()\n        return len(self)\nlen(A())",
    "contains_dunder": "class A:\n    def __contains__(self, x):\n        bump()\n        return x in self\n"
                       "1 in A()",
    "property_getter": "class A:\n    @property\n    def p(self):\n        bump()\n        return self.p\nA().p",
    "sorted_key": "def k(x):\n    bump()\n    return sorted([1], key=k)\nk(1)",
    "map_callback": "def k(x):\n    bump()\n    return list(map(k, [1]))\nk(1)",
    "getattr_fallback": "class A:\n    def __getattr__(self, name):\n        bump()\n        return self.missing\n"
                        "A().missing",
}

PROLOGUE = "n = 0\ndef bump():\n    global n\n    n += 1\n"


def _levels_then_outcome(body: str) -> tuple[int, str]:
    code = PROLOGUE + "try:\n" + "".join(f"    {line}\n" for line in body.split("\n"))
    code += "    r = 'returned'\nexcept RecursionError as e:\n    r = str(e)\n(n, r)"
    result = safe_eval(code, limits=DEEP)
    assert isinstance(result, tuple)
    return result


@pytest.mark.parametrize("name", sorted(REENTRANT))
def test_host_calls_back_into_guest_code_nest_at_most_the_cap(name: str) -> None:
    # the guest catches CPython's RecursionError at the cap (the first level may be a direct
    # guest call, not a host call); without the cap the host's own limit trips in a slot
    # lookup and the recursion "returns" a fallback answer, or ends as RecursionLimit
    levels, outcome = _levels_then_outcome(REENTRANT[name])
    assert outcome == "maximum recursion depth exceeded"
    assert HOST_CALL_CAP <= levels <= HOST_CALL_CAP + 1


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("recursive_eq", "class A:\n    def __eq__(self, other):\n        return self == other\nA() == A()"),
        ("recursive_ne", "class A:\n    def __ne__(self, other):\n        return self != other\nA() != A()"),
        ("recursive_repr", "class A:\n    def __repr__(self):\n        return repr(self)\nrepr(A())"),
        ("recursive_repr_in_list", "class A:\n    def __repr__(self):\n        return repr([self])\nrepr(A())"),
        ("recursive_str", "class A:\n    def __str__(self):\n        return str(self)\nstr(A())"),
        ("recursive_hash", "class A:\n    def __hash__(self):\n        return hash(self)\nhash(A())"),
    ],
)
def test_a_recursive_dunder_never_answers_with_cpythons_fallback(name: str, code: str) -> None:
    # uncaught, the recursion ends the run as RecursionLimit: never False / '<A object at ...>'
    with pytest.raises(RecursionLimit):
        safe_eval(code, limits=DEEP)


def test_the_cap_applies_per_run_and_unwinds() -> None:
    # nesting is counted, not accumulated: a run that reached the cap and caught it can make
    # as many host-to-guest calls as it likes afterwards
    code = (
        PROLOGUE + "class A:\n    def __eq__(self, other):\n        bump()\n        return self == other\n"
        "try:\n    A() == A()\nexcept RecursionError:\n    pass\n"
        "sorted(range(3000), key=lambda x: -x)[:2]"
    )
    assert safe_eval(code, limits=DEEP) == [2999, 2998]


@pytest.mark.parametrize("call", ["repr(A())", "str([A()])", "hash(A())", "A() == A()"])
def test_the_recursion_error_of_a_recursive_dunder_is_the_guests_to_catch(call: str) -> None:
    # as in CPython; a builtin converting nested-data recursion into RecursionLimit leaves the
    # guest's own RecursionError alone
    code = (
        "class A:\n    def __repr__(self):\n        return repr(self)\n"
        "    def __hash__(self):\n        return hash(self)\n"
        "    def __eq__(self, other):\n        return self == other\n"
        f"try:\n    {call}\n    r = 'returned'\nexcept RecursionError:\n    r = 'caught'\nr"
    )
    assert safe_eval(code, limits=DEEP) == "caught"


# A tool that evaluates the guest's code again, which calls the tool again: runs nested in
# runs. On one thread the host recursion limit bounds them; a nested run moved to a thread with
# a larger C stack (its own memory limit needs more than its caller's thread has) starts that
# thread's Python stack empty, so the chain of such threads must be bounded where they start
# (it ran on, one thread per level, until the test's timeout).
@pytest.mark.timeout(120)
@pytest.mark.parametrize("thread", ["main", "other"])
def test_runs_nested_through_a_tool_without_end_stop_with_a_recursion_limit(thread: str) -> None:
    import threading

    from safe_eval import SafeEvalError

    code = "evaluate(code)"
    outcome: list[object] = []

    def evaluate(src: str) -> object:
        return safe_eval(src, {"evaluate": evaluate, "code": src}, limits={"time": 60})

    def session() -> None:
        try:
            outcome.append(evaluate(code))
        except SafeEvalError as e:
            outcome.append(e)

    if thread == "main":
        session()
    else:
        worker = threading.Thread(target=session, daemon=True)
        worker.start()
        worker.join(90)
    assert len(outcome) == 1 and isinstance(outcome[0], RecursionLimit), outcome
