"""Invariant: a guest class's ``__format__`` (definable since 0.2) is guest code like any
method: every way the guest formats a value (``format()``, f-strings, ``str.format``) runs it
in the interpreter under the run's budget and checks it returns a str; a host value's own
``__format__`` slot is still never handed out unbound from ``format()``'s pricing
(``membrane/allowlists._HOOKS``)."""

from __future__ import annotations

import pytest

from safe_eval import Limits, safe_eval
from safe_eval.errors import GuestError, OpLimit

LOOPING = "class X:\n    def __format__(self, spec):\n        while True:\n            pass\n"
PATHS = {
    "f-string": "f'{X():spec}'",
    "format builtin": "format(X(), 'spec')",
    "str.format": "'{:spec}'.format(X())",
    "nested in a field": "'{0[0]:spec}'.format([X()])",
}


@pytest.mark.parametrize("expr", PATHS.values(), ids=PATHS.keys())
def test_a_looping_format_hook_is_stopped_by_the_ops_budget(expr: str) -> None:
    with pytest.raises(OpLimit):
        safe_eval(LOOPING + expr, limits=Limits(ops=50_000))


NOT_TEXT = {
    "an int": "42",
    "a list": "['x']",
}


@pytest.mark.parametrize("result", NOT_TEXT.values(), ids=NOT_TEXT.keys())
def test_a_format_hook_must_return_text(result: str) -> None:
    code = f"class X:\n    def __format__(self, spec):\n        return {result}\nf'{{X()}}'"
    with pytest.raises(GuestError, match="TypeError: __format__ must return a str, not"):
        safe_eval(code)


HOST_SLOTS = {
    "date": "import datetime\ndatetime.date(2020, 1, 1).__format__",
    "int": "(5).__format__",
    "str": "'x'.__format__",
}


@pytest.mark.parametrize("code", HOST_SLOTS.values(), ids=HOST_SLOTS.keys())
def test_a_host_values_format_slot_is_not_handed_out(code: str) -> None:
    with pytest.raises(GuestError, match="AttributeError"):
        safe_eval(code)
