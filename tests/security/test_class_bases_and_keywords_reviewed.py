"""Invariant: a class statement's bases and keywords reach only reviewed host code
(``interpreter/classes._resolve_bases`` and ``_check_keywords``). A base that is not a class is
resolved through ``__mro_entries__`` only when it is a registered curated stand-in (``Generic[T]``,
``TypedDict``): a guest object's own ``__mro_entries__`` never runs, and what the stand-in
resolves to passes the base allowlist like any base. A class keyword reaches only a metaclass
registered for it (``total=`` of ``TypedDict``), with a plain-data value the metaclass cannot
turn into a call of guest code."""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval import safe_exec
from safe_eval.errors import GuestError, PolicyViolation

REFUSED_BASES = {
    "a guest object": "class A:\n    pass\nclass C(A()):\n    pass",
    "a typing form that is no class": "from typing import Optional\nclass C(Optional[int]):\n    pass",
    "a type variable": "from typing import TypeVar\nX = TypeVar('X')\nclass C(X):\n    pass",
}


@pytest.mark.parametrize("code", REFUSED_BASES.values(), ids=REFUSED_BASES.keys())
def test_a_base_that_is_not_a_reviewed_class_or_stand_in_is_refused(code: str) -> None:
    with pytest.raises(GuestError, match="TypeError: "):
        safe_exec(code, {})


def test_a_guest_object_cannot_answer_mro_entries_for_the_class_statement() -> None:
    with pytest.raises(PolicyViolation, match='R006 .*"__mro_entries__"'):
        safe_exec("class E:\n    def __mro_entries__(self, bases):\n        return (int,)\n"
                  "class C(E()):\n    pass", {})


REFUSED_KEYWORDS = {
    "total on a plain class": ("class C(int, total=False):\n    pass", "class keywords \\(total\\) are not supported"),
    "a guest object as the value": ("from typing import TypedDict\nclass B:\n    def __bool__(self):\n"
                                    "        raise ValueError('ran at host time')\n"
                                    "class D(TypedDict, total=B()):\n    a: int",
                                    "class D: keyword total= must be a bool, int, str or None"),
    "a double star mapping": ("from typing import TypedDict\nclass D(TypedDict, **{'total': False}):\n    a: int",
                              "R007 .*class keyword \\*\\*keywords is not allowed"),
}


@pytest.mark.parametrize(("code", "message"), REFUSED_KEYWORDS.values(), ids=REFUSED_KEYWORDS.keys())
def test_a_class_keyword_reaches_only_a_metaclass_registered_for_it(code: str, message: str) -> None:
    with pytest.raises((GuestError, PolicyViolation), match=message):
        safe_exec(code, {})


def test_a_metaclass_keyword_is_still_refused_before_running() -> None:
    with pytest.raises(PolicyViolation, match="R007 .*class keyword metaclass= is not allowed"):
        safe_exec("class C(metaclass=type):\n    pass", {})


def test_generic_and_typed_dict_bases_make_ordinary_guest_classes() -> None:
    env: dict[str, Any] = {}
    safe_exec("from typing import Generic, TypeVar, TypedDict\nX = TypeVar('X')\n"
              "class Box(Generic[X]):\n    def __init__(self, v):\n        self.v = v\n"
              "class D(TypedDict, total=False):\n    a: int\n"
              "r = (Box[int](3).v, D(a=1), type(D()) is dict)", env)
    assert env["r"] == (3, {"a": 1}, True)
