"""The sandbox worker: ``python -m safe_eval.worker CONFIG`` inside the OS sandbox.

It imports the pipeline, becomes a child subreaper, locks itself down (``lockdown.apply``), says
``ready``, then serves ``run`` requests from stdin until ``exit`` or end of input. One worker
keeps one guest namespace: a session's REPL state. Tools are stubs that ask the host (``tool``
requests); guest output goes out as ``print`` notifications as it is written; a tool call this
worker's policy denies is told to the host (``denied``). Every process a run started is killed
before its answer goes out (``processes``).

The protocol uses private copies of fds 0 and 1; fd 0 then reads /dev/null and fd 1 goes to
stderr, so stray C-level writes cannot corrupt the stream.
"""

from __future__ import annotations

import ast
import io
import json
import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from safe_eval.errors import SandboxValueError
from safe_eval.sandbox import codec, lockdown, processes
from safe_eval.sandbox.protocol import (
    MAX_LINE,
    PRINT_CHUNK,
    dumps,
    error_data,
    exception_from_data,
    oversized,
)

__all__ = ["main", "serve"]


class Channel:
    """The worker's end of the wire."""

    def __init__(self, rfile: BinaryIO, wfile: BinaryIO) -> None:
        self.rfile = rfile
        self.wfile = wfile
        self.next_id = 0

    def send(self, message: dict[str, Any], *, checked: bool = False) -> None:
        """Write one message. ``checked`` (an answer, a tool call's arguments): raise
        ``SandboxValueError`` instead, nothing written, when the host would refuse it as too
        large (``protocol.oversized``); guest output is not checked: past the bound the host
        ends the worker (a flood of the wire is a crash)."""
        message["jsonrpc"] = "2.0"
        line = dumps(message)
        why = oversized(line) if checked else None
        if why is not None:
            raise SandboxValueError(f"too large to cross the sandbox boundary: {why}")
        self.wfile.write(line)
        self.wfile.flush()

    def receive(self) -> dict[str, Any] | None:
        line = self.rfile.readline(MAX_LINE + 1)
        if not line:
            return None
        msg = json.loads(line)
        if type(msg) is not dict:
            raise ValueError("not a JSON-RPC message")
        return msg

    def call_host(self, method: str, params: dict[str, Any]) -> Any:
        """A request to the host, answered before anything else arrives."""
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params}, checked=True)
        reply = self.receive()
        if reply is None:
            raise SystemExit(0)
        if reply.get("id") != ident:
            raise RuntimeError("the host answered out of turn")
        if "error" in reply:
            raise exception_from_data(reply["error"].get("data"))
        return codec.decode(reply.get("result"))


