"""The membrane's guest-facing behaviour through the public API (``safe_eval``, ``safe_exec``):
the guarded builtins' argument errors, the instance-dict view, ``json`` and ``enum`` on
subclassed containers (the snapshot copies), proxies, tools and host iterators as guest code
sees them. The security invariants these parts enforce are tested under ``tests/security``."""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval import expose, safe_eval
from safe_eval.errors import GuestError


def _error(code: str, env: dict[str, Any] | None = None) -> str:
    with pytest.raises(GuestError) as info:
        safe_eval(code, env or {})
    return str(info.value)


# -- builtins: CPython's errors -------------------------------------------------------------
BUILTIN_ERRORS = {
    "getattr(1)": "getattr expected at least 2 arguments, got 1",
    "getattr(1, 'real', 0, 0)": "getattr expected at most 3 arguments, got 4",
    "hasattr(1)": "hasattr expected 2 arguments, got 1",
    "setattr(1, 'a')": "setattr expected 3 arguments, got 2",
    "delattr(1)": "delattr expected 2 arguments, got 1",
    "getattr(1, 2)": "attribute name must be string, not 'int'",
    "hasattr([], None)": "attribute name must be string, not 'NoneType'",
    "vars()": "vars() needs exactly one argument",
    "vars(1)": "vars() argument must have __dict__ attribute",
    "class S:\n    __slots__ = ('x',)\nvars(S())": "vars() argument must have __dict__ attribute",
    "d = dir\nd()": "dir() needs exactly one argument",
    "s = super\ns(1)": "super(): use super() inside a method or super(Class, obj)",
    "super(int, 1)": "super() in safe-eval works with classes defined by the code",
    "print(1, file=None or 2)": "print(file=...) is not available in safe-eval",
    "print(1, sep=3)": "sep must be None or a string, not int",
    "print(1, end=4)": "end must be None or a string, not int",
    "eval(3)": "eval() arg 1 must be a string in safe-eval",
    "eval('1', [])": "eval() globals must be a dict",
    "exec('x = 1', {}, {})": "exec() with separate locals is not supported in safe-eval",
}


@pytest.mark.parametrize(("code", "message"), BUILTIN_ERRORS.items(), ids=list(BUILTIN_ERRORS))
def test_guarded_builtins_raise_cpythons_type_errors(code: str, message: str) -> None:
    assert message in _error(code)


def test_getattr_and_hasattr_answer_for_missing_names() -> None:
    assert safe_eval("(getattr(1, 'nope', 7), hasattr(1, 'real'), hasattr(1, 'nope'))") == (7, True, False)
    assert "has no attribute 'nope'" in _error("getattr([], 'nope')")


def test_setattr_and_delattr_change_the_guests_own_object() -> None:
    code = "class A:\n    pass\na = A()\nsetattr(a, 'x', 1)\nv = a.x\ndelattr(a, 'x')\n(v, hasattr(a, 'x'))"
    assert safe_eval(code) == (1, False)


def test_print_takes_none_for_sep_and_end() -> None:
    from safe_eval import Evaluator

    result = Evaluator().run("print(1, 2, sep=None, end=None)", {})
    assert result.stdout == "1 2\n"


def test_eval_of_bytes_runs_their_text() -> None:
    assert safe_eval("(eval(b'1 + 1'), eval(bytearray(b'3')))") == (2, 3)


def test_exec_into_a_globals_dict_fills_it() -> None:
    assert safe_eval("g = {}\nexec('x = 40 + 2', g)\ng['x']") == 42


def test_dir_of_a_guest_object_lists_its_names_and_the_readable_dunders() -> None:
    code = ("class A:\n    def f(self):\n        pass\na = A()\na.y = 1\n"
            "(dir(a), dir(A))")
    of_object, of_class = safe_eval(code)
    assert {"f", "y", "__init__", "__class__"} <= set(of_object)
    assert "__reduce_ex__" not in of_object and "__subclasshook__" not in of_object
    assert "f" in of_class and "__mro__" not in of_object


def test_dir_of_a_host_value_lists_only_what_the_guest_may_read() -> None:
    names = safe_eval("dir([])")
    assert "append" in names and "__len__" in names
    assert "__class__" in names and "__init_subclass__" not in names and "__reduce_ex__" not in names
    assert safe_eval("dir(o)", {"o": expose(object())}) == []


