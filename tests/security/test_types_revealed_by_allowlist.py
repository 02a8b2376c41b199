"""Invariant: ``type(x)`` (and ``x.__class__``) hands the guest a callable class only when an
allowlist names it: the builtin data types, guest classes, and the classes a curated module
exports. Every other type (``function``, a generator's type, the curated-module wrapper, the
interpreter's helpers) comes back as an opaque stand-in the guest can name, compare and use in
``isinstance`` but never call or walk (``membrane/typeview.reveal_type``, the one place types
are shown). Before, any host type no rule named went out as it was: ``type(json.dumps)`` was
the real ``FunctionType`` constructor and ``type(math)(name, attrs)`` built a module wrapper."""

from __future__ import annotations

import pytest

from safe_eval import safe_exec
from safe_eval.errors import GuestError

CALLS_OF_UNLISTED_TYPES = {
    "function type of a curated module's function": "import json\nr = type(json.dumps)(None, {})",
    "curated module wrapper": "import math\nr = type(math)('m', {'a': 1})",
    "module wrapper as a base": "import math\nclass M(type(math)):\n    pass\nr = M",
    "generator type": "def g():\n    yield 1\nr = type(g())()",
    "builtin function type": "r = type(len)(1)",
    "iterator helper of a curated module": "import itertools\nr = type(itertools.count())(5)",
}


@pytest.mark.parametrize("code", CALLS_OF_UNLISTED_TYPES.values(), ids=CALLS_OF_UNLISTED_TYPES.keys())
def test_a_type_no_allowlist_names_cannot_be_called_or_derived_from(code: str) -> None:
    with pytest.raises(GuestError, match=r"TypeError: (cannot create '\w+' instances|class M cannot derive)"):
        safe_exec(code, {})


def test_an_unlisted_type_walks_to_nothing() -> None:
    with pytest.raises(GuestError, match="AttributeError: type 'function' exposes no attribute"):
        safe_exec("import json\nr = type(json.dumps).__call__", {})


LISTED = {
    "int": ("r = type(3)('41') + 1", 42),
    "list": ("r = type([])((1, 2))", [1, 2]),
    "guest class": ("class A:\n    v = 7\nr = type(A())().v", 7),
    "curated export deque": ("import collections\nr = list(type(collections.deque([1]))([2, 3]))", [2, 3]),
    "curated export Fraction": ("import fractions\nr = type(fractions.Fraction(1, 2))(3, 4)", __import__("fractions").Fraction(3, 4)),
    "name of an unlisted type": ("import json\nr = type(json.dumps).__name__", "function"),
    "isinstance with an unlisted type": ("import json\nr = isinstance(json.loads, type(json.dumps))", True),
}


@pytest.mark.parametrize(("code", "expected"), LISTED.values(), ids=LISTED.keys())
def test_listed_types_stay_callable_and_unlisted_ones_still_name_and_compare(code: str, expected: object) -> None:
    env: dict[str, object] = {}
    safe_exec(code, env)
    assert env["r"] == expected
