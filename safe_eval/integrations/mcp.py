"""An MCP server (stdio, the official ``mcp`` Python SDK) that runs Python through safe-eval.

    safe-eval mcp [--policy P] [--sandbox S] [--return-mode xml|json]
    python -m safe_eval mcp ...

Tools, compatible with pydantic's mcp-run-python where it defines them:

- ``run_python_code(python_code: str, global_variables: dict = {})``: the same input schema; the
  result is one text block, ``{"status": "success"|"run-error", "output": [lines],
  "return_value": ... | "error": "..."}`` as JSON (``--return-mode json``) or as mcp-run-python's
  XML-ish tags (``<status>``, ``<output>``, ``<return_value>``, ``<error>``; the default, as there).
  Each call starts from a fresh namespace holding ``global_variables``; the return value is the
  last expression statement's; errors are CPython-style tracebacks of guest frames only (file
  ``main.py``), policy refusals and limits their rendered diagnostics.
- ``check_python(python_code: str)``: the static checks only, the ``check()`` report as JSON.

The sandbox is chosen by whoever starts the server (``--sandbox``, or ``SAFE_EVAL_SANDBOX``),
never by a tool argument: the model on the other side of the protocol cannot lower it, and
``run_python_code`` keeps mcp-run-python's schema.

Top-level ``await`` works as in mcp-run-python (the module then runs as a coroutine; so does
``async with``/``async for`` at top level). Divergences from mcp-run-python, by design: no
package installation (``dependencies``), the curated standard library only, limits from the
policy.
"""

from __future__ import annotations

import ast
import json
import sys
import traceback
from collections.abc import Mapping
from typing import Any

from safe_eval.api import Evaluator
from safe_eval.errors import GuestError, GuestFrame, OutputLimit, SafeEvalError
from safe_eval.limits.guards import g_repr

__all__ = ["FILENAME", "build_server", "check_python", "run_python_code", "serve"]

FILENAME = "main.py"  # the file name guest frames carry, as in mcp-run-python
_MAX_JSON_DEPTH = 64
_MAX_JSON_NODES = 200_000

RUN_DESCRIPTION = """Tool to execute Python code and return stdout, stderr, and return value.

The value on the last line will be returned as the return value.

The code runs in safe-eval's interpreter (Python semantics, a curated standard library, no
files, network or processes), under time, operation and memory limits.
"""
CHECK_DESCRIPTION = """Check Python code without running it: every rule it breaks, with line and column,
as JSON ({"ok": bool, "diagnostics": [...]})."""


