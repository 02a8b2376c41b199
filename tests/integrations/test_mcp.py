"""The MCP server (``safe-eval mcp``): mcp-run-python's ``run_python_code`` and ``check_python``.

The result shapes are checked on the functions the tools call, then once end to end over
stdio with the SDK's own client. Skipped when the ``mcp`` package is not installed
(``pip install -e '.[mcp]'``).
"""

from __future__ import annotations

import json
import sys
from textwrap import dedent

import pytest

pytest.importorskip("mcp", reason="the mcp package is not installed (pip install -e '.[mcp]')")

from safe_eval import Evaluator, Limits
from safe_eval.cli import main as cli_main
from safe_eval.integrations.mcp import FILENAME, as_xml, check_python, run_python_code

CARETS = sys.version_info >= (3, 11)  # CPython draws carets under the failing expression from 3.11 on


def evaluator() -> Evaluator:
    return Evaluator(filename=FILENAME, limits=Limits(ops=100_000))


@pytest.mark.parametrize(
    "code, variables, expected",
    [
        ("a = 1\na + 1", {}, {"status": "success", "output": [], "return_value": 2}),
        ('"foobar"', {}, {"status": "success", "output": [], "return_value": "foobar"}),
        ("print(123)", {}, {"status": "success", "output": ["123"], "return_value": None}),
        ("a", {"a": [1, 2, 3]}, {"status": "success", "output": [], "return_value": [1, 2, 3]}),
        ("a + b", {"a": 4, "b": 5}, {"status": "success", "output": [], "return_value": 9}),
        ("print(f)", {"f": {"a": 1, "b": "2"}},
         {"status": "success", "output": ["{'a': 1, 'b': '2'}"], "return_value": None}),
        ("print('a\\nb')\n(1, {2}, b'x', 1.5)", {},
         {"status": "success", "output": ["a", "b"], "return_value": [1, [2], "x", 1.5]}),
        ("class P:\n    def __repr__(self):\n        return 'P()'\n{'k': P()}", {},
         {"status": "success", "output": [], "return_value": {"k": "P()"}}),
        ("float('nan')", {}, {"status": "success", "output": [], "return_value": "nan"}),
        # top-level await, as mcp-run-python allows it: the module runs as a coroutine
        ("import asyncio\nasync def f(n):\n    await asyncio.sleep(0)\n    return n * 2\n"
         "print(await f(1))\nawait asyncio.gather(f(2), f(3))", {},
         {"status": "success", "output": ["2"], "return_value": [4, 6]}),
    ],
    ids=["return-value", "return-string", "print", "global-variable", "two-globals", "print-a-global-dict",
         "containers-become-json", "other-objects-become-their-repr", "non-finite-float-is-its-repr",
         "top-level-await"],
)
def test_run_python_code_returns_mcp_run_python_result_shape(code, variables, expected):
    assert run_python_code(evaluator(), code, variables) == expected


@pytest.mark.parametrize(
    "code, error",
    [
        ("print(unknown)",
         'Traceback (most recent call last):\n  File "main.py", line 1, in <module>\n    print(unknown)\n'
         + ("          ^^^^^^^\n" if CARETS else "") + "NameError: name 'unknown' is not defined\n"),
        ("def foo():\n    1 / 0\n\nfoo()",
         'Traceback (most recent call last):\n  File "main.py", line 4, in <module>\n    foo()\n'
         + ("    ~~~^^\n" if sys.version_info >= (3, 13) else "")
         + '  File "main.py", line 2, in foo\n    1 / 0\n' + ("    ~~^~~\n" if CARETS else "")
         + "ZeroDivisionError: division by zero\n"),
        ("x = [1]\nif x:\n    x[5]",
         'Traceback (most recent call last):\n  File "main.py", line 3, in <module>\n    x[5]\n'
         + ("    ~^^^\n" if CARETS else "") + "IndexError: list index out of range\n"),
        ("while True:\n    pass",
         "OpLimit: main.py:1:1: OpLimit: too many operations (limit ops=100000, reached 100001) at line 1\n"
         "    while True:\n    ^\n"),
    ],
    ids=["name-error", "traceback-through-a-function", "error-inside-a-block", "op-limit"],
)
def test_a_failing_run_is_a_run_error_with_guest_frames_only(code, error):
    result = run_python_code(evaluator(), code)
    assert result == {"status": "run-error", "output": [], "error": error}


