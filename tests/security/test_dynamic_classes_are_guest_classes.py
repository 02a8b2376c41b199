"""Invariant: ``type(name, bases, namespace)`` builds a guest class through the same checks as a
class statement (``interpreter/classes.build_dynamic_class``, then ``register_guest_class``):
bases from the allowlist, a namespace of reviewed dunders only, exact ``str``/``tuple``/``dict``
arguments, and ``__module__`` the guest's own. Before 0.2 the three-argument form was refused
outright (R008), since the host ``type`` would have made a host class with guest dunders."""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval import safe_exec
from safe_eval.errors import GuestError, PolicyViolation

# the namespace is built at run time, so only the run-time check can see it
REFUSED_NAMESPACES = {
    "finaliser": ("__del__", "runs at garbage collection, outside any budget"),
    "every attribute read": ("__getattribute__", "intercepts every attribute access"),
    "subclass hook": ("__init_subclass__", "runs implicitly when a subclass is defined"),
    "descriptor": ("__get__", "descriptor protocol hook"),
    "class subscription": ("__class_getitem__", "runs implicitly on subscription of the class"),
    "a forged class cell": ("__classcell__", "not in the reviewed set of definable dunders"),
    "pickling": ("__reduce__", "pickling hook"),
}


@pytest.mark.parametrize(("key", "why"), REFUSED_NAMESPACES.values(), ids=REFUSED_NAMESPACES.keys())
def test_a_namespace_built_at_run_time_cannot_smuggle_a_refused_dunder(key: str, why: str) -> None:
    code = f"ns = {{}}\nns['{key}'] = print\nT = type('T', (), ns)"
    with pytest.raises(GuestError, match=f"TypeError: class T may not define {key} in safe-eval: {why}"):
        safe_exec(code, {})


def test_a_refused_dunder_written_in_the_namespace_literal_is_refused_before_running() -> None:
    with pytest.raises(PolicyViolation, match='R008 .* may not define "__del__": runs at garbage collection'):
        safe_exec("T = type('T', (), {'__del__': print})", {})


def test_a_slot_named_like_a_dunder_cannot_install_a_descriptor() -> None:
    with pytest.raises(GuestError, match="slot __len__ would install the dunder __len__ as a descriptor"):
        safe_exec("ns = {'__slots__': ('__len__',)}\nT = type('T', (), ns)", {})


REFUSED_BASES = {
    "a metaclass": ("T = type('T', (type,), {})", "class T cannot derive from GuardedType"),
    "a function's type": ("T = type('T', (type(len),), {})", "class T cannot derive from OpaqueType"),
    "a typing stand-in": ("from typing import Generic, TypeVar\nX = TypeVar('X')\nT = type('T', (Generic[X],), {})",
                          "class T cannot derive from _Form"),
    "a guest instance": ("class A:\n    pass\nT = type('T', (A(),), {})", "class T cannot derive from A"),
}


@pytest.mark.parametrize(("code", "message"), REFUSED_BASES.values(), ids=REFUSED_BASES.keys())
def test_a_dynamic_class_derives_only_from_what_a_class_statement_may(code: str, message: str) -> None:
    with pytest.raises(GuestError, match=f"TypeError: {message} in safe-eval"):
        safe_exec(code, {})


NOT_EXACT = {
    "a str subclass as the name": ("class S(str):\n    pass\nT = type(S('T'), (), {})", "argument 1 must be str, not S"),
    "a list of bases": ("T = type('T', [], {})", "argument 2 must be tuple, not list"),
    "a dict subclass namespace": ("class D(dict):\n    pass\nT = type('T', (), D())", "argument 3 must be dict, not D"),
}


@pytest.mark.parametrize(("code", "message"), NOT_EXACT.values(), ids=NOT_EXACT.keys())
def test_the_arguments_must_be_exact_builtins_whose_methods_no_guest_overrides(code: str, message: str) -> None:
    with pytest.raises(GuestError, match=f"TypeError: type.__new__\\(\\) {message}"):
        safe_exec(code, {})


def test_a_dynamic_class_is_a_guest_class_named_in_the_guest_module() -> None:
    env: dict[str, Any] = {}
    safe_exec("T = type('T', (int,), {'twice': lambda self: self * 2})\n"
              "r = (T(21).twice(), T.__module__, T.__qualname__, type(T(1)) is T)", env)
    assert env["r"] == (42, "__main__", "T", True)
