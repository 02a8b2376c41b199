"""Invariant: host code looking up a dunder or protocol name (any name starting with ``_``) on
a guest object never runs the guest's ``__getattr__``: it gets ``AttributeError``, as if the
class did not define the hook, unless the class defines the name itself. Host libraries probe
objects this way (``typing.get_type_hints`` reads ``__annotations__`` and evaluates the strings
it finds, ``inspect`` follows ``__wrapped__`` and trusts ``__signature__``, ``os.fspath`` calls
``__fspath__``, pydantic and dataclasses read ``__pydantic_*__``/``__dataclass_fields__``,
IPython calls ``_repr_html_``), so a guest answer is model-made data in host hands. A guest
``__getattr__`` that fails for a host caller is an ``AttributeError`` too (``hasattr`` keeps its
meaning). Guest code's own reads still reach its ``__getattr__``, as CPython's would.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from safe_eval import safe_eval, safe_exec

EVIL_PLAIN = "exec(\"import os; os.system('touch CANARY')\") or int"

_ANSWERS_EVERYTHING = f'''
calls = []
class G:
    def __getattr__(self, name):
        calls.append(name)
        return {{"x": {EVIL_PLAIN!r}, "return": {EVIL_PLAIN!r}}}
    def __call__(self, x):
        return x
g = G()
'''


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The host process, watched: every os.system call is recorded, in a scratch directory."""
    calls: list[str] = []

    def system(command: str) -> int:
        calls.append(command)
        return 0

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "system", system)
    yield calls
    assert not (tmp_path / "CANARY").exists()


PROBED = ["__annotations__", "__signature__", "__wrapped__", "__fspath__", "__index__",
          "__class_getitem__", "__origin__", "__args__", "__parameters__", "__dataclass_fields__",
          "__pydantic_core_schema__", "__pydantic_fields__", "__get_pydantic_core_schema__",
          "__no_type_check__", "__array__", "__html__", "_fields", "_asdict", "_repr_html_",
          "_ipython_display_", "__foo__"]


@pytest.mark.parametrize("name", PROBED)
def test_a_host_lookup_of_a_dunder_or_protocol_name_never_runs_guest_getattr(name: str) -> None:
    ns = safe_exec(_ANSWERS_EVERYTHING)
    assert not hasattr(ns["g"], name)
    with pytest.raises(AttributeError):
        getattr(ns["g"], name)
    assert ns["calls"] == []


def test_typing_get_type_hints_on_a_returned_guest_object_evaluates_no_model_text(host: list[str]) -> None:
    ns = safe_exec(_ANSWERS_EVERYTHING)
    with pytest.raises(TypeError):  # not a class, module or function, and no __annotations__
        typing.get_type_hints(ns["g"])
    assert ns["calls"] == [] and host == []


def test_inspect_and_dataclasses_on_a_returned_guest_object_see_only_its_class(host: list[str]) -> None:
    ns = safe_exec(_ANSWERS_EVERYTHING)
    g = ns["g"]
    # the signature of its class's __call__, never a guest-made __signature__ or __wrapped__
    assert list(inspect.signature(g).parameters) == ["x"]
    assert inspect.unwrap(g) is g
    assert not dataclasses.is_dataclass(g)
    with pytest.raises(TypeError):
        dataclasses.fields(g)
    with pytest.raises(TypeError):
        os.fspath(g)
    assert ns["calls"] == [] and host == []


def test_pydantic_validating_a_returned_guest_object_runs_no_guest_getattr_for_its_probes(host: list[str]) -> None:
    pydantic = pytest.importorskip("pydantic", reason="pydantic is not installed")
    ns = safe_exec(_ANSWERS_EVERYTHING)

    class Model(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(from_attributes=True)
        y: Any = None

    # from_attributes reads the declared field by name (public: the guest's answer); nothing else
    Model.model_validate(ns["g"])
    assert all(not name.startswith("_") for name in ns["calls"]) and host == []


def test_the_host_gets_attribute_error_when_a_guest_getattr_raises() -> None:
    ns = safe_exec("class G:\n    def __getattr__(self, name):\n        raise KeyError(name)\ng = G()\n"
                   "class H:\n    def __getattr__(self, name):\n        raise AttributeError(name)\nh = H()\n")
    assert not hasattr(ns["g"], "anything")
    assert not hasattr(ns["h"], "anything")
    assert getattr(ns["g"], "anything", "default") == "default"


def test_the_host_still_reads_public_names_a_guest_getattr_answers() -> None:
    ns = safe_exec("class G:\n    def __getattr__(self, name):\n        return 'got ' + name\ng = G()\n")
    assert ns["g"].anything == "got anything"


def test_a_class_that_defines_a_dunder_itself_still_answers_the_host() -> None:
    ns = safe_exec("class G:\n    __match_args__ = ('a',)\n    def __getattr__(self, name):\n"
                   "        return 1\n    def __index__(self):\n        return 7\ng = G()\n")
    assert ns["g"].__match_args__ == ("a",)
    assert [10, 11, 12, 13, 14, 15, 16, 17][ns["g"]] == 17


def test_guest_code_still_reaches_its_own_getattr_for_every_name() -> None:
    code = (
        "class G:\n    def __getattr__(self, name):\n        return 'got ' + name\n"
        "class R:\n    def __getattr__(self, name):\n        raise KeyError(name)\n"
        "g = G()\n"
        "try:\n    R().x\n    raised = None\nexcept KeyError as e:\n    raised = 'KeyError'\n"
        "(g.x, getattr(g, 'y'), g._z, getattr(g, '_fields'), hasattr(g, '__len__'), raised,\n"
        " G.__getattr__(g, 'w'), g.__getattr__('v'))"
    )
    assert safe_eval(code) == ("got x", "got y", "got _z", "got _fields", True, "KeyError", "got w", "got v")


def test_guest_code_calling_its_hooks_through_super_gets_its_own_functions() -> None:
    # ``super().__getattr__`` used to come back as the gate bound to the object (the super
    # call path skips the exit check): the guest's own call of a ``_`` name was refused, and
    # its own ``super().__deepcopy__(memo)`` got an empty memo
    code = ("class A:\n    def __getattr__(self, name):\n        return 'got ' + name\n"
            "    def __deepcopy__(self, memo):\n        return sorted(memo)\n"
            "class B(A):\n    def f(self):\n"
            "        return (super().__getattr__('_x'), super().__getattr__('y'), super().__deepcopy__({1: 2}))\n"
            "B().f()")
    assert safe_eval(code) == ("got _x", "got y", [1])


def test_a_getattr_set_on_the_class_later_or_built_by_type_is_gated_too() -> None:
    ns = safe_exec("calls = []\ndef ga(self, name):\n    calls.append(name)\n    return {'x': 'int'}\n"
                   "class A:\n    pass\nA.__getattr__ = ga\na = A()\n"
                   "B = type('B', (), {'__getattr__': ga})\nb = B()\n"
                   "class C(dict):\n    __getattr__ = dict.__getitem__\nc = C(_fields=('x',), y=1)\n"
                   "def probe():\n    return (c._fields, c.y)\n")
    for obj in (ns["a"], ns["b"], ns["c"]):
        assert not hasattr(obj, "__annotations__")
        assert not hasattr(obj, "_fields")
    assert ns["calls"] == []
    assert ns["c"].y == 1
    assert ns["probe"]() == (("x",), 1)  # the guest's own reads