# -- the instance-dict view (``vars(obj)``, ``obj.__dict__``) ----------------------------------
A = "class A:\n    pass\na = A()\na.x = 1\nd = vars(a)\n"

INSTANCE_DICT_READS = {
    "list(iter(d))": ["x"],
    "(d == {'x': 1}, d == vars(a), d == [('x', 1)])": (True, True, False),
    "repr(d)": "{'x': 1}",
    "d.copy()": {"x": 1},
    "(d.get('x'), d.get('zz', 0), d.keys(), d.values(), d.items(), len(d), 'x' in d)":
        (1, 0, ["x"], [1], [("x", 1)], 1, True),
    "(d.setdefault('x', 5), d.setdefault('y', 6), a.y)": (1, 6, 6),
    "(d.pop('zz', 3), d.pop('x'), hasattr(a, 'x'))": (3, 1, False),
    "d.update([('k', 2)], z=3)\nd.update(vars(A()))\n(a.k, a.z)": (2, 3),
    "d.clear()\n(hasattr(a, 'x'), len(d))": (False, 0),
    "d['w'] = 4\ndel d['w']\nhasattr(a, 'w')": False,
}


@pytest.mark.parametrize(("code", "expected"), INSTANCE_DICT_READS.items(), ids=list(INSTANCE_DICT_READS))
def test_the_instance_dict_view_reads_and_writes_like_a_dict(code: str, expected: Any) -> None:
    assert safe_eval(A + code) == expected


INSTANCE_DICT_ERRORS = {
    "d[1] = 2": "attribute name must be string, not 'int'",
    "d.pop('zz')": "KeyError",
    "d.update({'q': 1}, {'r': 2})": "update expected at most 1 argument, got 2",
    "d.fromkeys": "'dict' attribute 'fromkeys' is not accessible in safe-eval",
}


@pytest.mark.parametrize(("code", "message"), INSTANCE_DICT_ERRORS.items(), ids=list(INSTANCE_DICT_ERRORS))
def test_the_instance_dict_view_raises_dicts_errors(code: str, message: str) -> None:
    assert message in _error(A + code)


def test_a_returned_instance_dict_view_reaches_the_host_as_a_plain_dict() -> None:
    assert safe_eval(A + "d") == {"x": 1}
    assert safe_eval(A + "(d, 1)") == ({"x": 1}, 1)
    assert safe_eval(A + "[d, 2]") == [{"x": 1}, 2]
    assert type(safe_eval(A + "d")) is dict


# -- tools, host classes, exposed objects and host iterators as guest code sees them ---------
class Order:
    """An order."""

    def __init__(self) -> None:
        self.id = 1
        self.tags = ["a"]

    @property
    def broken(self) -> int:
        raise RuntimeError("a failing host property")


class SpecialOrder(Order):
    pass


class OrderError(Exception):
    pass


def _lazy(f: Any) -> Any:
    return (f(i) for i in range(3))


def test_a_host_class_tool_shows_its_name_and_doc_and_answers_isinstance() -> None:
    code = ("o = Order()\n(repr(Order), Order.__name__, Order.__doc__, isinstance(o, Order), isinstance(1, Order),"
            " issubclass(type(o), Order), issubclass(int, Order))")
    assert safe_eval(code, {"Order": Order}) == ("<tool Order>", "Order", "An order.", True, False, True, False)


def test_a_function_tool_is_no_class_for_isinstance_or_issubclass() -> None:
    for code in ("isinstance(1, lazy)", "issubclass(int, lazy)"):
        assert "isinstance() arg 2 must be a type" in _error(code, {"lazy": _lazy})


def test_a_host_exception_class_matches_the_class_of_what_it_raised() -> None:
    code = ("try:\n    raise E('x')\nexcept E as e:\n"
            "    r = (repr(E), hash(E) == hash(type(e)), type(e) == E, E == 1, issubclass(type(e), E), issubclass(int, E))\nr")
    # ``issubclass(type(e), E)`` was False: ``type(e)`` is the class's stand-in, not a type
    assert safe_eval(code, {"E": OrderError}) == ("<host exception class E>", True, True, False, True, False)


def test_an_exposed_class_and_its_instances_answer_isinstance_and_issubclass() -> None:
    env = {"C": expose(Order), "S": expose(SpecialOrder), "o": expose(Order())}
    code = "(repr(C), type(C) is type, isinstance(o, C), issubclass(type(o), C), issubclass(int, C), issubclass(S, C))"
    assert safe_eval(code, env) == ("<class 'Order'>", True, True, True, False, True)
    assert "issubclass() arg 1 must be a class" in _error("issubclass(1, C)", env)
    assert "isinstance() arg 2 must be a type" in _error("isinstance(1, o)", env)


