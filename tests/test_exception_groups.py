"""``except*``, ``ExceptionGroup`` and exception notes behave as in CPython (3.11+); on 3.10
``except*`` is a syntax error with a diagnostic that says why."""

from __future__ import annotations

import sys

import pytest
from _interp_diff import same_outcome

from safe_eval import check

SHOW = (
    "def show(x):\n    if isinstance(x, BaseExceptionGroup):\n"
    "        return (type(x).__name__, x.message, [show(y) for y in x.exceptions])\n    return repr(x)\n"
)
PROGRAMS = {
    "naked_exception_matched_then_new_raised": "try:\n    raise ValueError(1)\nexcept* ValueError:\n    raise TypeError(2)",
    "naked_exception_reraised_is_wrapped": "try:\n    raise ValueError(1)\nexcept* ValueError:\n    raise",
    "naked_exception_unmatched_goes_on_naked": "try:\n    raise ValueError(1)\nexcept* TypeError:\n    pass",
    "naked_exception_bound_as_a_group": (
        "r = None\ntry:\n    raise ValueError(1)\nexcept* ValueError as e:\n    r = repr(e)\nr"),
    "new_exception_grouped_before_the_rest": (
        "try:\n    raise ExceptionGroup('g', [ValueError(1), TypeError(2)])\nexcept* ValueError:\n"
        "    raise KeyError(3)"),
    "bare_raise_keeps_the_nesting": (
        "try:\n    raise ExceptionGroup('g', [ValueError(1), TypeError(2), ExceptionGroup('h', [ValueError(4)])])\n"
        "except* ValueError:\n    raise"),
    "except_star_of_a_group_type_is_a_type_error": (
        "try:\n    raise ExceptionGroup('g', [ValueError(1)])\nexcept* ExceptionGroup:\n    pass"),
    "except_star_of_a_non_exception_is_a_type_error": (
        "try:\n    raise ExceptionGroup('g', [ValueError(1)])\nexcept* int:\n    pass"),
    "clauses_else_and_finally": (
        "log = []\ntry:\n    raise ExceptionGroup('g', [ValueError(1), TypeError(2), KeyError(3)])\n"
        "except* ValueError as e:\n    log.append(show(e))\nexcept* (TypeError, KeyError) as e:\n"
        "    log.append(show(e))\nelse:\n    log.append('else')\nfinally:\n    log.append('fin')\nlog"),
    "else_runs_without_an_exception": (
        "log = []\ntry:\n    log.append(1)\nexcept* ValueError:\n    log.append(2)\nelse:\n    log.append('else')\nlog"),
    "unmatched_part_reaches_an_outer_except": (
        "try:\n    try:\n        raise ExceptionGroup('g', [ValueError(1), TypeError(2)])\n"
        "    except* ValueError:\n        pass\nexcept ExceptionGroup as eg:\n    r = show(eg)\nr"),
    "new_exception_has_the_matched_part_as_context": (
        "try:\n    try:\n        raise ExceptionGroup('g', [ValueError(1), TypeError(2)])\n"
        "    except* ValueError:\n        raise KeyError('k')\nexcept ExceptionGroup as eg:\n"
        "    r = show(eg), repr(eg.exceptions[0].__context__)\nr"),
    "group_split_and_subgroup": (
        "eg = ExceptionGroup('g', [ValueError(1), TypeError(2), ValueError(3)])\nm, r = eg.split(ValueError)\n"
        "(show(m), show(r), show(eg.subgroup(TypeError)))"),
    "notes_are_added_and_read": "e = ValueError('bad')\ne.add_note('first')\ne.add_note('second')\ne.__notes__",
    "notes_travel_with_a_raised_exception": (
        "try:\n    try:\n        raise KeyError('k')\n    except KeyError as e:\n        e.add_note('while loading')\n"
        "        raise\nexcept KeyError as e:\n    r = e.__notes__\nr"),
}


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* and ExceptionGroup are new in 3.11")
@pytest.mark.parametrize("source", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_exception_groups_behave_as_in_cpython(source: str) -> None:
    expected, got = same_outcome(SHOW + source)
    assert got == expected


# What leaves an ``except*`` statement, with its whole chain (``__context__``, ``__cause__``,
# ``__suppress_context__``) as CPython gives it: one exception alone, never grouped; nothing
# chained to the exception being handled (CPython re-raises without chaining).
LEAVING = {
    "a-new-exception-alone-after-every-part-was-handled": (
        "try:\n    raise ExceptionGroup('eg', [ValueError(1), KeyError(2)])\nexcept* ValueError:\n    pass\n"
        "except* KeyError:\n    raise TypeError('t')\n"),
    "a-new-exception-and-the-unhandled-rest": (
        "try:\n    raise ExceptionGroup('eg', [ValueError(1), KeyError(2)])\nexcept* ValueError:\n"
        "    raise TypeError('t')\n"),
    "two-new-exceptions": (
        "try:\n    raise ExceptionGroup('eg', [ValueError(1), KeyError(2)])\nexcept* ValueError:\n"
        "    raise TypeError('t')\nexcept* KeyError:\n    raise OSError('o')\n"),
    "a-part-re-raised": "try:\n    raise ExceptionGroup('eg', [ValueError(1), KeyError(2)])\nexcept* ValueError:\n    raise\n",
    "the-bound-group-raised": "try:\n    raise ExceptionGroup('eg', [ValueError(1)])\nexcept* ValueError as g:\n    raise g\n",
    "the-unhandled-rest-only": "try:\n    raise ExceptionGroup('eg', [ValueError(1), KeyError(2)])\nexcept* ValueError:\n    pass\n",
    "a-naked-exception-then-a-new-one": "try:\n    raise ValueError(1)\nexcept* ValueError:\n    raise TypeError('t')\n",
    "a-naked-exception-re-raised": "try:\n    raise ValueError(1)\nexcept* ValueError:\n    raise\n",
    "a-naked-exception-unmatched": "try:\n    raise ValueError(1)\nexcept* KeyError:\n    pass\n",
    "inside-an-except-block": (
        "try:\n    raise OSError('outer')\nexcept OSError:\n    try:\n"
        "        raise ExceptionGroup('eg', [ValueError(1), KeyError(2)])\n    except* ValueError:\n        pass\n"),
    "a-new-exception-inside-an-except-block": (
        "try:\n    raise OSError('outer')\nexcept OSError:\n    try:\n        raise ExceptionGroup('eg', [ValueError(1)])\n"
        "    except* ValueError:\n        raise TypeError('t')\n"),
    "raise-from-none-in-a-clause": (
        "try:\n    raise ExceptionGroup('eg', [ValueError(1), KeyError(2)])\nexcept* ValueError as g:\n"
        "    raise TypeError('t') from None\nexcept* KeyError:\n    pass\n"),
}
CHAIN = (
    "def chain(e, depth=0):\n    if e is None or depth > 3:\n        return None\n"
    "    sub = [chain(x, depth + 1) for x in e.exceptions] if isinstance(e, BaseExceptionGroup) else None\n"
    "    return (repr(e), sub, 'SELF' if e.__context__ is e else chain(e.__context__, depth + 1),\n"
    "            chain(e.__cause__, depth + 1), e.__suppress_context__)\n"
)


def _leaving(code: str, suspending: bool) -> str:
    body = "\n".join("    " + line for line in code.splitlines())
    if suspending:  # every clause suspends first: the statement runs in its parked form
        body = body.replace(":\n        pass", ":\n        yield 0").replace(":\n    pass", ":\n    yield 0")
        body = "\n".join(line + "\n" + line[:len(line) - len(line.lstrip())] + "    yield 0"
                          if line.lstrip().startswith("except*") else line for line in body.splitlines())
        return CHAIN + f"def run():\n{body}\ntry:\n    list(run())\n    r = None\nexcept BaseException as e:\n    r = chain(e)\nr"
    return CHAIN + f"def run():\n{body}\ntry:\n    run()\n    r = None\nexcept BaseException as e:\n    r = chain(e)\nr"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* and ExceptionGroup are new in 3.11")
@pytest.mark.parametrize("suspending", [False, True], ids=["plain", "clauses-that-suspend"])
@pytest.mark.parametrize("code", LEAVING.values(), ids=LEAVING.keys())
def test_what_leaves_an_except_star_statement_is_cpythons_with_its_chain(code: str, suspending: bool) -> None:
    expected, got = same_outcome(_leaving(code, suspending))
    assert got == expected


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.10 only: except* does not parse there")
def test_except_star_on_310_is_a_syntax_error_saying_why() -> None:
    (diag,) = check("try:\n    pass\nexcept* ValueError:\n    pass").diagnostics
    assert (diag.code, diag.message) == ("P006", "except* is new in Python 3.11; this host runs Python 3.10")
