"""A session: one sandboxed worker kept across runs, with a workspace.

    with backend.session() as s:
        s.put("data.csv", text)
        s.run("x = 40")
        s.run("x + 2").value        # 42: the guest namespace lives in the worker
        s.rollback()                # the workspace as it was before the last run changed it

Every run is checked here first (``prepare``): code ``safe_eval.check`` refuses never reaches
a worker. The worker then runs it under the same policy, sent whole (``policywire``).

Tools stay in the host: an env callable becomes a stub in the worker (with the tool's
signature) whose calls come back here, are decided by the host's policy and audit hook
(``call_tool``), and run here. When a limit or a denial kills the worker, the next run starts a
fresh one (the namespace is lost; the workspace is kept).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from safe_eval import rules
from safe_eval.errors import PolicyViolation, SafeEvalError, SandboxCrashed, SandboxError, SandboxValueError
from safe_eval.sandbox import codec

if TYPE_CHECKING:
    from safe_eval.api import Result
    from safe_eval.limits.model import Limits
    from safe_eval.policy import Policy
    from safe_eval.sandbox.base import Backend
    from safe_eval.sandbox.process import WorkerProcess

__all__ = ["Session"]

# background clean-ups of one-shot sessions still running; joined at exit (``join_reapers``)
# so no workspace directory outlives the process
_REAPERS: set[threading.Thread] = set()


def join_reapers(timeout: float = 5.0) -> None:
    for reaper in list(_REAPERS):
        reaper.join(timeout)


# seconds the host waits past the guest's time limit before it kills the worker (the
# interpreter inside normally stops the run itself, with a line number)
GRACE = 0.5
# cpython mode: refused builtins that only reach the file system, which the OS boundary confines
# to the workspace (eval/exec/compile/__import__ stay refused: they would skip the static check)
CPYTHON_BUILTINS = frozenset({"open"})


class Session:
    def __init__(self, backend: Backend, *, snapshot: bool = True) -> None:
        self.backend = backend
        self.snapshots = snapshot
        self._proc: WorkerProcess | None
        self._proc, self.workspace = backend.acquire()
        self._closed = False

    @property
    def worker_pid(self) -> int | None:
        """The host pid of the worker (its process group id too), None between workers."""
        return self._proc.pid if self._proc is not None and not self._proc.dead else None

    def _worker(self) -> WorkerProcess:
        if self._closed:
            raise SandboxError("the session is closed")
        if self._proc is None or self._proc.dead:
            self._proc = self._respawn()
        return self._proc

    def _respawn(self) -> WorkerProcess:
        return self.backend.start_worker(self.workspace)

    # -- running ---------------------------------------------------------------------------
    def run(self, code: Any, env: Mapping[str, Any] | None = None, *, policy: Any = None,
            limits: Any = None, audit: Callable[..., Any] | None = None,
            on_print: Callable[[str], Any] | None = None, filename: str = "<safe-eval>",
            oneshot: bool = False) -> Result:
        """Evaluate ``code`` in the worker; like ``Evaluator.run``. ``env`` values cross as
        plain data, env callables stay here as tools; a dict ``env`` gets the top-level
        bindings the code made (those that are plain data) written back. ``oneshot``: the run
        gets a fresh namespace that it leaves nothing in, and nothing is written back (a batch
        job in a reused worker)."""
        job = prepare(self.backend, code, env, policy=policy, limits=limits, audit=audit, filename=filename)
        return self.run_prepared(job, on_print=on_print, oneshot=oneshot)

    def run_prepared(self, job: Prepared, *, on_print: Callable[[str], Any] | None = None,
                     oneshot: bool = False) -> Result:
        """Run a job ``prepare`` checked (``Backend.run`` checks before it takes a worker)."""
        from safe_eval.api import Result

        pol, lim, tools, env = job.policy, job.limits, job.tools, job.env
        params = dict(job.params)
        if oneshot:
            params["oneshot"] = True
        out: list[str] = []

        def printed(text: str) -> None:
            out.append(text)
            if on_print is not None:
                on_print(text)

        def tool(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            from safe_eval.policy.enforce import call_tool

            fn = tools.get(name)
            if fn is None:
                raise SandboxCrashed(f"the sandbox worker called `{name}`, which is not a tool of this run")
            return call_tool(name, fn, args, kwargs, policy=pol, audit=job.audit)

        def denied(name: str, args: tuple[Any, ...] | None, kwargs: dict[str, Any] | None) -> None:
            from safe_eval.audit import report
            from safe_eval.policy.decision import Decision
            from safe_eval.policy.enforce import ToolEvent

            fn = tools.get(name)
            if fn is None:
                return  # not a tool of this run: nothing of the host was asked for
            decision = None if args is None else pol.decide(name, args, kwargs or {}, fn)
            if decision is None or decision.allowed:  # the worker denied what the host cannot see
                decision = Decision(False, "denied by the policy in the sandbox worker",
                                    code=rules.TOOL_NOT_ALLOWED.code)
            report(job.audit, ToolEvent(name, args or (), kwargs or {}, decision))

        def refused(exc: PolicyViolation, filename: str) -> None:
            from safe_eval.audit import Refusal, report

            report(job.audit, Refusal(exc.diagnostics, filename, exc.source))

        if self.snapshots:
            self.workspace.snapshot()
        proc = self._worker()
        start = time.perf_counter()
        try:
            reply = proc.request("run", params, seconds=lim.time, grace=GRACE, output_limit=lim.output,
                                 on_print=printed, on_tool=tool, on_denied=denied, on_refused=refused,
                                 denials_end_the_run=self.backend.mode == "cpython",
                                 startup=self.backend.startup)
        except SafeEvalError as exc:
            exc.stdout = "".join(out)  # what the run printed before it failed, as in process
            raise
        seconds = time.perf_counter() - start
        if type(reply) is not dict or type(reply.get("bindings")) is not dict:
            proc.kill()
            raise SandboxCrashed("the sandbox worker sent a malformed answer")
        try:
            value = codec.decode(reply.get("value"))
            bindings = {k: codec.decode(v) for k, v in reply["bindings"].items() if type(k) is str}
        except SandboxValueError:
            proc.kill()
            raise
        if isinstance(env, dict) and not oneshot:
            for k, v in bindings.items():
                if k not in tools:
                    env[k] = v
        ops = reply.get("ops")
        return Result(value, "".join(out), ops if type(ops) is int else 0, seconds)

    def eval(self, code: Any, env: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return self.run(code, env, **kwargs).value

    # -- workspace -------------------------------------------------------------------------
    def put(self, path: str, data: bytes | str) -> None:
        self.workspace.put(path, data)

    def get(self, path: str) -> bytes:
        return self.workspace.get(path)

    def files(self) -> list[str]:
        return self.workspace.listing()

    def rollback(self) -> None:
        """The workspace as the snapshot before the last run found it."""
        self.workspace.rollback()

    # -- ending ----------------------------------------------------------------------------
    def kill(self) -> None:
        """Kill the worker now (a host-side cancel); the next run starts a fresh one."""
        if self._proc is not None:
            self._proc.kill()

    def close(self, *, wait: bool = True) -> None:
        """End the worker and remove the workspace. ``wait=False`` sends the SIGKILL now and
        leaves reaping, the check that the whole group is dead, and the removal to a
        background thread (a one-shot call already has its answer)."""
        if self._closed:
            return
        self._closed = True
        proc = self._proc
        if wait:
            self._finish(proc)
            return
        if proc is not None:
            proc.signal_group()
        reaper = threading.Thread(target=self._finish, args=(proc,), name="safe-eval-reaper", daemon=True)
        _REAPERS.add(reaper)
        reaper.start()

    def _finish(self, proc: WorkerProcess | None) -> None:
        try:
            if proc is not None:
                proc.close()
            self.workspace.remove()
        finally:
            _REAPERS.discard(threading.current_thread())

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Prepared:
    """One run, checked in the host and ready to send: what ``prepare`` returns."""

    __slots__ = ("audit", "env", "limits", "params", "policy", "tools")

    def __init__(self, policy: Policy, limits: Limits, env: Mapping[str, Any] | None,
                 tools: dict[str, Callable[..., Any]], audit: Callable[..., Any] | None,
                 params: dict[str, Any]) -> None:
        self.policy = policy
        self.limits = limits
        self.env = env
        self.tools = tools
        self.audit = audit
        self.params = params


def prepare(backend: Backend, code: Any, env: Mapping[str, Any] | None, *, policy: Any, limits: Any,
            audit: Callable[..., Any] | None, filename: str) -> Prepared:
    """Resolve, check and encode one run, in the host, before any worker is involved. The code
    is refused here exactly when ``safe_eval.check(code, policy, env=...)`` refuses it (as an
    in-process run is: ``PolicyViolation`` with every diagnostic, the audit hook told);
    the worker then runs it under the same policy, sent whole (``policywire``)."""
    from safe_eval.api import _merge
    from safe_eval.policy import resolve_policy
    from safe_eval.sandbox import policywire

    pol = resolve_policy(policy)
    lim = _merge(pol.limits, limits)
    if isinstance(code, bytes):
        code = code.decode("utf-8")
    if not isinstance(code, str):
        raise TypeError(f"code must be str or bytes, not {type(code).__name__}")
    values, tools = _split_env(env)
    _check(code, pol, filename, {**dict.fromkeys(values), **tools}, audit,
           backend.cpython_imports if backend.mode == "cpython" else None)
    params = {
        "code": code, "env": codec.encode(values), "tools": sorted(tools), "filename": filename,
        "signatures": {name: policywire.signature_to_wire(fn) for name, fn in tools.items()},
        "limits": _limits_dict(lim), "policy": policywire.to_wire(pol),
    }
    return Prepared(pol, lim, env, tools, audit, params)


def _check(code: str, policy: Policy, filename: str, names: dict[str, Any], audit: Callable[..., Any] | None,
           cpython_imports: frozenset[str] | None) -> None:
    """The static checks, in the host, before any worker sees the code. In cpython mode
    (``cpython_imports`` not None: plain CPython runs the code) the imports the backend lets
    through and the builtins the OS boundary confines (``CPYTHON_BUILTINS``) are forgiven."""
    from safe_eval.audit import Refusal, report
    from safe_eval.checking import check

    found = check(code, policy, env=names, filename=filename).diagnostics  # its callables are the tools
    if cpython_imports is not None:
        found = tuple(d for d in found
                      if not (d.code == rules.IMPORT_NOT_ALLOWED.code
                              and _quoted(d.message, "`") in cpython_imports)
                      and not (d.code == rules.FORBIDDEN_BUILTIN.code
                               and _quoted(d.message, '"') in CPYTHON_BUILTINS))
    if any(d.severity == "error" for d in found):
        report(audit, Refusal(found, filename, code))
        raise PolicyViolation(found, code, filename=filename)


def _split_env(env: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Callable[..., Any]]]:
    if env is None:
        return {}, {}
    if not isinstance(env, Mapping):
        raise TypeError(f"env must be a dict (or a mapping), not {type(env).__name__}")
    values: dict[str, Any] = {}
    tools: dict[str, Callable[..., Any]] = {}
    for k, v in env.items():
        if type(k) is not str:
            raise TypeError(f"env keys must be str, not {type(k).__name__}")
        if callable(v) and not isinstance(v, type):
            tools[k] = v
        else:
            values[k] = v
    return values, tools


def _limits_dict(lim: Limits) -> dict[str, Any]:
    return {"time": lim.time, "ops": lim.ops, "memory": lim.memory, "recursion": lim.recursion,
            "output": lim.output}


def _quoted(message: str, quote: str) -> str:
    # "import of `os` is not allowed", 'the builtin "open" is not available'
    start = message.find(quote)
    end = message.find(quote, start + 1)
    return message[start + 1:end] if 0 <= start < end else ""
