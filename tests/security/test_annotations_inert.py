"""Invariant: no annotation text the model wrote ever runs as host code.

The attacker writes annotations such as ``"__import__('os').system('touch CANARY') or int"`` on
decoded functions, guest classes, methods and dataclass fields (quoted, ``from __future__ import
annotations`` style, nested as ``list["..."]``, hidden in a run-time alias), and hopes the host
hands what safe-eval returned to ``typing.get_type_hints``,
``inspect.get_annotations(eval_str=True)``, ``functools.singledispatch().register``,
``dataclasses.fields`` or pydantic, as frameworks registering a decoded function as a tool do.
What the host receives carries real types resolved from the annotation's AST, or nothing.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import fractions
import functools
import inspect
import os
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from safe_eval import Evaluator, GuestError, PolicyViolation, safe_callable, safe_eval, safe_exec

EVIL = "__import__('os').system('touch CANARY') or int"
# the same payload without a dunder name (restrict refuses ``__import__`` even in an annotation)
EVIL_PLAIN = "exec(\"import os; os.system('touch CANARY')\") or int"


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


def _decoded(annotation: str) -> Any:
    return safe_callable(f"def tool(x: {annotation}, n: int = 1) -> {annotation}:\n    return x")


def _method(annotation: str) -> Any:
    ns = safe_exec(f"class Repo:\n    def get(self, key: {annotation}) -> {annotation}:\n        return key")
    return ns["Repo"].get


# (what the model wrote, how the host reaches the function): the annotations the host must see
FUNCTION_CASES = {
    "quoted_payload_on_decoded_function": (lambda: _decoded(repr(EVIL)), {"n": int}),
    "unquoted_payload_on_decoded_function": (lambda: _decoded(EVIL_PLAIN), {"n": int}),
    "nested_string_in_builtin_generic": (lambda: _decoded(f"list[{EVIL!r}]"), {"n": int}),
    "nested_string_in_typing_generic": (
        lambda: _decoded(repr(f"typing.Dict[str, {EVIL!r}]")), {"n": int}),
    "doubly_quoted_payload": (lambda: _decoded(repr(repr(EVIL))), {"n": int}),
    "payload_in_optional": (lambda: _decoded(repr(f"Optional[{EVIL}]")), {"n": int}),
    "payload_on_method_of_returned_class": (lambda: _method(repr(EVIL)), {}),
    "payload_in_runtime_alias": (
        lambda: safe_exec(f"from typing import List\nAlias = List[{EVIL!r}]\n"
                          "def tool(x: Alias, n: int = 1) -> Alias:\n    return x")["tool"],
        {"n": int}),
    "future_annotations_module": (
        lambda: safe_exec(f"from __future__ import annotations\n"
                          f"def tool(x: {EVIL_PLAIN}, n: int = 1) -> list[{EVIL!r}]:\n    return x")["tool"],
        {"n": int}),
    "payload_under_expected_type": (
        lambda: _decoded_expected(repr(EVIL)), {"x": int, "return": int}),
}


def _decoded_expected(annotation: str) -> Any:
    return safe_callable(f"def tool(x: {annotation}) -> {annotation}:\n    return x",
                         expected=Callable[[int], int])


@pytest.mark.parametrize("make, hints", FUNCTION_CASES.values(), ids=FUNCTION_CASES.keys())
def test_host_reading_type_hints_of_a_returned_function_runs_no_model_text(
        host: list[str], make: Callable[[], Any], hints: dict[str, Any]) -> None:
    fn = make()
    assert typing.get_type_hints(fn) == hints
    assert inspect.get_annotations(fn, eval_str=True) == hints
    assert {p.name: p.annotation for p in inspect.signature(fn).parameters.values()
            if p.annotation is not p.empty} == {k: v for k, v in hints.items() if k != "return"}
    assert host == []


@pytest.mark.parametrize("make, hints", FUNCTION_CASES.values(), ids=FUNCTION_CASES.keys())
def test_no_string_reaches_the_annotations_of_a_returned_function(
        host: list[str], make: Callable[[], Any], hints: dict[str, Any]) -> None:
    fn = make()
    assert fn.__annotations__ == hints
    sig = inspect.signature(fn)
    assert not any(isinstance(p.annotation, str) for p in sig.parameters.values())
    assert not isinstance(sig.return_annotation, str)


def test_singledispatch_registering_a_decoded_function_runs_no_model_text(host: list[str]) -> None:
    @functools.singledispatch
    def handle(value: object) -> str:
        return "default"

    handle.register(safe_callable(f"def on_int(x: int, y: {EVIL!r} = 0) -> str:\n    return 'int'"))
    handle.register(safe_callable("def on_str(x: 'str') -> str:\n    return 'str'"))
    assert (handle(1), handle("a"), handle(1.5)) == ("int", "str", "default")
    with pytest.raises(TypeError, match="Use either `@register.some_class.` or plain `@register` on an annotated"):
        handle.register(safe_callable(f"def on_evil(x: {EVIL!r}):\n    return 'evil'"))
    assert host == []


# guest classes: every field name stays (dataclasses and NamedTuple read the keys), its value is
# a real type or typing.Any
CLASS_CASES = {
    "quoted_field": (f"class Row:\n    a: {EVIL!r}\n    b: int = 0", {"a": Any, "b": int}),
    "nested_string_field": (f"class Row:\n    a: list[{EVIL!r}]\n    b: 'list[Row]'",
                            {"a": Any, "b": "list[Row]"}),
    "dataclass_field": (f"from dataclasses import dataclass\n@dataclass\nclass Row:\n"
                        f"    a: {EVIL!r} = 1\n    b: 'Row | None' = None",
                        {"a": Any, "b": "Row | None"}),
    "future_annotations_class": (f"from __future__ import annotations\nclass Row:\n"
                                 f"    a: {EVIL_PLAIN}\n    b: dict[str, Row]",
                                 {"a": Any, "b": "dict[str, Row]"}),
    "enum_member_annotation": (f"import enum\nclass Row(enum.Enum):\n    a: {EVIL!r} = 1",
                               {"a": Any}),
    "named_tuple_field": (f"from typing import NamedTuple\nclass Row(NamedTuple):\n"
                          f"    a: {EVIL!r}\n    b: int = 2", {"a": Any, "b": int}),
}


def _expected_hints(cls: type, hints: dict[str, Any]) -> dict[str, Any]:
    # a string in the table names the type the annotation must resolve to, the class included
    spell = {"list[Row]": list[cls], "Row | None": cls | None,
             "dict[str, Row]": dict[str, cls]}  # type: ignore[valid-type]
    return {k: spell[v] if isinstance(v, str) else v for k, v in hints.items()}


@pytest.mark.parametrize("code, hints", CLASS_CASES.values(), ids=CLASS_CASES.keys())
def test_host_reading_type_hints_of_a_returned_class_runs_no_model_text(
        host: list[str], code: str, hints: dict[str, Any]) -> None:
    cls = safe_exec(code)["Row"]
    want = _expected_hints(cls, hints)
    assert cls.__annotations__ == want
    assert typing.get_type_hints(cls) == want
    assert inspect.get_annotations(cls, eval_str=True) == want
    assert host == []


def test_dataclass_fields_of_a_returned_dataclass_are_types_not_model_text(host: list[str]) -> None:
    cls = safe_exec(f"from dataclasses import dataclass\n@dataclass\nclass Job:\n"
                    f"    name: str\n    retries: {EVIL!r} = 3\n    tags: 'list[str]' = None")["Job"]
    assert [(f.name, f.type) for f in dataclasses.fields(cls)] == [
        ("name", str), ("retries", Any), ("tags", list[str])]
    init = inspect.signature(cls.__init__)
    assert [p.annotation for p in init.parameters.values()] == [inspect.Parameter.empty] * 4
    assert host == []


def test_an_annotation_naming_a_dunder_is_refused_before_anything_runs() -> None:
    with pytest.raises(PolicyViolation, match=r"R002 \[dunder-name\] the name \"__import__\""):
        safe_callable(f"def tool(x: {EVIL}):\n    return x")


def test_a_guest_reading_annotations_directly_is_refused() -> None:
    with pytest.raises(PolicyViolation, match="R003"):
        safe_exec("def f(x: int): pass\nr = f.__annotations__")


def test_a_guest_sees_the_same_resolved_types_through_dataclass_fields() -> None:
    code = ("from dataclasses import dataclass, fields\n@dataclass\nclass P:\n    x: int\n"
            f"    y: 'int | None'\n    z: {EVIL!r} = 0\n[f.type for f in fields(P)]")
    assert safe_eval(code) == [int, int | None, Any]


def test_host_copying_text_annotations_onto_a_returned_function_keeps_no_text(host: list[str]) -> None:
    decoded = safe_callable("def f(x, y):\n    return x")

    def template(x: EVIL, y: int) -> list[EVIL]:  # type: ignore[valid-type]  # text: this module has future annotations
        return x

    functools.update_wrapper(decoded, template)
    assert decoded.__annotations__ == {}
    assert typing.get_type_hints(decoded) == {}
    assert host == []


def test_pydantic_model_built_from_a_decoded_function_runs_no_model_text(host: list[str]) -> None:
    pydantic = pytest.importorskip("pydantic", reason="pydantic is not installed")
    fn = safe_callable(f"def add(a: int, b: {EVIL!r} = 1) -> 'int':\n    return a + b")
    hints = typing.get_type_hints(fn)  # as agent frameworks turn a function into a tool schema
    fields = {name: (hints.get(name, Any), ... if p.default is p.empty else p.default)
              for name, p in inspect.signature(fn).parameters.items()}
    model = pydantic.create_model("add", **fields)
    assert model.model_json_schema()["required"] == ["a"]
    args = model(a="2", b=3)
    assert fn(args.a, args.b) == 5
    assert host == []


def test_pydantic_type_adapter_on_a_returned_dataclass_runs_no_model_text(host: list[str]) -> None:
    pydantic = pytest.importorskip("pydantic", reason="pydantic is not installed")
    cls = safe_exec(f"from dataclasses import dataclass\n@dataclass\nclass Job:\n"
                    f"    name: str\n    retries: {EVIL!r} = 3\n    tags: 'list[str]' = None")["Job"]
    schema = pydantic.TypeAdapter(cls).json_schema()
    assert schema["required"] == ["name"]
    assert schema["properties"]["tags"]["items"] == {"type": "string"}
    assert host == []


class Order:
    """A host class handed to the guest in ``env``."""


def test_annotations_naming_env_classes_and_curated_types_resolve_to_the_real_classes() -> None:
    fn = safe_exec("from decimal import Decimal\nimport datetime\nfrom fractions import Fraction\n"
                   "def f(o: Order, d: Decimal, t: datetime.date, q: 'Fraction', "
                   "l: 'list[Order]', h: helper) -> 'Order | None':\n    pass",
                   {"Order": Order, "helper": len})["f"]
    assert fn.__annotations__ == {
        "o": Order, "d": decimal.Decimal, "t": datetime.date, "q": fractions.Fraction,
        "l": list[Order], "return": Order | None}


def test_resolving_class_annotations_is_charged_to_the_run() -> None:
    plain = Evaluator().run("class C:\n    a = 1").ops
    annotated = Evaluator().run("class C:\n    a: 'dict[str, list[int]]' = 1").ops
    # seven nodes (the string, dict[...], dict, str, list[int], list, int), resolved twice
    assert annotated - plain == 14


# -- classes built by a call, not a class statement (red team rt-exit, finding 1) ---------------
# The class statement resolves its annotations; ``type(name, bases, ns)`` kept the namespace's
# ``__annotations__`` dict as the guest wrote it (the data dunder's type, dict, was its only
# check), and the functional ``typing.TypedDict`` turned text into a ``ForwardRef``: a host
# ``get_type_hints`` on the returned class evaluated the text with host rights.
BUILT_CLASSES = {
    "type_three_arguments": (
        f"Row = type('Row', (), {{'__annotations__': {{'a': {EVIL!r}, 'b': int}}}})",
        {"a": Any, "b": int}),
    "type_nested_text": (
        f"Row = type('Row', (), {{'__annotations__': {{'a': list[{EVIL!r}], 'b': list[int]}}}})",
        {"a": Any, "b": list[int]}),
    "type_then_dataclass": (
        "from dataclasses import dataclass\n"
        f"Row = dataclass(type('Row', (), {{'__annotations__': {{'a': {EVIL!r}}}, 'a': 1}}))",
        {"a": Any}),
    "typed_dict_call": (
        f"from typing import TypedDict\nRow = TypedDict('Row', {{'a': {EVIL!r}, 'b': int}})",
        {"a": Any, "b": int}),
}


@pytest.mark.parametrize("code, hints", BUILT_CLASSES.values(), ids=BUILT_CLASSES.keys())
def test_host_reading_type_hints_of_a_class_built_by_a_call_runs_no_model_text(
        host: list[str], code: str, hints: dict[str, Any]) -> None:
    cls = safe_exec(code)["Row"]
    assert typing.get_type_hints(cls) == hints
    assert inspect.get_annotations(cls, eval_str=True) == hints
    assert host == []


def test_annotation_names_of_a_class_built_by_a_call_are_plain_str() -> None:
    # a guest str subclass as a name would run its __hash__/__eq__ when host code looks it up
    code = ("class K(str):\n    def __hash__(self): return 1\n"
            "type('Row', (), {'__annotations__': {K('a'): int}})")
    with pytest.raises(GuestError, match="annotation names must be str"):
        safe_eval(code)
