"""Decoding generated callables: annotations compatible with ``expected=`` are accepted.

A synthesis loop asks a model for a function of a given type and decodes each answer with
``safe_callable(code, expected=...)``. Models spell types their own way (``Optional[int]`` for
``int | None``, ``List[int]`` or bare ``list`` for ``list[int]``, a wider ``Sequence[int]``
parameter, a narrower ``-> bool`` result); those are accepted, and the values are still checked at
every call. An annotation that cannot take what the host passes (or a result the host cannot
take) is refused at decode time with a message naming the parameter.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pytest

from safe_eval import GuestError, safe_callable

# (model-written code, expected type, a call and its result): all ten accepted
SYNTHESIS = {
    "optional_spelled_as_union": (
        "from typing import Optional\n"
        "def parse_port(text: str) -> Optional[int]:\n"
        "    text = text.strip()\n"
        "    return int(text) if text.isdigit() else None",
        Callable[[str], int | None], ((" 8080 ",), 8080)),
    "typing_list_for_builtin_list": (
        "from typing import List\n"
        "def dedupe(items: List[int]) -> List[int]:\n"
        "    seen = set()\n"
        "    return [x for x in items if not (x in seen or seen.add(x))]",
        Callable[[list[int]], list[int]], (([3, 1, 3, 2, 1],), [3, 1, 2])),
    "bare_list_parameter": (
        "def mean(values: list) -> float:\n"
        "    return sum(values) / len(values) if values else 0.0",
        Callable[[list[float]], float], (([1.0, 2.0, 4.5],), 2.5)),
    "bare_dict_result": (
        "def word_counts(text: str) -> dict:\n"
        "    counts = {}\n"
        "    for word in text.lower().split():\n"
        "        counts[word] = counts.get(word, 0) + 1\n"
        "    return counts",
        Callable[[str], dict[str, int]], (("a b A",), {"a": 2, "b": 1})),
    "typed_dict_where_bare_dict_expected": (
        "def invert(mapping: dict[str, int]) -> dict[int, str]:\n"
        "    return {v: k for k, v in mapping.items()}",
        Callable[[dict[str, int]], dict], (({"x": 1},), {1: "x"})),
    "sequence_parameter_where_list_expected": (
        "from typing import Sequence\n"
        "def running_max(xs: Sequence[int]) -> list[int]:\n"
        "    out, best = [], None\n"
        "    for x in xs:\n"
        "        best = x if best is None or x > best else best\n"
        "        out.append(best)\n"
        "    return out",
        Callable[[list[int]], list[int]], (([1, 3, 2, 5],), [1, 3, 3, 5])),
    "bool_result_where_int_expected": (
        "def is_palindrome(s: str) -> bool:\n"
        "    t = ''.join(c.lower() for c in s if c.isalnum())\n"
        "    return t == t[::-1]",
        Callable[[str], int], (("A man, a plan, a canal: Panama",), True)),
    "int_parameter_where_bool_passed_and_float_result": (
        "def clamp(x: float, lo: float = 0.0, hi: float = 1.0) -> float:\n"
        "    return max(lo, min(hi, x))",
        Callable[[int], float], ((5,), 1.0)),
    "iterable_of_str_where_list_expected_and_quoted_result": (
        "import collections.abc\n"
        "def longest(words: collections.abc.Iterable[str]) -> 'str | None':\n"
        "    best = None\n"
        "    for w in words:\n"
        "        if best is None or len(w) > len(best):\n"
        "            best = w\n"
        "    return best",
        Callable[[list[str]], str | None], ((["ab", "abcd", "abc"],), "abcd")),
    "tuple_result_and_mapping_parameter": (
        "from typing import Mapping, Tuple\n"
        "def top_item(scores: Mapping[str, float]) -> Tuple[str, float]:\n"
        "    name = max(scores, key=scores.get)\n"
        "    return (name, scores[name])",
        Callable[[dict[str, float]], tuple[str, float]], (({"a": 1.5, "b": 2.5},), ("b", 2.5))),
}


@pytest.mark.parametrize("code, expected, call", SYNTHESIS.values(), ids=SYNTHESIS.keys())
def test_compatible_spelling_is_accepted_and_checked_at_call_time(
        code: str, expected: Any, call: tuple[tuple[Any, ...], Any]) -> None:
    fn = safe_callable(code, expected=expected)
    args, result = call
    assert fn(*args) == result


def test_all_ten_synthesised_functions_decode_in_one_loop() -> None:
    decoded = [safe_callable(code, expected=expected) for code, expected, _ in SYNTHESIS.values()]
    assert [fn(*args) for fn, (_, _, (args, _)) in zip(decoded, SYNTHESIS.values(), strict=True)] == [
        result for _, _, (_, result) in SYNTHESIS.values()]


# (model-written code, expected type): the exact refusal
INCOMPATIBLE = {
    "parameter_narrower_than_what_is_passed": (
        "def f(xs: list[str]) -> int:\n    return len(xs)", Callable[[list[int]], int],
        "parameter 'xs' of f is annotated list[str], which does not accept the expected list[int]"),
    "parameter_int_where_optional_passed": (
        "def f(limit: int) -> int:\n    return limit", Callable[[int | None], int],
        "parameter 'limit' of f is annotated int, which does not accept the expected int | None"),
    "list_parameter_where_sequence_passed": (
        "def f(a: int, xs: list[int]) -> int:\n    return a", Callable[[int, Sequence[int]], int],
        "parameter 'xs' of f is annotated list[int], which does not accept the expected "
        "Sequence[int]"),
    "bool_parameter_where_int_passed": (
        "def f(flag: bool) -> int:\n    return 1", Callable[[int], int],
        "parameter 'flag' of f is annotated bool, which does not accept the expected int"),
    "result_wider_than_expected": (
        "def f(x: int) -> float:\n    return x / 2", Callable[[int], int],
        "f returns float, expected int"),
    "optional_result_where_plain_expected": (
        "from typing import Optional\ndef f(x: int) -> Optional[str]:\n    return None",
        Callable[[int], str], "f returns str | None, expected str"),
    "wrong_mapping_value_type": (
        "def f(m: dict[str, str]) -> int:\n    return 0", Callable[[Mapping[str, int]], int],
        "parameter 'm' of f is annotated dict[str, str], which does not accept the expected "
        "Mapping[str, int]"),
    "fixed_tuple_where_variadic_passed": (
        "def f(t: tuple[int, int]) -> int:\n    return 0", Callable[[tuple[int, ...]], int],
        "parameter 't' of f is annotated tuple[int, int], which does not accept the expected "
        "tuple[int, ...]"),
    "iterable_result_where_list_expected": (
        "from typing import Iterable\ndef f(x: int) -> Iterable[int]:\n    return [x]",
        Callable[[int], list[int]], "f returns Iterable[int], expected list[int]"),
}


@pytest.mark.parametrize("code, expected, message", INCOMPATIBLE.values(), ids=INCOMPATIBLE.keys())
def test_incompatible_annotation_is_refused_naming_the_parameter(
        code: str, expected: Any, message: str) -> None:
    with pytest.raises(GuestError) as info:
        safe_callable(code, expected=expected)
    assert info.value.type_name == "TypeError"
    assert info.value.message == message


def test_unannotated_function_is_accepted_and_checked_at_call_time() -> None:
    fn = safe_callable("def f(xs):\n    return [str(x) for x in xs]",
                       expected=Callable[[Iterable[int]], list[int]])
    with pytest.raises(GuestError, match="item 0 of list is not an instance of int"):
        fn([1, 2])


def test_wrong_arity_is_refused() -> None:
    with pytest.raises(GuestError) as info:
        safe_callable("def f(a, b):\n    return a", expected=Callable[[int], int])
    assert info.value.message == "f(a, b) cannot be called as Callable[[int], int]: missing a required argument: 'b'"


def test_checked_function_carries_the_expected_types() -> None:
    fn = safe_callable("def f(xs: Sequence[int], scale: float = 1.0) -> bool:\n    return True",
                       expected=Callable[[list[int]], int])
    assert fn.__annotations__ == {"xs": list[int], "return": int}
    assert str(inspect.signature(fn)) == "(xs: list[int], scale: float = 1.0) -> int"


def test_host_containers_are_passed_as_themselves_so_in_place_changes_are_seen() -> None:
    fill = safe_callable("def fill(d: dict, xs: list) -> None:\n    d['seen'] = len(xs)\n    xs.append(0)",
                         expected=Callable[[dict[str, int], list[int]], None])
    counts, items = {"a": 1}, [5, 6]
    assert fill(counts, items) is None
    assert (counts, items) == ({"a": 1, "seen": 2}, [5, 6, 0])


NOT_DECODED = {
    "a_builtin": ("f = len", "'f' is not a function the code defines (it is a builtin_function_or_method)"),
    "a_builtin_type": ("f = int", "'f' is not a function the code defines (it is a type)"),
    "a_curated_module_function": ("import math\nf = math.sqrt",
                                  "'f' is not a function the code defines (it is a builtin_function_or_method)"),
}


@pytest.mark.parametrize("code, message", NOT_DECODED.values(), ids=NOT_DECODED.keys())
def test_a_name_bound_to_a_host_callable_is_not_decoded(code: str, message: str) -> None:
    with pytest.raises(GuestError) as info:
        safe_callable(code, "f", expected=Callable[[int], int])
    assert info.value.message == message


DECODED_WRAPPERS = {
    "callable_object": "class K:\n    def __call__(self, x):\n        return x + 1\nf = K()",
    "callable_object_whose_getattr_raises": (
        "class K:\n    def __getattr__(self, name):\n        raise RuntimeError(name)\n"
        "    def __call__(self, x):\n        return x + 1\nf = K()"),
    "bound_method": "class K:\n    def m(self, x):\n        return x + 1\nf = K().m",
    "partial": "import functools\ndef g(a, x):\n    return a + x\nf = functools.partial(g, 1)",
    "lru_cache": "import functools\n@functools.lru_cache\ndef f(x):\n    return x + 1",
    "lambda": "f = lambda x: x + 1",
}


@pytest.mark.parametrize("code", DECODED_WRAPPERS.values(), ids=DECODED_WRAPPERS.keys())
def test_guest_callables_in_host_wrappers_are_decoded(code: str) -> None:
    assert safe_callable(code, "f", expected=Callable[[int], int])(4) == 5


def test_a_checked_function_can_be_granted_its_allowance_again() -> None:
    from safe_eval import refill

    fn = safe_callable("def f(x: int) -> int:\n    return x * 2", expected=Callable[[int], int])
    assert fn(2) == 4
    refill(fn)
    assert fn(3) == 6
