"""Decoded callables and host objects, written the way their users write them (issue 12,
"Decoded callables" and the ``expose`` items).

A decoded function gets module-level state (``env=``) and tools (``tools=``) that stay with it
for every later host call; host objects declared with ``expose()`` can be passed in and read,
print like their host class, answer ``type(x).__name__`` and ``isinstance`` with their host
class; an attribute declared writable passes the static check. The synthesis scenario of the
acceptance (ten functions whose annotations differ from ``expected=`` only by a compatible
spelling) is ``tests/test_safe_callable_compat.py``; the cases below add the spellings it
does not cover.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from safe_eval import GuestError, PolicyViolation, check, expose, safe_callable, safe_eval, safe_exec
from safe_eval.policy import parse_policy

RATES = {"FR": 0.2, "DE": 0.19}
LOOKED_UP: list[str] = []


def lookup_rate(country: str) -> float:
    LOOKED_UP.append(country)
    return RATES[country]


PRICE = "def price(amount: float, country: str) -> float:\n    return round(amount * (1 + lookup_rate(country)) + FEE, 2)"
TWO_LETTERS = parse_policy("policy shop\nextends default\nallow lookup_rate(country: str len 2..2)")


# -- env= and tools= -----------------------------------------------------------------------


def test_a_decoded_function_reads_module_state_and_calls_its_tools_on_every_call() -> None:
    LOOKED_UP.clear()
    price = safe_callable(PRICE, env={"FEE": 1.5}, tools={"lookup_rate": lookup_rate},
                          expected=Callable[[float, str], float])
    assert (price(10.0, "FR"), price(100.0, "DE")) == (13.5, 120.5)
    assert LOOKED_UP == ["FR", "DE"]


def test_the_tools_of_a_decoded_function_are_decided_by_its_policy_at_each_call() -> None:
    price = safe_callable(PRICE, env={"FEE": 0.0}, tools=[lookup_rate], policy=TWO_LETTERS)
    assert price(10.0, "FR") == 12.0
    with pytest.raises(PolicyViolation) as info:
        price(10.0, "FRA")
    assert info.value.diagnostics[0].code == "T004"


def test_a_dict_env_gets_the_codes_module_level_bindings() -> None:
    env: dict[str, Any] = {"FEE": 1.0}
    safe_callable("TAX = 0.5\ndef f(x):\n    return x * TAX + FEE", env=env)
    assert (sorted(env), env["TAX"]) == (["FEE", "TAX", "f"], 0.5)


def test_module_state_the_host_changes_later_is_seen_by_the_next_call() -> None:
    env: dict[str, Any] = {"FEE": 1.0}
    f = safe_callable("def f(x):\n    return x + FEE", env=env)
    assert f(1) == 2.0
    env["FEE"] = 5.0
    safe_exec("pass", env)  # the next evaluation on the session syncs the host's change in
    assert f(1) == 6.0


def test_a_decoded_function_without_tools_cannot_reach_the_hosts_functions() -> None:
    f = safe_callable("def f():\n    return lookup_rate('FR')")
    with pytest.raises(GuestError) as info:
        f()
    assert info.value.type_name == "NameError"


# -- host objects declared with expose() -------------------------------------------------------


class Order:
    def __init__(self, id: int, total: float, status: str = "new") -> None:
        self.id = id
        self.total = total
        self.status = status
        self.card_number = "4111 1111 1111 1111"

    def __repr__(self) -> str:
        return f"Order({self.id}, card={self.card_number})"


class LineItem:
    __safe_eval_expose__ = {"attrs": ["sku", "qty"]}

    def __init__(self, sku: str, qty: int) -> None:
        self.sku = sku
        self.qty = qty


@pytest.mark.parametrize(
    ("argument", "code", "result"),
    [
        pytest.param(expose(Order(7, 99.5), attrs=["total"]), "def f(o):\n    return o.total * 2", 199.0,
                     id="expose_declaration"),
        pytest.param(LineItem("A-1", 3), "def f(item):\n    return f'{item.sku} x{item.qty}'", "A-1 x3",
                     id="class_declaration"),
    ],
)
def test_a_host_object_passed_as_an_argument_is_readable_as_declared(argument: Any, code: str, result: Any) -> None:
    assert safe_callable(code)(argument) == result


def test_an_undeclared_attribute_of_an_argument_stays_refused() -> None:
    f = safe_callable("def f(o):\n    return o.card_number")
    with pytest.raises(GuestError) as info:
        f(expose(Order(7, 99.5), attrs=["total"]))
    assert info.value.message == "'Order' object attribute 'card_number' is not exposed to safe-eval"


def _order_env() -> dict[str, Any]:
    return {"order": expose(Order(7, 99.5), attrs=["id", "total"], writable=["status"]),
            "Order": expose(Order), "LineItem": LineItem, "item": LineItem("A-1", 3)}


@pytest.mark.parametrize(
    ("code", "shown"),
    [
        pytest.param("repr(order)", "Order(id=7, status='new', total=99.5)", id="repr"),
        pytest.param("str(order)", "Order(id=7, status='new', total=99.5)", id="str"),
        pytest.param("f'{order}'", "Order(id=7, status='new', total=99.5)", id="f_string"),
        pytest.param("type(order).__name__", "Order", id="type_name"),
        pytest.param("repr(type(order))", "<class 'Order'>", id="type_repr"),
        pytest.param("repr(Order)", "<class 'Order'>", id="exposed_class"),
        pytest.param("repr(item)", "LineItem(qty=3, sku='A-1')", id="class_declaration"),
        pytest.param("type(item).__name__", "LineItem", id="class_declaration_type_name"),
    ],
)
def test_an_exposed_object_prints_as_its_host_class(code: str, shown: str) -> None:
    assert safe_eval(code, _order_env()) == shown


def test_print_of_an_exposed_object_shows_the_declared_attributes_only() -> None:
    result = __import__("safe_eval").Evaluator().run("print(order)", _order_env())
    assert result.stdout == "Order(id=7, status='new', total=99.5)\n"
    assert "4111" not in result.stdout


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        pytest.param("isinstance(order, Order)", True, id="exposed_class"),
        pytest.param("isinstance(item, LineItem)", True, id="class_given_as_a_tool"),
        pytest.param("isinstance(item, Order)", False, id="another_host_class"),
        pytest.param("isinstance(3, Order)", False, id="plain_data"),
        pytest.param("isinstance(order, (int, Order))", True, id="in_a_tuple"),
        pytest.param("type(order) == Order", True, id="type_equals_exposed_class"),
        pytest.param("type(item) == LineItem", True, id="type_equals_class_tool"),
        pytest.param("issubclass(type(order), Order)", True, id="issubclass"),
    ],
)
def test_isinstance_with_a_host_class_works(code: str, expected: bool) -> None:
    assert safe_eval(code, _order_env()) is expected


def test_isinstance_with_an_exposed_object_that_is_not_a_class_is_a_type_error() -> None:
    with pytest.raises(GuestError) as info:
        safe_eval("isinstance(1, order)", _order_env())
    assert info.value.message == "isinstance() arg 2 must be a type, a tuple of types, or a union"


WRITE = "order.status = 'paid'"


def test_an_attribute_declared_writable_passes_the_static_check_and_is_written() -> None:
    env = _order_env()
    assert check(WRITE, env=env).ok
    safe_exec(WRITE, env)
    assert env["order"].obj.status == "paid"


def test_the_write_of_a_writable_attribute_is_a_decided_tool_call() -> None:
    env = _order_env()
    with pytest.raises(PolicyViolation) as info:
        safe_exec(WRITE, env, policy=parse_policy("deny Order.status(*)\nallow *(*)"))
    assert info.value.diagnostics[0].code == "T003"
    assert env["order"].obj.status == "new"


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("order.total = 0", id="read_only_attribute"),
        pytest.param("order.card_number = '0'", id="undeclared_attribute"),
        pytest.param("import math\nmath.pi = 3", id="module"),
    ],
)
def test_other_host_attribute_writes_stay_refused_statically(code: str) -> None:
    assert [d.code for d in check(code, env=_order_env()).diagnostics] == ["R013"]


# -- expected= compatibility beyond the synthesis scenario -----------------------------------

COMPATIBLE = {
    "optional_typing_list_where_union_expected": (
        "from typing import Optional, List\ndef count(xs: Optional[List[int]]) -> int:\n    return len(xs or [])",
        Callable[[list[int] | None], int], ([1, 2],), 2),
    "nested_typing_dict_of_lists": (
        "from typing import Dict, List\ndef totals(d: Dict[str, List[int]]) -> Dict[str, int]:\n"
        "    return {k: sum(v) for k, v in d.items()}",
        Callable[[dict[str, list[int]]], dict[str, int]], ({"a": [1, 2]},), {"a": 3}),
    "typing_tuple_ellipsis": (
        "from typing import Tuple\ndef total(t: Tuple[int, ...]) -> int:\n    return sum(t)",
        Callable[[tuple[int, ...]], int], ((1, 2, 3),), 6),
    "union_parameter_wider_than_int": (
        "from typing import Union\ndef half(x: Union[int, float]) -> float:\n    return x / 2",
        Callable[[int], float], (3,), 1.5),
    "string_annotations": ("def inc(x: 'int') -> 'int':\n    return x + 1", Callable[[int], int], (3,), 4),
    "default_for_a_parameter_not_passed": (
        "def repeat(s: str, n: int = 2) -> str:\n    return s * n", Callable[[str], str], ("ab",), "abab"),
    "star_args": ("def add(*xs: int) -> int:\n    return sum(xs)", Callable[[int, int], int], (1, 2), 3),
    "typing_set_and_frozenset": (
        "from typing import Set, FrozenSet\ndef freeze(s: Set[int]) -> FrozenSet[int]:\n    return frozenset(s)",
        Callable[[set[int]], frozenset[int]], ({1},), frozenset({1})),
}


@pytest.mark.parametrize(("code", "expected", "args", "result"), COMPATIBLE.values(), ids=COMPATIBLE.keys())
def test_a_compatible_spelling_is_accepted(code: str, expected: Any, args: tuple[Any, ...], result: Any) -> None:
    assert safe_callable(code, expected=expected)(*args) == result


def test_an_incompatible_parameter_is_refused_naming_it() -> None:
    with pytest.raises(GuestError) as info:
        safe_callable("def f(xs: dict[str, int]) -> int:\n    return len(xs)", expected=Callable[[list[int]], int])
    assert info.value.message == ("parameter 'xs' of f is annotated dict[str, int], "
                                  "which does not accept the expected list[int]")
