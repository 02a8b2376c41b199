"""Invariant 5: a host routine costs the same however guest code reaches it: through the
operator, an attribute of an instance or of the type (slot wrappers and dunders), a guest
subclass or ``super()``, a curated module function, or as a callback host code calls."""

from __future__ import annotations

import pytest

from safe_eval import safe_eval
from safe_eval.errors import MemoryLimit, TimeLimit

LIMITS = {"time": 2.0, "memory": 256 * 2**20}

# (id, guest code, the limit it must end with)
PATHS = [
    ("str-mul-slot", "'ab'.__mul__(10**9)", MemoryLimit),
    ("str-rmul-slot", "'ab'.__rmul__(10**9)", MemoryLimit),
    ("str-mul-on-the-type", "str.__mul__('ab', 10**9)", MemoryLimit),
    ("list-mul-slot", "[1].__mul__(10**9)", MemoryLimit),
    ("list-imul-slot", "x = [1]\nx.__imul__(10**10)", MemoryLimit),
    ("tuple-mul-slot", "(1,).__mul__(10**10)", MemoryLimit),
    ("bytes-mul-slot", "b'a'.__mul__(10**10)", MemoryLimit),
    ("bytearray-imul-slot", "bytearray(b'a').__imul__(10**10)", MemoryLimit),
    ("int-pow-slot", "(7).__pow__(10**8)", TimeLimit),
    ("int-rpow-slot", "(10**8).__rpow__(7)", TimeLimit),
    ("int-pow-on-the-type", "int.__pow__(7, 10**8)", TimeLimit),
    ("int-lshift-slot", "(1).__lshift__(10**10)", MemoryLimit),
    ("int-rlshift-slot", "(10**10).__rlshift__(1)", MemoryLimit),
    ("int-round-slot", "(7).__round__(-10**7)", TimeLimit),
    ("round-builtin-negative-digits", "round(7, -10**7)", TimeLimit),
    ("str-mod-slot-width", "'%999999999d'.__mod__(1)", MemoryLimit),
    ("index-object-count", "class N:\n    def __index__(self):\n        return 10**10\n'ab'.__mul__(N())",
     MemoryLimit),
    ("guest-str-subclass-slot", "class S(str): pass\nS('ab').__mul__(10**9)", MemoryLimit),
    ("guest-str-subclass-type-slot", "class S(str): pass\nS.__mul__(S('ab'), 10**9)", MemoryLimit),
    ("super-slot", "class S(str):\n    def m(self):\n        return super().__mul__(10**9)\nS('ab').m()",
     MemoryLimit),
    ("guest-bytearray-subclass-constructor", "class B(bytearray): pass\nB(2 * 10**9)", MemoryLimit),
    ("operator-module-pow", "import operator\noperator.pow(7, 10**8)", TimeLimit),
    ("operator-module-mul", "import operator\noperator.mul('ab', 10**9)", MemoryLimit),
    ("reduce-over-a-slot", "import functools\nfunctools.reduce(int.__pow__, [7, 10**8])", TimeLimit),
    ("reduce-over-operator", "import functools, operator\nfunctools.reduce(operator.lshift, [1, 10**10])",
     MemoryLimit),
    ("max-key-builtin-type", "max([2 * 10**9], key=bytearray)", MemoryLimit),
    ("sorted-key-builtin-type", "sorted([2 * 10**9], key=bytearray)", MemoryLimit),
    ("map-builtin-type", "list(map(bytearray, [2 * 10**9]))", MemoryLimit),
    ("max-key-guest-subclass", "class B(bytearray): pass\nmax([2 * 10**9], key=B)", MemoryLimit),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("code", "limit"), [(c, lim) for _, c, lim in PATHS], ids=[i for i, _, _ in PATHS])
def test_a_host_routine_reached_by_another_path_costs_the_same(code, limit):
    with pytest.raises(limit):
        safe_eval(code, {}, limits=LIMITS)


@pytest.mark.parametrize(("code", "expected"), [
    ("'ab'.__mul__(3)", "ababab"),
    ("'ab'.__rmul__(2)", "abab"),
    ("(7).__pow__(3)", 343),
    ("(7).__pow__(3, 5)", 3),
    ("(3).__rpow__(2)", 8),
    ("(5).__mul__('ab')", NotImplemented),
    ("'ab'.__mul__('x')", NotImplemented),
    ("(1).__lshift__(3)", 8),
    ("'%d%%'.__mod__(5)", "5%"),
    ("[1, 2].__add__([3])", [1, 2, 3]),
    ("(1, (2,)).__hash__() == hash((1, (2,)))", True),
    ("(1, 2).__eq__((1, 2))", True),
    ("(1234).__round__(-2)", 1200),
    ("max([3, 1], key=str)", 3),
    ("isinstance([], list) and issubclass(bool, int)", True),
    ("list(map(int, ['1', '2']))", [1, 2]),
    ("import decimal\ndecimal.Decimal('2.5').__round__()", 2),
    ("import fractions\nfractions.Fraction(7, 2).__floor__()", 3),
], ids=["str-mul", "str-rmul", "int-pow", "int-pow-mod", "int-rpow", "int-mul-str", "str-mul-str", "lshift",
        "str-mod", "list-add", "tuple-hash", "tuple-eq", "int-round", "key-str", "inspectors-get-real-types",
        "map-int", "decimal-round", "fraction-floor"])
def test_priced_routines_still_give_cpythons_answers(code, expected):
    assert safe_eval(code, {}) == expected