class GuestOutput(io.TextIOBase):
    """``sys.stdout`` while guest code runs: every write is a ``print`` notification, with
    the output limit counted here too (the host counts again and kills past it)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.size = 0
        self.limit: int | None = None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        self.size += len(text)
        if self.limit is not None and self.size > self.limit:
            from safe_eval.errors import OutputLimit

            raise OutputLimit("too much output", value=self.limit, reached=self.size)
        # one write of any size crosses as pieces the wire carries (``PRINT_CHUNK``); the host
        # shows a write once its last piece arrived, so a write the limit cuts is not shown
        for start in range(0, len(text), PRINT_CHUNK):
            params: dict[str, Any] = {"text": text[start:start + PRINT_CHUNK]}
            if start + PRINT_CHUNK < len(text):
                params["more"] = True
            self.channel.send({"method": "print", "params": params})
        return len(text)


def _tool_stub(channel: Channel, name: str, signature: Any) -> Callable[..., Any]:
    """A stand-in for the host tool ``name``: its calls go to the host, which decides them
    again with its policy and runs the tool. It carries the host tool's signature, so this
    worker's policy places the arguments as the host's does (``policywire``)."""
    from safe_eval.sandbox.policywire import signature_from_wire

    def tool(*args: Any, **kwargs: Any) -> Any:
        return channel.call_host("tool", {
            "name": name, "args": codec.encode(list(args)), "kwargs": codec.encode(dict(kwargs))})

    tool.__name__ = tool.__qualname__ = name
    tool.__signature__ = signature_from_wire(signature)  # type: ignore[attr-defined]
    return tool


class Worker:
    def __init__(self, channel: Channel, mode: str) -> None:
        self.pid = os.getpid()
        self.channel = channel
        self.mode = mode
        self.ns: dict[str, Any] = {}
        self.output = GuestOutput(channel)
        self._evaluators: dict[str, Any] = {}

    def evaluator(self, spec: Any) -> Any:
        """The evaluator for the host's policy, sent whole (``policywire``): the same imports,
        tool rules and floor, so a guest ``exec`` string the host never saw meets the same
        rules. Tool calls that pass here are decided again by the host, with the host tool and
        the audit hook; limits come with each run; the sandbox minimum is met already."""
        from safe_eval.api import Evaluator
        from safe_eval.sandbox.policywire import from_wire

        key = json.dumps(spec, sort_keys=True)
        ev = self._evaluators.get(key)
        if ev is None:
            if len(self._evaluators) >= 16:
                self._evaluators.clear()
            # the in-process default cache (256 programs, 16 MB): a worker serving a batch that
            # cycles through more programs than 64 (HumanEval's 164) recompiled every job
            ev = self._evaluators[key] = Evaluator(from_wire(spec), echo=True, audit=self._tell_host)
        return ev

    def _tell_host(self, event: Any) -> None:
        """This worker's policy refused code (a guest ``exec`` string) or denied a tool call, so
        the host never saw it: tell the host, whose audit hook sees every refusal and denial as
        in process (it decides a denied call again itself)."""
        from safe_eval.audit import Refusal
        from safe_eval.policy.enforce import ToolEvent

        if type(event) is Refusal:
            data = {"kind": "PolicyViolation", "source": event.source,
                    "diagnostics": [d.to_dict() for d in event.diagnostics]}
            self.channel.send({"method": "refused", "params": {"filename": event.filename, "data": data}})
            return
        if type(event) is not ToolEvent or event.decision.allowed:
            return
        try:
            args, kwargs = codec.encode(list(event.args)), codec.encode(dict(event.kwargs))
        except SandboxValueError:
            args = kwargs = None
        params = {"name": event.name, "args": args, "kwargs": kwargs}
        self.channel.send({"method": "denied", "params": params})

    def run(self, params: dict[str, Any]) -> dict[str, Any]:
        # a one-shot run (a batch job) gets a namespace of its own, kept by nobody after it,
        # and reports no bindings: the next job in this worker starts from nothing
        oneshot = params.get("oneshot") is True
        ns: dict[str, Any] = {} if oneshot else self.ns
        env = codec.decode(params.get("env", {"$": "dict", "v": []}))
        if type(env) is not dict:
            raise ValueError("env must be a dict")
        ns.update(env)
        signatures = params.get("signatures") or {}
        for name in params.get("tools", []):
            ns[str(name)] = _tool_stub(self.channel, str(name), signatures.get(name))
        before = {k: id(v) for k, v in ns.items()}
        code = str(params["code"])
        limits = params.get("limits") or {}
        self.output.size = 0
        # plain CPython could catch an OutputLimit raised here and go on: there the host alone
        # counts the output, and kills the worker past the limit (a denial ends the run)
        self.output.limit = int(limits["output"]) if "output" in limits and self.mode != "cpython" else None
        saved = sys.stdout
        sys.stdout = self.output
        try:
            if self.mode == "cpython":
                value, ops = _run_cpython(code, ns, str(params.get("filename", "<sandbox>"))), 0
            else:
                ev = self.evaluator(params.get("policy"))
                result = ev.run(code, ns, limits=limits)
                value, ops = result.value, result.ops
        finally:
            sys.stdout = saved
        changed: dict[str, Any] = {}
        for k, v in () if oneshot else ns.items():
            if before.get(k) != id(v) and not k.startswith("__"):
                try:
                    changed[k] = codec.encode(v)
                except SandboxValueError:
                    continue  # stays in the session; it cannot leave it
        return {"value": codec.encode(value), "bindings": changed, "ops": ops}

    def serve(self) -> None:
        channel = self.channel
        while True:
            msg = channel.receive()
            if msg is None or msg.get("method") == "exit":
                return
            ident = msg.get("id")
            try:
                if msg.get("method") != "run":
                    raise ValueError(f"unknown method {msg.get('method')!r}")
                reply: dict[str, Any] = {"id": ident, "result": self.run(msg.get("params") or {})}
            except MemoryError:
                from safe_eval.errors import MemoryLimit

                reply = {"id": ident, "error": {"code": -32000, "message": "memory",
                                                "data": error_data(MemoryLimit("out of memory"))}}
            except BaseException as exc:  # every failure is answered; the worker keeps serving
                if isinstance(exc, SystemExit):
                    raise
                reply = {"id": ident, "error": {"code": -32000, "message": type(exc).__name__,
                                                "data": _guest_or_error(exc, self.mode)}}
            if os.getpid() != self.pid:
                os._exit(0)  # a process the guest forked came back here: it never talks to the host
            # every process the run started ends with it, before the host hears the run is over
            processes.end_descendants()
            try:
                channel.send(reply, checked=True)
            except SandboxValueError as exc:  # the answer is too large for the wire: say so instead
                channel.send({"id": ident, "error": {"code": -32000, "message": "SandboxValueError",
                                                     "data": error_data(exc)}})


def _guest_or_error(exc: BaseException, mode: str) -> dict[str, Any]:
    from safe_eval.errors import SafeEvalError

    if mode == "cpython" and not isinstance(exc, SafeEvalError) and isinstance(exc, Exception):
        # plain CPython: the guest's own exception, with its frames in the guest file
        import traceback

        frames = [
            {"filename": f.filename, "line": f.lineno or 0, "col": 0, "name": f.name,
             "source_line": f.line or ""}
            for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<sandbox>"
        ]
        return {"kind": "GuestError", "type": type(exc).__name__, "message": str(exc), "traceback": frames}
    return error_data(exc)


# builtins that compile new code at run time: the static check in the host never saw that
# code, so plain CPython mode goes without them (the in-process interpreter has guarded ones).
# This removes the plain route only: plain CPython's getattr with a computed name still reaches
# the builtins module; in this mode the OS sandbox is the boundary, the checks are a lint
_UNCHECKED_CODE = frozenset({"exec", "eval", "compile", "breakpoint"})


def _cpython_builtins() -> dict[str, Any]:
    import builtins

    return {k: v for k, v in vars(builtins).items() if k not in _UNCHECKED_CODE}


def _run_cpython(code: str, ns: dict[str, Any], filename: str) -> Any:
    """Plain CPython: the statements, then the value of a final expression statement."""
    tree = ast.parse(code, "<sandbox>")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body[-1].value)
        tree.body.pop()
    ns.setdefault("__builtins__", _cpython_builtins())
    exec(compile(tree, "<sandbox>", "exec"), ns)
    return eval(compile(last, "<sandbox>", "eval"), ns) if last is not None else None


def _warm_up() -> None:
    # the first evaluation pays for lazy imports and caches: pay it before lockdown and ready
    # (a zygote pays it once for every worker it forks), the policy's wire form included
    from safe_eval.api import Evaluator
    from safe_eval.sandbox.policywire import from_wire, to_wire

    policy = from_wire(to_wire(Evaluator().policy))
    Evaluator(policy).run("x = [i * i for i in range(3)]\nprint(end='')\nsum(x)", {})


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    config = json.loads(argv[0]) if argv else {}
    serve(config, warm=True)


def serve(config: dict[str, Any], *, warm: bool) -> None:
    """Lock down as ``config`` says, say ready, serve requests on fds 0/1 until the end.
    ``warm``: pay the first evaluation's lazy imports first (a forked worker inherited them)."""
    rfile = os.fdopen(os.dup(0), "rb", buffering=65536)
    wfile = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    channel = Channel(rfile, wfile)
    mode = str(config.get("mode", "interpreter"))
    if warm:
        _warm_up()
    # orphans of the guest's processes come to this worker, not to the init of the namespace:
    # it finds and ends them all after each run (``processes.end_descendants``)
    processes.become_subreaper()
    applied = lockdown.apply(config.get("lockdown", {}))
    workdir = config.get("workdir")
    if workdir:
        os.chdir(workdir)
    channel.send({"method": "ready", "params": {"pid": os.getpid(), "layers": applied}})
    Worker(channel, mode).serve()

if __name__ == "__main__":
    main()
