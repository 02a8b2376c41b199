"""Invariant 3, no confused deputies: library code that looks into user objects runs as guest
code (safe_eval/guestlib), so whatever object an attacker hands it, it acts with the guest's
rights only. Each test is a former host deputy's gadget, written as the attacker would."""

from __future__ import annotations

import math

import pytest

from safe_eval import Evaluator, safe_eval
from safe_eval.errors import GuestError


class Vault:
    """A host object the host hands to guest code as an opaque value."""

    def __init__(self) -> None:
        self.secret = "hunter2"

    def __repr__(self) -> str:
        return f"Vault(secret={self.secret!r})"


# -- dataclasses: generated methods called unbound on objects that are not the dataclass -------

def test_a_frozen_dataclass_init_called_on_the_curated_math_module_cannot_rewrite_it():
    ev = Evaluator()
    attack = (
        "import math\n"
        "from dataclasses import dataclass\n"
        "@dataclass(frozen=True)\n"
        "class P:\n"
        "    _se_attrs: dict\n"
        "P.__init__(math, {'pi': 3, 'sqrt': print})"
    )
    with pytest.raises(GuestError) as info:
        ev.eval(attack)
    assert info.value.type_name == "AttributeError"
    assert ev.eval("import math\n(math.pi, math.sqrt(16.0))") == (math.pi, 4.0)