def run_python_code(evaluator: Evaluator, python_code: str,
                    global_variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One ``run_python_code`` call: the result as mcp-run-python shapes it."""
    env = dict(global_variables or {})
    try:
        result = evaluator.run(python_code, env)
    except SafeEvalError as exc:
        stdout = getattr(exc, "stdout", "") or ""
        return {"status": "run-error", "output": stdout.splitlines(), "error": _error_text(exc, python_code)}
    output = result.stdout.splitlines()
    try:
        value = _jsonable(result.value)
    except SafeEvalError as exc:  # a guest __repr__ that raised or ran out of its bound
        return {"status": "run-error", "output": output, "error": _error_text(exc, python_code)}
    except (TypeError, ValueError) as exc:  # a guest __repr__ that returned a non-str
        return {"status": "run-error", "output": output, "error": f"{type(exc).__name__}: {exc}\n"}
    return {"status": "success", "output": output, "return_value": value}


def check_python(evaluator: Evaluator, python_code: str) -> dict[str, Any]:
    """One ``check_python`` call: the static report as a JSON object."""
    from safe_eval.checking import check

    report: dict[str, Any] = json.loads(check(python_code, evaluator.policy, filename=FILENAME).to_json())
    return report


def as_xml(result: Mapping[str, Any]) -> str:
    """mcp-run-python's default text form of a result (its ``asXml``)."""
    parts = [f"<status>{result['status']}</status>"]
    if result["output"]:
        parts += ["<output>", *(_escape(line, "output") for line in result["output"]), "</output>"]
    if result["status"] == "success":
        value = result["return_value"]
        if value is not None:
            text = value if isinstance(value, str) else json.dumps(value, indent=2)
            parts += ["<return_value>", _escape(text, "return_value"), "</return_value>"]
    else:
        parts += ["<error>", _escape(result["error"], "error"), "</error>"]
    return "\n".join(parts)


def build_server(policy: Any = None, limits: Any = None, *, sandbox: str | None = None,
                 return_mode: str = "xml") -> Any:
    """The MCP server object (``mcp.server.mcpserver.MCPServer``, or ``FastMCP`` on mcp 1.x)."""
    if return_mode not in ("xml", "json"):
        raise ValueError(f"return_mode must be 'xml' or 'json', not {return_mode!r}")
    try:
        from mcp.server.mcpserver import MCPServer as Server
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef,attr-defined,unused-ignore]

    evaluator = Evaluator(policy, limits, filename=FILENAME, sandbox=sandbox)
    server = Server("safe-eval", instructions='Call the "run_python_code" tool with the Python code to run.')

    def run(python_code: str, global_variables: dict[str, Any] = {}) -> str:  # noqa: B006 (the schema's default)
        result = run_python_code(evaluator, python_code, global_variables)
        return as_xml(result) if return_mode == "xml" else json.dumps(result)

    def check_(python_code: str) -> str:
        return json.dumps(check_python(evaluator, python_code))

    _describe(run, python_code="Python code to run",
              global_variables="Map of global variables in context when the code is executed")
    _describe(check_, python_code="Python code to check")
    server.tool(name="run_python_code", description=RUN_DESCRIPTION, structured_output=False)(run)
    server.tool(name="check_python", description=CHECK_DESCRIPTION, structured_output=False)(check_)
    return server


def serve(policy: Any = None, limits: Any = None, *, sandbox: str | None = None,
          return_mode: str = "xml") -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server(policy, limits, sandbox=sandbox, return_mode=return_mode).run("stdio")


def _describe(fn: Any, **descriptions: str) -> None:
    """Give the tool's parameters their schema descriptions (``Annotated`` + pydantic Field)."""
    from typing import Annotated

    from pydantic import Field

    hints = dict(fn.__annotations__)
    for name, text in descriptions.items():
        hints[name] = Annotated[_RESOLVED[hints[name]], Field(description=text)]
    fn.__annotations__ = hints


# the annotations above are strings (``from __future__ import annotations``): the types they name
_RESOLVED: dict[str, Any] = {"str": str, "dict[str, Any]": dict[str, Any]}


def _escape(text: str, tag: str) -> str:
    """mcp-run-python's ``escapeClosing``: a ``</tag ...>`` inside the text cannot end the block."""
    import re

    return re.sub(rf"</?\s*{tag}(?:.*?>)?", lambda m: m.group(0).replace("<", "&lt;").replace(">", "&gt;"),
                  text, flags=re.IGNORECASE)


