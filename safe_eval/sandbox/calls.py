"""``safe_callable(..., sandbox=NAME)``: a function the code defines, living in a worker.

The code runs once in a session of the shared backend for ``NAME``; every call sends its
arguments there as plain data (the codec: no object of the host enters the worker) and gets the
result back the same way. The function's state (globals it mutates, caches) stays in that one
worker between calls, as it would in process. The session's worker ends when the callable is
closed or collected.

``env`` is the function's module-level state: its plain data crosses once, when the code runs
(a dict ``env`` gets the code's top-level bindings written back, as in process); its
callables, and ``tools``, stay in the host as tools, offered again to every call and decided
by the host's policy and audit hook each time. ``expected`` is not offered: the signature it
is checked against lives in the worker.
"""

from __future__ import annotations

import ast
import threading
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from safe_eval.errors import GuestError, SandboxError

if TYPE_CHECKING:
    from safe_eval.sandbox.session import Session

__all__ = ["SandboxedFunction", "sandboxed_callable"]

# the worker-side names the call's arguments are bound to: not dunders (the restrict stage
# refuses those), so a prefix the guest's own function is unlikely to shadow
_ARGS = "_safe_eval_call_args"
_KWARGS = "_safe_eval_call_kwargs"


class SandboxedFunction:
    """A host callable whose calls run the guest function in its sandbox session."""

    def __init__(self, session: Session, name: str, sandbox: str, *, policy: Any, limits: Any,
                 tools: Mapping[str, Any] | None = None, audit: Any = None) -> None:
        self.__name__ = name
        self.sandbox = sandbox
        self._session = session
        self._policy = policy
        self._limits = limits
        self._tools = dict(tools or {})
        self._audit = audit
        # one call at a time: the session's worker serves one request at a time
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, session.close, wait=False)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._finalizer.alive:
            raise SandboxError(f"the sandboxed function {self.__name__!r} is closed")
        env = {**self._tools, _ARGS: args, _KWARGS: kwargs}
        with self._lock:
            return self._session.run(f"{self.__name__}(*{_ARGS}, **{_KWARGS})", env,
                                     policy=self._policy, limits=self._limits, audit=self._audit).value

    def close(self) -> None:
        """End the worker and wait for it (later calls raise ``SandboxError``)."""
        if self._finalizer.detach() is not None:
            self._session.close()

    def __repr__(self) -> str:
        return f"<sandboxed function {self.__name__} in {self.sandbox}>"


def _last_function(code: str) -> str | None:
    """The last top-level function the code defines (``safe_callable``'s default)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None  # the worker's own check reports it, with its position
    names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return names[-1] if names else None


def sandboxed_callable(code: Any, name: str | None, sandbox: str, *, policy: Any = None,
                       limits: Any = None, env: Mapping[str, Any] | None = None,
                       tools: Mapping[str, Any] | None = None, audit: Any = None) -> SandboxedFunction:
    from safe_eval.sandbox import selection

    if isinstance(code, bytes):
        code = code.decode("utf-8")
    if not isinstance(code, str):
        raise TypeError(f"code must be str or bytes, not {type(code).__name__}")
    session = selection.get_backend(selection.normalize(sandbox)).session(snapshot=False)
    host_tools = dict(tools or {})
    # the env's callables stay tools for every later call, as ``tools`` do
    env_tools = {k: v for k, v in (env or {}).items() if callable(v) and not isinstance(v, type)}
    try:
        first = {**host_tools, **(env or {})}
        session.run(code, first, policy=policy, limits=limits, audit=audit)
        if isinstance(env, dict):  # the code's top-level bindings, as in process
            env.update({k: v for k, v in first.items() if k not in host_tools or v is not host_tools[k]})
        fname = name if name is not None else _last_function(code)
        if fname is None:
            raise GuestError("NameError", "the code defines no function")
        if not fname.isidentifier():
            raise GuestError("NameError", f"the code does not define '{fname}'")
        # an undefined name is the worker's own NameError
        kind = session.run(f"type({fname}).__name__", {}, policy=policy, limits=limits).value
        if kind not in ("function", "Function"):  # plain CPython; the interpreter's
            raise GuestError("TypeError", f"'{fname}' is not a function the code defines (it is a {kind})")
    except BaseException:
        session.close(wait=False)
        raise
    return SandboxedFunction(session, fname, sandbox, policy=policy, limits=limits,
                             tools={**host_tools, **env_tools}, audit=audit)