def test_the_type_of_an_exposed_object_is_its_class_view() -> None:
    code = "(isinstance(o, type(o)), type(o) == type(o), hash(type(o)) == hash(type(o)), type(o) == 1)"
    assert safe_eval(code, {"o": expose(Order())}) == (True, True, True, False)


def test_an_exposed_objects_repr_shows_scalars_and_only_the_type_of_the_rest() -> None:
    shown = safe_eval("repr(o)", {"o": expose(Order(), attrs=["id", "tags", "broken"])})
    assert shown == "Order(broken=<?>, id=1, tags=<list>)"


def test_a_class_declaring_safe_eval_expose_as_a_mapping_shows_those_names() -> None:
    class Declared:
        __safe_eval_expose__ = {"attrs": ["id"], "methods": ["double"]}
        id = 5

        def double(self) -> int:
            return 2 * self.id

    assert safe_eval("(o.id, o.double())", {"o": Declared()}) == (5, 10)
    assert "not exposed" in _error("o.secret", {"o": Declared()})


def test_many_host_classes_each_keep_one_view_while_it_is_held() -> None:
    # past 256 live views the map of views is swept; views still held stay the same object
    classes = [type(f"K{i}", (), {}) for i in range(300)]
    env = {"objs": [expose(k()) for k in classes], "again": [expose(k()) for k in classes]}
    code = "views = [type(o) for o in objs]\nall(type(b) is v for b, v in zip(again, views))"
    assert safe_eval(code, env) is True


def test_a_host_generator_shows_as_one_and_hides_its_attributes() -> None:
    assert safe_eval("g = lazy(lambda i: i * 2)\n(repr(g), list(g))", {"lazy": _lazy}) == ("<host generator>", [0, 2, 4])
    assert "host iterator attribute 'send' is not accessible" in _error("getattr(lazy(abs), 'send')", {"lazy": _lazy})


def test_a_limit_reached_inside_a_host_generator_ends_the_run() -> None:
    from safe_eval.errors import OpLimit

    with pytest.raises(OpLimit):
        safe_eval("sum(1 for x in lazy(lambda i: sum(range(10**6))))", {"lazy": _lazy}, limits={"ops": 5000})


def test_a_tool_raising_system_exit_hands_the_guest_a_catchable_exit() -> None:
    def leave() -> None:
        raise SystemExit(3)

    assert safe_eval("try:\n    leave()\nexcept SystemExit as e:\n    r = e.code\nr", {"leave": leave}) == 3


# -- attribute reads as CPython answers them --------------------------------------------------
ATTRIBUTE_READS = {
    "class S(str):\n    pass\nclass A:\n    pass\na = A()\na.x = 1\ngetattr(a, S('x'))": 1,
    "class A:\n    pass\na = A()\na.x = 1\nobject.__delattr__(a, 'x')\nhasattr(a, 'x')": False,
    "class S(str):\n    pass\n(S.format('{}-{}', 1, 2), S.format_map('{a}', {'a': 3}))": ("1-2", "3"),
    "(str.format('{}', 1), str.format_map('{a}', {'a': 2}))": ("1", "2"),
    "def f():\n    pass\nf.__class__.__name__": "Function",
    "e = KeyError(1)\n(e.__eq__(e), e.__cause__)": (True, None),
    "import functools\nhasattr(functools.partial(len), '__wrapped__')": False,
    "class S(str):\n    def f(self):\n        return super().__mul__(2)\nS('ab').f()": "abab",
    "import json\ntry:\n    json.loads('x')\nexcept ValueError as e:\n    r = (e.msg, e.pos)\nr": ("Expecting value", 0),
    "f = staticmethod(lambda: 1)\ngetattr(f, '__fu' + 'nc__')()": 1,
    "import random\ngetattr(random.Random(), '__mod' + 'ule__')": "safe_eval.membrane.modules.random",
    "class S(str):\n    def f(self):\n        return getattr(super(), '__m' + 'ul__')(2)\nS('ab').f()": "abab",
    "m = 'ab'.__mul__\n(m.__name__, m.__qualname__, repr(m))": ("__mul__", "__mul__", "<built-in method __mul__ of str object>"),
    "import collections\nm = collections.deque().extend\n(m.__name__, getattr(m, 'x', 0))": ("extend", 0),
}


