"""safe_eval.integrations.effectful.SafeEvalProvider through effectful's own operations and
decoders (no model, no network: effectful's encoders are driven with host functions)."""

import inspect
import math
import threading
import types
from collections.abc import Callable

import pytest

pytest.importorskip("effectful.handlers.llm.evaluation", reason="effectful[llm] is not installed (Python >= 3.12)")

import pydantic
from effectful.handlers.llm.encoding import Encodable
from effectful.handlers.llm.evaluation import ReplSession
from effectful.handlers.llm.evaluation import compile as compile_op
from effectful.handlers.llm.evaluation import exec as exec_op
from effectful.handlers.llm.evaluation import parse as parse_op
from effectful.ops.semantics import handler
from effectful.ops.syntax import defop

from safe_eval import PolicyViolation
from safe_eval.errors import GuestError
from safe_eval.integrations.effectful import RefusedCode, SafeEvalProvider
from safe_eval.membrane import expose


def run(source, env, filename="<test>", provider=None):
    with handler(provider or SafeEvalProvider()):
        code = compile_op(parse_op(source, filename), filename)
        exec_op(code, env)
    return env


class Point:
    pass


def decode(ty, source, ctx=None):
    """effectful's Callable decoder on model text, with our provider installed."""
    enc = pydantic.TypeAdapter(Encodable[ty])
    with handler(SafeEvalProvider()):
        return enc.validate_python({"module_code": source}, context=ctx or {})


# -- compile: refused code ----------------------------------------------------------------------
@pytest.mark.parametrize("source,rule", [
    ("import os\n", "T001"),
    ("x = ().__class__.__subclasses__\n", "R003"),
    ("def f(:\n", "P"),
], ids=["forbidden-import", "dunder-attribute", "syntax-error"])
def test_refused_code_is_a_syntax_error_and_a_policy_violation(source, rule):
    with handler(SafeEvalProvider()), pytest.raises(RefusedCode) as info:
        compile_op(parse_op(source, "<refused>"), "<refused>")
    assert isinstance(info.value, SyntaxError) and isinstance(info.value, PolicyViolation)
    assert info.value.diagnostics[0].code.startswith(rule)


# -- exec: bindings written back as the host's own objects --------------------------------------
def test_every_top_level_binding_is_written_back_and_seeded_names_are_kept():
    env = run("y = x + 1\nx = 10\ndel_me = None\n", {"x": 1, "other": "kept"})
    assert env == {"x": 10, "y": 2, "del_me": None, "other": "kept"}


def tool(n: int) -> int:
    return n * 2


@pytest.mark.parametrize("source,name,expected", [
    ("y = obj\n", "y", lambda env: env["obj"]),
    ("y = [obj, {'k': obj}]\n", "y", lambda env: [env["obj"], {"k": env["obj"]}]),
    ("y = tool\n", "y", lambda env: tool),
    ("import math as y\n", "y", lambda env: math),
    ("y = Point\n", "y", lambda env: Point),
], ids=["exposed-object", "nested-in-containers", "tool-function", "curated-module", "host-class"])
def test_values_written_back_are_the_hosts_own_objects(source, name, expected):
    obj = Point()
    env = run(source, {"obj": expose(obj), "tool": tool, "Point": Point})
    env["obj"] = obj
    want = expected(env)
    assert env[name] == want
    if not isinstance(want, list):
        assert env[name] is want


def test_a_module_written_back_passes_the_hosts_isinstance_checks():
    env = run("import collections as c\n", {})
    assert isinstance(env["c"], types.ModuleType) and env["c"].OrderedDict is __import__("collections").OrderedDict


def test_bindings_made_before_a_guest_error_are_written_back():
    env = {}
    with pytest.raises(GuestError):
        run("a = 1\nb = 1 / 0\n", env)
    assert env == {"a": 1}


# -- decoded functions: annotations, source, docstring, errors ---------------------------------
@pytest.mark.parametrize("source,expected", [
    ("def f(a: 'bool') -> 'bool':\n    return a\n", {"a": bool, "return": bool}),
    ("from typing import Callable\ndef f() -> Callable[[], 'str']:\n    return lambda: 'x'\n",
     {"return": Callable[[], str]}),
    ("def f(p: Point) -> 'list[Point]':\n    return [p]\n", {"p": Point, "return": list[Point]}),
    ("def f(x: 'open(\"/etc/passwd\")') -> int:\n    return 1\n", {"return": int}),
], ids=["string-annotation", "nested-forward-reference", "type-from-env", "call-text-never-evaluated"])
def test_decoded_functions_carry_real_annotations_resolved_from_the_ast(source, expected):
    f = run(source, {"Point": Point})["f"]
    assert f.__annotations__ == expected
    assert inspect.signature(f).return_annotation == expected["return"]


