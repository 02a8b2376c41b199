"""pytest plugin (``-p patch_mcp_run_python``): mcp-run-python's ``code_sandbox`` talking to
``python -m safe_eval mcp --return-mode json`` instead of its Deno/Pyodide server. The server
process changes, and one thing on the client side: ``code_sandbox`` never sends MCP's
``initialize`` request (its TypeScript server answers anyway; the Python SDK's servers, ours
included, refuse requests before it, as the protocol says), so the session initializes itself
on entry. The calls and the result parsing are mcp-run-python's."""

import importlib
import sys
from contextlib import asynccontextmanager
from types import SimpleNamespace

# the module, not the package's function of the same name
code_sandbox = importlib.import_module("mcp_run_python.code_sandbox")

_StdioServerParameters = code_sandbox.StdioServerParameters


@asynccontextmanager
async def _safe_eval_env(*args, **kwargs):
    yield SimpleNamespace(args=["-m", "safe_eval", "mcp", "--return-mode", "json"], cwd=None)


def _parameters(command, args, cwd=None, **kwargs):
    return _StdioServerParameters(command=sys.executable, args=args, cwd=cwd, **kwargs)


class _InitializedSession(code_sandbox.ClientSession):  # type: ignore[misc,name-defined]
    async def __aenter__(self):
        session = await super().__aenter__()
        await session.initialize()
        return session


code_sandbox.async_prepare_deno_env = _safe_eval_env
code_sandbox.ClientSession = _InitializedSession
code_sandbox.StdioServerParameters = _parameters
