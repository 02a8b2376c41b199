"""Invariant 1, one door in: every host value that reaches guest code passes
``crossing.enter_value`` (its admission rule is ``membrane/admission.py``), including the
arguments of every host-to-guest call: a decoded callable called by the host, callbacks from
host C code (``map``, ``sorted``'s ``key=``), dunders the host calls on returned guest objects,
reflected comparisons, generator ``send`` values. The attacker is the guest code; the host
here plays an honest caller that happens to hold dangerous objects."""

from __future__ import annotations

import builtins
import functools
import os
import subprocess
import sys
from typing import Any

import pytest

from safe_eval import safe_callable, safe_eval
from safe_eval.errors import PolicyViolation

# What guest code sees of a host value: the name of its type (a raw host object answers
# 'module', 'builtin_function_or_method', 'function' ...; an entered one a membrane name).
KIND = ("def kind(x):\n    name = type(x).__name__\n"
        "    return name if name in ('Refused', 'Tool') else name + ' ' + repr(x)\n")

HOST_VALUES = [
    pytest.param(eval, "Refused", id="builtin_eval"),
    pytest.param(exec, "Refused", id="builtin_exec"),
    pytest.param(os.system, "Refused", id="os_system"),
    pytest.param(subprocess.run, "Refused", id="subprocess_run"),
    pytest.param(os, "Refused", id="module_os"),
    pytest.param(builtins, "Refused", id="module_builtins"),
    pytest.param(sys._getframe(), "Refused", id="frame"),
    pytest.param(functools.partial(print, "x"), "Refused", id="host_partial_of_print"),
    pytest.param(lambda: 0, "Tool", id="host_lambda"),
    # a proxy shows its host class's name (issue 12); its repr tells it from the raw object
    pytest.param(object(), "object <object object>", id="plain_host_object"),
]


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_a_decoded_function_receives_host_arguments_only_through_the_door(value: Any, seen: str) -> None:
    kind = safe_callable(KIND)
    assert kind(value) == seen


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_keyword_arguments_of_a_decoded_function_enter_too(value: Any, seen: str) -> None:
    kind = safe_callable(KIND)
    assert kind(x=value) == seen


def test_a_decoded_function_handed_eval_cannot_run_it() -> None:
    # the review's ``ap(eval, "...")``: the argument used to be called raw, with no check
    ap = safe_callable("def ap(f, x):\n    return f(x)")
    with pytest.raises(PolicyViolation) as info:
        ap(eval, "__import__('os').getcwd()")
    assert info.value.diagnostics[0].code == "E401"


def test_a_host_dict_of_state_passed_to_a_decoded_function_arrives_with_its_values_entered() -> None:
    probe = safe_callable("def probe(d):\n    return [type(v).__name__ for v in d.values()]")
    assert probe({"os": os, "n": 1, "run": subprocess.run}) == ["Refused", "int", "Refused"]


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_host_c_code_calling_a_guest_callback_passes_entered_items(value: Any, seen: str) -> None:
    kind = safe_callable(KIND)
    assert list(map(kind, [value])) == [seen]
    assert sorted([value], key=kind) == [value]  # the key ran on the entered item, not the raw one


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_a_reflected_comparison_hands_the_guest_eq_an_entered_host_object(value: Any, seen: str) -> None:
    # ``host == guest``: the host object's __eq__ gives up, CPython calls the guest's __eq__
    # with the host object as argument (the review got the real builtins module this way)
    g = safe_eval(KIND + "class G:\n    def __eq__(self, other):\n        return kind(other)\n"
                  "    __hash__ = None\nG()")
    assert (value == g) == seen


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_dunders_the_host_calls_on_a_returned_guest_object_receive_entered_arguments(value: Any, seen: str) -> None:
    g = safe_eval(KIND + "class G:\n    def __getitem__(self, k):\n        return kind(k)\n"
                  "    def __call__(self, *a, **kw):\n        return [kind(v) for v in (*a, *kw.values())]\n"
                  "G()")
    assert g[value] == seen
    assert g(value, k=value) == [seen, seen]


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_a_value_sent_into_a_returned_guest_generator_enters(value: Any, seen: str) -> None:
    gen = safe_eval(KIND + "def g():\n    x = yield 0\n    yield kind(x)\ng()")
    assert next(gen) == 0
    assert gen.send(value) == seen


def test_guest_values_passing_through_host_code_come_back_unchanged() -> None:
    # the door admits what the guest already holds: its own objects, builtins and wrappers
    code = (
        "import math\nclass P:\n    pass\np = P()\nitems = [p, len, math.sqrt, 'a'.upper, [1, 2]]\n"
        "same = list(map(lambda v: v, items))\n"
        "[a is b for a, b in zip(items, same)] + [sorted([3, 1, 2], key=lambda v: -v)]"
    )
    assert safe_eval(code) == [True, True, True, True, True, [3, 2, 1]]