def test_inspect_getsource_returns_the_model_text_and_the_docstring_is_kept():
    source = 'x = 1\n\ndef twice(n: int) -> int:\n    """Double n."""\n    return 2 * n\n'
    f = run(source, {}, filename="<getsource>")["twice"]
    assert inspect.getsource(f) == 'def twice(n: int) -> int:\n    """Double n."""\n    return 2 * n\n'
    assert f.__doc__ == "Double n." and f(4) == 8 and f.__name__ == "twice"


def test_a_guest_error_carries_the_guest_traceback_as_a_note():
    f = run("def g(n: int) -> float:\n    return 1 / n\n", {}, filename="<frames>")["g"]
    with pytest.raises(GuestError) as info:
        f(0)
    assert info.value.__notes__ == [
        'Traceback (most recent call last):\n  File "<frames>", line 2, in g\n    return 1 / n\n'
        "ZeroDivisionError: division by zero"]


def test_a_decoded_function_handed_back_to_the_guest_is_the_guest_function_again():
    env = run("def f(n: int = 5) -> int:\n    return n + 1\n", {})
    env = run("g = f\nr = (g(1), type(g).__name__)\n", env)
    assert env["g"] is env["f"] and env["r"] == (2, "Function")


@pytest.mark.parametrize("ty,source,args,expected", [
    (Callable[[int, int], int], "def add(a: int, b: int) -> int:\n    return a + b\n", (2, 3), 5),
    (Callable[[str], bool], "def empty(s: str) -> 'bool':\n    return not s\n", ("",), True),
    (Callable[[list[int]], int], "import math\ndef p(xs: list[int]) -> int:\n    return math.prod(xs)\n",
     ([2, 3, 4],), 24),
], ids=["two-ints", "string-return-annotation", "curated-import"])
def test_effectfuls_callable_decoder_decodes_through_the_provider(ty, source, args, expected):
    f = decode(ty, source)
    assert f(*args) == expected
    assert inspect.getsource(f).startswith("def ")


def test_effectfuls_decoder_round_trips_a_decoded_function_through_its_source():
    ty = Callable[[int], int]
    f = decode(ty, "def inc(n: int) -> int:\n    return n + 1\n")
    enc = pydantic.TypeAdapter(Encodable[ty])
    dumped = enc.dump_python(f, mode="json")
    assert dumped == {"module_code": "def inc(n: int) -> int:\n    return n + 1\n"}


# -- dir(), print, the REPL session ------------------------------------------------------------
def test_dir_without_argument_and_print_work_in_effectfuls_repl_session():
    with handler(SafeEvalProvider()):
        session = ReplSession({"readings": [10, 20, 30]})
        def code(src):
            name = f"<exec_code-{id(src)}>"
            return compile_op(parse_op(src, name), name)
        assert session.exec_code(code("total = sum(readings)\nprint(total)")) == "60\n"
        assert session.exec_code(code("print(dir())")) == "['readings', 'total']\n"
        out = session.exec_code(code("print(1 / 0)"))
    assert "ZeroDivisionError: division by zero" in out and 'File "<exec_code-' in out


# -- tool calls: on the caller's thread, with its effectful handlers -----------------------------
@defop
def ask(question: str) -> str:
    raise NotImplementedError


def test_tool_calls_run_on_the_callers_thread_with_its_handlers_when_run_off_the_main_thread():
    seen = []

    def answer(question: str) -> str:
        seen.append(threading.current_thread().name)
        return question.upper()

    outcome = []

    def caller():
        with handler({ask: answer}):
            outcome.append(run("r = ask('hi')\n", {"ask": ask})["r"])

    thread = threading.Thread(target=caller, name="caller")
    thread.start()
    thread.join()
    assert outcome == ["HI"] and seen == ["caller"]


def test_a_guest_error_raised_by_a_run_off_the_main_thread_reaches_the_caller():
    errors = []

    def caller():
        try:
            run("x = 1 / 0\n", {})
        except GuestError as exc:
            errors.append(exc.type_name)

    thread = threading.Thread(target=caller)
    thread.start()
    thread.join()
    assert errors == ["ZeroDivisionError"]


# -- the README's example runs as written ------------------------------------------------------
def test_the_readme_example_runs_as_written():
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme.split("### effectful", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    ns = {}
    exec(compile(example, "README.md", "exec"), ns)
    assert ns["count_vowels"]("Effectful") == 3
    assert inspect.getdoc(ns["count_vowels"]) == "How many vowels s has."