@pytest.mark.parametrize(
    "body, error",
    [
        ("raise ValueError('no')", "ValueError: no\n"),
        ("return 5", "TypeError: __repr__ returned non-string (type int)\n"),
        ("while True:\n            pass", "too many operations (limit ops=100000, reached 100001) at line 4\n"
                                           "            while True:\n            ^\n"),
    ],
    ids=["raises", "returns-a-non-str", "never-returns"],
)
def test_a_return_value_whose_repr_misbehaves_is_a_run_error(body, error):
    code = f"print('made')\nclass P:\n    def __repr__(self):\n        {body}\n[P()]"
    result = run_python_code(evaluator(), code)
    assert (result["status"], result["output"]) == ("run-error", ["made"])
    assert result["error"].endswith(error)


def test_output_printed_before_an_error_is_returned():
    result = run_python_code(evaluator(), "print('step 1')\n1 / 0")
    assert (result["status"], result["output"]) == ("run-error", ["step 1"])


def test_a_refused_program_is_a_run_error_with_its_diagnostics():
    result = run_python_code(evaluator(), "import os")
    assert (result["status"], result["output"]) == ("run-error", [])
    assert result["error"].startswith("PolicyViolation: ")
    assert "T001 [import-not-allowed] import of `os` is not allowed\n    import os\n           ^^\n" in result["error"]


def test_each_call_starts_from_a_fresh_namespace():
    ev = evaluator()
    assert run_python_code(ev, "x = 1\nx")["return_value"] == 1
    assert run_python_code(ev, "x")["error"].endswith("NameError: name 'x' is not defined\n")


@pytest.mark.parametrize(
    "result, text",
    [
        ({"status": "success", "output": ["x=4"], "return_value": 4},
         "<status>success</status>\n<output>\nx=4\n</output>\n<return_value>\n4\n</return_value>"),
        ({"status": "success", "output": [], "return_value": None}, "<status>success</status>"),
        ({"status": "success", "output": [], "return_value": "hi"},
         "<status>success</status>\n<return_value>\nhi\n</return_value>"),
        ({"status": "run-error", "output": ["</output>"], "error": "E"},
         "<status>run-error</status>\n<output>\n&lt;/output&gt;\n</output>\n<error>\nE\n</error>"),
    ],
    ids=["success", "no-return-value", "string-as-is", "closing-tag-escaped"],
)
def test_the_default_text_form_is_mcp_run_pythons_xml(result, text):
    assert as_xml(result) == text


def test_check_python_returns_every_diagnostic_as_json():
    report = check_python(evaluator(), "import os\nopen('x')")
    assert report["ok"] is False
    assert [(d["name"], d["line"]) for d in report["diagnostics"] if d["severity"] == "error"][0] == (
        "import-not-allowed", 1)


def test_the_cli_refuses_an_unknown_sandbox_before_serving(capsys):
    assert cli_main(["mcp", "--sandbox", "nonsense"]) == 2
    assert "bad --sandbox" in capsys.readouterr().err


@pytest.mark.parametrize("options", [[], ["--sandbox", "subprocess"]], ids=["in-process", "subprocess-sandbox"])
def test_the_server_answers_an_mcp_client_over_stdio(options):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def session() -> tuple[list[str], dict, str, dict]:
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "safe_eval", "mcp", "--return-mode", "json", *options])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = (await client.list_tools()).tools
            run = next(t for t in tools if t.name == "run_python_code")
            schema = getattr(run, "input_schema", None) or run.inputSchema
            ran = await client.call_tool("run_python_code", {
                "python_code": dedent("""\
                    total = sum(rows)
                    print(f"{len(rows)} rows")
                    total"""),
                "global_variables": {"rows": [1, 2, 3]}})
            checked = await client.call_tool("check_python", {"python_code": "import subprocess"})
            return [t.name for t in tools], schema, ran.content[0].text, json.loads(checked.content[0].text)

    names, schema, ran, checked = anyio.run(session)
    assert sorted(names) == ["check_python", "run_python_code"]
    assert schema["required"] == ["python_code"]
    assert set(schema["properties"]) == {"python_code", "global_variables"}
    assert schema["properties"]["global_variables"]["default"] == {}
    assert json.loads(ran) == {"status": "success", "output": ["3 rows"], "return_value": 6}
    assert checked["ok"] is False
