"""Invariant: a name the guest did not bind resolves to the guest builtins or raises NameError.

Unknown names used to be refused statically; now they run, so the interpreter's lookup is what
keeps host names out. The attacker probes host builtins the guest table leaves out and host-side
module globals, by name, where the static check only warns.
"""

from __future__ import annotations

import builtins

import pytest

from safe_eval import PolicyViolation, safe_eval
from safe_eval.interpreter.builtins_extra import BUILTINS
from safe_eval.pipeline.restrict import REFUSED_BUILTINS

HOST_ONLY = sorted(
    name for name in dir(builtins)
    if name not in BUILTINS and name not in REFUSED_BUILTINS and not name.startswith("__")
    and name not in ("True", "False", "None")
)
HOST_GLOBALS = ["os", "sys", "safe_eval", "Evaluator", "BUILTINS", "membrane", "ast", "builtins",
                "importlib", "Function", "UNBOUND", "pytest"]


@pytest.mark.parametrize("name", HOST_ONLY + HOST_GLOBALS)
def test_a_host_name_read_by_the_guest_is_a_name_error(name: str) -> None:
    probe = f"try:\n    v = {name}\nexcept NameError:\n    v = 'missing'\nv"
    assert safe_eval(probe) == "missing"


@pytest.mark.parametrize("call", ["{}()", "{}(0)", "{}(0, 1)", "{}(p + 1)"],
                         ids=["no_argument", "one_argument", "two_arguments", "specialised_binop_argument"])
@pytest.mark.parametrize("name", HOST_ONLY + HOST_GLOBALS)
def test_a_host_name_called_by_the_guest_is_a_name_error(name: str, call: str) -> None:
    probe = f"p = 1\ndef f(p=1):\n    return {call.format(name)}\ntry:\n    v = {call.format(name)}\nexcept NameError as e:\n    v = str(e)\n" \
            f"try:\n    w = f()\nexcept NameError as e:\n    w = str(e)\n(v, w)"
    assert safe_eval(probe) == (f"name '{name}' is not defined",) * 2


def test_a_host_name_in_a_class_body_and_a_closure_is_a_name_error() -> None:
    probe = ("def outer():\n    def inner():\n        return os\n    return inner\n"
             "class C:\n    try:\n        v = sys\n    except NameError:\n        v = 'missing'\n"
             "try:\n    r = outer()()\nexcept NameError:\n    r = 'missing'\n(C.v, r)")
    assert safe_eval(probe) == ("missing", "missing")


@pytest.mark.parametrize("name", sorted(REFUSED_BUILTINS))
def test_a_refused_builtin_is_still_refused_statically(name: str) -> None:
    with pytest.raises(PolicyViolation) as info:
        safe_eval(f"try:\n    {name}()\nexcept NameError:\n    pass")
    assert [d.code for d in info.value.diagnostics if d.severity == "error"] == ["R001"]
