"""Text that grows by escaping: each ``repr`` of a string of backslashes doubles it in one C
call, so a 40-step loop asks for terabytes while the op counter sees 80 ops. Every path that
escapes text (repr, ascii, str of containers, f-string and str.format conversions, % formatting)
prices its result before the call. Found by red-teaming the `dos` family (the loop reached
2.5-6 GB before)."""

from __future__ import annotations

import pytest

from safe_eval import Limits, safe_eval
from safe_eval.errors import MemoryLimit

GROWTH = {
    "repr": "x = '\\\\'\nfor i in range(40):\n    x = repr(x)\nlen(x)",
    "ascii": "x = 'é'\nfor i in range(40):\n    x = ascii(x) + 'é'\nlen(x)",
    "fstring_r": "x = '\\\\'\nfor i in range(40):\n    x = f'{x!r}'\nlen(x)",
    "format_r": "x = '\\\\'\nfor i in range(40):\n    x = '{!r}'.format(x)\nlen(x)",
    "percent_r": "x = '\\\\'\nfor i in range(40):\n    x = 'eval(%r)' % x\nlen(x)",
    "str_of_list": "x = '\\\\'\nfor i in range(40):\n    x = str([x])\nlen(x)",
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("code", GROWTH.values(), ids=GROWTH.keys())
def test_escaping_growth_hits_the_memory_limit(code: str) -> None:
    with pytest.raises(MemoryLimit):
        # the time limit is out of the way: the memory limit is what must stop the growth
        safe_eval(code, limits=Limits(memory=64 * 2**20, time=25))


ORDINARY = {
    "repr_1mb": ("s = 'a' * 1_000_000\nlen(repr(s))", 1_000_002),
    "str_of_list": ("s = 'a' * 1_000_000\nlen(str([s]))", 1_000_004),
    "fstring_r": ("s = 'a' * 1_000_000\nlen(f'{s!r}')", 1_000_002),
    "str_of_str": ("s = 'a' * 10_000_000\nlen(str(s))", 10_000_000),
    "conversions_match_cpython": ("'{!r} {!s} {!a}'.format('é', 1, 'é') + '%r %s %a' % ('é', [1], 'é')",
                                  "'é' 1 '\\xe9'" + "'é' [1] '\\xe9'"),
}


@pytest.mark.parametrize(("code", "expected"), ORDINARY.values(), ids=ORDINARY.keys())
def test_ordinary_text_is_not_refused(code: str, expected: object) -> None:
    assert safe_eval(code) == expected