def test_a_dataclass_init_called_on_a_host_object_does_not_write_to_it():
    vault = Vault()
    attack = (
        "from dataclasses import dataclass\n"
        "@dataclass\n"
        "class P:\n"
        "    _obj: object\n"
        "P.__init__(vault, 'swapped')\n"
        "repr(vault)"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(attack, {"vault": vault})
    assert info.value.type_name == "AttributeError"
    assert vault.secret == "hunter2"


def test_a_dataclass_repr_called_on_a_host_proxy_does_not_read_the_object_behind_it():
    attack = (
        "from dataclasses import dataclass\n"
        "@dataclass\n"
        "class P:\n"
        "    _obj: object\n"
        "P.__repr__(vault)"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(attack, {"vault": Vault()})
    assert info.value.type_name == "AttributeError"
    assert "hunter2" not in str(info.value)


def test_a_dataclass_eq_called_on_two_host_proxies_does_not_compare_the_objects_behind_them():
    attack = (
        "from dataclasses import dataclass\n"
        "@dataclass\n"
        "class P:\n"
        "    _obj: object\n"
        "P.__eq__(a, b)"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(attack, {"a": Vault(), "b": Vault()})
    assert info.value.type_name == "AttributeError"


_HOST_CLASSES = {"UserDict": "collections.UserDict", "UserList": "collections.UserList",
                 "Counter": "collections.Counter", "Fraction": "fractions.Fraction"}


@pytest.mark.parametrize("target", list(_HOST_CLASSES.values()), ids=list(_HOST_CLASSES))
def test_dataclass_cannot_turn_a_shared_host_class_into_a_dataclass(target):
    import collections
    import dataclasses
    import fractions

    attack = f"import collections, fractions\nfrom dataclasses import dataclass\ndataclass({target})"
    with pytest.raises(GuestError) as info:
        safe_eval(attack)
    assert info.value.type_name == "TypeError"
    assert not any(dataclasses.is_dataclass(c) for c in (collections.UserDict, collections.UserList,
                                                           collections.Counter, fractions.Fraction))


# -- copy: nothing an object says about itself makes host code act --------------------------

_HOOK = (
    "calls = []\n"
    "def hook(*args):\n"
    "    calls.append(args)\n"
    "    return (list, (), None, iter([1, 2]))\n"
    "class A:\n"
    "    def __init__(self):\n"
    "        self.v = [1]\n"
    "a = A()\n"
)
# the hook installed in the instance's own __dict__ (CPython's deepcopy looks it up on the
# instance; copy.copy reads __reduce_ex__ there, and __reduce__ on the class only)
_HONOURED_BY_CPYTHON = {
    "reduce_ex_copy": ("__reduce_ex__", "copy.copy"),
    "reduce_ex_deepcopy": ("__reduce_ex__", "copy.deepcopy"),
    "reduce_deepcopy": ("__reduce__", "copy.deepcopy"),
}


@pytest.mark.parametrize(("hook_name", "copier"), list(_HONOURED_BY_CPYTHON.values()),
                         ids=list(_HONOURED_BY_CPYTHON))
def test_copy_never_calls_a_reduce_hook_the_guest_put_in_an_instance_dict(hook_name, copier):
    code = (
        "import copy\n" + _HOOK +
        # the identity invariant already refuses the write (instancedict.py); the copy must
        # not call the hook either way
        f"try:\n    vars(a)[{hook_name!r}] = hook\nexcept TypeError:\n    pass\n"
        f"b = {copier}(a)\n"
        "(calls, type(b) is A, b.v == [1], b is not a)"
    )
    assert safe_eval(code) == ([], True, True, True)


def test_deepcopy_hands_a_guest_deepcopy_hook_only_guest_visible_objects():
    code = (
        "import copy, re\n"
        "seen = []\n"
        "class A:\n"
        "    def __init__(self):\n"
        "        self.p = re.compile('a+')\n"
        "    def __deepcopy__(self, memo):\n"
        "        seen.extend(type(v).__name__ for v in memo.values())\n"
        "        return A()\n"
        "copy.deepcopy([A()])\n"
        "seen"
    )
    assert safe_eval(code) == ["list"]


def test_deepcopy_hands_back_the_same_host_proxy_and_never_copies_the_object_behind_it():
    vault = Vault()
    code = "import copy\nbox = [vault]\nc = copy.deepcopy(box)\n(c[0] is vault, c is not box, copy.copy(vault) is vault)"
    assert safe_eval(code, {"vault": vault}) == (True, True, True)


# -- statistics: host library code never calls methods of guest numbers ----------------------

_NUMBER = (
    "calls = []\n"
    "class N(int):\n"
    "    def as_integer_ratio(self):\n"
    "        calls.append('as_integer_ratio')\n"
    "        return (1, 1)\n"
    "    def __float__(self):\n"
    "        calls.append('__float__')\n"
    "        return 1.0\n"
    "    def __lt__(self, other):\n"
    "        calls.append('__lt__')\n"
    "        return True\n"
    "    def __add__(self, other):\n"
    "        calls.append('__add__')\n"
    "        return 1\n"
)


@pytest.mark.parametrize("function", ["mean", "fmean", "median", "stdev", "pvariance", "harmonic_mean",
                                      "geometric_mean", "quantiles"])
def test_statistics_does_not_call_methods_of_guest_numbers(function):
    code = (
        "import statistics\n" + _NUMBER +
        "try:\n"
        f"    statistics.{function}([N(1), N(2), N(3)])\n"
        "    outcome = 'ran'\n"
        "except TypeError as e:\n"
        "    outcome = str(e)\n"
        "(outcome, calls)"
    )
    assert safe_eval(code) == ("can't convert type 'N' to numerator/denominator", [])


# -- functools: the helpers act with the caller's rights --------------------------------------

def test_total_ordering_adds_guest_functions_that_a_host_proxy_cannot_be_compared_with():
    attack = (
        "import functools\n"
        "@functools.total_ordering\n"
        "class A:\n"
        "    def __lt__(self, other):\n"
        "        return True\n"
        "A.__gt__(vault, 1)"
    )
    with pytest.raises(GuestError) as info:
        safe_eval(attack, {"vault": Vault()})
    assert info.value.type_name == "AttributeError"


def test_wraps_cannot_copy_names_onto_a_host_function():
    with pytest.raises(GuestError) as info:
        safe_eval("import functools, math\nfunctools.wraps(len)(math.floor)")
    assert info.value.type_name == "AttributeError"


# -- nothing shared: a run cannot poison the guest stdlib of the next one ----------------------

_POISON = {
    "function_name": ("import dataclasses\nf = dataclasses.dataclass\nf.__name__ = 'evil'",
                      "import dataclasses\ndataclasses.dataclass.__name__", "dataclass"),
    "function_attribute": ("import copy\nf = copy.deepcopy\nf.marker = 1",
                           "import copy\nhasattr(copy.deepcopy, 'marker')", False),
    "wrapped_chain": ("import functools\ndef g():\n    pass\nf = functools.wraps\nf.__wrapped__ = g",
                      "import functools\nhasattr(functools.wraps, '__wrapped__')", False),
    "namedtuple_attribute": ("import collections\nf = collections.namedtuple\nf.rename = True",
                             "import collections\nhasattr(collections.namedtuple, 'rename')", False),
    "contextmanager_qualname": ("import contextlib\nf = contextlib.contextmanager\nf.__qualname__ = 'x'",
                                "import contextlib\ncontextlib.contextmanager.__qualname__",
                                "contextmanager"),
}


@pytest.mark.parametrize(("poison", "probe", "pristine"), list(_POISON.values()), ids=list(_POISON))
def test_a_guest_stdlib_function_changed_in_one_run_is_pristine_in_the_next(poison, probe, pristine):
    ev = Evaluator()
    ev.eval(poison)
    assert ev.eval(probe) == pristine