@pytest.mark.parametrize(("code", "expected"), ATTRIBUTE_READS.items(), ids=range(len(ATTRIBUTE_READS)))
def test_attribute_reads_answer_as_in_cpython(code: str, expected: Any) -> None:
    assert safe_eval(code) == expected


def test_the_unbound_safe_format_checks_its_self_as_strs_descriptor_does() -> None:
    assert "descriptor 'format' requires a 'str' object but received 'int'" in _error("str.format(1, 2)")


def test_str_format_of_a_builtin_function_shows_it_as_str_does() -> None:
    assert safe_eval("('{}'.format(print), '{:>3}'.format(1))") == ("<built-in function print>", "  1")


def test_json_separators_given_as_container_subclasses_are_read_from_their_storage() -> None:
    code = ("import json\nclass D(dict):\n    pass\nclass S(str):\n    pass\n"
            "(json.dumps([1, 2], separators=D({',': 0, ':': 0})), json.dumps({'a': 1}, separators=S(',:')))")
    assert safe_eval(code) == ("[1,2]", '{"a":1}')


FORMAT_ERRORS = {
    "'{_x}'.format(_x=1)": "format field '_x' is not allowed in safe-eval",
    "'{!z}'.format(1)": "Unknown conversion specifier z",
    "type(1, 2)": "type() takes 1 or 3 arguments",
    "class S(str):\n    pass\ntype('K', (), {S('x'): 1})": "class attribute names must be plain str",
}


@pytest.mark.parametrize(("code", "message"), FORMAT_ERRORS.items(), ids=range(len(FORMAT_ERRORS)))
def test_formatting_and_type_refusals_name_the_cause(code: str, message: str) -> None:
    assert message in _error(code)


def test_the_type_of_an_interpreter_object_compares_as_a_class() -> None:
    assert safe_eval("def f():\n    pass\n(issubclass(type(f), type(f)), type(f) == type(f), type(f) == 1)") == (
        True, True, False)


def test_a_static_builtin_of_a_listed_type_enters_as_it_is() -> None:
    assert safe_eval("mk('a', 'b')", {"mk": str.maketrans}) == {97: 98}


# -- callables the guest stores or reads as values (``membrane/stored.py``) --------------------
def test_a_method_read_as_a_value_compares_hashes_and_prints_as_the_method() -> None:
    code = "l = []\nm = l.append\n(m == l.append, hash(m) == hash(l.append), repr(m).startswith('<built-in method append'))"
    assert safe_eval(code) == (True, True, True)


def test_callables_stored_on_a_guest_object_call_as_they_are() -> None:
    code = ("class C:\n    def __call__(self):\n        return 1\nclass O:\n    def m(self):\n        return 3\n"
            "o = O()\no.c = C()\no.t = t\no.b = O().m\n(o.c(), o.t(), o.b(), type(o.c).__name__)")
    assert safe_eval(code, {"t": lambda: 2}) == (1, 2, 3, "C")


def test_a_host_python_method_bound_to_data_works_as_a_value() -> None:
    assert safe_eval("import collections\nc = collections.Counter('aab')\nm = c.most_common\nm(1)") == [("a", 2)]


def test_a_guest_classs_gated_hooks_print_as_its_functions_to_the_host() -> None:
    from safe_eval import safe_exec

    cls = safe_exec("class A:\n    def __getattr__(self, n):\n        return 1\n"
                    "    def __deepcopy__(self, memo):\n        return self\n")["A"]
    assert repr(cls.__dict__["__getattr__"]).startswith("<function A.__getattr__")
    assert repr(cls.__dict__["__deepcopy__"]).startswith("<function A.__deepcopy__")


def test_a_keyboard_interrupt_in_a_tool_reaches_the_host_as_it_is() -> None:
    # the host's own interrupt (Ctrl-C while a tool runs), uncaught, is not made a run error
    def tool() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        safe_eval("t()", {"t": tool})


def test_a_slice_the_guest_stored_reads_back_with_what_it_holds() -> None:
    code = "class A:\n    pass\na = A()\na.s = slice([1], (2, [3]))\n(a.s.start, a.s.stop, [1, 2, 3][slice(1, None)])"
    assert safe_eval(code) == ([1], (2, [3]), [2, 3])
