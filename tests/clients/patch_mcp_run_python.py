"""pytest plugin (``-p patch_mcp_run_python``): mcp-run-python's ``code_sandbox`` talking to
``python -m safe_eval mcp --return-mode json`` instead of its Deno/Pyodide server. Only the
server process changes: the client, the MCP session and the result parsing are mcp-run-python's."""

import sys
from contextlib import asynccontextmanager
from types import SimpleNamespace

import mcp_run_python.code_sandbox as code_sandbox

_StdioServerParameters = code_sandbox.StdioServerParameters


@asynccontextmanager
async def _safe_eval_env(*args, **kwargs):
    yield SimpleNamespace(args=["-m", "safe_eval", "mcp", "--return-mode", "json"], cwd=None)


def _parameters(command, args, cwd=None, **kwargs):
    return _StdioServerParameters(command=sys.executable, args=args, cwd=cwd, **kwargs)


code_sandbox.async_prepare_deno_env = _safe_eval_env
code_sandbox.StdioServerParameters = _parameters