def _jsonable(value: Any) -> Any:
    """The return value as JSON data, by exact type (no host introspection of guest objects);
    anything else is its ``repr``, as mcp-run-python's fallback does. The walk visits at most
    ``_MAX_JSON_NODES`` nodes (a list holding itself twice, twenty times over, is a million
    paths through 40 objects) and every ``repr`` is the guest's priced one (``limits.guards``):
    a result too large to show is an ``OutputLimit``, never host time."""
    budget = [_MAX_JSON_NODES]

    def walk(value: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise OutputLimit("return value too large to show", value=_MAX_JSON_NODES)
        t = type(value)
        if value is None or t in (str, int, bool):
            return value
        if t is float:
            return value if value == value and value not in (float("inf"), float("-inf")) else g_repr(value)
        if depth >= _MAX_JSON_DEPTH:
            return g_repr(value)
        if t in (list, tuple, set, frozenset):
            return [walk(item, depth + 1) for item in value]
        if t is dict:
            return {k if type(k) is str else g_repr(k): walk(v, depth + 1) for k, v in value.items()}
        if t in (bytes, bytearray):
            return bytes(value).decode("utf-8", "replace")
        return g_repr(value)

    return walk(value, 0)


def _error_text(exc: SafeEvalError, code: str) -> str:
    if isinstance(exc, GuestError):
        return _traceback_text(exc, code)
    render = getattr(exc, "render", None)
    text = render() if callable(render) else str(exc)
    kind = type(exc).__name__
    return (text if text.startswith(kind) else f"{kind}: {text}").rstrip("\n") + "\n"


def _traceback_text(exc: GuestError, code: str) -> str:
    """CPython's traceback text for the guest frames (CPython's own formatter, so the carets
    are what the running Python draws), then ``Type: message``."""
    undefined = _undefined_name(exc)
    last = len(exc.traceback) - 1
    summaries = [_summary(frame, code, undefined if i == last else None)
                 for i, frame in enumerate(exc.traceback)]
    lines = ["Traceback (most recent call last):\n", *traceback.StackSummary.from_list(summaries).format()]
    message = f"{exc.type_name}: {exc.message}" if exc.message else exc.type_name
    return "".join(lines) + message + "\n"


def _undefined_name(exc: GuestError) -> str | None:
    """The name a ``NameError`` names ("name 'x' is not defined"), else None."""
    if exc.type_name not in ("NameError", "UnboundLocalError"):
        return None
    parts = exc.message.split("'")
    return parts[1] if len(parts) >= 3 else None


def _summary(frame: GuestFrame, code: str, undefined: str | None) -> traceback.FrameSummary:
    span = _failing_span(frame, code, undefined)
    # as linecache gives it: the formatter's column arithmetic counts the newline
    line = frame.source_line + "\n"
    if span is None or sys.version_info < (3, 11):
        return traceback.FrameSummary(frame.filename, frame.line, frame.name, lookup_line=False, line=line)
    (start_line, start_col), (end_line, end_col) = span
    return traceback.FrameSummary(  # type: ignore[call-arg,unused-ignore]
        frame.filename, start_line, frame.name, lookup_line=False, line=line,
        end_lineno=end_line, colno=start_col, end_colno=end_col)


# statements whose frame position says nothing about one expression
_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try)
_OPERATIONS = (ast.Call, ast.BinOp, ast.Subscript, ast.Attribute, ast.Compare, ast.UnaryOp, ast.Await)


def _failing_span(frame: GuestFrame, code: str,
                  undefined: str | None) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The expression that raised, when the statement leaves no doubt: guest frames record the
    statement, not the expression, so carets are drawn only under the one use of the name a
    ``NameError`` names or under a statement's one operation (``baz()``, ``1 / 0``). The guest
    raised at run time, so this host-side parse is of text the pipeline's parse limits passed."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    statement = next((n for n in ast.walk(tree) if isinstance(n, ast.stmt)
                      and (n.lineno, n.col_offset) == (frame.line, frame.col)), None)
    if statement is None or isinstance(statement, _COMPOUND):
        return None
    nodes = [n for n in ast.walk(statement) if isinstance(n, ast.expr)]
    candidates: list[ast.expr]
    if undefined is not None:
        candidates = [n for n in nodes if isinstance(n, ast.Name) and n.id == undefined]
    else:
        candidates = [n for n in nodes if isinstance(n, _OPERATIONS)]
    if len(candidates) != 1:
        return None
    target = candidates[0]
    if target.end_lineno is None or target.end_col_offset is None:
        return None
    return (target.lineno, target.col_offset), (target.end_lineno, target.end_col_offset)
