"""Node types newer than 3.11 are reviewed: 3.12's type parameters and ``type`` aliases are
refused with a diagnostic that says what to write instead."""

from __future__ import annotations

import sys

import pytest

from safe_eval import PolicyViolation, safe_exec

REFUSED = {
    "type_parameter_of_a_function": ("def first[T](xs: list[T]) -> T:\n    return xs[0]",
                                     "type parameters (`def f[T]`, `class C[T]`) are not supported"),
    "type_parameter_of_a_class": ("class Box[T]:\n    pass",
                                  "type parameters (`def f[T]`, `class C[T]`) are not supported"),
    "param_spec": ("def deco[**P](f):\n    return f", "type parameters (`def f[**P]`) are not supported"),
    "type_var_tuple": ("def tup[*Ts](*a):\n    return a", "type parameters (`def f[*Ts]`) are not supported"),
    "type_alias": ("type Vector = list[float]", "`type` alias statements are not supported"),
}


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 syntax is new in 3.12")
@pytest.mark.parametrize(("source", "message"), REFUSED.values(), ids=REFUSED.keys())
def test_pep695_syntax_is_refused_with_a_reason(source: str, message: str) -> None:
    with pytest.raises(PolicyViolation) as info:
        safe_exec(source)
    assert [(d.code, d.message) for d in info.value.diagnostics] == [("R010", message)]
    assert info.value.diagnostics[0].hint != "rewrite this part with plain statements and expressions"
