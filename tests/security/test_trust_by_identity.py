"""Invariant 2, trust by identity: what counts as guest-made is the interpreter's own registry
(``safe_eval/interpreter/identity.py``), never a name the guest can write; ``__class__`` is
never reassigned and no path installs a dunder outside the reviewed set, before or after class
creation. Each test is guest code through the public API, written against the source: names
are computed at run time (``'__d' + 'el__'``) so the static restrict stage, defense in depth,
does not see them and the run-time guard must hold on its own."""

from __future__ import annotations

import copy
import sys

import pytest

from safe_eval import safe_eval, safe_exec
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
def test_a_guest_class_cannot_rename_its_module(module: str) -> None:
    # trust never followed the name; since host pickle imports what ``__module__`` names,
    # the name itself is the host's
    code = (
        "class K:\n    def __init__(self):\n        self._secret = 41\n"
        f"setattr(K, {_name('module')}, {module!r})\n"
    )
    with pytest.raises(GuestError):
        safe_eval(code)


# red team rt-exit, finding 4: ``setattr`` was refused, but a class built by a call named its
# module at creation (``type(name, bases, {'__module__': ...})``, enum's ``module=``), and host
# pickle imported it: ``this`` ran its module code in the host when an instance was pickled
CLASSES_NAMING_A_MODULE = {
    "type_namespace": f"K = type('K', (), {{{_name('module')}: 'this'}})",
    "enum_module_keyword": "import enum\nK = enum.Enum('K', 'A B', module='this')",
    "int_enum_module_keyword": "import enum\nK = enum.IntEnum('K', 'A', module='this')",
    "enum_default_module": "import enum\nK = enum.Enum('K', 'A')",
    "type_namespace_interpreter_module": f"K = type('K', (), {{{_name('module')}: 'safe_eval.interpreter.functions'}})",
}


@pytest.mark.parametrize("code", CLASSES_NAMING_A_MODULE.values(), ids=CLASSES_NAMING_A_MODULE.keys())
def test_a_class_built_by_a_call_is_named_into_the_guests_own_module(code: str) -> None:
    import pickle

    had_this = "this" in sys.modules
    cls = safe_exec(code)["K"]
    assert cls.__module__ == "__main__"
    with pytest.raises(pickle.PicklingError):
        pickle.dumps(cls)  # looked up in the host's __main__, where no such class is
    assert ("this" in sys.modules) == had_this


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
FORBIDDEN = ["del", "reduce_ex", "reduce", "getattribute", "init_subclass", "set_name", "set", "get"]

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


# -- the finished class dict is what CPython reads: every definition in it is checked -----------
SLOT_DUNDERS = ["getattribute", "reduce_ex", "del", "class", "format", "eq", "init_subclass"]


