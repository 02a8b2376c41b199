"""Invariant 2, trust by identity: what counts as guest-made is the interpreter's own registry
(``safe_eval/interpreter/identity.py``), never a name the guest can write; ``__class__`` is
never reassigned and no path installs a dunder outside the reviewed set, before or after class
creation. Each test is guest code through the public API, written against the source: names
are computed at run time (``'__d' + 'el__'``) so the static restrict stage, defense in depth,
does not see them and the run-time guard must hold on its own."""

from __future__ import annotations

import copy

import pytest

from safe_eval import safe_eval
from safe_eval.errors import GuestError

CLASSES = "class A:\n    def __init__(self):\n        self.x = 1\nclass B:\n    pass\na = A()\n"


def _name(dunder: str) -> str:
    """Guest source for ``dunder`` spelled so that no literal dunder appears."""
    inner = dunder.strip("_")
    return f"('__' + {inner!r} + '__')"


# -- trust does not follow a writable name ----------------------------------------------------
FORGED_MODULES = [
    pytest.param("safe_eval.interpreter.functions", id="interpreter_module"),
    pytest.param("safe_eval.interpreter.generators", id="generator_module"),
    pytest.param("safe_eval.membrane.proxies", id="membrane_module"),
    pytest.param("safe_eval.membrane.modules.re", id="curated_module"),
]


@pytest.mark.parametrize("module", FORGED_MODULES)
def test_a_guest_class_that_renames_its_module_is_still_the_guests_own_class(module: str) -> None:
    code = (
        "class K:\n    def __init__(self):\n        self._secret = 41\n"
        f"setattr(K, {_name('module')}, {module!r})\n"
        "k = K()\n(k._secret + 1, type(k) is K, isinstance(k, K))"
    )
    assert safe_eval(code) == (42, True, True)


@pytest.mark.parametrize("module", FORGED_MODULES)
def test_a_renamed_guest_class_still_cannot_take_a_forbidden_dunder(module: str) -> None:
    code = (
        "class K:\n    pass\n"
        f"setattr(K, {_name('module')}, {module!r})\n"
        f"setattr(K, {_name('del')}, lambda self: None)\n"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert info.value.type_name == "AttributeError"


def test_a_guest_class_named_like_the_interpreters_function_type_keeps_guest_rights() -> None:
    code = (
        "class Function:\n    def __init__(self):\n        self._own = 5\n"
        "f = Function()\nf._own = f._own + 1\n(f._own, type(f).__name__)"
    )
    assert safe_eval(code) == (6, "Function")


# -- __class__ is never reassigned ---------------------------------------------------------------
CLASS_ASSIGNMENT = [
    pytest.param(f"setattr(a, {_name('class')}, B)", "AttributeError", id="setattr"),
    pytest.param(f"object.__setattr__(a, {_name('class')}, B)", "AttributeError", id="object_setattr"),
    pytest.param(f"vars(a)[{_name('class')}] = B", "TypeError", id="vars_item"),
    pytest.param(f"getattr(a, {_name('dict')})[{_name('class')}] = B", "TypeError", id="dict_item"),
    pytest.param(f"vars(a).update({{{_name('class')}: B}})", "TypeError", id="vars_update"),
    pytest.param(f"vars(a).setdefault({_name('class')}, B)", "TypeError", id="vars_setdefault"),
]


@pytest.mark.parametrize(("path", "error"), CLASS_ASSIGNMENT)
def test_class_assignment_is_refused_on_every_path(path: str, error: str) -> None:
    with pytest.raises(GuestError) as info:
        safe_eval(CLASSES + path)
    assert info.value.type_name == error


@pytest.mark.parametrize(("path", "error"), CLASS_ASSIGNMENT)
def test_after_a_refused_class_assignment_the_object_keeps_its_class(path: str, error: str) -> None:
    code = CLASSES + f"try:\n    {path}\nexcept {error}:\n    pass\n(type(a) is A, type(a).__name__)"
    assert safe_eval(code) == (True, "A")


# -- no dunder outside the reviewed set, before or after class creation ---------------------------
FORBIDDEN = ["del", "reduce_ex", "reduce", "getattribute", "init_subclass", "set_name", "format", "get"]

INSTALL_PATHS = [
    pytest.param("setattr(A, {n}, f)", "AttributeError", id="setattr_on_class"),
    pytest.param("setattr(a, {n}, f)", "AttributeError", id="setattr_on_instance"),
    pytest.param("object.__setattr__(a, {n}, f)", "AttributeError", id="object_setattr_on_instance"),
    pytest.param("type.__setattr__(A, {n}, f)", "AttributeError", id="type_setattr_on_class"),
    pytest.param("vars(a)[{n}] = f", "TypeError", id="vars_item"),
    pytest.param("getattr(a, " + _name("dict") + ")[{n}] = f", "TypeError", id="instance_dict_item"),
    pytest.param("vars(a).update({{{n}: f}})", "TypeError", id="vars_update"),
    pytest.param("vars(a).update([({n}, f)])", "TypeError", id="vars_update_pairs"),
    pytest.param("vars(a).setdefault({n}, f)", "TypeError", id="vars_setdefault"),
    pytest.param("getattr(A, " + _name("dict") + ")[{n}] = f", "AttributeError", id="class_dict_item"),
]


@pytest.mark.parametrize("dunder", FORBIDDEN)
@pytest.mark.parametrize(("path", "error"), INSTALL_PATHS)
def test_no_path_installs_a_forbidden_dunder_after_class_creation(path: str, error: str, dunder: str) -> None:
    code = CLASSES + "f = lambda *args: 'hijacked'\n" + path.format(n=_name(dunder))
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert info.value.type_name == error


def test_a_reduce_hook_planted_in_the_instance_dict_never_reaches_the_hosts_copy() -> None:
    # the review's gadget: copy.copy(obj) looks up obj.__reduce_ex__ on the instance first
    code = CLASSES + (
        f"try:\n    vars(a)[{_name('reduce_ex')}] = lambda p: (print, ('hijacked',))\n"
        "except TypeError:\n    pass\na"
    )
    obj = safe_eval(code)
    assert "__reduce_ex__" not in vars(obj)
    assert type(copy.copy(obj)) is type(obj)


def test_the_instance_dict_view_still_reads_and_writes_plain_attributes() -> None:
    code = CLASSES + (
        "d = vars(a)\nd['y'] = 2\nd.update(z=3)\nd.setdefault('w', 4)\ndel d['w']\n"
        "(a.y, a.z, sorted(d.keys()), d == {'x': 1, 'y': 2, 'z': 3}, len(d), 'x' in d)"
    )
    assert safe_eval(code) == (2, 3, ["x", "y", "z"], True, 3, True)


def test_a_class_body_cannot_define_a_forbidden_dunder_through_a_computed_namespace_write() -> None:
    code = f"class K:\n    locals_ = None\nsetattr(K, {_name('getattribute')}, lambda s, n: 1)\n"
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert info.value.type_name == "AttributeError"
