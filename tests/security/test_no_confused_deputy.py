"""Invariant 3, no confused deputies: library code that looks into user objects runs as guest
code (safe_eval/guestlib), so whatever object an attacker hands it, it acts with the guest's
rights only. Each test is a former host deputy's gadget, written as the attacker would."""

from __future__ import annotations

import math
import typing

import pytest

from safe_eval import Evaluator, Limits, safe_eval, safe_exec
from safe_eval.errors import GuestError, MemoryLimit


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


# (UserDict/UserList are guest-stdlib classes made per run, so not shared: ChainMap instead)
_HOST_CLASSES = {"ChainMap": "collections.ChainMap", "OrderedDict": "collections.OrderedDict",
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


# -- snapshots: a host leaf checks a plain copy of a guest argument and uses only that copy ------

_STATEFUL_NAMES = '''
import enum
class Names:
    calls = 0
    def __iter__(self):
        Names.calls += 1
        if Names.calls == 1:
            return iter([("A", 1)])
        def fmt(self, spec):
            return "forged"
        return iter([("A", 1), ("__format__", fmt), ("__reduce_ex__", fmt), ("__del__", fmt)])
E = enum.Enum("E", Names())
'''

_KEYS_DISAGREE = '''
import enum
def fmt(self, spec):
    return "forged"
class Names(dict):
    def keys(self):
        return ["A"]
E = enum.Enum("E", Names({"A": 1, "__format__": fmt}))
'''


def test_enum_functional_api_builds_the_class_from_the_names_its_check_saw():
    enum_class = safe_exec(_STATEFUL_NAMES)["E"]
    assert [m.name for m in enum_class] == ["A"]
    assert not {"__format__", "__reduce_ex__", "__del__"} & set(vars(enum_class))
    assert f"{enum_class.A}" == "E.A"


def test_enum_functional_api_checks_the_names_a_dict_stores_not_what_its_keys_method_says():
    with pytest.raises(GuestError) as info:
        safe_exec(_KEYS_DISAGREE)
    assert info.value.type_name == "ValueError"
    assert "'__format__' is not allowed" in str(info.value)


def test_enum_functional_api_checks_the_mixin_type_even_without_names():
    with pytest.raises(GuestError) as info:
        safe_exec("import enum\nX = enum.Enum('X', type=dict)")
    assert info.value.type_name == "TypeError"


def test_json_dumps_encodes_the_list_it_sized_not_what_a_second_iteration_yields():
    attack = '''
import json
row = [0] * 100
class L(list):
    calls = 0
    def __iter__(self):
        L.calls += 1
        if L.calls == 1:
            return iter([])
        return iter([row] * 1000)
json.dumps(L())
'''
    assert safe_eval(attack, limits=Limits(ops=200_000)) == "[]"


def test_json_dumps_sizes_the_rows_a_list_subclass_stores_behind_an_empty_iter():
    attack = '''
import json
class L(list):
    def __iter__(self):
        return iter([])
json.dumps(L([[0] * 1000] * 2000))
'''
    with pytest.raises(MemoryLimit):
        safe_eval(attack, limits=Limits(ops=200_000, memory=4 << 20))


@pytest.mark.parametrize("indent", ["K()", "True + K()"], ids=["index", "index-in-arithmetic"])
def test_json_dumps_caps_an_indent_given_as_a_guest_index(indent):
    attack = f'''
import json
class K:
    def __index__(self):
        return 3 * 10**8
    def __radd__(self, other):
        return K()
json.dumps([1, 2], indent={indent})
'''
    with pytest.raises(GuestError) as info:
        safe_eval(attack, limits=Limits(ops=200_000))
    assert info.value.type_name == "ValueError"


def test_json_dumps_reads_stateful_separators_once():
    attack = '''
import json
class Seps:
    n = 0
    def __iter__(self):
        Seps.n += 1
        if Seps.n == 1:
            return iter([",", ":"])
        return iter(["XXXXXXXX", ":"])
(json.dumps([0] * 3, separators=Seps()), Seps.n)
'''
    assert safe_eval(attack, limits=Limits(ops=200_000)) == ("[0,0,0]", 1)


_SPY = '''
import typing
class Spy:
    def __init__(self, key):
        self.key = key
    def __call__(self):
        pass
    def __hash__(self):
        return hash(self.key)
    def __eq__(self, other):
        return True
T = typing.TypeVar("T")
'''


@pytest.mark.parametrize("poison", [
    "typing.Optional[Spy(int)]",
    "typing.List[Spy(str)]",
    "typing.Union[Spy(int), None]",
    "typing.Dict[str, T][Spy(int)]",
    "typing.Annotated[int, Spy('doc')]",
    "typing.Callable[[Spy(int)], str]",
    "typing.Optional[list[Spy(int)]]",
    "(int | T)[Spy(int)]",
    "type(typing.List)(Spy(int))",
    "typing.TypedDict('M', {'a': Spy(int)})",
], ids=["optional", "list", "union", "alias-of-alias", "annotated", "callable", "generic-alias",
        "typevar-union", "forged-stand-in", "typeddict"])
def test_guest_typing_subscription_cannot_poison_the_process_wide_typing_cache(poison):
    with pytest.raises(GuestError) as info:
        safe_exec(_SPY + poison, limits=Limits(ops=200_000))
    assert info.value.type_name == "TypeError"
    assert repr(typing.Optional[int]) == "typing.Optional[int]"  # noqa: UP045 (the cached form)
    assert typing.Optional[int].__args__ == (int, type(None))  # noqa: UP045
    assert typing.List[str].__args__ == (str,)
    assert typing.Annotated[int, "doc"].__metadata__ == ("doc",)
    assert safe_eval("import typing\nrepr(typing.Optional[int])") == "typing.Optional[int]"


@pytest.mark.parametrize(("code", "expected"), [
    ("repr(typing.Optional[int])", "typing.Optional[int]"),
    ("repr(typing.Dict[str, typing.List[int]])", "typing.Dict[str, typing.List[int]]"),
    ("repr(typing.Dict[str, T][int])", "typing.Dict[str, int]"),
    ("repr(typing.Callable[[int], str])", "typing.Callable[[int], str]"),
    ("repr(typing.Literal['a', 1, None])", "typing.Literal['a', 1, None]"),
    ("class C: pass\nrepr(typing.Optional[C]).endswith('C]')", True),
    ("repr(typing.Generic[T])", "typing.Generic[~T]"),
    ("isinstance([], typing.List)", True),
    ("M = typing.TypedDict('M', {'a': int})\nM(a=1)", {"a": 1}),
], ids=["optional", "nested", "alias-of-alias", "callable", "literal", "guest-class", "generic", "isinstance",
        "typeddict"])

def test_guest_typing_subscription_still_accepts_classes_and_typing_forms(code, expected):
    assert safe_eval(_SPY + code, limits=Limits(ops=200_000)) == expected


def test_type_of_typing_typeddict_is_not_the_host_function_type():
    attack = "import typing\nF = type(typing.TypedDict)\nF(1)"
    with pytest.raises(GuestError) as info:
        safe_eval(attack, limits=Limits(ops=200_000))
    assert info.value.type_name == "TypeError"
    assert "cannot create" in str(info.value)


def test_deepcopy_never_hands_the_guests_memo_to_host_copy_code():
    attack = '''
import copy
calls = []
class G:
    def append(self, x):
        calls.append(x)
memo = {}
memo[id(memo)] = G()
x = [1, [2]]
y = copy.deepcopy(x, memo)
(y, [c is x for c in calls], memo[id(x)] is y)
'''
    # the one append is the guest's own copy code keeping x alive; host code never calls it
    assert safe_eval(attack, limits=Limits(ops=200_000)) == ([1, [2]], [True], True)


@pytest.mark.parametrize("call", [
    "random.sample(range(10), K())",
    "random.choices([1], k=K())",
    "random.randbytes(K())",
], ids=["sample", "choices", "randbytes"])
def test_random_checks_the_size_a_guest_index_gives_before_the_host_allocates_it(call):
    attack = f'''
import random
class K:
    def __index__(self):
        return 10**8
    def __ge__(self, o):
        return True
    def __le__(self, o):
        return True
{call}
'''
    with pytest.raises(MemoryLimit) as info:
        safe_eval(attack, limits=Limits(ops=200_000, memory=64 << 20))
    assert str(info.value).startswith("allocation too large")  # refused before, not caught after


@pytest.mark.parametrize("call", [
    "textwrap.indent(S('a\\n' * 20000), 'p' * 2000)",
    "base64.b64encode(B(b'x' * 200_000))",
    "string.Template('$a' * 20000).substitute(a=S('x' * 2000))",
], ids=["textwrap-indent", "base64", "template-substitute"])
def test_text_leaves_size_the_stored_text_not_what_a_subclass_len_claims(call):
    attack = f'''
import base64, string, textwrap
class S(str):
    def __len__(self):
        return 0
    def count(self, *args):
        return 0
class B(bytes):
    def __len__(self):
        return 0
{call}
'''
    with pytest.raises(MemoryLimit) as info:
        safe_eval(attack, limits=Limits(ops=2_000_000, memory=300_000))
    assert str(info.value).startswith("allocation too large")  # refused before, not caught after


@pytest.mark.parametrize(("getter", "expected"), [
    ("operator.attrgetter(N('x'))(p)", "x"),
    ("operator.methodcaller(N('get'))(p)", "get"),
], ids=["attrgetter", "methodcaller"])
def test_operator_getters_use_the_name_they_checked_not_what_a_str_subclass_answers(getter, expected):
    attack = f'''
import operator
class N(str):
    def split(self, sep=None):
        return ["y"]
    def __eq__(self, other):
        return True
    def __hash__(self):
        return hash("y")
class P:
    def get(self):
        return "get"
    def y(self):
        return "y"
p = P()
p.x = "x"
{getter}
'''
    assert safe_eval(attack, limits=Limits(ops=200_000)) == expected


@pytest.mark.parametrize("call", [
    "collections.UserString('{0.__init__.__globals__}').format(collections.UserString)",
    "collections.UserString('{x.__class__.__mro__}').format_map({'x': 1})",
], ids=["format", "format_map"])
def test_userstring_formatting_resolves_fields_through_the_membrane(call):
    with pytest.raises(GuestError, match="not allowed"):
        safe_eval(f"import collections\n{call}", {})


@pytest.mark.parametrize("field", ["__module__"])
def test_a_guest_class_cannot_rename_itself_into_a_module_host_pickle_would_import(field: str) -> None:
    # pickle/copyreg/inspect import ``__module__`` and look ``__qualname__`` up with host
    # rights: named 'unittest.__main__', pickling a returned object ran test discovery
    code = f"class Answer:\n    pass\nAnswer.{field} = 'unittest.__main__'\nanswer = Answer()"
    with pytest.raises(GuestError):
        safe_exec(code)
    for setter in (f"setattr(Answer, '{field}', 'x')",):
        with pytest.raises(GuestError):
            safe_exec("class Answer:\n    pass\n" + setter)


# the snapshot rule on every builtin container kind (``membrane/snapshot.py``): the host leaf
# reads a subclass's stored items, never what its ``__iter__``/``keys`` answer
SUBCLASS_SNAPSHOTS = {
    "tuple": ("class C(tuple):\n    def __iter__(self):\n        return iter(['lie'])\n"
              "json.dumps(C((1, 2)))", "[1, 2]"),
    "dict_in_list": ("class C(dict):\n    def __iter__(self):\n        return iter(['lie'])\n"
                     "    def items(self):\n        return [('lie', 0)]\n"
                     "json.dumps([C(a=1)])", '[{"a": 1}]'),
    "set_by_default": ("class C(set):\n    def __iter__(self):\n        return iter(['lie'])\n"
                       "json.dumps({'k': C([1])}, default=list)", '{"k": [1]}'),
    "frozenset_by_default": ("class C(frozenset):\n    def __iter__(self):\n        return iter(['lie'])\n"
                             "json.dumps([C([2])], default=list)", "[[2]]"),
    "shared_list": ("a = [1]\njson.dumps([a, a, {'k': a}, (a,)])", '[[1], [1], {"k": [1]}, [[1]]]'),
}


@pytest.mark.parametrize(("code", "expected"), SUBCLASS_SNAPSHOTS.values(), ids=list(SUBCLASS_SNAPSHOTS))
def test_json_dumps_encodes_the_stored_items_of_every_container_subclass(code, expected):
    assert safe_eval("import json\n" + code) == expected


def test_json_dumps_of_a_tuple_holding_itself_through_a_list_is_a_circular_reference_error():
    with pytest.raises(GuestError, match="Circular reference detected"):
        safe_eval("import json\na = []\nt = (a,)\na.append(t)\njson.dumps(t)")


ENUM_NAME_SOURCES = {
    "tuple_subclass": ("class T(tuple):\n    def __iter__(self):\n        return iter(['Z'])\n"
                       "E = enum.Enum('E', T(('A', 'B')))", ["A", "B"]),
    "dict_subclass": ("class D(dict):\n    def __iter__(self):\n        return iter(['Z'])\n"
                      "E = enum.Enum('E', D(A=1, B=2))", ["A", "B"]),
    "frozenset_subclass": ("class F(frozenset):\n    def __iter__(self):\n        return iter(['Z'])\n"
                           "E = enum.Enum('E', F(['A']))", ["A"]),
    "set_subclass": ("class S(set):\n    def __iter__(self):\n        return iter(['Z'])\n"
                     "E = enum.Enum('E', S(['A']))", ["A"]),
    "str_subclass_pairs": ("class S(str):\n    def __iter__(self):\n        return iter(['Z'])\n"
                           "E = enum.Enum('E', [(S('AB'), 1)])", ["AB"]),
    "generator": ("def g():\n    yield 'A'\n    yield 'B'\nE = enum.Enum('E', g())", ["A", "B"]),
}


@pytest.mark.parametrize(("code", "names"), ENUM_NAME_SOURCES.values(), ids=list(ENUM_NAME_SOURCES))
def test_enum_functional_api_reads_a_subclass_names_from_its_storage(code, names):
    assert safe_eval("import enum\n" + code + "\n[m.name for m in E]") == names