@pytest.mark.parametrize("dunder", SLOT_DUNDERS)
def test_a_slot_named_like_a_dunder_is_refused_before_it_becomes_a_type_slot(dunder: str) -> None:
    code = (
        f"class C:\n    __slots__ = ('x', {_name(dunder)})\n"
        "    def __getattr__(self, name):\n        return int\nC()"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert info.value.type_name == "TypeError"
    assert "slot" in str(info.value)


SLOTS_VALUES = [
    pytest.param("T(('x',))", id="tuple_subclass_that_iterates_differently"),
    pytest.param("G()", id="guest_iterable"),
    pytest.param("('x', 1)", id="non_str_entry"),
    pytest.param("{'x': 'doc'}", id="dict"),
    pytest.param(f"('x', S({_name('getattribute')}))", id="str_subclass_that_hides_its_dunder"),
]


@pytest.mark.parametrize("slots", SLOTS_VALUES)
def test_slots_that_are_not_plain_strings_are_refused(slots: str) -> None:
    code = (
        "class T(tuple):\n    def __iter__(self):\n"
        f"        return iter(['x', {_name('getattribute')}])\n"
        f"class G:\n    def __iter__(self):\n        return iter([{_name('del')}])\n"
        "class S(str):\n    def startswith(self, *a):\n        return False\n"
        f"class C:\n    __slots__ = {slots}\nC"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert info.value.type_name == "TypeError"


def test_match_args_entries_must_be_plain_strings() -> None:
    code = (
        "class S(str):\n    pass\n"
        "class C:\n    __match_args__ = ('x', S('y'))\nC"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert info.value.type_name == "TypeError"


def test_ordinary_slots_and_match_args_still_work() -> None:
    code = (
        "class P:\n    __slots__ = ('x', 'y', '__dict__', '__weakref__')\n"
        "    __match_args__ = ('x', 'y')\n"
        "    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n"
        "p = P(1, 2)\np.z = 3\nmatch p:\n    case P(a, b):\n        r = (a, b, p.z)\nr"
    )
    assert safe_eval(code) == (1, 2, 3)


ENUM_HOOKS = ["format", "reduce_ex", "del", "set_name"]


@pytest.mark.parametrize("dunder", ENUM_HOOKS)
def test_the_enum_functional_api_cannot_install_a_hook_through_a_mapping_that_lies(dunder: str) -> None:
    # keys() says ["A"] (what a check of the names reads); iteration, which enum uses to build
    # the class, adds the hook. Two layers refuse it: the curated enum's check of the snapshot
    # of its names (ValueError) and, whatever the factory, the finished class dict checked at
    # registration (TypeError); either way the class never reaches the guest
    code = (
        "from enum import Enum\n"
        "class Names:\n    def keys(self):\n        return ['A']\n"
        f"    def __iter__(self):\n        return iter(['A', {_name(dunder)}])\n"
        "    def __getitem__(self, k):\n        if k == 'A':\n            return 1\n"
        "        return lambda *a: 'HOOKED'\n"
        "E = Enum('E', Names())\nE.A"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert info.value.type_name in ("ValueError", "TypeError")
    assert f"__{dunder}__" in str(info.value)


def test_enum_and_protocol_classes_keep_the_hooks_their_host_metaclass_installs() -> None:
    # StrEnum is new in 3.11; before it, the str mixin is spelled out (formats as its value too)
    str_enum = "StrEnum" if sys.version_info >= (3, 11) else "str, Enum"
    code = (
        "from enum import IntEnum, IntFlag, Enum\n"
        + ("from enum import StrEnum\n" if sys.version_info >= (3, 11) else "")
        + "from typing import Protocol\n"
        f"class I(IntEnum):\n    A = 1\nclass S({str_enum}):\n    B = 'b'\n"
        "class F(IntFlag):\n    R = 1\n    W = 2\nclass P(Protocol):\n    def f(self): ...\n"
        "E = Enum('E', 'X Y')\n"
        "(f'{I.A}', f'{S.B}', (F.R | F.W).value, E.Y.value, P.__name__)"
    )
    assert safe_eval(code) == ("1", "b", 3, 2, "P")


# -- a dunder set on a class after creation runs interpreted guest code, nothing host-callable ----
HOST_CALLABLES = [
    pytest.param("[].append", id="bound_builtin_method"),
    pytest.param("len", id="builtin_function"),
    pytest.param("print", id="curated_builtin"),
    pytest.param("B", id="guest_class"),
    pytest.param("B().m", id="guest_bound_method"),
    pytest.param("str.upper", id="host_method_descriptor"),
]
DEFINABLE_SET = ["eq", "hash", "call", "getitem", "iter", "repr"]


@pytest.mark.parametrize("dunder", DEFINABLE_SET)
@pytest.mark.parametrize("value", HOST_CALLABLES)
def test_a_class_dunder_cannot_be_rebound_to_something_other_than_a_guest_function(
        value: str, dunder: str) -> None:
    code = (
        "class A:\n    pass\nclass B:\n    def m(self, *a):\n        return 1\n"
        f"setattr(A, {_name(dunder)}, {value})"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert info.value.type_name == "AttributeError"
    assert "function the code defined" in str(info.value)


def test_a_class_dunder_can_still_be_rebound_to_a_guest_function_or_none() -> None:
    code = (
        "class A:\n    pass\n"
        "def eq(self, other):\n    return True\n"
        "A.__eq__ = eq\nA.__hash__ = None\nA.__repr__ = lambda self: 'a!'\n"
        "(A() == 3, A.__hash__ is None, repr(A()))"
    )
    assert safe_eval(code) == (True, True, "a!")



def test_a_forbidden_dunder_set_on_an_instance_is_refused_with_its_reason() -> None:
    # computed names: the run-time rule alone; the instance path says why, as the class path does
    with pytest.raises(GuestError) as info:
        safe_eval("class A:\n    pass\nsetattr(A(), '__d' + 'el__', 1)")
    assert "runs at garbage collection" in str(info.value)
    with pytest.raises(GuestError) as info:
        safe_eval("class A:\n    pass\nsetattr(A(), '__fo' + 'o__', 1)")
    assert "'__foo__' is not accessible" in str(info.value)
