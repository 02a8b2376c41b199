"""Invariant: a decoded callable's ``expected=`` type holds for every item, in and out, and the host
receives exactly the plain types it named.

The attacker's function returns a list whose first item is fine and the rest is not, or an
``int``/``str``/``list``/``dict`` subclass whose own methods would lie to the host later
(``__eq__`` always true, ``__iter__`` yielding other items, ``__str__`` returning other text).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import pytest

from safe_eval import GuestError, safe_callable, safe_eval

# (the model's function body, the expected return type): the exact typed error the host gets
BAD_ITEMS = {
    "list_with_bad_items_after_a_good_one": (
        "return [1, 'x; DROP TABLE t', None]", list[int],
        "f() returned a value of the wrong type: item 1 of list is not an instance of int"),
    "last_item_of_a_long_list": (
        "return list(range(999)) + ['tail']", list[int],
        "f() returned a value of the wrong type: item 999 of list is not an instance of int"),
    "dict_value_after_good_ones": (
        "return {'a': 1, 'b': 2, 'c': 'three'}", dict[str, int],
        "f() returned a value of the wrong type: value of key 'c' of dict is not an instance of int"),
    "dict_key_after_good_ones": (
        "return {'a': 1, 2: 2}", dict[str, int],
        "f() returned a value of the wrong type: key 2 of dict is not an instance of str"),
    "nested_list_deep_item": (
        "return [[1, 2], [3, 'x']]", list[list[int]],
        "f() returned a value of the wrong type: item 1 of item 1 of list is not an instance of int"),
    "variadic_tuple_last_item": (
        "return (1, 2, 3.5)", tuple[int, ...],
        "f() returned a value of the wrong type: item 2 of tuple is not an instance of int"),
    "set_with_one_bad_member": (
        "return {1, 2, 'x'}", set[int],
        "f() returned a value of the wrong type: [x] of set is not an instance of int"),
    "optional_list_bad_item": (
        "return [1, None]", list[int] | None,
        "f() returned a value of the wrong type: list did not match any element in the union:\n"
        "  list[int]: item 1 is not an instance of int\n"
        "  NoneType: is not an instance of NoneType"),
}


@pytest.mark.parametrize("body, result, message", BAD_ITEMS.values(), ids=BAD_ITEMS.keys())
def test_a_result_with_one_bad_item_anywhere_is_refused(body: str, result: Any, message: str) -> None:
    fn = safe_callable(f"def f(x):\n    {body}", expected=Callable[[int], result])
    with pytest.raises(GuestError) as info:
        fn(0)
    assert info.value.type_name == "TypeError"
    assert info.value.message == message


BAD_ARGUMENTS = {
    "last_item_of_a_list_argument": (
        ([1, 2, "3"],), {}, "argument 'xs' of f(): item 2 of list is not an instance of int"),
    "list_argument_passed_by_keyword": (
        (), {"xs": [1, None]}, "argument 'xs' of f(): item 1 of list is not an instance of int"),
    "second_parameter_dict_value": (
        ([1], {"a": 1, "b": "2"}),
        {}, "argument 'weights' of f(): value of key 'b' of dict is not an instance of int"),
}


@pytest.mark.parametrize("args, kwargs, message", BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_an_argument_with_one_bad_item_anywhere_is_refused(
        args: tuple[Any, ...], kwargs: dict[str, Any], message: str) -> None:
    fn = safe_callable("def f(xs, weights=None):\n    return 0",
                       expected=Callable[[list[int], dict[str, int]], int])
    with pytest.raises(TypeError) as info:
        fn(*args, **kwargs)
    assert str(info.value) == message


LIARS = "\n".join([
    "class Liar(int):",
    "    def __eq__(self, other): return True",
    "    def __hash__(self): return 0",
    "    def __str__(self): return 'admin'",
    "    def __index__(self): return 10**6",
    "class Text(str):",
    "    def __str__(self): return 'x' * 10**6",
    "    def __eq__(self, other): return True",
    "    def __hash__(self): return 0",
    "class Many(list):",
    "    def __iter__(self): return iter(range(10**6))",
    "    def __len__(self): return 10**6",
    "class Table(dict):",
    "    def __iter__(self): return iter(['admin'])",
    "    def keys(self): return ['admin']",
    "    def items(self): return [('admin', 0)]",
    "class Pair(tuple):",
    "    def __iter__(self): return iter(['a', 'b', 'c'])",
    "class Ratio(float):",
    "    def __eq__(self, other): return True",
    "class Buffer(bytearray):",
    "    def __eq__(self, other): return True",
    "class Bag(frozenset):",
    "    def __iter__(self): return iter([666])",
    "",
])

# (what the function returns, the expected return type): exactly what the host must receive
SUBCLASSES = {
    "int_subclass_for_int": ("Liar(7)", int, 7),
    "int_subclass_for_float": ("Liar(7)", float, 7),
    "int_subclass_for_optional_int": ("Liar(7)", int | None, 7),
    "str_subclass_for_str": ("Text('ok')", str, "ok"),
    "float_subclass_for_float": ("Ratio(0.5)", float, 0.5),
    "list_subclass_for_list": ("Many([1, 2])", list[int], [1, 2]),
    "list_of_int_subclasses": ("[Liar(1), 2, Liar(3)]", list[int], [1, 2, 3]),
    "dict_subclass_with_subclass_keys": ("Table({Text('k'): Liar(1)})", dict[str, int], {"k": 1}),
    "tuple_subclass_for_fixed_tuple": ("Pair((Liar(1), Text('s')))", tuple[int, str], (1, "s")),
    "frozenset_subclass_for_frozenset": ("Bag({1, 2})", frozenset[int], frozenset({1, 2})),
    "nested_containers": ("{'a': Many([Liar(1)])}", dict[str, list[int]], {"a": [1]}),
    "frozenset_subclass_for_iterable": ("Bag({1, 2})", Iterable[int], frozenset({1, 2})),
    "str_subclass_for_sequence_of_str": ("Text('ab')", Sequence[str], "ab"),
    "dict_subclass_for_iterable_of_keys": ("Table({Text('k'): 1})", Iterable[str], {"k": 1}),
    "list_subclass_for_collection": ("Many([Liar(1)])", Collection[int], [1]),
    "int_subclass_for_object": ("Liar(3)", object, 3),
    "bytearray_subclass_for_bytes": ("Buffer(b'ab')", bytes, bytearray(b"ab")),
}


def _exact_types(value: Any) -> list[type]:
    if isinstance(value, dict):
        return [type(value), *(t for k, v in value.items() for t in _exact_types(k) + _exact_types(v))]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [type(value), *(t for v in value for t in _exact_types(v))]
    return [type(value)]


@pytest.mark.parametrize("expr, result, want", SUBCLASSES.values(), ids=SUBCLASSES.keys())
def test_a_subclass_of_a_plain_type_never_reaches_the_host(expr: str, result: Any, want: Any) -> None:
    fn = safe_callable(f"{LIARS}def f(x):\n    return {expr}", "f", expected=Callable[[int], result])
    got = fn(0)
    assert got == want
    assert _exact_types(got) == _exact_types(want)


def test_a_subclass_argument_is_handed_to_the_function_as_the_plain_type() -> None:
    make = safe_callable(f"{LIARS}def make():\n    return Many([1, 2, 3])", "make")
    total = safe_callable("def total(xs):\n    return [type(xs).__name__, sum(xs)]",
                          expected=Callable[[list[int]], list[Any]])
    assert total(make()) == ["list", 6]


def test_where_any_is_expected_the_host_gets_the_guest_object_as_it_is() -> None:
    fn = safe_callable(f"{LIARS}def f(x):\n    return Liar(x)", "f", expected=Callable[[int], Any])
    assert type(fn(2)).__name__ == "Liar"


def test_bool_stays_bool_where_int_is_expected() -> None:
    fn = safe_callable("def f(x):\n    return x > 1", expected=Callable[[int], int])
    assert fn(5) is True


def test_a_guest_object_that_is_not_the_expected_type_is_refused() -> None:
    fn = safe_callable("class Box:\n    pass\ndef f(x):\n    return Box()", "f",
                       expected=Callable[[int], int])
    with pytest.raises(GuestError) as info:
        fn(1)
    assert info.value.message == "f() returned a value of the wrong type: __main__.Box is not an instance of int"


# (the value the model's function returns, the expected return type): accepted exactly when
# typeguard accepts it with every item checked
EDGES = {
    "bool_as_float": ("True", float), "int_as_complex": ("1", complex), "float_as_int": ("1.5", int),
    "empty_tuple_type": ("()", tuple[()]), "nonempty_for_empty_tuple_type": ("(1,)", tuple[()]),
    "fixed_tuple_wrong_length": ("(1, 2, 3)", tuple[int, int]),
    "fixed_tuple_wrong_item": ("(1, 'a')", tuple[int, int]),
    "bare_tuple": ("(1, 'a')", tuple), "str_as_sequence_of_str": ("'ab'", Sequence[str]),
    "dict_keys_as_iterable": ("{1: 'a', 'b': 2}", Iterable[int]),
    "nested_optional": ("[None, 1, None]", list[int | None]),
    "nested_optional_bad": ("[None, 1, 'x']", list[int | None]),
    "bytearray_as_bytes": ("bytearray(b'x')", bytes),
    "set_of_mixed": ("{1, 'a'}", set[int]), "frozenset_ok": ("frozenset({1, 2})", frozenset[int]),
    "dict_of_lists_bad_deep": ("{'a': [1], 'b': [2, 3.5]}", dict[str, list[int]]),
    "list_for_sequence_of_float": ("[1, 2.5, True]", Sequence[float]),
    "none_for_none": ("None", None), "zero_for_none": ("0", None),
}


@pytest.mark.parametrize("expr, result", EDGES.values(), ids=EDGES.keys())
def test_a_result_is_accepted_exactly_when_typeguard_checking_every_item_accepts_it(
        expr: str, result: Any) -> None:
    from typeguard import CollectionCheckStrategy, TypeCheckError, check_type

    fn = safe_callable(f"def f(x):\n    return {expr}", expected=Callable[[int], result])
    value = safe_eval(expr)  # the same value, built again
    try:
        check_type(value, result, collection_check_strategy=CollectionCheckStrategy.ALL_ITEMS)
    except TypeCheckError:
        with pytest.raises(GuestError, match="returned a value of the wrong type"):
            fn(0)
    else:
        assert fn(0) == value
